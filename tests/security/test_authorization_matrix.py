"""Who may do what, table by table: every role x every table state x every URL (and the socket).

Roles: anonymous, a logged-in stranger (the host of ANOTHER table: "wrong table"),
a seated non-host player, the host, staff not seated (a superuser: they use the
admin, and watch any table's page read only, issue 50) and staff seated as an
ordinary player (with no permission). Every cell states the
status the server must answer; a refused cell must change NOTHING in the
database (snapshot before/after), an allowed one must have made its change.

Table states are real games driven through games.play.actions (3 players; host at
seat 1, the player at seat 2 opens round 1 and so plays first), except
"finished", which is a played round 1 marked finished (authorization only
depends on the status and phase).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from games import rules
from games.models import (
    MAX_SEATS,
    ChatMessage,
    Seat,
    Table,
)
from games.play import actions
from games.play.state import load_state
from games.testing.driver import at_phase, play_until
from games.testing.factories import make_user, session_cookie
from tests.games.helpers import snapshot

User = get_user_model()

ROLES = ("anonymous", "stranger", "seated", "host", "staff", "staff_seated")
STATES = (
    "waiting",
    "bidding",
    "playing",
    "trick_done",
    "round_done",
    "finished",
    "cancelled",
)
ACTIONS = (
    "table",
    "start",
    "bid",
    "play",
    "next_card",
    "next_trick",
    "next_round",
    "chat",
    "invite",
    "leave",
    "join_get",
    "join_post",
    # Computer players (issue 48)
    "add_computer",
    "remove_computer",
    "hand_over",
    "take_back",
)
IN_GAME = ("bidding", "playing", "trick_done", "round_done")
HTMX = {"HTTP_HX_REQUEST": "true"}


# ---------------------------------------------------------------------------
# building a table in a given state
# ---------------------------------------------------------------------------


def fresh(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


def _until(table: Table, phase: str) -> Table:
    """Random legal moves (the suite's driver, a fixed seed) until the table is in ``phase``."""
    return play_until(table, random.Random(7), at_phase(phase), limit=500)


def make_users(prefix: str = "") -> dict[str, Any]:
    return {
        "anonymous": None,
        "host": make_user(f"{prefix}hugo"),
        "seated": make_user(f"{prefix}sara"),
        "staff_seated": make_user(f"{prefix}stan", is_staff=True),
        "staff": make_user(f"{prefix}stella", is_staff=True, is_superuser=True),
        # The stranger is a player, just of another table (the "wrong table" case).
        "stranger": make_user(f"{prefix}xavier"),
    }


def build_table(state: str, users: dict[str, Any]) -> Table:
    """A 3-player table (host, seated, staff_seated) in ``state``."""
    host, seated = users["host"], users["seated"]
    table = actions.create_table(host, ghost=True)
    actions.join_table(seated, table.invite_token)
    actions.join_table(users["staff_seated"], table.invite_token)
    table = fresh(table)
    if state != "waiting":
        table = actions.start_game(host, table.pk, table.version)
    if state == "playing":
        table = _until(table, Table.Phase.PLAYING)
    elif state == "trick_done":
        # Round 1 has one trick (it ends the round); round 2 has a "trick done" pause.
        table = _until(table, Table.Phase.ROUND_DONE)
        table = _until(actions.next_round(host, table.pk, table.version), Table.Phase.TRICK_DONE)
    elif state in ("round_done", "finished"):
        table = _until(table, Table.Phase.ROUND_DONE)
        if state == "finished":
            Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    elif state == "cancelled":
        table = actions.leave_table(seated, table.pk, confirmed=True)
    table = fresh(table)
    status = {"finished": "finished", "cancelled": "cancelled", "waiting": "waiting"}
    assert table.status == status.get(state, "playing")
    return table


def build(state: str) -> dict[str, Any]:
    users = make_users("ws-")
    actions.create_table(users["stranger"], ghost=True)
    return {"table": build_table(state, users), "users": users}


@pytest.fixture(scope="module")
def world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """Every state's table, built once (committed); each test's changes are rolled back."""
    with django_db_blocker.unblock():
        users = make_users()
        own = actions.create_table(users["stranger"], ghost=True)
        tables = {state: build_table(state, users) for state in STATES}
        # Each role logs in once for the module (a committed session): logging in is
        # not what the cells test, and it cost a quarter of each cell's time.
        sessions = {user.pk: login_once(user) for user in users.values() if user}
        try:
            yield {"tables": tables, "users": users, "sessions": sessions}
        finally:
            Table.objects.filter(pk__in=[own.pk, *(t.pk for t in tables.values())]).delete()
            Session.objects.filter(session_key__in=sessions.values()).delete()
            User.objects.filter(pk__in=[u.pk for u in users.values() if u]).delete()


def cell_world(world: Any, state: str) -> dict[str, Any]:
    return {"table": fresh(world["tables"][state]), "users": world["users"]}


def login_once(user: Any) -> str:
    """The session key of a fresh log-in of ``user``."""
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def client_for(user: Any, world: dict[str, Any] | None = None, **kwargs: Any) -> Client:
    """A client logged in as ``user``: with the world's session when it has one for them."""
    client = Client(raise_request_exception=False, **kwargs)
    if user is None:
        return client
    session_key = (world or {}).get("sessions", {}).get(user.pk)
    if session_key is None:
        client.force_login(user)
    else:
        client.cookies[settings.SESSION_COOKIE_NAME] = session_key
    return client


def form_for(action: str, table: Table, user: Any) -> dict[str, str]:
    """The most legitimate form this user could post: the real move when one exists."""
    data: dict[str, str] = {"version": str(table.version)}
    if action == "bid":
        data["value"] = "0"
    elif action == "next_card":
        # A card of the user's own hand (a stranger's form names any card).
        state = load_state(table)
        own = state.seat_of(getattr(user, "pk", None))
        hand = state.hand_of(own) if own is not None else []
        code = str(hand[0]) if hand else "G1"
        data["card"] = f"{code}:{rules.ESCAPE}" if rules.needs_choice(rules.card(code)) else code
    elif action == "play":
        # The exact legal card of whoever is to play now (or any card of the
        # user's own hand): refusals must come from who is asking, not from the card.
        state = load_state(table)
        to_play = state.seat_to_play()
        own = state.seat_of(getattr(user, "pk", None))
        code = "G1"
        if own is not None and own == to_play:
            code = min(state.legal_cards(own), key=lambda c: rules.card(c).index)
        elif own is not None and state.hand_of(own):
            code = str(state.hand_of(own)[0])
        elif to_play is not None:
            code = min(state.legal_cards(to_play), key=lambda c: rules.card(c).index)
        data["card"] = code
        if rules.needs_choice(rules.card(code)):
            data["tigress_as"] = rules.ESCAPE
    elif action == "chat":
        data = {"text": "ahoy"}
    elif action == "leave":
        data = {"confirm": "yes"}
    elif action == "invite":
        data = {}
    elif action == "add_computer":
        data["level"] = "normal"
    elif action == "remove_computer":
        # No computer sits at these tables: the host's own seat is not one to remove.
        data["seat"] = str(table.seats.get(position=1).pk)
    elif action == "hand_over":
        # Nobody is away here (every table started moments ago).
        data["seat"] = str(table.seats.get(position=2).pk)
    elif action == "take_back":
        data = {}
    return data


def url_for(action: str, table: Table) -> str:
    names = {
        "table": "table",
        "start": "start_game",
        "bid": "place_bid",
        "play": "play_card",
        "next_card": "preselect_card",
        "next_trick": "next_trick",
        "next_round": "next_round",
        "chat": "post_chat",
        "invite": "rotate_invite",
        "leave": "leave_table",
        "add_computer": "add_computer",
        "remove_computer": "remove_computer",
        "hand_over": "hand_over",
        "take_back": "take_back",
    }
    if action in ("join_get", "join_post"):
        return reverse("join", args=[table.invite_token])
    return reverse(names[action], args=[table.pk])


# ---------------------------------------------------------------------------
# the expected matrix
# ---------------------------------------------------------------------------

# (status, changes the database?)
Cell = tuple[int, bool]
LOGIN = (302, False)


def expected(role: str, state: str, action: str) -> Cell:
    if role == "anonymous":
        if action == "join_get":  # the invitation, to log in or sign up from (issue 49)
            return (200, False) if state == "waiting" else (409, False)
        return LOGIN
    seated = role in ("seated", "host", "staff_seated")
    over = state in ("finished", "cancelled")
    if action == "join_get":
        if seated:
            return (302, False)  # straight to the table
        return (200, False) if state == "waiting" else (409, False)
    if action == "join_post":
        if seated:
            return (303, False)  # already seated: just shows the table
        return (303, True) if state == "waiting" else (409, False)
    if not seated:  # stranger and staff alike: not players of this table
        if action == "table" and role == "staff":
            # A superuser has games.watch_table: the page read only (issue 50).
            return (200, False)
        return (403, False)
    if action == "table":
        return (200, False)
    if action == "chat":
        # R11: seated players chat; a finished or cancelled table's chat is closed (issue 50).
        return (409, False) if over else (303, True)
    if action == "leave":
        return (409, False) if over else (303, True)
    is_host = role == "host"
    if action in ("hand_over", "take_back"):
        # Nobody is away, no seat is handed over: refused for every player, as stale.
        return (409, False)
    host_only = ("start", "invite", "next_trick", "next_round", "add_computer", "remove_computer")
    if action in host_only and not is_host:
        return (403, False)
    if action == "add_computer":
        return (303, True) if state == "waiting" else (409, False)
    if action == "remove_computer":
        return (404, False) if state == "waiting" else (409, False)
    if action == "start":
        return (303, True) if state == "waiting" else (409, False)
    if action == "invite":
        return (303, True) if state == "waiting" else (409, False)
    if action == "next_trick":
        return (303, True) if state == "trick_done" else (409, False)
    if action == "next_round":
        return (303, True) if state == "round_done" else (409, False)
    if action == "bid":
        return (303, True) if state == "bidding" else (409, False)
    if action == "next_card":
        # Chosen in advance while the tricks are played, by anyone but who plays now
        # (seat 2, "seated", in the "playing" table).
        if state == "trick_done" or (state == "playing" and role != "seated"):
            return (303, True)
        return (409, False)
    if action == "play":
        # Seat 2 ("seated") opens round 1; everyone else is out of turn.
        return (303, True) if state == "playing" and role == "seated" else (409, False)
    raise AssertionError(action)


MATRIX = [
    pytest.param(role, state, action, id=f"{state}-{action}-{role}")
    for state in STATES
    for action in ACTIONS
    for role in ROLES
]


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "state", "action"), MATRIX)
def test_matrix_cell(world: Any, role: str, state: str, action: str) -> None:
    cell = cell_world(world, state)
    table, user = cell["table"], cell["users"][role]
    url = url_for(action, table)
    want_status, want_change = expected(role, state, action)
    client = client_for(user, world)
    before = snapshot()
    if action in ("table", "join_get"):
        response = client.get(url)
    else:
        response = client.post(url, form_for(action, table, user))
    after = snapshot()

    assert response.status_code == want_status, (
        f"{role} {action} on a {state} table: {response.status_code}, want {want_status}\n"
        + response.content.decode()[:600]
    )
    if want_change:
        assert after != before, f"{role} {action} on a {state} table changed nothing"
    else:
        assert after == before, f"{role} {action} on a {state} table changed the database"

    body = response.content.decode()
    if want_status == 302 and role == "anonymous":
        assert response["Location"].startswith(reverse("login") + "?next=")
    if want_status in (403, 404, 409):
        # Every refusal says why, in words, in an alert.
        assert re.search(r'role="alert"[^>]*>\s*\S', body), body[:800]
    if role == "anonymous" and action == "join_get":
        # Who invites, and how many seats are taken: not who sits there.
        for name in ("sara", "stan"):
            assert name not in body
    if want_status == 403 and role in ("stranger", "staff"):
        # Nothing of the table leaks to a non-player: no card, no player name.
        assert "data-card=" not in body
        for name in ("hugo", "sara", "stan"):
            assert name not in body


