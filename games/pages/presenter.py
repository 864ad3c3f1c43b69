"""What the players of ONE table see, as template contexts built from a GameState.

A table page is split in two kinds of region (see games.live.frames):

- **public** regions (the seats, the trick, the scores, the chat) show what every
  seated player may see. Their context, `public_context`, is built without any
  viewer, so it is rendered once per version and language and sent to everyone.
  It never holds a hand (other hands, the ghost's included, appear as a card
  count only) nor a bid before every player has bid (R4): only *whether* a
  player has bid.
- **seat** regions (the status line, the hand, the controls) belong to one seat.
  Their context, `seat_context`, holds that seat's own hand and own bid.

Which seat is "you" in a public region is marked by the page (``data-seat`` keys
matched by static/js/table.js), never by the shared HTML.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import rules
from games.after.rematch import Proposal, read_proposal, rematch_context
from games.models import MAX_SEATS, ChatMessage, ComputerLevel, Seat, Table
from games.pages import explanations, links, projected
from games.play import hosting, turns
from games.play.state import GameState, load_shown_state
from games.storage import presence
from games.templatetags.cards import card_name, hand_button, hook_button

TABLE_TEMPLATE = "games/table.html"
CHAT_SHOWN = 100  # latest chat messages shown


class NotSeated(Exception):
    """The user has no seat at this table: nothing of it may be rendered for them
    (``state``: the game as read, for staff who may watch it, issue 50)."""

    def __init__(self, state: GameState | None = None) -> None:
        super().__init__()
        self.state = state


def seat_key(seat_id: int | None) -> str:
    """The key that marks a seat's elements in the page (``data-seat``)."""
    return "ghost" if seat_id is None else f"seat-{seat_id}"


@dataclass(frozen=True)
class PlayerView:
    """One entry of the seat list (a human seat or the ghost), the same for every viewer."""

    key: str  # seat_key()
    seat_id: int | None
    name: str
    position: int | None
    is_ghost: bool = False
    is_host: bool = False
    is_dealer: bool = False
    is_opener: bool = False
    is_leader: bool = False  # leads the current trick
    to_act: bool = False  # plays next, or still has to bid
    has_bid: bool = False
    bid: int | None = None  # only once every player has bid (R4)
    tricks_won: int = 0
    cards_left: int = 0
    online: bool = False
    url: str = ""  # the player's public page (none for the ghost)
    # Computer players (issue 48): a computer's level (its label), a person's seat the
    # computer plays while they are away, a person with no page open for a while.
    computer_level: str = ""
    handed_over: bool = False
    away: bool = False
    # This round's bid was made by the computer for this person (their clock ran out, or
    # they were away): said once all bids are in, with the bid (R4).
    bid_by_computer: bool = False
    # Seed 002's score pad (games.pages.projected): the points before this round (None
    # for the ghost, who never scores, and before the first deal), and what the round
    # would give if it ended now (None until every bid is in, R4: it tells the bid).
    points: int | None = None
    round_points: int | None = None

    @property
    def would_make(self) -> int | None:
        """The total if the round ended now: the pad's figure in parentheses."""
        if self.points is None or self.round_points is None:
            return None
        return self.points + self.round_points


@dataclass(frozen=True)
class HandCardView:
    code: str
    playable: bool
    needs_choice: bool  # the Tigress: asks "pirate or escape?"

    is_next: bool = False  # the owner chose it to be played when their turn comes
    #: on your turn, the id of the hand's sentence saying why R5 forbids it: owner only
    why_not_id: str = ""
    #: while others play (issue 49): a tap hooks the card for your turn (or unhooks it)
    hooking: bool = False
    next_as: str = ""  # the hooked Tigress's choice

    @property
    def button(self) -> str:
        if self.hooking:
            return hook_button(self.code, self.needs_choice, self.is_next, self.next_as)
        return hand_button(self.code, self.playable, self.needs_choice, self.why_not_id)


@dataclass(frozen=True)
class WhyNot:
    """A sentence saying why R5 forbids some cards of the hand ("You must follow
    green"), shown once under the hand and describing each of those cards."""

    id: str
    text: str


