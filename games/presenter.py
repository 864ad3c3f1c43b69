"""What ONE user sees of ONE table: the template context, built from `load_state`.

Used by the pages (games.views) and, later, by the websocket consumer, which
renders the same named partials of ``games/table.html`` for each socket's user.

Hidden information is kept out by construction: the context never holds the
GameState itself, only views derived from it, and

- the only hand put in the context is the viewer's own (other hands, the
  ghost's included, appear as a card count only);
- another player's bid value is put in the context only once every player has
  bid (R4); before that only *whether* they have bid.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import rules
from .models import MAX_SEATS, ChatMessage, Seat, Table
from .rematch import rematch_context
from .state import GameState, load_state

#: The table page's live regions: element id -> partial name in games/table.html.
REGIONS: dict[str, str] = {
    "status": "status",
    "seats": "seats",
    "trick": "trick",
    "hand": "hand",
    "controls": "controls",
    "scores": "scores",
    "chat-log": "chat_log",
}
TABLE_TEMPLATE = "games/table.html"
CHAT_SHOWN = 100  # latest chat messages shown
LOBBY_LIMIT = 100  # tables listed per group
LOBBY_TURN_DETAIL = 30  # in-progress tables whose turn is computed (one load_state each)


class NotSeated(Exception):
    """The user has no seat at this table: nothing of it may be rendered for them."""


@dataclass(frozen=True)
class PlayerView:
    """One entry of the seat list (a human seat or the ghost)."""

    key: str  # "seat-<id>" or "ghost"
    seat_id: int | None
    name: str
    position: int | None
    is_ghost: bool = False
    is_you: bool = False
    is_host: bool = False
    is_dealer: bool = False
    is_opener: bool = False
    is_leader: bool = False  # leads the current trick
    to_act: bool = False  # plays next, or still has to bid
    has_bid: bool = False
    bid: int | None = None  # only when revealed (R4) or the viewer's own
    tricks_won: int = 0
    cards_left: int = 0
    connected: bool = False


@dataclass(frozen=True)
class HandCardView:
    code: str
    playable: bool
    needs_choice: bool  # the Tigress: asks "pirate or escape?"


@dataclass(frozen=True)
class PlayView:
    name: str
    code: str
    as_: str  # "pirate" / "escape" for the Tigress, else ""
    is_ghost: bool
    is_you: bool
    is_winner: bool


@dataclass(frozen=True)
class TrickView:
    number: int
    of: int
    plays: list[PlayView]
    complete: bool
    leader_name: str
    winner_name: str = ""
    winner_is_you: bool = False
    destroyed_by: str = ""  # "kraken" / "whale" / ""
    bonus: int = 0
    next_leader_name: str = ""
    next_player_name: str = ""


@dataclass(frozen=True)
class ScoreLine:
    name: str
    is_you: bool
    bid: int
    won: int
    base: int
    bonus: int
    total: int
    running_total: int


@dataclass(frozen=True)
class Standing:
    rank: int
    name: str
    total: int
    is_winner: bool
    is_you: bool


@dataclass
class Controls:
    can_start: bool = False
    needs_players: bool = False  # host, waiting, fewer than 2 players
    bid_options: list[int] = field(default_factory=list)
    can_next_trick: bool = False
    can_next_round: bool = False
    waiting_for_host: bool = False
    invite_path: str = ""
    invite_url: str = ""
    can_leave: bool = False
    leave_cancels: bool = False


def ghost_name() -> str:
    return _("Graybeard")


# ---------------------------------------------------------------------------
# One table, one user
# ---------------------------------------------------------------------------


def table_context(
    table: Table,
    user: Any,
    *,
    error: str = "",
    origin: str = "",
    state: GameState | None = None,
) -> dict[str, Any]:
    """The context of games/table.html (and each of its partials) for ``user``.

    ``table`` should come with ``select_related("host", "cancelled_by")``.
    ``origin`` ("https://example.org") makes the invite link absolute.
    Raises NotSeated if the user has no seat at the table.
    """
    state = state or load_state(table)
    me = state.seat_of(getattr(user, "pk", None))
    if me is None:
        raise NotSeated
    names = {seat.pk: seat.user.username for seat in state.seats}
    is_host = table.host_id == me.user_id
    playing = table.status == Table.Status.PLAYING
    phase = table.phase if playing else ""
    Phase = Table.Phase

    players = _players(state, me, names)
    my_view = next(p for p in players if p.is_you)

    # -- the viewer's own hand: the ONLY hand that ever enters the context --------
    own = rules.sort_hand(rules.card(h.card) for h in state.hands.get(me.pk, []))
    legal = state.legal_cards(me) if phase == Phase.PLAYING else set()
    hand = [HandCardView(str(c), str(c) in legal, rules.needs_choice(c)) for c in own]

    controls = Controls()
    if table.status == Table.Status.WAITING:
        controls.can_start = is_host and len(state.seats) >= 2
        controls.needs_players = is_host and len(state.seats) < 2
        if is_host:
            controls.invite_path = reverse("join", args=[table.invite_token])
            controls.invite_url = f"{origin}{controls.invite_path}"
    if phase == Phase.BIDDING and state.round is not None and me.pk not in state.bids:
        controls.bid_options = list(rules.valid_bids(state.round.cards_dealt))
    controls.can_next_trick = is_host and phase == Phase.TRICK_DONE
    controls.can_next_round = is_host and phase == Phase.ROUND_DONE
    controls.waiting_for_host = not is_host and phase in (Phase.TRICK_DONE, Phase.ROUND_DONE)
    controls.can_leave = table.status in (Table.Status.WAITING, Table.Status.PLAYING)
    controls.leave_cancels = playing

    round_summary: list[ScoreLine] = []
    if state.round is not None and (phase == Phase.ROUND_DONE or not playing):
        round_summary = [
            _score_line(s, names, me) for s in state.scores if s.round.number == state.round.number
        ]

    your_turn, headline = _headline(state, me, names, is_host)
    return {
        "table": table,
        "table_id": table.pk,
        "version": table.version,
        "error": error,
        "is_host": is_host,
        "host_name": table.host.username,
        "me": my_view,
        "players": players,
        "player_count": len(state.seats),
        "max_seats": MAX_SEATS,
        "round_number": state.round.number if state.round else 0,
        "rounds": rules.ROUNDS,
        "cards_dealt": state.round.cards_dealt if state.round else 0,
        "phase": phase,
        "phase_label": Phase(phase).label if phase else table.get_status_display(),
        "status": table.status,
        "your_turn": your_turn,
        "headline": headline,
        "hand": hand,
        "ghost_cards": len(state.hands.get(None, [])) if state.uses_ghost else 0,
        "trick": _trick(state, me, names),
        "controls": controls,
        "round_summary": round_summary,
        "sheet": _score_sheet(state, me, names),
        "standings": _standings(state, me, names) if table.status == Table.Status.FINISHED else [],
        "cancelled_by": (
            table.cancelled_by.username if table.cancelled_by_id and table.cancelled_by else ""
        ),
        "chat_messages": _chat(table),
        "chat_max_length": ChatMessage._meta.get_field("text").max_length,
        "ws_path": f"/ws/tables/{table.pk}/",
        "rematch": rematch_context(table, me, state.seats),
    }


def render_partial(name: str, context: dict[str, Any], request: Any = None) -> str:
    """Render one named partial of games/table.html ("status", "seats", ..., "content")."""
    return render_to_string(f"{TABLE_TEMPLATE}#{name}", context, request=request)


def render_regions(
    table: Table,
    user: Any,
    regions: list[str] | tuple[str, ...] | None = None,
    *,
    oob: bool = True,
    request: Any = None,
    origin: str = "",
) -> str:
    """The given regions (element ids, default: all) rendered for ``user``, concatenated.

    With ``oob`` every region root carries ``hx-swap-oob="true"``: what the consumer
    pushes down a socket. Raises NotSeated for a user without a seat.
    """
    context = table_context(table, user, origin=origin)
    context["oob"] = oob
    return "".join(
        render_partial(REGIONS[region], context, request) for region in (regions or REGIONS)
    )


# ---------------------------------------------------------------------------
# pieces
# ---------------------------------------------------------------------------


def _players(state: GameState, me: Seat, names: dict[int, str]) -> list[PlayerView]:
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

    players: list[PlayerView] = []
    for seat in state.seats:
        bid = state.bids.get(seat.pk)
        is_you = seat.pk == me.pk
        players.append(
            PlayerView(
                key=f"seat-{seat.pk}",
                seat_id=seat.pk,
                name=names[seat.pk],
                position=seat.position,
                is_you=is_you,
                is_host=seat.user_id == table.host_id,
                is_dealer=rnd is not None and rnd.dealer_id == seat.pk,
                is_opener=rnd is not None and rnd.opener_id == seat.pk,
                is_leader=leader == seat.pk,
                to_act=(bidding and bid is None) or (to_play is not None and to_play == seat.index),
                has_bid=bid is not None,
                # R4: a bid value only once all are in, except the viewer's own.
                bid=bid.value if bid is not None and (revealed or is_you) else None,
                tricks_won=won.get(seat.pk, 0),
                cards_left=len(state.hands.get(seat.pk, [])),
                connected=seat.connections > 0,
            )
        )
    if state.uses_ghost:
        ghost = PlayerView(
            key="ghost",
            seat_id=None,
            name=ghost_name(),
            position=None,
            is_ghost=True,
            is_leader=ghost_leads,
            to_act=to_play == rules.GHOST,
            tricks_won=won.get(None, 0),
            cards_left=len(state.hands.get(None, [])),  # a count, never the cards
            connected=True,
        )
        # With a human leading, the ghost plays second (R8).
        players.insert(1, ghost)
    return players


def _name_of(seat_id: int | None, names: dict[int, str]) -> str:
    return ghost_name() if seat_id is None else names.get(seat_id, "?")


def _trick(state: GameState, me: Seat, names: dict[int, str]) -> TrickView | None:
    trick = state.trick
    if trick is None or state.round is None:
        return None
    winner_id = trick.winner_id
    plays = [
        PlayView(
            name=_name_of(p.seat_id, names),
            code=p.card,
            as_=p.tigress_as,
            is_ghost=p.seat_id is None,
            is_you=p.seat_id == me.pk,
            is_winner=trick.complete
            and not trick.destroyed_by
            and (p.seat_id == winner_id if not trick.won_by_ghost else p.seat_id is None),
        )
        for p in state.plays
    ]
    next_player = ""
    index = state.next_to_play()
    if index is not None:
        next_player = _name_of(None if index == rules.GHOST else state.seats[index].pk, names)
    winner_name = ""
    if trick.complete and not trick.destroyed_by:
        winner_name = ghost_name() if trick.won_by_ghost else _name_of(winner_id, names)
    return TrickView(
        number=trick.number,
        of=state.round.cards_dealt,
        plays=plays,
        complete=trick.complete,
        leader_name=_name_of(trick.leader_id, names),
        winner_name=winner_name,
        winner_is_you=trick.complete and not trick.won_by_ghost and winner_id == me.pk,
        destroyed_by=trick.destroyed_by,
        bonus=trick.bonus if trick.complete and not trick.destroyed_by else 0,
        next_leader_name=_name_of(trick.next_leader_id, names) if trick.complete else "",
        next_player_name=next_player,
    )


def _score_line(score: Any, names: dict[int, str], me: Seat) -> ScoreLine:
    return ScoreLine(
        name=names.get(score.seat_id, "?"),
        is_you=score.seat_id == me.pk,
        bid=score.bid,
        won=score.won,
        base=score.base,
        bonus=score.bonus,
        total=score.total,
        running_total=score.running_total,
    )


def _score_sheet(state: GameState, me: Seat, names: dict[int, str]) -> dict[str, Any]:
    """Every scored round (rows) x every seat (columns), plus running totals."""
    by_round: dict[int, dict[int, Any]] = {}
    for score in state.scores:
        by_round.setdefault(score.round.number, {})[score.seat_id] = score
    columns = [{"name": names[s.pk], "is_you": s.pk == me.pk} for s in state.seats]
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


def _standings(state: GameState, me: Seat, names: dict[int, str]) -> list[Standing]:
    totals: dict[int, int] = {seat.pk: 0 for seat in state.seats}
    for score in state.scores:  # ordered by round: the last one wins
        totals[score.seat_id] = score.running_total
    winners = set(rules.winners(totals)) if state.scores else set()
    ordered = sorted(totals.items(), key=lambda item: -item[1])
    standings = []
    for seat_id, total in ordered:
        rank = 1 + sum(1 for other in totals.values() if other > total)
        standings.append(
            Standing(rank, names[seat_id], total, seat_id in winners, seat_id == me.pk)
        )
    return standings


def _headline(state: GameState, me: Seat, names: dict[int, str], is_host: bool) -> tuple[bool, str]:
    """(is it the viewer's move?, one sentence saying what the table waits for)."""
    table = state.table
    Status, Phase = Table.Status, Table.Phase
    if table.status == Status.WAITING:
        count = len(state.seats)
        if is_host and count >= 2:
            return True, _("Everyone here? Start the game when you are ready.")
        return False, ngettext(
            "Waiting for players: %(count)d seated.",
            "Waiting for players: %(count)d seated.",
            count,
        ) % {"count": count}
    if table.status == Status.CANCELLED:
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
    if table.phase == Phase.TRICK_DONE:
        return (
            (True, _("Trick over. Press “Next trick” when everyone has seen it."))
            if is_host
            else (False, _("Trick over. Waiting for the host."))
        )
    if table.phase == Phase.ROUND_DONE:
        return (
            (True, _("Round over. Press “Next round” when everyone has seen the scores."))
            if is_host
            else (False, _("Round over. Waiting for the host."))
        )
    return False, ""


def _winners_sentence(state: GameState, names: dict[int, str]) -> str:
    totals: dict[int, int] = {seat.pk: 0 for seat in state.seats}
    for score in state.scores:
        totals[score.seat_id] = score.running_total
    winners = [names[pk] for pk in rules.winners(totals)] if state.scores else []
    if len(winners) == 1:
        return _("Game over: %(name)s wins!") % {"name": winners[0]}
    if winners:
        return _("Game over: %(names)s share the victory!") % {"names": ", ".join(winners)}
    return _("Game over.")


def _chat(table: Table) -> list[ChatMessage]:
    latest = (
        ChatMessage.objects.filter(table=table)
        .select_related("author")
        .order_by("-created_at", "-pk")[:CHAT_SHOWN]
    )
    return list(reversed(list(latest)))


# ---------------------------------------------------------------------------
# The lobby
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSummary:
    table: Table
    players: list[str]
    host_name: str
    your_turn: bool = False
    headline: str = ""
    round_number: int = 0


def lobby_context(user: Any) -> dict[str, Any]:
    """The user's tables grouped by status, with whose turn it is for games in progress."""
    groups: dict[str, list[TableSummary]] = {status: [] for status in Table.Status.values}
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("position"))
    for status in Table.Status.values:
        tables = (
            Table.objects.filter(seats__user=user, status=status)
            .select_related("host", "cancelled_by")
            .prefetch_related(seats)
            .order_by("-updated_at")[:LOBBY_LIMIT]
        )
        for i, table in enumerate(tables):
            players = [seat.user.username for seat in table.seats.all()]
            your_turn, headline = False, ""
            if status == Table.Status.PLAYING and i < LOBBY_TURN_DETAIL:
                state = load_state(table)
                me = state.seat_of(user.pk)
                if me is not None:
                    names = {seat.pk: seat.user.username for seat in state.seats}
                    your_turn, headline = _headline(state, me, names, table.host_id == user.pk)
            elif status == Table.Status.CANCELLED and table.cancelled_by:
                headline = _("Cancelled by %(name)s.") % {"name": table.cancelled_by.username}
            groups[status].append(
                TableSummary(
                    table=table,
                    players=players,
                    host_name=table.host.username,
                    your_turn=your_turn,
                    headline=headline,
                    round_number=table.round_number,
                )
            )
    return {
        "waiting_tables": groups["waiting"],
        "playing_tables": groups["playing"],
        "finished_tables": groups["finished"],
        "cancelled_tables": groups["cancelled"],
        "has_tables": any(groups.values()),
    }


__all__ = [
    "REGIONS",
    "NotSeated",
    "lobby_context",
    "render_partial",
    "render_regions",
    "table_context",
]
