"""The admin's table list finds trouble (issue 50): whose move the game waits for (or the
host's, between tricks and rounds), how long since the last move, which seats are away
and since when; filters "no move for 10 minutes" and "a player away"; the same facts on
a table's admin page; query counts flat however many tables are listed."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import Seat, Table
from games.play.state import load_state
from games.storage import presence
from games.testing.driver import at_phase, play_until
from games.testing.factories import make_user, seated_table, started_table

pytestmark = pytest.mark.django_db

LIST = reverse("admin:games_table_changelist")


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    return client


def row_of(html: str, table: Table) -> str:
    """The list's row of ``table`` (its link to the table's admin page)."""
    link = reverse("admin:games_table_change", args=[table.pk])
    rows = [r for r in re.findall(r"<tr>(?:(?!</tr>).)*</tr>", html, re.S) if f'href="{link}"' in r]
    assert len(rows) == 1, f"table #{table.pk} not listed once"
    return rows[0]


def cell(row: str, name: str) -> str:
    found = re.search(rf'<td class="field-{name}">(.*?)</td>', row, re.S)
    assert found, f"no {name} column"
    # (Django's time spans say "25\xa0minutes": read as spaces here.)
    return re.sub(r"\s+", " ", found.group(1).replace("&nbsp;", " ")).strip()


def listed(client: Client, **params: str) -> set[int]:
    response = client.get(LIST, params)
    assert response.status_code == 200
    return {t.pk for t in response.context["cl"].result_list}


def idle_for(table: Table, minutes: int) -> None:
    """The table's last move ``minutes`` ago (update() leaves auto_now alone)."""
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now() - timedelta(minutes=minutes))


def open_pages(table: Table) -> None:
    """Every seat of ``table`` has its page open (games.storage.presence)."""
    for seat in Seat.objects.filter(table=table):
        presence.touch(seat.pk, f"socket-{seat.pk}")


def test_the_list_says_whose_move_the_game_waits_for(staff: Client) -> None:
    rng = random.Random(5)
    bidding, users = started_table(3, ghost=False, seed=5, prefix="b")
    playing, _ = started_table(3, ghost=False, seed=5, prefix="p")
    playing = play_until(playing, rng, at_phase(Table.Phase.PLAYING))
    round_done, _ = started_table(2, ghost=False, seed=5, prefix="r")
    round_done = play_until(round_done, rng, at_phase(Table.Phase.ROUND_DONE))
    trick_done, _ = started_table(2, ghost=False, seed=6, prefix="t")
    trick_done = play_until(trick_done, rng, at_phase(Table.Phase.TRICK_DONE))
    waiting, _ = seated_table(2, prefix="w")
    html = staff.get(LIST).content.decode()

    # R4: everyone bids at once; the list names who has not bid yet.
    assert cell(row_of(html, bidding), "waiting_for") == "bids from b1, b2, b3"
    # R5: the one seat whose card the trick waits for, from the rules' order.
    to_play = load_state(playing).seat_to_play()
    assert cell(row_of(html, playing), "waiting_for") == to_play.user.username
    # R11: the host moves the table on.
    assert cell(row_of(html, round_done), "waiting_for") == "the host, between rounds"
    assert cell(row_of(html, trick_done), "waiting_for") == "the host, between tricks"
    assert cell(row_of(html, waiting), "waiting_for") == "-"
    assert users[0].username == "b1"


def test_the_list_says_how_long_since_the_last_move(staff: Client) -> None:
    quiet, _ = started_table(2, prefix="q")
    busy, _ = started_table(2, prefix="b")
    idle_for(quiet, 25)
    html = staff.get(LIST).content.decode()
    assert cell(row_of(html, quiet), "last_move") == "25 minutes ago"
    assert cell(row_of(html, busy), "last_move") == "0 minutes ago"


def test_the_list_says_who_is_away_and_since_when(staff: Client, settings: Any) -> None:
    """Issue 48's "away": no page open for AWAY_AFTER_SECONDS; since the last page closed,
    or since the start for someone never seen."""
    settings.AWAY_AFTER_SECONDS = 60
    table, (anne, bert, _cleo) = started_table(3, ghost=False, prefix="a")
    Table.objects.filter(pk=table.pk).update(started_at=timezone.now() - timedelta(minutes=30))
    seats = {s.user_id: s.pk for s in Seat.objects.filter(table=table)}
    presence.touch(seats[anne.pk], "anne-socket")  # anne has the table open
    presence.touch(seats[bert.pk], "bert-socket")
    presence.leave(seats[bert.pk], "bert-socket")  # bert just closed it: not away yet
    # cleo never opened it: away since the start, 30 minutes ago.
    away = cell(row_of(staff.get(LIST).content.decode(), table), "away")
    assert "a3" in away and "30 minutes" in away
    assert "a1" not in away and "a2" not in away
    everyone_here, _ = started_table(2, prefix="h")
    open_pages(everyone_here)
    assert cell(row_of(staff.get(LIST).content.decode(), everyone_here), "away") == "-"


