"""The rows of a game. Rules live in games.rules; changes happen in games.play.actions.

Player identity: a human is a Seat; the ghost (R8) is a NULL seat on hand cards,
plays and tricks. The engine numbers humans 0..n-1 in seat order, which is
`Seat.position - 1` (positions stay contiguous: leaving before the start
closes the gap).
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

INVITE_TOKEN_BYTES = 24  # 192 bits: unguessable, and short enough for a link
CHAT_MAX_LENGTH = 500
MAX_SEATS = 8
MAX_DB_ID = 2**63 - 1  # a larger id cannot exist (and would overflow the database driver)


#: The turn clock's choices, in seconds (0: off).
TURN_CLOCK_CHOICES = [
    (0, _("No clock")),
    (30, _("30 seconds")),
    (60, _("1 minute")),
    (120, _("2 minutes")),
]


class ComputerLevel(models.TextChoices):
    """A computer player's level (games.rules.computer.Level); "" for a person."""

    EASY = "easy", _("Easy")
    NORMAL = "normal", _("Normal")
    STRONG = "strong", _("Strong")


def new_invite_token() -> str:
    return secrets.token_urlsafe(INVITE_TOKEN_BYTES)


def new_seed() -> int:
    # Fits a signed 64-bit column on every database.
    return secrets.randbits(62)


class CancelReason(models.TextChoices):
    """Why staff cancelled a table (issue 50), shown to its players in their language."""

    ABUSE = "abuse", _("Abuse or harassment")
    STUCK = "stuck", _("Stuck table")
    CHEATING = "cheating", _("Cheating")
    PLAYERS = "players", _("Requested by the players")
    OTHER = "other", _("Other")


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
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="hosted_tables",
        verbose_name=_("host"),
    )
    invite_token = models.CharField(
        max_length=64, unique=True, default=new_invite_token, verbose_name=_("invite token")
    )
    ghost = models.BooleanField(
        _("ghost player (Graybeard)"),
        default=True,
        help_text=_("Only used with exactly 2 players (R8)."),
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.WAITING, verbose_name=_("status")
    )
    phase = models.CharField(
        max_length=10,
        choices=Phase.choices,
        default=Phase.NONE,
        blank=True,
        verbose_name=_("phase"),
    )
    # Bumped by every action; clients post the version they saw, so a stale or
    # repeated POST is refused with 409 instead of applied twice.
    version = models.PositiveIntegerField(default=0, verbose_name=_("version"))
    # Bumped by a change of the game's rows that leaves the version as it is (a card
    # chosen in advance: private, and nobody's open form may go stale for it). With
    # the version it tells whether a game state kept in memory is still the game's
    # (games.storage.state_cache).
    revision = models.PositiveIntegerField(default=0, verbose_name=_("revision"))
    round_number = models.PositiveSmallIntegerField(default=0, verbose_name=_("round number"))
    seed = models.BigIntegerField(default=new_seed, editable=False, verbose_name=_("seed"))
    uses_ghost = models.BooleanField(
        default=False, help_text=_("Fixed at the start."), verbose_name=_("uses ghost")
    )
    # The turn clock (issue 48): seconds a player has for a bid or a card before the
    # computer makes it for them (0: no clock). Bids start their clock at the deal.
    turn_clock = models.PositiveSmallIntegerField(
        default=0, choices=TURN_CLOCK_CHOICES, verbose_name=_("turn clock")
    )
    # When the wait for the current move began: the deal while bidding (everyone bids
    # at once, R4), else the last card played or trick begun. The clock counts from it.
    turn_started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("turn started at"))
    # When a computer move is next due here (a computer seat's turn, a seat handed to
    # the computer, a clock run out); NULL: none. Set by every move, so a due move is
    # found from the database by any process (games.computer.due).
    computer_due_at = models.DateTimeField(
        null=True, blank=True, db_index=True, verbose_name=_("computer move due at")
    )
    cancelled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("cancelled by"),
    )
    # Why staff cancelled the table (issue 50): a reason from the list, shown to the
    # players in their language; "other" with the staff member's own words.
    cancel_reason = models.CharField(
        max_length=10,
        choices=CancelReason.choices,
        blank=True,
        default="",
        verbose_name=_("cancel reason"),
    )
    cancel_note = models.CharField(
        max_length=200, blank=True, default="", verbose_name=_("cancel reason (other)")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["status", "-updated_at"])]
        permissions = [
            ("cancel_table", "Can cancel a table"),
            ("watch_table", "Can watch any table as staff"),
        ]

    def __str__(self) -> str:
        return gettext("Table #%(id)s (%(host)s)") % {"id": self.pk, "host": self.host}

    @property
    def cancel_reason_text(self) -> str:
        """Why staff cancelled it, in the active language ("": not cancelled by staff with
        a reason); typed words as typed."""
        if self.cancel_reason == CancelReason.OTHER and self.cancel_note:
            return self.cancel_note
        if self.cancel_reason:
            return str(CancelReason(self.cancel_reason).label)
        return ""

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


