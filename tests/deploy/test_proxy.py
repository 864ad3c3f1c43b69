"""The deployment, run for real: nginx in front of two server processes.

nginx is rendered from deploy/nginx.conf.in (TLS on, as in production) and runs in
the foreground on loopback ports; the two server processes run the Dockerfile's
start command with production settings, PostgreSQL (a scratch database next to
DATABASE_URL's) and REDIS_URL's Redis. Three players play through the proxy only,
HTTPS and secure websockets: round 1, then round 2, in the middle of which the
process holding a player's socket is SIGKILLed. Play must go on through the other
process without a failed move, the sockets that dropped reconnect through the
proxy and see every new version, and games.after.audit finds nothing wrong afterwards.

Needs nginx (``make deploy-deps`` installs Debian's), DATABASE_URL (PostgreSQL) and
REDIS_URL; under CI=true a missing one fails the test instead of skipping it.
"""

from __future__ import annotations

import datetime
import getpass
import http.client
import ipaddress
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import pytest

from tests.deploy.files import TEMPLATE, nginx_commands, start_command, with_address
from tests.support.servers import (
    HOST,
    POSTGRES_SCHEMES,
    PYTHON,
    ROOT,
    free_port,
    log_tail,
    manage,
    scratch_database,
    stop_process,
    wait_for_port,
)
from tests.support.websocket import Closed, WebSocket, connect

pytestmark = pytest.mark.deploy

CSRF = "b2" * 16  # our CSRF cookie secret; the posted token is the same value
VERSION_ATTR = re.compile(r'data-version="(\d+)"')


