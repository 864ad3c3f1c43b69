"""The full-game simulator: random legal games for 2-8 players (and 2 with the ghost) with
every round checked against R2-R10 by the simulator itself."""

from __future__ import annotations

import pytest

from games import rules
from games.rules import simulator

CONFIGS = [(h, False) for h in range(2, 9)] + [(2, True)]
SEEDS = 300


@pytest.mark.parametrize(("humans", "ghost"), CONFIGS)
def test_r2_to_r10_simulated_games_over_many_seeds(humans: int, ghost: bool) -> None:
    for seed in range(SEEDS):
        record = rules.simulate_game(seed, humans, ghost)
        assert len(record.rounds) == rules.ROUNDS
        assert [r.round_number for r in record.rounds] == list(range(1, 11))
        assert [r.cards_dealt for r in record.rounds] == [
            rules.cards_per_round(n, humans) for n in range(1, 11)
        ]
        running = [0] * humans
        for r in record.rounds:
            assert (r.dealer, r.opener) == rules.dealer_and_opener(r.round_number, humans)
            assert sum(r.won) + r.ghost_won + r.destroyed == r.cards_dealt
            assert all(b in rules.valid_bids(r.cards_dealt) for b in r.bids)
            assert ghost or r.ghost_won == 0
            for s in range(humans):
                expected = rules.score_round(r.bids[s], r.won[s], r.cards_dealt, r.scores[s].bonus)
                assert r.scores[s] == expected
                running[s] += r.scores[s].total
            assert list(r.totals) == running
        assert list(record.totals) == running
        assert list(record.winners) == rules.winners(dict(enumerate(record.totals)))


def test_r3_two_humans_open_alternately_with_and_without_ghost() -> None:
    for ghost in (False, True):
        record = rules.simulate_game(3, 2, ghost)
        assert [r.opener for r in record.rounds] == [1, 0] * 5


def test_simulator_is_deterministic_given_the_seed() -> None:
    assert rules.simulate_game(42, 5, False) == rules.simulate_game(42, 5, False)
    assert rules.simulate_game(42, 2, True) == rules.simulate_game(42, 2, True)
    assert rules.simulate_game(42, 5, False) != rules.simulate_game(43, 5, False)


def test_simulator_explores_the_interesting_cases() -> None:
    destroyed = ghost_won = bonuses = exact_zero = 0
    for seed in range(60):
        for r in rules.simulate_game(seed, 2, True).rounds:
            destroyed += r.destroyed
            ghost_won += r.ghost_won
            bonuses += sum(s.bonus for s in r.scores)
            exact_zero += sum(b == 0 and w == 0 for b, w in zip(r.bids, r.won, strict=True))
    assert destroyed and ghost_won and bonuses and exact_zero


def test_r8_simulator_rejects_ghost_from_three_players() -> None:
    with pytest.raises(ValueError):
        rules.simulate_game(1, 3, True)


def test_simulator_error_is_an_assertion_error() -> None:
    assert issubclass(rules.SimulationError, AssertionError)


def test_simulator_detects_an_illegal_card(monkeypatch: pytest.MonkeyPatch) -> None:
    # A broken legality rule that never forces following suit must be caught.
    monkeypatch.setattr(simulator, "legal_cards", lambda hand, trick: set(hand))
    with pytest.raises(rules.SimulationError):
        for seed in range(20):
            rules.simulate_game(seed, 4, False)


def test_simulator_detects_a_wrong_next_leader(monkeypatch: pytest.MonkeyPatch) -> None:
    real = rules.resolve_trick

    def broken(trick: list[rules.Play]) -> rules.TrickResult:
        r = real(trick)
        return rules.TrickResult(r.winner, len(trick), r.bonus, r.destroyed_by)

    monkeypatch.setattr(simulator, "resolve_trick", broken)
    with pytest.raises(rules.SimulationError):
        rules.simulate_game(1, 4, False)


def test_simulator_detects_a_wrong_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    real = rules.deal

    def broken(seed: int, round_number: int, humans: int, ghost: bool) -> rules.Deal:
        d = real(seed, round_number, humans, ghost)
        return rules.Deal((d.hands[0], d.hands[0], *d.hands[2:]), d.ghost_hand)

    monkeypatch.setattr(simulator, "deal", broken)
    with pytest.raises(rules.SimulationError):
        rules.simulate_game(1, 4, False)