class Seat(models.Model):
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("table")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="seats",
        verbose_name=_("user"),
    )
    position = models.PositiveSmallIntegerField(
        verbose_name=_("position")
    )  # 1-based, join order; 1 is the host
    joined_at = models.DateTimeField(auto_now_add=True, verbose_name=_("joined at"))
    # A computer player's seat: its level; its user is one of the reserved computer
    # accounts (games.computer.players), never a person's. "": a person's seat.
    computer = models.CharField(
        max_length=6,
        choices=ComputerLevel.choices,
        blank=True,
        default="",
        verbose_name=_("computer player"),
    )
    # A person's seat handed to the computer while they are away (issue 48): the
    # computer (Normal) plays its moves until its owner opens the table again.
    handed_over = models.BooleanField(default=False, verbose_name=_("played by the computer"))

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_unique_position"),
            models.UniqueConstraint(fields=["table", "user"], name="seat_unique_user"),
            models.CheckConstraint(
                condition=Q(position__gte=1, position__lte=MAX_SEATS), name="seat_position_range"
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(user)s at seat %(position)s of table #%(table)s") % {
            "user": self.user,
            "position": self.position,
            "table": self.table_id,
        }

    @property
    def index(self) -> int:
        """The engine's player index."""
        return self.position - 1

    @property
    def is_computer(self) -> bool:
        return bool(self.computer)

    @property
    def name(self) -> str:
        """How the seat is called on every page: its user's name, or for a computer
        player "Computer N" in the reader's language (its account is "computer-N")."""
        if self.computer:
            number = self.user.username.rpartition("-")[2]
            return gettext("Computer %(n)s") % {"n": number}
        return self.user.username

    @property
    def played_by_computer(self) -> bool:
        """Whether the computer makes this seat's moves (its own, or handed over)."""
        return bool(self.computer) or self.handed_over


class Round(models.Model):
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("table")
    )
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    cards_dealt = models.PositiveSmallIntegerField(verbose_name=_("cards dealt"))
    dealer = models.ForeignKey(
        Seat, on_delete=models.CASCADE, related_name="+", verbose_name=_("dealer")
    )
    opener = models.ForeignKey(
        Seat, on_delete=models.CASCADE, related_name="+", verbose_name=_("opener")
    )
    seed = models.BigIntegerField(verbose_name=_("seed"))
    # The table version once this round was dealt. Everyone bids at the same
    # time (R4), so a bid form from any version since then is current: a bid is
    # kept unique by its own constraint, not by the version.
    dealt_at_version = models.PositiveIntegerField(default=0, verbose_name=_("dealt at version"))

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="round_unique_number"),
            models.CheckConstraint(
                condition=Q(number__gte=1, number__lte=10), name="round_number_range"
            ),
        ]

    def __str__(self) -> str:
        return gettext("Round %(n)s of table #%(table)s") % {
            "n": self.number,
            "table": self.table_id,
        }


