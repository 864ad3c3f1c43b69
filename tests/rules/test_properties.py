"""Property-based tests (hypothesis) over random tricks, hands, deals and scores.

The trick resolution is compared with a reference written independently, directly from the
text of R5-R7 and R9, in a deliberately different (slow, list-based) style.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games import rules
from games.rules import Card, Kind, Play
from tests.support.examples import examples

NUMBERED = [c for c in rules.DECK if c.kind is Kind.NUMBER]
SPECIALS = [c for c in rules.DECK if c.kind is not Kind.NUMBER]
# A pool weighted towards the cards that make tricks interesting.
RICH = SPECIALS + [c for c in NUMBERED if c.rank in (1, 2, 13, 14)]


@st.composite
def plays(draw: st.DrawFn, min_size: int = 1, max_size: int = 8) -> list[Play]:
    pool = draw(st.sampled_from([list(rules.DECK), RICH, SPECIALS]))
    cards = draw(st.lists(st.sampled_from(pool), min_size=min_size, max_size=max_size, unique=True))
    result = []
    for c in cards:
        if rules.needs_choice(c):
            result.append(Play(c, draw(st.sampled_from(["pirate", "escape"]))))
        else:
            result.append(Play(c))
    return result


@st.composite
def hand_and_trick(draw: st.DrawFn) -> tuple[list[Card], list[Play]]:
    trick = draw(plays(min_size=0, max_size=7))
    used = {p.card for p in trick}
    rest = [c for c in rules.DECK if c not in used]
    hand = draw(st.lists(st.sampled_from(rest), min_size=1, max_size=10, unique=True))
    return hand, trick


# --- the reference ----------------------------------------------------------------------


def role(p: Play) -> str:
    k = p.card.kind
    if k is Kind.TIGRESS:
        return "pirate" if p.as_ == "pirate" else "escape"
    return {
        Kind.NUMBER: "number",
        Kind.ESCAPE: "escape",
        Kind.PIRATE: "pirate",
        Kind.MERMAID: "mermaid",
        Kind.SKULL_KING: "sk",
        Kind.KRAKEN: "creature",
        Kind.WHALE: "creature",
    }[k]


def ref_lead_suit(trick: list[Play]) -> str | None:
    non_escapes = [p for p in trick if role(p) != "escape"]
    if non_escapes and role(non_escapes[0]) == "number":
        return non_escapes[0].card.suit
    return None


def ref_r6(trick: list[Play]) -> int:
    """R6 on a trick without creatures: the index of the winner."""
    roles = [role(p) for p in trick]

    def first(r: str) -> int:
        return roles.index(r)

    if "sk" in roles:
        return first("mermaid") if "mermaid" in roles else first("sk")
    if "pirate" in roles:
        return first("pirate")
    if "mermaid" in roles:
        return first("mermaid")
    blacks = [i for i, p in enumerate(trick) if p.card.suit == "B"]
    if blacks:
        return max(blacks, key=lambda i: trick[i].card.rank or 0)
    lead = ref_lead_suit(trick)
    if lead is not None:
        followers = [i for i, p in enumerate(trick) if p.card.suit == lead]
        return max(followers, key=lambda i: trick[i].card.rank or 0)
    assert set(roles) == {"escape"}
    return 0


def ref_bonus(trick: list[Play], w: int, whale: bool) -> int:
    total = 0
    for p in trick:
        if p.card.rank == 14:
            total += 20 if p.card.suit == "B" else 10
    if whale:
        return total
    roles = [role(p) for p in trick]
    if roles[w] == "pirate":
        total += 20 * roles.count("mermaid")
    elif roles[w] == "sk":
        total += 30 * roles.count("pirate")
    elif roles[w] == "mermaid" and "sk" in roles:
        total += 40
    return total


def ref_resolve(trick: list[Play]) -> tuple[int | None, int, int, str | None]:
    """(winner, next_leader, bonus, destroyed_by)."""
    creatures = [i for i, p in enumerate(trick) if role(p) == "creature"]
    if not creatures:
        w = ref_r6(trick)
        return w, w, ref_bonus(trick, w, False), None
    last = creatures[-1]
    if trick[last].card.kind is Kind.KRAKEN:
        remaining = [i for i in range(len(trick)) if i not in creatures]
        if not remaining:
            return None, 0, 0, "kraken"
        w = ref_r6([trick[i] for i in remaining])
        return None, remaining[w], 0, "kraken"
    numbered = [i for i, p in enumerate(trick) if role(p) == "number"]
    if not numbered:
        return None, last, 0, "whale"
    top = max(trick[i].card.rank or 0 for i in numbered)
    w = next(i for i in numbered if trick[i].card.rank == top)
    return w, w, ref_bonus(trick, w, True), None


# --- properties ------------------------------------------------------------------------


@settings(max_examples=examples(1500))
@given(plays())
def test_r6_r7_r9_resolve_trick_matches_the_reference(trick: list[Play]) -> None:
    r = rules.resolve_trick(trick)
    assert (r.winner, r.next_leader, r.bonus, r.destroyed_by) == ref_resolve(trick)


@settings(max_examples=examples(500))
@given(plays())
def test_r6_r7_exactly_one_winner_or_destroyed(trick: list[Play]) -> None:
    r = rules.resolve_trick(trick)
    if r.destroyed:
        assert r.winner is None and r.winning_play is None
        assert r.destroyed_by in ("kraken", "whale")
        assert r.bonus == 0
    else:
        assert r.winner is not None and 0 <= r.winner < len(trick)
        assert r.winning_play == r.winner == r.next_leader
        assert r.destroyed_by is None
        assert r.bonus >= 0


@settings(max_examples=examples(300))
@given(plays())
def test_r6_r7_next_leader_played_in_the_trick(trick: list[Play]) -> None:
    assert 0 <= rules.resolve_trick(trick).next_leader < len(trick)


@settings(max_examples=examples(500))
@given(plays())
def test_r7_destroyed_only_with_a_creature_played_last_among_creatures(trick: list[Play]) -> None:
    r = rules.resolve_trick(trick)
    kinds = [p.card.kind for p in trick]
    if Kind.KRAKEN not in kinds and Kind.WHALE not in kinds:
        assert not r.destroyed
    elif r.destroyed_by == "kraken":
        assert Kind.WHALE not in kinds or kinds.index(Kind.KRAKEN) > kinds.index(Kind.WHALE)
    elif r.destroyed_by == "whale":
        assert all(p.card.rank is None for p in trick)


@settings(max_examples=examples(500))
@given(plays(min_size=0, max_size=8))
def test_r5_lead_suit_matches_the_reference(trick: list[Play]) -> None:
    assert rules.lead_suit(trick) == ref_lead_suit(trick)


@settings(max_examples=examples(600))
@given(hand_and_trick())
def test_r5_legal_cards_never_empty_and_a_subset_of_the_hand(
    case: tuple[list[Card], list[Play]],
) -> None:
    hand, trick = case
    legal = rules.legal_cards(hand, trick)
    assert legal
    assert legal <= set(hand)
    # special cards are always playable
    assert {c for c in hand if c.kind is not Kind.NUMBER} <= legal


@settings(max_examples=examples(600))
@given(hand_and_trick())
def test_r5_following_is_forced_exactly_when_r5_says(
    case: tuple[list[Card], list[Play]],
) -> None:
    hand, trick = case
    legal = rules.legal_cards(hand, trick)
    lead = ref_lead_suit(trick)
    forced = lead is not None and any(c.suit == lead for c in hand)
    if not forced:
        assert legal == set(hand)
    else:
        assert legal == {c for c in hand if c.suit is None or c.suit == lead}
        assert legal != set(hand) or all(c.suit in (None, lead) for c in hand)


@settings(max_examples=examples(300))
@given(
    st.integers(min_value=0, max_value=2**64),
    st.integers(min_value=1, max_value=10),
    st.integers(min_value=2, max_value=8),
    st.booleans(),
)
def test_r2_deal_properties(seed: int, round_number: int, humans: int, ghost: bool) -> None:
    ghost = ghost and humans == 2
    d = rules.deal(seed, round_number, humans, ghost)
    n = rules.cards_per_round(round_number, humans)
    hands = [*d.hands, d.ghost_hand] if ghost else list(d.hands)
    assert all(len(h) == n for h in hands)
    every = [c for h in hands for c in h]
    assert len(set(every)) == len(every)
    assert d == rules.deal(seed, round_number, humans, ghost)


@settings(max_examples=examples(500))
@given(st.integers(1, 10).flatmap(lambda c: st.tuples(
    st.integers(0, c), st.integers(0, c), st.just(c), st.integers(0, 200))))  # fmt: skip
def test_r9_score_round_properties(case: tuple[int, int, int, int]) -> None:
    bid, won, c, bonus = case
    s = rules.score_round(bid, won, c, bonus)
    assert s.total == s.base + s.bonus
    exact = bid == won
    if bid >= 1:
        assert s.base == (20 * bid if exact else -10 * abs(won - bid))
        assert s.bonus == (bonus if exact else 0)
    else:
        assert s.base == (10 * c if won == 0 else -10 * c)
        assert s.bonus == 0


def random_trick(rng: random.Random, pool: list[Card]) -> list[Play]:
    cards = rng.sample(pool, rng.randint(1, 8))
    return [Play(c, rng.choice(["pirate", "escape"])) if rules.needs_choice(c) else Play(c)
            for c in cards]  # fmt: skip


def test_r5_r6_r7_r9_twenty_thousand_seeded_random_tricks_match_the_reference() -> None:
    rng = random.Random(20240601)
    pools = [list(rules.DECK), RICH, SPECIALS]
    for i in range(20_000):
        trick = random_trick(rng, pools[i % 3])
        r = rules.resolve_trick(trick)
        assert (r.winner, r.next_leader, r.bonus, r.destroyed_by) == ref_resolve(trick), trick
        k = rng.randrange(len(trick))
        lead = ref_lead_suit(trick[:k])
        assert rules.lead_suit(trick[:k]) == lead
        used = {p.card for p in trick}
        hand = rng.sample([c for c in rules.DECK if c not in used], rng.randint(1, 10))
        forced = lead is not None and any(c.suit == lead for c in hand)
        expected = {c for c in hand if not forced or c.suit is None or c.suit == lead}
        assert rules.legal_cards(hand, trick[:k]) == expected
