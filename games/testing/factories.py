"""Users and tables for tests, the simulator and benchmarks: one set of factories.

    make_user(name, **fields)               a user without a password hash
    make_users(count, prefix="player")      prefix1 .. prefixN (reuse=True: get or create)
    seated_table(players, ghost=True, seed=1)   a waiting table, players seated, fixed deck
    started_table(players, ghost=True, seed=1)  the same, started by its host (round 1, bidding)
    session_cookie(user)                    "sessionid=..." for a socket or a raw HTTP client

``players`` is a number of new users (made with ``prefix``) or the users themselves,
host first. Tables are made through games.play.actions like a player would (create, join
by the invite token, start), except for the deck seed, fixed before anyone joins so a
game is reproducible; ``seed=None`` keeps the table's random seed.

Users get no password hash (hashing is slow and ``Client.force_login`` needs none);
tests of logging in make their own users with ``create_user(password=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client

from games.models import Table
from games.play import actions


def make_user(name: str, **fields: Any) -> Any:
    """A saved user called ``name`` (extra model fields, e.g. is_staff=True, as keywords)."""
    user = get_user_model()(username=name, **fields)
    user.set_unusable_password()
    user.save()
    return user


def make_users(count: int, prefix: str = "player", *, reuse: bool = False) -> list[Any]:
    """Users ``<prefix>1`` .. ``<prefix><count>``; with ``reuse``, existing ones are kept."""
    if not reuse:
        return [make_user(f"{prefix}{number}") for number in range(1, count + 1)]
    model = get_user_model()
    users = []
    for number in range(1, count + 1):
        user = model.objects.filter(username=f"{prefix}{number}").first()
        users.append(user if user is not None else make_user(f"{prefix}{number}"))
    return users


def seated_table(
    players: int | Sequence[Any],
    *,
    ghost: bool = True,
    seed: int | None = 1,
    prefix: str = "player",
) -> tuple[Table, list[Any]]:
    """A waiting table created by the first user, every other user seated by the invite."""
    users = make_users(players, prefix) if isinstance(players, int) else list(players)
    table = actions.create_table(users[0], ghost=ghost)
    if seed is not None:
        # The only write outside games.play.actions: a fixed deck makes a run reproducible.
        Table.objects.filter(pk=table.pk).update(seed=seed)
    for user in users[1:]:
        table = actions.join_table(user, table.invite_token)
    return Table.objects.get(pk=table.pk), users


def started_table(
    players: int | Sequence[Any],
    *,
    ghost: bool = True,
    seed: int | None = 1,
    prefix: str = "player",
) -> tuple[Table, list[Any]]:
    """``seated_table``, then the host starts the game: round 1 dealt, everyone to bid."""
    table, users = seated_table(players, ghost=ghost, seed=seed, prefix=prefix)
    return actions.start_game(users[0], table.pk, table.version), users


def session_cookie(user: Any) -> str:
    """A logged-in session for ``user`` as a Cookie header value (``sessionid=...``)."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"
