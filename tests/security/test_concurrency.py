"""Many tables, many threads, every move sent 2-3 times at once: each game stays consistent.

Six tables (2 players with the ghost, 2 without, 3, 4, 5 and 8 players) are
played at the same time, one driver thread per table. Every move goes through
the real views (a logged-in Django client per player and per thread) and is
posted by three threads at once with the same version; the bids of a round are
all posted at once by every player, twice each. Afterwards, for every table:
audit_table() finds nothing, each card was played once, each seat bid once per
round, and exactly one copy of every duplicated move was accepted (for bids:
one per player, since bids are simultaneous and do not make each other stale).

PostgreSQL only: SQLite serialises writers, so it cannot show a lost race.
"""

from __future__ import annotations

import os
import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from games import rules
from games.after.audit import audit_table
from games.models import Bid, Play, Round, RoundScore, Seat, Table, Trick
from games.play import actions
from games.play.state import load_state

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith(("postgres", "pgsql")),
        reason="needs PostgreSQL (DATABASE_URL=postgres://...): SQLite serialises all writers",
    ),
]

User = get_user_model()
COPIES = 3  # each move is posted this many times at once
ROUNDS = 4  # rounds played per table (the 8-player one too): keeps the file well under 90 s
TABLES = [(2, True), (2, False), (3, False), (4, False), (5, False), (8, False)]
# The quick run races complete games at the edges at once; CI's thorough pass all six.
QUICK_TABLES = [(2, True), (3, False), (8, False)]


def _client(user: Any) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _in_thread(func: Any, *args: Any) -> Any:
    try:
        return func(*args)
    finally:
        connection.close()


def _post_at_once(pool: ThreadPoolExecutor, posts: list[tuple[Client, str, dict]]) -> list[int]:
    barrier = threading.Barrier(len(posts))

    def send(client: Client, url: str, form: dict) -> int:
        def go() -> int:
            barrier.wait(timeout=30)
            return client.post(url, form).status_code

        return _in_thread(go)

    futures = [pool.submit(send, *post) for post in posts]
    return [f.result(timeout=120) for f in futures]


def drive(table_id: int, rng_seed: int, pool: ThreadPoolExecutor) -> dict[str, Any]:
    """Play ROUNDS rounds of one table; return the counts of answers per kind of move."""
    rng = random.Random(rng_seed)
    table = Table.objects.get(pk=table_id)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    # COPIES logged-in clients per player: every copy of a move comes from its own thread.
    clients = {seat.pk: [_client(seat.user) for _ in range(COPIES)] for seat in seats}
    host_seat = seats[0].pk
    answers: Counter[tuple[str, int]] = Counter()
    accepted_moves = 0
    for _ in range(5000):
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.PLAYING or (
            table.round_number == ROUNDS and table.phase == Table.Phase.ROUND_DONE
        ):
            break
        state = load_state(table)
        form: dict[str, str] = {"version": str(table.version)}
        if table.phase == Table.Phase.BIDDING:
            # Every player bids at once, each twice (two tabs), all with the same version.
            # Bids are simultaneous (R4): each player's first copy wins, the second is a
            # 409 ("a bid is final"), and another player's bid never makes a bid stale.
            url = reverse("place_bid", args=[table_id])
            posts = []
            for seat in state.seats:
                if seat.pk in state.bids:
                    continue
                value = str(rng.randint(0, state.round.cards_dealt))
                posts += [(c, url, {**form, "value": value}) for c in clients[seat.pk][:2]]
            codes = _post_at_once(pool, posts)
            per_seat = [codes[i : i + 2] for i in range(0, len(codes), 2)]
            assert all(pair.count(303) == 1 for pair in per_seat), f"{table_id} bids: {codes}"
            kind, accepted = "bid", len(per_seat)
        else:
            if table.phase == Table.Phase.PLAYING:
                seat = state.seat_to_play()
                code = rng.choice(sorted(state.legal_cards(seat)))
                form["card"] = code
                if rules.needs_choice(rules.card(code)):
                    form["tigress_as"] = rng.choice((rules.PIRATE, rules.ESCAPE))
                actor, url, kind = seat.pk, reverse("play_card", args=[table_id]), "play"
            elif table.phase == Table.Phase.TRICK_DONE:
                actor, url, kind = host_seat, reverse("next_trick", args=[table_id]), "next"
            else:
                actor, url, kind = host_seat, reverse("next_round", args=[table_id]), "next"
            codes = _post_at_once(pool, [(c, url, form) for c in clients[actor]])
            assert codes.count(303) == 1, f"table {table_id} {kind}: {codes}"
            accepted = 1
        for code in codes:
            answers[(kind, code)] += 1
        assert all(code in (303, 409) for code in codes), codes
        accepted_moves += accepted
        table.refresh_from_db()
        assert table.version == int(form["version"]) + accepted
    return {"answers": answers, "moves": accepted_moves}