def require(condition: object, why: str) -> None:
    """Skip on a developer's machine, fail on CI: the deployment test must run there."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why} (CI must run the deployment test)")
        pytest.skip(why)


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None
    )


# ---------------------------------------------------------------------------
# the deployment
# ---------------------------------------------------------------------------


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (cryptography is a daphne dependency)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(HOST))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@dataclass
class Deployment:
    tmp: Path
    env: dict[str, str]
    http_port: int
    https_port: int
    tls: ssl.SSLContext
    static_root: Path
    nginx: subprocess.Popen[bytes]
    nginx_log: Path
    servers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    server_logs: list[Path] = field(default_factory=list)

    def shell(self, code: str) -> Any:
        out = manage(self.env, "shell", "--no-imports", "-c", code)
        return json.loads(out.strip().splitlines()[-1])

    def log_lines(self, server: int) -> list[dict[str, Any]]:
        lines = []
        for line in self.server_logs[server].read_text(errors="replace").splitlines():
            if line.startswith("{"):
                lines.append(json.loads(line))
        return lines


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    nginx = nginx_binary()
    require(nginx, "nginx is not installed (make deploy-deps installs Debian's)")
    base_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    require(base_url.startswith(POSTGRES_SCHEMES), "needs DATABASE_URL pointing at PostgreSQL")
    require(redis_url, "needs REDIS_URL: the two processes share its channel layer")

    tmp = tmp_path_factory.mktemp("deploy")
    static_root = tmp / "static"
    cert, key = self_signed_certificate(tmp)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_ENV": "production",
        "SECRET_KEY": "deploy-test-" + "s3cr3t" * 8,
        "ALLOWED_HOSTS": HOST,
        "STATIC_ROOT": str(static_root),
        "REDIS_URL": redis_url,
        "LOG_FORMAT": "json",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("REDIS_CACHE_URL", None)  # derived from REDIS_URL, as documented
    processes: list[subprocess.Popen[bytes]] = []
    with scratch_database(base_url, tmp, "deploy", env) as database_url:
        env["DATABASE_URL"] = database_url
        try:
            manage(env, "collectstatic", "--noinput", "-v", "0")
            ports = [free_port(), free_port()]
            logs = [tmp / f"server{i + 1}.log" for i in range(len(ports))]
            for port, log in zip(ports, logs, strict=True):
                with log.open("ab") as out:
                    processes.append(
                        subprocess.Popen(
                            with_address(start_command(), PYTHON, HOST, port),
                            cwd=ROOT,
                            env=env,
                            stdout=out,
                            stderr=subprocess.STDOUT,
                        )
                    )
            for port, process, log in zip(ports, processes, logs, strict=True):
                wait_for_port(port, process, log)

            http_port, https_port = free_port(), free_port()
            runtime = tmp / "nginx"
            render, run = nginx_commands(str(TEMPLATE), str(runtime))
            nginx_env = {
                **env,
                "NGINX_LISTEN": f"{HOST}:{http_port}",
                "NGINX_TLS_LISTEN": f"{HOST}:{https_port}",
                "NGINX_TLS_CERT": str(cert),
                "NGINX_TLS_KEY": str(key),
                "NGINX_UPSTREAMS": ",".join(f"{HOST}:{port}" for port in ports),
                "NGINX_RUNTIME_DIR": str(runtime),
                "NGINX_USER": getpass.getuser(),  # tmp is private to us: workers read it as us
            }
            subprocess.run([PYTHON, *render[1:]], cwd=ROOT, env=nginx_env, check=True, timeout=30)
            nginx_log = tmp / "nginx.log"
            with nginx_log.open("ab") as out:
                proxy = subprocess.Popen(
                    [nginx, *run[1:]], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
                )
            processes.append(proxy)
            wait_for_port(http_port, proxy, nginx_log)
            wait_for_port(https_port, proxy, nginx_log)
            yield Deployment(
                tmp=tmp,
                env=env,
                http_port=http_port,
                https_port=https_port,
                tls=ssl.create_default_context(cafile=str(cert)),
                static_root=static_root,
                nginx=proxy,
                nginx_log=nginx_log,
                servers=processes[:2],
                server_logs=logs,
            )
        finally:
            stop_process(*processes)


# ---------------------------------------------------------------------------
# a browser, minimal: HTTPS with cookies, through the proxy only
# ---------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: str


class Browser:
    def __init__(self, deployment: Deployment, session: str, user_id: int) -> None:
        self.deployment = deployment
        self.cookie = f"sessionid={session}; csrftoken={CSRF}"
        self.user_id = user_id
        self.origin = f"https://{HOST}:{deployment.https_port}"

    def request(
        self,
        method: str,
        path: str,
        form: dict[str, str] | None = None,
        request_id: str | None = None,
    ) -> Response:
        conn = http.client.HTTPSConnection(
            HOST, self.deployment.https_port, timeout=30, context=self.deployment.tls
        )
        headers = {"Cookie": self.cookie, "Origin": self.origin}
        if request_id:
            headers["X-Request-ID"] = request_id
        body = None
        if form is not None:
            body = urlencode({**form, "csrfmiddlewaretoken": CSRF})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return Response(
                response.status, response.headers, response.read().decode(errors="replace")
            )
        finally:
            conn.close()

    def socket(self, table: int, request_id: str) -> tuple[WebSocket, str]:
        """A socket through the proxy, and its first frame (the snapshot)."""
        ws = connect(
            HOST,
            self.deployment.https_port,
            f"/ws/tables/{table}/",
            {"Origin": self.origin, "Cookie": self.cookie, "X-Request-ID": request_id},
            timeout=10,
            ssl_context=self.deployment.tls,
        )
        frame = ws.receive(10)
        assert frame is not None, f"no snapshot (closed {ws.closed})"
        return ws, frame


def plain_http(deployment: Deployment, path: str) -> Response:
    conn = http.client.HTTPConnection(HOST, deployment.http_port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return Response(response.status, response.headers, response.read().decode())
    finally:
        conn.close()


def page_version(html: str) -> int:
    match = re.search(r'id="table-content"[^>]*data-version="(\d+)"', html)
    assert match, html[:500]
    return int(match.group(1))


@dataclass
class Move:
    player: Browser
    url: str
    form: dict[str, str]
    status: int
    request_id: str


def one_move(table: int, players: list[Browser], number: int) -> Move:
    """Whoever the page offers a move does it: bid 1, first playable card, next trick/round."""
    for player in players:
        page = player.request("GET", f"/tables/{table}/")
        assert page.status == 200, (page.status, page.body[:300])
        html, version = page.body, str(page_version(page.body))
        if f'action="/tables/{table}/bid/"' in html:
            url, form = f"/tables/{table}/bid/", {"version": version, "value": "1"}
        elif card := re.search(r'name="card" value="([^":]+)', html):
            # The Tigress's buttons send "TIG:pirate"/"TIG:escape"; post the bare code
            # and the choice apart, as the plays are saved under the bare code.
            url, form = f"/tables/{table}/play/", {"version": version, "card": card.group(1)}
            if card.group(1) == "TIG":
                form["tigress_as"] = "escape"
        elif f'action="/tables/{table}/next-trick/"' in html:
            url, form = f"/tables/{table}/next-trick/", {"version": version}
        elif f'action="/tables/{table}/next-round/"' in html:
            url, form = f"/tables/{table}/next-round/", {"version": version}
        else:
            continue
        request_id = f"move-{number:03d}-{os.getpid()}"
        response = player.request("POST", url, form, request_id=request_id)
        assert response.headers["X-Request-ID"] == request_id
        return Move(player, url, form, response.status, request_id)
    raise AssertionError("nobody has a move")


def until_version(ws: WebSocket, version: int, timeout: float = 10) -> str:
    """Frames until one renders ``version`` or later; that frame."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        frame = ws.receive(max(0.05, deadline - time.monotonic()))
        if frame is None:
            if ws.closed is not None:
                raise AssertionError(f"socket closed ({ws.closed.code}) before v{version}")
            continue
        found = [int(v) for v in VERSION_ATTR.findall(frame)]
        if found and max(found) >= version:
            return frame
    raise AssertionError(f"no frame with version {version} in {timeout}s")


