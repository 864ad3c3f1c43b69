"""The admin's table page: read-only, with a cancel button, bids and scores, bounded chat.

Its query count is exact and the same for a small table and a big one (8 seats,
40 chat messages, two rounds): no query per seat, message, bid or score.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.urls import reverse

from games.admin import CHAT_INLINE_LIMIT
from games.models import ChatMessage, Table
from games.play import actions

from .helpers import at_phase, fresh, make_users, play_until, snapshot, started_table

pytestmark = pytest.mark.django_db

# user (the session is read from the cache: cached_db), the table (with host and
# canceller), the seats with their users,
# the rounds with dealers and openers, the latest chat messages with authors and
# their count, the scores, the bids of the current round; and what the game waits for
# (issue 50, games.play.trouble; tables bidding here): the seats, the round, its bids
TABLE_PAGE_QUERIES = 11


@pytest.fixture
def staff_client(client: Any) -> Any:
    (staff,) = make_users(1, "admin")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    client.staff = staff
    return client


def change_url(table: Table) -> str:
    return reverse("admin:games_table_change", args=[table.pk])


def cancel_url(table: Table) -> str:
    return reverse("admin:games_table_cancel", args=[table.pk])


def chatty_table(players: int, messages: int, round_number: int, prefix: str) -> Table:
    table, users = started_table(players, ghost=False, seed=3, prefix=prefix)
    table = play_until(table, random.Random(3), at_phase(Table.Phase.BIDDING, round_number))
    ChatMessage.objects.bulk_create(
        ChatMessage(table=table, author=users[i % players], text=f"message {i}")
        for i in range(messages)
    )
    return table


def test_table_page_query_count_is_flat_in_seats_messages_and_rounds(
    staff_client: Any, django_assert_num_queries: Any
) -> None:
    small = chatty_table(2, 2, 1, "s")
    big = chatty_table(8, 40, 2, "b")
    staff_client.get(change_url(small))  # Django caches the table's content type per process
    for table in (small, big):
        with django_assert_num_queries(TABLE_PAGE_QUERIES):
            response = staff_client.get(change_url(table))
        assert response.status_code == 200


def test_chat_inline_shows_the_latest_messages_and_links_to_all_of_them(staff_client: Any) -> None:
    table = chatty_table(3, 40, 1, "c")
    html = staff_client.get(change_url(table)).content.decode()
    shown = {int(n) for n in re.findall(r"message (\d+)", html)}
    assert shown == set(range(40 - CHAT_INLINE_LIMIT, 40))  # the latest ones only
    link = reverse("admin:games_chatmessage_changelist") + f"?table__id__exact={table.pk}"
    assert f'href="{link}"' in html
    assert "all 40 messages" in html
    (other,) = make_users(1, "other")
    elsewhere = actions.create_table(other)
    actions.post_chat(other, elsewhere.pk, "elsewhere")
    listing = staff_client.get(link)
    assert listing.status_code == 200
    assert "40 chat messages" in listing.content.decode()
    assert "elsewhere" not in listing.content.decode()


def test_table_page_is_read_only_and_has_a_cancel_button(staff_client: Any) -> None:
    table, _users = started_table(3, ghost=False)
    html = staff_client.get(change_url(table)).content.decode()
    for button in ("_save", "_continue", "_addanother"):
        assert f'name="{button}"' not in html
    assert f'href="{cancel_url(table)}"' in html  # to the confirmation (issue 50)
    before = snapshot()
    response = staff_client.post(change_url(table), {"_save": "Save"})
    assert response.status_code == 403  # nothing on the page is editable
    assert snapshot() == before


def test_the_cancel_button_cancels_through_the_action(staff_client: Any) -> None:
    table, _users = started_table(3, ghost=False)
    before = snapshot()
    asked = staff_client.get(cancel_url(table))  # a confirmation with a reason (issue 50)
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert snapshot() == before
    response = staff_client.post(cancel_url(table), {"reason": "stuck"})
    assert response.status_code == 302 and response["Location"] == change_url(table)
    cancelled = fresh(table)
    assert cancelled.status == Table.Status.CANCELLED
    assert cancelled.cancelled_by == staff_client.staff
    assert cancelled.version == table.version + 1  # versioned (and broadcast) like every move
    page = staff_client.get(change_url(table)).content.decode()
    assert f'href="{cancel_url(table)}"' not in page  # nothing left to cancel
    before = snapshot()
    again = staff_client.post(cancel_url(table), {"reason": "stuck"}, follow=True)
    assert "over already" in again.content.decode()
    assert snapshot() == before


def test_a_player_who_is_not_staff_cannot_cancel(client: Any) -> None:
    table, users = started_table(3, ghost=False)
    client.force_login(users[0])
    before = snapshot()
    response = client.post(cancel_url(table))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert snapshot() == before


def test_table_page_shows_bids_and_scores(staff_client: Any) -> None:
    table, users = started_table(3, ghost=False, seed=8, prefix="bs")
    table = play_until(table, random.Random(8), at_phase(Table.Phase.BIDDING, 2))
    actions.place_bid(users[1], table.pk, table.version, 2)
    html = staff_client.get(change_url(table)).content.decode()
    scores = re.search(r'<table class="admin-scores">.*?</table>', html, re.S)
    assert scores, "no score table"
    for score in fresh(table).rounds.get(number=1).scores.select_related("seat__user"):
        row = re.search(rf"<tr><td>1</td><td>{score.seat.user.username}</td>(.*?)</tr>", scores[0])
        assert row, score.seat.user.username
        cells = re.findall(r"<td>(-?\d+)</td>", row[1])
        values = (score.bid, score.won, score.base, score.bonus, score.total, score.running_total)
        assert cells == [str(v) for v in values]
    bids = re.search(r'<table class="admin-bids">.*?</table>', html, re.S)
    assert bids, "no bid table"
    assert f"<td>2</td><td>{users[1].username}</td><td>2</td>" in bids[0]


def test_a_table_cancelled_in_round_two_is_listed_as_such(staff_client: Any) -> None:
    table, users = started_table(3, ghost=False, seed=2, prefix="cx")
    table = play_until(table, random.Random(2), at_phase(Table.Phase.BIDDING, 2))
    actions.leave_table(users[1], table.pk, confirmed=True)
    listing = staff_client.get(reverse("admin:games_table_changelist")).content.decode()
    rows = re.findall(r"<tr>(?:(?!</tr>).)*</tr>", listing, re.S)
    row = [r for r in rows if f'href="{change_url(table)}"' in r]
    assert row
    assert "Cancelled in round 2" in row[0]  # not the phase the cancel cleared
    assert "Not started" not in row[0]
