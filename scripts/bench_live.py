"""The live path, measured beside the bare stack floor in the same run.

    .venv/bin/python scripts/bench_live.py --tables 1 10 50
    .venv/bin/python scripts/bench_live.py --tables 50 --processes 2
    .venv/bin/python scripts/bench_live.py --tables 10 --processes 2 --affinity player
    .venv/bin/python scripts/bench_live.py --tables 10 --mode closed      # saturation
    .venv/bin/python scripts/bench_live.py --tables 50 --largest-frames frames/
    .venv/bin/python scripts/bench_live.py --tables 1 10 50 --computers   # issue 48

It needs PostgreSQL and Redis (BENCH_DATABASE_URL, default a database
``skullking_bench`` on 127.0.0.1, created and migrated if missing; BENCH_REDIS_URL,
default Redis database 9, flushed at the start: keep it for the benchmark).

For each T it starts the table's server (``scripts/bench/server.py``: config.serve, the
production server, or daphne with ``--server daphne``; ``--processes N`` of them behind
no proxy, tables spread over them, each table's players on one process as nginx routes
them, or with ``--affinity player`` each on the next process, so that every push crosses
processes; each process pinned to a CPU of its own, ``--cpu``, as the README's
deployment runs them, unless ``--no-pin``), seats T tables of 4 players, opens every
player's websocket exactly as the page does (session cookie, Origin), has each host
start their game (the server deals and keeps the game, as for a table started on the
site) or, for a table played from a later round (``--from-round N``, or ``spread``
over the game's ten rounds, see ``start_rounds``), plays it up to that round
through the actions, and plays real games through the endpoints htmx
posts to: a bid read from the player's bid buttons, a card read from the playable
cards of the hand, the host's "Next trick" / "Next round". The move is chosen by
the shared random-move chooser. Pacing as the floor's: 4 moves back to back, then
1.5 s (``--mode trick``), or no pause at all (``--mode closed``).

Latency of a move: from just before its POST until the last of the table's 4
sockets has a frame with the new version, each frame stamped as it arrives, as
the floor stamps its own (the actor's HTTP answer is timed apart: "answer").
It prints, per T, one JSON line per
stack and a table: p50/p95/p99/max per move kind, moves per second, the
server's CPU ms per move, SQL statements per move (all of them, sessions
included), push frame and POST answer sizes, errors and timeouts, and the
ratios to the floor (``../shared/bench/floor/run.sh``, run in the same
invocation with the same T and mode). ``--largest-frames DIR`` also writes, per T and
move kind, the largest frame a socket received in the window
(``DIR/T<t>-<kind>.html``): what makes a frame big is read there.

``--computers``: half of each table's seats are computer players (Normal, issue 48),
moving as soon as they may (``COMPUTER_MOVE_DELAY_MS=0``: the most load they can
give), made by the server's own runner; the people's moves are timed as above (to
the last of the people's sockets), and the server's CPU and SQL are divided by every
move of the window, the computers' included (the tables' versions tell them).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/skullking_bench"
DEFAULT_REDIS = "redis://127.0.0.1:6379/9"
FLOOR = ROOT.parent / "shared" / "bench" / "floor"
PLAYERS = 4
TIMEOUT = 10.0  # seconds for a move to reach every socket

VERSION = re.compile(r'data-version="(\d+)"')
REGION = re.compile(r'<section id="(hand|controls)".*?</section>', re.S)
CSRF_HEADER = re.compile(r'"X-CSRFToken": "([^"]+)"')


# -- set-up (Django, in this process) ------------------------------------------------


def django_setup(database_url: str, redis_url: str) -> None:
    os.environ["DJANGO_DEBUG"] = "0"  # seating the tables renders frames too
    os.environ["COMPUTER_MOVE_DELAY_MS"] = "0"  # tables played up to a round (--computers)
    os.environ["DATABASE_URL"] = database_url
    os.environ["REDIS_URL"] = redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    # Seating the tables logs every player in: django-axes writes four lines for each.
    logging.getLogger("axes").setLevel(logging.WARNING)


def prepare_database(database_url: str) -> None:
    import psycopg

    base, _, name = database_url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": database_url}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )


@dataclass
class Seated:
    table_id: int
    host_index: int
    cookies: list[str]  # "sessionid=...", seat order
    started: bool = False  # already in play (from a later round): no "Start" to post


def start_rounds(count: int, from_round: str) -> list[int]:
    """The round each of ``count`` tables is played from.

    A game's later rounds deal more cards: bigger hands, longer tricks, more of
    the round's story and of the score sheet on the page, so a move there costs
    more and its frame is bigger than in round 1. "spread" starts the tables at
    the middles of equal slices of the game (1 table: round 6; 10 tables: rounds
    1 to 10; 50: five from each round), so that a window of play measures moves
    of the whole game, not only of its first rounds. A number starts every table there.
    """
    from games import rules

    if from_round != "spread":
        return [int(from_round)] * count
    return [1 + (rules.ROUNDS * t + rules.ROUNDS // 2) // count for t in range(count)]


def seat_tables(
    count: int, run: str, rounds: list[int], seed: int, computers: int = 0
) -> list[Seated]:
    """``count`` tables of 4 seated players (the shared factories), each with a session.

    A table played from round 1 is started by its host through the server
    (``start_game``), as their click does: the server process that runs the table
    deals round 1 and keeps its game (games.storage.state_cache), as it would for a table
    started on the site. A table played from a later round is started and played up
    to that round's bids here, through games.play.actions with the shared random-move
    driver (nobody has a socket open yet, so no frame is rendered); the server reads
    its game at its first move there.
    """
    from games.models import Table
    from games.play import actions
    from games.testing import driver, factories

    tables = []
    for t in range(count):
        table, users = factories.seated_table(
            PLAYERS - computers, ghost=False, seed=None, prefix=f"b{run}t{t}-"
        )
        for _n in range(computers):
            table = actions.add_computer(users[0], table.pk, table.version, "normal")
        started = rounds[t] > 1
        if started:
            table = actions.start_game(users[0], table.pk, table.version)
            done = driver.at_phase(Table.Phase.BIDDING, rounds[t])
            if computers:
                play_with_computers(table, random.Random(seed + t), done)
            else:
                driver.play_until(table, random.Random(seed + t), done=done)
        cookies = [factories.session_cookie(u) for u in users]
        tables.append(Seated(table.pk, 0, cookies, started))
    return tables


def play_with_computers(table: Any, rng: random.Random, done: Any) -> None:
    """Play up to ``done`` through the actions: the computers' moves by the computer
    (games.computer.moves), the people's by the shared random-move chooser."""
    from games.computer import moves
    from games.models import Table
    from games.play.state import load_state
    from games.testing import driver

    while not done(table := Table.objects.get(pk=table.pk)):
        if moves.run_due():
            continue
        state = load_state(table)
        for seat in state.seats:
            host_move = table.phase in (Table.Phase.TRICK_DONE, Table.Phase.ROUND_DONE)
            if seat.is_computer or (host_move and seat.user_id != table.host_id):
                continue
            move = driver.choose_move(rng, driver.options_of(state, seat))
            if move is not None:
                driver.apply_move(table, seat.user, move)
                break


