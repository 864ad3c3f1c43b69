"""The JSON game record proves itself: `verify_game` re-plays it through the engine (R1-R10).

A record exported from a simulated game passes; a record with one thing changed
(a play, a score, the seed, ...) is refused with a message naming what is wrong.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.urls import reverse

from games import rules
from games.after.audit import audit_table
from games.after.record import FORMAT, RULES_VERSION, build_record
from games.models import RoundScore

from .conftest import World, client_for

pytestmark = pytest.mark.django_db


def exported(world: World, table_name: str = "finished3") -> dict[str, Any]:
    """The record as a player downloads it from the table."""
    table = getattr(world, table_name)
    response = client_for(world.user("ana")).get(reverse("export_record", args=[table.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    return json.loads(response.content)


def verify(tmp_path: Path, data: Any, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    call_command("verify_game", str(path), stdout=(out := _Sink()))
    return out.text


class _Sink:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def refused(tmp_path: Path, data: Any) -> str:
    with pytest.raises(CommandError) as caught:
        verify(tmp_path, data)
    return str(caught.value)


@pytest.mark.parametrize("table_name", ["finished3", "finished2"])
def test_the_record_of_a_simulated_game_round_trips_through_verify_game(
    world: World, tmp_path: Path, table_name: str
) -> None:
    table = getattr(world, table_name)
    assert audit_table(table) == []  # the rows themselves agree with the engine
    data = exported(world, table_name)
    assert data["format"] == FORMAT and data["rules_version"] == RULES_VERSION
    assert data["seed"] == table.seed
    assert data["ghost"] is (table_name == "finished2")  # R8
    assert len(data["rounds"]) == rules.ROUNDS
    # every bid and play in order, and the scores as stored
    stored = list(
        RoundScore.objects.filter(round__table=table)
        .order_by("round__number", "seat__position")
        .values_list("round__number", "seat__position", "bid", "won", "total", "running_total")
    )
    in_record = [
        (r["number"], s["position"], s["bid"], s["won"], s["total"], s["running_total"])
        for r in data["rounds"]
        for s in r["scores"]
    ]
    assert in_record == stored
    plays = sum(len(t["plays"]) for r in data["rounds"] for t in r["tricks"])
    players = len(data["seats"]) + (1 if data["ghost"] else 0)
    assert plays == players * sum(
        rules.cards_per_round(n, len(data["seats"])) for n in range(1, 11)
    )
    out = verify(tmp_path, data)
    assert out.startswith("OK")


def test_a_changed_play_is_refused_naming_the_play(world: World, tmp_path: Path) -> None:
    data = exported(world)
    tampered = copy.deepcopy(data)
    # Round 6, trick 1: the first player plays a card of someone else's hand instead.
    game_round = tampered["rounds"][5]
    trick = game_round["tricks"][0]
    mine = trick["plays"][0]
    other = trick["plays"][1]["card"]
    mine["card"] = other
    message = refused(tmp_path, tampered)
    assert "round 6, trick 1, play 1" in message
    assert f"plays {other}, which is not in their hand" in message


def test_a_play_swapped_for_another_card_of_the_same_hand_is_refused(
    world: World, tmp_path: Path
) -> None:
    """Even a card the player did hold breaks the record: legality, outcome or a later trick."""
    data = exported(world)
    tampered = copy.deepcopy(data)
    game_round = tampered["rounds"][9]  # round 10: 10 cards each
    seat = game_round["tricks"][0]["plays"][0]["seat"]
    first = game_round["tricks"][0]["plays"][0]
    later = next(p for t in game_round["tricks"][1:] for p in t["plays"] if p["seat"] == seat)
    first["card"], later["card"] = later["card"], first["card"]
    message = refused(tmp_path, tampered)
    assert message.split(": ", 1)[1].startswith("round 10, trick")


def test_a_changed_score_is_refused_naming_the_score(world: World, tmp_path: Path) -> None:
    data = exported(world)
    tampered = copy.deepcopy(data)
    line = tampered["rounds"][2]["scores"][1]  # round 3, seat 2
    line["total"] += 10
    message = refused(tmp_path, tampered)
    name = data["seats"][1]["player"]
    assert f"round 3, score of seat 2 ({name}): total is {line['total']}" in message
    assert f"R9 give {line['total'] - 10}" in message


def test_a_changed_final_total_or_winner_is_refused(world: World, tmp_path: Path) -> None:
    data = exported(world)
    tampered = copy.deepcopy(data)
    tampered["totals"][0] += 1
    assert "final totals" in refused(tmp_path, tampered)
    tampered = copy.deepcopy(data)
    loser = next(i + 1 for i in range(len(data["seats"])) if i + 1 not in data["winners"])
    tampered["winners"] = [loser]
    assert "winners" in refused(tmp_path, tampered)


def test_a_changed_seed_is_refused_naming_the_seed(world: World, tmp_path: Path) -> None:
    data = exported(world)
    tampered = copy.deepcopy(data)
    tampered["seed"] += 1
    message = refused(tmp_path, tampered)
    assert f"dealt from seed {tampered['seed']}" in message
    assert "round 1, trick 1, play 1" in message


def test_a_changed_bid_or_trick_outcome_is_refused(world: World, tmp_path: Path) -> None:
    data = exported(world)
    tampered = copy.deepcopy(data)
    tampered["rounds"][0]["bids"][0] = 5  # R4: 0 or 1 in round 1
    assert "round 1: seat 1" in refused(tmp_path, tampered)
    assert "R4 allows 0 to 1" in refused(tmp_path, tampered)
    tampered = copy.deepcopy(data)
    trick = tampered["rounds"][3]["tricks"][0]
    trick["bonus"] += 30
    assert "round 4, trick 1: bonus is" in refused(tmp_path, tampered)
    tampered = copy.deepcopy(data)
    trick = tampered["rounds"][3]["tricks"][0]
    trick["winner"] = next(p["seat"] for p in trick["plays"] if p["seat"] != trick["winner"])
    assert "round 4, trick 1: winner is" in refused(tmp_path, tampered)


def test_a_play_out_of_turn_and_a_ghost_off_its_pile_are_refused(
    world: World, tmp_path: Path
) -> None:
    data = exported(world)
    tampered = copy.deepcopy(data)
    plays = tampered["rounds"][4]["tricks"][0]["plays"]
    plays[0], plays[1] = plays[1], plays[0]
    assert "round 5, trick 1, play 1" in refused(tmp_path, tampered)
    assert "out of turn" in refused(tmp_path, tampered)
    # R8: the ghost plays the top card of its pile, nothing else.
    ghost = exported(world, "finished2")
    tampered = copy.deepcopy(ghost)
    game_round = tampered["rounds"][9]
    ghost_plays = [p for t in game_round["tricks"] for p in t["plays"] if p["seat"] == "ghost"]
    ghost_plays[0]["card"], ghost_plays[1]["card"] = ghost_plays[1]["card"], ghost_plays[0]["card"]
    message = refused(tmp_path, tampered)
    assert "the ghost plays" in message and "top card of its pile (R8)" in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.update(format="something-else"), "not a game record"),
        (lambda d: d.update(rules_version="rascal/1"), "rules_version 'rascal/1'"),
        (lambda d: d.update(format_version=99), "format_version 99"),
        (lambda d: d.pop("seed"), "'seed' is missing"),
        (lambda d: d.update(seed="12"), "'seed' must be a whole number"),
        (lambda d: d.update(seed=True), "'seed' must be a whole number"),
        (lambda d: d["rounds"].pop(), "9 rounds"),
        (lambda d: d["seats"].pop(), "round 1: 3 bids for 2 players (R4)"),
    ],
)
def test_a_malformed_record_is_refused_with_a_message(
    world: World, tmp_path: Path, change: Any, expected: str
) -> None:
    data = copy.deepcopy(exported(world))
    change(data)
    assert expected in refused(tmp_path, data)


def test_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("verify_game", str(path))
    with pytest.raises(CommandError, match="cannot read"):
        call_command("verify_game", str(tmp_path / "missing.json"))


def test_verify_game_exits_zero_for_a_good_record_and_non_zero_for_a_tampered_one(
    world: World, tmp_path: Path
) -> None:
    data = exported(world)
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(data), encoding="utf-8")
    tampered = copy.deepcopy(data)
    tampered["rounds"][2]["scores"][0]["running_total"] -= 10
    bad.write_text(json.dumps(tampered), encoding="utf-8")
    manage = Path(settings.BASE_DIR) / "manage.py"
    ok = subprocess.run(
        [sys.executable, str(manage), "verify_game", str(good)], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("OK")
    refused_run = subprocess.run(
        [sys.executable, str(manage), "verify_game", str(bad)], capture_output=True, text=True
    )
    assert refused_run.returncode != 0
    assert "round 3, score of seat 1" in refused_run.stderr
    assert "running_total" in refused_run.stderr


def test_build_record_costs_six_queries(world: World, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(6):
        build_record(world.finished3)


def test_the_score_sheet_csv_has_one_line_per_round_and_player(world: World) -> None:
    """R9: bid, tricks won, base, bonus, round total and running total, as stored."""
    table = world.finished3
    ana = world.user("ana")
    # A name that a spreadsheet would run as a formula is written as text.
    type(ana).objects.filter(pk=ana.pk).update(username="+after-ana")
    response = client_for(ana).get(reverse("export_scores", args=[table.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    assert lines[0] == [
        "round", "seat", "player", "bid", "won", "base", "bonus", "round_total", "running_total"
    ]  # fmt: skip
    stored = [
        [str(v) for v in row]
        for row in RoundScore.objects.filter(round__table=table)
        .order_by("round__number", "seat__position")
        .values_list(
            "round__number",
            "seat__position",
            "seat__user__username",
            "bid",
            "won",
            "base",
            "bonus",
            "total",
            "running_total",
        )
    ]
    for row in stored:
        if row[2] == "+after-ana":
            row[2] = "'+after-ana"
    assert lines[1:] == stored
    assert len(stored) == 3 * rules.ROUNDS