def test_filter_no_move_for_ten_minutes(staff: Client) -> None:
    stuck, _ = started_table(2, prefix="s")
    slow, _ = started_table(2, prefix="l")
    over, _ = seated_table(2, prefix="o")
    idle_for(stuck, 11)
    idle_for(slow, 9)
    idle_for(over, 60)  # not started: nothing is stuck there
    assert listed(staff, stuck="yes") == {stuck.pk}
    assert listed(staff) >= {stuck.pk, slow.pk, over.pk}


def test_filter_a_player_away(staff: Client, settings: Any) -> None:
    settings.AWAY_AFTER_SECONDS = 0  # no page open: away at once
    someone_away, _ = started_table(2, prefix="x")
    everyone_here, _ = started_table(2, prefix="y")
    open_pages(everyone_here)
    waiting, _ = seated_table(2, prefix="z")  # before the start nobody is away
    assert listed(staff, away="yes") == {someone_away.pk}
    # Both filters at once.
    idle_for(someone_away, 30)
    assert listed(staff, away="yes", stuck="yes") == {someone_away.pk}
    assert waiting.pk in listed(staff)


def test_the_table_s_admin_page_says_the_same(staff: Client, settings: Any) -> None:
    settings.AWAY_AFTER_SECONDS = 0
    table, _ = started_table(2, ghost=False, prefix="c")
    idle_for(table, 12)
    html = staff.get(reverse("admin:games_table_change", args=[table.pk])).content.decode()
    for label in ("Waiting for", "Last move", "Away"):
        assert label in html
    assert "bids from c1, c2" in html
    assert "12\xa0minutes ago" in html
    assert re.search(r"c1 \(away for", html) and re.search(r"c2 \(away for", html)


def _tables(numbers: range) -> None:
    """Tables in every state and phase: half with someone away, a third with no move for
    half an hour (ten in a row hold every mix the filters can list)."""
    rng = random.Random(numbers.start)
    phases = (Table.Phase.BIDDING, Table.Phase.PLAYING, Table.Phase.TRICK_DONE)
    for number in numbers:
        kind = number % 5
        prefix = f"t{number}-"
        if kind == 0:
            seated_table(2, prefix=prefix)
            continue
        table, _ = started_table(2 + number % 3, ghost=False, seed=number, prefix=prefix)
        if kind in (2, 3, 4):
            table = play_until(table, rng, at_phase(phases[kind - 2]))
        if number % 2:
            open_pages(table)
        if number % 3 == 0:
            idle_for(table, 30)


def test_the_list_s_queries_do_not_grow_with_the_tables(staff: Client, settings: Any) -> None:
    """The new columns read their facts for the whole page at once: 10 tables or 50,
    filtered or not, the list costs the same number of queries."""
    settings.AWAY_AFTER_SECONDS = 0
    _tables(range(10))
    staff.get(LIST)  # the session and the content types, read once
    counts = {}
    for params in ({}, {"stuck": "yes"}, {"away": "yes"}):
        with CaptureQueriesContext(connection) as few:
            assert staff.get(LIST, params).status_code == 200
        counts[str(params)] = [len(few)]
    _tables(range(10, 50))
    assert Table.objects.count() == 50
    for params in ({}, {"stuck": "yes"}, {"away": "yes"}):
        with CaptureQueriesContext(connection) as many:
            response = staff.get(LIST, params)
        assert response.status_code == 200
        counts[str(params)].append(len(many))
    assert len(response.context["cl"].result_list) > 10
    for params, (few_count, many_count) in counts.items():
        assert few_count == many_count, (params, few_count, many_count)
    assert counts["{}"][1] == LIST_QUERIES, counts


# The user (1; the session from the cache), the tables counted (2: filtered and in all),
# the page of tables with their hosts and player counts (1), the date hierarchy (2), and the
# new columns, for the page's tables in play: their seats, current rounds, bids, current
# tricks and plays (5). The "a player away" filter adds one: the seats of the tables in play.
LIST_QUERIES = 11
