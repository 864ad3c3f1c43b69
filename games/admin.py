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

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.timesince import timesince
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from games.models import (
    Bid,
    CancelReason,
    ChatMessage,
    ChatMute,
    HandCard,
    Play,
    Round,
    RoundScore,
    Seat,
    Table,
    Trick,
)
from games.play import actions, trouble


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
    fields = ("created_at", "author", "text", "hidden_at")
    readonly_fields = fields
    show_change_link = True  # a message's page, where moderators hide it (issue 50)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatMessage]:
        return super().get_queryset(request).select_related("author")


class StuckFilter(admin.SimpleListFilter):
    """Tables in play with no move for trouble.STUCK_AFTER_MINUTES (issue 50)."""

    title = _("moves")
    parameter_name = "stuck"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("No move for 10 minutes"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Table]) -> QuerySet[Table]:
        if self.value() != "yes":
            return queryset
        return queryset.filter(status=Table.Status.PLAYING, updated_at__lte=trouble.stuck_before())


class AwayFilter(admin.SimpleListFilter):
    """Tables in play where a person has had no page open for AWAY_AFTER_SECONDS (issue 48,
    50): one query for the seats of the tables in play, one cache read for their presence."""

    title = _("players away")
    parameter_name = "away"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("A player away"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Table]) -> QuerySet[Table]:
        if self.value() != "yes":
            return queryset
        return queryset.filter(pk__in=trouble.tables_with_someone_away())


