from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy as _

from games.after.stats import player_stats

from .models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "email", "is_staff", "is_active", "date_joined", "last_login")
    list_filter = ("is_staff", "is_superuser", "is_active", "date_joined")
    search_fields = ("username", "email", "first_name", "last_name")
    ordering = ("-date_joined",)
    # Statistics on the change page only (two queries for one user), never in the list.
    readonly_fields = ("game_statistics",)
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (_("Language"), {"fields": ("language",)}),
        (_("Games"), {"fields": ("game_statistics",)}),
    )

    @admin.display(description=_("statistics (finished games)"))
    def game_statistics(self, obj: User) -> str:
        if obj.pk is None:
            return "—"
        # The profile page's partial; a rendered template is already an escaped SafeString.
        return render_to_string("games/_player_stats.html", {"stats": player_stats(obj)})
