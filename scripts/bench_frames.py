"""The size of every pushed frame over complete games, per kind of move.

    .venv/bin/python scripts/bench_frames.py [--players 4] [--games 1] [--seed 1]

Plays complete games through games.play.actions (random legal moves, the tests' driver),
with every seat marked as watching, and records each frame the broadcast sends
instead of sending it. Prints, per kind of move, how many frames and their p50,
p95 and max size in bytes. A play is split by what it ends: nothing (inside a
trick), a trick, or a round (the score sheet comes with it). It runs on whatever
database the settings name (SQLite by default), in a fresh test database.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import uuid
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class Recorder:
    """A channel layer that keeps what it is given."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message))


def kind_of(move_kind: str, phase: str) -> str:
    if move_kind != "play":
        return move_kind
    return {"round_done": "play ending a round", "trick_done": "play ending a trick"}.get(
        phase, "play inside a trick"
    )


def play_games(players: int, games: int, seed: int) -> dict[str, list[int]]:
    from games.live import broadcast
    from games.play import actions
    from games.storage import presence
    from games.testing import driver, factories

    sizes: dict[str, list[int]] = {}
    layer = Recorder()
    rng = random.Random(seed)
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        for number in range(games):
            prefix = f"frames{uuid.uuid4().hex[:6]}"
            # Everyone has the table open when the host starts it, as at a live table:
            # the start's frames are what the pages hold when round 1 ends.
            table, users = factories.seated_table(players, prefix=prefix, seed=seed + number)
            for seat_id in table.seats.values_list("pk", flat=True):
                presence.touch(seat_id, f"bench-{seat_id}")
            table = actions.start_game(users[0], table.pk, table.version)
            while (chosen := driver.next_move(table, rng)) is not None:
                layer.sent.clear()
                table = driver.apply_move(table, *chosen)
                kind = kind_of(chosen[1].kind, table.phase)
                for _group, message in layer.sent:
                    if message.get("type") == "table.frame":
                        sizes.setdefault(kind, []).append(len(message["html"].encode()))
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import django
    from django.test.utils import setup_test_environment

    django.setup()
    setup_test_environment()
    from django.db import connection

    old_name = connection.creation.create_test_db(verbosity=0, keepdb=False)
    try:
        sizes = play_games(args.players, args.games, args.seed)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    print(f"{args.games} game(s) of {args.players} players, every seat watching: frame bytes")
    print("| move | frames | p50 | p95 | max |")
    print("|---|---|---|---|---|")
    for kind, values in sizes.items():
        values.sort()
        p50, p95 = values[len(values) // 2], values[min(len(values) - 1, int(len(values) * 0.95))]
        print(f"| {kind} | {len(values)} | {p50:,} | {p95:,} | {values[-1]:,} |")


if __name__ == "__main__":
    main()