class HandCard(models.Model):
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="hand_cards", verbose_name=_("round")
    )
    seat = models.ForeignKey(
        Seat, on_delete=models.CASCADE, null=True, blank=True, verbose_name=_("seat")
    )  # NULL: ghost
    card = models.CharField(max_length=4, verbose_name=_("card"))
    deal_order = models.PositiveSmallIntegerField(verbose_name=_("deal order"))
    played = models.BooleanField(default=False, verbose_name=_("played"))
    # The card its owner chose to play next, before their turn (games.play.actions.preselect_card):
    # played for them the moment the turn comes if it is still legal. Private to the owner.
    preselected = models.BooleanField(default=False, verbose_name=_("preselected"))
    preselected_as = models.CharField(
        max_length=6, blank=True, default="", verbose_name=_("preselected as")
    )  # the Tigress's choice
    # Chosen in advance, but R5 forbade it when the turn came: its owner is told so
    # (their status line) until they play or choose again.
    preselect_refused = models.BooleanField(default=False, verbose_name=_("next card refused"))

    class Meta:
        verbose_name = _("hand card")
        verbose_name_plural = _("hand cards")
        ordering = ["round", "seat", "deal_order"]
        constraints = [
            models.UniqueConstraint(fields=["round", "card"], name="handcard_unique_card"),
        ]

    def __str__(self) -> str:
        holder = gettext("ghost") if self.seat_id is None else self.seat
        return f"{self.card} ({holder})"


class Bid(models.Model):
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="bids", verbose_name=_("round")
    )
    seat = models.ForeignKey(
        Seat, on_delete=models.CASCADE, related_name="bids", verbose_name=_("seat")
    )
    value = models.PositiveSmallIntegerField(verbose_name=_("value"))
    # Made by the computer: a computer seat's, or for a person away or out of time.
    by_computer = models.BooleanField(default=False, verbose_name=_("made by the computer"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("bid")
        verbose_name_plural = _("bids")
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], name="bid_unique_per_round"),
        ]

    def __str__(self) -> str:
        return gettext("%(user)s bids %(value)s in round %(n)s") % {
            "user": self.seat.user,
            "value": self.value,
            "n": self.round.number,
        }


class Trick(models.Model):
    class Destroyed(models.TextChoices):
        NO = "", _("Not destroyed")
        KRAKEN = "kraken", _("Destroyed by the Kraken")
        WHALE = "whale", _("Destroyed by the White Whale")

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="tricks", verbose_name=_("round")
    )
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    leader = models.ForeignKey(
        Seat,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("leader"),
    )  # NULL: the ghost leads
    complete = models.BooleanField(default=False, verbose_name=_("complete"))
    winner = models.ForeignKey(
        Seat,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("winner"),
    )
    won_by_ghost = models.BooleanField(default=False, verbose_name=_("won by ghost"))
    destroyed_by = models.CharField(
        max_length=6,
        choices=Destroyed.choices,
        default=Destroyed.NO,
        blank=True,
        verbose_name=_("destroyed by"),
    )
    bonus = models.PositiveSmallIntegerField(default=0, verbose_name=_("bonus"))
    next_leader = models.ForeignKey(
        Seat,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("next leader"),
    )  # NULL with complete=True: the ghost leads next

    class Meta:
        verbose_name = _("trick")
        verbose_name_plural = _("tricks")
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="trick_unique_number"),
        ]

    def __str__(self) -> str:
        return gettext("Trick %(n)s of %(round)s") % {"n": self.number, "round": self.round}


