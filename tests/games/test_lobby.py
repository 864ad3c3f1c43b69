"""The lobby: the user's tables by status, and whose move it is in each game in progress.

Its query count is exact and the same for 1, 5 and 10 games in progress (no
query per table), and what it says of each game is what the table page says.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.models import RoundScore, Table
from games.pages import presenter
from games.play import actions
from games.play.lobby import lobby_context

from .helpers import at_phase, fresh, make_users, play_until, started_table

pytestmark = pytest.mark.django_db

# 4 statuses x 1 query for the tables (host and canceller joined), 1 for every
# listed table's seats and users, then for the games in progress: their current
# rounds, those rounds' bids, their tricks, and the plays of unfinished tricks;
# then the finished games' final scores (issue 11: the lobby shows them).
LOBBY_QUERIES = 4 + 1 + 4 + 1
# The page adds the user (the session is read from the cache: cached_db), and the
# user's score sheets being played (games.sheets: the lobby's "Playing with real
# cards?" panel).
HOME_QUERIES = LOBBY_QUERIES + 1 + 1

# A game in progress in each phase, so every branch of "whose move" is exercised.
PHASES = [
    (Table.Phase.BIDDING, 1),
    (Table.Phase.PLAYING, 2),
    (Table.Phase.TRICK_DONE, 2),
    (Table.Phase.ROUND_DONE, 1),
    (Table.Phase.PLAYING, 3),
]


def games_in_progress(me: Any, count: int) -> list[Table]:
    """``count`` 3-player games that ``me`` plays in, in various phases, hosted by others too."""
    tables = []
    for number in range(count):
        others = make_users(2, prefix=f"t{number}-")
        host, *guests = (me, *others) if number % 2 == 0 else (others[0], me, others[1])
        table = actions.create_table(host, ghost=False)
        for guest in guests:
            table = actions.join_table(guest, table.invite_token)
        table = actions.start_game(host, table.pk, table.version)
        phase, round_number = PHASES[number % len(PHASES)]
        table = play_until(table, random.Random(number), at_phase(phase, round_number))
        tables.append(table)
    return tables


def other_tables(me: Any) -> None:
    """One waiting, one cancelled and one finished table, so every group is listed."""
    (other,) = make_users(1, prefix="other-")
    waiting = actions.create_table(me)
    actions.join_table(other, waiting.invite_token)
    cancelled = actions.create_table(other)
    actions.join_table(me, cancelled.invite_token)
    actions.leave_table(other, cancelled.pk)
    finished = actions.create_table(me)
    actions.join_table(other, finished.invite_token)
    Table.objects.filter(pk=finished.pk).update(status=Table.Status.FINISHED)


@pytest.mark.parametrize("count", [1, 5, 10])
def test_lobby_query_count_is_flat_in_the_number_of_games(
    count: int, django_assert_num_queries: Any
) -> None:
    (me,) = make_users(1, prefix="me")
    games_in_progress(me, count)
    other_tables(me)
    with django_assert_num_queries(LOBBY_QUERIES):
        context = lobby_context(me)
    assert len(context["playing_tables"]) == count
    assert [len(context[f"{s}_tables"]) for s in ("waiting", "finished", "cancelled")] == [1, 1, 1]
    client = Client()
    client.force_login(me)
    with django_assert_num_queries(HOME_QUERIES):
        response = client.get(reverse("home"))
    assert response.status_code == 200


def test_lobby_says_of_each_game_what_its_table_page_says() -> None:
    (me,) = make_users(1, prefix="me")
    tables = games_in_progress(me, 10)
    summaries = {item.table.pk: item for item in lobby_context(me)["playing_tables"]}
    assert set(summaries) == {table.pk for table in tables}
    turns = 0
    for table in tables:
        page = presenter.table_context(
            Table.objects.select_related("host", "cancelled_by").get(pk=table.pk), me
        )
        item = summaries[table.pk]
        assert (item.your_turn, item.headline) == (page["your_turn"], page["headline"])
        assert item.round_number == fresh(table).round_number
        assert item.players == [p.name for p in page["players"]() if not p.is_ghost]
        turns += item.your_turn
    assert 0 < turns < len(tables)  # both kinds of game are in the sample


def test_lobby_lists_nothing_of_tables_the_user_does_not_sit_at() -> None:
    (me,) = make_users(1, prefix="me")
    (stranger,) = make_users(1, prefix="stranger")
    games_in_progress(stranger, 2)
    context = lobby_context(me)
    assert not context["has_tables"]
    assert context["playing_tables"] == []


def test_lobby_shows_the_winners_and_final_scores_of_finished_games_r10() -> None:
    """Issue 11: a finished table lists every final total, best first, the winner marked."""
    users = make_users(3, prefix="fin")
    table, _ = started_table(users, ghost=False, seed=3)
    table = play_until(table, random.Random(3), at_phase(Table.Phase.ROUND_DONE, 1))
    # Stopped after round 1 as if it were the last (the lobby reads the last round's totals).
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    totals = {
        s.seat.user.username: s.running_total
        for s in RoundScore.objects.filter(round__table=table).select_related("seat__user")
    }
    best = max(totals.values())
    client = Client()
    client.force_login(users[0])
    html = client.get(reverse("home")).content.decode()
    final = re.search(r'<ol class="table-list__final".*?</ol>', html, re.S)
    assert final
    shown = re.findall(r"<li[^>]*>(\w+) (-?\d+)", final.group(0))
    assert {(n, int(t)) for n, t in shown} == set(totals.items()) and len(shown) == 3
    assert [int(t) for _n, t in shown] == sorted(totals.values(), reverse=True)  # best first
    winners = re.findall(r'<li class="table-list__winner">(\w+) ', final.group(0))
    assert sorted(winners) == sorted(n for n, t in totals.items() if t == best)


def test_a_new_players_lobby_says_where_to_start_and_leads_to_each_first_step(client) -> None:
    """Issue 49: a lobby with no table yet says what to do first; each step's link leads to
    its form on the same page (create a table, practise, the score sheet) and the rules."""
    (user,) = make_users(1)
    client.force_login(user)
    html = client.get(reverse("home")).content.decode()
    start = re.search(r'<section class="panel start-here".*?</section>', html, re.S)
    assert start, "no Where to start for a new player"
    for anchor in re.findall(r'href="#([\w-]+)"', start.group(0)):
        assert f'id="{anchor}"' in html, f"#{anchor} leads nowhere"
    assert len(re.findall(r'href="#', start.group(0))) == 3
    assert f'href="{reverse("rules")}"' in start.group(0)

    actions.create_table(user, ghost=False)
    html = client.get(reverse("home")).content.decode()
    assert "start-here" not in html  # a player with a table knows the way


def test_the_home_page_shows_the_table_and_what_makes_it_different(client) -> None:
    """Issue 49: a visitor sees a picture of a game (with words for a screen reader) and
    the site's strengths, with Sign up and Log in."""
    from django.contrib.staticfiles import finders

    html = client.get(reverse("home")).content.decode()
    picture = re.search(r"<picture>.*?</picture>", html, re.S)
    assert picture
    for source in re.findall(r'(?:src|srcset)="/static/([^"]+)"', picture.group(0)):
        assert finders.find(source), f"{source} is not a static file"
    assert re.search(r'<img [^>]*alt="A game in progress[^"]+"', picture.group(0))
    features = re.search(r'<ul class="features__list">.*?</ul>', html, re.S)
    assert features and features.group(0).count("<li>") == 6
    assert reverse("signup") in html and reverse("login") in html
