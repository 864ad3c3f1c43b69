"""The pages of games/play/views.py: lobby, invites, the table page, POST views (plain and htmx)."""

from __future__ import annotations

import random
import re
from urllib.parse import quote

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.live import broadcast
from games.models import ChatMessage, Seat, Table
from games.pages import presenter
from games.play import actions
from games.play.state import load_state

from .helpers import (
    ACTION_URL_NAMES,
    at_phase,
    bid_all,
    fresh,
    make_users,
    play_until,
    random_move,
    rig_hands,
    seated_table,
    started_table,
    state_of,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def table_url(table: Table | int, name: str = "table") -> str:
    return reverse(name, args=[table if isinstance(table, int) else table.pk])


def region(html: str, region_id: str) -> str:
    """The HTML of one region (<section id=...> ... </section>) of the table page."""
    match = re.search(rf'<(section|ol) id="{region_id}".*?</\1>', html, re.S)
    assert match, f"no #{region_id} region"
    return match.group(0)


def seat_entry(html: str, seat: Seat) -> str:
    entry = rf'<li [^>]*class="seat[^"]*" data-seat="seat-{seat.pk}">.*?</li>'
    match = re.search(entry, html, re.S)
    assert match
    return match.group(0)


def data_cards(html: str) -> set[str]:
    return set(re.findall(r'data-card="([A-Z0-9]+)"', html))


# ---------------------------------------------------------------------------
# home, lobby, rules
# ---------------------------------------------------------------------------


def test_home_logged_out_explains_the_site_and_links_to_sign_up_and_log_in(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "trick-taking game" in html
    assert reverse("signup") in html and reverse("login") in html
    assert "Create table" not in html


def test_home_logged_in_is_the_lobby_with_tables_grouped():
    users = make_users(3)
    anne, bert, cleo = users
    waiting = actions.create_table(anne, ghost=True)
    playing, _ = started_table(2, prefix="p")
    Seat.objects.filter(table=playing, position=2).update(user=anne)
    cancelled = actions.create_table(anne, ghost=True)
    actions.leave_table(anne, cancelled.pk)
    other = actions.create_table(cleo, ghost=True)  # anne is not seated there

    response = client_for(anne).get(reverse("home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Create table" in html and 'name="ghost"' in html and "checked" in html
    assert "Ghost player (Graybeard)" in html
    context = response.context
    assert [t.table.pk for t in context["waiting_tables"]] == [waiting.pk]
    assert [t.table.pk for t in context["playing_tables"]] == [playing.pk]
    assert [t.table.pk for t in context["cancelled_tables"]] == [cancelled.pk]
    assert context["finished_tables"] == []
    assert f"Table #{other.pk}<" not in html
    # In progress: whose turn it is (bidding: anne has not bid yet).
    summary = context["playing_tables"][0]
    assert summary.your_turn and "Your bid" in summary.headline
    assert "Your move" in html
    assert bert  # (bert has no table)


def test_create_table_posts_and_redirects_303_with_ghost_option():
    (anne,) = make_users(1)
    client = client_for(anne)
    response = client.post(reverse("create_table"), {"ghost": "on"})
    assert response.status_code == 303
    table = Table.objects.get(host=anne)
    assert response["Location"] == table_url(table)
    assert table.ghost is True
    response = client.post(reverse("create_table"), {})  # checkbox unticked
    assert response.status_code == 303
    assert Table.objects.filter(host=anne, ghost=False).count() == 1
    assert client.get(reverse("create_table")).status_code == 405


def test_rules_page_is_public_and_renders_cards(client):
    response = client.get(reverse("rules"))
    assert response.status_code == 200
    html = response.content.decode()
    for code in ("G14", "B14", "SK", "TIG", "KRA", "WHA", "MER1", "PIR1", "ESC1"):
        assert f'data-card="{code}"' in html
    assert "Graybeard" in html


# ---------------------------------------------------------------------------
# invites
# ---------------------------------------------------------------------------


def test_join_page_shows_table_host_players_and_join_button():
    table, (anne, bert) = seated_table(2)
    (cleo,) = make_users(1, "c")
    response = client_for(cleo).get(reverse("join", args=[table.invite_token]))
    assert response.status_code == 200
    html = response.content.decode()
    assert anne.username in html and bert.username in html
    assert "Join this table" in html and 'method="post"' in html


def test_join_by_link_anonymous_sees_the_invitation_then_signs_up_and_comes_back(client):
    """Issue 49: a visitor who is not logged in sees who invites them to which table and
    how many seats are taken (not who sits there), and signs up or logs in from the
    page (its own links and the header's alike) to land back on it."""
    table, (anne, bert) = seated_table(2)
    join_url = reverse("join", args=[table.invite_token])
    response = client.get(join_url)
    assert response.status_code == 200
    html = response.content.decode()
    assert f"{anne.username} invites you to a game of Skull King." in html
    assert f"Join table #{table.pk}" in html and "Seated players (2/8)" in html
    assert bert.username not in html
    assert "Join this table" not in html  # no seat without an account
    signup_link = f"{reverse('signup')}?next={quote(join_url)}"
    login_link = f"{reverse('login')}?next={quote(join_url)}"
    assert html.count(signup_link) == 2 and html.count(login_link) == 2  # page and header
    # A POST without an account goes to log in, and back.
    posted = client.post(join_url)
    assert posted.status_code == 302 and posted["Location"].startswith(reverse("login"))
    # The log-in page carries next to the sign-up link...
    login_page = client.get(login_link)
    assert login_page.status_code == 200
    assert f"{reverse('signup')}?next={join_url}" in login_page.content.decode()
    # ...and a new user signing up comes back to the invite.
    signup = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "password1": "a-long-Secret-42",
            "password2": "a-long-Secret-42",
            "next": join_url,
        },
    )
    assert signup.status_code == 302 and signup["Location"] == join_url
    joined = client.post(join_url)
    assert joined.status_code == 303 and joined["Location"] == table_url(table)
    assert Seat.objects.filter(table=table, user__username="newbie").exists()


def test_join_post_seats_the_user_and_is_idempotent():
    table, _ = seated_table(2)
    (cleo,) = make_users(1, "c")
    client = client_for(cleo)
    url = reverse("join", args=[table.invite_token])
    assert client.post(url).status_code == 303
    assert client.post(url).status_code == 303
    assert Seat.objects.filter(table=table, user=cleo).count() == 1
    # Already seated: the invite page sends them to the table.
    response = client.get(url)
    assert response.status_code == 302 and response["Location"] == table_url(table)


def test_join_refuses_a_full_table_with_a_message():
    table, _ = seated_table(8)
    (late,) = make_users(1, "late")
    client = client_for(late)
    url = reverse("join", args=[table.invite_token])
    response = client.get(url)
    assert response.status_code == 409
    assert "full" in response.content.decode()
    assert "Join this table" not in response.content.decode()
    response = client.post(url)
    assert response.status_code == 409 and "full" in response.content.decode()


def test_join_refuses_a_started_table_with_a_message():
    table, _ = started_table(2)
    (late,) = make_users(1, "late")
    client = client_for(late)
    url = reverse("join", args=[table.invite_token])
    response = client.get(url)
    assert response.status_code == 409 and "already started" in response.content.decode()
    response = client.post(url)
    assert response.status_code == 409
    assert not Seat.objects.filter(table=table, user=late).exists()


def test_join_unknown_or_malformed_token_is_404():
    (anne,) = make_users(1)
    client = client_for(anne)
    assert client.get("/join/nope-not-a-token/").status_code == 404
    assert client.get("/join/bad%00token/").status_code == 404
    assert client.post("/join/nope/").status_code == 404


def test_rotate_invite_replaces_the_link():
    table, (anne, _) = seated_table(1 + 1)
    old = table.invite_token
    response = client_for(anne).post(table_url(table, "rotate_invite"))
    assert response.status_code == 303
    assert fresh(table).invite_token != old
    (cleo,) = make_users(1, "c")
    assert client_for(cleo).get(reverse("join", args=[old])).status_code == 404


# ---------------------------------------------------------------------------
# the table page: who may see it, what it shows
# ---------------------------------------------------------------------------


def test_table_page_anonymous_redirects_to_log_in_with_next(client):
    table, _ = seated_table(2)
    response = client.get(table_url(table))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={table_url(table)}"


def test_table_page_for_a_non_seated_user_is_403_with_message():
    table, _ = started_table(2)
    (stranger,) = make_users(1, "s")
    response = client_for(stranger).get(table_url(table))
    assert response.status_code == 403
    html = response.content.decode()
    assert "Only the players seated" in html
    assert "data-card" not in html


def test_unknown_and_absurd_table_ids_are_404_never_500():
    (anne,) = make_users(1)
    client = client_for(anne)
    assert client.get("/tables/999999/").status_code == 404
    assert client.get(f"/tables/{10**30}/").status_code == 404
    assert client.get("/tables/abc/").status_code == 404
    assert client.post(f"/tables/{10**30}/bid/", {"version": "1", "value": "0"}).status_code == 404
    assert client.post("/tables/999999/bid/", {"version": "1", "value": "0"}).status_code == 404


def test_waiting_table_shows_invite_and_start_for_the_host_only():
    table, (anne, bert) = seated_table(2)
    html = client_for(anne).get(table_url(table)).content.decode()
    assert table.invite_token in html and "data-copy" in html
    assert "Rotate link" in html and "Start game" in html
    html = client_for(bert).get(table_url(table)).content.decode()
    assert table.invite_token not in html
    assert "Start game" not in html
    assert 'hx-ext="ws,morph"' in html and f'ws-connect="/ws/tables/{table.pk}/"' in html
    for region_id in ("status", "seats", "trick", "hand", "controls", "scores"):
        assert f'data-version="{table.version}"' in region(html, region_id)
    # The chat log is versioned by its newest message (chat does not bump the table).
    assert 'data-chat="0"' in region(html, "chat-log")


def test_hand_rendered_only_for_the_viewer_r8_ghost_hand_never():
    table, (anne, bert) = started_table(2, ghost=True, seed=7)
    bid_all(table, 0)
    state = state_of(table)
    seats = {seat.user_id: seat for seat in state.seats}
    for viewer, other in ((anne, bert), (bert, anne)):
        html = client_for(viewer).get(table_url(table)).content.decode()
        own = {h.card for h in state.hands[seats[viewer.pk].pk]}
        theirs = {h.card for h in state.hands[seats[other.pk].pk]}
        ghosts = {h.card for h in state.hands[None]}
        assert own <= data_cards(region(html, "hand"))
        for code in theirs | ghosts:
            assert f'data-card="{code}"' not in html
            assert f'value="{code}"' not in html
        assert "1 card left" in region(html, "seats")  # the ghost's count is fine


def test_full_game_pages_never_show_hidden_cards():
    """A complete random 2-player ghost game: at every step, nobody's page shows another hand."""
    table, users = started_table(2, ghost=True, seed=21)
    clients = {user.pk: client_for(user) for user in users}
    rng = random.Random(21)
    current: Table | None = table
    steps = 0
    while current is not None:
        state = load_state(fresh(table))
        played = {p.card for p in state.plays}
        for user in users:
            response = clients[user.pk].get(table_url(table))
            assert response.status_code == 200
            html = response.content.decode()
            hidden = {
                h.card
                for key, cards in state.hands.items()
                if key is None or state.seat_by_id[key].user_id != user.pk
                for h in cards
            }
            leaked = (hidden - played) & data_cards(html)
            assert not leaked, leaked
        current = random_move(current, rng)
        steps += 1
    # The whole game was seen: ten rounds (R2), 55 tricks, finished (R10).
    table = fresh(table)
    assert table.status == Table.Status.FINISHED and table.round_number == 10
    assert steps > 55 * 3


def test_r4_bids_hidden_until_all_in_only_who_has_bid():
    table, (anne, bert, cleo) = started_table(3, ghost=False, seed=3)
    state = state_of(table)
    bert_seat = next(s for s in state.seats if s.user_id == bert.pk)
    actions.place_bid(bert, table.pk, table.version, 1)

    html = client_for(anne).get(table_url(table)).content.decode()
    entry = seat_entry(html, bert_seat)
    assert "✓ has bid" in entry
    assert "Bid 1" not in entry
    assert "Bid 1" not in region(html, "seats") and "Bid 1" not in region(html, "scores")
    # The bidder sees their own bid (in their own status line, never in the shared
    # seat list); anne still has the bid buttons (0..1 in round 1).
    own = client_for(bert).get(table_url(table)).content.decode()
    assert "Bid 1" not in seat_entry(own, bert_seat)
    assert "Your bid: 1" in region(own, "status") and "data-my-bid" not in region(html, "status")
    assert 'aria-label="Bid 0"' in region(html, "controls")
    assert 'aria-label="Bid 1"' in region(html, "controls")
    assert 'aria-label="Bid 0"' not in region(own, "controls")

    table = fresh(table)
    actions.place_bid(anne, table.pk, table.version, 0)
    table = fresh(table)
    html = client_for(anne).get(table_url(table)).content.decode()
    assert "Bid 1" not in seat_entry(html, bert_seat)
    actions.place_bid(cleo, table.pk, table.version, 1)
    html = client_for(anne).get(table_url(table)).content.decode()
    assert "Bid 1" in seat_entry(html, bert_seat)  # all in: revealed at once


def test_r4_presenter_never_puts_another_bid_in_the_context():
    table, (anne, bert, _) = started_table(3, ghost=False, seed=3)
    actions.place_bid(bert, table.pk, table.version, 1)
    context = presenter.table_context(fresh(table), anne)
    bert_view = next(p for p in context["players"]() if p.name == bert.username)
    assert bert_view.has_bid and bert_view.bid is None
    assert all(len(h.code) <= 4 for h in context["hand"].cards)
    assert "state" not in context


def test_legal_cards_are_buttons_others_disabled_and_tigress_asks_pirate_or_escape():
    table, (anne, bert) = started_table(2, ghost=False, seed=4)
    table = play_until(table, random.Random(1), done=at_phase("bidding", 2))
    rig_hands(table, {0: ["TIG", "G3"], 1: ["G5", "Y2"]})  # R3: seat 0 (anne) opens round 2
    table = bid_all(table, 1)
    html = client_for(anne).get(table_url(table)).content.decode()
    hand = region(html, "hand")
    # Named in words (issue 12, axe label-content-name-mismatch).
    assert 'aria-label="Play Green 3"' in hand
    assert 'aria-label="Play the Tigress as a pirate"' in hand
    assert 'aria-label="Play the Tigress as an escape"' in hand
    # R7: the Tigress's two buttons send her play with the choice.
    assert 'name="card" value="TIG:pirate"' in hand and 'value="TIG:escape"' in hand
    assert f'name="version" value="{table.version}"' in hand
    # bert waits: his cards are shown, not playable; a tap hooks one (issue 49).
    other = region(client_for(bert).get(table_url(table)).content.decode(), "hand")
    assert {"G5", "Y2"} <= data_cards(other)
    assert "Play Green 5" not in other and 'name="card"' not in other
    assert 'name="hook" value="G5"' in other

    response = client_for(anne).post(
        table_url(table, "play_card"), {"version": table.version, "card": "TIG:pirate"}
    )
    assert response.status_code == 303
    html = client_for(bert).get(table_url(table)).content.decode()
    trick = region(html, "trick")
    assert 'data-card="TIG"' in trick and 'data-as="pirate"' in trick and "as pirate" in trick
    # R5: a character led, no suit to follow: both of bert's cards are playable.
    hand = region(html, "hand")
    assert 'aria-label="Play Green 5"' in hand and 'aria-label="Play Yellow 2"' in hand


def test_trick_done_next_trick_for_host_only_waiting_for_the_host_for_others():
    table, (anne, bert) = started_table(2, ghost=False, seed=9)
    table = play_until(table, random.Random(2), done=at_phase("trick_done"))
    host_html = client_for(anne).get(table_url(table)).content.decode()
    other_html = client_for(bert).get(table_url(table)).content.decode()
    assert "Next trick" in region(host_html, "controls")
    assert "Next trick" not in region(other_html, "controls")
    assert "Waiting for the host" in region(other_html, "controls")
    trick = region(host_html, "trick")
    assert "wins the trick" in trick or "Destroyed by the" in trick or "You win" in trick
    # Only the host may press it.
    response = client_for(bert).post(table_url(table, "next_trick"), {"version": table.version})
    assert response.status_code == 403
    assert "Only the host" in response.content.decode()
    response = client_for(anne).post(table_url(table, "next_trick"), {"version": table.version})
    assert response.status_code == 303


def test_round_done_shows_summary_and_next_round_for_the_host():
    table, (anne, bert) = started_table(2, ghost=True, seed=6)
    table = play_until(table, random.Random(6), done=at_phase("round_done"))
    html = client_for(anne).get(table_url(table)).content.decode()
    scores = region(html, "scores")
    assert "Round 1 summary" in scores and "Score sheet" in scores
    assert "Next round" in region(html, "controls")
    other = client_for(bert).get(table_url(table)).content.decode()
    assert "Next round" not in region(other, "controls")
    assert "Waiting for the host" in region(other, "controls")


# ---------------------------------------------------------------------------
# POST views: plain vs htmx, errors
# ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # the frames are sent once the move commits
def test_plain_post_redirects_303_htmx_post_returns_the_actors_frame(monkeypatch):
    table, (anne, bert) = started_table(2, ghost=True, seed=2)
    response = client_for(anne).post(
        table_url(table, "place_bid"), {"version": table.version, "value": "1"}
    )
    assert response.status_code == 303 and response["Location"] == table_url(table)
    table = fresh(table)
    pushed: dict[int, str] = {}
    publish = broadcast.publish
    monkeypatch.setattr(broadcast, "publish", lambda *args: pushed.update(publish(*args)))
    response = client_for(bert).post(
        table_url(table, "place_bid"), {"version": table.version, "value": "0"}, **HTMX
    )
    assert response.status_code == 200
    # Only out-of-band regions, the ones the bid changed, and nothing else replaced.
    assert response["HX-Reswap"] == "none"
    html = response.content.decode()
    assert "<html" not in html and 'id="table-content"' not in html
    oob = r'<(?:section|div|ol) id="([a-z-]+)"[^>]*hx-swap-oob="(?:true|morph)"'
    ids = re.findall(oob, html)
    # The round's earlier tricks (none yet) read as before the bid: nothing of them is sent.
    assert ids == ["seats", "trick", "status", "hand", "controls"]
    assert f'data-version="{fresh(table).version}"' in html
    # The very frame bert's socket got, not a second render.
    assert html.endswith(pushed[bert.pk])


def test_stale_version_is_409_with_a_fresh_page_or_fragment():
    table, (anne, _) = started_table(2, ghost=True, seed=2)
    client = client_for(anne)
    stale = {"version": table.version - 1, "value": "0"}
    response = client.post(table_url(table, "place_bid"), stale)
    assert response.status_code == 409
    html = response.content.decode()
    assert "moved on" in html and "<html" in html
    assert f'data-version="{table.version}"' in html
    response = client.post(table_url(table, "place_bid"), stale, **HTMX)
    assert response.status_code == 409
    # The page's inherited hx-target decides where it goes (see views._render_table).
    assert "HX-Retarget" not in response
    assert "moved on" in response.content.decode()
    assert "<html" not in response.content.decode()


def test_double_post_is_409_not_applied_twice():
    table, (anne, _) = started_table(2, ghost=True, seed=2)
    client = client_for(anne)
    data = {"version": table.version, "value": "0"}
    assert client.post(table_url(table, "place_bid"), data).status_code == 303
    assert client.post(table_url(table, "place_bid"), data).status_code == 409


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"version": "x", "value": "1"},
        {"version": "", "value": "1"},
        {"value": "1"},
        {"version": "{v}"},
        {"version": "{v}", "value": "abc"},
        {"version": "{v}", "value": "-1"},
        {"version": "{v}", "value": "99"},
        {"version": "{v}", "value": "1.5"},
        {"version": "{v}", "value": "9" * 40},
        {"version": "{v}", "value": "1\x00"},
    ],
)
def test_bad_bid_input_is_400_with_message_never_500(data):
    table, (anne, _) = started_table(2, ghost=True, seed=2)
    data = {k: v.replace("{v}", str(table.version)) for k, v in data.items()}
    response = client_for(anne).post(table_url(table, "place_bid"), data)
    assert response.status_code == 400, response.content[:200]
    assert 'role="alert"' in response.content.decode()
    response = client_for(anne).post(table_url(table, "place_bid"), data, **HTMX)
    assert response.status_code == 400