def socket_server(deployment: Deployment, request_id: str, timeout: float = 10) -> int:
    """Which server process logged the connect of the socket opened with ``request_id``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for server in range(len(deployment.servers)):
            for line in deployment.log_lines(server):
                if line.get("message") == "socket connect" and line["request_id"] == request_id:
                    return server
        time.sleep(0.1)
    raise AssertionError(f"no server logged the socket {request_id}")


NEW_GAME = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from games.play import actions
User = get_user_model()
users = []
for name in ("dora", "emil", "fritz"):
    user = User(username=name)
    user.set_unusable_password()
    user.save()
    users.append(user)
table = actions.create_table(users[0], ghost=False)
for user in users[1:]:
    table = actions.join_table(user, table.invite_token)
table = actions.start_game(users[0], table.pk, table.version)
sessions = []
for user in users:
    client = Client()
    client.force_login(user)
    sessions.append(client.cookies["sessionid"].value)
print(json.dumps({"table": table.pk, "sessions": sessions, "users": [u.pk for u in users]}))
"""

AUDIT = """
import json
from games.after.audit import audit_table
from games.models import Play, Table
table = Table.objects.get(pk={table})
plays = list(Play.objects.filter(round__table=table).values_list("round__number", "card"))
print(json.dumps({{"audit": audit_table(table), "version": table.version,
                  "round": table.round_number, "plays": plays}}))
"""


# ---------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------


def test_proxy_serves_static_files_and_health_and_forwards_the_scheme(
    deployment: Deployment,
) -> None:
    # Static files come from STATIC_ROOT through nginx: no Django response header.
    manifest = json.loads((deployment.static_root / "staticfiles.json").read_text())
    hashed = manifest["paths"]["css/site.css"]
    player = Browser(deployment, "none", 0)
    static = player.request("GET", f"/static/{hashed}")
    assert static.status == 200
    assert static.body == (deployment.static_root / hashed).read_text()
    assert "text/css" in static.headers["Content-Type"]
    assert "X-Request-ID" not in static.headers, "served by a server process, not nginx"

    # X-Forwarded-Proto reaches Django: over plain HTTP the production settings
    # redirect to HTTPS; over TLS (plain HTTP between nginx and the servers) they do not.
    assert plain_http(deployment, "/").status == 301
    secure = player.request("GET", "/rules/", request_id="rules-probe-1")
    assert secure.status == 200
    assert secure.headers["X-Request-ID"] == "rules-probe-1"
    assert "Strict-Transport-Security" in secure.headers
    # Without an id of its own the request gets nginx's.
    assert re.fullmatch(r"[0-9a-f]{32}", player.request("GET", "/rules/").headers["X-Request-ID"])

    # Health over plain HTTP (exempt from the redirect), not logged anywhere.
    health = plain_http(deployment, "/healthz")
    assert health.status == 200, health.body
    assert json.loads(health.body)["checks"] == {
        "database": "ok",
        "channel_layer": "ok",
        "delivery": "ok",
    }
    time.sleep(0.3)
    assert "/healthz" not in deployment.nginx_log.read_text()
    for server in range(2):
        assert all("healthz" not in line["message"] for line in deployment.log_lines(server))


