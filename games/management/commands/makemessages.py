"""Django's makemessages, plus the rules engine's and the table regions' sentences.

games/rules/ is Django-free, so its English sentences (games.rules.wording) are
plain strings that xgettext cannot see; the table's regions are Jinja2 templates
(templates/games/regions/), which makemessages cannot read. Before extracting,
this writes both into Python files of ``gettext_noop`` calls
(games/pages/rules_messages_generated.py, games/pages/regions_messages_generated.py), which
it can.

    python manage.py makemessages -l fr -l en -l de -l es --no-obsolete
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import makemessages

from games.pages import regions_messages, rules_messages


class Command(makemessages.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        rules_messages.write()
        regions_messages.write()
        super().handle(*args, **options)
