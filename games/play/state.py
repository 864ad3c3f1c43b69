"""A table's game as the engine sees it, loaded from rows in a fixed number of queries.

Both the actions (under the table lock, to decide) and the pages (to show) read
the game through `load_state`, so "whose turn is it" and "which cards are
legal" are answered in one place, by games.rules.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from games import rules
from games.models import Bid, HandCard, Play, Round, RoundScore, Seat, Table, Trick
from games.storage.compiled import CompiledRead

GHOST = rules.GHOST


@dataclass
class GameState:
    table: Table
    seats: list[Seat]
    round: Round | None = None
    # Unplayed cards per seat id (deal order); the ghost's pile under key None.
    hands: dict[int | None, list[HandCard]] = field(default_factory=dict)
    bids: dict[int, Bid] = field(default_factory=dict)
    tricks: list[Trick] = field(default_factory=list)
    plays: list[Play] = field(default_factory=list)  # of the current trick, in order
    # Every trick's plays this round by trick id, in order (the current trick's list is
    # ``plays`` itself): the round's earlier tricks, shown and explained (games.pages.explanations).
    round_plays: dict[int, list[Play]] = field(default_factory=dict)
    # Every round's scores so far, read on first use: a move in the middle of a
    # round neither needs nor changes them, so it does not pay for the query.
    _scores: list[RoundScore] | None = field(default=None, repr=False)
    # What the move being made changed, for games.live.frames (which regions to push):
    # the table's (status, phase, round, number of tricks dealt out) as it was read,
    # and the seats that bid or played since (None: the ghost), filled in by games.play.actions.
    loaded_at: tuple[str, str, int, int] = ("", "", 0, 0)
    moved: set[int | None] = field(default_factory=set)

    @property
    def scores(self) -> list[RoundScore]:
        if self._scores is None:
            self._scores = list(
                RoundScore.objects.filter(round__table=self.table)
                .select_related("round")
                .order_by("round__number", "seat__position")
            )
        return self._scores

    @scores.setter
    def scores(self, rows: list[RoundScore]) -> None:
        self._scores = rows

    # -- who is who ---------------------------------------------------------
    @property
    def seat_by_id(self) -> dict[int, Seat]:
        return {seat.pk: seat for seat in self.seats}

    def seat_of(self, user_id: int | None) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def player_index(self, seat_id: int | None) -> int:
        """Engine index of a seat id, or rules.GHOST for None."""
        if seat_id is None:
            return GHOST
        return self.seat_by_id[seat_id].index

    def seat_at(self, index: int) -> Seat | None:
        """Seat for an engine index; None for the ghost."""
        return None if index == GHOST else self.seats[index]

    @property
    def uses_ghost(self) -> bool:
        return self.table.uses_ghost

    # -- the current trick ----------------------------------------------------
    def begin_trick(self, trick: Trick) -> None:
        """``trick`` is now the current one: its plays are ``plays``, and stay in
        ``round_plays`` once the next trick begins (the state may serve the next move:
        games.storage.state_cache)."""
        self.tricks.append(trick)
        self.plays = self.round_plays.setdefault(trick.pk, [])

    @property
    def trick(self) -> Trick | None:
        return self.tricks[-1] if self.tricks else None

    @property
    def all_bids_in(self) -> bool:
        return bool(self.seats) and len(self.bids) == len(self.seats)

    def play_order(self) -> tuple[int, ...]:
        """Engine indexes in the order they play the current trick."""
        trick = self.trick
        if trick is None or self.round is None:
            return ()
        return rules.play_order(
            self.player_index(trick.leader_id),
            len(self.seats),
            self.uses_ghost,
            self.player_index(self.round.opener_id),
        )

    def next_to_play(self) -> int | None:
        """Engine index of who plays next in the current trick, or None."""
        if self.table.phase != Table.Phase.PLAYING:
            return None
        order = self.play_order()
        return order[len(self.plays)] if len(self.plays) < len(order) else None

    def seat_to_play(self) -> Seat | None:
        index = self.next_to_play()
        return None if index is None or index == GHOST else self.seats[index]

    def engine_trick(self) -> list[rules.Play]:
        return [rules.parse_play(p.notation) for p in self.plays]

    def hand_of(self, seat: Seat | None) -> list[rules.Card]:
        key = None if seat is None else seat.pk
        return [rules.card(h.card) for h in self.hands.get(key, [])]

    def preselected(self, seat: Seat) -> rules.Play | None:
        """The play this seat chose in advance for its turn (games.play.actions.preselect_card)."""
        for hand_card in self.hands.get(seat.pk, []):
            if hand_card.preselected:
                return rules.Play(rules.card(hand_card.card), as_=hand_card.preselected_as or None)
        return None

    def refused_preselection(self, seat: Seat) -> str:
        """The card this seat chose in advance that R5 forbade when its turn came ("")."""
        for hand_card in self.hands.get(seat.pk, []):
            if hand_card.preselect_refused:
                return hand_card.card
        return ""

    def legal_cards(self, seat: Seat) -> set[str]:
        """Codes of the cards this seat may play now (empty when it's not their turn)."""
        if self.seat_to_play() != seat:
            return set()
        return {str(c) for c in rules.legal_cards(self.hand_of(seat), self.engine_trick())}

    def tricks_won(self) -> dict[int | None, int]:
        """Tricks won this round per seat id (None: the ghost); destroyed ones count for nobody."""
        won: dict[int | None, int] = defaultdict(int)
        for trick in self.tricks:
            if trick.complete and not trick.destroyed_by:
                won[None if trick.won_by_ghost else trick.winner_id] += 1
        return won

    def plays_of(self, trick: Trick) -> list[Play]:
        """The plays of one trick of this round, in order (the current one's: ``plays``)."""
        if trick is self.trick:
            return self.plays
        return self.round_plays.get(trick.pk, [])

    @property
    def where(self) -> tuple[str, str, int, int]:
        """Where the game is: status, phase, round, trick (see ``loaded_at``)."""
        table = self.table
        return (table.status, table.phase, table.round_number, len(self.tricks))

    @property
    def phase_changed(self) -> bool:
        """Whether the status, the phase, the round or the trick changed since the read."""
        return self.loaded_at != self.where

    def bonus_won(self, seat: Seat) -> int:
        return sum(
            t.bonus
            for t in self.tricks
            if t.complete and not t.destroyed_by and t.winner_id == seat.pk
        )


def load_state(table: Table, seats: list[Seat] | None = None) -> GameState:
    """Everything a move needs, in at most 6 queries whatever the table size (5 with
    ``seats``, the table's seats already read).

    The scores are one query more, made only when something reads them.
    """
    state = _read_state(table, seats)
    state.loaded_at = state.where
    return state


def load_shown_state(table: Table) -> GameState:
    """The game as one version left it, read without the table's lock: for what a page
    or a socket's snapshot shows.

    Each read sees the newest commit, so a move committed between the table row and
    the plays would show that move under the older version: the page's next POST then
    gets a needless 409 (computer players move often enough for a person to meet it).
    The version is read again after the rest; if it moved on, everything is read again.
    """
    for _attempt in range(3):
        state = load_state(table)
        now = Table.objects.filter(pk=table.pk).values_list("version", flat=True).first()
        if now is None or now == table.version:
            break
        fresh = Table.objects.select_related("host", "cancelled_by").filter(pk=table.pk).first()
        if fresh is None:
            break
        table = fresh
    return state


# The reads of load_state, compiled once (games.storage.compiled): every move makes them.
SEATS = CompiledRead(
    Seat,
    lambda table_id: (
        Seat.objects.filter(table_id=table_id).select_related("user").order_by("position")
    ),
)
ROUND = CompiledRead(
    Round, lambda table_id, number: Round.objects.filter(table_id=table_id, number=number), arity=2
)
HANDS = CompiledRead(
    HandCard,
    lambda round_id: HandCard.objects.filter(round_id=round_id, played=False).order_by(
        "deal_order"
    ),
)
BIDS = CompiledRead(Bid, lambda round_id: Bid.objects.filter(round_id=round_id))
TRICKS = CompiledRead(
    Trick, lambda round_id: Trick.objects.filter(round_id=round_id).order_by("number")
)
PLAYS = CompiledRead(
    Play, lambda round_id: Play.objects.filter(round_id=round_id).order_by("trick_id", "order")
)


def _read_state(table: Table, seats: list[Seat] | None = None) -> GameState:
    if seats is None:
        seats = SEATS.read(table.pk)
    for seat in seats:
        seat.table = table  # the table row the caller holds (locked, for an action)
    state = GameState(table=table, seats=seats)
    if table.round_number == 0:
        return state
    rounds = ROUND.read(table.pk, table.round_number)
    if not rounds:
        return state
    current = state.round = rounds[0]
    current.table = table
    for hand_card in HANDS.read(current.pk):
        state.hands.setdefault(hand_card.seat_id, []).append(hand_card)
    state.bids = {bid.seat_id: bid for bid in BIDS.read(current.pk)}
    state.tricks = TRICKS.read(current.pk)
    if state.tricks:
        # One query for the whole round's plays: the earlier tricks stay viewable.
        for play in PLAYS.read(current.pk):
            state.round_plays.setdefault(play.trick_id, []).append(play)
        state.plays = state.round_plays.setdefault(state.tricks[-1].pk, [])
    return state
