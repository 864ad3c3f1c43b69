"""A player's profile: their past games (paginated) and their statistics, from the rows."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest
from django.urls import reverse

from games.after import history
from games.after.stats import player_stats
from games.models import RoundScore, Table

from .conftest import World, client_for

pytestmark = pytest.mark.django_db


def profile_url(user: Any) -> str:
    return reverse("player", args=[user.username])


def listed(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr data-table="(\d+)">', html)]


def finals(table: Table) -> dict[str, int]:
    return dict(
        RoundScore.objects.filter(round__table=table, round__number=10).values_list(
            "seat__user__username", "running_total"
        )
    )


def test_the_history_lists_finished_and_cancelled_games_newest_first(world: World) -> None:
    ana = world.user("ana")
    response = client_for(world.user("dan")).get(profile_url(ana))
    assert response.status_code == 200
    # newest first: the last game built ended last; the game in progress is not listed
    assert listed(response.content.decode()) == [
        world.finished2.pk,
        world.finished3.pk,
        world.cancelled.pk,
    ]
    entries = {e.table_id: e for e in response.context["entries"]}
    for table in (world.finished3, world.finished2):
        entry = entries[table.pk]
        totals = finals(table)
        best = max(totals.values())
        assert entry.finished and entry.ended_at == Table.objects.get(pk=table.pk).finished_at
        assert [p.name for p in entry.players] == [
            s.user.username for s in table.seats.select_related("user").order_by("position")
        ]
        in_seat_order = [p.name for p in entry.players]
        assert entry.winners == [n for n in in_seat_order if totals[n] == best]  # R10
        assert entry.score == totals[ana.username]
        assert entry.place == 1 + sum(1 for t in totals.values() if t > totals[ana.username])
        assert entry.can_replay is False  # dan did not sit there
    cancelled = entries[world.cancelled.pk]
    assert not cancelled.finished and cancelled.score is None and cancelled.place is None
    assert cancelled.cancelled_by == world.user("ben").username


def test_players_can_replay_their_games_from_the_history(world: World) -> None:
    html = client_for(world.user("ana")).get(profile_url(world.user("ben"))).content.decode()
    assert reverse("replay", args=[world.finished3.pk]) in html  # ana sat there too
    assert reverse("replay", args=[world.cancelled.pk]) not in html  # no replay of a cancel


def test_the_history_is_paginated(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "PAGE_SIZE", 2)
    client = client_for(world.user("ana"))
    url = profile_url(world.user("ana"))
    first = client.get(url).content.decode()
    second = client.get(url + "?page=2").content.decode()
    assert listed(first) == [world.finished2.pk, world.finished3.pk]
    assert listed(second) == [world.cancelled.pk]
    assert 'rel="next" href="?page=2"' in first and 'rel="prev" href="?page=1"' in second
    # Nonsense page numbers show a real page rather than an error.
    assert listed(client.get(url + "?page=abc").content.decode()) == listed(first)
    assert listed(client.get(url + "?page=999").content.decode()) == listed(second)


def test_history_and_profile_queries_are_flat_in_the_number_of_games(
    world: World, django_assert_num_queries: Any
) -> None:
    client = client_for(world.user("dan"))
    # user (the session comes from the cache: cached_db), the player, count, the page
    # (tables and score sheets), its tables, their seats, final scores, for whom the
    # computer moved (issue 48), 3 for stats
    for name, games in (("ana", 3), ("cy", 2), ("ben", 3)):
        with django_assert_num_queries(11):
            response = client.get(profile_url(world.user(name)))
        assert len(listed(response.content.decode())) == games


def test_an_unknown_player_is_a_404_and_names_ignore_case(world: World) -> None:
    client = client_for(world.user("ana"))
    assert client.get(reverse("player", args=["nobody-here"])).status_code == 404
    assert client.get("/players/<script>/").status_code == 404
    assert client.get(reverse("player", args=["AFTER-BEN"])).context["player"] == world.user("ben")
    assert client_for(None).get(profile_url(world.user("ana"))).status_code == 302


def test_the_lobby_and_player_names_link_to_profiles(world: World) -> None:
    ana = world.user("ana")
    home = client_for(ana).get(reverse("home")).content.decode()
    assert f'href="{profile_url(ana)}"' in home
    for name in ("ben", "cy"):  # the players listed with each table in the lobby
        assert f'href="{profile_url(world.user(name))}"' in home
    page = client_for(ana).get(profile_url(ana)).content.decode()
    assert f'href="{profile_url(world.user("cy"))}"' in page


# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------


def stats_from_rows(user: Any) -> dict[str, Any]:
    """The statistics computed directly from every RoundScore row of finished games."""
    rows = list(
        RoundScore.objects.filter(round__table__status=Table.Status.FINISHED).values(
            "round__table", "round__number", "seat__user", "bid", "won", "total", "running_total"
        )
    )
    final: dict[int, dict[int, int]] = defaultdict(dict)
    for row in rows:
        if row["round__number"] == 10:
            final[row["round__table"]][row["seat__user"]] = row["running_total"]
    mine = [row for row in rows if row["seat__user"] == user.pk]
    my_games = [totals for totals in final.values() if user.pk in totals]
    zero = [row for row in mine if row["bid"] == 0]
    return {
        "games": len(my_games),
        "wins": sum(1 for t in my_games if t[user.pk] == max(t.values())),
        "average_score": (sum(t[user.pk] for t in my_games) / len(my_games)) if my_games else None,
        "exact_bid_rate": (
            sum(1 for r in mine if r["bid"] == r["won"]) / len(mine) if mine else None
        ),
        "zero_bid_rate": (sum(1 for r in zero if r["won"] == 0) / len(zero) if zero else None),
        "best_round": max((r["total"] for r in mine), default=None),
    }


def computed(user: Any) -> dict[str, Any]:
    stats = player_stats(user)
    return {key: getattr(stats, key) for key in stats_from_rows(user)}


@pytest.mark.parametrize("name", ["ana", "ben", "cy", "dan"])
def test_statistics_equal_those_computed_from_the_rows(world: World, name: str) -> None:
    user = world.user(name)
    assert computed(user) == pytest.approx(stats_from_rows(user))
    expected = {"ana": 2, "ben": 2, "cy": 1, "dan": 0}[name]
    assert player_stats(user).games == expected
    assert player_stats(user).rounds == 10 * expected  # games in progress or cancelled: none


def test_a_shared_victory_is_a_win_for_each(world: World) -> None:
    """R10: players tied for the highest total share the victory."""
    table = world.finished2
    last = RoundScore.objects.filter(round__table=table, round__number=10)
    best = max(last.values_list("running_total", flat=True))
    last.update(running_total=best)
    for name in ("ana", "ben"):
        user = world.user(name)
        assert computed(user) == pytest.approx(stats_from_rows(user))
        assert player_stats(user).wins >= 1
    wins = {name: player_stats(world.user(name)).wins for name in ("ana", "ben")}
    html = client_for(world.user("ana")).get(profile_url(world.user("ana"))).content.decode()
    assert f'data-stat="wins">{wins["ana"]}<' in html
    entry = next(
        e
        for e in client_for(world.user("ana"))
        .get(profile_url(world.user("ana")))
        .context["entries"]
        if e.table_id == table.pk
    )
    assert sorted(entry.winners) == ["after-ana", "after-ben"] and entry.place == 1


def test_statistics_cost_three_queries(world: World, django_assert_num_queries: Any) -> None:
    # the table's games (2), the score sheets' (1: games.sheets.stats)
    with django_assert_num_queries(3):
        player_stats(world.user("ana"))


def test_the_profile_and_the_admin_show_the_statistics(world: World) -> None:
    ana = world.user("ana")
    stats = player_stats(ana)
    html = client_for(world.user("cy")).get(profile_url(ana)).content.decode()
    assert f'data-stat="games">{stats.games}<' in html
    assert f'data-stat="best">{stats.best_round}<' in html
    assert f'data-stat="exact">{stats.exact_bid_percent}%' in html
    admin = client_for(world.user("staff")).get(
        reverse("admin:accounts_user_change", args=[ana.pk])
    )
    assert admin.status_code == 200
    body = admin.content.decode()
    assert f'data-stat="games">{stats.games}<' in body
    assert f'data-stat="wins">{stats.wins}<' in body
    # the admin list stays cheap: no statistics per row
    assert (
        'data-stat="games"'
        not in client_for(world.user("staff"))
        .get(reverse("admin:accounts_user_changelist"))
        .content.decode()
    )


def test_each_player_name_at_the_table_links_to_their_history(world: World) -> None:
    """Issue 14: history is linked from each player's name (the table's seat list too)."""
    table = world.finished3
    html = client_for(world.user("ana")).get(reverse("table", args=[table.pk])).content.decode()
    seats = html[html.index('<section id="seats"') :]
    seats = seats[: seats.index("</section>")]
    for name in ("ana", "ben", "cy"):
        assert f'href="{profile_url(world.user(name))}"' in seats
