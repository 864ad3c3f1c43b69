"""Staff watch a table (issue 50): the page and the socket of a table they are not seated at,
read only, as a spectator. R4 holds for them too: never a hand, never a bid before all are in.
The players see, in the seat list, that a staff member is watching."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from games.live import broadcast
from games.models import Bid, HandCard, Table
from games.play import actions
from games.play.state import load_state
from games.testing.factories import make_user, session_cookie, started_table
from tests.live.helpers import card_codes, close_code, drain, open_socket, versions

db = database_sync_to_async
WATCH = "games.watch_table"


def watcher(name: str = "warden", *, permission: bool = True, staff: bool = True) -> Any:
    user = make_user(name, is_staff=staff)
    if permission:
        user.user_permissions.add(Permission.objects.get(codename="watch_table"))
    return user


def hands(table: Table) -> set[str]:
    return set(
        HandCard.objects.filter(
            round__table=table, round__number=table.round_number, played=False
        ).values_list("card", flat=True)
    )


def mentions_any(html: str, codes: set[str]) -> set[str]:
    return {c for c in codes if re.search(rf"(?<![A-Za-z0-9]){re.escape(c)}(?![A-Za-z0-9])", html)}


def no_secret(html: str, table: Table) -> None:
    """R4: no card of any hand, no bid value before every bid is in, no form at all."""
    table.refresh_from_db()
    assert not mentions_any(html, hands(table)), mentions_any(html, hands(table))
    bids = Bid.objects.filter(round__table=table, round__number=table.round_number).count()
    if bids < table.seats.count():
        assert not re.search(r"data-bid=|Bid \d|data-round-points=", html)
    assert "<form" not in html
    assert 'id="hand"' not in html and 'id="controls"' not in html


# -- the page -------------------------------------------------------------------------


@pytest.mark.django_db
def test_staff_with_watch_table_sees_the_table_read_only_with_the_banner(client: Client) -> None:
    table, users = started_table(3, ghost=False, seed=5)
    actions.place_bid(users[0], table.pk, table.version, 1)  # R4: secret until all have bid
    actions.post_chat(users[1], table.pk, "ahoy")
    staff = watcher()
    client.force_login(staff)
    response = client.get(reverse("table", args=[table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Watching as staff" in html
    assert 'id="seats"' in html and 'id="trick"' in html and 'id="scores"' in html
    assert "ahoy" in html  # the chat log
    assert 'name="text"' not in html  # no chat form
    assert 'id="status"' not in html  # no seat's own status line
    assert "data-has-bid" in html  # who has bid is public
    table.refresh_from_db()
    no_secret(html.split('id="table-content"', 1)[1], table)  # the header's log-out form aside
    assert f'ws-connect="/ws/tables/{table.pk}/"' in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("permission", "staff"),
    [
        pytest.param(False, True, id="staff-without-the-permission"),
        pytest.param(False, False, id="not-staff"),
        pytest.param(True, False, id="permission-but-not-staff"),
    ],
)
def test_without_the_permission_or_staff_status_the_page_is_403(
    client: Client, permission: bool, staff: bool
) -> None:
    table, _users = started_table(2, ghost=True)
    client.force_login(watcher(permission=permission, staff=staff))
    response = client.get(reverse("table", args=[table.pk]))
    assert response.status_code == 403
    assert "Watching as staff" not in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("permission", [True, False], ids=["may watch", "may not"])
def test_the_table_s_admin_page_links_to_watching_it_for_who_may(
    client: Client, permission: bool
) -> None:
    table, _users = started_table(2, ghost=True)
    staff = watcher(permission=permission)
    staff.user_permissions.add(Permission.objects.get(codename="view_table"))
    client.force_login(staff)
    page = client.get(reverse("admin:games_table_change", args=[table.pk]))
    assert page.status_code == 200
    link = f'href="{reverse("table", args=[table.pk])}"'
    assert (link in page.content.decode()) is permission
    assert ("Watch this table" in page.content.decode()) is permission


@pytest.mark.django_db
def test_a_watching_staff_member_s_post_is_refused_as_anyone_s_not_seated(client: Client) -> None:
    table, _users = started_table(2, ghost=True)
    client.force_login(watcher())
    before = (table.version, Bid.objects.count(), table.messages.count())
    for name, form in (
        ("place_bid", {"version": str(table.version), "value": "0"}),
        ("post_chat", {"text": "hello"}),
        ("leave_table", {"confirm": "yes"}),
    ):
        response = client.post(reverse(name, args=[table.pk]), form)
        assert response.status_code == 403, name
        assert "Watching as staff" not in response.content.decode()
    table.refresh_from_db()
    assert (table.version, Bid.objects.count(), table.messages.count()) == before


@pytest.mark.django_db
def test_the_watch_page_costs_a_fixed_number_of_queries(
    client: Client, django_assert_num_queries: Any
) -> None:
    """The spectator's path only (a player's page keeps its own count, tests/games/test_views):
    the session's user, the table, the permission (the user's and their groups'), the game."""
    client.force_login(watcher())
    for players in (2, 6):
        table, _users = started_table(players, ghost=False, prefix=f"q{players}-")
        client.get(reverse("table", args=[table.pk]))  # warm the session
        with django_assert_num_queries(WATCH_PAGE_QUERIES):
            assert client.get(reverse("table", args=[table.pk])).status_code == 200