@dataclass(frozen=True)
class HandView:
    """One seat's own hand (R4: its owner's only) and, on its turn, why the cards it
    may not play are forbidden: each sentence once, however many cards it forbids."""

    cards: list[HandCardView]
    why_not: list[WhyNot]


@dataclass(frozen=True)
class NextCard:
    """Hooking, before your turn, the card to play when it comes (one seat's own): the
    hand's cards are then hook buttons (games.templatetags.cards.hook_button)."""

    chosen: str  # the hooked play's name, "" when none


def _next_card(state: GameState, me: Seat, own: list[rules.Card]) -> NextCard | None:
    """The hook (issue 49; seed 002) while the tricks are played and it is not this
    seat's turn: when games.play.actions.preselect_card accepts a choice."""
    table = state.table
    if (
        table.status != Table.Status.PLAYING
        or table.phase not in (Table.Phase.PLAYING, Table.Phase.TRICK_DONE)
        or state.seat_to_play() == me
        or not own
    ):
        return None
    chosen = state.preselected(me)
    return NextCard(card_name(chosen.card.code, chosen.as_ or "") if chosen is not None else "")


@dataclass(frozen=True)
class PlayView:
    key: str  # the seat_key() of who played it
    name: str
    code: str
    as_: str  # "pirate" / "escape" for the Tigress, else ""
    is_ghost: bool
    is_winner: bool
    is_winning: bool = False  # the trick is in progress and this card would win it now
    # Played by the computer for a person (away, or out of time: issue 48): the table is told.
    for_person: bool = False


@dataclass(frozen=True)
class TrickView:
    number: int
    of: int
    plays: list[PlayView]
    complete: bool
    leader_name: str
    winner_key: str = ""
    winner_name: str = ""
    destroyed_by: str = ""  # "kraken" / "whale" / ""
    bonus: int = 0
    next_leader_name: str = ""
    next_player_name: str = ""
    # games.pages.explanations: the lead suit and who is winning while the trick is played,
    # then why it was won (or destroyed) and its bonus once complete.
    progress: explanations.TrickInProgress | None = None
    story: explanations.TrickStory | None = None

    @property
    def by_kraken(self) -> bool:
        return self.destroyed_by == rules.KRAKEN

    @property
    def by_whale(self) -> bool:
        return self.destroyed_by == rules.WHALE


@dataclass(frozen=True)
class RingSeat:
    """One seat around the drawn table (the trick region): who sits there, whether it
    is their move, and the card they put on the table in this trick, if any."""

    key: str  # seat_key()
    name: str
    is_ghost: bool
    to_act: bool
    play: PlayView | None
    is_latest: bool  # the trick's newest card: the one that lands (its CSS animation)


@dataclass(frozen=True)
class ScoreLine:
    key: str
    name: str
    bid: int
    won: int
    base: int
    bonus: int
    total: int
    running_total: int
    captures: list[str] = field(default_factory=list)  # what made the bonus (R9)


@dataclass(frozen=True)
class Standing:
    key: str
    rank: int
    name: str
    total: int
    is_winner: bool


@dataclass
class Controls:
    can_start: bool = False
    needs_players: bool = False  # host, waiting, fewer than the minimum of players
    bid_options: list[int] = field(default_factory=list)
    can_next_trick: bool = False
    can_next_round: bool = False
    waiting_for_host: bool = False
    invite_path: str = ""
    invite_url: str = ""
    can_leave: bool = False
    leave_cancels: bool = False
    # Computer players (issue 48). The host, before the start: the levels a computer
    # player may be added at (none when the table is full) and those seated, to remove.
    computer_levels: list[tuple[str, str]] = field(default_factory=list)
    computers: list[SeatChoice] = field(default_factory=list)
    # The away seats this viewer may hand to the computer.
    hand_over: list[SeatChoice] = field(default_factory=list)
    # The host is away and this viewer moves the table on in their place (R11).
    for_away_host: str = ""
    # The computer plays this viewer's seat (handed over while they were away).
    taken_over: bool = False


