from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games.after.stats import player_stats

from . import suspensions
from .forms import AdminLoginForm
from .models import Suspension, User

# The admin's own log-in refuses a suspended account too (issue 50).
admin.site.login_form = AdminLoginForm


def _status(suspension: Suspension | None) -> str:
    """A suspension in force said in a few words: "until <date>" or "until lifted"."""
    if suspension is None or not suspension.in_force():
        return ""
    if suspension.ends_at is None:
        return gettext("until lifted")
    return gettext("until %(date)s") % {"date": suspensions.when(suspension.ends_at)}


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = (
        "username",
        "email",
        "is_staff",
        "is_active",
        "suspended",
        "date_joined",
        "last_login",
    )
    list_filter = ("is_staff", "is_superuser", "is_active", "date_joined")
    # The suspension column reads the suspension with the user: one query for the page.
    list_select_related = ("active_suspension",)
    search_fields = ("username", "email", "first_name", "last_name")
    ordering = ("-date_joined",)
    # Statistics on the change page only (two queries for one user), never in the list.
    readonly_fields = ("game_statistics", "suspension_status")
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (_("Language"), {"fields": ("language",)}),
        (_("Suspension"), {"fields": ("suspension_status",)}),
        (_("Games"), {"fields": ("game_statistics",)}),
    )

    @admin.display(description=_("suspended"))
    def suspended(self, obj: User) -> str:
        return _status(obj.active_suspension) or "—"

    @admin.display(description=_("suspension"))
    def suspension_status(self, obj: User) -> str:
        if obj.pk is None:
            return "—"
        current = suspensions.in_force_for(obj.pk)
        if current is not None:
            return format_html(
                '{} — {} <a href="{}">{}</a>',
                _status(current),
                current.reason,
                reverse("admin:accounts_suspension_change", args=[current.pk]),
                gettext("See or lift it"),
            )
        return format_html(
            '{} <a href="{}?user={}">{}</a>',
            gettext("Not suspended."),
            reverse("admin:accounts_suspension_add"),
            obj.pk,
            gettext("Suspend this user"),
        )

    @admin.display(description=_("statistics (finished games)"))
    def game_statistics(self, obj: User) -> str:
        if obj.pk is None:
            return "—"
        # The profile page's partial; a rendered template is already an escaped SafeString.
        return render_to_string("games/_player_stats.html", {"stats": player_stats(obj)})


class SuspensionForm(forms.ModelForm):
    """A new suspension: who, why, until when. Staff are checked against the user."""

    request: HttpRequest

    class Meta:
        model = Suspension
        fields = ("user", "reason", "ends_at")

    def clean_user(self) -> User:
        user: User = self.cleaned_data["user"]
        if user.pk == self.request.user.pk:
            raise forms.ValidationError(_("You cannot suspend yourself."), code="self")
        if user.is_superuser and not self.request.user.is_superuser:
            raise forms.ValidationError(
                _("Only a superuser may suspend a superuser."), code="superuser"
            )
        return user

    def clean_ends_at(self) -> Any:
        ends_at = self.cleaned_data.get("ends_at")
        if ends_at is not None and ends_at <= timezone.now():
            raise forms.ValidationError(_("The end must be in the future."), code="past")
        return ends_at


