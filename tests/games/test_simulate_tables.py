"""Complete games, each configuration played ONCE and asserted from many tests (R2-R11).

Every configuration (2 players with and without the ghost, 3 to 8 players) is played
once through ``manage.py simulate_tables``: every move an action (games.play.actions),
chosen at random by the suite's driver (games.testing.driver), the rows audited
against the engine. The tests below then check the command's report, the rows (R2-R10,
the ghost's R8) and the finished game's page from that one game.

The games are committed once per configuration (a module-scoped fixture, parametrised:
pytest runs a configuration's tests together); ``make test`` keeps a module on one
pytest-xdist worker (``--dist loadscope``); each test's own changes are rolled back.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from games import rules
from games.management.commands.simulate_tables import (
    USERNAME_PREFIX,
    Inconsistency,
    verify_table,
)
from games.models import Bid, HandCard, Play, Round, RoundScore, Table, Trick
from games.play import actions

from .helpers import assert_refused

pytestmark = pytest.mark.django_db

# name: (players, ghost option, seed of the command)
CONFIGS = {
    "2-ghost": (2, True, 1002),
    "2-no-ghost": (2, False, 2002),
    **{str(p): (p, False, 1000 + p) for p in range(3, 9)},
}
# The quick run plays the edges (2 with and without the ghost, 3, and 8 players: R2's
# 9 cards in rounds 9 and 10); CI's thorough pass plays every size in between too.
QUICK = ("2-ghost", "2-no-ghost", "3", "8")
PARAMS = [
    pytest.param(name, id=name, marks=() if name in QUICK else pytest.mark.thorough)
    for name in CONFIGS
]


def simulate(*args: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    call_command("simulate_tables", *args, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def command_args(players: int, ghost: bool, seed: int) -> list[str]:
    args = ["--tables", "1", "--players", str(players), "--seed", str(seed)]
    return args if ghost else [*args, "--no-ghost"]


@dataclass
class Played:
    name: str
    players: int
    ghost: bool
    seed: int
    report: dict[str, Any]

    @property
    def table(self) -> Table:
        return Table.objects.get(pk=self.report["table"])


@pytest.fixture(scope="module", params=PARAMS)
def played(
    request: pytest.FixtureRequest, django_db_setup: Any, django_db_blocker: Any
) -> Iterator[Played]:
    """One complete game of this configuration, played by the command and committed."""
    players, ghost, seed = CONFIGS[request.param]
    with django_db_blocker.unblock():
        (report,) = simulate(*command_args(players, ghost, seed))
        try:
            yield Played(request.param, players, ghost, seed, report)
        finally:
            Table.objects.filter(pk=report["table"]).delete()
            get_user_model().objects.filter(username__startswith=USERNAME_PREFIX).delete()


# ---------------------------------------------------------------------------
# the command's report
# ---------------------------------------------------------------------------


def check_report(report: dict[str, Any], players: int, ghost: bool) -> None:
    assert len(report["players"]) == players
    assert report["ghost"] is (ghost and players == 2)
    rounds = report["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, 11))
    running = [0] * players
    for line in rounds:
        n = rules.cards_per_round(line["round"], players)
        assert line["cards"] == n
        for key in ("bids", "won", "base", "bonus", "total", "running"):
            assert len(line[key]) == players, key
        assert all(0 <= b <= n for b in line["bids"])
        assert sum(line["won"]) + line["ghost_won"] + line["destroyed"] == n
        if not report["ghost"]:
            assert line["ghost_won"] == 0
        for i in range(players):
            score = rules.score_round(line["bids"][i], line["won"][i], n, line["bonus"][i])
            assert line["base"][i] == score.base
            assert line["base"][i] + line["bonus"][i] == line["total"][i]
            running[i] += line["total"][i]
            assert line["running"][i] == running[i]
        dealer, opener = rules.dealer_and_opener(line["round"], players)
        assert line["dealer"] == report["players"][dealer]
        assert line["opener"] == report["players"][opener]
    assert report["totals"] == running
    best = max(running)
    assert report["winners"] == [
        name for name, total in zip(report["players"], running, strict=True) if total == best
    ]


def test_simulate_one_table(played: Played) -> None:
    check_report(played.report, played.players, played.ghost)
    table = played.table
    assert table.status == Table.Status.FINISHED
    # the printed totals are the recorded ones
    finals = RoundScore.objects.filter(round__table=table, round__number=10).order_by(
        "seat__position"
    )
    assert [s.running_total for s in finals] == played.report["totals"]


@pytest.mark.parametrize("played", ["2-ghost"], indirect=True)
def test_simulate_is_deterministic_given_the_seed(played: Played) -> None:
    (again,) = simulate(*command_args(played.players, played.ghost, played.seed))
    first = dict(played.report)
    assert first.pop("table") != again.pop("table")  # two tables, the same game
    assert first == again


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "1"],
        ["--players", "9"],
        ["--tables", "0"],
    ],
)
def test_simulate_rejects_bad_arguments(args: list[str]) -> None:
    with pytest.raises(CommandError):
        simulate(*args)


def test_verify_table_detects_tampered_rows(played: Played) -> None:
    table = played.table
    assert verify_table(table.pk) == {k: v for k, v in played.report.items() if k != "index"}
    score = RoundScore.objects.filter(round__table=table, round__number=4).first()
    score.total += 10
    score.save()
    with pytest.raises(Inconsistency, match="R9"):
        verify_table(table.pk)
    score.total -= 10
    score.save()
    play = Play.objects.filter(round__table=table, round__number=3).order_by("pk").last()
    Play.objects.filter(pk=play.pk).update(order=play.order + 5)
    with pytest.raises(Inconsistency, match="order"):
        verify_table(table.pk)
    Play.objects.filter(pk=play.pk).update(order=play.order)
    verify_table(table.pk)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.PLAYING)
    with pytest.raises(Inconsistency, match="finished"):
        verify_table(table.pk)


# ---------------------------------------------------------------------------
# the rows of the game (R2-R10)
# ---------------------------------------------------------------------------


def test_r2_to_r10_complete_game_r8_ghost_plays_automatically(played: Played) -> None:
    # (R8: the command's driver checks before every move that a game never waits for the
    # ghost: it plays on its own inside the action.)
    players = played.players
    table = played.table
    assert table.uses_ghost == (played.ghost and players == 2)
    # R10: the game ends after round 10, finished.
    assert table.status == Table.Status.FINISHED
    assert table.round_number == rules.ROUNDS
    assert table.finished_at is not None
    # The full audit against the engine (deal, order, legality, tricks, scores, totals).
    report = verify_table(table.pk)
    # The host created the table, the others joined in order.
    assert report["players"] == [f"{USERNAME_PREFIX}{n}" for n in range(1, players + 1)]

    seats = list(table.seats.select_related("user").order_by("position"))
    users = [seat.user for seat in seats]
    rounds = list(Round.objects.filter(table=table).order_by("number"))
    assert [r.number for r in rounds] == list(range(1, 11))
    for game_round in rounds:
        n = rules.cards_per_round(game_round.number, players)
        # R2: n cards per hand (9 in rounds 9-10 with 8), a third hand for the ghost.
        per_holder = Counter(
            HandCard.objects.filter(round=game_round).values_list("seat_id", flat=True)
        )
        expected = {s.pk: n for s in seats}
        if table.uses_ghost:
            expected[None] = n
        assert per_holder == expected
        # R3: the creator deals round 1, the dealer rotates, the next seat opens.
        dealer = (game_round.number - 1) % players
        assert game_round.dealer_id == seats[dealer].pk
        assert game_round.opener_id == seats[(dealer + 1) % players].pk
        # R4 / R8: one bid per human, the ghost never bids.
        assert Bid.objects.filter(round=game_round).count() == players
        # every card dealt was played exactly once
        dealt = set(HandCard.objects.filter(round=game_round).values_list("card", flat=True))
        played_cards = list(Play.objects.filter(round=game_round).values_list("card", flat=True))
        assert sorted(played_cards) == sorted(dealt)
        # R9: recorded scores equal rules.score_round on the recorded bids and tricks.
        tricks = list(Trick.objects.filter(round=game_round))
        for score in RoundScore.objects.filter(round=game_round):
            won = [t for t in tricks if t.winner_id == score.seat_id and not t.destroyed_by]
            assert score.won == len(won)
            expected_score = rules.score_round(score.bid, len(won), n, sum(t.bonus for t in won))
            assert (score.base, score.bonus, score.total) == (
                expected_score.base,
                expected_score.bonus,
                expected_score.total,
            )
    if players == 2:
        # R3: with 2 humans (ghost or not) the humans open alternate rounds.
        openers = [r.opener_id for r in rounds]
        assert openers == [seats[1].pk, seats[0].pk] * 5
    if table.uses_ghost:
        _check_r8_ghost_rows(table)
    else:
        assert not HandCard.objects.filter(round__table=table, seat__isnull=True).exists()
        assert not Play.objects.filter(round__table=table, seat__isnull=True).exists()
    # R10: after round 10 there is no next round (nor trick); the host's buttons are refused.
    assert table.phase == Table.Phase.ROUND_DONE
    assert_refused(409, actions.next_round, users[0], table.pk, table.version)
    assert_refused(409, actions.next_trick, users[0], table.pk, table.version)
    # R10: running totals are the sums of the round totals.
    for seat in seats:
        rows = list(RoundScore.objects.filter(seat=seat).order_by("round__number"))
        assert len(rows) == rules.ROUNDS
        assert rows[-1].running_total == sum(r.total for r in rows)


def _check_r8_ghost_rows(table: Table) -> None:
    """R8 on a finished 2-player game with the ghost."""
    assert not Bid.objects.filter(round__table=table, seat__isnull=True).exists()
    ghost_plays = Play.objects.filter(round__table=table, seat__isnull=True)
    # R8: one ghost card per trick, recorded with seat NULL, in the ghost's deal order.
    assert ghost_plays.count() == sum(range(1, 11))
    for game_round in Round.objects.filter(table=table):
        pile = list(
            HandCard.objects.filter(round=game_round, seat__isnull=True)
            .order_by("deal_order")
            .values_list("card", flat=True)
        )
        plays = list(
            Play.objects.filter(round=game_round, seat__isnull=True).order_by("trick__number")
        )
        assert [p.card for p in plays] == pile
        for play in plays:
            assert play.tigress_as == ("escape" if play.card == "TIG" else "")  # R8
    # R8: after winning, the ghost leads the next trick (and plays first, by itself).
    ghost_wins = Trick.objects.filter(round__table=table, won_by_ghost=True)
    followed = 0
    for trick in ghost_wins:
        following = Trick.objects.filter(round=trick.round, number=trick.number + 1).first()
        if following is None:
            continue
        followed += 1
        assert trick.next_leader_id is None
        assert following.leader_id is None
        first = Play.objects.get(trick=following, order=0)
        assert first.seat_id is None
        # R8: when the ghost leads, the opener plays second.
        second = Play.objects.get(trick=following, order=1)
        assert second.seat_id == trick.round.opener_id
    assert followed > 0, "pick a seed where the ghost wins a trick before the last"


# ---------------------------------------------------------------------------
# the finished game's page (R10)
# ---------------------------------------------------------------------------


def test_r10_finished_game_shows_final_standings_with_all_tied_winners(played: Played) -> None:
    table = played.table
    assert table.status == Table.Status.FINISHED
    seats = list(table.seats.select_related("user").order_by("position"))
    totals = {
        s.seat_id: s.running_total
        for s in RoundScore.objects.filter(round__table=table, round__number=rules.ROUNDS)
    }
    winners = {s.user.username for s in seats if s.pk in rules.winners(totals)}
    url = reverse("table", args=[table.pk])
    first, second = Client(), Client()
    first.force_login(seats[0].user)
    second.force_login(seats[1].user)
    context = first.get(url).context
    assert {s.name for s in context["standings"] if s.is_winner} == winners
    html = second.get(url).content.decode()
    assert "Final standings" in html and "Winner" in html
    assert "Round 10 summary" in html
    trick = re.search(r'<section id="trick".*?</section>', html, re.S)
    assert trick and 'data-card="' in trick.group(0)  # the last trick stays visible
