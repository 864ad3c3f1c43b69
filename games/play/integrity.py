"""Which database constraint an IntegrityError broke, and whether that means a lost race.

The actions check everything under the table lock first; the unique constraints
below are the last line of defence against a move submitted twice (two tabs,
a double click, a retried request). Hitting one of them is a lost race, a 409.
Any other constraint failing is a bug, which must be seen, not answered with
"That move was already made.".
"""

from __future__ import annotations

import re
from functools import cache

from django.apps import apps
from django.db import IntegrityError
from django.db.models import UniqueConstraint

#: Constraints a second copy of one move runs into.
LOST_RACE_CONSTRAINTS = frozenset(
    {
        "bid_unique_per_round",  # the same bid twice (R4: a bid is final)
        "play_unique_order",  # two plays for one position of the trick
        "play_unique_card",  # the same card played twice
        "seat_unique_user",  # joined twice
        "seat_unique_position",  # two joins for one seat
        "trick_unique_number",  # "Next trick" twice
        "round_unique_number",  # "Next round" twice
        "roundscore_unique",  # a round scored twice
    }
)

# SQLite names the columns of a failed unique constraint, not the constraint.
_SQLITE_UNIQUE = re.compile(r"UNIQUE constraint failed: (?P<columns>.+)")
_SQLITE_CHECK = re.compile(r"CHECK constraint failed: (?P<name>\w+)")


@cache
def _unique_constraints_by_columns() -> dict[frozenset[str], str]:
    found: dict[frozenset[str], str] = {}
    for model in apps.get_app_config("games").get_models():
        table = model._meta.db_table
        for constraint in model._meta.constraints:
            if isinstance(constraint, UniqueConstraint) and constraint.fields:
                columns = frozenset(
                    f"{table}.{model._meta.get_field(name).column}" for name in constraint.fields
                )
                found[columns] = constraint.name
    return found


def constraint_name(error: IntegrityError) -> str | None:
    """The name of the constraint behind ``error``, when the database says which."""
    diag = getattr(error.__cause__, "diag", None)  # PostgreSQL (psycopg) names it
    if diag is not None and getattr(diag, "constraint_name", None):
        return str(diag.constraint_name)
    text = str(error)
    if match := _SQLITE_UNIQUE.search(text):
        columns = frozenset(c.strip() for c in match.group("columns").split(","))
        return _unique_constraints_by_columns().get(columns)
    if match := _SQLITE_CHECK.search(text):
        return match.group("name")
    return None


def is_lost_race(error: IntegrityError) -> bool:
    return constraint_name(error) in LOST_RACE_CONSTRAINTS
