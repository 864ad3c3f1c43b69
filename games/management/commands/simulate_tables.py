"""Play complete games through the action layer, then audit the rows against the engine.

    python manage.py simulate_tables --tables 10 --players 4 --seed 1

Every move goes through the same functions the views call (games.actions), with
random legal bids, cards and Tigress choices read from the state read model
(games.state.load_state). After each game the rows are re-derived and checked
against games.rules: the deal, dealer/opener (R3), play order (R5, R8), each
play's legality at the time, each trick's outcome (R6, R7), the scores (R9) and
the running totals (R10). Any inconsistency is a CommandError (non-zero exit).

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
from games.models import Bid, HandCard, Play, Round, RoundScore, Seat, Table, Trick
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


def _group(rows: list[Any], key: str) -> dict[Any, list[Any]]:
    grouped: dict[Any, list[Any]] = defaultdict(list)
    for row in rows:
        grouped[getattr(row, key)].append(row)
    return grouped


def verify_table(table_id: int) -> dict[str, Any]:
    """Re-derive a finished game from its rows, check it against the engine, return its report."""
    table = Table.objects.get(pk=table_id)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    humans = len(seats)
    _check(table.status == Table.Status.FINISHED, f"status {table.status}, not finished (R10)")
    _check(table.finished_at is not None, "finished_at not set")
    _check(table.round_number == rules.ROUNDS, f"ended in round {table.round_number}")
    _check(
        [s.position for s in seats] == list(range(1, humans + 1)), "seat positions not contiguous"
    )
    _check(rules.HUMAN_MIN <= humans <= rules.HUMAN_MAX, f"{humans} players")
    ghost = table.uses_ghost
    _check(ghost == (table.ghost and humans == 2), "R8 ghost used iff 2 players and option on")
    pk_of = [s.pk for s in seats]
    index_of = {s.pk: s.position - 1 for s in seats}

    def seat_pk(index: int) -> int | None:
        return None if index == rules.GHOST else pk_of[index]

    def engine_index(seat_id: int | None) -> int:
        return rules.GHOST if seat_id is None else index_of[seat_id]

    rounds = list(Round.objects.filter(table=table).order_by("number"))
    _check([r.number for r in rounds] == list(range(1, rules.ROUNDS + 1)), "rounds 1..10")
    hand_cards = _group(
        list(HandCard.objects.filter(round__table=table).order_by("deal_order")), "round_id"
    )
    bids = _group(list(Bid.objects.filter(round__table=table)), "round_id")
    tricks = _group(list(Trick.objects.filter(round__table=table).order_by("number")), "round_id")
    plays = _group(list(Play.objects.filter(round__table=table).order_by("order")), "trick_id")
    scores = _group(list(RoundScore.objects.filter(round__table=table)), "round_id")

    running = [0] * humans
    report_rounds = []
    for game_round in rounds:
        number = game_round.number
        where = f"round {number}"
        n = rules.cards_per_round(number, humans)
        _check(game_round.cards_dealt == n, f"{where}: {game_round.cards_dealt} cards dealt (R2)")
        dealer, opener = rules.dealer_and_opener(number, humans)
        _check(game_round.dealer_id == pk_of[dealer], f"{where}: dealer (R3)")
        _check(game_round.opener_id == pk_of[opener], f"{where}: opener (R3)")

        # The deal: the rows are exactly what the round's seed deals (R2, R8).
        dealt = rules.deal(game_round.seed, number, humans, ghost)
        held: dict[int | None, list[rules.Card]] = defaultdict(list)
        for row in hand_cards[game_round.pk]:
            _check(row.played, f"{where}: {row.card} was never played")
            held[row.seat_id].append(rules.card(row.card))
        for index, hand in enumerate(dealt.hands):
            _check(held.get(pk_of[index], []) == list(hand), f"{where}: seat {index + 1} hand")
        _check(held.get(None, []) == list(dealt.ghost_hand), f"{where}: ghost hand (R8)")
        _check(set(held) <= {*pk_of, None}, f"{where}: cards dealt to a stranger")

        round_bids = {b.seat_id: b.value for b in bids[game_round.pk]}
        _check(set(round_bids) == set(pk_of), f"{where}: one bid per player, none for the ghost")
        for value in round_bids.values():
            _check(value in rules.valid_bids(n), f"{where}: bid {value} (R4)")

        round_tricks = tricks[game_round.pk]
        _check([t.number for t in round_tricks] == list(range(1, n + 1)), f"{where}: trick numbers")
        remaining = {key: list(cards) for key, cards in held.items()}
        won = [0] * humans
        bonus = [0] * humans
        ghost_won = destroyed = 0
        played_count = 0
        leader: int | None = pk_of[opener]
        for trick in round_tricks:
            at = f"{where}, trick {trick.number}"
            _check(trick.complete, f"{at}: not complete")
            _check(trick.leader_id == leader, f"{at}: wrong leader (R3, R6, R7)")
            order = rules.play_order(engine_index(trick.leader_id), humans, ghost, opener)
            trick_plays = plays[trick.pk]
            played_count += len(trick_plays)
            _check([p.order for p in trick_plays] == list(range(len(order))), f"{at}: play orders")
            _check(
                tuple(engine_index(p.seat_id) for p in trick_plays) == order,
                f"{at}: order of play (R5, R8)",
            )
            so_far: list[rules.Play] = []
            for row in trick_plays:
                try:
                    play = rules.parse_play(row.notation)
                except ValueError:
                    raise Inconsistency(f"{at}: bad play {row.notation!r}") from None
                _check(row.round_id == game_round.pk, f"{at}: play in the wrong round")
                hand = remaining.get(row.seat_id, [])
                _check(play.card in hand, f"{at}: {play} not in the player's hand")
                if row.seat_id is None:
                    _check(play == rules.ghost_play(hand), f"{at}: ghost played {play} (R8)")
                else:
                    legal = rules.legal_cards(hand, so_far)
                    _check(play.card in legal, f"{at}: {play} was illegal on {so_far} (R5)")
                hand.remove(play.card)
                so_far.append(play)
            result = rules.resolve_trick(so_far)
            _check(trick.destroyed_by == (result.destroyed_by or ""), f"{at}: destroyed (R7)")
            _check(trick.bonus == result.bonus, f"{at}: bonus {trick.bonus} != {result.bonus}")
            if result.winner is None:
                _check(trick.winner_id is None and not trick.won_by_ghost, f"{at}: winner")
                destroyed += 1
            else:
                who = order[result.winner]
                _check(trick.winner_id == seat_pk(who), f"{at}: winner (R6, R7)")
                _check(trick.won_by_ghost == (who == rules.GHOST), f"{at}: won_by_ghost")
                if who == rules.GHOST:
                    ghost_won += 1
                else:
                    won[who] += 1
                    bonus[who] += result.bonus
            next_leader = seat_pk(order[result.next_leader])
            _check(trick.next_leader_id == next_leader, f"{at}: next leader (R6, R7)")
            leader = next_leader
        _check(all(not cards for cards in remaining.values()), f"{where}: unplayed cards")
        _check(played_count == n * (humans + ghost), f"{where}: {played_count} plays")
        _check(sum(won) + ghost_won + destroyed == n, f"{where}: won + destroyed != dealt")

        round_scores = {s.seat_id: s for s in scores[game_round.pk]}
        _check(set(round_scores) == set(pk_of), f"{where}: one score per player")
        line: dict[str, Any] = {
            "round": number,
            "cards": n,
            "dealer": seats[dealer].user.username,
            "opener": seats[opener].user.username,
            "bids": [],
            "won": won,
            "ghost_won": ghost_won,
            "destroyed": destroyed,
            "base": [],
            "bonus": [],
            "total": [],
            "running": [],
        }
        for index, pk in enumerate(pk_of):
            row = round_scores[pk]
            expected = rules.score_round(round_bids[pk], won[index], n, bonus[index])
            _check(row.bid == round_bids[pk], f"{where}: recorded bid of seat {index + 1}")
            _check(row.won == won[index], f"{where}: recorded tricks of seat {index + 1}")
            _check(
                (row.base, row.bonus, row.total) == (expected.base, expected.bonus, expected.total),
                f"{where}: score of seat {index + 1} {row.base}/{row.bonus}/{row.total} (R9)",
            )
            running[index] += expected.total
            _check(row.running_total == running[index], f"{where}: running total (R10)")
            line["bids"].append(round_bids[pk])
            line["base"].append(expected.base)
            line["bonus"].append(expected.bonus)
            line["total"].append(expected.total)
            line["running"].append(running[index])
        report_rounds.append(line)

    all_scores = [s for rows in scores.values() for s in rows]
    for index, pk in enumerate(pk_of):
        mine = sum(s.total for s in all_scores if s.seat_id == pk)
        _check(mine == running[index], f"seat {index + 1}: totals != sum of round totals")
    names = [s.user.username for s in seats]
    best = rules.winners(dict(enumerate(running)))
    return {
        "table": table.pk,
        "seed": table.seed,
        "players": names,
        "ghost": ghost,
        "rounds": report_rounds,
        "totals": running,
        "winners": [names[i] for i in best],
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
