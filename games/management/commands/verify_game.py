"""Re-check an exported game record through the rules engine.

    python manage.py verify_game game-17.json

The record (format: games.after.record) is re-played from its seed: the deal of every
round, dealer and opener (R3), bids (R4), turn and legality of every play (R5, R8),
every trick's outcome (R6, R7), every score and running total (R9) and the winners
(R10). Exit code 0 and one line "OK ..." for a consistent record; otherwise a
CommandError (exit code 1) naming the first thing that is wrong.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.after.record import RecordError, verify_record


class Command(BaseCommand):
    help = "Re-check a game record (JSON, as exported from a finished table) through the engine."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the JSON game record ('-' reads standard input)")

    def handle(self, *args: Any, **options: Any) -> None:
        name: str = options["file"]
        try:
            text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read {name}: {error}") from error
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CommandError(f"{name} is not JSON: {error}") from error
        try:
            verify_record(data)
        except RecordError as error:
            raise CommandError(f"{name} is NOT a consistent game: {error}") from error
        players = ", ".join(seat["player"] for seat in data["seats"])
        winners = ", ".join(data["seats"][p - 1]["player"] for p in data["winners"])
        self.stdout.write(
            f"OK: {name} is a consistent game of {len(data['seats'])} players ({players});"
            f" totals {data['totals']}; won by {winners}."
        )
