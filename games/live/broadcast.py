"""An action's outcome, once committed, to every page it changes: the delivery's one way in.

``deliver`` receives each ``games.play.outcome.Outcome`` (the ``committed`` signal)
and decides from its kind and its state which regions each page gets
(games.live.frames). The process that made the move already holds the table's
state, so it renders the frames there: the public regions once per language, each
seat's own regions once for that seat. They are rendered once the move has
committed, in its own thread (an on-commit hook), and sent at once; nothing is
rendered or sent for a move that does not commit. Each frame goes to that user's own group
(``user_group``), which only that user's sockets at this table join, so a hand
or a secret bid never travels to anyone else (R4). The consumers only forward.

The sockets' presence marks travel on the table's group (``group_name``): they
are the same for everyone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.dispatch import receiver

from config import delivery
from games.live import frames, held
from games.models import Seat, Table
from games.play import outcome
from games.play.outcome import Change, Outcome
from games.play.state import GameState, load_state
from games.storage import presence, state_cache

log = logging.getLogger(__name__)

# The frames published while a view runs its action (see ``collecting``), and the
# user whose frame the view answers with (rendered even with no socket open).
_collected: ContextVar[dict[int, str] | None] = ContextVar("collected_frames", default=None)
_actor: ContextVar[int | None] = ContextVar("actor", default=None)


@contextlib.contextmanager
def collecting(actor_id: int | None = None) -> Iterator[dict[int, str]]:
    """Collect the frames published in this block: user id -> that user's frame.

    The view wraps its action in it, so the actor's HTTP answer is the very frame
    its socket gets, without a second render. ``actor_id``'s frame is rendered
    whether or not that user has a socket open.
    """
    frames_seen: dict[int, str] = {}
    token = _collected.set(frames_seen)
    actor_token = _actor.set(actor_id)
    try:
        yield frames_seen
    finally:
        _actor.reset(actor_token)
        _collected.reset(token)


def group_name(table_id: int) -> str:
    """Every socket of the table: presence marks only."""
    return f"table-{table_id}"


def user_group(table_id: int, user_id: int) -> str:
    """The sockets one user has open on one table: that seat's frames."""
    return f"table-{table_id}-user-{user_id}"


def watch_group(table_id: int) -> str:
    """The sockets of staff watching the table (issue 50): its public regions only."""
    return f"table-{table_id}-watch"


#: table id -> (until, the watchers' languages), as the presence marks of this process's
#: sockets of the table last said (games.live.consumers): a move whose seats all listen
#: here asks the cache nothing, and learns from this whether staff watch the table.
_watched_here: dict[int, tuple[float, tuple[str, ...]]] = {}


def note_watchers(table_id: int, languages: list[str] | tuple[str, ...]) -> None:
    """What a presence mark of the table said of its watchers (for three heartbeats)."""
    if languages:
        until = time.monotonic() + 3 * presence.heartbeat_seconds()
        _watched_here[table_id] = (until, tuple(languages))
    else:
        _watched_here.pop(table_id, None)


def _noted_watchers(table_id: int) -> tuple[str, ...]:
    noted = _watched_here.get(table_id)
    if noted is None or noted[0] < time.monotonic():
        return ()
    return noted[1]


@receiver(outcome.committed, dispatch_uid="games.live.broadcast.deliver")
def deliver(sender: Any, outcome: Outcome, **kwargs: Any) -> None:
    """The one way in: an action's outcome, once committed, to every page it changes."""
    table, state = outcome.table, outcome.state
    match outcome.change:
        case Change.MOVE:
            assert state is not None
            publish(
                table,
                state,
                frames.public_regions_after_move(state),
                True,
                (),
                frames.own_regions_after_move(state),
            )
        case Change.DEAL:
            # Every region of every seat but the chat changes.
            publish(table, state, frames.NEW_DEAL_REGIONS, True, ())
        case Change.TABLE:
            publish(table, state, frames.PUBLIC_REGIONS, True, outcome.departed)
        case Change.SEAT:
            assert state is not None and outcome.seat is not None
            _publish_seat(table, state, outcome.seat)
        case Change.CHAT:
            seats = list(table.seats.select_related("user").order_by("position"))
            publish(table, GameState(table, seats), frames.CHAT_REGIONS, False, ())


def _publish_seat(table: Table, state: GameState, seat: Seat) -> None:
    """One seat's own regions again (nobody else's view changed)."""
    html = frames.render_own_regions(state, seat)
    collector = _collected.get()
    if collector is not None:
        collector[seat.user_id] = html
    message = {
        "type": "table.frame",
        "version": table.version,
        "regions": list(frames.SEAT_REGIONS),
        "html": html,
    }
    send([(user_group(table.pk, seat.user_id), message)])


