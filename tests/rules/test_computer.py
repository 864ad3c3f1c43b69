"""Computer players (games.rules.computer): every decision legal at every level (R4, R5),
decided from the seat's own view only (R4: secret bids, hidden hands; R8: the ghost's
pile), deterministic for a seed, and whole games run to their end on the engine alone."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import rules
from games.rules import Card, Play
from games.rules.computer import (
    Level,
    RoundState,
    decide_bid,
    decide_card,
    play_game,
    seat_view,
)
from tests.support.examples import examples

LEVELS = list(Level)
# (humans, ghost): 2 to 8 seats, and 2 with the ghost (R8)
TABLES = [(h, False) for h in range(2, 9)] + [(2, True)]


def dealt_round(seed: int, humans: int, ghost: bool, round_number: int) -> RoundState:
    return RoundState.dealt(seed, round_number, humans, ghost, tuple(range(humans)))


def next_seat(state: RoundState) -> int | None:
    """The seat (never the ghost) that decides next: the first without a bid, else the one
    to play; the ghost's turns are played on the way (R8). None once the round is over."""
    missing = [s for s in range(state.humans) if s not in state.bids]
    if missing:
        return missing[0]
    while (turn := state.to_play()) == rules.GHOST:
        state.play_ghost()
    return turn


def move(state: RoundState, seat: int, level: Level, rng: random.Random) -> None:
    """One decision of ``seat``, checked against the rules by the engine, then made."""
    view = seat_view(state, seat)
    if seat not in state.bids:
        bid = decide_bid(view, level, rng)
        assert bid in rules.valid_bids(state.cards_dealt)  # R4
        state.bid(seat, bid)
        return
    play = decide_card(view, level, rng)
    trick = [p.play for p in state.trick]
    assert play.card in rules.legal_cards(state.hands[seat], trick)  # R5
    assert rules.needs_choice(play.card) == (play.as_ is not None)  # R1: the Tigress's choice
    state.play(seat, play)


@st.composite
def rounds(draw: st.DrawFn) -> tuple[RoundState, list[Level]]:
    humans, ghost = draw(st.sampled_from(TABLES))
    round_number = draw(st.integers(1, rules.ROUNDS))
    state = dealt_round(draw(st.integers(0, 2**62)), humans, ghost, round_number)
    return state, [draw(st.sampled_from(LEVELS)) for _ in range(humans)]


@settings(max_examples=examples(300))
@given(rounds(), st.integers(0, 2**32))
def test_r4_r5_every_decision_is_legal_at_every_level(
    game: tuple[RoundState, list[Level]], seed: int
) -> None:
    state, levels = game
    rng = random.Random(seed)
    while (seat := next_seat(state)) is not None:
        move(state, seat, levels[seat], rng)
    assert state.finished
    assert sum(state.won()) <= state.cards_dealt


def hidden_twin(state: RoundState, seat: int, rng: random.Random) -> RoundState:
    """The same round for ``seat``: the other hands, the ghost's pile and the other bids
    not yet revealed (R4) changed; everything on the table and ``seat``'s hand kept."""
    others = [s for s in range(state.humans) if s != seat]
    seen = set(state.hands[seat])
    seen.update(p.play.card for t in state.tricks for p in t.plays)
    seen.update(p.play.card for p in state.trick)
    pool = [c for c in rules.DECK if c not in seen]  # others' cards and the undealt ones
    rng.shuffle(pool)
    hands = [list(h) for h in state.hands]
    for s in others:
        hands[s], pool = pool[: len(hands[s])], pool[len(hands[s]) :]
    pile, pool = pool[: len(state.ghost_pile)], pool[len(state.ghost_pile) :]
    bids = dict(state.bids)
    if not state.all_bids_in:
        for s in others:
            if s in bids:
                bids[s] = rng.choice([b for b in rules.valid_bids(state.cards_dealt)])
    twin = RoundState(
        humans=state.humans,
        ghost=state.ghost,
        round_number=state.round_number,
        cards_dealt=state.cards_dealt,
        dealer=state.dealer,
        opener=state.opener,
        hands=hands,
        ghost_pile=pile,
        bids=bids,
        tricks=list(state.tricks),
        leader=state.leader,
        trick=list(state.trick),
        totals=state.totals,
    )
    assert twin.hands[seat] == state.hands[seat]
    return twin


