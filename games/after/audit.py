"""Re-derive a table's game from its rows through the engine and list every inconsistency.

Used after simulations, concurrency storms and fault tests: if the rows say
something the rules engine would not have produced, that is a bug (or a lost
write), and it is named here.
"""

from __future__ import annotations

from collections import defaultdict

from games import rules
from games.models import Bid, HandCard, Play, Round, RoundScore, Seat, Table, Trick


def audit_table(table: Table) -> list[str]:
    """Every way the stored game departs from a replay through games.rules (empty: consistent)."""
    problems: list[str] = []
    seats = list(Seat.objects.filter(table=table).order_by("position"))
    index_of = {seat.pk: seat.index for seat in seats}
    humans = len(seats)
    if [s.position for s in seats] != list(range(1, humans + 1)):
        problems.append("seat positions are not contiguous from 1")
    if table.status != Table.Status.WAITING and table.uses_ghost != rules.uses_ghost(
        table.ghost, humans
    ):
        problems.append("the ghost plays exactly when the option is on with 2 players (R8)")
    rounds = list(Round.objects.filter(table=table).order_by("number"))
    if table.status != Table.Status.WAITING and [r.number for r in rounds] != list(
        range(1, len(rounds) + 1)
    ):
        problems.append("rounds are not numbered 1..n")
    previous_total: dict[int, int] = defaultdict(int)
    for game_round in rounds:
        problems += [
            f"round {game_round.number}: {p}"
            for p in _audit_round(table, game_round, seats, index_of, humans, previous_total)
        ]
    return problems


def _audit_round(
    table: Table,
    game_round: Round,
    seats: list[Seat],
    index_of: dict[int, int],
    humans: int,
    previous_total: dict[int, int],
) -> list[str]:
    problems: list[str] = []
    ghost = table.uses_ghost
    dealer, opener = rules.dealer_and_opener(game_round.number, humans)
    if (index_of[game_round.dealer_id], index_of[game_round.opener_id]) != (dealer, opener):
        problems.append("dealer or opener is not the R3 rotation")
    dealt = rules.cards_per_round(game_round.number, humans)
    if game_round.cards_dealt != dealt:
        problems.append(f"{game_round.cards_dealt} cards dealt, R2 says {dealt}")
    expected = rules.deal(game_round.seed, game_round.number, humans, ghost)
    hands: dict[int, list[str]] = defaultdict(list)
    for hand_card in HandCard.objects.filter(round=game_round).order_by("deal_order"):
        key = rules.GHOST if hand_card.seat_id is None else index_of[hand_card.seat_id]
        hands[key].append(hand_card.card)
    for i in range(humans):
        if hands[i] != [str(c) for c in expected.hands[i]]:
            problems.append(f"seat {i + 1}'s hand is not the seeded deal")
    if hands[rules.GHOST] != [str(c) for c in expected.ghost_hand]:
        problems.append("the ghost's hand is not the seeded deal")

    bids = {b.seat_id: b.value for b in Bid.objects.filter(round=game_round)}
    for value in bids.values():
        if value not in rules.valid_bids(dealt):
            problems.append(f"bid {value} out of range")

    remaining = {key: [rules.card(c) for c in cards] for key, cards in hands.items()}
    plays_by_trick: dict[int, list[Play]] = defaultdict(list)
    for play in Play.objects.filter(round=game_round).order_by("trick__number", "order"):
        plays_by_trick[play.trick_id].append(play)
    won: dict[int, int] = defaultdict(int)
    bonus: dict[int, int] = defaultdict(int)
    tricks = list(Trick.objects.filter(round=game_round).order_by("number"))
    if [t.number for t in tricks] != list(range(1, len(tricks) + 1)):
        problems.append("tricks are not numbered 1..n")
    leader = opener
    destroyed = ghost_won = 0
    for trick in tricks:
        stored_leader = rules.GHOST if trick.leader_id is None else index_of[trick.leader_id]
        if stored_leader != leader:
            problems.append(f"trick {trick.number} led by {stored_leader}, expected {leader}")
        order = rules.play_order(leader, humans, ghost, opener)
        engine_trick: list[rules.Play] = []
        for position, play in enumerate(plays_by_trick[trick.pk]):
            who = rules.GHOST if play.seat_id is None else index_of[play.seat_id]
            if play.order != position:
                problems.append(f"trick {trick.number}: play orders are not 0..n-1")
            if position >= len(order) or who != order[position]:
                problems.append(f"trick {trick.number}: play {position} out of turn")
                continue
            parsed = rules.parse_play(play.notation)
            hand = remaining.get(who, [])
            if parsed.card not in hand:
                problems.append(f"trick {trick.number}: {parsed} was not in the hand")
                continue
            if who == rules.GHOST:
                if parsed != rules.ghost_play(hand):
                    problems.append(f"trick {trick.number}: the ghost did not play its top card")
            elif parsed.card not in rules.legal_cards(hand, engine_trick):
                problems.append(f"trick {trick.number}: {parsed} was not legal (R5)")
            hand.remove(parsed.card)
            engine_trick.append(parsed)
        if not trick.complete:
            continue
        if len(engine_trick) != len(order):
            problems.append(f"trick {trick.number} is complete with {len(engine_trick)} plays")
            continue
        result = rules.resolve_trick(engine_trick)
        winner = None if result.winner is None else order[result.winner]
        stored_winner = (
            rules.GHOST
            if trick.won_by_ghost
            else (None if trick.winner_id is None else index_of[trick.winner_id])
        )
        if stored_winner != winner or (trick.destroyed_by or None) != result.destroyed_by:
            problems.append(f"trick {trick.number}: stored outcome differs from R6/R7")
        if trick.bonus != result.bonus:
            problems.append(f"trick {trick.number}: bonus {trick.bonus}, R9 says {result.bonus}")
        if winner is None:
            destroyed += 1
        elif winner == rules.GHOST:
            ghost_won += 1
        else:
            won[winner] += 1
            bonus[winner] += result.bonus
        leader = order[result.next_leader]
        stored_next = (
            rules.GHOST if trick.next_leader_id is None else index_of[trick.next_leader_id]
        )
        if stored_next != leader:
            problems.append(f"trick {trick.number}: stored next leader differs from R6/R7")

    scores = {s.seat_id: s for s in RoundScore.objects.filter(round=game_round)}
    if scores:
        if len(tricks) != dealt or sum(won.values()) + destroyed + ghost_won != dealt:
            problems.append("tricks won plus destroyed do not equal the cards dealt")
        if any(remaining.values()):
            problems.append("the round was scored with cards still in hand")
        if set(bids) != set(index_of):
            problems.append("the round was scored without one bid per player")
        for seat in seats:
            row = scores.get(seat.pk)
            if row is None or seat.pk not in bids:
                problems.append(f"seat {seat.position} has no score or no bid")
                continue
            expected_score = rules.score_round(
                bids[seat.pk], won[seat.index], dealt, bonus[seat.index]
            )
            running = previous_total[seat.pk] + expected_score.total
            if (row.bid, row.won, row.base, row.bonus, row.total, row.running_total) != (
                bids[seat.pk],
                won[seat.index],
                expected_score.base,
                expected_score.bonus,
                expected_score.total,
                running,
            ):
                problems.append(f"seat {seat.position}'s score differs from R9")
            previous_total[seat.pk] = running
    return problems