# Each action in a state where it is refused for someone (chat and leave: a finished table).
HTMX_STATES = {"start": "bidding", "bid": "playing", "play": "bidding", "next_trick": "playing"}
HTMX_REFUSALS = [
    (role, action)
    for role in ("stranger", "staff", "seated", "host")
    for action in ("start", "bid", "play", "next_trick", "chat", "leave")
    if not expected(role, HTMX_STATES.get(action, "finished"), action)[1]
]


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "action"), HTMX_REFUSALS)
def test_htmx_refusals_have_the_same_status_and_change_nothing(
    world: Any, role: str, action: str
) -> None:
    """The htmx path answers the same status as the plain one, never 200 for a refusal."""
    state = HTMX_STATES.get(action, "finished")
    cell = cell_world(world, state)
    table, user = cell["table"], cell["users"][role]
    want_status, _ = expected(role, state, action)
    before = snapshot()
    response = client_for(user, world).post(
        url_for(action, table), form_for(action, table, user), **HTMX
    )
    assert response.status_code == want_status
    assert snapshot() == before


def make_watcher(permission: bool) -> Any:
    """Staff, seated nowhere, with games.watch_table alone (or no permission at all)."""
    from django.contrib.auth.models import Permission

    user = make_user(f"warden-{int(permission)}", is_staff=True)
    if permission:
        user.user_permissions.add(Permission.objects.get(codename="watch_table"))
    return user


