"""The rules engine's sentences, for the translation catalogues (written, not edited).

games.rules.wording holds every English sentence of the table's explanations as
plain strings (the engine knows nothing of Django). ``write()`` copies them into
games/pages/rules_messages_generated.py as ``gettext_noop`` calls, so that makemessages
extracts them (games/management/commands/makemessages.py calls it);
tests/i18n/test_catalogues.py fails if that file is out of date.
"""

from __future__ import annotations

import json
from pathlib import Path

from games.rules import wording

GENERATED = Path(__file__).with_name("rules_messages_generated.py")

HEADER = '''"""Generated from games.rules.wording by games.pages.rules_messages.write().
Do not edit."""
# ruff: noqa: E501

from django.utils.translation import gettext_noop

# fmt: off
MESSAGES = [
'''


def sentences() -> list[str]:
    """Every translatable string of games.rules.wording, once each, in a stable order."""
    found: list[str] = []
    for table in (
        wording.REASON_TEMPLATES,
        wording.IN_PROGRESS_TEMPLATES,
        wording.NOTE_TEMPLATES,
        wording.LEAD_TEMPLATES,
        wording.UNPLAYABLE_TEMPLATES,
        wording.BONUS_TEMPLATES,
        wording.SUIT_NAMES,
        wording.CARD_NAMES,
    ):
        for text in table.values():
            if text not in found:
                found.append(text)
    return found


def source() -> str:
    lines = [f"    gettext_noop({json.dumps(text, ensure_ascii=False)}),\n" for text in sentences()]
    return HEADER + "".join(lines) + "]\n# fmt: on\n"


def write() -> None:
    GENERATED.write_text(source())
