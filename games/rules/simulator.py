"""A pure, seeded full-game simulator: random legal bids, cards and Tigress choices.

It plays a complete game through the public rules functions and checks, on every round,
the invariants of R2-R10; any inconsistency raises :class:`SimulationError`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import ESC, ESCAPE, PLAY_OF, TIG, TIG_AS_ESCAPE, TIG_AS_PIRATE, Card, Play
from .deal import GHOST, ROUNDS, cards_per_round, deal, ghost_play
from .order import dealer_and_opener, play_order
from .scoring import RoundScore, score_round, winners
from .tricks import lead_suit, legal_cards, resolve_trick

__all__ = ["GameRecord", "RoundRecord", "SimulationError", "simulate_game"]


class SimulationError(AssertionError):
    """An invariant of the rules was broken during a simulated game."""


@dataclass(frozen=True, slots=True)
class RoundRecord:
    round_number: int
    cards_dealt: int
    dealer: int
    opener: int
    bids: tuple[int, ...]
    won: tuple[int, ...]
    ghost_won: int
    destroyed: int
    scores: tuple[RoundScore, ...]
    totals: tuple[int, ...]  # running totals after this round


@dataclass(frozen=True, slots=True)
class GameRecord:
    seed: int
    humans: int
    ghost: bool
    rounds: tuple[RoundRecord, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise SimulationError(message)


def simulate_game(seed: int, humans: int, ghost: bool) -> GameRecord:
    """Play a complete game with random legal choices (deterministic given the arguments)."""
    if ghost and humans != 2:
        raise ValueError("the ghost only plays with exactly 2 humans (R8)")
    rng = random.Random(seed)
    rand = rng.random
    randrange = rng.randrange
    seats = range(humans)
    totals = [0] * humans
    records: list[RoundRecord] = []
    previous_dealer = -1
    players = humans + ghost
    for round_number in range(1, ROUNDS + 1):
        n = cards_per_round(round_number, humans)
        dealer, opener = dealer_and_opener(round_number, humans)
        # R3: seat 0 deals round 1, then one seat per round; the next seat opens.
        if dealer != (previous_dealer + 1) % humans or opener != (dealer + 1) % humans:
            raise SimulationError(f"R3 dealer {dealer} / opener {opener} in round {round_number}")
        previous_dealer = dealer
        dealt = deal(randrange(1 << 62), round_number, humans, ghost)
        _check(len(dealt.hands) == humans, "R2 one hand per human")
        _check(all(len(h) == n for h in dealt.hands), "R2 each player holds n cards")
        _check(len(dealt.ghost_hand) == (n if ghost else 0), "R8 ghost hand size")
        all_dealt = [c for h in dealt.hands for c in h]
        all_dealt.extend(dealt.ghost_hand)
        _check(len(set(all_dealt)) == len(all_dealt), "R2 a card was dealt twice")
        hands = [list(h) for h in dealt.hands]
        pile = list(dealt.ghost_hand)
        bids = [int(rand() * (n + 1)) for _ in seats]  # R4
        won = [0] * humans
        bonus = [0] * humans
        played: list[list[Card]] = [[] for _ in seats]
        ghost_won = destroyed = 0
        # R5/R8: the order of play for every possible leader of this round
        orders = {leader: play_order(leader, humans, ghost, opener) for leader in seats}
        if ghost:
            orders[GHOST] = play_order(GHOST, humans, ghost, opener)
        for leader, order in orders.items():
            if len(order) != players or order[0] != leader or len(set(order)) != players:
                raise SimulationError(f"R5/R8 play order {order} for leader {leader}")
        leader = opener
        for _ in range(n):
            order = orders[leader]
            trick: list[Play] = []
            suit: str | None = None  # lead suit, tracked independently of lead_suit()
            decided = False
            for seat in order:
                if seat == GHOST:
                    play = ghost_play(pile)
                    if play.card is not pile[0] or (play.card.role == TIG) != (play.as_ == ESCAPE):
                        raise SimulationError(f"R8 the ghost must play its top card, not {play}")
                    del pile[0]
                else:
                    hand = hands[seat]
                    legal = legal_cards(hand, trick)
                    options = [c for c in hand if c in legal]  # hand order: deterministic
                    if not options or len(options) != len(legal):
                        raise SimulationError(f"R5 legal cards {legal} for hand {hand}")
                    c = options[int(rand() * len(options))]
                    # R5 restated independently of legal_cards, to cross-check it: a numbered
                    # card off the lead suit only when the hand holds none of that suit.
                    off = c.suit
                    if (
                        off is not None
                        and suit is not None
                        and off != suit
                        and suit in [h.suit for h in hand]
                    ):
                        raise SimulationError(f"R5 illegal card {c} on {trick} from {hand}")
                    if c.role == TIG:
                        play = TIG_AS_PIRATE if rand() < 0.5 else TIG_AS_ESCAPE
                    else:
                        p = PLAY_OF[c.index]
                        assert p is not None
                        play = p
                    hand.remove(c)
                    played[seat].append(c)
                trick.append(play)
                if not decided and play.role != ESC:
                    decided = True
                    suit = play.card.suit
            if lead_suit(trick) != suit:
                raise SimulationError(f"R5 lead suit of {trick}")
            result = resolve_trick(trick)
            winner = result.winner
            if winner is None:
                if not result.destroyed or result.bonus:
                    raise SimulationError(f"R7 destroyed trick {trick}: {result}")
                destroyed += 1
            else:
                if result.destroyed or winner != result.next_leader:
                    raise SimulationError(f"R6 the winner leads: {trick}: {result}")
                who = order[winner]
                if who == GHOST:
                    ghost_won += 1  # R8: nobody scores the ghost's tricks
                else:
                    won[who] += 1
                    bonus[who] += result.bonus
            if not 0 <= result.next_leader < players:
                raise SimulationError(f"R6/R7 next leader {trick}: {result}")
            leader = order[result.next_leader]
        _check(all(not h for h in hands) and not pile, "every dealt card was played")
        for seat in seats:
            _check(set(played[seat]) == set(dealt.hands[seat]), "R2 played exactly the hand")
        _check(sum(won) + ghost_won + destroyed == n, "tricks won + destroyed == cards dealt")
        scores = tuple(score_round(bids[s], won[s], n, bonus[s]) for s in seats)
        for s in seats:
            totals[s] += scores[s].total
        records.append(
            RoundRecord(
                round_number,
                n,
                dealer,
                opener,
                tuple(bids),
                tuple(won),
                ghost_won,
                destroyed,
                scores,
                tuple(totals),
            )
        )
    for s in seats:
        _check(totals[s] == sum(r.scores[s].total for r in records), "R10 totals")
    best = winners(dict(enumerate(totals)))
    return GameRecord(seed, humans, ghost, tuple(records), tuple(totals), tuple(best))