WATCHER_ACTIONS = [a for a in ACTIONS if a not in ("join_get", "join_post")]


@pytest.mark.django_db
@pytest.mark.parametrize("permission", [True, False], ids=["watch_table", "no-permission"])
@pytest.mark.parametrize("state", STATES)
def test_staff_watching_see_the_table_and_may_do_nothing_in_it(
    world: Any, state: str, permission: bool
) -> None:
    """Issue 50: staff with games.watch_table (and no other right) open any table's page,
    read only; without it they get 403, as any stranger. Either way every action of the
    table is refused with 403 and changes nothing (R4: nothing of a seat is theirs)."""
    cell = cell_world(world, state)
    table, user = cell["table"], make_watcher(permission)
    client = client_for(user)
    for action in WATCHER_ACTIONS:
        before = snapshot()
        url = url_for(action, table)
        if action == "table":
            response = client.get(url)
            want = 200 if permission else 403
        else:
            response = client.post(url, form_for(action, table, user))
            want = 403
        assert response.status_code == want, (action, response.status_code)
        assert snapshot() == before, action
        body = response.content.decode()
        assert "data-card=" not in body or (action == "table" and permission), action
        if want == 200:
            assert "Watching as staff" in body
            assert 'id="hand"' not in body and 'id="controls"' not in body
            assert 'name="text"' not in body  # no chat form
        else:
            assert re.search(r'role="alert"[^>]*>\s*\S', body), body[:800]