@dataclass(frozen=True)
class SeatChoice:
    """A seat a control acts on: its id, its name, what it is (a computer's level)."""

    seat_id: int
    name: str
    level: str = ""


def ghost_name() -> str:
    return _("Graybeard")


def _names(state: GameState) -> dict[int, str]:
    return {seat.pk: seat.name for seat in state.seats}


def _phase(state: GameState) -> str:
    table = state.table
    return table.phase if table.status == Table.Status.PLAYING else ""


def _status_flags(table: Table) -> dict[str, bool]:
    Status = Table.Status
    return {
        "is_waiting": table.status == Status.WAITING,
        "is_playing": table.status == Status.PLAYING,
        "is_finished": table.status == Status.FINISHED,
        "is_cancelled": table.status == Status.CANCELLED,
        "is_over": table.is_over,
    }


def _phase_flags(phase: str) -> dict[str, bool]:
    Phase = Table.Phase
    return {
        "is_bidding": phase == Phase.BIDDING,
        "is_trick_phase": phase == Phase.PLAYING,
        "is_trick_done": phase == Phase.TRICK_DONE,
        "is_round_done": phase == Phase.ROUND_DONE,
    }


# ---------------------------------------------------------------------------
# What every seated player sees
# ---------------------------------------------------------------------------


def public_context(
    state: GameState,
    *,
    online: set[int] | None = None,
    attendance: Callable[[], Attendance] | None = None,
) -> dict[str, Any]:
    """The context of the public regions: no viewer, nothing private (R4).

    Each region's data is a cached callable, which the template resolves only
    when a region uses it: a move that re-renders neither the scores nor the
    chat reads neither. ``online``: the seats with a socket open, when the caller
    has just read them (the seat list's marks then cost no second read).
    """
    table = state.table
    names = _names(state)
    phase = _phase(state)
    seen = attendance or attendance_reader(state, online)
    players = functools.cache(lambda: _players(state, names, seen))
    trick = functools.cache(lambda: _trick(state, names))
    return {
        "table_id": table.pk,
        "urls": links.table_links(table.pk),
        "version": table.version,
        **_status_flags(table),
        **_phase_flags(phase),
        "phase": phase,
        "round_number": state.round.number if state.round else 0,
        "rounds": rules.ROUNDS,
        "cards_dealt": state.round.cards_dealt if state.round else 0,
        "players": players,
        "player_count": len(state.seats),
        "max_seats": MAX_SEATS,
        "trick": trick,
        "ring": functools.cache(lambda: _ring(players(), trick())),
        "round_summary": functools.cache(lambda: _round_summary(state, names)),
        "history": functools.cache(lambda: _history(state, names)),
        "bid_sum": functools.cache(lambda: explanations.bid_sum(state)),
        "sheet": functools.cache(lambda: _score_sheet(state, names)),
        "chat_messages": _chat_reader(state.table),
        "chat_max_length": ChatMessage._meta.get_field("text").max_length,
    }


def _round_summary(state: GameState, names: dict[int, str]) -> list[ScoreLine]:
    """The current round's scores, once it is over."""
    if state.round is None:
        return []
    if not (_phase(state) == Table.Phase.ROUND_DONE or state.table.is_over):
        return []
    number = state.round.number
    captures = explanations.bonus_captures(state, names)
    return [
        _score_line(s, names, captures.get(s.seat_id, []) if s.bonus else [])
        for s in state.scores
        if s.round.number == number
    ]


def _history(state: GameState, names: dict[int, str]) -> dict[str, Any]:
    """The round's complete tricks off the table: the last one, and all of them.

    The trick on the table (complete or not) is not among them: the panel changes
    only when another trick takes its place, so a play does not push it again.
    """
    stories = explanations.round_stories(state, names)
    shown = state.trick if state.trick is not None and state.trick.complete else None
    earlier = [s for s in stories if shown is None or s.number != shown.number]
    return {"last": earlier[-1] if earlier else None, "tricks": earlier}