def publish(
    table: Table,
    state: GameState | None,
    public: tuple[str, ...],
    seat_regions: bool,
    departed: tuple[int, ...],
    changed: dict[int, tuple[str, ...]] | None = None,
) -> dict[int, str]:
    """Render and send the frames of ``table``'s committed version; user id -> frame."""
    table_id, version = table.pk, table.version
    read_again = state is None
    if state is None:
        fresh = Table.objects.select_related("host", "cancelled_by").filter(pk=table_id).first()
        if fresh is None:
            return {}
        state = load_state(fresh)
    record = held.before(state.table)
    shared: dict[str, str] = {}
    frames_of = _render_for_listeners(
        state, public, seat_regions, changed, _actor.get(), record, shared
    )
    collector = _collected.get()
    if collector is not None and seat_regions:
        collector.update(frames_of)
    own = {
        seat.user_id: frames.own_regions(seat, changed) if seat_regions else ()
        for seat in state.seats
    }
    frame: dict[str, Any] = {"type": "table.frame", "version": version}
    if "seats" in public:
        # The seats whose presence marks this seat list holds: a socket marks those alone
        # (a mark for a seat the page no longer shows is an htmx error).
        frame["seat_ids"] = list(frames.marked_seat_ids(state))
    messages: list[tuple[str, dict[str, Any]]] = [
        (
            user_group(table_id, user_id),
            {**frame, "regions": [*public, *own[user_id]], "html": html},
        )
        for user_id, html in frames_of.items()
    ]
    messages += [(user_group(table_id, uid), {"type": "table.departed"}) for uid in departed]
    watched = {language: html for language, html in shared.items() if html}
    if watched:
        # Staff watching (issue 50): the public regions alone, in each language watched.
        watching = {**frame, "type": "table.watch", "regions": list(public), "html": watched}
        messages.append((watch_group(table_id), watching))
    send(messages)
    if any(region in frames.PARTED_REGIONS for region in public):
        # What the pages hold now, for the next move to send only what it changes.
        frames.remember(state, record, frames.parted_regions_a_move_may_push(state))
        held.keep(state.table, record)
    if read_again:
        # Read after the commit: the next move of the table starts from it.
        state_cache.keep(state)
    return frames_of


def _render_for_listeners(
    state: GameState,
    public: tuple[str, ...],
    seat_regions: bool,
    changed: dict[int, tuple[str, ...]] | None,
    actor: int | None,
    record: held.Record,
    shared: dict[str, str] | None = None,
) -> dict[int, str]:
    """The frames of the seats that watch (a socket opened later reads a full
    snapshot), and the actor's, whose HTTP answer is its frame: user id -> frame.
    ``shared``: filled with the public regions in each language, when staff watch."""
    listening, watchers = _listening_seats(state)
    users = None
    if listening is not None:
        users = {seat.user_id for seat in state.seats if seat.pk in listening}
        if actor is not None:
            users.add(actor)
    return frames.render_frames(
        state,
        public,
        seat_regions=seat_regions,
        users=users,
        changed=changed,
        held=record,
        online=listening,
        watchers=watchers,
        shared_out=shared if watchers else None,
    )


def _listening_seats(state: GameState) -> tuple[set[int] | None, tuple[str, ...]]:
    """The seats with a socket open (games.storage.presence), and the languages of the
    staff watching (issue 50). When every seat has one in this process, as when a
    table's players are all served by the process that moves it, the channel layer
    says so without a round trip to the cache, and the presence marks those sockets
    got say who watches."""
    table_id = state.table.pk
    listened_here = getattr(get_channel_layer(), "listened_here", None)
    if listened_here is not None and state.seats:
        groups = {user_group(table_id, seat.user_id): seat.pk for seat in state.seats}
        if len(listened_here(list(groups))) == len(groups):
            return set(groups.values()), _noted_watchers(table_id)
    listening, watchers = presence.listening_and_watchers(
        (seat.pk for seat in state.seats), table_id
    )
    return listening, tuple(watchers)


def send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """group_send each (group, message): from this thread when the layer can
    (config.channel_layers), else all in one hop to the event loop."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    try:
        publish_many = getattr(layer, "publish_many", None)
        if publish_many is not None:
            publish_many(messages)
        else:
            async_to_sync(_send_all)(layer, messages)
    except Exception as error:
        # The move is committed; a lost push is healed by the next snapshot (a
        # socket's heartbeat finds its page behind), so a broken channel layer must
        # not turn a saved move into an error page. But it is an error, and /healthz
        # says so until a delivery succeeds (config.delivery).
        log.error("broadcast of table %s failed", messages[0][0], exc_info=True)
        delivery.failed(error)
    else:
        delivery.succeeded()


async def _send_all(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    many = getattr(layer, "group_send_many", None)  # one round trip (config.channel_layers)
    if many is not None:
        await many(messages)
    else:
        await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))