class Play(models.Model):
    trick = models.ForeignKey(
        Trick, on_delete=models.CASCADE, related_name="plays", verbose_name=_("trick")
    )
    # Denormalised so that the database itself refuses a card played twice in a round.
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="+", verbose_name=_("round")
    )
    seat = models.ForeignKey(
        Seat, on_delete=models.CASCADE, null=True, blank=True, verbose_name=_("seat")
    )  # NULL: ghost
    card = models.CharField(max_length=4, verbose_name=_("card"))
    tigress_as = models.CharField(
        max_length=6, blank=True, default="", verbose_name=_("tigress as")
    )  # "pirate" / "escape"
    order = models.PositiveSmallIntegerField(verbose_name=_("order"))
    # Made by the computer: a computer seat's, or for a person away or out of time.
    by_computer = models.BooleanField(default=False, verbose_name=_("made by the computer"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("play")
        verbose_name_plural = _("plays")
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
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="scores", verbose_name=_("round")
    )
    seat = models.ForeignKey(
        Seat, on_delete=models.CASCADE, related_name="scores", verbose_name=_("seat")
    )
    bid = models.PositiveSmallIntegerField(verbose_name=_("bid"))
    won = models.PositiveSmallIntegerField(verbose_name=_("won"))
    base = models.IntegerField(verbose_name=_("base"))
    bonus = models.IntegerField(verbose_name=_("bonus"))
    total = models.IntegerField(verbose_name=_("total"))
    running_total = models.IntegerField(verbose_name=_("running total"))

    class Meta:
        verbose_name = _("round score")
        verbose_name_plural = _("round scores")
        ordering = ["round", "seat__position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], name="roundscore_unique"),
        ]

    def __str__(self) -> str:
        return gettext("%(user)s: %(total)s in %(round)s") % {
            "user": self.seat.user,
            "total": self.total,
            "round": self.round,
        }


class ChatMessage(models.Model):
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="messages", verbose_name=_("table")
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, verbose_name=_("author")
    )
    text = models.CharField(max_length=CHAT_MAX_LENGTH, verbose_name=_("text"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # Hidden by staff (issue 50): every page shows "message removed by staff" in its
    # place; the text stays for the admin, and a restore shows it again.
    hidden_at = models.DateTimeField(null=True, blank=True, verbose_name=_("hidden at"))
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("hidden by"),
    )

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["table", "created_at", "pk"]
        permissions = [("hide_chatmessage", "Can hide and restore chat messages")]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None


class ChatMute(models.Model):
    """A user may not chat until ``until``: at one table, or anywhere (no table) (issue 50).

    Its add, change, view and delete permissions are "may mute"; staff manage mutes
    in the admin, and games.play.actions.post_chat refuses a muted user's message.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_mutes",
        verbose_name=_("user"),
    )
    table = models.ForeignKey(
        Table,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="mutes",
        verbose_name=_("table"),
        help_text=_("Empty: the whole site."),
    )
    until = models.DateTimeField(verbose_name=_("muted until"))
    reason = models.CharField(max_length=500, verbose_name=_("reason"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "until"])]

    def __str__(self) -> str:
        where = (
            gettext("table #%(id)s") % {"id": self.table_id}
            if self.table_id
            else gettext("the whole site")
        )
        return gettext("%(user)s muted at %(where)s") % {"user": self.user, "where": where}


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

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="rematches", verbose_name=_("table")
    )
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("proposed by"),
    )
    status = models.CharField(
        max_length=8, choices=Status.choices, default=Status.OPEN, verbose_name=_("status")
    )
    declined_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("declined by"),
    )
    new_table = models.OneToOneField(
        Table,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rematch_of",
        verbose_name=_("new table"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("rematch")
        verbose_name_plural = _("rematches")
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
        return gettext("Rematch of table #%(table)s (%(status)s)") % {
            "table": self.table_id,
            "status": self.get_status_display(),
        }


class RematchAcceptance(models.Model):
    """One player's yes to a rematch (the proposer's is recorded with the proposal)."""

    rematch = models.ForeignKey(
        Rematch, on_delete=models.CASCADE, related_name="acceptances", verbose_name=_("rematch")
    )
    seat = models.ForeignKey(
        Seat, on_delete=models.CASCADE, related_name="+", verbose_name=_("seat")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("rematch acceptance")
        verbose_name_plural = _("rematch acceptances")
        ordering = ["rematch", "seat__position"]
        constraints = [
            models.UniqueConstraint(fields=["rematch", "seat"], name="rematch_accept_once"),
        ]

    def __str__(self) -> str:
        return gettext("seat %(seat)s accepts %(rematch)s") % {
            "seat": self.seat_id,
            "rematch": self.rematch,
        }