@dataclass(frozen=True)
class Attendance:
    """Who has the table open (``online``; computer players always), and which people
    have not for AWAY_AFTER_SECONDS during a game (``away``, games.storage.presence)."""

    online: set[int]
    away: set[int]


def attendance_reader(state: GameState, online: set[int] | None = None) -> Callable[[], Attendance]:
    """Presence as this render sees it, read on first use and once for every seat rendered
    from ``state``. ``online``: the seats with a socket open, if just read. Nobody's
    "away" is read while every person has a page open (the usual move: no cache read)."""

    @functools.cache
    def read() -> Attendance:
        seen = online
        if seen is None:
            seen = presence.online_seats([seat.pk for seat in state.seats])
        computers = {seat.pk for seat in state.seats if seat.is_computer}
        offline = [s for s in state.seats if s.pk not in seen and s.pk not in computers]
        away: set[int] = set()
        if offline and state.table.status == Table.Status.PLAYING:
            away = hosting.away(state.table, offline)
        return Attendance(set(seen) | computers, away)

    return read


def _players(
    state: GameState, names: dict[int, str], attendance: Callable[[], Attendance]
) -> list[PlayerView]:
    table = state.table
    rnd = state.round
    running = table.status == Table.Status.PLAYING
    bidding = running and table.phase == Table.Phase.BIDDING
    revealed = state.all_bids_in
    won = state.tricks_won() if rnd else {}
    trick = state.trick
    to_play = state.next_to_play() if running else None
    leader = trick.leader_id if trick is not None and not trick.complete else None
    ghost_leads = trick is not None and not trick.complete and trick.leader_id is None
    seen = attendance()
    online, away = seen.online, seen.away
    pad = projected.projections(state)

    players: list[PlayerView] = []
    for seat in state.seats:
        bid = state.bids.get(seat.pk)
        line = pad.get(seat.pk)
        players.append(
            PlayerView(
                key=seat_key(seat.pk),
                seat_id=seat.pk,
                name=names[seat.pk],
                position=seat.position,
                is_host=seat.user_id == table.host_id,
                is_dealer=rnd is not None and rnd.dealer_id == seat.pk,
                is_opener=rnd is not None and rnd.opener_id == seat.pk,
                is_leader=leader == seat.pk,
                to_act=(bidding and bid is None) or (to_play is not None and to_play == seat.index),
                has_bid=bid is not None,
                # R4: a bid value only once all are in (the viewer's own is in
                # their seat regions, never here).
                bid=bid.value if bid is not None and revealed else None,
                tricks_won=won.get(seat.pk, 0),
                cards_left=len(state.hands.get(seat.pk, [])),
                online=seat.pk in online,
                url="" if seat.is_computer else links.player_link(names[seat.pk]),
                computer_level=seat.get_computer_display() if seat.is_computer else "",
                handed_over=seat.handed_over,
                away=seat.pk in away,
                bid_by_computer=(
                    bid is not None and revealed and bid.by_computer and not seat.is_computer
                ),
                points=line.so_far if line is not None else None,
                round_points=line.this_round if line is not None else None,
            )
        )
    if state.uses_ghost:
        ghost = PlayerView(
            key=seat_key(None),
            seat_id=None,
            name=ghost_name(),
            position=None,
            is_ghost=True,
            is_leader=ghost_leads,
            to_act=to_play == rules.GHOST,
            tricks_won=won.get(None, 0),
            cards_left=len(state.hands.get(None, [])),  # a count, never the cards
            online=True,
        )
        # With a human leading, the ghost plays second (R8).
        players.insert(1, ghost)
    return players


def _name_of(seat_id: int | None, names: dict[int, str]) -> str:
    return ghost_name() if seat_id is None else names.get(seat_id, "?")


