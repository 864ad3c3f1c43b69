"""One function per user intent: the only code that changes game rows.

Each action runs in one transaction, locks the table row, checks who acts, the
phase, the turn and the version, asks games.rules whether the move is legal,
writes, bumps the table version, and says what happened (games.play.outcome), which
goes to the pages once the transaction commits. A refusal raises ActionError
before anything is written, so it changes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from collections.abc import Callable
from typing import Any

from django.contrib.admin.models import CHANGE, LogEntry
from django.db import DatabaseError, IntegrityError
from django.db.models import Exists, OuterRef, Q, Subquery
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from accounts import ratelimit
from config.db_faults import connection_lost, sqlstate_of
from games import rules
from games.models import (
    CHAT_MAX_LENGTH,
    MAX_DB_ID,
    MAX_SEATS,
    TURN_CLOCK_CHOICES,
    Bid,
    CancelReason,
    ChatMessage,
    ChatMute,
    ComputerLevel,
    HandCard,
    Play,
    Round,
    RoundScore,
    Seat,
    Table,
    Trick,
    new_invite_token,
)
from games.play import computer_seats, hosting, integrity, outcome, turns
from games.play.state import GHOST, GameState, load_state
from games.storage import state_cache, transactions
from games.storage.compiled import CompiledRead
from games.storage.compiled_writes import insert, insert_many, save_fields

log = logging.getLogger(__name__)

INTEGER = re.compile(r"-?[0-9]{1,12}")
CHAT_BURST, CHAT_BURST_SECONDS = 20, 10  # at most 20 messages in 10 seconds per player
MODERATION_REASON_LENGTH = 200  # a moderator's reason for hiding or restoring a message


class ActionError(Exception):
    """A refused action: a message for the page and the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class NeedsConfirmation(ActionError):
    """Leaving now would cancel the game for everyone, and the leaver did not confirm that."""


# -- helpers ------------------------------------------------------------------


def parse_int(value: Any, what: str) -> int:
    """Parse a form value; anything that is not a plain integer is a 400."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip() if value is not None else ""
    # ASCII digits only: str.isdigit() also accepts "²" and "٣", which int() refuses or reads.
    if not INTEGER.fullmatch(text):
        raise ActionError(_("%(what)s must be a whole number.") % {"what": what}, 400)
    return int(text)


#: The table row, locked: the first read of every action (compiled once, games.storage.compiled).
#: FOR NO KEY UPDATE (PostgreSQL): actions still queue behind each other, but a chat
#: message's foreign key check (FOR KEY SHARE) does not wait for a move.
LOCKED_TABLE = CompiledRead(
    Table, lambda table_id: Table.objects.select_for_update(no_key=True).filter(pk=table_id)
)


#: A move's lock and its seats in one statement: the seats (with their users) joined to
#: the table, whose row alone is locked. Every change of the seats also moves the
#: table's version on, so seats read with a table that has to wait for its lock are
#: only used with that table's new version, which the move's own version is then
#: refused against (409).
LOCKED_SEATS = CompiledRead(
    Seat,
    lambda table_id: (
        Seat.objects.filter(table_id=table_id)
        .select_related("table", "user")
        .order_by("position")
        .select_for_update(no_key=True, of=("table",))
    ),
)


def _table_key(table_id: Any) -> int:
    try:
        key = int(table_id)
    except (ValueError, TypeError, OverflowError):
        raise ActionError(_("There is no such table."), 404) from None
    if not 0 < key <= MAX_DB_ID:
        raise ActionError(_("There is no such table."), 404)
    return key


def _lock(table_id: int) -> Table:
    found = LOCKED_TABLE.read(_table_key(table_id))
    if not found:
        raise ActionError(_("There is no such table."), 404)
    return found[0]


def _lock_with_seats(table_id: int) -> tuple[Table, list[Seat]]:
    """The locked table and its seats, in one read (a table with no seat: two)."""
    seats = LOCKED_SEATS.read(_table_key(table_id))
    if not seats:
        return _lock(table_id), []
    table = seats[0].table
    for seat in seats:
        seat.table = table
    return table, seats


def _seat(table: Table, user: Any, seats: list[Seat] | None = None) -> Seat:
    """``user``'s seat at ``table``: from ``seats`` when the table's are at hand, else read."""
    if seats is not None:
        seat = next((seat for seat in seats if seat.user_id == user.pk), None)
    else:
        seat = Seat.objects.filter(table=table, user_id=user.pk).first()
    if seat is None:
        raise ActionError(_("You are not seated at this table."), 403)
    return seat


def _check_version(table: Table, version: int) -> None:
    if version != table.version:
        raise ActionError(
            _("The table has moved on since you loaded it; here is the current state."), 409
        )


def _check_playing(table: Table, phase: str) -> None:
    if table.status != Table.Status.PLAYING:
        raise ActionError(_("This game is not in progress."), 409)
    if table.phase != phase:
        raise ActionError(_("That is not possible at this point of the game."), 409)


def _bump(table: Table, **changes: Any) -> Table:
    """Save the table at its next version: all of it changed (Change.TABLE)."""
    _save_version(table, **changes)
    outcome.on_commit(outcome.Outcome(table, outcome.Change.TABLE))
    return table


#: What a bid, a play or "next trick" can change of the table row: its phase, and with
#: the last play of the game its status and end (the rest is set by the other actions).
MOVE_FIELDS = (
    "version",
    "phase",
    "status",
    "finished_at",
    "updated_at",
    "turn_started_at",
    "computer_due_at",
)


#: What a new deal changes of the table row (games.play.actions._begin_round).
DEAL_FIELDS = (
    "version",
    "round_number",
    "phase",
    "updated_at",
    "turn_started_at",
    "computer_due_at",
)


def _schedule(state: GameState, *, turn_began: bool) -> None:
    """Note when the wait for the next move began (``turn_began``) and when the
    computer moves next at this table (games.play.turns), for any process to find."""
    table = state.table
    if turn_began:
        table.turn_started_at = timezone.now()
    table.computer_due_at = turns.computer_due_at(state)


def _bump_move(state: GameState) -> Table:
    """Save a move (bid, play, next trick); ``state`` says what it changed."""
    table = state.table
    # A bid starts nobody's wait: everyone's bidding clock started at the deal (R4).
    _schedule(state, turn_began=table.phase != Table.Phase.BIDDING)
    _save_version(table, fields=MOVE_FIELDS)
    outcome.on_commit(outcome.Outcome(table, outcome.Change.MOVE, state))
    state_cache.keep_on_commit(state)
    return table


def _game_state(table: Table, seats: list[Seat]) -> GameState:
    """The game of the locked ``table`` (its ``seats`` just read with the lock): as
    this process's last move of it left it (games.storage.state_cache), else read."""
    return state_cache.take(table, seats) or load_state(table, seats)


