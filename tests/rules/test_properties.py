"""Property-based tests (hypothesis) over random tricks, hands, deals and scores.

The trick resolution, and its explanation (reason kind and rule, bonus captures, lead state,
unplayable cards), are compared with a reference written independently, directly from the
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


def ref_reason(trick: list[Play]) -> tuple[str, str, tuple[str, str] | None]:
    """(rule, reason kind, (rule, kind) of why the would-be winner would win, Kraken only)."""
    creatures = [p for p in trick if role(p) == "creature"]
    if creatures:
        if creatures[-1].card.kind is Kind.KRAKEN:
            remaining = [p for p in trick if role(p) != "creature"]
            if not remaining:
                return "R7 Kraken", "kraken_nothing_left", None
            rule, kind, _ = ref_reason(remaining)
            return "R7 Kraken", "kraken_destroys", (rule, kind)
        if any(role(p) == "number" for p in trick):
            return "R7 White Whale", "whale_highest_number", None
        return "R7 White Whale", "whale_no_number", None
    roles = [role(p) for p in trick]
    if "sk" in roles and "mermaid" in roles:
        if "pirate" in roles:
            return "R6.1", "mermaid_captures_skull_king_despite_pirates", None
        return "R6.1", "mermaid_captures_skull_king", None
    if "sk" in roles:
        if "pirate" in roles:
            return "R6.2", "skull_king_captures_pirates", None
        return "R6.2", "skull_king_wins", None
    if "pirate" in roles:
        return "R6.3", "pirate_captures_mermaids" if "mermaid" in roles else "pirate_wins", None
    if "mermaid" in roles:
        return "R6.4", "mermaid_wins", None
    blacks = [p for p in trick if p.card.suit == "B"]
    if blacks:
        single = len(blacks) == 1 and ref_lead_suit(trick) != "B"
        return "R6.5", "trump" if single else "highest_trump", None
    if ref_lead_suit(trick) is not None:
        return "R6.6", "highest_of_lead", None
    return "R6.7", "first_escape", None


def ref_captures(trick: list[Play]) -> list[tuple[str, str, int]]:
    """R9 read directly: (bonus kind, captured play, points) for the winner, in play order."""
    w = ref_resolve(trick)[0]
    if w is None:
        return []
    whale = any(role(p) == "creature" for p in trick)  # a won creature trick is a Whale's
    roles = [role(p) for p in trick]
    out = []
    for p in trick:
        r = role(p)
        if p.card.rank == 14:
            out.append(
                (
                    "black_14" if p.card.suit == "B" else "colour_14",
                    str(p),
                    20 if p.card.suit == "B" else 10,
                )
            )
        elif whale:
            continue
        elif roles[w] == "pirate" and r == "mermaid":
            out.append(("mermaid_by_pirate", str(p), 20))
        elif roles[w] == "sk" and r == "pirate":
            out.append(("pirate_by_skull_king", str(p), 30))
        elif roles[w] == "mermaid" and r == "sk":
            out.append(("skull_king_by_mermaid", str(p), 40))
    return out


def ref_notes(trick: list[Play]) -> dict[str, list[str]]:
    """The details R5-R7 add to the reason: note kind -> the plays it names (the main first)."""
    out: dict[str, list[str]] = {}
    rule = ref_reason(trick)[0]
    creatures = [p for p in trick if role(p) == "creature"]
    if len(creatures) == 2:
        out["only_last_creature_counts"] = [str(creatures[1]), str(creatures[0])]
    if rule == "R7 Kraken":
        return out
    if rule == "R7 White Whale":
        whale = next(p for p in trick if p.card.kind is Kind.WHALE)
        w = ref_resolve(trick)[0]
        top = None if w is None else trick[w]
        if top is not None:
            ties = [str(p) for p in trick if role(p) == "number" and p.card.rank == top.card.rank]
            if len(ties) > 1:
                out["equal_rank_first_wins"] = ties
        characters = ("pirate", "mermaid", "sk")
        lost = [str(p) for p in trick
                if role(p) in characters or (p.card.suit == "B" and p is not top)]  # fmt: skip
        if lost:
            out["whale_cancels_specials"] = [str(whale), *lost]
        return out
    pirates = [str(p) for p in trick if role(p) == "pirate"]
    mermaids = [str(p) for p in trick if role(p) == "mermaid"]
    if rule == "R6.3" and len(pirates) > 1:
        out["first_of_pirates"] = pirates
    if rule in ("R6.1", "R6.4") and len(mermaids) > 1:
        out["first_of_mermaids"] = mermaids
    if rule in ("R6.5", "R6.6") and role(trick[0]) == "escape":
        first = next(i for i, p in enumerate(trick) if role(p) == "number")
        out["lead_after_escapes"] = [str(trick[first]), *(str(p) for p in trick[:first])]
    if rule == "R6.6":
        best = trick[ref_r6(trick)]
        higher = [str(p) for p in trick if role(p) == "number" and p.card.suit != best.card.suit
                  and (p.card.rank or 0) > (best.card.rank or 0)]  # fmt: skip
        if higher:
            out["off_suit_cannot_win"] = [str(best), *higher]
    for p in trick:
        if p.card.kind is Kind.TIGRESS:
            out[f"tigress_as_{p.as_}"] = [str(p)]
    return out


def note_map(reason: rules.TrickReason) -> dict[str, list[str]]:
    return {n.kind.value: [str(p.play) for p in n.cards] for n in reason.notes}


def named_cards(reason: rules.TrickReason) -> list[rules.PlayedCard]:
    out = [*reason.cards, *(p for n in reason.notes for p in n.cards)]
    if reason.would_have is not None:
        out += named_cards(reason.would_have)
    return out


def check_explanation(trick: list[Play], ex: rules.TrickExplanation) -> None:
    """The explanation agrees with resolve_trick and the references, and names played cards."""
    r = rules.resolve_trick(trick)
    reason = ex.reason
    assert ex.result == r
    assert reason.winner == r.winner and reason.next_leader == r.next_leader
    would = (
        None
        if reason.would_have is None
        else (reason.would_have.rule, reason.would_have.kind.value)
    )
    assert (reason.rule, reason.kind.value, would) == ref_reason(trick), trick
    if r.winner is not None:
        assert reason.card.position == r.winner
    else:
        assert reason.card.play.card.kind in (Kind.KRAKEN, Kind.WHALE)
    assert note_map(reason) == ref_notes(trick), trick
    if reason.would_have is not None:
        assert reason.would_have.winner == reason.would_have.next_leader == r.next_leader
        remaining = [p for p in trick if role(p) != "creature"]
        assert note_map(reason.would_have) == ref_notes(remaining), trick
    for p in [*named_cards(reason), *(b.card for b in ex.bonuses), *(b.by for b in ex.bonuses)]:
        assert trick[p.position] == p.play
    assert [(b.kind.value, str(b.card.play), b.points) for b in ex.bonuses] == ref_captures(trick)
    assert sum(b.points for b in ex.bonuses) == r.bonus
    assert all(b.by.position == r.winner for b in ex.bonuses)
    # every sentence can be written
    for sentence in rules.describe_trick(reason):
        assert sentence and "%(" not in sentence


def ref_lead_kind(trick: list[Play]) -> str:
    non_escapes = [p for p in trick if role(p) != "escape"]
    if not trick:
        return "no_card_yet"
    if not non_escapes:
        return "escapes_only"
    return {"number": "suit", "creature": "creature_led"}.get(role(non_escapes[0]), "character_led")


def check_unplayable(hand: list[Card], trick: list[Play]) -> None:
    out = rules.unplayable_cards(hand, trick)
    legal = rules.legal_cards(hand, trick)
    # every unplayable card has a reason, and no playable card has one
    assert set(out) == set(hand) - legal
    lead = ref_lead_suit(trick)
    for c, why in out.items():
        assert lead is not None and why.card is c and why.suit == lead
        assert c.suit is not None and c.suit != lead
        assert rules.describe_unplayable(why) == f"You must follow {rules.SUIT_NAMES[lead]}"


# --- properties ------------------------------------------------------------------------


@settings(max_examples=examples(1500))
@given(plays())
def test_r6_r7_r9_resolve_trick_matches_the_reference(trick: list[Play]) -> None:
    r = rules.resolve_trick(trick)
    assert (r.winner, r.next_leader, r.bonus, r.destroyed_by) == ref_resolve(trick)


@settings(max_examples=examples(1000))
@given(plays())
def test_r6_r7_r9_explain_trick_agrees_with_resolve_trick_and_the_reference(
    trick: list[Play],
) -> None:
    check_explanation(trick, rules.explain_trick(trick))


@settings(max_examples=examples(500))
@given(plays())
def test_r6_r7_winning_so_far_explains_every_prefix_as_resolve_trick_decides_it(
    trick: list[Play],
) -> None:
    assert rules.winning_so_far([]) is None
    for k in range(1, len(trick) + 1):
        ex = rules.winning_so_far(trick[:k])
        assert ex is not None and ex.reason.in_progress
        check_explanation(trick[:k], ex)


@settings(max_examples=examples(500))
@given(plays(min_size=0, max_size=8))
def test_r5_lead_state_matches_lead_suit_and_the_reference(trick: list[Play]) -> None:
    state = rules.lead_state(trick)
    assert state.suit == rules.lead_suit(trick) == ref_lead_suit(trick)
    assert state.kind.value == ref_lead_kind(trick)
    if state.card is not None:
        assert trick[state.card.position] == state.card.play
        assert all(role(p) == "escape" for p in trick[: state.card.position])


@settings(max_examples=examples(600))
@given(hand_and_trick())
def test_r5_every_unplayable_card_has_a_reason_and_no_playable_card_has_one(
    case: tuple[list[Card], list[Play]],
) -> None:
    check_unplayable(*case)


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
    # results, reasons, bonus captures, lead states, legal and unplayable cards
    rng = random.Random(20240601)
    pools = [list(rules.DECK), RICH, SPECIALS]
    for i in range(20_000):
        trick = random_trick(rng, pools[i % 3])
        r = rules.resolve_trick(trick)
        assert (r.winner, r.next_leader, r.bonus, r.destroyed_by) == ref_resolve(trick), trick
        check_explanation(trick, rules.explain_trick(trick))
        k = rng.randrange(len(trick))
        assert rules.lead_state(trick[:k]).kind.value == ref_lead_kind(trick[:k])
        if k:
            so_far = rules.winning_so_far(trick[:k])
            assert so_far is not None
            check_explanation(trick[:k], so_far)
        lead = ref_lead_suit(trick[:k])
        assert rules.lead_suit(trick[:k]) == lead
        used = {p.card for p in trick}
        hand = rng.sample([c for c in rules.DECK if c not in used], rng.randint(1, 10))
        forced = lead is not None and any(c.suit == lead for c in hand)
        expected = {c for c in hand if not forced or c.suit is None or c.suit == lead}
        assert rules.legal_cards(hand, trick[:k]) == expected
        check_unplayable(hand, trick[:k])