def versions(tables: list[Seated]) -> int:
    """The sum of the tables' versions: every move bumps its table's by one."""
    from django.db.models import Sum

    from games.models import Table

    ids = [seated.table_id for seated in tables]
    return Table.objects.filter(pk__in=ids).aggregate(total=Sum("version"))["total"] or 0


async def start_game(seated: Seated, players: list[Player]) -> None:
    """The host's "Start the game", posted as htmx posts it."""
    host = players[seated.host_index]
    answer = await host.client.post(
        reverse("start_game", args=[seated.table_id]),
        data={"version": str(host.version)},
        headers={"HX-Request": "true", "X-CSRFToken": host.csrf},
    )
    answer.raise_for_status()
    absorb(host, answer.text)


# -- servers ------------------------------------------------------------------------------


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    counter: Path

    def counts(self) -> tuple[int, int, int]:
        """(SQL statements run, database connections opened, the counting thread's id)
        so far; see scripts/bench/server.py."""
        try:
            queries, connections, thread = self.counter.read_text().split()
            return int(queries), int(connections), int(thread)
        except (OSError, ValueError):
            return 0, -1, 0

    def cpu_seconds(self) -> float:
        """The server's CPU seconds, without its thread that counts for the benchmark."""
        counting = self.counts()[2]
        spent = cpu_seconds(self.process.pid)
        if counting:
            spent -= _ticks(f"/proc/{self.process.pid}/task/{counting}/stat")
        return spent

    def queries(self) -> int:
        return self.counts()[0]

    def connections(self) -> int:
        return self.counts()[1]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_servers(
    count: int, kind: str, env: dict[str, str], scratch: Path, pin: bool
) -> list[Server]:
    servers = []
    cpus = sorted(os.sched_getaffinity(0)) if pin else []
    for i in range(count):
        # One process per CPU, each on its own (config/serve.py: why).
        pinned = ("--cpu", str(cpus[i % len(cpus)])) if cpus else ()
        port = free_port()
        counter = scratch / f"queries-{i}"
        log = open(scratch / f"server-{i}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [
                *(sys.executable, str(ROOT / "scripts/bench/server.py"), "--port", str(port)),
                *("--counter", str(counter), "--server", kind),
                *pinned,
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        servers.append(Server(port, process, counter))
    for server in servers:
        wait_for(server.port)
    return servers


def wait_for(port: int, timeout: float = 30) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.3):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"no server on port {port}")


