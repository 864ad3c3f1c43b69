"""The rows of a score sheet (seed 001): a game played with real cards, scored here.

An app of its own (label ``sheets``, migrations in games/sheets/migrations): the
sheet shares nothing with a table's rows, and its migrations never collide with the
games app's, which others change at the same time.

Changes happen in games.sheets.actions only, one locked transaction each: the
sheet's row is taken with select_for_update and its ``version`` goes up by one, so a
form posted at an older version is refused (409) instead of overwriting a save it
never saw. Scores (base, bonus, total, running total) are written by the same
transaction from games.rules (``score_captures``), for every round at once: a
correction of an early round moves every later running total with it.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from games import rules

TOKEN_BYTES = 18  # the sheet's link: 144 bits, unguessable ("anyone with its link")
MIN_PLAYERS = 2
MAX_PLAYERS = 8
FULL_GAME = rules.ROUNDS  # 10 rounds
SHORT_GAME = 5  # "partie courte" (seed 001)
NAME_MAX = 30


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


class Sheet(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing"
        FINISHED = "finished"

    token = models.CharField(max_length=32, unique=True, default=new_token)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_sheets"
    )
    rounds = models.PositiveSmallIntegerField(default=FULL_GAME)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    version = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(rounds__in=(SHORT_GAME, FULL_GAME)), name="sheet_rounds_5_or_10"
            ),
        ]

    def __str__(self) -> str:
        return f"sheet #{self.pk}"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def is_short(self) -> bool:
        return self.rounds == SHORT_GAME


class SheetPlayer(models.Model):
    """A player of the sheet, in seating order: a registered user or a guest's name."""

    sheet = models.ForeignKey(Sheet, on_delete=models.CASCADE, related_name="players")
    position = models.PositiveSmallIntegerField()  # 1..8, the seating order
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="sheet_places",
    )
    guest_name = models.CharField(max_length=NAME_MAX, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["sheet", "position"], name="sheet_player_position"),
            models.UniqueConstraint(
                fields=["sheet", "user"], condition=Q(user__isnull=False), name="sheet_player_user"
            ),
            # Exactly one of: a registered user, a guest's name.
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(guest_name=""))
                | (Q(user__isnull=True) & ~Q(guest_name="")),
                name="sheet_player_user_or_guest",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return self.user.username if self.user_id is not None else self.guest_name

    @property
    def is_guest(self) -> bool:
        return self.user_id is None


class SheetRound(models.Model):
    """One round: its bids once entered, its results once entered."""

    sheet = models.ForeignKey(Sheet, on_delete=models.CASCADE, related_name="round_rows")
    number = models.PositiveSmallIntegerField()
    cards_dealt = models.PositiveSmallIntegerField()
    has_results = models.BooleanField(default=False)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["sheet", "number"], name="sheet_round_number"),
        ]

    def __str__(self) -> str:
        return f"round {self.number} of sheet #{self.sheet_id}"


class SheetEntry(models.Model):
    """One player's line in one round: what was entered and what it scores (R9)."""

    round = models.ForeignKey(SheetRound, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(SheetPlayer, on_delete=models.CASCADE, related_name="entries")
    bid = models.PositiveSmallIntegerField()
    tricks = models.PositiveSmallIntegerField(null=True, blank=True)  # None: no results yet
    colour_14s = models.PositiveSmallIntegerField(default=0)
    black_14 = models.PositiveSmallIntegerField(default=0)
    mermaids_by_pirate = models.PositiveSmallIntegerField(default=0)
    pirates_by_skull_king = models.PositiveSmallIntegerField(default=0)
    skull_king_by_mermaid = models.PositiveSmallIntegerField(default=0)
    other_bonus = models.IntegerField(default=0)
    # Written from games.rules by every save (None until the results are in).
    base = models.IntegerField(null=True, blank=True)
    bonus = models.IntegerField(null=True, blank=True)  # counted: 0 unless the bid is exact
    total = models.IntegerField(null=True, blank=True)
    running_total = models.IntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "player"], name="sheet_entry_round_player"),
        ]

    def __str__(self) -> str:
        return f"entry of player {self.player_id} in round {self.round_id}"

    def captures(self) -> rules.Captures:
        return rules.Captures(
            colour_14s=self.colour_14s,
            black_14=self.black_14,
            mermaids_by_pirate=self.mermaids_by_pirate,
            pirates_by_skull_king=self.pirates_by_skull_king,
            skull_king_by_mermaid=self.skull_king_by_mermaid,
        )

    @property
    def entered_bonus(self) -> int:
        """The bonus as entered, counted or not."""
        return self.captures().points + self.other_bonus

    @property
    def bonus_not_counted(self) -> bool:
        """A bonus was entered for a bid that was not made exactly (R9: it does not count)."""
        return self.tricks is not None and self.entered_bonus != 0 and self.bonus == 0


class SheetChange(models.Model):
    """Every save, kept: who, when, which round and step, before and after."""

    class Step(models.TextChoices):
        CREATED = "created"
        BIDS = "bids"
        RESULTS = "results"

    sheet = models.ForeignKey(Sheet, on_delete=models.CASCADE, related_name="changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    user_name = models.CharField(max_length=150)  # as it was at the time
    at = models.DateTimeField(auto_now_add=True)
    round_number = models.PositiveSmallIntegerField(default=0)
    step = models.CharField(max_length=10, choices=Step.choices)
    version = models.PositiveIntegerField()  # the sheet's version this change made
    before: Any = models.JSONField(default=dict)
    after: Any = models.JSONField(default=dict)

    class Meta:
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"change {self.version} of sheet #{self.sheet_id}"