def _trick(state: GameState, names: dict[int, str]) -> TrickView | None:
    trick = state.trick
    if trick is None or state.round is None:
        return None
    won = trick.complete and not trick.destroyed_by
    winner_seat = None if trick.won_by_ghost else trick.winner_id
    progress = None
    if not trick.complete and state.plays:
        progress = explanations.in_progress(state.plays, names)
    computers = {seat.pk for seat in state.seats if seat.is_computer}
    plays = [
        PlayView(
            key=seat_key(p.seat_id),
            name=_name_of(p.seat_id, names),
            code=p.card,
            as_=p.tigress_as,
            is_ghost=p.seat_id is None,
            is_winner=won and p.seat_id == winner_seat,
            is_winning=progress is not None and progress.winning_key == seat_key(p.seat_id),
            for_person=p.by_computer and p.seat_id not in computers,
        )
        for p in state.plays
    ]
    next_player = ""
    index = state.next_to_play()
    if index is not None:
        next_player = _name_of(None if index == rules.GHOST else state.seats[index].pk, names)
    return TrickView(
        number=trick.number,
        of=state.round.cards_dealt,
        plays=plays,
        complete=trick.complete,
        leader_name=_name_of(trick.leader_id, names),
        winner_key=seat_key(winner_seat) if won else "",
        winner_name=_name_of(winner_seat, names) if won else "",
        destroyed_by=trick.destroyed_by,
        bonus=trick.bonus if won else 0,
        next_leader_name=_name_of(trick.next_leader_id, names) if trick.complete else "",
        next_player_name=next_player,
        progress=progress,
        story=explanations.current_story(state, names) if trick.complete else None,
    )


def _ring(players: list[PlayerView], trick: TrickView | None) -> list[RingSeat]:
    """The seats in playing order, each with the card it played in the shown trick."""
    plays = {p.key: p for p in trick.plays} if trick is not None else {}
    latest = trick.plays[-1].key if trick is not None and trick.plays and not trick.complete else ""
    return [
        RingSeat(
            key=p.key,
            name=p.name,
            is_ghost=p.is_ghost,
            to_act=p.to_act,
            play=plays.get(p.key),
            is_latest=p.key == latest,
        )
        for p in players
    ]


def _score_line(score: Any, names: dict[int, str], captures: list[str] | None = None) -> ScoreLine:
    return ScoreLine(
        key=seat_key(score.seat_id),
        name=names.get(score.seat_id, "?"),
        bid=score.bid,
        won=score.won,
        base=score.base,
        bonus=score.bonus,
        total=score.total,
        running_total=score.running_total,
        captures=captures or [],
    )


def _score_sheet(state: GameState, names: dict[int, str]) -> dict[str, Any]:
    """Every scored round (rows) x every seat (columns), plus running totals."""
    by_round: dict[int, dict[int, Any]] = {}
    for score in state.scores:
        by_round.setdefault(score.round.number, {})[score.seat_id] = score
    columns = [{"key": seat_key(s.pk), "name": names[s.pk]} for s in state.seats]
    rows = []
    totals = [0 for _seat in state.seats]
    for number in sorted(by_round):
        cells = []
        for i, seat in enumerate(state.seats):
            cell = by_round[number].get(seat.pk)
            cells.append(cell)
            if cell is not None:
                totals[i] = cell.running_total
        rows.append({"number": number, "cells": cells})
    return {"columns": columns, "rows": rows, "totals": totals}


def _chat_reader(table: Table) -> Callable[[], list[ChatMessage]]:
    @functools.cache
    def read() -> list[ChatMessage]:
        latest = (
            ChatMessage.objects.filter(table=table)
            .select_related("author")
            .order_by("-created_at", "-pk")[:CHAT_SHOWN]
        )
        return list(reversed(list(latest)))

    return read


# ---------------------------------------------------------------------------
# What one seat sees besides: its status line, its hand, its controls
# ---------------------------------------------------------------------------


