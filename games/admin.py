"""The Django admin for staff: find a table, see its players and state, cancel it.

Game rows (hands, bids, tricks, plays, scores) are evidence of what happened:
the admin shows them read-only. The only change staff make to a game is the
"Cancel selected tables" action, which goes through games.actions like every
other move (locked, versioned, broadcast).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from . import actions
from .models import Bid, ChatMessage, HandCard, Play, Round, RoundScore, Seat, Table, Trick


class ReadOnlyAdminMixin:
    """Rows that record a game: viewable, never added, changed or deleted by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(ReadOnlyAdminMixin, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "user", "joined_at")
    readonly_fields = fields
    ordering = ("position",)


class RoundInline(ReadOnlyInline):
    model = Round
    fields = ("number", "cards_dealt", "dealer", "opener")
    readonly_fields = fields
    ordering = ("number",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Round]:
        return super().get_queryset(request).select_related("dealer__user", "opener__user")


class ChatMessageInline(ReadOnlyInline):
    model = ChatMessage
    fields = ("created_at", "author", "text")
    readonly_fields = fields
    show_change_link = False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "host",
        "status",
        "phase",
        "round_number",
        "players",
        "uses_ghost",
        "version",
        "updated_at",
    )
    list_display_links = ("id", "host")
    list_filter = ("status", "phase", "uses_ghost", "ghost", "created_at", "updated_at")
    search_fields = ("=id", "host__username", "seats__user__username", "=invite_token")
    list_select_related = ("host",)
    date_hierarchy = "updated_at"
    ordering = ("-updated_at",)
    inlines = (SeatInline, RoundInline, ChatMessageInline)
    actions = ("cancel_tables",)
    readonly_fields = (
        "host",
        "invite_token",
        "ghost",
        "uses_ghost",
        "status",
        "phase",
        "version",
        "round_number",
        "seed",
        "cancelled_by",
        "created_at",
        "updated_at",
        "started_at",
        "finished_at",
    )
    fieldsets = (
        (None, {"fields": ("host", "status", "phase", "round_number", "version")}),
        (_("Options"), {"fields": ("ghost", "uses_ghost", "invite_token", "seed")}),
        (
            _("History"),
            {"fields": ("created_at", "started_at", "updated_at", "finished_at", "cancelled_by")},
        ),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        return super().get_queryset(request).annotate(player_count=Count("seats", distinct=True))

    @admin.display(description=_("players"), ordering="player_count")
    def players(self, obj: Table) -> int:
        return getattr(obj, "player_count", None) or obj.seats.count()

    # Tables are created by players and changed by actions only.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description=_("Cancel selected tables"), permissions=["change"])
    def cancel_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        cancelled = 0
        for pk in queryset.order_by("pk").values_list("pk", flat=True):
            try:
                actions.cancel_table(request.user, pk)
            except actions.ActionError as error:
                self.message_user(request, f"Table #{pk}: {error.message}", messages.ERROR)
            else:
                cancelled += 1
        if cancelled:
            self.message_user(
                request,
                ngettext("Cancelled %(n)d table.", "Cancelled %(n)d tables.", cancelled)
                % {"n": cancelled},
                messages.SUCCESS,
            )


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "table", "position", "user", "joined_at")
    list_filter = ("table__status",)
    search_fields = ("user__username", "=table__id")
    list_select_related = ("table__host", "user")
    raw_id_fields = ("table", "user")


class TrickInline(ReadOnlyInline):
    model = Trick
    fields = ("number", "leader", "complete", "winner", "won_by_ghost", "destroyed_by", "bonus")
    readonly_fields = fields
    ordering = ("number",)


class BidInline(ReadOnlyInline):
    model = Bid
    fields = ("seat", "value", "created_at")
    readonly_fields = fields
    show_change_link = False


class RoundScoreInline(ReadOnlyInline):
    model = RoundScore
    fields = ("seat", "bid", "won", "base", "bonus", "total", "running_total")
    readonly_fields = fields
    show_change_link = False


@admin.register(Round)
class RoundAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "table", "number", "cards_dealt", "dealer", "opener")
    list_filter = ("number", "table__status")
    search_fields = ("=table__id",)
    list_select_related = ("table__host", "dealer__user", "opener__user")
    inlines = (BidInline, TrickInline, RoundScoreInline)


def player_name(row: HandCard | Play) -> str:
    """Who holds or played a card: a user, or the ghost (a NULL seat, R8)."""
    return str(_("ghost")) if row.seat_id is None or row.seat is None else str(row.seat.user)


@admin.register(HandCard)
class HandCardAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "round", "holder", "card", "deal_order", "played")
    list_filter = ("played",)
    search_fields = ("=round__table__id", "card", "seat__user__username")
    list_select_related = ("round", "seat__user")

    @admin.display(description=_("holder"))
    def holder(self, obj: HandCard) -> str:
        return player_name(obj)


@admin.register(Bid)
class BidAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "round", "seat", "value", "created_at")
    search_fields = ("=round__table__id", "seat__user__username")
    list_select_related = ("round", "seat__user")


class PlayInline(ReadOnlyInline):
    model = Play
    fields = ("order", "seat", "card", "tigress_as", "created_at")
    readonly_fields = fields
    show_change_link = False
    ordering = ("order",)


@admin.register(Trick)
class TrickAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "round",
        "number",
        "leader",
        "complete",
        "winner",
        "won_by_ghost",
        "destroyed_by",
        "bonus",
    )
    list_filter = ("complete", "destroyed_by", "won_by_ghost")
    search_fields = ("=round__table__id",)
    list_select_related = ("round", "leader__user", "winner__user")
    inlines = (PlayInline,)


@admin.register(Play)
class PlayAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "trick", "order", "player", "card", "tigress_as", "created_at")
    list_filter = ("tigress_as",)
    search_fields = ("=round__table__id", "card", "seat__user__username")
    list_select_related = ("trick__round", "seat__user")

    @admin.display(description=_("player"))
    def player(self, obj: Play) -> str:
        return player_name(obj)


@admin.register(RoundScore)
class RoundScoreAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "round", "seat", "bid", "won", "base", "bonus", "total", "running_total")
    search_fields = ("=round__table__id", "seat__user__username")
    list_select_related = ("round", "seat__user")


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "table", "author", "short_text", "created_at")
    list_filter = ("created_at",)
    search_fields = ("text", "author__username", "=table__id")
    list_select_related = ("table__host", "author")
    date_hierarchy = "created_at"

    @admin.display(description=_("text"))
    def short_text(self, obj: ChatMessage) -> str:
        return obj.text if len(obj.text) <= 60 else obj.text[:59] + "…"
