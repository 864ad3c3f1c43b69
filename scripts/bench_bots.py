"""Benchmark (not a test): how strong the computer players are, and how fast they decide.

Usage, from the repository root:

    nice -n 19 .venv/bin/python scripts/bench_bots.py [--games N] [--players 3 4 6]
        [--pairings easy-normal easy-strong normal-strong] [--seed S] [--json]
    .venv/bin/python scripts/bench_bots.py --combine RUN.jsonl [RUN.jsonl ...]

Plays seeded games on the rules engine alone (no database, no Django): for each pairing
of levels A-B and table size, the seats alternate between A and B (A, B, A, ... from seat
0), and every deal is played twice, the second time with A and B swapped (games 2k and
2k+1 use seed S+k), so both levels sit in every seat of the same deals.

For each level: the mean score per game (a level's score in a game is the mean of its
seats'), the win rate (its share of the game's victory, split between the seats tied for
it, R10), each with a 95% confidence interval (normal approximation over the games), and
the CPU time of one decision (a bid or a card; the process's CPU time, so a busy machine
does not inflate it) at the 50th and 99th percentiles.

``--json`` prints one JSON object per pairing and table size, with every game's values
and a histogram of the decision times, so that runs over other seeds can be pooled:
``--combine`` reads such lines and prints the table of them all (runs short enough to
share a machine, one table at the end).

Targets: Normal above Easy and Strong above Normal at every table size, with intervals
that do not overlap; at 4 players Strong's mean at least 50 points a game above Normal's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import shlex
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Z95 = 1.96
PAIRINGS = ("easy-normal", "easy-strong", "normal-strong")


@dataclass
class LevelRun:
    scores: list[float] = field(default_factory=list)  # per game: the mean of its seats
    wins: list[float] = field(default_factory=list)  # per game: its share of the victory
    # decision times in hundredths of a millisecond -> how many decisions took that long
    times: Counter[int] = field(default_factory=Counter)


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def percentile_ms(times: Counter[int], q: float) -> float:
    total = sum(times.values())
    rank = max(1, math.ceil(q * total))
    seen = 0
    for hundredths in sorted(times):
        seen += times[hundredths]
        if seen >= rank:
            return hundredths / 100
    return 0.0


def run_pairing(players: int, pairing: str, games: int, first_seed: int) -> dict[str, LevelRun]:
    from games.rules.computer import Level, decide_bid, decide_card, play_game

    a, b = (Level(name) for name in pairing.split("-"))
    runs = {a.value: LevelRun(), b.value: LevelRun()}
    # CPU time of this process: what a decision costs on one core, whatever else the
    # machine runs (wall time on a shared machine counts the waits too)
    clock = time.process_time

    def timed(decide: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(view: Any, level: Any, rng: random.Random) -> Any:
            start = clock()
            out = decide(view, level, rng)
            runs[level.value].times[round((clock() - start) * 100_000)] += 1
            return out

        return wrapper

    bid, card = timed(decide_bid), timed(decide_card)
    for g in range(games):
        first, second = (a, b) if g % 2 == 0 else (b, a)
        levels = [first if seat % 2 == 0 else second for seat in range(players)]
        result = play_game(first_seed + g // 2, levels, bid=bid, card=card)
        share = 1.0 / len(result.winners)
        for level in (a, b):
            seats = [s for s in range(players) if levels[s] is level]
            runs[level.value].scores.append(statistics.fmean(result.totals[s] for s in seats))
            runs[level.value].wins.append(share * sum(s in result.winners for s in seats))
    return runs


def as_json(players: int, pairing: str, runs: dict[str, LevelRun], **extra: Any) -> str:
    return json.dumps(
        {
            "players": players,
            "pairing": pairing,
            **extra,
            "levels": {
                name: {
                    "scores": run.scores,
                    "wins": run.wins,
                    "times_hundredths_ms": {str(k): v for k, v in sorted(run.times.items())},
                    **summary(run),
                }
                for name, run in runs.items()
            },
        }
    )


def from_json(lines: Iterable[str]) -> dict[tuple[int, str], dict[str, LevelRun]]:
    pooled: dict[tuple[int, str], dict[str, LevelRun]] = {}
    for line in lines:
        if not line.strip():
            continue
        record = json.loads(line)
        runs = pooled.setdefault((record["players"], record["pairing"]), {})
        for name, data in record["levels"].items():
            run = runs.setdefault(name, LevelRun())
            run.scores += data["scores"]
            run.wins += data["wins"]
            run.times.update({int(k): v for k, v in data["times_hundredths_ms"].items()})
    return pooled


def summary(run: LevelRun) -> dict[str, Any]:
    mean, low, high = interval(run.scores)
    win, win_low, win_high = interval(run.wins)
    return {
        "games": len(run.scores),
        "mean_score": round(mean, 1),
        "mean_score_ci95": [round(low, 1), round(high, 1)],
        "win_rate": round(win, 3),
        "win_rate_ci95": [round(max(0.0, win_low), 3), round(min(1.0, win_high), 3)],
        "decisions": sum(run.times.values()),
        "decision_ms_p50": percentile_ms(run.times, 0.50),
        "decision_ms_p99": percentile_ms(run.times, 0.99),
        "decision_ms_max": max(run.times) / 100,
    }


HEADER = (
    f"{'players':>7} {'pairing':<14} {'level':<7} {'games':>5} "
    f"{'mean score [95% CI]':>23} {'win rate [95% CI]':>24} {'p50 ms':>7} {'p99 ms':>7}"
)


def table_rows(players: int, pairing: str, runs: dict[str, LevelRun]) -> list[str]:
    rows = []
    a, b = pairing.split("-")
    # the same games seen from both levels: the difference game by game, the interval
    # of which is narrower than the two levels' apart (the deals' luck cancels out)
    diffs = [y - x for x, y in zip(runs[a].scores, runs[b].scores, strict=True)]
    diff, diff_low, diff_high = interval(diffs)
    for name, run in runs.items():
        s = summary(run)
        low, high = s["mean_score_ci95"]
        wlow, whigh = s["win_rate_ci95"]
        rows.append(
            f"{players:>7} {pairing:<14} {name:<7} {s['games']:>5} "
            f"{s['mean_score']:>7.1f} [{low:>6.1f}, {high:>6.1f}] "
            f"{s['win_rate']:>8.3f} [{wlow:.3f}, {whigh:.3f}] "
            f"{s['decision_ms_p50']:>7.2f} {s['decision_ms_p99']:>7.2f}"
        )
    rows.append(
        f"{players:>7} {pairing:<14} {b + '-' + a:<13} "
        f"{diff:>7.1f} [{diff_low:>6.1f}, {diff_high:>6.1f}]  (per game, same games)"
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing and size")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--pairings", nargs="+", choices=PAIRINGS, default=list(PAIRINGS))
    parser.add_argument("--seed", type=int, default=0, help="seed of the first deal")
    parser.add_argument("--json", action="store_true", help="one JSON object per pairing")
    parser.add_argument("--combine", nargs="+", metavar="FILE", help="pool --json runs")
    args = parser.parse_args(argv)

    if args.combine:
        lines: list[str] = []
        for name in args.combine:
            lines += Path(name).read_text().splitlines()
        print(HEADER)
        for (players, pairing), runs in sorted(from_json(lines).items()):
            print("\n".join(table_rows(players, pairing, runs)))
        return 0

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if not args.json:
        executable = os.path.relpath(sys.executable) if sys.executable else "python"
        print("$", shlex.join([executable, *sys.argv]))
        print(
            f"python {platform.python_version()} on {platform.machine()}, {args.games} games "
            f"per pairing and table size on deals {args.seed}..{args.seed + (args.games - 1) // 2}"
        )
        print(HEADER)
    started = time.perf_counter()
    for players in args.players:
        for pairing in args.pairings:
            start = time.perf_counter()
            runs = run_pairing(players, pairing, args.games, args.seed)
            if args.json:
                extra = {"first_seed": args.seed, "seconds": round(time.perf_counter() - start)}
                print(as_json(players, pairing, runs, **extra), flush=True)
            else:
                print("\n".join(table_rows(players, pairing, runs)), flush=True)
    if not args.json:
        print(f"{time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