# ---------------------------------------------------------------------------
# pages outside a table, and the admin
# ---------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("page", "anonymous", "player", "staff", "staff_no_perm"),
    [
        ("/", 200, 200, 200, 200),
        ("/rules/", 200, 200, 200, 200),
        ("/admin/", 302, 302, 200, 200),
        ("/admin/games/table/", 302, 302, 200, 403),
        # Chat moderation (issue 50): the messages (hidden ones filtered) and the mutes;
        # the rights of a moderator: tests/staff/test_chat_moderation.py.
        ("/admin/games/chatmessage/?hidden=yes", 302, 302, 200, 403),
        ("/admin/games/chatmute/", 302, 302, 200, 403),
        ("/admin/games/chatmute/add/", 302, 302, 200, 403),
        # Suspending accounts (issue 50): the suspension permissions, a superuser's.
        ("/admin/accounts/suspension/", 302, 302, 200, 403),
        ("/admin/accounts/suspension/add/", 302, 302, 200, 403),
        # The account page, and a forgotten password's pages, open to anyone (issue 49);
        # a reset link that is not one is bad input.
        ("/accounts/profile/", 302, 200, 200, 200),
        ("/accounts/password/reset/", 200, 200, 200, 200),
        ("/accounts/password/reset/sent/", 200, 200, 200, 200),
        ("/accounts/password/reset/MQ/not-a-token/", 400, 400, 400, 400),
        ("/accounts/password/reset/done/", 200, 200, 200, 200),
    ],
)
def test_pages_and_admin(
    world: Any, role: str, page: str, anonymous: int, player: int, staff: int, staff_no_perm: int
) -> None:
    """Staff reach the admin (the superuser sees tables; is_staff alone gives no model)."""
    user = world["users"][role]
    response = client_for(user, world).get(page)
    want = {"anonymous": anonymous, "staff": staff, "staff_seated": staff_no_perm}.get(role, player)
    assert response.status_code == want, (role, page, response.status_code)
    if want == 302:
        # LoginRequiredMiddleware sends anonymous users to the site's log-in page.
        assert "/login/" in response["Location"]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_lifting_a_suspension(world: Any, role: str) -> None:
    """Issue 50: lifting is a POST for whoever may change suspensions (the superuser
    here); other staff get 403, everyone else a log-in page, and nothing changes."""
    from accounts import suspensions

    target = make_user("suspended-sam")
    suspension = suspensions.suspend(target, "Spam", None, world["users"]["staff"])
    url = reverse("admin:accounts_suspension_lift", args=[suspension.pk])
    response = client_for(world["users"][role], world).post(url)
    suspension.refresh_from_db()
    if role == "staff":
        assert response.status_code == 302 and suspension.lifted_at is not None
        return
    if role == "staff_seated":
        assert response.status_code == 403
    else:
        assert response.status_code == 302 and "/login/" in response["Location"]
    assert suspension.lifted_at is None


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_create_table(world: Any, role: str) -> None:
    user = world["users"][role]
    before = Table.objects.count()
    response = client_for(user, world).post(reverse("create_table"), {"ghost": "on"})
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
        assert Table.objects.count() == before
    else:
        assert response.status_code == 303
        created = Table.objects.latest("pk")
        assert created.host == user
        assert response["Location"] == reverse("table", args=[created.pk])


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_start_practice(world: Any, role: str) -> None:
    """Issue 48: any logged-in user may practise; the game starts at once, theirs alone."""
    user = world["users"][role]
    before = Table.objects.count()
    response = client_for(user, world).post(
        reverse("start_practice"), {"computers": "3", "level": "strong"}
    )
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
        assert Table.objects.count() == before
        return
    assert response.status_code == 303
    created = Table.objects.latest("pk")
    assert created.host == user and created.status == Table.Status.PLAYING
    assert [s.computer for s in created.seats.order_by("position")] == ["", *["strong"] * 3]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["stranger", "seated", "host"])
