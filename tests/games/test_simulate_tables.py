"""manage.py simulate_tables: complete games through the actions, audited against the engine."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games import rules
from games.management.commands.simulate_tables import Inconsistency, verify_table
from games.models import Play, RoundScore, Table

pytestmark = pytest.mark.django_db

CASES = [
    pytest.param(2, True, 1002, id="2-ghost"),
    pytest.param(2, False, 2002, id="2-no-ghost"),
    *(pytest.param(p, False, 1000 + p, id=str(p)) for p in range(3, 9)),
]


def simulate(*args: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    call_command("simulate_tables", *args, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


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


@pytest.mark.parametrize(("players", "ghost", "seed"), CASES)
def test_simulate_one_table(players: int, ghost: bool, seed: int) -> None:
    args = ["--tables", "1", "--players", str(players), "--seed", str(seed)]
    if not ghost:
        args.append("--no-ghost")
    (report,) = simulate(*args)
    check_report(report, players, ghost)
    table = Table.objects.get(pk=report["table"])
    assert table.status == Table.Status.FINISHED
    # the printed totals are the recorded ones
    finals = RoundScore.objects.filter(round__table=table, round__number=10).order_by(
        "seat__position"
    )
    assert [s.running_total for s in finals] == report["totals"]


def test_simulate_is_deterministic_given_the_seed() -> None:
    (first,) = simulate("--players", "2", "--seed", "7")
    (second,) = simulate("--players", "2", "--seed", "7")
    assert first.pop("table") != second.pop("table")  # two tables, the same game
    assert first == second


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


def test_verify_table_detects_tampered_rows() -> None:
    (report,) = simulate("--players", "2", "--seed", "5")
    table = Table.objects.get(pk=report["table"])
    assert verify_table(table.pk) == {k: v for k, v in report.items() if k != "index"}
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