class TroubleChangeList(ChangeList):
    """The table list, with each listed table's trouble read once for the whole page."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        facts = trouble.read(self.result_list)
        for table in self.result_list:
            table.trouble = facts[table.pk]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "host",
        "progress",
        "waiting_for",
        "last_move",
        "away",
        "players",
        "uses_ghost",
        "version",
        "updated_at",
    )
    list_display_links = ("id", "host")
    list_filter = (
        "status",
        StuckFilter,
        AwayFilter,
        "phase",
        "uses_ghost",
        "ghost",
        "created_at",
        "updated_at",
    )
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
        "waiting_for",
        "last_move",
        "away",
    )
    fieldsets = (
        (None, {"fields": ("host", "status", "progress", "version")}),
        (_("Now"), {"fields": ("waiting_for", "last_move", "away")}),
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

    # -- what staff need to find a stuck table (issue 50) ------------------------------

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return TroubleChangeList

    @staticmethod
    def _trouble(obj: Table) -> trouble.Trouble:
        """The table's trouble: read with its page of the list, or alone (its own page)."""
        found = getattr(obj, "trouble", None)
        if found is None:
            found = obj.trouble = trouble.read([obj])[obj.pk]
        return found

    @admin.display(description=_("waiting for"))
    def waiting_for(self, obj: Table) -> str:
        return self._trouble(obj).waiting_for or self.get_empty_value_display()

    @admin.display(description=_("last move"), ordering="updated_at")
    def last_move(self, obj: Table) -> str:
        """How long ago the table last changed (every move saves it: its version goes up)."""
        if obj.updated_at is None:
            return self.get_empty_value_display()
        return str(_("%(time)s ago") % {"time": timesince(obj.updated_at)})

    @admin.display(description=_("away"))
    def away(self, obj: Table) -> SafeString | str:
        """The people with no page open for AWAY_AFTER_SECONDS, each since when."""
        away = self._trouble(obj).away
        if not away:
            return self.get_empty_value_display()
        return format_html_join(
            ", ",
            '<span class="away" title="{}">{} ({})</span>',
            (
                (
                    a.since.isoformat(timespec="seconds"),
                    a.name,
                    _("away for %(time)s") % {"time": timesince(a.since)},
                )
                for a in away
            ),
        )

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
    # permission, games.cancel_table (issue 50).
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("games.cancel_table"))

    def get_urls(self) -> list[URLPattern]:
        cancel = path(
            "<int:object_id>/cancel/",
            self.admin_site.admin_view(require_http_methods(["GET", "POST"])(self.cancel_view)),
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
        """The table page's "Cancel this table" (issue 50): a GET asks for a reason and
        confirmation; the POST cancels through the action, as a player's leave does."""
        if not self.has_cancel_permission(request):
            raise PermissionDenied
        table = self.get_queryset(request).filter(pk=object_id).first()
        if table is None:
            raise Http404
        if table.status in (Table.Status.FINISHED, Table.Status.CANCELLED):
            # Nothing to ask about: say so on the table's page (the POST would say it too).
            self.message_user(
                request,
                _("Table #%(id)d is over already: there is nothing to cancel.") % {"id": table.pk},
                messages.WARNING,
            )
            return HttpResponseRedirect(reverse("admin:games_table_change", args=[object_id]))
        form = CancelForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                actions.cancel_table(request.user, object_id, **form.action_arguments())
            except actions.ActionError as error:
                self.message_user(request, f"Table #{object_id}: {error.message}", messages.ERROR)
            else:
                self.message_user(
                    request, _("Table #%(id)d is cancelled.") % {"id": object_id}, messages.SUCCESS
                )
            return HttpResponseRedirect(reverse("admin:games_table_change", args=[object_id]))
        return self._cancel_confirmation(request, [table], form, single=True)

    def _cancel_confirmation(
        self, request: HttpRequest, tables: list[Table], form: CancelForm, *, single: bool
    ) -> HttpResponse:
        """The page asking why and whether to cancel ``tables`` (400 with a bad form)."""
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Cancel a table") if single else _("Cancel tables"),
            "tables": tables,
            "form": form,
            "single": single,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        status = 400 if form.is_bound and not form.is_valid() else 200
        return TemplateResponse(
            request, "admin/games/table/cancel_confirmation.html", context, status=status
        )

    @admin.action(description=_("Cancel selected tables"), permissions=["cancel"])
    def cancel_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        """Asks for a reason and confirmation first (issue 50), then cancels each table."""
        confirmed = request.POST.get("post") == "yes"
        form = CancelForm(request.POST if confirmed else None)
        if not (confirmed and form.is_valid()):
            tables = list(queryset.order_by("pk"))
            return self._cancel_confirmation(request, tables, form, single=False)
        cancelled = 0
        for pk in queryset.order_by("pk").values_list("pk", flat=True):
            try:
                actions.cancel_table(request.user, pk, **form.action_arguments())
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
        return None


class CancelForm(forms.Form):
    """Why staff cancel a table (issue 50): a reason from the list, or typed with "Other"."""

    reason = forms.ChoiceField(
        label=_("Reason"), choices=CancelReason.choices, widget=forms.RadioSelect
    )
    note = forms.CharField(
        label=_("Other reason"),
        required=False,
        max_length=Table._meta.get_field("cancel_note").max_length,
        help_text=_("With “Other”: shown to the players as you type it."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("reason") == CancelReason.OTHER and not data.get("note", "").strip():
            self.add_error("note", _("Say why the table is cancelled."))
        return data

    def action_arguments(self) -> dict[str, str]:
        """The action's keyword arguments (games.play.actions.cancel_table)."""
        return {"reason": self.cleaned_data["reason"], "note": self.cleaned_data["note"]}


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


class HiddenFilter(admin.SimpleListFilter):
    """Chat messages hidden by staff, or shown (issue 50)."""

    title = _("hidden by staff")
    parameter_name = "hidden"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("Hidden")), ("no", _("Shown"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(hidden_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(hidden_at__isnull=True)
        return queryset


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Chat messages, read-only; moderators (games.hide_chatmessage) hide one, so that
    every page shows "message removed by staff" in its place, and restore it (issue 50):
    on its page with a reason, or several at once from the list."""

    list_display = ("id", "table", "author", "short_text", "hidden", "created_at")
    list_filter = (HiddenFilter, "created_at")
    search_fields = ("text", "author__username", "=table__id")
    list_select_related = ("table__host", "author")
    date_hierarchy = "created_at"
    actions = ("hide_messages", "restore_messages")
    change_form_template = "admin/games/chatmessage/change_form.html"
    fields = ("table", "author", "text", "created_at", "hidden_at", "hidden_by")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatMessage]:
        return super().get_queryset(request).select_related("table__host", "author", "hidden_by")

    @admin.display(description=_("text"))
    def short_text(self, obj: ChatMessage) -> str:
        return obj.text if len(obj.text) <= 60 else obj.text[:59] + "…"

    @admin.display(description=_("hidden"), boolean=True, ordering="hidden_at")
    def hidden(self, obj: ChatMessage) -> bool:
        return obj.hidden_at is not None

    def has_hide_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("games.hide_chatmessage"))

    def get_urls(self) -> list[URLPattern]:
        def moderate(view: Any, name: str) -> URLPattern:
            wrapped = self.admin_site.admin_view(require_POST(view))
            return path(f"<int:object_id>/{name}/", wrapped, name=f"games_chatmessage_{name}")

        return [
            moderate(self.hide_view, "hide"),
            moderate(self.restore_view, "restore"),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        context["can_hide"] = self.has_hide_permission(request)
        context["reason_length"] = actions.MODERATION_REASON_LENGTH
        return super().change_view(request, object_id, form_url, context)

    def hide_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        return self._moderate(
            request, object_id, actions.hide_chat_message, _("Message #%(id)d is hidden.")
        )

    def restore_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        return self._moderate(
            request, object_id, actions.restore_chat_message, _("Message #%(id)d is restored.")
        )

    def _moderate(self, request: HttpRequest, object_id: int, act: Any, done: Any) -> HttpResponse:
        """One message hidden or restored through its action, then back to its page."""
        if not self.has_hide_permission(request):
            raise PermissionDenied
        try:
            act(request.user, object_id, request.POST.get("reason", ""))
        except actions.ActionError as error:
            if error.status == 404:
                raise Http404(error.message) from None
            self.message_user(request, error.message, messages.ERROR)
        else:
            self.message_user(request, done % {"id": object_id}, messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:games_chatmessage_change", args=[object_id]))

    @admin.action(description=_("Hide selected messages"), permissions=["hide"])
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        self._moderate_many(request, queryset.filter(hidden_at__isnull=True), hide=True)

    @admin.action(description=_("Restore selected messages"), permissions=["hide"])
    def restore_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        self._moderate_many(request, queryset.filter(hidden_at__isnull=False), hide=False)

    def _moderate_many(
        self, request: HttpRequest, queryset: QuerySet[ChatMessage], *, hide: bool
    ) -> None:
        act = actions.hide_chat_message if hide else actions.restore_chat_message
        done = 0
        for pk in queryset.order_by("pk").values_list("pk", flat=True):
            try:
                act(request.user, pk)
            except actions.ActionError as error:
                self.message_user(request, f"#{pk}: {error.message}", messages.ERROR)
            else:
                done += 1
        if hide:
            said = ngettext("Hid %(n)d message.", "Hid %(n)d messages.", done)
        else:
            said = ngettext("Restored %(n)d message.", "Restored %(n)d messages.", done)
        self.message_user(request, said % {"n": done}, messages.SUCCESS)


class MuteActiveFilter(admin.SimpleListFilter):
    """Mutes still running, or over."""

    title = _("in force")
    parameter_name = "active"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("In force")), ("no", _("Over"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        now = timezone.now()
        if self.value() == "yes":
            return queryset.filter(until__gt=now)
        if self.value() == "no":
            return queryset.filter(until__lte=now)
        return queryset


class ChatMuteForm(forms.ModelForm):  # type: ignore[type-arg]
    """A new mute ends in the future (one already over would mute nobody). An existing
    one may be moved to now or before: that ends it early."""

    class Meta:
        model = ChatMute
        fields = ("user", "table", "until", "reason")

    def clean_until(self) -> Any:
        until = self.cleaned_data["until"]
        if self.instance._state.adding and until is not None and until <= timezone.now():
            raise forms.ValidationError(_("A new mute must end in the future."))
        return until


@admin.register(ChatMute)
class ChatMuteAdmin(admin.ModelAdmin):
    """Mutes (issue 50): a user may not chat at one table, or anywhere, until a time.
    Managed here with the model's own permissions; each change is in the admin log with
    its reason. games.play.actions.post_chat enforces them."""

    list_display = ("id", "user", "where", "until", "in_force", "reason", "created_by")
    list_filter = (MuteActiveFilter, "until", "created_at")
    search_fields = ("user__username", "=table__id", "reason")
    list_select_related = ("user", "table__host", "created_by")
    raw_id_fields = ("user", "table")
    fields = ("user", "table", "until", "reason", "created_by", "created_at")
    readonly_fields = ("created_by", "created_at")
    form = ChatMuteForm

    @admin.display(description=_("where"), ordering="table")
    def where(self, obj: ChatMute) -> str:
        return str(obj.table) if obj.table_id else str(_("the whole site"))

    @admin.display(description=_("in force"), boolean=True)
    def in_force(self, obj: ChatMute) -> bool:
        return obj.until > timezone.now()

    def save_model(self, request: HttpRequest, obj: ChatMute, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    # The admin log (the mute's History page) says what was done, until when and why.
    def log_addition(self, request: HttpRequest, obj: Any, message: Any) -> Any:
        return super().log_addition(request, obj, _mute_said("Muted", obj))

    def log_change(self, request: HttpRequest, obj: Any, message: Any) -> Any:
        return super().log_change(request, obj, _mute_said("Changed the mute", obj))


def _mute_said(what: str, mute: ChatMute) -> str:
    """An admin log entry for a mute (in English, as the admin's own entries are kept)."""
    where = f"table #{mute.table_id}" if mute.table_id else "the whole site"
    return f"{what}: {mute.user} at {where} until {mute.until.isoformat()}. Reason: {mute.reason}"
