"""A minimal blocking websocket client (RFC 6455), enough to talk to the server in tests.

No dependency beyond the standard library: text frames, close, ping/pong. Async
tests call it through ``asyncio.to_thread``.
"""

from __future__ import annotations

import base64
import contextlib
import os
import socket
import ssl
import struct
import time
from dataclasses import dataclass

NO_STATUS = 1005  # a close frame without a code
ABNORMAL = 1006  # the connection dropped without a close frame


class HandshakeRefused(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"websocket handshake answered {status}")
        self.status = status


@dataclass(frozen=True)
class Closed:
    code: int
    reason: str


class WebSocket:
    def __init__(self, sock: socket.socket, buffered: bytes = b"") -> None:
        self.sock = sock
        self.buffer = bytearray(buffered)
        self.closed: Closed | None = None

    def recv(self, timeout: float = 3) -> str | Closed:
        """The next text message, or Closed once the connection is closed.

        TimeoutError when nothing complete came within ``timeout`` seconds.
        """
        if self.closed is not None:
            return self.closed
        deadline = time.monotonic() + timeout
        parts: list[bytes] = []
        while True:
            try:
                fin, opcode, payload = self._frame(deadline)
            except TimeoutError:
                raise
            except OSError:
                return self._closed(Closed(ABNORMAL, "connection dropped"))
            if opcode == 0x8:  # close: answer it, then report
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else NO_STATUS
                self._send_frame(0x8, payload[:2])
                return self._closed(Closed(code, payload[2:].decode("utf-8", "replace")))
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:  # pong
                continue
            parts.append(payload)
            if fin:
                return b"".join(parts).decode()

    def receive(self, timeout: float) -> str | None:
        """The next text message; None when nothing came in ``timeout`` or the socket closed."""
        try:
            message = self.recv(timeout)
        except TimeoutError:
            return None
        return message if isinstance(message, str) else None

    def send(self, text: str) -> None:
        self._send_frame(0x1, text.encode())

    def close(self, code: int = 1000) -> None:
        """Send a close frame and wait (2 s at most) for the server's answer."""
        if self.closed is None:
            self._send_frame(0x8, struct.pack("!H", code))
            with contextlib.suppress(TimeoutError):
                while not isinstance(self.recv(timeout=2), Closed):
                    pass
        with contextlib.suppress(OSError):
            self.sock.close()

    def _closed(self, closed: Closed) -> Closed:
        self.closed = closed
        with contextlib.suppress(OSError):
            self.sock.close()
        return closed

    def _frame(self, deadline: float) -> tuple[bool, int, bytes]:
        """The next whole frame (fin, opcode, payload); a partial one stays buffered."""
        while (frame := self._parse()) is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buffer += chunk
        return frame

    def _parse(self) -> tuple[bool, int, bytes] | None:
        buffer = self.buffer
        if len(buffer) < 2:
            return None
        length, start = buffer[1] & 0x7F, 2
        if length == 126:
            if len(buffer) < 4:
                return None
            (length,), start = struct.unpack_from("!H", buffer, 2), 4
        elif length == 127:
            if len(buffer) < 10:
                return None
            (length,), start = struct.unpack_from("!Q", buffer, 2), 10
        if len(buffer) < start + length:
            return None
        fin, opcode = bool(buffer[0] & 0x80), buffer[0] & 0x0F
        payload = bytes(buffer[start : start + length])
        del buffer[: start + length]
        return fin, opcode, payload

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with contextlib.suppress(OSError):
            self.sock.sendall(header + mask + masked)


def connect(
    host: str,
    port: int,
    path: str,
    headers: dict[str, str] | None = None,
    timeout: float = 5,
    ssl_context: ssl.SSLContext | None = None,
) -> WebSocket:
    """Open a websocket to ``ws://host:port/path`` (``wss://`` with ``ssl_context``).

    HandshakeRefused unless answered 101.
    """
    sock = socket.create_connection((host, port), timeout=timeout)
    if ssl_context is not None:
        sock = ssl_context.wrap_socket(sock, server_hostname=host)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        *(f"{name}: {value}" for name, value in (headers or {}).items()),
    ]
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError("handshake: connection closed")
            response += chunk
    except BaseException:
        sock.close()
        raise
    head, _, rest = response.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if status != 101:
        sock.close()
        raise HandshakeRefused(status)
    return WebSocket(sock, rest)