def differs(a: RoundState, b: RoundState, seat: int) -> bool:
    """Whether anything hidden from ``seat`` differs (else the test proves nothing)."""
    other_hands = [set(h) for s, h in enumerate(a.hands) if s != seat]
    twin_hands = [set(h) for s, h in enumerate(b.hands) if s != seat]
    return other_hands != twin_hands or a.ghost_pile != b.ghost_pile or a.bids != b.bids


@settings(max_examples=examples(300))
@given(rounds(), st.integers(0, 2**32), st.integers(0, 200), st.integers(0, 2**32))
def test_r4_r8_a_decision_depends_only_on_what_the_seat_sees(
    game: tuple[RoundState, list[Level]], seed: int, moves: int, decision_seed: int
) -> None:
    state, levels = game
    rng = random.Random(seed)
    for _ in range(moves):  # somewhere in the bidding or the tricks
        seat = next_seat(state)
        if seat is None:
            break
        move(state, seat, levels[seat], rng)
    seat = next_seat(state)
    if seat is None:
        return
    twin = hidden_twin(state, seat, rng)
    view = seat_view(state, seat)
    assert seat_view(twin, seat) == view
    if not state.all_bids_in:  # R4: nobody else's bid is shown before all are in
        assert all(view.bids[s] is None for s in range(state.humans) if s != seat)
    for level in LEVELS:
        if not state.all_bids_in:
            assert decide_bid(view, level, random.Random(decision_seed)) == decide_bid(
                seat_view(twin, seat), level, random.Random(decision_seed)
            )
        else:
            assert decide_card(view, level, random.Random(decision_seed)) == decide_card(
                seat_view(twin, seat), level, random.Random(decision_seed)
            )


def test_r4_r8_the_hidden_twin_really_hides_something() -> None:
    # the property above compares views of states that differ; make sure they do
    state = dealt_round(7, 4, False, 10)
    state.bid(1, 3)
    twin = hidden_twin(state, 0, random.Random(1))
    assert differs(state, twin, 0)
    assert seat_view(state, 0) == seat_view(twin, 0)
    assert seat_view(state, 1) != seat_view(twin, 1)  # seat 1's own hand changed


def test_r4_bids_are_shown_once_all_are_in() -> None:
    state = dealt_round(3, 3, False, 5)
    state.bid(0, 2)
    state.bid(1, 1)
    assert seat_view(state, 2).bids == (None, None, None)
    assert seat_view(state, 0).bids == (2, None, None)
    state.bid(2, 0)
    assert seat_view(state, 2).bids == (2, 1, 0)
    assert seat_view(state, 2).has_bid == (True, True, True)


def test_r5_the_view_offers_the_engines_legal_cards_only_on_the_seats_turn() -> None:
    state = dealt_round(11, 4, False, 8)
    for seat in range(4):
        state.bid(seat, 1)
    turn = state.to_play()
    assert turn == state.opener
    assert seat_view(state, turn).legal == tuple(state.hands[turn])  # leading: anything
    state.play(turn, _first_play(seat_view(state, turn).legal[0]))
    follower = state.to_play()
    assert follower is not None
    view = seat_view(state, follower)
    assert set(view.legal) == rules.legal_cards(state.hands[follower], [state.trick[0].play])
    assert [c for c in state.hands[follower] if c in view.legal] == list(view.legal)
    assert all(seat_view(state, s).legal == () for s in range(4) if s != follower)
    with pytest.raises(ValueError, match="turn"):
        decide_card(seat_view(state, turn), Level.NORMAL, random.Random(0))


def _first_play(c: Card) -> Play:
    return Play(c, "escape") if rules.needs_choice(c) else Play(c)


def test_r4_a_seat_that_has_bid_is_not_asked_again() -> None:
    state = dealt_round(5, 3, False, 2)
    state.bid(0, 1)
    with pytest.raises(ValueError, match="R4"):
        decide_bid(seat_view(state, 0), Level.STRONG, random.Random(0))


