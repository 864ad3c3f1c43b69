"""The accounts computer players sit with (issue 48).

A seat belongs to a user, so a computer player has one too: "computer-1" to
"computer-7", made on first use, inactive and without a password (nobody can log in
as one), and reserved (accounts.names: no person may be called "computer" or a
look-alike in any language). A table seats each at most once; the seat's
``computer`` field holds the level, and its name reads "Computer N" in the reader's
language (games.models.Seat.name).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from games.models import MAX_SEATS

PREFIX = "computer-"


def account(number: int) -> Any:
    """The account of computer player ``number`` (1 to MAX_SEATS - 1), made on first use."""
    if not 1 <= number < MAX_SEATS:
        raise ValueError(f"no computer player {number}")
    users = get_user_model()
    user, created = users.objects.get_or_create(
        username=f"{PREFIX}{number}", defaults={"is_active": False}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def is_account(user: Any) -> bool:
    name = getattr(user, "username", "")
    return name.startswith(PREFIX) and name[len(PREFIX) :].isdigit()


def free_number(taken_usernames: set[str]) -> int:
    """The lowest computer number not yet seated at a table."""
    return next(n for n in range(1, MAX_SEATS) if f"{PREFIX}{n}" not in taken_usernames)