def cpu_seconds(pid: int) -> float:
    """CPU seconds of a server process and of the processes it started (a server with workers)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            child_pids = [int(child) for child in children.read().split()]
    except FileNotFoundError:
        return 0.0
    return _ticks(f"/proc/{pid}/stat") + sum(cpu_seconds(child) for child in child_pids)


def _ticks(stat_path: str) -> float:
    """The user and system CPU seconds in a /proc stat file (a process's or a thread's)."""
    try:
        with open(stat_path) as stat:
            parts = stat.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


# -- the players ------------------------------------------------------------------------


@dataclass
class Player:
    index: int
    cookie: str  # "sessionid=..."
    base: str
    ws_url: str
    page_url: str = ""
    regions: dict[str, str] = field(default_factory=dict)
    version: int = -1
    csrf: str = ""
    client: Any = None
    socket: Any = None
    frame_bytes: list[int] = field(default_factory=list)
    #: The frames themselves since the current move began (--largest-frames), else None.
    frames: list[str] | None = None
    # When this socket first held each version: stamped as the frame arrives, before
    # it is parsed, as the floor stamps its frames (the clock is the same process's).
    arrived: dict[int, float] = field(default_factory=dict)


@dataclass
class Stats:
    measuring: bool = False
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    answer_rtt: list[float] = field(default_factory=list)
    answer_bytes: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    frame_bytes: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    #: kind -> the size and text of the largest frame of that kind so far (--largest-frames)
    largest: dict[str, tuple[int, str]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    timeouts: int = 0
    moves: int = 0


def absorb(player: Player, html: str) -> None:
    for match in REGION.finditer(html):
        player.regions[match.group(1)] = match.group(0)
    versions = [int(v) for v in VERSION.findall(html)]
    if versions:
        player.version = max(player.version, max(versions))


async def open_player(player: Player, origin: str) -> None:
    import httpx
    import websockets

    name, _, value = player.cookie.partition("=")
    player.client = httpx.AsyncClient(base_url=player.base, cookies={name: value}, timeout=TIMEOUT)
    page = await player.client.get(player.page_url)
    page.raise_for_status()
    player.csrf = CSRF_HEADER.search(page.text).group(1)  # type: ignore[union-attr]
    absorb(player, page.text)
    cookies = "; ".join(f"{k}={v}" for k, v in player.client.cookies.items())
    player.socket = await websockets.connect(
        player.base.replace("http", "ws", 1) + player.ws_url,
        additional_headers={"Cookie": cookies, "Origin": origin},
        max_size=None,
        compression=None,
    )


async def listen(player: Player, changed: asyncio.Event) -> None:
    async for message in player.socket:
        now = time.perf_counter()
        text = message if isinstance(message, str) else message.decode()
        if (version := VERSION.search(text)) is not None:
            player.arrived.setdefault(int(version.group(1)), now)
        player.frame_bytes.append(len(text.encode()))
        if player.frames is not None:
            player.frames.append(text)
        absorb(player, text)
        changed.set()


def first_arrival(player: Player, version: int) -> float:
    """When ``player``'s socket first had ``version`` or a newer one."""
    return min(t for v, t in player.arrived.items() if v >= version)


