"""The Django admin for staff: find a table, see its players and state, cancel it.

Game rows (hands, bids, tricks, plays, scores) are evidence of what happened:
the admin shows them read-only, the table page included (no Save button). The
only change staff make to a game is cancelling it (the "Cancel this table"
button and the "Cancel selected tables" action), which goes through
games.play.actions like every other move (locked, versioned, broadcast).

The table page reads a fixed number of queries whatever the number of seats,
rounds and messages; its chat shows the latest messages and links to all.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from games.models import Bid, ChatMessage, HandCard, Play, Round, RoundScore, Seat, Table, Trick
from games.play import actions


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


CHAT_INLINE_LIMIT = 20  # latest chat messages on the table page; the rest are linked


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "user", "joined_at")
    readonly_fields = fields
    ordering = ("position",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Seat]:
        return super().get_queryset(request).select_related("user")


class RoundInline(ReadOnlyInline):
    model = Round
    fields = ("number", "cards_dealt", "dealer", "opener")
    readonly_fields = fields
    ordering = ("number",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Round]:
        return super().get_queryset(request).select_related("dealer__user", "opener__user")


class LatestChatFormSet(BaseInlineFormSet):  # type: ignore[type-arg]
    """The table's latest CHAT_INLINE_LIMIT messages, newest first, and how many there are."""

    def get_queryset(self) -> Any:
        if not hasattr(self, "_latest"):
            self._latest = super().get_queryset().order_by("-created_at", "-pk")[:CHAT_INLINE_LIMIT]
        return self._latest

    def total(self) -> int:
        return int(self.instance.messages.count())

    def all_messages_url(self) -> str:
        url = reverse("admin:games_chatmessage_changelist")
        return f"{url}?table__id__exact={self.instance.pk}"


class ChatMessageInline(ReadOnlyInline):
    model = ChatMessage
    formset = LatestChatFormSet
    template = "admin/games/table/chat_inline.html"
    fields = ("created_at", "author", "text")
    readonly_fields = fields
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatMessage]:
        return super().get_queryset(request).select_related("author")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "host",
        "progress",
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
    change_form_template = "admin/games/table/change_form.html"
    readonly_fields = (
        "host",
        "invite_token",
        "ghost",
        "uses_ghost",
        "status",
        "progress",
        "version",
        "seed",
        "cancelled_by",
        "created_at",
        "updated_at",
        "started_at",
        "finished_at",
        "bids",
        "scores",
    )
    fieldsets = (
        (None, {"fields": ("host", "status", "progress", "version")}),
        (_("Bids and scores"), {"fields": ("bids", "scores")}),
        (_("Options"), {"fields": ("ghost", "uses_ghost", "invite_token", "seed")}),
        (
            _("History"),
            {"fields": ("created_at", "started_at", "updated_at", "finished_at", "cancelled_by")},
        ),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        return (
            super()
            .get_queryset(request)
            .select_related("host", "cancelled_by")
            .annotate(player_count=Count("seats", distinct=True))
        )

    @admin.display(description=_("players"), ordering="player_count")
    def players(self, obj: Table) -> int:
        return getattr(obj, "player_count", None) or obj.seats.count()

    @admin.display(description=_("progress"), ordering="status")
    def progress(self, obj: Table) -> str:
        """Where the game is: a cancel clears the phase, so the phase alone says "Not started"."""
        Status = Table.Status
        if obj.status == Status.PLAYING:
            return str(
                _("Round %(n)d: %(phase)s")
                % {"n": obj.round_number, "phase": Table.Phase(obj.phase).label}
            )
        if obj.status == Status.CANCELLED:
            if obj.round_number:
                return str(_("Cancelled in round %(n)d") % {"n": obj.round_number})
            return str(_("Cancelled before the start"))
        return str(obj.get_status_display())

    @admin.display(description=_("bids"))
    def bids(self, obj: Table) -> SafeString:
        rows = (
            Bid.objects.filter(round__table=obj)
            .select_related("round", "seat__user")
            .order_by("round__number", "seat__position")
        )
        return _html_table(
            "admin-bids",
            (_("round"), _("player"), _("bid")),
            ((b.round.number, b.seat.user.username, b.value) for b in rows),
        )

    @admin.display(description=_("scores"))
    def scores(self, obj: Table) -> SafeString:
        rows = (
            RoundScore.objects.filter(round__table=obj)
            .select_related("round", "seat__user")
            .order_by("round__number", "seat__position")
        )
        return _html_table(
            "admin-scores",
            (
                _("round"),
                _("player"),
                _("bid"),
                _("won"),
                _("base"),
                _("bonus"),
                _("total"),
                _("running total"),
            ),
            (
                (
                    s.round.number,
                    s.seat.user.username,
                    s.bid,
                    s.won,
                    s.base,
                    s.bonus,
                    s.total,
                    s.running_total,
                )
                for s in rows
            ),
        )

    # Tables are created by players and changed by actions only: the table page
    # is a view (no Save button, a POST to it is refused); cancelling is its own
    # permission, given with "change table".
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("games.change_table"))

    def get_urls(self) -> list[URLPattern]:
        cancel = path(
            "<int:object_id>/cancel/",
            self.admin_site.admin_view(require_POST(self.cancel_view)),
            name="games_table_cancel",
        )
        return [cancel, *super().get_urls()]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        context["can_cancel"] = self.has_cancel_permission(request)
        return super().change_view(request, object_id, form_url, context)

    def cancel_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """The table page's "Cancel this table" button: the same action as a player's leave."""
        if not self.has_cancel_permission(request):
            raise PermissionDenied
        try:
            actions.cancel_table(request.user, object_id)
        except actions.ActionError as error:
            self.message_user(request, f"Table #{object_id}: {error.message}", messages.ERROR)
        else:
            self.message_user(
                request, _("Table #%(id)d is cancelled.") % {"id": object_id}, messages.SUCCESS
            )
        return HttpResponseRedirect(reverse("admin:games_table_change", args=[object_id]))

    @admin.action(description=_("Cancel selected tables"), permissions=["cancel"])
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


def _html_table(css_class: str, headers: tuple[Any, ...], rows: Any) -> SafeString:
    """A small read-only table for the admin (escaped like any template)."""
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((c,) for c in r)),) for r in rows)
    )
    return format_html(
        '<table class="{}"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
        css_class,
        head,
        body,
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
