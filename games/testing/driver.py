"""One random-move driver: tests, ``manage.py simulate_tables`` and benchmarks choose alike.

The CHOICE of a move is a pure function of a random generator and what ONE player
can see on their page::

    options = Options(bids=(0, 1, 2))              # the bid buttons
    options = Options(cards=("G3", "TIG"))         # the playable cards (their turn)
    options = Options(next_trick=True)             # the host's "Next trick" button
    move = choose_move(rng, options)               # Move("bid", value=1), Move("play",
                                                   # card="TIG", tigress_as="pirate"), ...

``choose_move`` returns None when the options offer nothing. It draws from ``rng``
in a fixed way (a bid: ``rng.choice(bids)``; a card: ``rng.choice`` over the cards in
deck order, then ``rng.choice((PIRATE, ESCAPE))`` for the Tigress), so a seed replays
the same game whoever reads the options. Two readers of the options are here:

- ``options_of(state, seat)``: from the read model (games.play.state), as the page shows them;
- ``options_from_page(html)``: from the table page's own forms (an HTTP client or a
  benchmark playing over HTTP sees exactly the page).

A move is sent either through the actions or as a form:

- ``apply_move(table, user, move)`` calls games.play.actions and returns the saved table;
- ``move.url_name`` and ``move.form(version)`` are the URL name (``reverse(name,
  args=[table_id])``) and the POST data the page's own form would send.

The action driver on top (who moves is the game's business, not the chooser's):

- ``next_move(table, rng, any_bid_order=False, check=None)`` -> (user, Move) or None
  when the game is over: the seat whose turn it is, the first seat that has not bid
  (or a random one with ``any_bid_order``: bids are simultaneous, R4), or the host
  (R11). ``check(state)`` sees the loaded state before every choice (the simulator
  cross-checks the read model against the engine there);
- ``random_move(table, rng)``: one such move, applied; None when the game is over;
- ``play_until(table, rng, done, after=None, limit=5000)``: moves until ``done(table)``
  (default: the game is over); ``after(table)`` runs after each move;
- ``at_phase(phase, round_number=None)``: a ``done`` for play_until.

When the game cannot go on as asked (nobody has a move, the condition never comes)
they raise ``DriverError``, an AssertionError, so a test fails with the reason.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games import rules
from games.models import Seat, Table
from games.play import actions
from games.play.state import GameState, load_state

Kind = Literal["bid", "play", "next_trick", "next_round"]
URL_NAMES: dict[str, str] = {
    "bid": "place_bid",
    "play": "play_card",
    "next_trick": "next_trick",
    "next_round": "next_round",
}
MAX_MOVES = 5000  # far above the ~700 moves of an 8-player game


class DriverError(AssertionError):
    """The game cannot go on as asked (no move for whoever is to move, no end in sight)."""


@dataclass(frozen=True)
class Options:
    """What one player's page offers now (at most one kind is non-empty at a time)."""

    bids: Sequence[int] = ()  # the bid buttons, while this player has not bid (R4)
    cards: Sequence[str] = ()  # card codes this player may play now (R5): their turn
    next_trick: bool = False  # the host's button after a trick (R11)
    next_round: bool = False  # the host's button after a round (R11)

    def __bool__(self) -> bool:
        return bool(self.bids or self.cards or self.next_trick or self.next_round)


@dataclass(frozen=True)
class Move:
    kind: Kind
    value: int | None = None  # the bid
    card: str = ""
    tigress_as: str = ""  # rules.PIRATE / rules.ESCAPE for the Tigress, else ""

    @property
    def url_name(self) -> str:
        return URL_NAMES[self.kind]

    def form(self, version: int) -> dict[str, str]:
        """The POST data of the page's form for this move at ``version``."""
        data = {"version": str(version)}
        if self.kind == "bid":
            data["value"] = str(self.value)
        elif self.kind == "play":
            data["card"] = self.card
            if self.tigress_as:
                data["tigress_as"] = self.tigress_as
        return data


def choose_move(rng: random.Random, options: Options) -> Move | None:
    """A random move among ``options`` (None when there is none): the only chooser."""
    if options.bids:
        return Move("bid", value=rng.choice(list(options.bids)))
    if options.cards:
        code = rng.choice(sorted(options.cards, key=lambda c: rules.card(c).index))
        tigress_as = ""
        if rules.needs_choice(rules.card(code)):
            tigress_as = rng.choice((rules.PIRATE, rules.ESCAPE))
        return Move("play", card=code, tigress_as=tigress_as)
    if options.next_trick:
        return Move("next_trick")
    if options.next_round:
        return Move("next_round")
    return None


# -- reading the options -------------------------------------------------------------