@pytest.mark.parametrize(
    "data",
    [
        {"card": ""},
        {"card": "ZZ9"},
        {"card": "TIG", "tigress_as": "parrot"},
        {"card": "\x00"},
    ],
)
def test_bad_play_input_is_4xx_never_500(data):
    table, (anne, bert) = started_table(2, ghost=False, seed=2)
    table = bid_all(table, 0)
    state = state_of(table)
    player = state.seat_to_play().user
    response = client_for(player).post(
        table_url(table, "play_card"), {"version": table.version, **data}
    )
    assert 400 <= response.status_code < 500
    assert anne and bert


def test_playing_out_of_turn_is_409_with_message():
    table, _ = started_table(2, ghost=False, seed=2)
    table = bid_all(table, 0)
    state = state_of(table)
    waiting = next(s for s in state.seats if s != state.seat_to_play())
    card = state.hands[waiting.pk][0].card
    response = client_for(waiting.user).post(
        table_url(table, "play_card"), {"version": table.version, "card": card}
    )
    assert response.status_code == 409
    assert "not your turn" in response.content.decode()


def test_start_game_by_non_host_is_403_with_message_host_gets_303():
    table, (anne, bert) = seated_table(2)
    response = client_for(bert).post(table_url(table, "start_game"), {"version": table.version})
    assert response.status_code == 403 and "Only the host" in response.content.decode()
    response = client_for(anne).post(table_url(table, "start_game"), {"version": table.version})
    assert response.status_code == 303
    assert fresh(table).status == Table.Status.PLAYING


