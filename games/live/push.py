"""The synchronous side of a table socket: who may open it, its snapshot, its presence.

The consumer (games.live.consumers) calls these through ``database_sync_to_async``.
Moves never come through here: their frames are rendered once where they are
made (games.live.broadcast) and the consumer only forwards them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.live import frames
from games.models import MAX_DB_ID, Seat, Table
from games.pages import presenter
from games.play.state import load_shown_state
from games.storage import presence


@dataclass(frozen=True)
class Opened:
    """A socket that may stay open: its seat and the table's seats (for presence).
    ``watching``: staff watching a table they are not seated at (issue 50), no seat."""

    seat_id: int | None
    seat_ids: tuple[int, ...]
    watching: bool = False


class Refused(Exception):
    """This socket must be closed with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


CLOSE_ANONYMOUS = 4401
CLOSE_NOT_SEATED = 4403
CLOSE_NO_TABLE = 4404


def open_socket(table_id: int, user: Any, socket_name: str) -> Opened:
    """Check that ``user`` is seated at the table and record the socket's presence."""
    if user is None or not user.is_authenticated:
        raise Refused(CLOSE_ANONYMOUS)
    if not 0 < table_id <= MAX_DB_ID:
        raise Refused(CLOSE_NO_TABLE)
    seats = list(Seat.objects.filter(table_id=table_id).values_list("pk", "user_id", "computer"))
    mine = next((pk for pk, user_id, _computer in seats if user_id == user.pk), None)
    # A computer player has no page: presence is about the people (issue 48).
    people = tuple(pk for pk, _user, computer in seats if not computer)
    if mine is None:
        exists = bool(seats) or Table.objects.filter(pk=table_id).exists()
        if not exists:
            raise Refused(CLOSE_NO_TABLE)
        if not presenter.may_watch(user):
            raise Refused(CLOSE_NOT_SEATED)
        # Staff watching (issue 50): the public regions only, and the players told.
        presence.watch(table_id, socket_name, frames.language_of(user))
        return Opened(seat_id=None, seat_ids=people, watching=True)
    presence.touch(mine, socket_name)
    return Opened(seat_id=mine, seat_ids=people)


@dataclass(frozen=True)
class Snapshot:
    """Every region of the table for one user, its version, and the seats its seat list
    shows a presence mark for (the people's)."""

    html: str
    version: int
    seat_ids: tuple[int, ...]


def watch_snapshot(table_id: int, user: Any) -> Snapshot:
    """What staff watching the table see of it (issue 50): its public regions alone."""
    if not presenter.may_watch(user):
        raise Refused(CLOSE_NOT_SEATED)
    table = Table.objects.select_related("host", "cancelled_by").filter(pk=table_id).first()
    if table is None:
        raise Refused(CLOSE_NO_TABLE)
    state = load_shown_state(table)
    html = frames.render_watch_snapshot(state, frames.language_of(user))
    return Snapshot(html, table.version, frames.marked_seat_ids(state))


def snapshot(table_id: int, user: Any) -> Snapshot:
    """Every region of the table for ``user`` (Refused if not seated)."""
    table = Table.objects.select_related("host", "cancelled_by").filter(pk=table_id).first()
    if table is None:
        raise Refused(CLOSE_NO_TABLE)
    state = load_shown_state(table)
    seat = state.seat_of(user.pk)
    if seat is None:
        raise Refused(CLOSE_NOT_SEATED)
    return Snapshot(
        frames.render_snapshot(state, seat), table.version, frames.marked_seat_ids(state)
    )


@dataclass(frozen=True)
class Beat:
    """What a socket's heartbeat learns: who is online, whether its own presence had
    expired (it may have missed frames: see presence.touch), the table's version."""

    online: set[int]
    expired: bool
    version: int
    #: The people away from a game in progress (no page open for AWAY_AFTER_SECONDS).
    away: frozenset[int] = frozenset()
    #: The languages of the staff watching the table (issue 50), one per socket.
    watchers: tuple[str, ...] = ()


def heartbeat(
    table_id: int,
    seat_id: int | None,
    socket_name: str,
    seat_ids: tuple[int, ...],
    watcher: str = "",
) -> Beat:
    """Refresh this socket's presence and read the table's version (one small query:
    a page whose frame was lost anywhere on its way is found behind by it).
    ``watcher``: the language of staff watching the table (issue 50; no seat)."""
    if seat_id is not None:
        was_live = presence.touch(seat_id, socket_name)
    else:
        presence.watch(table_id, socket_name, watcher)
        was_live = True
    row = Table.objects.filter(pk=table_id).values_list("version", "status", "started_at").first()
    version, status, started = row or (0, "", None)
    online, watchers = presence.online_and_watchers(seat_ids, table_id)
    away: set[int] = set()
    offline = [i for i in seat_ids if i not in online]
    if offline and status == Table.Status.PLAYING and started is not None:
        away = presence.away_seats(offline, started.timestamp())
    return Beat(online, not was_live, version or 0, frozenset(away), tuple(watchers))


def close_socket(
    seat_id: int | None, socket_name: str, seat_ids: tuple[int, ...], table_id: int = 0
) -> tuple[set[int], list[str]]:
    """Forget this socket's presence (a seat's, or with no seat, staff watching
    ``table_id``); the table's online seats and its watchers' languages."""
    if seat_id is not None:
        presence.leave(seat_id, socket_name)
    else:
        presence.unwatch(table_id, socket_name)
    return presence.online_and_watchers(seat_ids, table_id)


def online(seat_ids: tuple[int, ...], table_id: int = 0) -> tuple[set[int], list[str]]:
    """The table's online seats and its watchers' languages (issue 50)."""
    return presence.online_and_watchers(seat_ids, table_id)