def test_round_goes_on_through_the_other_process_when_one_is_killed(
    deployment: Deployment,
) -> None:
    made = deployment.shell(NEW_GAME)
    table = made["table"]
    players = [
        Browser(deployment, session, user)
        for session, user in zip(made["sessions"], made["users"], strict=True)
    ]
    sockets: list[WebSocket] = []
    socket_ids: list[str] = []
    for index, player in enumerate(players):
        socket_ids.append(f"socket-{index}-{os.getpid()}")
        ws, _snapshot = player.socket(table, socket_ids[-1])
        sockets.append(ws)
    holders = [socket_server(deployment, rid) for rid in socket_ids]
    # nginx keeps a table on one process while it is up (its upstream hash): every
    # socket of the table is there, and (below) every move before the kill.
    assert len(set(holders)) == 1, holders

    moves: list[Move] = []
    version = page_version(players[0].request("GET", f"/tables/{table}/").body)

    def move() -> Move:
        nonlocal version
        made = one_move(table, players, len(moves))
        assert made.status == 303, (made.url, made.status)
        moves.append(made)
        version += 1
        for ws in sockets:  # every player sees every version, live
            until_version(ws, version)
        return made

    # Round 1 (one card each) to its end, then round 2's bids and first card.
    while "next-round" not in move().url:
        pass
    while "play" not in move().url:
        pass

    # The process holding the first player's socket dies without any goodbye.
    victim = holders[0]
    deployment.servers[victim].send_signal(signal.SIGKILL)
    deployment.servers[victim].wait(timeout=10)
    for index, holder in enumerate(holders):
        if holder != victim:
            continue
        assert sockets[index].receive(10) is None and isinstance(sockets[index].closed, Closed)
        # The browser reconnects through the proxy: it lands on the survivor and
        # gets the state as it was when the process died.
        sockets[index], snapshot = players[index].socket(table, f"again-{index}-{os.getpid()}")
        assert max(int(v) for v in VERSION_ATTR.findall(snapshot)) == version

    # Round 2 is played to its end through the surviving process, without a failure.
    killed_at = len(moves)
    while "next-round" not in move().url:
        pass
    assert len(moves) - killed_at >= 4

    saved = deployment.shell(AUDIT.format(table=table))
    assert saved["audit"] == []
    assert saved["version"] == version
    assert saved["round"] == 3
    played = {(number, card) for number, card in saved["plays"]}
    posted = [m.form["card"] for m in moves if "card" in m.form]
    assert {card for _number, card in played} >= set(posted)
    assert len(saved["plays"]) == len(posted) == 3 * (1 + 2)

    # Every move's line in the servers' logs: request id, user and table on it.
    logged = {
        line["request_id"]: line
        for server in range(2)
        for line in deployment.log_lines(server)
        if line["logger"] == "skullking.request"
    }
    served_by = {
        line["request_id"]: server
        for server in range(2)
        for line in deployment.log_lines(server)
        if line["logger"] == "skullking.request"
    }
    assert {served_by[m.request_id] for m in moves[:killed_at]} == {holders[0]}
    assert {served_by[m.request_id] for m in moves[killed_at:]} == {1 - victim}
    for made_move in moves:
        line = logged[made_move.request_id]
        assert line["status"] == 303
        assert (line["user_id"], line["table_id"]) == (made_move.player.user_id, table)

    # A graceful stop (SIGTERM) of the survivor reaches the browsers through nginx
    # as close code 1012, on which they reconnect.
    survivor = deployment.servers[1 - victim]
    survivor.send_signal(signal.SIGTERM)
    for ws in sockets:
        closed = ws.recv(10)
        assert isinstance(closed, Closed) and closed.code == 1012, closed
    survivor.wait(timeout=15)
    assert survivor.returncode == 0, log_tail(deployment.server_logs[1 - victim])


SUMMARY = """
import json
from games.after.audit import audit_table
from games.models import Play, Table
print(json.dumps({"tables": {t.pk: [t.version, audit_table(t)] for t in Table.objects.all()},
                  "plays": Play.objects.count()}))
"""


def test_backup_and_restore_with_the_readme_commands(deployment: Deployment) -> None:
    # README, "Backups and upgrades": pg_dump's custom format, pg_restore into a new database.
    require(shutil.which("pg_dump") and shutil.which("pg_restore"), "needs pg_dump, pg_restore")
    before = deployment.shell(SUMMARY)
    assert before["plays"] > 0, "the game of the test before is the thing to back up"
    dump = deployment.tmp / "skullking.dump"
    database_url = deployment.env["DATABASE_URL"]
    subprocess.run(
        ["pg_dump", "--format=custom", f"--file={dump}", database_url], check=True, timeout=120
    )
    name = f"{urlsplit(database_url).path.strip('/')}_restored"
    restore_url = urlunsplit(urlsplit(database_url)._replace(path=f"/{name}"))

    def psql(statement: str) -> None:
        subprocess.run(["psql", "-q", "-c", statement, database_url], check=True, timeout=60)

    psql(f'CREATE DATABASE "{name}"')
    try:
        subprocess.run(
            ["pg_restore", "--no-owner", f"--dbname={restore_url}", str(dump)],
            check=True,
            timeout=120,
        )
        env = {**deployment.env, "DATABASE_URL": restore_url}
        out = manage(env, "shell", "--no-imports", "-c", SUMMARY)
        after = json.loads(out.strip().splitlines()[-1])
    finally:
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert after == before
    assert all(problems == [] for _version, problems in after["tables"].values())