def test_post_by_non_seated_user_is_403_page_without_table_content():
    table, _ = started_table(2)
    (stranger,) = make_users(1, "s")
    client = client_for(stranger)
    response = client.post(table_url(table, "place_bid"), {"version": table.version, "value": 0})
    assert response.status_code == 403 and "data-card" not in response.content.decode()
    response = client.post(table_url(table, "post_chat"), {"text": "hi"}, **HTMX)
    # From htmx the page stays as it is: static/js/live.js shows the answer's message
    # (its role="alert") in the error line; nothing says to replace the page.
    assert response.status_code == 403 and "HX-Retarget" not in response
    assert 'role="alert"' in response.content.decode()
    assert "data-card" not in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_get_on_post_views_is_405_and_post_on_get_views_is_405():
    table, (anne, _) = seated_table(2)
    client = client_for(anne)
    for name in ACTION_URL_NAMES:
        assert client.get(table_url(table, name)).status_code == 405, name
    assert client.post(table_url(table)).status_code == 405
    assert client.post(reverse("rules")).status_code == 405


# ---------------------------------------------------------------------------
# leave, chat
# ---------------------------------------------------------------------------


def test_leave_before_start_frees_the_seat():
    table, (anne, bert, cleo) = seated_table(3)
    response = client_for(bert).post(table_url(table, "leave_table"))
    assert response.status_code == 303 and response["Location"] == reverse("home")
    assert list(fresh(table).seats.values_list("user_id", flat=True).order_by("position")) == [
        anne.pk,
        cleo.pk,
    ]
    assert client_for(bert).get(table_url(table)).status_code == 403


