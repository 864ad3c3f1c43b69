"""Each seat's projected score during a round, as seed 002's score pad shows it (issue 49).

The pad gives every player the points so far (ahead of the current round), what the
round would give if it ended now, the total that would make and "tricks taken /
announced": "Nessi has collected 90 points so far. She announces 3 tricks, has only
taken two so far (2/3) ... she would currently have -10 points from this round,
making (80) points in total."

"If it ended now" is R9 applied to the tricks won so far and to the bonuses of those
tricks, by the rules engine's ``score_round`` with the very arguments the round's end
scores with (games.play.actions._score_round: ``tricks_won``, ``bonus_won``): once
the last trick is in, the projection is the score the sheet holds. Bonuses count only
for an exact bid, as the engine says.

R4: the projection is a function of the bid, so it exists only once every bid is in.
The points so far come from the scores the state reads once (``GameState.scores``) and
keeps for the next move (games.storage.state_cache): no query of their own per move.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import rules
from games.play.state import GameState


@dataclass(frozen=True, slots=True)
class Projection:
    """One seat's line of the pad: ``so_far`` (the running total before this round) and
    ``this_round`` (what the round would give if it ended now; None before every bid is
    in, R4)."""

    so_far: int
    this_round: int | None = None


def totals_before(state: GameState) -> dict[int, int]:
    """Seat id -> its running total before the current round (0 in round 1). A round
    over is already in the scores: its own row is left out, so the pad still reads
    "so far, this round, (makes)" until the next deal."""
    number = state.round.number if state.round is not None else 0
    totals = {seat.pk: 0 for seat in state.seats}
    for score in state.scores:  # ordered by round: the last earlier one wins
        if score.round.number < number:
            totals[score.seat_id] = score.running_total
    return totals


def projections(state: GameState) -> dict[int, Projection]:
    """Seat id -> its projection, for every seat of a table with a round dealt ({} before
    the first deal). The ghost never scores (R8): it has none."""
    game_round = state.round
    if game_round is None:
        return {}
    before = totals_before(state)
    if not state.all_bids_in:
        return {seat_id: Projection(total) for seat_id, total in before.items()}
    won = state.tricks_won()
    return {
        seat.pk: Projection(
            before[seat.pk],
            rules.score_round(
                state.bids[seat.pk].value,
                won.get(seat.pk, 0),
                game_round.cards_dealt,
                state.bonus_won(seat),
            ).total,
        )
        for seat in state.seats
    }
