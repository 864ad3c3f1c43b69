"""Play complete games through the action layer, then audit the rows against the engine.

    python manage.py simulate_tables --tables 10 --players 4 --seed 1

Every move goes through the same functions the views call (games.actions), with
random legal bids, cards and Tigress choices read from the state read model
(games.state.load_state). After each game games.audit re-derives the rows and
checks them against games.rules: the deal, dealer/opener (R3), play order (R5,
R8), each play's legality at the time, each trick's outcome (R6, R7), the scores
(R9) and the running totals (R10). Any inconsistency is a CommandError (non-zero exit).

Output: one JSON line per table. Deterministic given --seed (the table and user
ids depend on the database, nothing else does).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import actions, rules
from games.audit import audit_table
from games.models import Round, RoundScore, Seat, Table, Trick
from games.state import load_state

USERNAME_PREFIX = "sim-bot-"
MAX_STEPS = 5000  # far above the ~700 moves of an 8-player game


class Inconsistency(Exception):
    """The rows of a game disagree with the rules engine."""


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise Inconsistency(message)


def sim_users(count: int) -> list[Any]:
    """The simulation's players (created once, reused by every run)."""
    user_model = get_user_model()
    users = []
    for number in range(1, count + 1):
        user, created = user_model.objects.get_or_create(username=f"{USERNAME_PREFIX}{number}")
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        users.append(user)
    return users


def setup_table(users: list[Any], *, ghost: bool, seed: int) -> Table:
    """Create a table as users[0], fix its shuffle seed, seat the others, start it."""
    table = actions.create_table(users[0], ghost=ghost)
    # The deck seed is random by default; fix it (before anyone joins) so a run is
    # reproducible. This is the only write outside games.actions.
    Table.objects.filter(pk=table.pk).update(seed=seed)
    for user in users[1:]:
        table = actions.join_table(user, table.invite_token)
    return actions.start_game(users[0], table.pk, table.version)


def play_game(table_id: int, rng: random.Random) -> int:
    """Drive a started table to its end with random legal moves; return the number of steps."""
    table = Table.objects.select_related("host").get(pk=table_id)
    host = table.host
    for step in range(MAX_STEPS):
        # Each action returns the table row it saved: current without a re-read.
        if table.status == Table.Status.FINISHED:
            return step
        _check(table.status == Table.Status.PLAYING, f"table is {table.status}")
        phase = table.phase
        if phase == Table.Phase.BIDDING:
            state = load_state(table)
            assert state.round is not None
            version = table.version
            for seat in state.seats:  # R4: every player bids, in seat order here
                if seat.pk not in state.bids:
                    value = rng.randint(0, state.round.cards_dealt)
                    table = actions.place_bid(seat.user, table.pk, version, value)
                    version = table.version
        elif phase == Table.Phase.PLAYING:
            state = load_state(table)
            seat = state.seat_to_play()
            _check(seat is not None, "the ghost's turn was left pending")
            assert seat is not None
            legal = state.legal_cards(seat)
            engine = rules.legal_cards(state.hand_of(seat), state.engine_trick())
            _check(legal == {str(c) for c in engine}, f"state legal cards {legal} != engine")
            _check(bool(legal), f"{seat} has no legal card")
            code = rng.choice(sorted(legal, key=lambda c: rules.card(c).index))
            tigress_as = ""
            if rules.needs_choice(rules.card(code)):
                tigress_as = rng.choice((rules.PIRATE, rules.ESCAPE))
            table = actions.play_card(seat.user, table.pk, table.version, code, tigress_as)
        elif phase == Table.Phase.TRICK_DONE:
            table = actions.next_trick(host, table.pk, table.version)
        elif phase == Table.Phase.ROUND_DONE:
            table = actions.next_round(host, table.pk, table.version)
        else:
            raise Inconsistency(f"unexpected phase {phase!r}")
    raise Inconsistency(f"no end after {MAX_STEPS} actions")


def verify_table(table_id: int) -> dict[str, Any]:
    """Audit a finished game against the engine (games.audit), then report it from its rows."""
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
        "Play N complete games through games.actions with random legal moves, audit every "
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
        users = sim_users(players)
        for number in range(tables):
            table_seed = master.randrange(1 << 62)
            rng = random.Random(master.randrange(1 << 62))
            table_id: int | None = None
            try:
                table = setup_table(users, ghost=not options["no_ghost"], seed=table_seed)
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