def test_r11_leave_in_progress_asks_first_then_cancels_for_everyone():
    table, (anne, bert, cleo) = started_table(3, ghost=False)
    client = client_for(bert)
    html = client_for(bert).get(table_url(table)).content.decode()
    assert "Leave and cancel the game" in region(html, "controls")
    response = client.post(table_url(table, "leave_table"))  # no confirmation yet
    assert response.status_code == 409  # the form was not the confirmation
    assert "cancelled for everyone" in response.content.decode()
    assert fresh(table).status == Table.Status.PLAYING
    response = client.post(table_url(table, "leave_table"), {"confirm": "yes"})
    assert response.status_code == 303
    assert fresh(table).status == Table.Status.CANCELLED
    for user in (anne, bert, cleo):
        html = client_for(user).get(table_url(table)).content.decode()
        assert f"cancelled by {bert.username}" in html
        assert "Leave and cancel" not in region(html, "controls")
        assert "Back to the lobby" in region(html, "controls")


def test_chat_is_escaped_limited_to_500_and_seated_only():
    table, (anne, bert) = seated_table(2)
    client = client_for(anne)
    response = client.post(table_url(table, "post_chat"), {"text": "<script>x</script> ahoy"})
    assert response.status_code == 303
    html = client_for(bert).get(table_url(table)).content.decode()
    log = region(html, "chat-log")
    assert "&lt;script&gt;x&lt;/script&gt; ahoy" in log and "<script>x" not in log
    response = client.post(table_url(table, "post_chat"), {"text": "x" * 501})
    assert response.status_code == 400 and "500" in response.content.decode()
    response = client.post(table_url(table, "post_chat"), {"text": "   "}, **HTMX)
    assert response.status_code == 400
    assert ChatMessage.objects.count() == 1