def _log_on_user(request: HttpRequest, user_id: int, message: str) -> None:
    """The action on the user's own history page in the admin."""
    LogEntry.objects.log_actions(
        user_id=request.user.pk,
        queryset=User.objects.filter(pk=user_id),
        action_flag=CHANGE,
        change_message=message,
    )


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    """Suspend (the add permission), lift (the change permission), see (view).

    A suspension is never edited nor deleted: it is lifted, and the record stays."""

    form = SuspensionForm
    list_display = (
        "user",
        "short_reason",
        "starts_at",
        "until",
        "state",
        "created_by",
        "lifted_at",
        "lifted_by",
    )
    list_select_related = ("user", "created_by", "lifted_by")
    list_filter = ("lifted_at", "starts_at")
    search_fields = ("user__username", "reason")
    raw_id_fields = ("user",)
    date_hierarchy = "starts_at"

    def get_fields(self, request: HttpRequest, obj: Suspension | None = None) -> Any:
        if obj is None:
            return ("user", "reason", "ends_at")
        return (
            "user",
            "reason",
            "starts_at",
            "ends_at",
            "created_by",
            "lifted_at",
            "lifted_by",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Suspension | None = None) -> Any:
        if obj is None:
            return ()
        return self.get_fields(request, obj)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any):  # type: ignore[no-untyped-def]
        form = super().get_form(request, obj, change=change, **kwargs)
        form.request = request  # type: ignore[attr-defined]
        return form

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("reason"))
    def short_reason(self, obj: Suspension) -> str:
        return obj.reason if len(obj.reason) <= 80 else obj.reason[:79] + "…"

    @admin.display(description=_("ends at"), ordering="ends_at")
    def until(self, obj: Suspension) -> str:
        if obj.ends_at is None:
            return gettext("until lifted")
        return suspensions.when(obj.ends_at)

    @admin.display(description=_("state"))
    def state(self, obj: Suspension) -> str:
        if obj.lifted_at is not None:
            return gettext("lifted")
        if obj.in_force():
            return gettext("in force")
        return gettext("ended")

    def save_model(self, request: HttpRequest, obj: Suspension, form: Any, change: bool) -> None:
        if change:
            return  # nothing of a suspension is changed but by lifting it
        obj.created_by = request.user  # type: ignore[assignment]
        obj.save()
        suspensions.record(obj)

    def log_addition(self, request: HttpRequest, obj: Suspension, message: Any) -> Any:
        entry = super().log_addition(request, obj, message)
        if obj.ends_at is None:
            said = gettext("Suspended until lifted. Reason: %(reason)s") % {"reason": obj.reason}
        else:
            said = gettext("Suspended until %(date)s. Reason: %(reason)s") % {
                "date": suspensions.when(obj.ends_at),
                "reason": obj.reason,
            }
        _log_on_user(request, obj.user_id, said)
        return entry

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        # Nothing to save: a suspension is only lifted, with its own button.
        context.update(show_save=False, show_save_and_continue=False)
        context["show_save_and_add_another"] = False
        if request.method == "POST":
            raise PermissionDenied  # no field of a suspension is changed by a form
        obj = self.get_object(request, unquote(object_id))
        context["can_lift"] = bool(
            obj is not None and obj.lifted_at is None and self.has_change_permission(request, obj)
        )
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list[URLPattern]:
        lift = path(
            "<path:object_id>/lift/",
            self.admin_site.admin_view(require_POST(self.lift_view)),
            name="accounts_suspension_lift",
        )
        return [lift, *super().get_urls()]

    def lift_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The suspension page's "Lift this suspension now" button."""
        suspension = self.get_object(request, unquote(object_id))
        if suspension is None:
            raise Http404(gettext("There is no such suspension."))
        if not self.has_change_permission(request, suspension):
            raise PermissionDenied
        if not suspensions.lift(suspension, request.user):
            return TemplateResponse(
                request,
                "admin/accounts/suspension/refused.html",
                {
                    **self.admin_site.each_context(request),
                    "opts": self.opts,
                    "original": suspension,
                    "title": gettext("This suspension was lifted already."),
                },
                status=409,
            )
        said = gettext("Suspension lifted. Its reason was: %(reason)s") % {
            "reason": suspension.reason
        }
        self.log_change(request, suspension, said)
        _log_on_user(request, suspension.user_id, said)
        self.message_user(request, said, messages.SUCCESS)
        return HttpResponseRedirect(
            reverse("admin:accounts_suspension_change", args=[suspension.pk])
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Suspension]:
        return super().get_queryset(request).select_related("user", "created_by", "lifted_by")
