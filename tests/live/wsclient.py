"""A minimal asyncio websocket client (RFC 6455), enough to talk to daphne in tests.

No dependency beyond the standard library: text frames, close, ping/pong.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from dataclasses import dataclass


class HandshakeRefused(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"websocket handshake answered {status}")
        self.status = status


@dataclass
class Closed:
    code: int | None
    reason: str


class WebSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.closed: Closed | None = None

    async def recv(self, timeout: float = 3) -> str | Closed:
        """The next text message, or Closed once the server closed the connection."""
        return await asyncio.wait_for(self._recv(), timeout)

    async def _recv(self) -> str | Closed:
        if self.closed is not None:
            return self.closed
        parts: list[bytes] = []
        while True:
            try:
                head = await self.reader.readexactly(2)
            except asyncio.IncompleteReadError:
                self.closed = Closed(None, "connection dropped")
                return self.closed
            fin, opcode = head[0] & 0x80, head[0] & 0x0F
            length = head[1] & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
            payload = await self.reader.readexactly(length) if length else b""
            if opcode == 0x8:  # close: answer it, then report
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                self.closed = Closed(code, payload[2:].decode("utf-8", "replace"))
                await self._send_frame(0x8, payload[:2])
                self.writer.close()
                return self.closed
            if opcode == 0x9:  # ping
                await self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:  # pong
                continue
            parts.append(payload)
            if fin:
                return b"".join(parts).decode()

    async def send(self, text: str) -> None:
        await self._send_frame(0x1, text.encode())

    async def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        try:
            self.writer.write(header + mask + masked)
            await self.writer.drain()
        except (ConnectionError, RuntimeError):
            pass

    async def close(self, code: int = 1000) -> None:
        if self.closed is None:
            await self._send_frame(0x8, struct.pack("!H", code))
            try:
                while not isinstance(await self.recv(timeout=2), Closed):
                    pass
            except TimeoutError:
                pass
        self.writer.close()


async def connect(
    host: str, port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 5
) -> WebSocket:
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
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
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    response = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    status = int(response.split(b" ", 2)[1])
    if status != 101:
        writer.close()
        raise HandshakeRefused(status)
    return WebSocket(reader, writer)