def test_every_action_control_has_an_accessible_name():
    table, (anne, bert) = started_table(2, ghost=True, seed=2)
    html = client_for(anne).get(table_url(table)).content.decode()
    for button in re.findall(r"<button[^>]*>.*?</button>", html, re.S):
        label = re.search(r'aria-label="([^"]+)"', button)
        text = re.sub(r"<[^>]+>", "", button).strip()
        assert label or text, button
    assert bert


# ---------------------------------------------------------------------------
# queries
# ---------------------------------------------------------------------------


def _table_page(players: int, prefix: str) -> tuple[Client, str]:
    """A game in its first trick with one card played and a chat message per player."""
    table, users = started_table(players, ghost=False, seed=5, prefix=prefix)
    table = bid_all(table, 0)
    state = state_of(table)
    first = state.seat_to_play()
    code = sorted(state.legal_cards(first))[0]
    tigress = "escape" if code == "TIG" else ""
    table = actions.play_card(first.user, table.pk, table.version, code, tigress)
    for user in users:
        actions.post_chat(user, table.pk, f"hello from {user.username}")
    client = client_for(users[-1])
    client.get(table_url(table))  # warm the session
    return client, table_url(table)


# The user (1; the session comes from the cache: cached_db), the table (1),
# load_state (7), the table's version read again after it (1: games.play.state
# load_shown_state), chat (1).
TABLE_PAGE_QUERIES = 11