@pytest.mark.parametrize("action", ["table", "bid", "play", "chat", "leave", "start"])
def test_unknown_table_is_a_404_that_changes_nothing(world: Any, role: str, action: str) -> None:
    cell = cell_world(world, "bidding")
    table, user = cell["table"], cell["users"][role]
    missing = Table.objects.order_by("-pk").first().pk + 1000
    before = snapshot()
    client = client_for(user, world)
    url = url_for(action, table).replace(f"/{table.pk}/", f"/{missing}/")
    if action == "table":
        response = client.get(url)
    else:
        response = client.post(url, form_for(action, table, user))
    assert response.status_code == 404
    assert snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "put", "delete", "patch"])
@pytest.mark.parametrize("action", ["start", "bid", "play", "next_trick", "chat", "leave"])
def test_actions_only_accept_post(world: Any, method: str, action: str) -> None:
    cell = cell_world(world, "bidding")
    table, user = cell["table"], cell["users"]["host"]
    before = snapshot()
    response = getattr(client_for(user, world), method)(url_for(action, table))
    assert response.status_code == 405
    assert snapshot() == before


# ---------------------------------------------------------------------------
# CSRF on every POST
# ---------------------------------------------------------------------------

# Every POST with a path that accepts it here (removing a computer player, handing
# over an away seat and taking a seat back have none at these tables: the matrix refuses
# them, and their accepted paths are tests/games/test_computer_players.py's).
NO_ACCEPTED_PATH = ("table", "join_get", "remove_computer", "hand_over", "take_back")
CSRF_ACTIONS = (*(a for a in ACTIONS if a not in NO_ACCEPTED_PATH), "create", "practice")


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize("action", CSRF_ACTIONS)
def test_every_post_needs_the_csrf_token(world: Any, action: str, htmx: bool) -> None:
    state = {
        "bid": "bidding",
        "play": "playing",
        "next_trick": "trick_done",
        "next_card": "trick_done",
    }.get(action, "waiting")
    state = "round_done" if action == "next_round" else state
    cell = cell_world(world, state)
    table = cell["table"]
    # The one user for whom the POST, with a token, would be accepted.
    user = cell["users"]["stranger" if action == "join_post" else "host"]
    if action == "play":
        user = cell["users"]["seated"]
    client = client_for(user, world, enforce_csrf_checks=True)
    client.get(reverse("table", args=[table.pk]))  # the browser has the CSRF cookie...
    if action == "create":
        url, data = reverse("create_table"), {"ghost": "on"}
    elif action == "practice":
        url, data = reverse("start_practice"), {"computers": "2", "level": "easy"}
    else:
        url, data = url_for(action, table), form_for(action, table, user)
    extra = HTMX if htmx else {}
    before = snapshot()
    response = client.post(url, data, **extra)  # ...but the form has no token
    assert response.status_code == 403, response.status_code
    assert snapshot() == before
    # A wrong token is as good as none.
    response = client.post(url, data, HTTP_X_CSRFTOKEN="x" * 32, **extra)
    assert response.status_code == 403
    assert snapshot() == before
    # The same POST with the cookie's token is accepted: the 403 was CSRF's.
    token = client.cookies["csrftoken"].value
    response = client.post(url, {**data, "csrfmiddlewaretoken": token}, **extra)
    assert response.status_code in (200, 303), response.status_code
    assert snapshot() != before