def options_of(state: GameState, seat: Seat) -> Options:
    """What ``seat``'s page offers, from the read model."""
    table = state.table
    if table.status != Table.Status.PLAYING:
        return Options()
    is_host = seat.user_id == table.host_id
    if table.phase == Table.Phase.BIDDING:
        if state.round is None or seat.pk in state.bids:
            return Options()
        return Options(bids=tuple(rules.valid_bids(state.round.cards_dealt)))
    if table.phase == Table.Phase.PLAYING:
        return Options(cards=tuple(sorted(state.legal_cards(seat))))
    if table.phase == Table.Phase.TRICK_DONE:
        return Options(next_trick=is_host)
    if table.phase == Table.Phase.ROUND_DONE:
        return Options(next_round=is_host)
    return Options()


_BID = re.compile(r'<button[^>]*\sname="value"\s+value="(\d+)"')
# A playable card's button (or hidden input) sends its code; the Tigress's two buttons
# send "TIG:pirate" and "TIG:escape" (the chooser picks the choice itself).
_CARD = re.compile(r'<(?:input|button)[^>]*\sname="card"\s+value="([A-Z0-9]+)(?::[a-z]+)?"')
_HOST_FORM = re.compile(r'<form[^>]*\saction="[^"]*/(next-trick|next-round)/"')


def options_from_page(html: str) -> Options:
    """What a table page (or its #table-content fragment) offers, from its forms.

    Bid buttons (``name="value"``), the playable cards' buttons (``name="card"``; a
    card that is not playable has none) and the host's "Next trick" / "Next round" forms.
    """
    hosts = set(_HOST_FORM.findall(html))
    return Options(
        bids=tuple(sorted({int(v) for v in _BID.findall(html)})),
        cards=tuple(dict.fromkeys(_CARD.findall(html))),
        next_trick="next-trick" in hosts,
        next_round="next-round" in hosts,
    )


# -- the action driver ---------------------------------------------------------------


def next_move(
    table: Table,
    rng: random.Random,
    *,
    any_bid_order: bool = False,
    check: Callable[[GameState], None] | None = None,
) -> tuple[Any, Move] | None:
    """Who moves next and their random move; None when the game is not in progress.

    ``table`` must be current (as returned by the last action, or fresh from the database).
    """
    if table.status != Table.Status.PLAYING:
        return None
    state = load_state(table)
    if check is not None:
        check(state)
    if table.phase == Table.Phase.BIDDING:
        waiting = [seat for seat in state.seats if seat.pk not in state.bids]
        seat = rng.choice(waiting) if any_bid_order else waiting[0]
    elif table.phase == Table.Phase.PLAYING:
        to_play = state.seat_to_play()
        if to_play is None:
            raise DriverError("the ghost's turn was left pending (R8)")
        seat = to_play
    else:
        seat = next(s for s in state.seats if s.user_id == table.host_id)
    move = choose_move(rng, options_of(state, seat))
    if move is None:
        raise DriverError(f"{seat} has no move in phase {table.phase!r}")
    return seat.user, move


def apply_move(table: Table, user: Any, move: Move) -> Table:
    """Make ``move`` as ``user`` through games.play.actions; the table row the action saved."""
    if move.kind == "bid":
        assert move.value is not None
        return actions.place_bid(user, table.pk, table.version, move.value)
    if move.kind == "play":
        return actions.play_card(user, table.pk, table.version, move.card, move.tigress_as)
    if move.kind == "next_trick":
        return actions.next_trick(user, table.pk, table.version)
    return actions.next_round(user, table.pk, table.version)


def _current(table: Table | int) -> Table:
    return Table.objects.get(pk=table if isinstance(table, int) else table.pk)


def random_move(table: Table | int, rng: random.Random, **kwargs: Any) -> Table | None:
    """Make one random legal move; None when the game is over (keywords: ``next_move``'s)."""
    current = _current(table) if isinstance(table, int) else table
    chosen = next_move(current, rng, **kwargs)
    if chosen is None:
        return None
    return apply_move(current, *chosen)


def play_until(
    table: Table | int,
    rng: random.Random,
    done: Callable[[Table], bool] = lambda t: t.status != Table.Status.PLAYING,
    after: Callable[[Table], None] | None = None,
    limit: int = MAX_MOVES,
    **kwargs: Any,
) -> Table:
    """Random legal moves until ``done(table)`` (default: the game is over)."""
    current = _current(table)
    for _ in range(limit):
        if done(current):
            return current
        moved = random_move(current, rng, **kwargs)
        if moved is None:
            raise DriverError("the game ended before the condition was met")
        current = moved  # the action saved and returned the current table row
        if after is not None:
            after(current)
    raise DriverError(f"the condition was never met in {limit} moves")


def at_phase(phase: str, round_number: int | None = None) -> Callable[[Table], bool]:
    """``done`` for play_until: the table is in ``phase`` (of round ``round_number``)."""

    def done(table: Table) -> bool:
        return table.phase == phase and (round_number is None or table.round_number == round_number)

    return done