def seat_context(
    state: GameState,
    me: Seat,
    *,
    origin: str = "",
    proposal: Callable[[], Proposal] | None = None,
    attendance: Callable[[], Attendance] | None = None,
) -> dict[str, Any]:
    """The context of one seat's own regions. ``origin`` makes the invite link absolute;
    ``attendance``: presence as read for the whole render (attendance_reader)."""
    table = state.table
    names = _names(state)
    is_host = table.host_id == me.user_id
    phase = _phase(state)
    Phase = Table.Phase
    seen = attendance or attendance_reader(state)

    # -- the seat's own hand: the ONLY hand that ever enters a context ------------
    own = rules.sort_hand(rules.card(h.card) for h in state.hands.get(me.pk, []))

    controls = Controls()
    if table.status == Table.Status.WAITING:
        enough = len(state.seats) >= rules.HUMAN_MIN
        controls.can_start = is_host and enough
        controls.needs_players = is_host and not enough
        if is_host:
            controls.invite_path = reverse("join", args=[table.invite_token])
            controls.invite_url = f"{origin}{controls.invite_path}"
            if len(state.seats) < MAX_SEATS:
                controls.computer_levels = list(ComputerLevel.choices)
            controls.computers = [
                SeatChoice(s.pk, names[s.pk], s.get_computer_display())
                for s in state.seats
                if s.is_computer
            ]
    if phase == Phase.BIDDING and state.round is not None and me.pk not in state.bids:
        controls.bid_options = list(rules.valid_bids(state.round.cards_dealt))
    moves_on = is_host
    if phase in (Phase.TRICK_DONE, Phase.ROUND_DONE) and not is_host:
        # R11, issue 48: while the host is away the next player present moves the table on.
        now = seen()
        acting = hosting.acting_host(table, state.seats, online=now.online, away_seats=now.away)
        if acting == me:
            moves_on = True
            controls.for_away_host = names.get(_host_seat_id(state), "")
    controls.can_next_trick = moves_on and phase == Phase.TRICK_DONE
    controls.can_next_round = moves_on and phase == Phase.ROUND_DONE
    controls.waiting_for_host = not moves_on and phase in (Phase.TRICK_DONE, Phase.ROUND_DONE)
    if table.status == Table.Status.PLAYING:
        controls.taken_over = me.handed_over
        now = seen()
        if now.away and hosting.may_hand_over(table, state.seats, me, now.away):
            controls.hand_over = [
                SeatChoice(s.pk, names[s.pk])
                for s in state.seats
                if s.pk in now.away and not s.handed_over and s != me
            ]
    controls.can_leave = table.status in (Table.Status.WAITING, Table.Status.PLAYING)
    controls.leave_cancels = table.status == Table.Status.PLAYING

    your_turn, headline = _headline(state, me, names, moves_on)
    clock = turns.deadline(state, me)
    my_bid = state.bids.get(me.pk)
    return {
        "table_id": table.pk,
        "urls": links.table_links(table.pk),
        "version": table.version,
        **_status_flags(table),
        **_phase_flags(phase),
        "phase_label": Table.Phase(phase).label if phase else table.get_status_display(),
        "round_number": state.round.number if state.round else 0,
        "rounds": rules.ROUNDS,
        "cards_dealt": state.round.cards_dealt if state.round else 0,
        "me_key": seat_key(me.pk),
        "min_players": rules.HUMAN_MIN,
        "is_host": is_host,
        "your_turn": your_turn,
        "headline": headline,
        "ghost_play": explanations.ghost_announcement(state) if phase else "",
        "my_bid": my_bid.value if my_bid is not None else None,
        # The turn clock's end for this seat's awaited move, epoch milliseconds (0: none).
        "deadline_ms": int(clock.timestamp() * 1000) if clock is not None else 0,
        "clock_seconds": table.turn_clock,
        "refused_next": _refused_next(state, me, own),
        # Built when a region shows them: a frame with the status line alone skips them.
        "hand": SimpleLazyObject(lambda: _hand(state, me, own)),
        "next_card": SimpleLazyObject(lambda: _next_card(state, me, own)),
        "controls": controls,
        "standings": _standings(state, names) if table.status == Table.Status.FINISHED else [],
        "rematch": SimpleLazyObject(
            lambda: rematch_context(table, me, state.seats, proposal or proposal_reader(state))
        ),
    }


