"""``{% sheets_lobby user %}``: the lobby's score sheet panel (a link to a new sheet,
the user's sheets still being played), without touching the lobby's own context."""

from __future__ import annotations

from typing import Any

from django import template
from django.db.models import Q

from ..models import Sheet

register = template.Library()
SHOWN = 10


@register.inclusion_tag("sheets/_lobby.html")
def sheets_lobby(user: Any) -> dict[str, Any]:
    sheets = (
        Sheet.objects.filter(Q(created_by=user) | Q(players__user=user))
        .filter(status=Sheet.Status.PLAYING)
        .distinct()
        .order_by("-updated_at")[:SHOWN]
    )
    return {"sheets": list(sheets)}