# ---------------------------------------------------------------------------
# invite links
# ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_invite_tokens_are_unguessable() -> None:
    host = make_user("tokyo")
    tokens = [actions.create_table(host).invite_token for _ in range(50)]
    assert len(set(tokens)) == len(tokens)
    for token in tokens:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", token)
        # URL-safe base64: 6 bits per character.
        assert len(token) * 6 >= 128, token
    # And they are not made of a few repeated characters.
    alphabet = set("".join(tokens))
    assert len(alphabet) > 40
    bits = math.log2(len(alphabet)) * min(len(t) for t in tokens)
    assert bits >= 128


@pytest.mark.django_db
def test_rotation_by_the_host_invalidates_the_old_link(world: Any) -> None:
    cell = cell_world(world, "waiting")
    table, host = cell["table"], cell["users"]["host"]
    newcomer = make_user("nina")
    old = reverse("join", args=[table.invite_token])
    response = client_for(host, world).post(reverse("rotate_invite", args=[table.pk]))
    assert response.status_code == 303
    table = fresh(table)
    new = reverse("join", args=[table.invite_token])
    assert new != old
    client = client_for(newcomer)
    before = snapshot()
    for response in (client.get(old), client.post(old)):
        assert response.status_code == 404
        assert b'role="alert"' in response.content
    assert snapshot() == before
    assert client.get(new).status_code == 200
    assert client.post(new).status_code == 303
    assert Seat.objects.filter(table=table, user=newcomer).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["seated", "staff_seated", "stranger", "staff"])
def test_only_the_host_rotates_the_link(world: Any, role: str) -> None:
    table = fresh(world["tables"]["waiting"])
    before = snapshot()
    response = client_for(world["users"][role], world).post(
        reverse("rotate_invite", args=[table.pk])
    )
    assert response.status_code == 403
    assert snapshot() == before
    assert fresh(table).invite_token == table.invite_token