def _refused_next(state: GameState, me: Seat, own: list[rules.Card]) -> str:
    """The seat's own note that the card it chose in advance was not allowed when its
    turn came (R5), with the reason; "" when there is none."""
    code = state.refused_preselection(me)
    if not code:
        return ""
    reason = explanations.unplayable_reasons(own, state.plays).get(code, "")
    # After the colon the reason goes on the sentence: "you must follow green" (each
    # language's reason starts with a pronoun written small there: du, vous, debes).
    return _("Your chosen card (%(card)s) could not be played: %(reason)s. Choose again.") % {
        "card": card_name(code, ""),
        "reason": reason[:1].lower() + reason[1:],
    }


def proposal_reader(state: GameState) -> Callable[[], Proposal]:
    """The table's rematch proposal, read on first use only: one reader shared by every
    seat rendered from ``state`` reads it once for all of them."""
    return functools.cache(lambda: read_proposal(state.table))


def _hand(state: GameState, me: Seat, own: list[rules.Card]) -> HandView:
    """The seat's own cards, each playable or not and, on its turn, why not (R5)."""
    legal = state.legal_cards(me) if _phase(state) == Table.Phase.PLAYING else set()
    chosen = state.preselected(me)
    # R5, on your turn: why each card you may not play is forbidden (from your own hand).
    # Every forbidden card has the same reason today (the lead suit), so the sentence
    # is said once, not once under each card: one line on a phone, and a push of a
    # ten-card hand is the smaller for it.
    reasons = explanations.unplayable_reasons(own, state.plays) if legal else {}
    ids: dict[str, str] = {}
    for text in reasons.values():
        ids.setdefault(text, f"why-not-{len(ids) + 1}")
    hooking = _next_card(state, me, own) is not None
    cards = [
        HandCardView(
            str(c),
            str(c) in legal,
            rules.needs_choice(c),
            chosen is not None and chosen.card == c,
            ids.get(reasons.get(str(c), ""), ""),
            hooking,
            (chosen.as_ or "") if chosen is not None and chosen.card == c else "",
        )
        for c in own
    ]
    return HandView(cards, [WhyNot(ident, text) for text, ident in ids.items()])


def _standings(state: GameState, names: dict[int, str]) -> list[Standing]:
    totals = _final_totals(state)
    winners = set(rules.winners(totals)) if state.scores else set()
    ordered = sorted(totals.items(), key=lambda item: -item[1])
    return [
        Standing(
            key=seat_key(seat_id),
            rank=1 + sum(1 for other in totals.values() if other > total),
            name=names[seat_id],
            total=total,
            is_winner=seat_id in winners,
        )
        for seat_id, total in ordered
    ]


def _final_totals(state: GameState) -> dict[int, int]:
    totals: dict[int, int] = {seat.pk: 0 for seat in state.seats}
    for score in state.scores:  # ordered by round: the last one wins
        totals[score.seat_id] = score.running_total
    return totals


def _headline(state: GameState, me: Seat, names: dict[int, str], is_host: bool) -> tuple[bool, str]:
    """(is it the viewer's move?, one sentence saying what the table waits for)."""
    table = state.table
    Status, Phase = Table.Status, Table.Phase
    if table.status == Status.WAITING:
        count = len(state.seats)
        if is_host and count >= rules.HUMAN_MIN:
            return True, _("Everyone here? Start the game when you are ready.")
        return False, ngettext(
            "Waiting for players: %(count)d seated.",
            "Waiting for players: %(count)d seated.",
            count,
        ) % {"count": count}
    if table.status == Status.CANCELLED:
        reason = table.cancel_reason_text  # staff said why (issue 50), in the reader's language
        if reason:
            return False, _("Cancelled by staff: %(reason)s") % {"reason": reason}
        who = table.cancelled_by.username if table.cancelled_by else _("a player")
        return False, _("This game was cancelled by %(name)s.") % {"name": who}
    if table.status == Status.FINISHED:
        return False, _winners_sentence(state, names)
    if table.phase == Phase.BIDDING:
        if me.pk not in state.bids:
            return True, _("Your bid: how many tricks will you win this round?")
        missing = [names[s.pk] for s in state.seats if s.pk not in state.bids]
        return False, _("Waiting for bids from %(names)s.") % {"names": ", ".join(missing)}
    if table.phase == Phase.PLAYING:
        index = state.next_to_play()
        if index is None:
            return False, _("Playing…")
        if index == rules.GHOST:
            return False, _("%(name)s is playing.") % {"name": ghost_name()}
        seat = state.seats[index]
        if seat.pk == me.pk:
            return True, _("Your turn: play a card.")
        return False, _("Waiting for %(name)s to play.") % {"name": names[seat.pk]}
    trick = state.trick
    you_won = (
        trick is not None
        and trick.complete
        and not trick.destroyed_by
        and not trick.won_by_ghost
        and trick.winner_id == me.pk
    )
    if table.phase == Phase.TRICK_DONE:
        if is_host:
            done = _("Trick over. Press “Next trick” when everyone has seen it.")
        else:
            done = _("Trick over. Waiting for the host.")
        return is_host, (_("You win the trick!") + " " + done) if you_won else done
    if table.phase == Phase.ROUND_DONE:
        if is_host:
            return True, _("Round over. Press “Next round” when everyone has seen the scores.")
        return False, _("Round over. Waiting for the host.")
    return False, ""