@pytest.mark.parametrize("players", [2, 6])
def test_table_page_queries_do_not_grow_with_players(players, django_assert_num_queries):
    client, url = _table_page(players, prefix=f"q{players}-")
    with django_assert_num_queries(TABLE_PAGE_QUERIES):
        response = client.get(url)
    assert response.status_code == 200


def test_table_page_queries_same_at_2_and_6_players():
    counts = []
    for players in (2, 6):
        client, url = _table_page(players, prefix=f"c{players}-")
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_page_read_while_a_move_commits_shows_it_under_its_version(monkeypatch):
    """R4/R5: a page is read without the table's lock. A bid committed after the table
    row was read but before the bids were: the page must not show that bid under the
    older version (its next POST would get a needless 409), nor lose it."""
    from games.play import state as state_module

    table, users = started_table(make_users(3), ghost=False, seed=4)
    real_load_state = state_module.load_state
    moved: list[int] = []

    def a_bid_lands_meanwhile(read_table, seats=None):
        if not moved:
            moved.append(actions.place_bid(users[1], table.pk, table.version, 0).version)
        return real_load_state(read_table, seats)

    monkeypatch.setattr(state_module, "load_state", a_bid_lands_meanwhile)
    html = client_for(users[0]).get(table_url(table)).content.decode()
    assert moved == [table.version + 1]
    assert set(re.findall(r'data-version="(\d+)"', html)) == {str(moved[0])}
    assert "data-has-bid" in seat_entry(html, Seat.objects.get(table=table, user=users[1]))