def next_move(players: list[Player], host: int, rng: random.Random) -> tuple[Player, Any]:
    """Who moves and what, read from each player's page; the shared chooser picks."""
    from games.testing import driver

    for player in players:
        page = player.regions.get("hand", "") + player.regions.get("controls", "")
        options = driver.options_from_page(page)
        if options and (player.index == host or not (options.next_trick or options.next_round)):
            return player, driver.choose_move(rng, options)
    return players[host], None


def reverse(name: str, args: list[Any]) -> str:
    from django.urls import reverse as django_reverse

    return django_reverse(name, args=args)


async def drive_table(
    seated: Seated, players: list[Player], stats: Stats, mode: str, stop: asyncio.Event, seed: int
) -> None:
    rng = random.Random(seed)
    changed = asyncio.Event()
    listeners = [asyncio.create_task(listen(p, changed)) for p in players]
    await asyncio.sleep(rng.uniform(0, 1.5) if mode == "trick" else 0)
    made = 0
    try:
        while not stop.is_set():
            actor, move = next_move(players, seated.host_index, rng)
            if move is None:  # game over, or a frame still on its way
                changed.clear()
                try:
                    await asyncio.wait_for(changed.wait(), 2)
                except TimeoutError:
                    if all("Back to the lobby" in p.regions.get("controls", "") for p in players):
                        break
                continue
            kind = move.kind
            target = max(p.version for p in players) + 1
            measuring = stats.measuring
            sizes_before = [len(p.frame_bytes) for p in players]
            for p in players:
                if p.frames is not None:
                    p.frames.clear()
            url = reverse(move.url_name, args=[seated.table_id])
            started = time.perf_counter()
            answer = await actor.client.post(
                url,
                data=move.form(actor.version),
                headers={"HX-Request": "true", "X-CSRFToken": actor.csrf},
            )
            answered = time.perf_counter()
            if answer.status_code >= 400:
                if measuring:
                    stats.errors[f"{kind} {answer.status_code}"] += 1
                absorb(actor, answer.text)
                await asyncio.sleep(0.05)
                continue
            deadline = started + TIMEOUT
            while min(p.version for p in players) < target:
                changed.clear()
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                try:
                    await asyncio.wait_for(changed.wait(), left)
                except TimeoutError:
                    break
            if measuring:
                if min(p.version for p in players) < target:
                    stats.timeouts += 1
                else:
                    # As the issue and the floor define it: until the last socket had
                    # the move's frame, whether or not the actor's answer came later.
                    done = max(first_arrival(p, target) for p in players)
                    stats.latency[kind].append(done - started)
                    stats.answer_rtt.append(answered - started)
                    stats.moves += 1
                stats.answer_bytes[kind].append(len(answer.content))
                for p, before in zip(players, sizes_before, strict=True):
                    stats.frame_bytes[kind].extend(p.frame_bytes[before:])
                    for text in p.frames or ():
                        size = len(text.encode())
                        if size > stats.largest.get(kind, (0, ""))[0]:
                            stats.largest[kind] = (size, text)
            for p in players:
                p.arrived.clear()
            absorb(actor, answer.text)
            made += 1
            if mode == "trick" and made % 4 == 0:
                await asyncio.sleep(1.5)
    finally:
        for task in listeners:
            task.cancel()


# -- one run -------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def summary_ms(values: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {
        "n": len(ms),
        "p50": round(percentile(ms, 50), 1),
        "p95": round(percentile(ms, 95), 1),
        "p99": round(percentile(ms, 99), 1),
        "max": round(max(ms), 1) if ms else float("nan"),
    }


