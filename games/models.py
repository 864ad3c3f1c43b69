"""The rows of a game. Rules live in games.rules; changes happen in games.actions.

Player identity: a human is a Seat; the ghost (R8) is a NULL seat on hand cards,
plays and tricks. The engine numbers humans 0..n-1 in seat order, which is
`Seat.position - 1` (positions stay contiguous: leaving before the start
closes the gap).
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

INVITE_TOKEN_BYTES = 24  # 192 bits: unguessable, and short enough for a link
CHAT_MAX_LENGTH = 500
MAX_SEATS = 8
MAX_DB_ID = 2**63 - 1  # a larger id cannot exist (and would overflow the database driver)


def new_invite_token() -> str:
    return secrets.token_urlsafe(INVITE_TOKEN_BYTES)


def new_seed() -> int:
    # Fits a signed 64-bit column on every database.
    return secrets.randbits(62)


class Table(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        PLAYING = "playing", _("In progress")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    class Phase(models.TextChoices):
        NONE = "", _("Not started")
        BIDDING = "bidding", _("Bidding")
        PLAYING = "playing", _("Playing")
        TRICK_DONE = "trick_done", _("Trick done")
        ROUND_DONE = "round_done", _("Round done")

    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_tables"
    )
    invite_token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    ghost = models.BooleanField(
        _("ghost player (Graybeard)"),
        default=True,
        help_text=_("Only used with exactly 2 players (R8)."),
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    phase = models.CharField(max_length=10, choices=Phase.choices, default=Phase.NONE, blank=True)
    # Bumped by every action; clients post the version they saw, so a stale or
    # repeated POST is refused with 409 instead of applied twice.
    version = models.PositiveIntegerField(default=0)
    round_number = models.PositiveSmallIntegerField(default=0)
    seed = models.BigIntegerField(default=new_seed, editable=False)
    uses_ghost = models.BooleanField(default=False, help_text=_("Fixed at the start."))
    cancelled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["status", "-updated_at"])]

    def __str__(self) -> str:
        return f"Table #{self.pk} ({self.host})"

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    position = models.PositiveSmallIntegerField()  # 1-based, join order; 1 is the host
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_unique_position"),
            models.UniqueConstraint(fields=["table", "user"], name="seat_unique_user"),
            models.CheckConstraint(
                condition=Q(position__gte=1, position__lte=MAX_SEATS), name="seat_position_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} at seat {self.position} of table #{self.table_id}"

    @property
    def index(self) -> int:
        """The engine's player index."""
        return self.position - 1


class Round(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    cards_dealt = models.PositiveSmallIntegerField()
    dealer = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="+")
    opener = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="+")
    seed = models.BigIntegerField()
    # The table version once this round was dealt. Everyone bids at the same
    # time (R4), so a bid form from any version since then is current: a bid is
    # kept unique by its own constraint, not by the version.
    dealt_at_version = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="round_unique_number"),
            models.CheckConstraint(
                condition=Q(number__gte=1, number__lte=10), name="round_number_range"
            ),
        ]

    def __str__(self) -> str:
        return f"Round {self.number} of table #{self.table_id}"


class HandCard(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="hand_cards")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, null=True, blank=True)  # NULL: ghost
    card = models.CharField(max_length=4)
    deal_order = models.PositiveSmallIntegerField()
    played = models.BooleanField(default=False)
    # The card its owner chose to play next, before their turn (games.actions.preselect_card):
    # played for them the moment the turn comes if it is still legal. Private to the owner.
    preselected = models.BooleanField(default=False)
    preselected_as = models.CharField(max_length=6, blank=True, default="")  # the Tigress's choice

    class Meta:
        ordering = ["round", "seat", "deal_order"]
        constraints = [
            models.UniqueConstraint(fields=["round", "card"], name="handcard_unique_card"),
        ]

    def __str__(self) -> str:
        return f"{self.card} ({'ghost' if self.seat_id is None else self.seat})"


