"""The score sheet, live: a save tells the sheet's group, each socket sends its page a snapshot.

The table renders a move's frames where the move is made, per seat, because its
pages differ per seat and a move comes every second or two. A sheet's pages differ
only by language and by whether the viewer may edit, and a save comes a few times
a round: so a save sends one small message ("sheet.changed" with the new version)
on the sheet's group through the table's own channel layer helper
(games.live.broadcast.send), once its transaction commits, and every socket answers
with a full snapshot rendered for its own user and language. Every frame is then
whole: a lost message is healed by the next one, and every (re)connect starts with
a snapshot too.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation

from games.live import broadcast

from .models import Sheet


def sheet_group(sheet_id: int) -> str:
    return f"sheet-{sheet_id}"


def sheet_changed_on_commit(sheet: Sheet) -> None:
    group, version = sheet_group(sheet.pk), sheet.version
    transaction.on_commit(
        lambda: broadcast.send([(group, {"type": "sheet.changed", "version": version})]),
        robust=True,
    )


def render_frame(sheet: Sheet, user: Any, language: str, **extra: Any) -> str:
    """The sheet's live regions for ``user``, each swapped out of band (a frame)."""
    from .presenter import sheet_context  # the presenter renders forms: imported late

    with translation.override(language):
        context = sheet_context(sheet, user, **extra)
        context["oob"] = True
        return render_to_string("sheets/_frame.html", context)
