"""Production entry point: daphne serving config.asgi, closing websockets politely on shutdown.

    python -m config.serve --bind 127.0.0.1 --port 8001

On SIGTERM/SIGINT the server stops accepting connections, sends every open
websocket a close frame with code 1012 ("service restart"), waits until their
consumers have run their disconnect (presence counts, group exit) or at most
SHUTDOWN_GRACE seconds, and only then lets daphne cancel what is left and stop.
Browsers (htmx's ws extension) reconnect after a 1012, to another process or to
the restarted one, and get a full snapshot on connect.

Presence after a crash: each socket keeps a cache entry alive with a heartbeat
(games.presence), so the sockets of a process killed without this shutdown
(SIGKILL, OOM, power loss) stop counting by themselves within three heartbeats.
"""

# daphne.server installs the asyncio Twisted reactor: it must be imported first.
import daphne.server  # isort:skip

import argparse
import asyncio
import logging
import os
import sys
import time
from typing import Any

from daphne.access import AccessLogGenerator
from daphne.endpoints import build_endpoint_description_strings
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet import defer, reactor, task

SERVICE_RESTART = 1012
SHUTDOWN_GRACE = 2.0  # seconds given to consumers to finish their disconnect
MIN_FLUSH = 0.2  # seconds the close frames get to leave even if apps finish at once

log = logging.getLogger("config.serve")


class GracefulServer(daphne.server.Server):
    """daphne's Server, saying "service restart" (1012) to every websocket before stopping."""

    def run(self) -> None:
        self.ports: list[Any] = []
        super().run()

    def listen_success(self, port: Any) -> None:
        self.ports.append(port)
        super().listen_success(port)

    def websocket_protocols(self) -> list[WebSocketProtocol]:
        return [
            protocol
            for protocol, details in list(self.connections.items())
            if isinstance(protocol, WebSocketProtocol) and "disconnected" not in details
        ]

    def close_websockets(self, code: int = SERVICE_RESTART, reason: str = "service restart") -> int:
        closed = 0
        for protocol in self.websocket_protocols():
            if protocol.state != WebSocketProtocol.STATE_OPEN:
                continue  # handshakes in flight just get dropped (1006: also retried)
            try:
                # autobahn's sendClose() only allows 1000 and 3000-4999; 1012 is a
                # registered code (RFC 6455 registry), so send the frame directly.
                protocol.sendCloseFrame(code=code, reasonUtf8=reason.encode(), isReply=False)
                closed += 1
            except Exception:
                log.warning("could not close websocket %r", protocol, exc_info=True)
        return closed

    @defer.inlineCallbacks
    def kill_all_applications(self) -> Any:
        # The "before shutdown" trigger daphne registers: run ours first, in it.
        for port in self.ports:
            try:
                yield defer.maybeDeferred(port.stopListening)
            except Exception:
                log.warning("could not stop listening on %r", port, exc_info=True)
        self.ports = []
        closed = self.close_websockets()
        log.info("Sent close code %s to %d websocket(s)", SERVICE_RESTART, closed)
        deadline = time.monotonic() + SHUTDOWN_GRACE
        yield task.deferLater(reactor, MIN_FLUSH, lambda: None)
        while time.monotonic() < deadline and self._busy_websockets():
            yield task.deferLater(reactor, 0.05, lambda: None)
        # What is left (HTTP requests, stuck consumers) is cancelled as daphne does,
        # tolerating entries without an application instance.
        wait_for = []
        for details in list(self.connections.values()):
            instance = details.get("application_instance")
            if instance is not None and not instance.done():
                instance.cancel()
                wait_for.append(instance)
        log.info("Killed %i pending application instances", len(wait_for))
        if wait_for:
            waiting = defer.Deferred.fromFuture(asyncio.gather(*wait_for))
            waiting.addErrback(lambda _failure: None)
            yield waiting

    def _busy_websockets(self) -> bool:
        for protocol, details in list(self.connections.items()):
            if not isinstance(protocol, WebSocketProtocol):
                continue
            instance = details.get("application_instance")
            if instance is not None and not instance.done():
                return True
        return False


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m config.serve", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--bind", "-b", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", "-p", type=int, default=8001, help="port to listen on")
    parser.add_argument("--unix-socket", "-u", default=None, help="listen on a unix socket instead")
    parser.add_argument("--verbosity", "-v", type=int, default=1, choices=(0, 1, 2, 3))
    parser.add_argument("--access-log", default=None, help="'-' for stdout, or a file path")
    parser.add_argument(
        "--proxy-headers",
        action="store_true",
        help="trust X-Forwarded-For/-Port/-Proto (only behind your own proxy)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level={0: logging.WARNING, 1: logging.INFO}.get(args.verbosity, logging.DEBUG),
        format="%(asctime)-15s %(levelname)-8s %(message)s",
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.asgi import application

    endpoints = build_endpoint_description_strings(
        host=None if args.unix_socket else args.bind,
        port=None if args.unix_socket else args.port,
        unix_socket=args.unix_socket,
    )
    access_log = None
    if args.access_log == "-":
        access_log = AccessLogGenerator(sys.stdout)
    elif args.access_log:
        access_log = AccessLogGenerator(open(args.access_log, "a", 1))  # noqa: SIM115
    server = GracefulServer(
        application=application,
        endpoints=endpoints,
        signal_handlers=True,  # SIGTERM/SIGINT stop the reactor: shutdown triggers run
        action_logger=access_log,
        verbosity=args.verbosity,
        proxy_forwarded_address_header="X-Forwarded-For" if args.proxy_headers else None,
        proxy_forwarded_port_header="X-Forwarded-Port" if args.proxy_headers else None,
        proxy_forwarded_proto_header="X-Forwarded-Proto" if args.proxy_headers else None,
    )
    server.run()
    if server.abort_start:
        sys.exit(1)


if __name__ == "__main__":
    main()
