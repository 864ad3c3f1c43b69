"""The replay of a finished game: every step, hands shown (the game is over), the score
sheet as it stood, links and keys to step back and forth, for its players only."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from django.urls import reverse

from games.after.replay import replay_context
from games.models import HandCard, Play, Round, RoundScore, Seat, Trick
from tests.security.test_csp import InlineFinder

from .conftest import World, client_for

pytestmark = pytest.mark.django_db

TABLES = pytest.mark.parametrize("table_name", ["finished3", "finished2"])


def replay_url(table: Any, round_number: int | None = None, trick: int | None = None) -> str:
    url = reverse("replay", args=[table.pk])
    if round_number is not None:
        url += f"?round={round_number}&trick={trick}"
    return url


def stored_sheet(table: Any, through: int) -> list[list[tuple[int, ...]]]:
    rows: dict[int, list[tuple[int, ...]]] = {}
    for score in RoundScore.objects.filter(round__table=table, round__number__lte=through).order_by(
        "round__number", "seat__position"
    ):
        rows.setdefault(score.round.number, []).append(
            (score.bid, score.won, score.base, score.bonus, score.total, score.running_total)
        )
    return [rows[n] for n in sorted(rows)]


def context_sheet(context: Any) -> list[list[tuple[int, ...]]]:
    return [
        [(c.bid, c.won, c.base, c.bonus, c.total, c.running_total) for c in row["cells"]]
        for row in context["sheet"]["rows"]
    ]


@TABLES
def test_the_replay_score_sheet_at_the_end_equals_the_stored_scores(
    world: World, table_name: str
) -> None:
    """R9/R10: the last step shows exactly the stored sheet and final totals."""
    table = getattr(world, table_name)
    last = Round.objects.get(table=table, number=10)
    response = client_for(world.user("ana")).get(replay_url(table, 10, last.cards_dealt))
    assert response.status_code == 200
    assert context_sheet(response.context) == stored_sheet(table, 10)
    finals = list(
        RoundScore.objects.filter(round=last)
        .order_by("seat__position")
        .values_list("running_total", flat=True)
    )
    assert response.context["sheet"]["totals"] == finals
    # and the page shows those numbers, in seat order, in the sheet's footer
    html = response.content.decode()
    footer = re.search(r"<tfoot>.*?</tfoot>", html, re.S).group(0)
    assert [int(n) for n in re.findall(r"<strong>(-?\d+)</strong>", footer)] == finals
    assert not response.context["next_url"]


@TABLES
def test_the_score_sheet_shows_the_scores_as_they_stood(world: World, table_name: str) -> None:
    table = getattr(world, table_name)
    ana = Seat.objects.get(table=table, user=world.user("ana"))
    for game_round in Round.objects.filter(table=table, number__in=[1, 4, 7]):
        n = game_round.number
        at_deal = replay_context(table, ana, n, 0)
        assert context_sheet(at_deal) == stored_sheet(table, n - 1)
        assert at_deal["round_summary"] == []
        before_last = replay_context(table, ana, n, game_round.cards_dealt - 1)
        assert context_sheet(before_last) == stored_sheet(table, n - 1)
        at_end = replay_context(table, ana, n, game_round.cards_dealt)
        assert context_sheet(at_end) == stored_sheet(table, n)
        assert [line["score"].total for line in at_end["round_summary"]] == [
            row[4] for row in stored_sheet(table, n)[-1]
        ]


@TABLES
def test_every_hand_bid_and_play_is_revealed_trick_by_trick(world: World, table_name: str) -> None:
    """The game is over: all hands (the ghost's pile too, in deal order, R8) and bids show."""
    table = getattr(world, table_name)
    me = Seat.objects.get(table=table, user=world.user("ana"))
    game_round = Round.objects.get(table=table, number=5)
    dealt: dict[int | None, list[str]] = {}
    for hand_card in HandCard.objects.filter(round=game_round).order_by("deal_order"):
        dealt.setdefault(hand_card.seat_id, []).append(hand_card.card)
    seats = list(Seat.objects.filter(table=table).order_by("position"))
    keys: list[int | None] = [s.pk for s in seats]
    if table.uses_ghost:
        keys.insert(1, None)  # the ghost is listed second, as at the table
    bids = {s.seat_id: s.bid for s in RoundScore.objects.filter(round=game_round)}

    context = replay_context(table, me, 5, 0)
    assert [p.is_ghost for p in context["players"]] == [k is None for k in keys]
    for key, player in zip(keys, context["players"], strict=True):
        codes = [c.code for c in player.hand]
        assert sorted(codes) == sorted(dealt[key])
        if key is None:
            assert codes == dealt[None]  # the pile in deal order, top first
        assert player.bid == bids.get(key)

    played: set[str] = set()
    for trick in Trick.objects.filter(round=game_round).order_by("number"):
        context = replay_context(table, me, 5, trick.number)
        plays = list(Play.objects.filter(trick=trick).order_by("order"))
        shown = context["trick"]
        assert [(p.code, p.as_) for p in shown.plays] == [(p.card, p.tigress_as) for p in plays]
        assert shown.destroyed_by == trick.destroyed_by
        assert shown.bonus == (0 if trick.destroyed_by else trick.bonus)
        winners = [p for p in shown.plays if p.is_winner]
        assert len(winners) == (0 if trick.destroyed_by else 1)
        for key, player in zip(keys, context["players"], strict=True):
            remaining = [c for c in dealt[key] if c not in played]
            assert sorted(c.code for c in player.hand) == sorted(remaining)
            now = {c.code for c in player.hand if c.played_now}
            assert now == {p.card for p in plays if p.seat_id == key}
        played |= {p.card for p in plays}


def test_stepping_forward_and_back_visits_every_step_once(world: World) -> None:
    table = world.finished3
    me = Seat.objects.get(table=table, user=world.user("cy"))
    rounds = list(Round.objects.filter(table=table).order_by("number"))
    expected = [(r.number, t) for r in rounds for t in range(r.cards_dealt + 1)]
    visited, step = [], (1, 0)
    while True:
        visited.append(step)
        context = replay_context(table, me, *step)
        if not context["next_url"]:
            break
        found = re.search(r"round=(\d+)&trick=(\d+)", context["next_url"])
        step = (int(found.group(1)), int(found.group(2)))
    assert visited == expected
    for before, after in itertools.pairwise(expected):
        prev_url = replay_context(table, me, *after)["prev_url"]
        assert prev_url.endswith(f"?round={before[0]}&trick={before[1]}")


def test_the_page_has_links_and_keys_and_no_inline_script(world: World) -> None:
    table = world.finished3
    client = client_for(world.user("ben"))
    first = client.get(replay_url(table)).content.decode()  # no parameters: the first step
    assert 'rel="prev"' not in first
    assert re.search(r'<a [^>]*rel="next" accesskey="n" href="[^"]*round=1&amp;trick=1"', first)
    middle = client.get(replay_url(table, 3, 2))
    html = middle.content.decode()
    assert re.search(r'<a [^>]*rel="prev" accesskey="p" href="[^"]*round=3&amp;trick=1"', html)
    assert re.search(r'<a [^>]*rel="next" accesskey="n" href="[^"]*round=3&amp;trick=3"', html)
    assert re.search(r'<script src="[^"]*js/replay\.js"', html)
    finder = InlineFinder()
    finder.feed(html)
    assert finder.problems == []
    assert "default-src 'self'" in middle.headers["Content-Security-Policy"]


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("?round=abc&trick=0", 400),
        ("?round=1&trick=%00", 400),
        ("?round=11&trick=0", 404),
        ("?round=0&trick=0", 404),
        ("?round=2&trick=3", 404),  # round 2 has 2 tricks
        ("?round=2&trick=-1", 404),
        ("?round=99999999999999999999&trick=0", 400),
    ],
)
def test_steps_that_do_not_exist_are_refused_with_a_message(
    world: World, query: str, status: int
) -> None:
    response = client_for(world.user("ana")).get(replay_url(world.finished3) + query)
    assert response.status_code == status
    assert re.search(r'role="alert">\s*\S', response.content.decode())


def test_only_the_players_of_the_game_see_its_replay(world: World) -> None:
    table = world.finished3
    for name in ("dan", "staff"):
        assert client_for(world.user(name)).get(replay_url(table)).status_code == 403
    response = client_for(None).get(replay_url(table))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client_for(world.user("cy")).get(replay_url(table)).status_code == 200


def test_the_replay_page_costs_the_same_queries_whatever_the_step_and_size(
    world: World, django_assert_num_queries: Any
) -> None:
    client = client_for(world.user("ana"))
    # user (the session comes from the cache), table, seat, then 7 for the replay
    # (seats, rounds, tricks, plays, hand cards, bids, scores)
    for table, step in [
        (world.finished3, (10, 10)),
        (world.finished2, (1, 0)),
        (world.finished2, (6, 3)),
    ]:
        with django_assert_num_queries(10):
            assert client.get(replay_url(table, *step)).status_code == 200
