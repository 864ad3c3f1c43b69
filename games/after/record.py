"""The whole game as a JSON record that proves itself, and the check that it does.

`build_record(table)` writes a finished game from its rows; `verify_record(data)`
re-plays a record through games.rules alone (no database): it re-deals every round
from the seed, checks the dealer and opener, every bid, the turn and the legality of
every play, every trick's outcome and every score. `python manage.py verify_game FILE`
runs it. A record that passes is a legal game under these rules whose scores follow
from its moves; it is not signed, so it does not prove on which server it was played.

Format (``format`` "skullking-game-record", ``format_version`` 1), one JSON object:

``format``, ``format_version``
    "skullking-game-record" and 1.
``rules_version``
    The rule set the record was played under: "skullking-classic/1" is RULES.md R1-R10
    as implemented by games.rules (classic scoring, with Kraken and White Whale).
``table``, ``started_at``, ``finished_at``
    The table id on the server and ISO 8601 UTC times: information only, not verified.
``seed``
    The table's seed (an integer). Round n is shuffled with the seed
    ``int.from_bytes(sha256(f"{seed}:{n}".encode()).digest()[:7], "big")`` and dealt by
    ``games.rules.deal`` (R2), so the hands are not in the record: they follow from it.
``ghost``
    true when Graybeard played (R8: option on and exactly 2 players).
``seats``
    ``[{"position": 1, "player": "anne", "computer": null}, ...]`` in seat order.
    Position 1 is the host, who deals round 1 (R3). Everywhere else a player is named
    by their position, and the ghost by the string "ghost". ``computer`` is a computer
    player's level ("easy", "normal", "strong"; issue 48), null for a person.
``rounds``
    The 10 rounds in order, each::

        {"number": 1, "cards": 1, "dealer": 1, "opener": 2,
         "bids": [0, 1, 0],                  # one per seat, in seat order (R4)
         "bids_by": ["person", "computer", "person"],  # who made each bid
         "tricks": [                          # in order, "cards" of them
           {"number": 1, "leader": 2,         # a position or "ghost"
            "plays": [{"seat": 2, "card": "G5", "by": "person"}, ...],
            "winner": 3,                      # a position, "ghost", or null if destroyed
            "destroyed_by": null,             # "kraken", "whale" or null (R7)
            "bonus": 0,                       # the trick's R9 bonus for its winner
            "next_leader": 3}],
         "scores": [{"position": 1, "bid": 0, "won": 0, "base": 10, "bonus": 0,
                     "total": 10, "running_total": 10}, ...]}   # one per seat (R9)

    Plays are in play order (R5, R8) in the notation of R1 ("TIG:pirate", "TIG:escape").
    ``by`` says who made a move: "person", "computer" (a computer player's, or the
    computer's for a person away or out of time) or, for the ghost's plays, "ghost".
    The verification checks the game, whoever made its moves.
``totals``, ``winners``
    The final running totals in seat order and the positions tied for the highest (R10).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games import rules
from games.models import Bid, Play, Round, RoundScore, Seat, Table, Trick
from games.play.actions import round_seed

FORMAT = "skullking-game-record"
FORMAT_VERSION = 1
# Bump when games.rules changes what a game means (a new rule, a new scoring).
RULES_VERSION = "skullking-classic/1"
GHOST_NAME = "ghost"


class RecordError(ValueError):
    """The record is not a consistent game; the message names the first thing that is wrong."""


# ---------------------------------------------------------------------------
# writing a record from the rows
# ---------------------------------------------------------------------------


def build_record(table: Table) -> dict[str, Any]:
    """The record of a finished game, in 6 queries whatever its size."""
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    position = {seat.pk: seat.position for seat in seats}

    def who(seat_id: int | None) -> int | str:
        return GHOST_NAME if seat_id is None else position[seat_id]

    rounds = list(Round.objects.filter(table=table).order_by("number"))
    bids: dict[int, dict[int, Bid]] = {}
    for bid in Bid.objects.filter(round__table=table):
        bids.setdefault(bid.round_id, {})[bid.seat_id] = bid
    plays: dict[int, list[Play]] = {}
    for play in Play.objects.filter(round__table=table).order_by("trick_id", "order"):
        plays.setdefault(play.trick_id, []).append(play)
    tricks: dict[int, list[Trick]] = {}
    for trick in Trick.objects.filter(round__table=table).order_by("round_id", "number"):
        tricks.setdefault(trick.round_id, []).append(trick)
    scores: dict[int, list[RoundScore]] = {}
    for score in RoundScore.objects.filter(round__table=table).order_by("seat__position"):
        scores.setdefault(score.round_id, []).append(score)

    record_rounds = []
    for game_round in rounds:
        record_rounds.append(
            {
                "number": game_round.number,
                "cards": game_round.cards_dealt,
                "dealer": position[game_round.dealer_id],
                "opener": position[game_round.opener_id],
                "bids": [
                    getattr(bids.get(game_round.pk, {}).get(seat.pk), "value", None)
                    for seat in seats
                ],
                "bids_by": [
                    _by(bids.get(game_round.pk, {}).get(seat.pk), seat.pk) for seat in seats
                ],
                "tricks": [
                    {
                        "number": trick.number,
                        "leader": who(trick.leader_id),
                        "plays": [
                            {"seat": who(p.seat_id), "card": p.notation, "by": _by(p, p.seat_id)}
                            for p in plays.get(trick.pk, [])
                        ],
                        "winner": (
                            None
                            if trick.destroyed_by
                            else (GHOST_NAME if trick.won_by_ghost else who(trick.winner_id))
                        ),
                        "destroyed_by": trick.destroyed_by or None,
                        "bonus": trick.bonus,
                        "next_leader": who(trick.next_leader_id),
                    }
                    for trick in tricks.get(game_round.pk, [])
                ],
                "scores": [
                    {
                        "position": position[s.seat_id],
                        "bid": s.bid,
                        "won": s.won,
                        "base": s.base,
                        "bonus": s.bonus,
                        "total": s.total,
                        "running_total": s.running_total,
                    }
                    for s in scores.get(game_round.pk, [])
                ],
            }
        )
    totals = [line["running_total"] for line in record_rounds[-1]["scores"]] if rounds else []
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "rules_version": RULES_VERSION,
        "table": table.pk,
        "started_at": table.started_at.isoformat() if table.started_at else None,
        "finished_at": table.finished_at.isoformat() if table.finished_at else None,
        "seed": table.seed,
        "ghost": table.uses_ghost,
        "seats": [
            # A computer player by its account's name ("computer-2"): the same in every language.
            {"position": s.position, "player": s.user.username, "computer": s.computer or None}
            for s in seats
        ],
        "rounds": record_rounds,
        "totals": totals,
        "winners": [i + 1 for i in rules.winners(dict(enumerate(totals)))],
    }


def _by(move: Bid | Play | None, seat_id: int | None) -> str | None:
    """Who made a move: "person", "computer" or "ghost" (None: no move)."""
    if seat_id is None:
        return GHOST_NAME
    if move is None:
        return None
    return "computer" if move.by_computer else "person"


# ---------------------------------------------------------------------------
# checking a record through the engine
# ---------------------------------------------------------------------------


def _field(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise RecordError(f"{where}: the field {key!r} is missing")
    value = obj[key]
    # JSON true/false are not numbers here, whatever Python thinks.
    if isinstance(value, bool) and kind is not bool:
        raise RecordError(f"{where}: {key!r} must be {_kind_name(kind)}, not {value!r}")
    if not isinstance(value, kind):
        raise RecordError(f"{where}: {key!r} must be {_kind_name(kind)}, not {value!r}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {int: "a whole number", str: "a string", list: "a list", bool: "true or false"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _expect(ok: bool, message: str) -> None:
    if not ok:
        raise RecordError(message)


class _Seats:
    """Positions (1-based, as in the record) <-> engine indexes (0-based; GHOST)."""

    def __init__(self, names: list[str], ghost: bool) -> None:
        self.names = names
        self.ghost = ghost

    def index(self, value: Any, where: str) -> int:
        if value == GHOST_NAME and self.ghost:
            return rules.GHOST
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= len(self.names):
            return value - 1
        raise RecordError(f"{where}: {value!r} is not a seat of this game")

    def label(self, index: int) -> str:
        if index == rules.GHOST:
            return "the ghost"
        return f"seat {index + 1} ({self.names[index]})"

    def ref(self, index: int) -> int | str:
        return GHOST_NAME if index == rules.GHOST else index + 1


def verify_record(data: Any) -> None:
    """Raise RecordError naming the first inconsistency; return None for a valid record."""
    _expect(isinstance(data, dict), "the record must be a JSON object")
    _expect(
        data.get("format") == FORMAT,
        f"this is not a game record (format {data.get('format')!r}, expected {FORMAT!r})",
    )
    version = data.get("format_version")
    _expect(
        version == FORMAT_VERSION,
        f"format_version {version!r} is not supported (this server reads {FORMAT_VERSION})",
    )
    rules_version = data.get("rules_version")
    _expect(
        rules_version == RULES_VERSION,
        f"rules_version {rules_version!r} is not the rules this server checks ({RULES_VERSION})",
    )
    seed = _field(data, "seed", int, "the record")
    ghost = _field(data, "ghost", bool, "the record")
    seat_rows = _field(data, "seats", list, "the record")
    names = []
    for i, row in enumerate(seat_rows):
        where = f"seat {i + 1}"
        _expect(
            _field(row, "position", int, where) == i + 1,
            f"{where}: positions must be 1, 2, 3... in order",
        )
        names.append(_field(row, "player", str, where))
    humans = len(names)
    _expect(
        rules.HUMAN_MIN <= humans <= rules.HUMAN_MAX,
        f"{humans} seats: a game has {rules.HUMAN_MIN} to {rules.HUMAN_MAX} players (R2)",
    )
    _expect(
        not ghost or rules.uses_ghost(True, humans),
        "the ghost plays only with exactly 2 players (R8)",
    )
    seats = _Seats(names, ghost)

    rounds = _field(data, "rounds", list, "the record")
    _expect(
        len(rounds) == rules.ROUNDS,
        f"the record has {len(rounds)} rounds; a finished game has {rules.ROUNDS} (R2)",
    )
    totals = [0] * humans
    for number, game_round in enumerate(rounds, start=1):
        totals = _verify_round(game_round, number, seed, seats, totals)

    stated = _field(data, "totals", list, "the record")
    _expect(stated == totals, f"the final totals are {stated}, the rounds add up to {totals}")
    winners = [i + 1 for i in rules.winners(dict(enumerate(totals)))]
    stated_winners = _field(data, "winners", list, "the record")
    _expect(
        stated_winners == winners,
        f"the winners are seats {stated_winners}, the totals make them seats {winners} (R10)",
    )


def _verify_round(
    game_round: Any, number: int, seed: int, seats: _Seats, totals: list[int]
) -> list[int]:
    where = f"round {number}"
    humans = len(seats.names)
    _expect(_field(game_round, "number", int, where) == number, f"{where}: numbered out of order")
    dealt = rules.cards_per_round(number, humans)
    cards = _field(game_round, "cards", int, where)
    _expect(cards == dealt, f"{where}: {cards} cards dealt, R2 says {dealt}")
    dealer, opener = rules.dealer_and_opener(number, humans)
    for key, expected in (("dealer", dealer), ("opener", opener)):
        stated = seats.index(_field(game_round, key, int, where), f"{where}, {key}")
        _expect(
            stated == expected,
            f"{where}: the {key} is {seats.label(stated)}, R3 says {seats.label(expected)}",
        )

    bids = _field(game_round, "bids", list, where)
    _expect(len(bids) == humans, f"{where}: {len(bids)} bids for {humans} players (R4)")
    for i, bid in enumerate(bids):
        _expect(
            isinstance(bid, int) and not isinstance(bid, bool) and bid in rules.valid_bids(dealt),
            f"{where}: {seats.label(i)} bids {bid!r}, R4 allows 0 to {dealt}",
        )

    deal = rules.deal(round_seed(seed, number), number, humans, seats.ghost)
    hands: dict[int, list[rules.Card]] = {i: list(hand) for i, hand in enumerate(deal.hands)}
    if seats.ghost:
        hands[rules.GHOST] = list(deal.ghost_hand)
    won: Counter[int] = Counter()
    bonus: Counter[int] = Counter()
    tricks = _field(game_round, "tricks", list, where)
    _expect(len(tricks) == dealt, f"{where}: {len(tricks)} tricks, {dealt} cards were dealt")
    leader = opener
    for trick_number, trick in enumerate(tricks, start=1):
        leader, winner, trick_bonus = _verify_trick(
            trick,
            f"{where}, trick {trick_number}",
            trick_number,
            seed,
            seats,
            hands,
            leader,
            opener,
        )
        if winner is not None and winner != rules.GHOST:
            won[winner] += 1
            bonus[winner] += trick_bonus

    scores = _field(game_round, "scores", list, where)
    _expect(len(scores) == humans, f"{where}: {len(scores)} score lines for {humans} players")
    running = []
    for i, line in enumerate(scores):
        line_where = f"{where}, score of {seats.label(i)}"
        _expect(
            _field(line, "position", int, line_where) == i + 1,
            f"{where}: score lines must be in seat order",
        )
        score = rules.score_round(bids[i], won[i], dealt, bonus[i])
        expected = {
            "bid": bids[i],
            "won": won[i],
            "base": score.base,
            "bonus": score.bonus,
            "total": score.total,
            "running_total": totals[i] + score.total,
        }
        for key, value in expected.items():
            stated = _field(line, key, int, line_where)
            _expect(
                stated == value,
                f"{line_where}: {key} is {stated}, the plays and R9 give {value}",
            )
        running.append(expected["running_total"])
    return running


def _verify_trick(
    trick: Any,
    where: str,
    number: int,
    seed: int,
    seats: _Seats,
    hands: dict[int, list[rules.Card]],
    leader: int,
    opener: int,
) -> tuple[int, int | None, int]:
    """Check one trick; return (next leader, winner or None, bonus)."""
    _expect(_field(trick, "number", int, where) == number, f"{where}: numbered out of order")
    stated_leader = seats.index(trick.get("leader"), f"{where}, leader")
    _expect(
        stated_leader == leader,
        f"{where}: led by {seats.label(stated_leader)}, but {seats.label(leader)} leads (R6, R7)",
    )
    order = rules.play_order(leader, len(seats.names), seats.ghost, opener)
    plays = _field(trick, "plays", list, where)
    _expect(len(plays) == len(order), f"{where}: {len(plays)} plays, {len(order)} players play")
    engine_trick: list[rules.Play] = []
    for position, play in enumerate(plays):
        play_where = f"{where}, play {position + 1}"
        who = seats.index(play.get("seat") if isinstance(play, dict) else None, play_where)
        _expect(
            who == order[position],
            f"{play_where}: {seats.label(who)} plays out of turn; it is"
            f" {seats.label(order[position])}'s turn (R5, R8)",
        )
        notation = _field(play, "card", str, play_where)
        try:
            parsed = rules.parse_play(notation)
        except ValueError:
            raise RecordError(f"{play_where}: {notation!r} is not a card (R1)") from None
        hand = hands[who]
        _expect(
            parsed.card in hand,
            f"{play_where}: {seats.label(who)} plays {notation}, which is not in their hand as"
            f" dealt from seed {seed} (R2): the seed or a play was changed",
        )
        if who == rules.GHOST:
            _expect(
                parsed == rules.ghost_play(hand),
                f"{play_where}: the ghost plays {notation}, not the top card of its pile (R8)",
            )
        else:
            _expect(
                parsed.card in rules.legal_cards(hand, engine_trick),
                f"{play_where}: {seats.label(who)} may not play {notation} here: they must"
                " follow the suit led (R5)",
            )
        hand.remove(parsed.card)
        engine_trick.append(parsed)

    result = rules.resolve_trick(engine_trick)
    winner = None if result.winner is None else order[result.winner]
    next_leader = order[result.next_leader]
    claims = {
        "winner": (seats.ref(winner) if winner is not None else None, "R6, R7"),
        "destroyed_by": (result.destroyed_by, "R7"),
        "bonus": (result.bonus, "R9"),
        "next_leader": (seats.ref(next_leader), "R6, R7"),
    }
    for key, (value, rule) in claims.items():
        _expect(key in trick, f"{where}: the field {key!r} is missing")
        stated = trick[key]
        _expect(
            stated == value and isinstance(stated, bool) == isinstance(value, bool),
            f"{where}: {key} is {stated!r}, the plays and {rule} give {value!r}",
        )
    return next_leader, winner, result.bonus