def _save_version(table: Table, fields: tuple[str, ...] | None = None, **changes: Any) -> None:
    """Save ``table`` at its next version with ``changes``; ``fields``: only these columns."""
    for name, value in changes.items():
        setattr(table, name, value)
    table.version += 1
    if fields is None:
        table.save()
    else:
        save_fields(table, fields)


def _round_seed(table: Table, number: int) -> int:
    # Each round reshuffles the whole deck (R2); the seed is derived, not random,
    # so a round can be replayed and audited from the table's seed.
    digest = hashlib.sha256(f"{table.seed}:{number}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


#: SQLSTATEs of a statement that may well pass if the move runs again from the start:
#: a serialization failure, a deadlock (the other transaction went through).
TRANSIENT = ("40001", "40P01")
#: A lock not had within the move's lock_timeout, a statement past its
#: statement_timeout (games.storage.transactions): the table is busy.
BUSY = ("55P03", "57014")


def _busy() -> ActionError:
    return ActionError(_("The table is busy, try again."), 503)


def _try_again() -> ActionError:
    return ActionError(_("Your move could not be saved and nothing changed. Try again."), 503)


def _atomic_action[**P, R](func: Callable[P, R]) -> Callable[P, R]:
    """Run an action in a transaction; a lost race on a unique constraint is a 409, not a 500.

    Only the constraints that a move submitted twice runs into mean that
    (games.play.integrity); any other constraint failing is a bug: logged and raised.

    A database fault is never a 500 (issue 45). A transient one (the connection
    broke, a serialization failure, a deadlock) runs the action once more from the
    start, nothing of it having committed; the table busy past the lock timeout,
    or any other statement failing (a trigger raising), is refused with a message,
    nothing changed. A COMMIT whose answer was lost is looked up on a fresh
    connection: committed, the action's result is returned and its on-commit work
    (its frames) runs; not committed, it runs again as above.
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in (1, 2):
            try:
                return _attempt(func, *args, **kwargs)
            except _RunAgain as again:
                log.warning("%s: attempt %d failed: %s", func.__name__, attempt, again.reason)
        raise _try_again()

    return wrapper


class _RunAgain(Exception):
    """Nothing of the attempt committed, and another may work."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _attempt[**P, R](func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """One run of the action in its transaction (see _atomic_action)."""
    result: list[R] = []
    try:
        # The writes go to the database together, with the transaction's
        # BEGIN and COMMIT (games.storage.transactions).
        with transactions.action_transaction():
            result.append(func(*args, **kwargs))
        return result[0]
    except transactions.CommitUnknown as lost:
        committed = lost.committed()
        if committed and result:
            log.warning("%s: the COMMIT's answer was lost, but it committed", func.__name__)
            for hook in lost.hooks:
                try:
                    hook()
                except Exception:
                    log.exception("%s: on-commit work failed", func.__name__)
            return result[0]
        if committed is False:
            raise _RunAgain("the COMMIT's answer was lost and it did not commit") from lost
        log.error("%s: the COMMIT's answer was lost, its outcome unknown", func.__name__)
        raise _try_again() from lost
    except IntegrityError as error:
        if integrity.is_lost_race(error):
            raise ActionError(_("That move was already made."), 409) from None
        log.exception(
            "%s broke the database constraint %s",
            func.__name__,
            integrity.constraint_name(error) or "(unknown)",
        )
        raise
    except DatabaseError as error:
        sqlstate = sqlstate_of(error)
        if sqlstate in BUSY:
            log.warning("%s: the table is busy (%s): %s", func.__name__, sqlstate, error)
            raise _busy() from error
        if sqlstate in TRANSIENT or connection_lost(error):
            raise _RunAgain(f"{sqlstate or type(error).__name__}: {error}") from error
        log.exception("%s: a statement failed", func.__name__)
        raise _try_again() from error


# -- tables and seats -----------------------------------------------------------


@_atomic_action
def create_table(user: Any, *, ghost: bool = True, turn_clock: int = 0) -> Table:
    if turn_clock not in dict(TURN_CLOCK_CHOICES):
        raise ActionError(_("Choose a turn clock from the list."), 400)
    table = Table.objects.create(host=user, ghost=ghost, turn_clock=turn_clock)
    Seat.objects.create(table=table, user=user, position=1)
    return table


def _level(level: Any) -> str:
    if level not in ComputerLevel.values:
        raise ActionError(_("Choose the computer player's level: Easy, Normal or Strong."), 400)
    return str(level)


def _seat_computer(table: Table, seats: list[Seat], level: str) -> Seat:
    taken = {seat.user.username for seat in seats}
    number = computer_seats.free_number(taken)
    seat = Seat.objects.create(
        table=table,
        user=computer_seats.account(number),
        position=len(seats) + 1,
        computer=level,
    )
    seats.append(seat)
    return seat


@_atomic_action
def add_computer(user: Any, table_id: int, version: int, level: str) -> Table:
    """The host seats a computer player of ``level`` at a free seat before the start."""
    level = _level(level)
    table = _lock(table_id)
    _seat(table, user)
    if table.host_id != user.pk:
        raise ActionError(_("Only the host can add a computer player."), 403)
    _check_version(table, version)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    refusal = join_refusal(table, len(seats))
    if refusal is not None:
        raise refusal
    _seat_computer(table, seats, level)
    return _bump(table)


@_atomic_action
def remove_computer(user: Any, table_id: int, version: int, seat_id: Any) -> Table:
    """The host takes a computer player off its seat before the start."""
    table = _lock(table_id)
    _seat(table, user)
    if table.host_id != user.pk:
        raise ActionError(_("Only the host can remove a computer player."), 403)
    _check_version(table, version)
    if table.status != Table.Status.WAITING:
        raise ActionError(_("The game has started: its players stay until the end."), 409)
    seats = list(Seat.objects.filter(table=table).order_by("position"))
    key = parse_int(seat_id, _("The seat"))
    seat = next((s for s in seats if s.pk == key and s.is_computer), None)
    if seat is None:
        raise ActionError(_("There is no such computer player at this table."), 404)
    seat.delete()
    # Keep positions contiguous, moving seats down one by one (see leave_table).
    for other in seats:
        if other.position > seat.position:
            other.position -= 1
            other.save(update_fields=["position"])
    return _bump(table)


@_atomic_action
def start_practice(user: Any, computers: Any, level: Any) -> Table:
    """A practice game: ``user`` and 1 to 7 computer players of ``level``, started at once."""
    count = parse_int(computers, _("The number of computer players"))
    if not 1 <= count < MAX_SEATS:
        raise ActionError(
            _("Choose between 1 and %(n)d computer players.") % {"n": MAX_SEATS - 1}, 400
        )
    level = _level(level)
    table = Table.objects.create(host=user)
    seats = [Seat.objects.create(table=table, user=user, position=1)]
    for _n in range(count):
        _seat_computer(table, seats, level)
    _start(table, seats)
    return _bump(table)


@_atomic_action
def hand_over(user: Any, table_id: int, version: int, seat_id: Any) -> Table:
    """Let the computer (Normal) play an away player's seat until they are back (issue 48):
    the host may, or while the host is away every other player present."""
    table, seats = _lock_with_seats(table_id)
    mover = _seat(table, user, seats)
    if table.status != Table.Status.PLAYING:
        raise ActionError(_("This game is not in progress."), 409)
    _check_version(table, version)
    key = parse_int(seat_id, _("The seat"))
    seat = next((s for s in seats if s.pk == key), None)
    if seat is None or seat.is_computer:
        raise ActionError(_("There is no such player at this table."), 404)
    if seat.handed_over:
        raise ActionError(_("The computer already plays for %(name)s.") % {"name": seat.name}, 409)
    away = hosting.away(table, seats)
    if seat.pk not in away:
        raise ActionError(
            _("%(name)s is not away: only an away player's seat can be handed over.")
            % {"name": seat.name},
            409,
        )
    if not hosting.may_hand_over(table, seats, mover, away):
        raise ActionError(
            _("Only the host, or while the host is away the other players, can do this."), 403
        )
    seat.handed_over = True
    save_fields(seat, ("handed_over",))
    return _reschedule(table, seats)


@_atomic_action
def take_back(user: Any, table_id: int) -> Table:
    """A player whose seat the computer played while they were away takes it back."""
    table, seats = _lock_with_seats(table_id)
    seat = _seat(table, user, seats)
    if not seat.handed_over:
        raise ActionError(_("Your seat is yours: the computer is not playing it."), 409)
    seat.handed_over = False
    save_fields(seat, ("handed_over",))
    return _reschedule(table, seats)


def _reschedule(table: Table, seats: list[Seat]) -> Table:
    """A seat changed hands: the computer's next move is due at another time."""
    state = _game_state(table, seats)
    _schedule(state, turn_began=False)
    return _bump(table)


def join_refusal(table: Table, seated: int) -> ActionError | None:
    """Why a newcomer cannot take a seat at this table now (None: they can)."""
    if table.is_over:
        return ActionError(_("This game is over: nobody can join it now."), 409)
    if table.status != Table.Status.WAITING:
        return ActionError(_("This game has already started: nobody can join it now."), 409)
    if seated >= MAX_SEATS:
        return ActionError(
            _("This table is full: %(count)d players is the most.") % {"count": MAX_SEATS}, 409
        )
    return None


@_atomic_action
def join_table(user: Any, token: str) -> Table:
    table_id = Table.objects.filter(invite_token=str(token)[:64]).values_list("pk", flat=True)
    if not table_id:
        raise ActionError(_("This invite link is not valid (it may have been replaced)."), 404)
    table = _lock(table_id[0])
    seats = list(Seat.objects.filter(table=table).order_by("position"))
    if any(seat.user_id == user.pk for seat in seats):
        return table  # already seated: opening the link again just shows the table
    refusal = join_refusal(table, len(seats))
    if refusal is not None:
        raise refusal
    Seat.objects.create(table=table, user=user, position=len(seats) + 1)
    return _bump(table)


@_atomic_action
def rotate_invite(user: Any, table_id: int) -> Table:
    table = _lock(table_id)
    _seat(table, user)
    if table.host_id != user.pk:
        raise ActionError(_("Only the host can replace the invite link."), 403)
    if table.status != Table.Status.WAITING:
        raise ActionError(_("The game has started; the invite link no longer works."), 409)
    return _bump(table, invite_token=new_invite_token())


@_atomic_action
def leave_table(user: Any, table_id: int, *, confirmed: bool = False) -> Table:
    """Leave a table; in a game in progress only with ``confirmed`` (it cancels the game).

    The status is read under the lock: a plain "Leave" from a page of a waiting
    table that the host started meanwhile is refused, not turned into a cancel.
    """
    table = _lock(table_id)
    seat = _seat(table, user)
    if table.status == Table.Status.WAITING:
        if seat.position == 1:
            # The host leaving an unstarted table closes it: nobody else may start it.
            return _bump(table, status=Table.Status.CANCELLED, cancelled_by=user, phase="")
        later = list(
            Seat.objects.filter(table=table, position__gt=seat.position).order_by("position")
        )
        seat.delete()
        departed = (user.pk,)
        # Keep positions contiguous (join order), moving seats down one by one
        # so the (table, position) constraint holds at every step.
        for other in later:
            other.position -= 1
            other.save(update_fields=["position"])
        _save_version(table)
        outcome.on_commit(outcome.Outcome(table, outcome.Change.TABLE, departed=departed))
        return table
    if table.status == Table.Status.PLAYING:
        if not confirmed:
            raise NeedsConfirmation(
                _(
                    "This game is in progress: if you leave, it is cancelled for everyone. "
                    "Confirm to leave."
                ),
                409,
            )
        # R11: leaving a game in progress cancels it for everyone.
        return _bump(table, status=Table.Status.CANCELLED, cancelled_by=user, phase="")
    raise ActionError(_("This game is over already."), 409)


@_atomic_action
def cancel_table(user: Any, table_id: int, *, reason: str = "", note: str = "") -> Table:
    """Staff (from the admin) stop a table that is waiting or in progress (issue 50).

    ``reason``: one of CancelReason ("" for none); with "other", ``note`` is the staff
    member's own words. The players read it in the status line; the admin log keeps it.
    """
    if not (getattr(user, "is_staff", False) and user.has_perm("games.cancel_table")):
        raise ActionError(_("Only staff can cancel a table."), 403)
    reason, note = _cancel_reason(reason, note)
    table = _lock(table_id)
    if table.is_over:
        raise ActionError(_("This game is over already."), 409)
    _bump(
        table,
        status=Table.Status.CANCELLED,
        cancelled_by=user,
        phase="",
        cancel_reason=reason,
        cancel_note=note,
    )
    with translation.override("en"):
        said = table.cancel_reason_text
    _audit(user, table, f"Cancelled the table. Reason: {said}" if said else "Cancelled the table.")
    return table


def _cancel_reason(reason: Any, note: Any) -> tuple[str, str]:
    """A cancel's reason and note, checked: a reason from the list, words with "other"."""
    reason = str(reason or "")
    note = " ".join(str(note or "").split())
    if reason and reason not in CancelReason.values:
        raise ActionError(_("Choose a reason from the list."), 400)
    if reason != CancelReason.OTHER:
        return reason, ""
    if not note:
        raise ActionError(_("Say why the table is cancelled."), 400)
    limit = Table._meta.get_field("cancel_note").max_length
    if len(note) > limit:
        raise ActionError(_("A reason has at most %(n)s characters.") % {"n": limit}, 400)
    return reason, note


def _audit(user: Any, obj: Any, message: str) -> None:
    """Write a staff action to Django's admin log (the object's History page), in the
    action's transaction: no action without its entry, no entry without its action."""
    LogEntry.objects.log_actions(user.pk, [obj], CHANGE, message, single_object=True)


@_atomic_action
def start_game(user: Any, table_id: int, version: int) -> Table:
    table = _lock(table_id)
    _seat(table, user)
    if table.host_id != user.pk:
        raise ActionError(_("Only the host can start the game."), 403)
    _check_version(table, version)
    if table.status != Table.Status.WAITING:
        raise ActionError(_("The game has already started."), 409)
    humans = Seat.objects.filter(table=table).count()
    if humans < rules.HUMAN_MIN:
        raise ActionError(
            _("At least %(n)d players are needed to start.") % {"n": rules.HUMAN_MIN}, 409
        )
    _start(table)
    return _bump(table)


def _start(table: Table, seats: list[Seat] | None = None) -> None:
    """Deal the first round: the game is on (R2, R8)."""
    if seats is None:
        seats = list(Seat.objects.filter(table=table).order_by("position"))
    table.uses_ghost = rules.uses_ghost(table.ghost, len(seats))
    table.status = Table.Status.PLAYING
    table.started_at = timezone.now()
    _begin_round(table, 1, seats)


def _begin_round(table: Table, number: int, seats: list[Seat] | None = None) -> GameState:
    """Deal round ``number`` (R2, R3); the game as dealt. ``seats``: the table's seats
    in order, as read with the lock (None: read them here)."""
    if seats is None:
        seats = list(Seat.objects.filter(table=table).order_by("position"))
    humans = len(seats)
    dealer, opener = rules.dealer_and_opener(number, humans)
    seed = _round_seed(table, number)
    game_round = insert(
        Round(
            table=table,
            number=number,
            cards_dealt=rules.cards_per_round(number, humans),
            dealer=seats[dealer],
            opener=seats[opener],
            seed=seed,
            dealt_at_version=table.version + 1,  # the caller bumps the version once
        )
    )
    deal = rules.deal(seed, number, humans, table.uses_ghost)
    rows = [
        HandCard(round=game_round, seat=seats[i], card=str(c), deal_order=order)
        for i, hand in enumerate(deal.hands)
        for order, c in enumerate(hand)
    ]
    rows += [
        HandCard(round=game_round, seat=None, card=str(c), deal_order=order)
        for order, c in enumerate(deal.ghost_hand)
    ]
    insert_many(rows)
    table.round_number = number
    table.phase = Table.Phase.BIDDING
    # The new round's rows are the ones just written: the state is built from them,
    # as state.load_state would read them (hands by seat, the ghost's under None,
    # in deal order), so the push after the commit reads nothing again.
    dealt = GameState(table=table, seats=seats, round=game_round)
    for hand_card in rows:
        dealt.hands.setdefault(hand_card.seat_id, []).append(hand_card)
    _schedule(dealt, turn_began=True)  # every bid's wait starts at the deal (R4)
    return dealt


# -- bidding and playing ----------------------------------------------------------


def _check_mover(state: GameState, seat: Seat, by_computer: bool) -> None:
    """A move made by the computer must be one that is due (games.play.turns); a person's
    own move on a seat handed to the computer takes the seat back (issue 48)."""
    if by_computer:
        if seat not in turns.due_now(state, timezone.now()):
            raise ActionError(_("That move is not the computer's to make now."), 409)
    elif seat.is_computer:
        raise ActionError(_("A computer player's moves are its own."), 403)
    elif seat.handed_over:
        seat.handed_over = False
        save_fields(seat, ("handed_over",))


@_atomic_action
def place_bid(
    user: Any, table_id: int, version: int, value: int, *, by_computer: bool = False
) -> Table:
    """``by_computer``: the computer bids for this seat (games.computer.moves)."""
    table, seats = _lock_with_seats(table_id)
    state = _game_state(table, seats)
    seat = _seat(table, user, state.seats)
    _check_playing(table, Table.Phase.BIDDING)
    assert state.round is not None
    # Bids are simultaneous (R4): another player's bid does not make yours stale,
    # but a form from before this round's deal does.
    if not state.round.dealt_at_version <= version <= table.version:
        _check_version(table, version)
    if seat.pk in state.bids:
        raise ActionError(_("You have already bid this round; a bid is final."), 409)
    if isinstance(value, bool) or value not in rules.valid_bids(state.round.cards_dealt):
        raise ActionError(
            _("Your bid must be between 0 and %(n)s.") % {"n": state.round.cards_dealt}, 400
        )
    _check_mover(state, seat, by_computer)
    bid = insert(Bid(round=state.round, seat=seat, value=value, by_computer=by_computer))
    state.bids[seat.pk] = bid
    state.moved.add(seat.pk)
    if state.all_bids_in:
        # R4: the last bid reveals all bids at once; the opener leads trick 1.
        table.phase = Table.Phase.PLAYING
        state.begin_trick(
            insert(
                Trick(round=state.round, number=1, leader_id=state.round.opener_id),
                key_now=True,  # the state keys the trick's plays by it
            )
        )
    return _bump_move(state)


@_atomic_action
def play_card(
    user: Any,
    table_id: int,
    version: int,
    card: str,
    tigress_as: str = "",
    *,
    by_computer: bool = False,
) -> Table:
    """``by_computer``: the computer plays for this seat (games.computer.moves)."""
    table, seats = _lock_with_seats(table_id)
    state = _game_state(table, seats)
    seat = _seat(table, user, state.seats)
    _check_version(table, version)
    _check_playing(table, Table.Phase.PLAYING)
    if state.seat_to_play() != seat:
        raise ActionError(_("It is not your turn."), 409)
    play = _play_from_hand(state, seat, card, tigress_as)
    if play.card not in rules.legal_cards(state.hand_of(seat), state.engine_trick()):
        raise ActionError(_("You must follow the suit that was led (or play a special card)."), 400)
    _check_mover(state, seat, by_computer)
    _record_play(state, seat, play, by_computer=by_computer)
    _advance(state)
    return _bump_move(state)


def _play_from_hand(state: GameState, seat: Seat, card: str, tigress_as: str) -> rules.Play:
    """The posted card and Tigress choice as a play of a card this seat holds (else a 400)."""
    try:
        chosen = rules.card(str(card).strip())
    except ValueError:
        raise ActionError(_("There is no such card."), 400) from None
    try:
        play = rules.Play(chosen, as_=(tigress_as or None))
    except ValueError:
        if rules.needs_choice(chosen):
            message = _("Choose whether the Tigress is played as a pirate or as an escape.")
        else:
            message = _("Only the Tigress is played as a pirate or an escape.")
        raise ActionError(message, 400) from None
    if chosen not in state.hand_of(seat):
        raise ActionError(_("That card is not in your hand."), 400)
    return play


@_atomic_action
def preselect_card(
    user: Any, table_id: int, version: int, card: str, tigress_as: str = ""
) -> Table:
    """Choose the card to play when your turn comes, or clear the choice (``card`` empty).

    The choice is private and changes nothing anyone else sees, so the table's
    version stays: nobody's open form goes stale. Only the chooser's own regions
    are pushed. Whether the card is legal is decided when the turn comes (R5).
    """
    table, seats = _lock_with_seats(table_id)
    state = _game_state(table, seats)
    seat = _seat(table, user, state.seats)
    if table.status != Table.Status.PLAYING or table.phase not in (
        Table.Phase.PLAYING,
        Table.Phase.TRICK_DONE,
    ):
        raise ActionError(_("You can choose your next card only while the tricks are played."), 409)
    assert state.round is not None
    if not state.round.dealt_at_version <= version <= table.version:
        raise ActionError(
            _("The table has moved on since you loaded it; here is the current state."), 409
        )
    if state.seat_to_play() == seat:
        raise ActionError(_("It is your turn: play your card now."), 409)
    current = state.preselected(seat)
    if not str(card).strip():
        if current is None:
            raise ActionError(_("You have not chosen a next card."), 409)
        _mark_preselected(state, seat, None)
    else:
        play = _play_from_hand(state, seat, card, tigress_as)
        if current == play:
            raise ActionError(_("That card is already your next card."), 409)
        _mark_preselected(state, seat, play)
    # The version stays (see above); the revision tells other processes' kept states
    # that a hand changed (games.storage.state_cache).
    table.revision += 1
    save_fields(table, ("revision",))
    outcome.on_commit(outcome.Outcome(table, outcome.Change.SEAT, state, seat=seat))
    state_cache.keep_on_commit(state)
    return table


def _mark_preselected(
    state: GameState, seat: Seat, play: rules.Play | None, *, refused: str = ""
) -> None:
    """Make ``play`` the seat's only preselected card (None: none); ``refused``: the card
    whose choice R5 just forbade (its owner is told), else no card is marked so."""
    for hand_card in state.hands.get(seat.pk, []):
        chosen = play is not None and hand_card.card == str(play.card)
        choice = (play.as_ or "") if chosen and play is not None else ""
        was_refused = hand_card.card == refused
        if (hand_card.preselected, hand_card.preselected_as, hand_card.preselect_refused) != (
            chosen,
            choice,
            was_refused,
        ):
            hand_card.preselected, hand_card.preselected_as = chosen, choice
            hand_card.preselect_refused = was_refused
            hand_card.save(update_fields=["preselected", "preselected_as", "preselect_refused"])


def _record_play(
    state: GameState, seat: Seat | None, play: rules.Play, *, by_computer: bool = False
) -> None:
    assert state.round is not None and state.trick is not None
    key = None if seat is None else seat.pk
    hand_card = next(h for h in state.hands[key] if h.card == str(play.card))
    hand_card.played = True
    fields = ["played"]
    if hand_card.preselected:  # a choice made in advance is used up by the play
        hand_card.preselected, hand_card.preselected_as = False, ""
        fields += ["preselected", "preselected_as"]
    save_fields(hand_card, fields)
    if seat is not None and state.refused_preselection(seat):
        _mark_preselected(state, seat, None)  # the refused choice is told no more
    state.hands[key].remove(hand_card)
    state.moved.add(key)
    state.plays.append(
        insert(
            Play(
                trick=state.trick,
                round=state.round,
                seat=seat,
                card=str(play.card),
                tigress_as=play.as_ or "",
                order=len(state.plays),
                by_computer=by_computer,
            )
        )
    )


def _advance(state: GameState) -> None:
    """Play the turns nobody has to wait for, then close the trick once everyone played.

    The ghost plays its pile (R8); a player who chose their next card in advance
    has it played now if it is legal (R5), and loses the choice if it is not.
    """
    while (index := state.next_to_play()) is not None:
        if index == GHOST:
            _record_play(state, None, rules.ghost_play(state.hand_of(None)))
            continue
        seat = state.seats[index]
        play = state.preselected(seat)
        if play is None:
            return
        if play.card not in rules.legal_cards(state.hand_of(seat), state.engine_trick()):
            _mark_preselected(state, seat, None, refused=str(play.card))
            return
        _record_play(state, seat, play)
    _finish_trick(state)


#: What resolving a trick sets on it (R6, R7).
TRICK_RESULT = ("complete", "bonus", "destroyed_by", "winner", "won_by_ghost", "next_leader")


def _finish_trick(state: GameState) -> None:
    table, game_round, trick = state.table, state.round, state.trick
    assert game_round is not None and trick is not None
    order = state.play_order()
    result = rules.resolve_trick(state.engine_trick())
    trick.complete = True
    trick.bonus = result.bonus
    trick.destroyed_by = result.destroyed_by or ""
    if result.winner is not None:
        winner = state.seat_at(order[result.winner])
        trick.winner = winner
        trick.won_by_ghost = winner is None
    trick.next_leader = state.seat_at(order[result.next_leader])
    save_fields(trick, TRICK_RESULT)
    if trick.number < game_round.cards_dealt:
        table.phase = Table.Phase.TRICK_DONE
        return
    _score_round(state)
    if game_round.number == rules.ROUNDS:
        table.status = Table.Status.FINISHED
        table.phase = Table.Phase.ROUND_DONE
        table.finished_at = timezone.now()
    else:
        table.phase = Table.Phase.ROUND_DONE


def _score_round(state: GameState) -> None:
    game_round = state.round
    assert game_round is not None
    won = state.tricks_won()
    previous = {s.seat_id: s.running_total for s in state.scores}
    rows = []
    for seat in state.seats:
        score = rules.score_round(
            state.bids[seat.pk].value,
            won.get(seat.pk, 0),
            game_round.cards_dealt,
            state.bonus_won(seat),
        )
        rows.append(
            RoundScore(
                round=game_round,
                seat=seat,
                bid=state.bids[seat.pk].value,
                won=won.get(seat.pk, 0),
                base=score.base,
                bonus=score.bonus,
                total=score.total,
                running_total=previous.get(seat.pk, 0) + score.total,
            )
        )
    insert_many(rows)
    state.scores = [*state.scores, *rows]


# -- the host moves the table on (R11) -----------------------------------------------


def _lock_for_host(user: Any, table_id: int, version: int, phase: str) -> tuple[Table, list[Seat]]:
    """Lock the table for its host, at the version they saw, in the phase they confirm;
    with its seats."""
    table, seats = _lock_with_seats(table_id)
    seat = _seat(table, user, seats)
    # The host, or while the host is away the next player present (games.play.hosting).
    if table.host_id != user.pk and hosting.acting_host(table, seats) != seat:
        raise ActionError(_("Only the host moves the table on; please wait for them."), 403)
    _check_version(table, version)
    _check_playing(table, phase)
    return table, seats


@_atomic_action
def next_trick(user: Any, table_id: int, version: int) -> Table:
    table, seats = _lock_for_host(user, table_id, version, Table.Phase.TRICK_DONE)
    state = _game_state(table, seats)
    assert state.round is not None and state.trick is not None
    previous = state.trick
    trick = insert(
        Trick(round=state.round, number=previous.number + 1, leader_id=previous.next_leader_id),
        key_now=True,  # the state keys the trick's plays by it
    )
    state.begin_trick(trick)
    table.phase = Table.Phase.PLAYING
    _advance(state)  # the ghost leads at once if it won the last trick
    return _bump_move(state)


@_atomic_action
def next_round(user: Any, table_id: int, version: int) -> Table:
    table, seats = _lock_for_host(user, table_id, version, Table.Phase.ROUND_DONE)
    ended = state_cache.take(table, seats)  # the round just scored, as this process left it
    state = _begin_round(table, table.round_number + 1, seats)
    if ended is not None:
        state._scores = ended._scores  # the scores so far, the round just ended included
    # The columns a deal changes, as a compiled write: it waits in the batch and goes
    # with the hand cards and the COMMIT (games.storage.transactions).
    _save_version(table, fields=DEAL_FIELDS)
    # This state is the next move's (a bid), from the cache.
    outcome.on_commit(outcome.Outcome(table, outcome.Change.DEAL, state))
    state_cache.keep_on_commit(state)
    return table


# -- chat (R11: seated players only) ---------------------------------------------------


def post_chat(user: Any, table_id: int, text: str) -> ChatMessage:
    """Post a message. Chat changes no game row: no table lock, and no transaction for a refusal.

    A move in progress holds the table lock for its whole transaction; chat does
    not wait for it. The rate limit is checked before anything is written.
    """
    text = str(text or "").strip()
    # The table, the user's seat and their mute, if any, in one read (None: no such table).
    table = None
    if isinstance(table_id, int) and 0 < table_id <= MAX_DB_ID:
        seated = Seat.objects.filter(table=OuterRef("pk"), user_id=user.pk)
        mute = (
            ChatMute.objects.filter(user_id=user.pk, until__gt=timezone.now())
            .filter(Q(table__isnull=True) | Q(table_id=OuterRef("pk")))
            .order_by("-until")
            .values("until")[:1]
        )
        table = (
            Table.objects.filter(pk=table_id)
            .annotate(seated=Exists(seated), muted_until=Subquery(mute))
            .first()
        )
    if table is None:
        raise ActionError(_("There is no such table."), 404)
    if not table.seated:
        raise ActionError(_("You are not seated at this table."), 403)
    if table.is_over:
        # Issue 50: a finished or cancelled table's chat is read-only, for everyone.
        raise ActionError(_("This game is over: its chat is closed."), 409)
    if table.muted_until is not None:
        until = formats.date_format(timezone.localtime(table.muted_until), "DATETIME_FORMAT")
        raise ActionError(_("You are muted until %(until)s (UTC).") % {"until": until}, 403)
    if not text:
        raise ActionError(_("Write something before sending."), 400)
    if len(text) > CHAT_MAX_LENGTH:
        raise ActionError(
            _("A message has at most %(n)s characters.") % {"n": CHAT_MAX_LENGTH}, 400
        )
    # Every message makes every seated socket re-render: a flood would slow the table.
    if not ratelimit.hit("chat", str(user.pk), CHAT_BURST, CHAT_BURST_SECONDS):
        raise ActionError(_("You are sending messages too fast; wait a few seconds."), 429)
    message = ChatMessage.objects.create(table=table, author=user, text=text)
    # Chat does not bump the version: a message must not turn a player's
    # pending move into a stale one. The push sends the chat log alone (after
    # the commit, when the caller runs in a transaction).
    outcome.on_commit(outcome.Outcome(table, outcome.Change.CHAT))
    return message


# -- chat moderation (issue 50): staff hide a message and restore it ---------------------


def _locked_message(user: Any, message_id: Any) -> ChatMessage:
    if not (getattr(user, "is_staff", False) and user.has_perm("games.hide_chatmessage")):
        raise ActionError(_("Only moderators can hide or restore chat messages."), 403)
    try:
        key = int(message_id)
    except (ValueError, TypeError, OverflowError):
        key = 0
    found = None
    if 0 < key <= MAX_DB_ID:
        found = (
            ChatMessage.objects.select_for_update(of=("self",))
            .select_related("table", "author")
            .filter(pk=key)
            .first()
        )
    if found is None:
        raise ActionError(_("There is no such message."), 404)
    return found


def _moderation_reason(reason: Any) -> str:
    reason = " ".join(str(reason or "").split())
    if len(reason) > MODERATION_REASON_LENGTH:
        raise ActionError(
            _("A reason has at most %(n)s characters.") % {"n": MODERATION_REASON_LENGTH}, 400
        )
    return reason


@_atomic_action
def hide_chat_message(user: Any, message_id: Any, reason: str = "") -> ChatMessage:
    """A moderator hides a message: every page shows "message removed by staff" in its
    place, live (the chat log is pushed as for a new message; the version stays)."""
    reason = _moderation_reason(reason)
    message = _locked_message(user, message_id)
    if message.hidden_at is not None:
        raise ActionError(_("This message is hidden already."), 409)
    message.hidden_at, message.hidden_by = timezone.now(), user
    message.save(update_fields=["hidden_at", "hidden_by"])
    _audit(user, message, f"Hidden. Reason: {reason}" if reason else "Hidden.")
    outcome.on_commit(outcome.Outcome(message.table, outcome.Change.CHAT))
    return message


@_atomic_action
def restore_chat_message(user: Any, message_id: Any, reason: str = "") -> ChatMessage:
    """A moderator shows a hidden message again, on every page, live."""
    reason = _moderation_reason(reason)
    message = _locked_message(user, message_id)
    if message.hidden_at is None:
        raise ActionError(_("This message is not hidden."), 409)
    message.hidden_at, message.hidden_by = None, None
    message.save(update_fields=["hidden_at", "hidden_by"])
    _audit(user, message, f"Restored. Reason: {reason}" if reason else "Restored.")
    outcome.on_commit(outcome.Outcome(message.table, outcome.Change.CHAT))
    return message


# =====================================================================================
# After the game (issue 14): rematch proposals. New functions only, appended here so
# that edits to the functions above do not collide with them.
# =====================================================================================


def round_seed(table_seed: int, number: int) -> int:
    """The shuffle seed of round ``number`` at a table seeded ``table_seed`` (as dealt above).

    For the game record (games.after.record), which re-deals every round from the seed alone.
    """
    return _round_seed(Table(seed=table_seed), number)


# Imported here, not at the top, to keep this section self-contained.
from games.models import Rematch, RematchAcceptance  # noqa: E402


def _lock_finished_for_player(user: Any, table_id: int) -> tuple[Table, Seat]:
    table = _lock(table_id)
    seat = _seat(table, user)
    if table.status != Table.Status.FINISHED:
        raise ActionError(_("A rematch is only possible once the game is over."), 409)
    return table, seat


def _open_rematch(table: Table, rematch_id: int) -> Rematch:
    rematch = Rematch.objects.filter(table=table, pk=rematch_id).first()
    if rematch is None:
        raise ActionError(_("There is no such rematch proposal at this table."), 404)
    if rematch.status == Rematch.Status.DECLINED:
        raise ActionError(_("This rematch proposal was declined; here is the current state."), 409)
    if rematch.status == Rematch.Status.ACCEPTED:
        raise ActionError(_("Everyone has accepted this rematch already."), 409)
    return rematch


def _start_rematch_table(table: Table, rematch: Rematch) -> Table:
    """Everyone said yes: the same host, options and players in the same seats, waiting."""
    new_table = Table.objects.create(host_id=table.host_id, ghost=table.ghost)
    old_seats = Seat.objects.filter(table=table).order_by("position")
    Seat.objects.bulk_create(
        [Seat(table=new_table, user_id=s.user_id, position=s.position) for s in old_seats]
    )
    rematch.status = Rematch.Status.ACCEPTED
    rematch.new_table = new_table
    rematch.save(update_fields=["status", "new_table"])
    return new_table


@_atomic_action
def propose_rematch(user: Any, table_id: int, version: int) -> Rematch:
    """A player of a finished game proposes to play again (and so accepts it themselves)."""
    table, seat = _lock_finished_for_player(user, table_id)
    _check_version(table, version)
    live = Rematch.objects.filter(table=table).exclude(status=Rematch.Status.DECLINED).first()
    if live is not None:
        raise ActionError(_("A rematch has already been proposed; here is the current state."), 409)
    rematch = Rematch.objects.create(table=table, proposed_by_id=user.pk)
    RematchAcceptance.objects.create(rematch=rematch, seat=seat)
    _bump(table)
    return rematch


@_atomic_action
def accept_rematch(user: Any, table_id: int, rematch_id: int) -> Rematch:
    """One click: this player is in. The last yes creates the new table (not started)."""
    table, seat = _lock_finished_for_player(user, table_id)
    rematch = _open_rematch(table, rematch_id)
    accepted = set(rematch.acceptances.values_list("seat_id", flat=True))
    if seat.pk in accepted:
        raise ActionError(_("You have already accepted this rematch."), 409)
    RematchAcceptance.objects.create(rematch=rematch, seat=seat)
    accepted.add(seat.pk)
    seat_ids = set(Seat.objects.filter(table=table).values_list("pk", flat=True))
    if accepted >= seat_ids:
        _start_rematch_table(table, rematch)
    _bump(table)
    return rematch


@_atomic_action
def decline_rematch(user: Any, table_id: int, rematch_id: int) -> Rematch:
    """Any player says no (the proposer withdraws the same way): nobody is seated anywhere."""
    table, _seat_row = _lock_finished_for_player(user, table_id)
    rematch = _open_rematch(table, rematch_id)
    rematch.status = Rematch.Status.DECLINED
    rematch.declined_by_id = user.pk
    rematch.save(update_fields=["status", "declined_by"])
    _bump(table)
    return rematch
