"""Compile the translation catalogues (locale/*/LC_MESSAGES/*.po) with Babel.

    python manage.py compile_catalogues

Django's own compilemessages needs GNU gettext's msgfmt; this needs nothing but
the locked Python packages (config.catalogues). It refuses a catalogue with a
fuzzy or empty entry, or a placeholder that does not match its msgid.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config.catalogues import compile_all


class Command(BaseCommand):
    help = "Compile locale/*/LC_MESSAGES/*.po into .mo files (Babel; no GNU gettext needed)."

    def handle(self, *args: Any, **options: Any) -> None:
        compiled = []
        for locale_dir in settings.LOCALE_PATHS:
            try:
                compiled += compile_all(locale_dir)
            except ValueError as wrong:
                raise CommandError(f"incomplete catalogues:\n{wrong}") from None
        self.stdout.write(f"compiled {len(compiled)} catalogues")