def _setup_tables(spec: list[tuple[int, bool]] = TABLES) -> list[int]:
    ids = []
    for number, (humans, ghost) in enumerate(spec):
        users = []
        for index in range(humans):
            user = User(username=f"t{number}p{index}")
            user.set_unusable_password()
            user.save()
            users.append(user)
        table = actions.create_table(users[0], ghost=ghost)
        for user in users[1:]:
            actions.join_table(user, table.invite_token)
        table = Table.objects.get(pk=table.pk)
        actions.start_game(users[0], table.pk, table.version)
        ids.append(table.pk)
    return ids


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param(QUICK_TABLES, id="2-ghost-3-8"),
        pytest.param(TABLES, id="2-ghost-2-3-4-5-8", marks=pytest.mark.thorough),
    ],
)
def test_duplicate_moves_on_many_tables_at_once(spec: list[tuple[int, bool]]) -> None:
    table_ids = _setup_tables(spec)
    # Each driver needs up to 2 x 8 threads for a bidding storm.
    with (
        ThreadPoolExecutor(max_workers=len(table_ids) * 2 * 8) as pool,
        ThreadPoolExecutor(max_workers=len(table_ids)) as drivers,
    ):
        futures = [
            drivers.submit(_in_thread, drive, table_id, 1000 + n, pool)
            for n, table_id in enumerate(table_ids)
        ]
        results = [f.result(timeout=600) for f in futures]
    connections.close_all()

    for table_id, result in zip(table_ids, results, strict=True):
        table = Table.objects.get(pk=table_id)
        assert audit_table(table) == [], table_id
        assert table.round_number == ROUNDS and table.phase == Table.Phase.ROUND_DONE
        rounds = list(Round.objects.filter(table=table))
        assert len(rounds) == ROUNDS
        humans = Seat.objects.filter(table=table).count()
        for game_round in rounds:
            cards = list(Play.objects.filter(round=game_round).values_list("card", flat=True))
            assert len(cards) == len(set(cards)), "a card was played twice"
            hands = humans + (1 if table.uses_ghost else 0)
            assert len(cards) == hands * game_round.cards_dealt
            bids = Counter(Bid.objects.filter(round=game_round).values_list("seat", flat=True))
            assert sorted(bids.values()) == [1] * humans, "a seat bid twice (or not at all)"
            assert Trick.objects.filter(round=game_round).count() == game_round.cards_dealt
            assert RoundScore.objects.filter(round=game_round).count() == humans
        # One accepted copy per move, every other copy a clean 409 (never a 500).
        answers = result["answers"]
        assert not [key for key in answers if key[1] >= 500], answers
        assert sum(n for (_, code), n in answers.items() if code == 303) == result["moves"]
        assert sum(n for (_, code), n in answers.items() if code == 409) >= result["moves"]
        assert table.version == Table.objects.get(pk=table_id).version


def test_the_same_card_from_two_tabs_with_different_versions() -> None:
    """A stale tab and a fresh tab race: at most the fresh one wins, the game stays sound."""
    (table_id,) = _setup_tables([(3, False)])
    table = Table.objects.get(pk=table_id)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    for seat in seats:
        table = actions.place_bid(seat.user, table_id, table.version, 0)
    assert table.phase == Table.Phase.PLAYING
    state = load_state(table)
    seat = state.seat_to_play()
    code = min(state.legal_cards(seat), key=lambda c: rules.card(c).index)
    form = {"card": code, "tigress_as": rules.ESCAPE if code == "TIG" else ""}
    url = reverse("play_card", args=[table_id])
    clients = [_client(seat.user) for _ in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        codes = _post_at_once(
            pool,
            [
                (client, url, {**form, "version": str(table.version - (i % 2))})
                for i, client in enumerate(clients)
            ],
        )
    connections.close_all()
    assert codes.count(303) == 1 and codes.count(409) == 5, codes
    assert Play.objects.filter(round__table_id=table_id, card=code).count() == 1
    assert audit_table(Table.objects.get(pk=table_id)) == []
