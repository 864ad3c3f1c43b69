"""Shared set-up for the live-table tests: players, a started table, session cookies."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from channels.testing import WebsocketCommunicator

from games.models import HandCard, Seat, Table
from games.storage import presence
from games.testing.factories import make_user, seated_table, session_cookie, started_table

ORIGIN = b"http://testserver"
QUIET = 0.25  # seconds without a frame: the socket has said everything
REGION_IDS = (
    "status",
    "seats",
    "trick",
    "hand",
    "controls",
    "scores",
    "chat-log",
    "chat-compose",
    "tricks-history",
)
CARD_ATTR = re.compile(r'data-card="([^"]+)"')
VERSION_ATTR = re.compile(r'data-version="(\d+)"')


@dataclass
class Game:
    table: Table
    users: list[Any]
    cookies: list[str]  # "sessionid=..." per user, same order


def headers(cookie: str | None = None, origin: bytes = ORIGIN) -> list[tuple[bytes, bytes]]:
    result = [(b"origin", origin), (b"host", b"testserver")]
    if cookie:
        result.append((b"cookie", cookie.encode()))
    return result


def make_game(names: tuple[str, ...] = ("anne", "bert", "cleo"), *, start: bool = True) -> Game:
    """Users called ``names`` at a table of the first (no ghost, random deck), started."""
    users = [make_user(name) for name in names]
    build = started_table if start else seated_table
    table, users = build(users, ghost=False, seed=None)
    return Game(table, users, [session_cookie(u) for u in users])


def hand_of(table: Table, user: Any) -> set[str]:
    return set(
        HandCard.objects.filter(
            round__table=table,
            round__number=table.round_number,
            seat__user=user,
            played=False,
        ).values_list("card", flat=True)
    )


def connections(table: Table, user: Any) -> int:
    """The user's sockets at this table that count as open (games.storage.presence)."""
    return presence.open_sockets(Seat.objects.get(table=table, user=user).pk)


def card_codes(html: str) -> set[str]:
    return {code.split(":")[0] for code in CARD_ATTR.findall(html)}


def versions(html: str) -> set[int]:
    return {int(v) for v in VERSION_ATTR.findall(html)}


def mentions(html: str, code: str) -> bool:
    """Whether a card code appears anywhere in the HTML as a whole token."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", html) is not None


def seat_block(html: str, user: Any, table: Table) -> str:
    """The <li data-seat="seat-<id>"> of this user's seat in the seats region of a frame."""
    seat = Seat.objects.get(table=table, user=user)
    seats = re.search(r'<section id="seats".*?</section>', html, re.S)
    assert seats, "no seats region in the frame"
    match = re.search(rf'<li[^>]*data-seat="seat-{seat.pk}".*?</li>', seats.group(0), re.S)
    assert match, f"seat of {user} not in fragment"
    return match.group(0)


def has_seats(html: str) -> bool:
    return '<section id="seats"' in html


def shown_offline(frames: list[str], user: Any, table: Table) -> bool:
    """Whether, after these frames, the page marks the user's seat offline.

    A seat's mark comes with the seat list, or alone as a presence update
    (``<span id="presence-seat-<id>">``); the last one received is what shows.
    """
    seat = Seat.objects.get(table=table, user=user)
    marks = re.findall(rf'<span id="presence-seat-{seat.pk}"[^>]*>(.*?)</span>\n?', "".join(frames))
    assert marks, f"no presence mark for {user}"
    return "offline" in marks[-1]


# -- a table's socket, as the tests open and read it ------------------------------------


async def open_socket(table_id: int, cookie: str | None, **kwargs: Any) -> WebsocketCommunicator:
    # Imported here: the browser tests share this module and need no ASGI application.
    from config.asgi import application

    comm = WebsocketCommunicator(
        application, f"/ws/tables/{table_id}/", headers=headers(cookie, **kwargs)
    )
    connected, _ = await comm.connect(timeout=3)
    assert connected
    return comm


async def drain(comm: WebsocketCommunicator, first_timeout: float = 3) -> list[str]:
    """Every frame until the socket goes quiet (the first one may take a while)."""
    frames = [await comm.receive_from(timeout=first_timeout)]
    while not await comm.receive_nothing(timeout=QUIET):
        frames.append(await comm.receive_from(timeout=1))
    return frames


async def close_code(comm: WebsocketCommunicator) -> int:
    message = await comm.receive_output(timeout=3)
    assert message["type"] == "websocket.close", message
    return int(message["code"])