async def run_table_stack(
    args: argparse.Namespace, tables: list[Seated], servers: list[Server]
) -> dict:
    from games.pages.presenter import socket_path

    t = len(tables)
    origin_of = {s.port: f"http://127.0.0.1:{s.port}" for s in servers}
    stats = Stats()
    everyone: list[list[Player]] = []
    for n, seated in enumerate(tables):
        players = []
        for i, cookie in enumerate(seated.cookies):
            # As nginx routes (deploy/nginx.conf.in): a table on one process; with
            # --affinity player, each player of a table on the next process instead.
            spread = i if args.affinity == "player" else 0
            port = servers[(n + spread) % len(servers)].port
            players.append(
                Player(
                    i,
                    cookie,
                    origin_of[port],
                    socket_path(seated.table_id),
                    reverse("table", args=[seated.table_id]),
                    frames=[] if args.largest_frames else None,
                )
            )
        everyone.append(players)
    await asyncio.gather(*(open_player(p, p.base) for players in everyone for p in players))
    await asyncio.gather(
        *(start_game(s, ps) for s, ps in zip(tables, everyone, strict=True) if not s.started)
    )
    # This client holds Django, the seated tables and every socket: a full collection
    # walked all of it and stalled the client 80-110 ms a few times a window, every
    # move in flight timed that much slower. Set aside, as the server does at startup
    # (config.asgi); what the moves make is collected as ever.
    gc.collect()
    gc.freeze()
    stop = asyncio.Event()
    drivers = [
        asyncio.create_task(drive_table(s, ps, stats, args.mode, stop, args.seed + n))
        for n, (s, ps) in enumerate(zip(tables, everyone, strict=True))
    ]
    await asyncio.sleep(args.warmup)
    from asgiref.sync import sync_to_async

    every_move0 = await sync_to_async(versions)(tables) if args.computers else 0
    cpu0 = {s.port: s.cpu_seconds() for s in servers}
    queries0 = sum(s.queries() for s in servers)
    connections0 = sum(s.connections() for s in servers)
    stats.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(args.window)
    stats.measuring = False
    window = time.perf_counter() - started
    cpu = sum(s.cpu_seconds() - cpu0[s.port] for s in servers)
    every_move = (await sync_to_async(versions)(tables) - every_move0) if args.computers else 0
    await asyncio.sleep(0.6)  # the query counter is written twice a second
    queries = sum(s.queries() for s in servers) - queries0
    connections = sum(s.connections() for s in servers) - connections0
    stop.set()
    await asyncio.gather(*drivers, return_exceptions=True)
    for players in everyone:
        for p in players:
            await p.socket.close()
            await p.client.aclose()
    if args.largest_frames:
        folder = Path(args.largest_frames)
        folder.mkdir(parents=True, exist_ok=True)
        for kind, (_size, text) in sorted(stats.largest.items()):
            (folder / f"T{t}-{kind}.html").write_text(text)
    # With computer players, the server also made their moves: CPU and SQL per move
    # count every move of the window (its tables' versions), not only those timed here.
    moves = max(every_move or stats.moves, 1)
    return {
        "stack": "table",
        "T": t,
        "processes": len(servers),
        "server": args.server,
        "pinned": args.pin,
        "mode": args.mode,
        "from_round": args.from_round,
        "window_s": round(window, 1),
        "computers": args.computers,
        "moves": stats.moves,
        "every_move": every_move or stats.moves,
        "moves_per_s": round(stats.moves / window, 1),
        "all": summary_ms([v for vs in stats.latency.values() for v in vs]),
        "per_kind": {kind: summary_ms(vs) for kind, vs in sorted(stats.latency.items())},
        "answer_rtt": summary_ms(stats.answer_rtt),
        "cpu_ms_per_move": round(1000 * cpu / moves, 2),
        "sql_per_move": round(queries / moves, 1),
        # -1 per server where the database has no pool (SQLite): then not measured.
        "new_db_connections_per_move": round(connections / moves, 3) if connections0 >= 0 else None,
        "frame_bytes_max": {k: max(v) for k, v in sorted(stats.frame_bytes.items()) if v},
        "answer_bytes_max": {k: max(v) for k, v in sorted(stats.answer_bytes.items()) if v},
        "errors": dict(stats.errors),
        "timeouts": stats.timeouts,
    }


