"""Who has the table open: one cache entry per open socket, kept alive by a heartbeat.

Each socket records itself under its seat (``touch``) when it connects and again
every heartbeat; a clean disconnect removes it (``leave``). An entry that
is not refreshed expires after three heartbeats, so the sockets of a server
process that was killed stop counting by themselves: presence heals without
anyone having to clean up. A seat is online while it has one unexpired entry.

The entries live in Django's cache (Redis with several processes, so every
process sees every socket; local memory with one).

A seat is *away* once it has had no open socket for ``AWAY_AFTER_SECONDS``
(issue 48): each touch and leave records when the seat was last seen, so the
moment its last socket closed (or its process died) is known to every process.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.cache import cache

#: Also how long a page that missed a frame waits, at most, for the true state
#: (games.live.consumers: each heartbeat checks the table's version).
DEFAULT_HEARTBEAT_SECONDS = 10.0
log = logging.getLogger(__name__)


def _cosmetic[R](fallback: R) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Presence is cosmetic: with the cache down, a page or a move must still work."""

    def decorate(func: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> R:
            try:
                return func(*args, **kwargs)
            except Exception:
                log.warning("presence: the cache failed in %s", func.__name__, exc_info=True)
                return fallback

        return wrapper

    return decorate


def heartbeat_seconds() -> float:
    """How often a socket refreshes its entry (settings.PRESENCE_HEARTBEAT_SECONDS)."""
    return float(getattr(settings, "PRESENCE_HEARTBEAT_SECONDS", DEFAULT_HEARTBEAT_SECONDS))


def _expiry() -> float:
    # Three missed heartbeats: a busy process that is late once is not shown offline.
    return 3 * heartbeat_seconds()


def _key(seat_id: int) -> str:
    return f"presence:seat:{seat_id}"


def _seen_key(seat_id: int) -> str:
    return f"presence:seen:{seat_id}"


#: How long "last seen" is kept: longer than any game.
SEEN_KEPT_SECONDS = 7 * 24 * 3600
DEFAULT_AWAY_AFTER_SECONDS = 60.0


def away_after_seconds() -> float:
    """How long a seat has no open socket before it is away (settings.AWAY_AFTER_SECONDS)."""
    return float(getattr(settings, "AWAY_AFTER_SECONDS", DEFAULT_AWAY_AFTER_SECONDS))


def _live(entries: dict[str, float] | None, now: float) -> dict[str, float]:
    return {name: until for name, until in (entries or {}).items() if until > now}


@_cosmetic(True)
def touch(seat_id: int, socket_name: str) -> bool:
    """Record (or refresh) one open socket of a seat; whether its entry was still live.

    False means the entry had expired (this socket's process stalled for three
    heartbeats): moves made meanwhile may have skipped this seat (see
    ``listening_seats``), so the socket must take a fresh snapshot.
    """
    now = time.time()
    # Read, prune, write: two sockets of one seat touching at the same instant
    # may lose one entry, which that socket's next heartbeat puts back.
    entries = _live(cache.get(_key(seat_id)), now)
    was_live = socket_name in entries
    entries[socket_name] = now + _expiry()
    cache.set(_key(seat_id), entries, timeout=int(_expiry()) + 1)
    cache.set(_seen_key(seat_id), now, timeout=SEEN_KEPT_SECONDS)
    return was_live


@_cosmetic(None)
def leave(seat_id: int, socket_name: str) -> None:
    """Forget one socket of a seat (a clean disconnect)."""
    now = time.time()
    entries = _live(cache.get(_key(seat_id)), now)
    if entries.pop(socket_name, None) is None:
        return
    cache.set(_seen_key(seat_id), now, timeout=SEEN_KEPT_SECONDS)
    if entries:
        cache.set(_key(seat_id), entries, timeout=int(_expiry()) + 1)
    else:
        cache.delete(_key(seat_id))


@_cosmetic(set())
def online_seats(seat_ids: Iterable[int]) -> set[int]:
    """The seats among ``seat_ids`` with at least one open socket (one cache round trip)."""
    ids = list(seat_ids)
    if not ids:
        return set()
    now = time.time()
    found = cache.get_many([_key(i) for i in ids])
    return {i for i in ids if _live(found.get(_key(i)), now)}


@_cosmetic(set())
def away_seats(seat_ids: Iterable[int], since: float) -> set[int]:
    """The seats among ``seat_ids`` with no open socket for ``AWAY_AFTER_SECONDS``.

    ``since``: when a seat never seen at all began to be expected (its game's start,
    epoch seconds). One cache round trip; none for no seat.
    """
    ids = list(seat_ids)
    if not ids:
        return set()
    now = time.time()
    found = cache.get_many([k for i in ids for k in (_key(i), _seen_key(i))])
    limit = now - away_after_seconds()
    away = set()
    for i in ids:
        if _live(found.get(_key(i)), now):
            continue
        entries_seen = found.get(_seen_key(i))
        if (entries_seen if entries_seen is not None else since) <= limit:
            away.add(i)
    return away


def listening_seats(seat_ids: Iterable[int]) -> set[int] | None:
    """The seats with an open socket, or None when the cache cannot tell.

    A move renders frames only for these seats (games.live.broadcast): a seat nobody
    watches costs no render, and a socket opened later gets a full snapshot
    (its entry is written before it joins its groups and reads the snapshot).
    None (the cache failed) means: assume every seat listens.
    """
    ids = list(seat_ids)
    try:
        found = cache.get_many([_key(i) for i in ids]) if ids else {}
    except Exception:
        log.warning("presence: the cache failed in listening_seats", exc_info=True)
        return None
    now = time.time()
    return {i for i in ids if _live(found.get(_key(i)), now)}


def open_sockets(seat_id: int) -> int:
    """How many sockets of this seat count as open now."""
    return len(_live(cache.get(_key(seat_id)), time.time()))


# -- staff watching a table (issue 50) ----------------------------------------------------
#
# A staff member's socket on a table they are not seated at records itself under the
# table, with the language it reads: the moves then render the public regions in that
# language too (games.live.broadcast), and the players' seat list says that a staff
# member is watching. The entries expire like the seats' (three heartbeats).


def _watch_key(table_id: int) -> str:
    return f"presence:watch:{table_id}"


def _live_watchers(entries: Any, now: float) -> dict[str, tuple[float, str]]:
    return {
        name: (float(until), str(language))
        for name, (until, language) in (entries or {}).items()
        if until > now
    }


def watcher_languages(entries: Any, now: float | None = None) -> list[str]:
    """The languages of the live watcher entries of one table (one per socket)."""
    now = time.time() if now is None else now
    return sorted(language for _until, language in _live_watchers(entries, now).values())


@_cosmetic(None)
def watch(table_id: int, socket_name: str, language: str) -> None:
    """Record (or refresh) one staff socket watching the table."""
    now = time.time()
    entries = _live_watchers(cache.get(_watch_key(table_id)), now)
    entries[socket_name] = (now + _expiry(), language)
    cache.set(_watch_key(table_id), entries, timeout=int(_expiry()) + 1)


@_cosmetic(None)
def unwatch(table_id: int, socket_name: str) -> None:
    """Forget one staff socket watching the table (a clean disconnect)."""
    now = time.time()
    entries = _live_watchers(cache.get(_watch_key(table_id)), now)
    if entries.pop(socket_name, None) is None:
        return
    if entries:
        cache.set(_watch_key(table_id), entries, timeout=int(_expiry()) + 1)
    else:
        cache.delete(_watch_key(table_id))


@_cosmetic((set(), []))
def online_and_watchers(seat_ids: Iterable[int], table_id: int) -> tuple[set[int], list[str]]:
    """``online_seats`` and the table's watchers' languages, in one cache round trip."""
    ids = list(seat_ids)
    now = time.time()
    found = cache.get_many([*(_key(i) for i in ids), _watch_key(table_id)])
    online = {i for i in ids if _live(found.get(_key(i)), now)}
    return online, watcher_languages(found.get(_watch_key(table_id)), now)


def listening_and_watchers(
    seat_ids: Iterable[int], table_id: int
) -> tuple[set[int] | None, list[str]]:
    """``listening_seats`` and the table's watchers' languages, in one cache round trip
    (None and no watcher when the cache cannot tell)."""
    ids = list(seat_ids)
    try:
        found = cache.get_many([*(_key(i) for i in ids), _watch_key(table_id)])
    except Exception:
        log.warning("presence: the cache failed in listening_and_watchers", exc_info=True)
        return None, []
    now = time.time()
    listening = {i for i in ids if _live(found.get(_key(i)), now)}
    return listening, watcher_languages(found.get(_watch_key(table_id)), now)


@_cosmetic({})
def watched_tables(table_ids: Iterable[int]) -> dict[int, int]:
    """table id -> how many staff sockets watch it (tables watched by nobody left out)."""
    ids = list(table_ids)
    if not ids:
        return {}
    now = time.time()
    found = cache.get_many([_watch_key(i) for i in ids])
    counts = {i: len(_live_watchers(found.get(_watch_key(i)), now)) for i in ids}
    return {i: n for i, n in counts.items() if n}


@_cosmetic({})
def away_since(expected: dict[int, float]) -> dict[int, float]:
    """seat id -> since when it is away (epoch seconds: when its last page closed, or
    when it began to be expected if never seen), for the seats of ``expected`` (seat id
    -> when it began to be expected) that are away now. One cache round trip for all of
    them, whatever their tables (the admin's table list, issue 50)."""
    if not expected:
        return {}
    now = time.time()
    found = cache.get_many([k for i in expected for k in (_key(i), _seen_key(i))])
    limit = now - away_after_seconds()
    away: dict[int, float] = {}
    for i, since in expected.items():
        if _live(found.get(_key(i)), now):
            continue
        seen = found.get(_seen_key(i))
        moment = seen if seen is not None else since
        if moment <= limit:
            away[i] = moment
    return away