class Bid(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="bids")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="bids")
    value = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], name="bid_unique_per_round"),
        ]

    def __str__(self) -> str:
        return f"{self.seat.user} bids {self.value} in round {self.round.number}"


class Trick(models.Model):
    class Destroyed(models.TextChoices):
        NO = "", _("Not destroyed")
        KRAKEN = "kraken", _("Destroyed by the Kraken")
        WHALE = "whale", _("Destroyed by the White Whale")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tricks")
    number = models.PositiveSmallIntegerField()
    leader = models.ForeignKey(
        Seat, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )  # NULL: the ghost leads
    complete = models.BooleanField(default=False)
    winner = models.ForeignKey(
        Seat, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    won_by_ghost = models.BooleanField(default=False)
    destroyed_by = models.CharField(
        max_length=6, choices=Destroyed.choices, default=Destroyed.NO, blank=True
    )
    bonus = models.PositiveSmallIntegerField(default=0)
    next_leader = models.ForeignKey(
        Seat, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )  # NULL with complete=True: the ghost leads next

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="trick_unique_number"),
        ]

    def __str__(self) -> str:
        return f"Trick {self.number} of {self.round}"


class Play(models.Model):
    trick = models.ForeignKey(Trick, on_delete=models.CASCADE, related_name="plays")
    # Denormalised so that the database itself refuses a card played twice in a round.
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, null=True, blank=True)  # NULL: ghost
    card = models.CharField(max_length=4)
    tigress_as = models.CharField(max_length=6, blank=True, default="")  # "pirate" / "escape"
    order = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["trick", "order"]
        constraints = [
            models.UniqueConstraint(fields=["trick", "order"], name="play_unique_order"),
            models.UniqueConstraint(fields=["round", "card"], name="play_unique_card"),
        ]

    def __str__(self) -> str:
        return self.notation

    @property
    def notation(self) -> str:
        return f"{self.card}:{self.tigress_as}" if self.tigress_as else self.card


class RoundScore(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="scores")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="scores")
    bid = models.PositiveSmallIntegerField()
    won = models.PositiveSmallIntegerField()
    base = models.IntegerField()
    bonus = models.IntegerField()
    total = models.IntegerField()
    running_total = models.IntegerField()

    class Meta:
        ordering = ["round", "seat__position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], name="roundscore_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.seat.user}: {self.total} in {self.round}"


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    text = models.CharField(max_length=CHAT_MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"


# -- after the game: rematch proposals --------------------------------------------


class Rematch(models.Model):
    """A proposal, at game over, to play again: same players, same seats, same options, same host.

    The new table is created only once every player has accepted (so nobody is
    ever seated without accepting); until then it is a proposal and nothing else.
    """

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for answers")
        DECLINED = "declined", _("Declined")
        ACCEPTED = "accepted", _("Accepted by everyone")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rematches")
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    declined_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    new_table = models.OneToOneField(
        Table, on_delete=models.SET_NULL, null=True, blank=True, related_name="rematch_of"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "-created_at", "-pk"]
        constraints = [
            # A declined proposal may be followed by a new one; an open or accepted
            # one may not (the database refuses a second, whatever the race).
            models.UniqueConstraint(
                fields=["table"],
                condition=~Q(status="declined"),
                name="rematch_one_live_per_table",
            ),
        ]

    def __str__(self) -> str:
        return f"Rematch of table #{self.table_id} ({self.get_status_display()})"


class RematchAcceptance(models.Model):
    """One player's yes to a rematch (the proposer's is recorded with the proposal)."""

    rematch = models.ForeignKey(Rematch, on_delete=models.CASCADE, related_name="acceptances")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rematch", "seat__position"]
        constraints = [
            models.UniqueConstraint(fields=["rematch", "seat"], name="rematch_accept_once"),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat_id} accepts {self.rematch}"
