"""Django's makemessages, plus the rules engine's sentences.

games/rules/ is Django-free, so its English sentences (games.rules.wording) are
plain strings that xgettext cannot see. Before extracting, this writes them into
games/rules_messages.py as ``gettext_noop`` calls, which it can.

    python manage.py makemessages -l fr -l en -l de -l es --no-obsolete
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import makemessages

from games import rules_messages


class Command(makemessages.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        rules_messages.write()
        super().handle(*args, **options)