@pytest.mark.django_db
def test_link_refused_once_the_table_is_full() -> None:
    host = make_user("fullhost")
    table = actions.create_table(host)
    for number in range(2, MAX_SEATS + 1):
        response = client_for(make_user(f"p{number}")).post(
            reverse("join", args=[table.invite_token])
        )
        assert response.status_code == 303
    assert Seat.objects.filter(table=table).count() == MAX_SEATS
    late = client_for(make_user("late"))
    before = snapshot()
    url = reverse("join", args=[table.invite_token])
    get, post = late.get(url), late.post(url)
    assert get.status_code == 409 and b"full" in get.content
    assert post.status_code == 409 and b"full" in post.content
    assert snapshot() == before
    assert b"Join this table</button>" not in get.content


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["bidding", "finished", "cancelled"])
def test_link_refused_once_started_or_over(world: Any, state: str) -> None:
    table = fresh(world["tables"][state])
    late = client_for(make_user("late"))
    before = snapshot()
    url = reverse("join", args=[table.invite_token])
    for response in (late.get(url), late.post(url), late.post(url, HTTP_HX_REQUEST="true")):
        assert response.status_code == 409
        assert b'role="alert"' in response.content
    assert snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "token", ["x", "A" * 32, "A" * 64, "' OR 1=1 --", "%00", "../../admin", "A" * 65]
)
def test_forged_tokens_are_404(world: Any, token: str) -> None:
    client = client_for(world["users"]["stranger"], world)
    before = snapshot()
    for method in (client.get, client.post):
        response = method(f"/join/{token}/")
        assert response.status_code == 404
    assert snapshot() == before


# ---------------------------------------------------------------------------
# the websocket
# ---------------------------------------------------------------------------

WS_EXPECTED = {
    "anonymous": 4401,
    "stranger": 4403,
    "staff": None,  # watching (issue 50: a superuser has games.watch_table): the public regions
    "seated": None,  # a snapshot frame
    "host": None,
    "staff_seated": None,
}


async def _open(path: str, cookie: str | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(_asgi(), path, headers=headers)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    return comm


def _asgi() -> Any:
    from config.asgi import application

    return application


def _push_a_chat_log(built: dict[str, Any], table: Table, text: str) -> None:
    """Something that pushes the table's chat log: a message, or at a cancelled table
    (its chat closed, issue 50) a moderator hiding one."""
    host = built["users"]["host"]
    if table.status != Table.Status.CANCELLED:
        actions.post_chat(host, table.pk, text)
        return
    message = ChatMessage.objects.create(table=table, author=host, text=text)
    actions.hide_chat_message(built["users"]["staff"], message.pk)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("state", ["waiting", "playing", "cancelled"])
@pytest.mark.parametrize("role", ROLES)
async def test_websocket_matrix(role: str, state: str) -> None:
    from asgiref.sync import sync_to_async

    await get_channel_layer().flush()
    built = await sync_to_async(build)(state)
    table, user = built["table"], built["users"][role]
    cookie = None if user is None else await sync_to_async(session_cookie)(user)
    before = await sync_to_async(snapshot)()
    comm = await _open(f"/ws/tables/{table.pk}/", cookie)
    try:
        message = await comm.receive_output(timeout=5)
        want = WS_EXPECTED[role]
        if want is None:
            assert message["type"] == "websocket.send", message
            assert f'data-version="{table.version}"' in message["text"]
        else:
            assert message == {"type": "websocket.close", "code": want}
            # A refused socket never receives anything of the table afterwards.
            await sync_to_async(_push_a_chat_log)(built, table, "secret")
            assert await comm.receive_nothing(timeout=0.3)
    finally:
        await comm.disconnect()
    after = await sync_to_async(snapshot)()
    if want is not None:
        after["chat"] = before["chat"]
    else:
        before.pop("chat"), after.pop("chat")
    assert after == before


@pytest.mark.django_db(transaction=True)
async def test_websocket_to_a_missing_table_and_from_a_foreign_origin() -> None:
    from asgiref.sync import sync_to_async

    built = await sync_to_async(build)("playing")
    table, host = built["table"], built["users"]["host"]
    cookie = await sync_to_async(session_cookie)(host)
    comm = await _open("/ws/tables/999999999/", cookie)
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
    await comm.disconnect()
    # Cross-site websocket hijacking: the host's cookie from another origin is refused.
    evil = WebsocketCommunicator(
        _asgi(),
        f"/ws/tables/{table.pk}/",
        headers=[(b"origin", b"http://evil.example"), (b"cookie", cookie.encode())],
    )
    connected, _ = await evil.connect(timeout=5)
    assert not connected
    await evil.disconnect()
