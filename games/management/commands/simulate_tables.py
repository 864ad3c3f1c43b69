"""Play complete games through the action layer, then audit the rows against the engine.

    python manage.py simulate_tables --tables 10 --players 4 --seed 1

Every move goes through the same functions the views call (games.play.actions), with
random legal bids, cards and Tigress choices read from the state read model
(games.play.state.load_state) by the test suite's own driver (games.testing.driver), on
tables and users made by its factories (games.testing.factories). After each game
games.after.audit re-derives the rows and checks them against games.rules: the deal,
dealer/opener (R3), play order (R5, R8), each play's legality at the time, each
trick's outcome (R6, R7), the scores (R9) and the running totals (R10). Any
inconsistency is a CommandError (non-zero exit).

Output: one JSON line per table. Deterministic given --seed (the table and user
ids depend on the database, nothing else does).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import rules
from games.after.audit import audit_table
from games.models import Round, RoundScore, Seat, Table, Trick
from games.play import actions
from games.play.state import GameState
from games.testing import driver
from games.testing.factories import make_users, started_table

USERNAME_PREFIX = "sim-bot-"


class Inconsistency(Exception):
    """The rows of a game disagree with the rules engine."""


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise Inconsistency(message)


def play_game(table_id: int, rng: random.Random) -> int:
    """Drive a started table to its end with random legal moves; return the number of moves.

    The moves are games.testing.driver's (the tests' own); before each card, the read
    model's legal cards are checked against the engine's.
    """
    moves = 0

    def count(_table: Table) -> None:
        nonlocal moves
        moves += 1

    try:
        table = driver.play_until(table_id, rng, after=count, check=_check_legal_cards)
    except driver.DriverError as error:  # a pending ghost, no end after MAX_MOVES
        raise Inconsistency(str(error)) from error
    _check(table.status == Table.Status.FINISHED, f"table is {table.status}")
    return moves


def _check_legal_cards(state: GameState) -> None:
    if state.table.phase != Table.Phase.PLAYING:
        return
    seat = state.seat_to_play()
    _check(seat is not None, "the ghost's turn was left pending")
    assert seat is not None
    legal = state.legal_cards(seat)
    engine = rules.legal_cards(state.hand_of(seat), state.engine_trick())
    _check(legal == {str(c) for c in engine}, f"state legal cards {legal} != engine")
    _check(bool(legal), f"{seat} has no legal card")


def verify_table(table_id: int) -> dict[str, Any]:
    """Audit a finished game against the engine (games.after.audit), then report it from
    its rows."""
    table = Table.objects.get(pk=table_id)
    problems = audit_table(table)
    if problems:
        raise Inconsistency("; ".join(problems))
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    _check(table.status == Table.Status.FINISHED, f"status {table.status}, not finished (R10)")
    _check(table.finished_at is not None, "finished_at not set")
    rounds = list(Round.objects.filter(table=table).select_related("dealer__user", "opener__user"))
    _check([r.number for r in rounds] == list(range(1, rules.ROUNDS + 1)), "rounds 1..10")
    scores: dict[int, dict[int, RoundScore]] = defaultdict(dict)
    for score in RoundScore.objects.filter(round__table=table):
        scores[score.round_id][score.seat_id] = score
    outcomes: dict[int, list[Trick]] = defaultdict(list)
    for trick in Trick.objects.filter(round__table=table):
        outcomes[trick.round_id].append(trick)

    report_rounds = []
    for game_round in rounds:
        rows = [scores[game_round.pk].get(seat.pk) for seat in seats]
        _check(all(rows), f"round {game_round.number}: one score per player")
        tricks = outcomes[game_round.pk]
        report_rounds.append(
            {
                "round": game_round.number,
                "cards": game_round.cards_dealt,
                "dealer": game_round.dealer.user.username,
                "opener": game_round.opener.user.username,
                "bids": [row.bid for row in rows if row],
                "won": [row.won for row in rows if row],
                "ghost_won": sum(t.won_by_ghost for t in tricks),
                "destroyed": sum(bool(t.destroyed_by) for t in tricks),
                "base": [row.base for row in rows if row],
                "bonus": [row.bonus for row in rows if row],
                "total": [row.total for row in rows if row],
                "running": [row.running_total for row in rows if row],
            }
        )
    totals = report_rounds[-1]["running"]
    for index, total in enumerate(totals):
        summed = sum(line["total"][index] for line in report_rounds)
        _check(summed == total, f"seat {index + 1}: totals != sum of round totals")
    names = [s.user.username for s in seats]
    return {
        "table": table.pk,
        "seed": table.seed,
        "players": names,
        "ghost": table.uses_ghost,
        "rounds": report_rounds,
        "totals": totals,
        "winners": [names[i] for i in rules.winners(dict(enumerate(totals)))],
    }


class Command(BaseCommand):
    help = (
        "Play N complete games through games.play.actions with random legal moves, audit every "
        "table against the rules engine and print one JSON line per table."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tables", type=int, default=1, help="number of tables (games)")
        parser.add_argument("--players", type=int, default=4, help="players per table (2-8)")
        parser.add_argument(
            "--no-ghost",
            action="store_true",
            help="switch the ghost Graybeard off (it only plays with 2 players)",
        )
        parser.add_argument("--seed", type=int, default=None, help="seed (default: random)")

    def handle(self, *args: Any, **options: Any) -> None:
        tables: int = options["tables"]
        players: int = options["players"]
        if tables < 1:
            raise CommandError("--tables must be at least 1")
        if not rules.HUMAN_MIN <= players <= rules.HUMAN_MAX:
            raise CommandError(f"--players must be {rules.HUMAN_MIN} to {rules.HUMAN_MAX}")
        seed = options["seed"]
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 62)
        master = random.Random(seed)
        # The simulation's players are made once and reused by every run.
        users = make_users(players, USERNAME_PREFIX, reuse=True)
        for number in range(tables):
            table_seed = master.randrange(1 << 62)
            rng = random.Random(master.randrange(1 << 62))
            table_id: int | None = None
            try:
                table, _ = started_table(users, ghost=not options["no_ghost"], seed=table_seed)
                table_id = table.pk
                play_game(table.pk, rng)
                report = verify_table(table.pk)
            except actions.ActionError as error:
                raise CommandError(
                    f"table {number + 1} (#{table_id}): action refused ({error.status}): "
                    f"{error.message}"
                ) from error
            except Inconsistency as error:
                raise CommandError(f"table {number + 1} (#{table_id}): {error}") from error
            self.stdout.write(json.dumps({"index": number, **report}, separators=(",", ":")))