def run_floor(args: argparse.Namespace, t: int) -> dict:
    run = FLOOR / "run.sh"
    if not run.exists():
        return {"stack": "floor", "T": t, "error": f"{run} not found"}
    # The floor is its own Django project: none of this project's settings.
    ours = ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL")
    env = {k: v for k, v in os.environ.items() if k not in ours}
    env["FLOOR_CLIENT_PY"] = sys.executable
    done = subprocess.run(
        [
            "bash",
            str(run),
            sys.executable,
            str(t),
            str(int(args.warmup)),
            str(int(args.window)),
            args.mode,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=args.warmup + args.window + 120,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"stack": "floor", "T": t, "error": done.stderr[-500:]}
    return json.loads(lines[-1])


def floor_cpu_ms(floor: dict) -> str:
    """The floor server's CPU per POST, from its CPU% and POST rate."""
    rate, cpu = floor.get("posts_per_s"), (floor.get("cpu_pct") or {}).get("daphne")
    return f"{10 * cpu / rate:.1f}" if rate and cpu is not None else "-"


def ratio(ours: float, floor: float) -> str:
    return f"{ours / floor:.1f}x" if floor and floor == floor and ours == ours else "-"


def main() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--server", choices=("uvicorn", "daphne"), default="uvicorn")
    parser.add_argument(
        "--affinity",
        choices=("table", "player"),
        default="table",
        help="with several processes: a table's players on one (as nginx routes) or on each",
    )
    parser.add_argument("--mode", choices=("trick", "closed"), default="trick")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--window", type=float, default=30)
    parser.add_argument("--seed", type=int, default=1)
    from games import rules  # pure Python: nothing of Django is set up yet

    parser.add_argument(
        "--from-round",
        choices=("spread", *(str(n) for n in range(1, rules.ROUNDS + 1))),
        default="spread",
        help="the round the tables are played from: 'spread' over the game's ten rounds"
        " (default, as the README's figures; see start_rounds), or one round for all",
    )
    parser.add_argument("--no-floor", action="store_true")
    parser.add_argument(
        "--computers",
        action="store_true",
        help="half of each table's seats are computer players (Normal), moving at once",
    )
    parser.add_argument(
        "--largest-frames",
        metavar="DIR",
        help="write the largest frame of each move kind to DIR/T<t>-<kind>.html",
    )
    parser.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="leave the server processes unpinned (default: each on a CPU of its own)",
    )
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS)
    prepare_database(database_url)
    django_setup(database_url, redis_url)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DJANGO_DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "COMPUTER_MOVE_DELAY_MS": "0",
    }
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for t in args.tables:
            rounds = start_rounds(t, args.from_round)
            computers = PLAYERS // 2 if args.computers else 0
            tables = seat_tables(t, f"{int(time.time())}{t}", rounds, args.seed, computers)
            servers = start_servers(args.processes, args.server, env, Path(scratch), args.pin)
            try:
                ours = asyncio.run(run_table_stack(args, tables, servers))
            finally:
                for server in servers:
                    server.process.terminate()
                for server in servers:
                    server.process.wait(20)
            print(json.dumps(ours), flush=True)
            floor = {} if args.no_floor else run_floor(args, t)
            if floor:
                print(json.dumps(floor), flush=True)
            rows.append((ours, floor))
    print()
    print(
        "| T | procs | server | ours p50 / p99 ms | floor p50 / p99 ms | p99 ratio |"
        " answer p50 / p99 ms (ours ; floor) | moves/s |"
        " CPU ms/move (ours / floor) | SQL/move | new DB conns/move |"
        " max play frame / answer B | errors | timeouts |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for ours, floor in rows:
        frame = max(ours["frame_bytes_max"].get("play", 0), 0)
        answer = ours["answer_bytes_max"].get("play", 0)
        print(
            f"| {ours['T']} | {ours['processes']} "
            f"| {ours['server']}{', pinned' if ours.get('pinned') else ''} "
            f"| {ours['all']['p50']} / {ours['all']['p99']} "
            f"| {floor.get('p50_ms', '-')} / {floor.get('p99_ms', '-')} "
            f"| {ratio(ours['all']['p99'], floor.get('p99_ms', float('nan')))} "
            f"| {ours['answer_rtt']['p50']} / {ours['answer_rtt']['p99']}"
            f" ; {floor.get('post_rtt_p50_ms', '-')} / {floor.get('post_rtt_p99_ms', '-')} "
            f"| {ours['moves_per_s']} | {ours['cpu_ms_per_move']} / {floor_cpu_ms(floor)} "
            f"| {ours['sql_per_move']} | {ours['new_db_connections_per_move']} "
            f"| {frame} / {answer} | {sum(ours['errors'].values())} | {ours['timeouts']} |"
        )


if __name__ == "__main__":
    main()
