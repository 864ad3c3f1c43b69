"""After a game with computer players (issue 48): the record, the replay, the history, the stats.

Every move says who made it, a person or the computer; ``verify_game`` still verifies
such a record (R1-R10); a practice game is kept apart from the record of wins.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games.after.record import build_record, verify_record
from games.after.stats import player_stats
from games.models import Bid, Play, Table
from games.play import actions
from games.storage import presence
from games.testing.factories import make_user, make_users, seated_table
from tests.games.test_computer_players import play_to_the_end

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_practice_game_s_record_says_who_moved_and_verifies(tmp_path: Path) -> None:
    """R1-R10 hold whoever moved: the record of a game against the computer verifies."""
    anne = make_user("anne")
    table = play_to_the_end(actions.start_practice(anne, 2, "easy"), seed=5)
    record = build_record(table)
    verify_record(record)
    assert record["seats"] == [
        {"position": 1, "player": "anne", "computer": None},
        {"position": 2, "player": "computer-1", "computer": "easy"},
        {"position": 3, "player": "computer-2", "computer": "easy"},
    ]
    for game_round in record["rounds"]:
        assert game_round["bids_by"] == ["person", "computer", "computer"]
        for trick in game_round["tricks"]:
            for play in trick["plays"]:
                assert play["by"] == ("person" if play["seat"] == 1 else "computer")
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = StringIO()
    call_command("verify_game", str(path), stdout=out)
    assert "computer-1" in out.getvalue()


def test_a_practice_game_is_kept_apart_from_the_record_of_wins() -> None:
    anne = make_user("anne")
    play_to_the_end(actions.start_practice(anne, 1, "easy"), seed=6)
    stats = player_stats(anne)
    assert (stats.games, stats.wins, stats.rounds, stats.average_score) == (0, 0, 0, None)
    assert stats.computer_games == 1
    page = _client(anne).get(reverse("player", args=["anne"])).content.decode()
    assert "data-with-computers" in page
    assert 'data-stat="computer-games"' in page
    # A computer player has no profile page to link to, and is marked as the computer.
    assert reverse("player", args=["computer-1"]) not in page
    assert "Computer 1" in page


def test_the_history_and_the_replay_say_for_whom_the_computer_moved(settings: Any) -> None:
    """An away player's seat, handed to the computer: their moves are marked as its."""
    settings.AWAY_AFTER_SECONDS = 0
    anne, bert, cleo = make_users(3)
    table, _users = seated_table([anne, bert, cleo])
    table = actions.start_game(anne, table.pk, table.version)
    for user in (anne, bert):
        presence.touch(table.seats.get(user=user).pk, f"socket-{user.pk}")
    cleo_seat = table.seats.get(user=cleo)
    actions.hand_over(anne, table.pk, table.version, cleo_seat.pk)
    table = play_to_the_end(Table.objects.get(pk=table.pk), seed=7)
    assert table.status == Table.Status.FINISHED
    assert Bid.objects.filter(seat=cleo_seat, by_computer=False).count() == 0
    assert Play.objects.filter(seat=cleo_seat, by_computer=True).count() == 55

    record = build_record(table)
    verify_record(record)
    assert all(r["bids_by"] == ["person", "person", "computer"] for r in record["rounds"])
    # A person's game: it counts in their record (the score stays the owner's).
    assert player_stats(cleo).games == 1 and player_stats(cleo).computer_games == 0

    page = _client(anne).get(reverse("player", args=[anne.username])).content.decode()
    assert "data-stood-in-for" in page and f"The computer played for {cleo.username}" in page
    assert "data-with-computers" not in page
    replay = (
        _client(anne).get(reverse("replay", args=[table.pk]) + "?round=3&trick=1").content.decode()
    )
    assert "data-by-computer" in replay and "data-bid-by-computer" in replay