# The user (1; the session from the cache), the table (1), the game while bidding (5:
# seats, round, hands, bids, tricks; games.play.state), its version read again (1), the
# permission: the user's and their groups' (2), the score sheet (1), the chat (1).
WATCH_PAGE_QUERIES = 12


# -- the socket -----------------------------------------------------------------------


@pytest.fixture
async def _fresh_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()
    broadcast._watched_here.clear()
    yield
    broadcast._watched_here.clear()
    await layer.flush()


def watching_line(frames: list[str]) -> str:
    """The last "staff watching" line these frames carried (the players' seat list)."""
    lines = re.findall(r'<p id="watching"[^>]*>.*?</p>', "".join(frames), re.S)
    assert lines, "no watching line"
    return lines[-1]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_fresh_layer")
async def test_the_staff_socket_gets_the_public_frames_live_and_nothing_secret() -> None:
    table, users = await db(started_table)(3, ghost=False, seed=7)
    staff = await db(watcher)()
    players = [await open_socket(table.pk, await db(session_cookie)(u)) for u in users]
    for sock in players:
        await drain(sock)
    sock = await open_socket(table.pk, await db(session_cookie)(staff))
    snapshot = (await drain(sock))[0]
    assert versions(snapshot) == {table.version}
    for region in ("seats", "trick", "scores", "chat-log", "tricks-history"):
        assert f'id="{region}"' in snapshot
    assert card_codes(snapshot) == set()
    await db(no_secret)(snapshot, table)

    # R4: a bid is made; the staff socket sees who has bid, not the value.
    table = await db(actions.place_bid)(users[0], table.pk, table.version, 1)
    frames = await drain(sock, first_timeout=2)
    assert any(table.version in versions(f) for f in frames)
    for frame in frames:
        await db(no_secret)(frame, table)
    assert any("data-has-bid" in f for f in frames)

    # The last bids: now every bid shows, to the staff as to everyone.
    table = await db(actions.place_bid)(users[1], table.pk, table.version, 0)
    table = await db(actions.place_bid)(users[2], table.pk, table.version, 1)
    frames = await drain(sock, first_timeout=2)
    assert any('data-bid="1"' in f for f in frames)
    for frame in frames:
        await db(no_secret)(frame, table)

    # A card played: the trick shows it live; no other card of any hand.
    state = await db(load_state)(table)
    seat = state.seat_to_play()
    card = sorted(state.legal_cards(seat))[0]
    mover = next(u for u in users if u.pk == seat.user_id)
    table = await db(actions.play_card)(
        mover, table.pk, table.version, card, "pirate" if card == "TIG" else ""
    )
    frames = await drain(sock, first_timeout=2)
    assert any(f'data-card="{card}' in f for f in frames)
    for frame in frames:
        await db(no_secret)(frame, table)

    # The chat log, live.
    await db(actions.post_chat)(users[2], table.pk, "who watches?")
    frames = await drain(sock, first_timeout=2)
    assert any("who watches?" in f for f in frames)

    # A snapshot asked again: the same public regions.
    await sock.send_to(text_data='{"type": "snapshot"}')
    frames = await drain(sock, first_timeout=2)
    for frame in frames:
        await db(no_secret)(frame, table)
    await sock.disconnect()
    for player in players:
        await player.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_fresh_layer")
async def test_the_players_see_a_staff_member_watching_and_leaving() -> None:
    table, users = await db(started_table)(2, ghost=True, seed=3)
    staff = await db(watcher)()
    anne = await open_socket(table.pk, await db(session_cookie)(users[0]))
    seen = await drain(anne)
    assert 'data-staff-watching="0"' in watching_line(seen)
    assert "A staff member" not in watching_line(seen)
    sock = await open_socket(table.pk, await db(session_cookie)(staff))
    await drain(sock)
    line = watching_line(await drain(anne, first_timeout=2))
    assert "A staff member is watching this table." in line
    assert 'data-staff-watching="1"' in line
    # A page opened now says so too.
    client = Client()
    await db(client.force_login)(users[1])
    page = await db(client.get)(reverse("table", args=[table.pk]))
    assert "A staff member is watching this table." in page.content.decode()
    await sock.disconnect()
    line = watching_line(await drain(anne, first_timeout=2))
    assert "A staff member" not in line and 'data-staff-watching="0"' in line
    await anne.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_fresh_layer")
async def test_a_staff_socket_without_the_permission_is_closed_with_4403() -> None:
    table, _users = await db(started_table)(2, ghost=True)
    staff = await db(watcher)(permission=False)
    sock = await open_socket(table.pk, await db(session_cookie)(staff))
    assert await close_code(sock) == 4403
    await sock.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_fresh_layer")
async def test_a_move_made_with_no_player_listening_reaches_the_staff_socket() -> None:
    """Nobody seated has the table open (the frames are rendered for nobody): the staff
    socket still gets the move, in its own language."""
    table, users = await db(started_table)(2, ghost=True, seed=9)
    staff = await db(watcher)()
    staff.language = "fr"
    await db(staff.save)()
    sock = await open_socket(table.pk, await db(session_cookie)(staff))
    await drain(sock)
    table = await db(actions.place_bid)(users[0], table.pk, table.version, 0)
    frames = await drain(sock, first_timeout=2)
    assert any(table.version in versions(f) for f in frames)
    assert any("Joueurs" in f for f in frames)  # the seat list's heading, in French
    for frame in frames:
        await db(no_secret)(frame, table)
    await sock.disconnect()