def _winners_sentence(state: GameState, names: dict[int, str]) -> str:
    totals = _final_totals(state)
    winners = [names[pk] for pk in rules.winners(totals)] if state.scores else []
    if len(winners) == 1:
        return _("Game over: %(name)s wins!") % {"name": winners[0]}
    if winners:
        return _("Game over: %(names)s share the victory!") % {"names": ", ".join(winners)}
    return _("Game over.")


# ---------------------------------------------------------------------------
# The whole page for one user
# ---------------------------------------------------------------------------


def table_context(
    table: Table,
    user: Any,
    *,
    error: str = "",
    origin: str = "",
    state: GameState | None = None,
) -> dict[str, Any]:
    """The context of the whole games/table.html for ``user``: public and seat regions.

    Raises NotSeated if the user has no seat at the table.
    """
    state = state or load_shown_state(table)
    me = state.seat_of(getattr(user, "pk", None))
    if me is None:
        raise NotSeated(state)
    seen = attendance_reader(state)
    return {
        **public_context(state, attendance=seen),
        **seat_context(state, me, origin=origin, attendance=seen),
        "error": error,
        "host_name": _names(state).get(_host_seat_id(state), table.host.username),
        "ws_path": socket_path(table.pk),
        "staff_watching": staff_watching(table.pk),
    }


# ---------------------------------------------------------------------------
# Staff watching a table (issue 50)
# ---------------------------------------------------------------------------


def may_watch(user: Any) -> bool:
    """Whether ``user`` may open any table read-only as a spectator: active staff with
    the permission games.watch_table (a superuser has every permission)."""
    return bool(
        getattr(user, "is_authenticated", False)
        and user.is_active
        and user.is_staff
        and user.has_perm("games.watch_table")
    )


def staff_watching(table_id: int) -> int:
    """How many staff sockets watch the table now (games.storage.presence)."""
    return presence.watched_tables([table_id]).get(table_id, 0)


def watch_context(table: Table, *, state: GameState | None = None) -> dict[str, Any]:
    """The context of games/table.html for staff watching the table, seated or not: the
    public regions alone (no hand, no bid before the reveal, R4), no controls."""
    state = state or load_shown_state(table)
    return {
        **public_context(state, attendance=attendance_reader(state)),
        "error": "",
        "watching_as_staff": True,
        "me_key": "",
        "host_name": _names(state).get(_host_seat_id(state), table.host.username),
        "ws_path": socket_path(table.pk),
        "staff_watching": staff_watching(table.pk),
    }


def _host_seat_id(state: GameState) -> int:
    return next((s.pk for s in state.seats if s.user_id == state.table.host_id), 0)


def socket_path(table_id: int) -> str:
    """The table's websocket URL path, from the websocket routing (games.live.routing)."""
    return reverse("table_socket", urlconf="games.live.routing", args=[table_id])


__all__ = [
    "NotSeated",
    "may_watch",
    "public_context",
    "seat_context",
    "socket_path",
    "staff_watching",
    "table_context",
    "watch_context",
]
