"""A seat's view of the game, for the computer's decision: built here, decided there.

The decision functions (games.rules.computer) take a ``SeatView`` and nothing else:
own hand, cards played, bids once revealed, scores. This module is the one place
that turns the game as the actions hold it (games.play.state.GameState, every hand
included) into the engine's ``RoundState`` and cuts it down to one seat with the
engine's own ``seat_view``, so no decision can see another hand.
"""

from __future__ import annotations

from games import rules
from games.models import Play, Seat, Trick
from games.play.state import GameState
from games.rules.computer import RoundState, SeatView, SeenPlay, SeenTrick, seat_view


def _seen_plays(state: GameState, plays: list[Play]) -> tuple[SeenPlay, ...]:
    return tuple(
        SeenPlay(state.player_index(p.seat_id), rules.parse_play(p.notation)) for p in plays
    )


def _seen_trick(state: GameState, trick: Trick) -> SeenTrick:
    if trick.destroyed_by:
        winner: int | None = None
    elif trick.won_by_ghost:
        winner = rules.GHOST
    else:
        winner = state.player_index(trick.winner_id)
    return SeenTrick(
        leader=state.player_index(trick.leader_id),
        plays=_seen_plays(state, state.plays_of(trick)),
        winner=winner,
        next_leader=state.player_index(trick.next_leader_id),
        bonus=trick.bonus,
        destroyed_by=trick.destroyed_by or None,
    )


def round_state(state: GameState) -> RoundState:
    """The round in progress as the engine holds it (every hand: not for a decision)."""
    game_round = state.round
    assert game_round is not None, "no round in progress"
    totals = {score.seat_id: score.running_total for score in state.scores}
    finished = [t for t in state.tricks if t.complete]
    current = state.trick if state.trick is not None and not state.trick.complete else None
    engine = RoundState(
        humans=len(state.seats),
        ghost=state.uses_ghost,
        round_number=game_round.number,
        cards_dealt=game_round.cards_dealt,
        dealer=state.player_index(game_round.dealer_id),
        opener=state.player_index(game_round.opener_id),
        hands=[state.hand_of(seat) for seat in state.seats],
        ghost_pile=state.hand_of(None),
        bids={state.player_index(seat_id): bid.value for seat_id, bid in state.bids.items()},
        tricks=[_seen_trick(state, trick) for trick in finished],
        totals=tuple(totals.get(seat.pk, 0) for seat in state.seats),
    )
    if current is not None:
        engine.leader = state.player_index(current.leader_id)
        engine.trick = list(_seen_plays(state, state.plays))
    elif finished:
        engine.leader = state.player_index(finished[-1].next_leader_id)
    return engine


def view_of(state: GameState, seat: Seat) -> SeatView:
    """What ``seat`` sees of the game now, and nothing more (R4, R8)."""
    return seat_view(round_state(state), seat.index)