@pytest.mark.parametrize("level", LEVELS)
def test_decisions_are_deterministic_for_a_seed(level: Level) -> None:
    for seed in range(5):
        state = dealt_round(seed, 5, False, 7)
        view = seat_view(state, 0)
        bids = {decide_bid(view, level, random.Random(seed)) for _ in range(3)}
        assert len(bids) == 1
    levels = [level] * 4
    assert play_game(3, levels) == play_game(3, levels)


def test_games_differ_from_seed_to_seed() -> None:
    levels = [Level.EASY, Level.NORMAL, Level.STRONG]
    assert play_game(1, levels).totals != play_game(2, levels).totals


@pytest.mark.parametrize(("humans", "ghost"), TABLES)
def test_r2_to_r10_a_seeded_game_of_computer_players_runs_to_game_over(
    humans: int, ghost: bool
) -> None:
    levels = [LEVELS[seat % len(LEVELS)] for seat in range(humans)]
    result = play_game(humans, levels, ghost)
    assert len(result.rounds) == rules.ROUNDS  # R2
    for number, (scores, bids) in enumerate(zip(result.rounds, result.bids, strict=True), 1):
        dealt = rules.cards_per_round(number, humans)
        assert all(b in rules.valid_bids(dealt) for b in bids)  # R4
        assert len(scores) == humans
    running = [sum(r[s].total for r in result.rounds) for s in range(humans)]
    assert list(result.totals) == running  # R9, R10
    assert list(result.winners) == rules.winners(dict(enumerate(result.totals)))  # R10


def test_normal_and_strong_make_their_bids_more_often_than_easy() -> None:
    # not a strength benchmark (scripts/bench_bots.py is), a smoke test that the levels
    # are wired the right way round: Easy plays at random
    levels = [Level.EASY, Level.NORMAL, Level.STRONG, Level.EASY]
    made = dict.fromkeys(Level, 0)
    for seed in range(10):
        result = play_game(seed, levels)
        for scores in result.rounds:
            for seat, score in enumerate(scores):
                made[levels[seat]] += score.base > 0
    per_easy_seat = made[Level.EASY] / 2
    assert made[Level.NORMAL] > per_easy_seat
    assert made[Level.STRONG] > per_easy_seat


def test_r6_r7_r9_equivalent_plays_are_weighed_once() -> None:
    from games.rules.computer.playset import distinct_plays, plays_of

    c = rules.card
    hand = tuple(c(x) for x in ("ESC1", "ESC2", "PIR1", "PIR2", "G5", "G7", "G13", "G14", "TIG"))
    plays = plays_of(hand)
    # G6 unseen: G5 and G7 differ; G8..G12 seen: G7 and G13 are alike (R6.6)
    others = {c("G6"), c("SK"), c("Y9")}
    kept = [str(p) for p in distinct_plays(plays, others)]
    assert kept == ["ESC1", "PIR1", "G5", "G7", "G14", "TIG:pirate", "TIG:escape"]
    # R7: with the White Whale still out, a yellow 9 tells a green 7 from a green 13
    kept = [str(p) for p in distinct_plays(plays, {*others, c("WHA")})]
    assert "G13" in kept


@pytest.mark.parametrize("level", [Level.NORMAL, Level.STRONG])
def test_r7_r9_a_player_at_zero_sends_the_kraken_to_a_trick_it_would_take(level: Level) -> None:
    c = rules.card
    # round 2 at 3 seats: seat 1 deals, seat 2 opens (R3); seat 1 bid 0 and holds the
    # green 14 and the Kraken on a green 3: the 14 takes the trick (R6.6), the Kraken
    # destroys it (R7)
    state = RoundState(
        humans=3,
        ghost=False,
        round_number=2,
        cards_dealt=2,
        dealer=1,
        opener=2,
        hands=[[c("ESC1"), c("Y2")], [c("G14"), c("KRA")], [c("G3"), c("Y1")]],
        bids={0: 1, 1: 0, 2: 1},
    )
    state.play(2, Play(c("G3")))
    state.play(0, Play(c("ESC1")))
    play = decide_card(seat_view(state, 1), level, random.Random(0))
    assert play.card is c("KRA")
