"""A move takes the game as this process's last move of the table left it
(games.storage.state_cache).

Every test commits its moves (on_commit callbacks run), as a server does. The
"other process" below is a move made while the cache is not told: its state is
not kept here, as if another server process had made it.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

from games import rules
from games.live import broadcast
from games.models import Table
from games.play import actions
from games.play.state import load_state
from games.storage import presence, state_cache
from tests.support.presence import every_seat_watching

from .helpers import bid_all, fresh, started_table
from .test_queries import NEXT_ROUND, PLAY_CARD, writes

pytestmark = pytest.mark.django_db

# savepoint, lock with the seats (read again: names and languages), release, and the
# writes (update hand card, insert play, update table): the round's rows come from memory.
PLAY_CARD_KEPT = 3 + writes(3)
# tests/games/test_queries.py: the same play reading the game; + the scores so far, which
# its push reads for the seat list's score pad (games.pages.projected, issue 49). Read once
# per state read from the database: the state is kept with them, and the next moves in this
# process make no query for them (test_a_play_after_this_processs_move_reads_only_the_seats).
PLAY_CARD_READ = PLAY_CARD + 1


@pytest.fixture(autouse=True)
def committing(django_capture_on_commit_callbacks: Any) -> Iterator[Any]:
    state_cache.forget_all()
    yield django_capture_on_commit_callbacks
    state_cache.forget_all()


@contextlib.contextmanager
def elsewhere() -> Iterator[None]:
    """Moves made here act as another process's: they neither take nor keep a state."""
    with (
        mock.patch.object(state_cache, "take", return_value=None),
        mock.patch.object(state_cache, "keep_on_commit"),
    ):
        yield


def _move(commit: Any, action: Any, *args: Any) -> Any:
    with commit(execute=True):
        return action(*args)


def _play_args(table: Table) -> tuple[Any, ...]:
    state = load_state(fresh(table))
    seat = state.seat_to_play()
    assert seat is not None
    code = min(state.legal_cards(seat), key=lambda c: rules.card(c).index)
    return (seat.user, table.pk, table.version, code, "escape" if code == "TIG" else "")


def _in_tricks(commit: Any, players: int = 4) -> tuple[Table, list[Any]]:
    """Round 3, every bid in (the last one committed here): the tricks are played."""
    table, users = started_table(players, ghost=False, seed=5)
    table = fresh(table)
    while table.round_number < 3:
        table = bid_all(table)
        while table.phase != Table.Phase.ROUND_DONE:
            if table.phase == Table.Phase.TRICK_DONE:
                table = _move(commit, actions.next_trick, users[0], table.pk, table.version)
            else:
                table = _move(commit, actions.play_card, *_play_args(table))
        table = _move(commit, actions.next_round, users[0], table.pk, table.version)
    state = load_state(table)
    for seat in state.seats[1:]:
        table = actions.place_bid(seat.user, table.pk, table.version, 0)
    table = _move(commit, actions.place_bid, state.seats[0].user, table.pk, table.version, 1)
    return table, users


def test_a_play_after_this_processs_move_reads_only_the_seats(
    committing: Any, django_assert_num_queries: Any
) -> None:
    """R5/R6 decided from the kept game: the round's rows are not read again."""
    table, _users = _in_tricks(committing)
    args = _play_args(table)
    with django_assert_num_queries(PLAY_CARD_KEPT), committing(execute=True):
        table = actions.play_card(*args)
    # and the game it played on is the database's: the same play as a fresh read
    kept = load_state(fresh(table))
    assert [p.card for p in kept.plays] == [args[3]]


def test_a_move_made_elsewhere_is_read_again(
    committing: Any, django_assert_num_queries: Any
) -> None:
    """Another process moved the table on: the version under the lock says so."""
    table, _users = _in_tricks(committing)
    with elsewhere():
        first = _play_args(table)
        table = _move(committing, actions.play_card, *first)
    second = _play_args(table)
    with django_assert_num_queries(PLAY_CARD_READ), committing(execute=True):
        table = actions.play_card(*second)
    # R5: the second player followed the first card, which only the database knew of
    assert [p.card for p in load_state(fresh(table)).plays] == [first[3], second[3]]


def _spy_on_states() -> tuple[list[Any], Any]:
    """The game state each move runs on, and a patch that records it."""
    used: list[Any] = []
    real = actions._game_state

    def spy(locked: Table, seats: list[Any]) -> Any:
        state = real(locked, seats)
        used.append(state)
        return state

    return used, mock.patch.object(actions, "_game_state", spy)


def _frames(commit: Any, action: Any, *args: Any) -> tuple[Table, list[str]]:
    """Make a move; the table it saved and the frames its push sent."""
    sent: list[Any] = []
    with mock.patch.object(broadcast, "send", sent.extend):
        table = _move(commit, action, *args)
    return table, [message["html"] for _group, message in sent]


def test_a_play_read_again_sends_the_seats_it_changed_not_the_seat_list(committing: Any) -> None:
    """R5: after a play made elsewhere, the next play reads the game again, yet its frame
    holds the two seats it changed (who played, who plays next), as after a kept game."""
    table, _users = _in_tricks(committing)
    every_seat_watching(table)
    with elsewhere():
        table = _move(committing, actions.play_card, *_play_args(table))
    table, sent = _frames(committing, actions.play_card, *_play_args(table))
    assert len(sent) == 4
    for html in sent:
        assert '<section id="seats"' not in html
        assert html.count('<li id="seats-seat-') == 2


@pytest.mark.parametrize("read_at", ["the round's first play", "the round's last play"])
def test_a_rounds_last_play_sends_its_row_not_the_score_sheet_after_a_read(
    committing: Any, read_at: str
) -> None:
    """R9: the round's last play adds round 3's row to the score sheet and sends that row
    and the totals, not the whole sheet, even when this process read the game (say, after
    a restart) in this round and so never pushed the sheet itself."""
    table, users = _in_tricks(committing)
    every_seat_watching(table)
    state_cache.forget_all()
    while True:
        if table.phase == Table.Phase.TRICK_DONE:
            table = _move(committing, actions.next_trick, users[0], table.pk, table.version)
            continue
        state = load_state(fresh(table))
        assert state.trick is not None
        if state.trick.number == 3 and len(state.plays) == 3:
            break  # the round's last play comes next
        table = _move(committing, actions.play_card, *_play_args(table))
    if read_at == "the round's last play":
        state_cache.forget_all()
    table, sent = _frames(committing, actions.play_card, *_play_args(table))
    assert table.phase == Table.Phase.ROUND_DONE
    for html in sent:
        assert '<section id="scores"' not in html
        assert '<tr id="sheet-round-3" hx-swap-oob="morph"' in html
        assert '<tr id="sheet-totals" hx-swap-oob="morph"' in html
        assert 'id="sheet-round-2"' not in html


def test_a_card_chosen_in_advance_elsewhere_is_seen(committing: Any) -> None:
    """R5: a card chosen in advance in another process is in the game the next move runs on."""
    table, _users = _in_tricks(committing)
    state = load_state(fresh(table))
    later = next(i for i in state.play_order()[2:] if i != rules.GHOST)
    chooser = state.seats[later]
    choice = state.hand_of(chooser)[0]
    choice_as = "escape" if rules.needs_choice(choice) else ""
    with elsewhere():
        _move(
            committing,
            actions.preselect_card,
            chooser.user,
            table.pk,
            table.version,
            str(choice),
            choice_as,
        )
    assert fresh(table).version == table.version  # private: nobody's form went stale
    used, spying = _spy_on_states()
    with spying:
        _move(committing, actions.play_card, *_play_args(table))
    assert used[0].preselected(chooser) == rules.Play(choice, as_=choice_as or None)


def test_a_refused_move_leaves_nothing_kept(
    committing: Any, django_assert_num_queries: Any
) -> None:
    """A move refused after taking the kept game (not your turn) cannot leave it half used."""
    table, _users = _in_tricks(committing)
    state = load_state(fresh(table))
    to_play = state.seat_to_play()
    other = next(s for s in state.seats if s != to_play)
    hand = state.hand_of(other)
    with pytest.raises(actions.ActionError):
        _move(committing, actions.play_card, other.user, table.pk, table.version, str(hand[0]))
    args = _play_args(table)
    with django_assert_num_queries(PLAY_CARD_READ), committing(execute=True):
        actions.play_card(*args)


def test_a_language_changed_in_the_account_shows_in_the_next_push(committing: Any) -> None:
    """The seats are read on every move: the frames follow an account's new language."""
    table, _users = _in_tricks(committing)
    args = _play_args(table)
    seated = args[0]
    seated.language = "de" if seated.language != "de" else "fr"
    seated.save(update_fields=["language"])
    used, spying = _spy_on_states()
    with spying:
        _move(committing, actions.play_card, *args)
    assert {s.user.language for s in used[0].seats if s.user_id == seated.pk} == {seated.language}


def _rows(state: Any) -> dict[str, Any]:
    """What a game state says of the round, in plain values."""
    return {
        "round": state.round.pk,
        "hands": {k: [h.card for h in v] for k, v in state.hands.items() if v},
        "chosen": {h.pk for v in state.hands.values() for h in v if h.preselected},
        "bids": {k: b.value for k, b in state.bids.items()},
        "tricks": [(t.pk, t.winner_id, t.complete, t.bonus) for t in state.tricks],
        "plays": [p.pk for p in state.plays],
        "earlier": {t: [p.pk for p in v] for t, v in state.round_plays.items() if v},
    }


def test_the_kept_game_plays_whole_rounds_as_the_database(committing: Any) -> None:
    """R4-R9 over many moves from the kept game: after each, kept == read."""
    table, users = _in_tricks(committing, players=3)
    rng = random.Random(3)
    while table.round_number == 3 and table.phase != Table.Phase.ROUND_DONE:
        if table.phase == Table.Phase.TRICK_DONE:
            table = _move(committing, actions.next_trick, users[0], table.pk, table.version)
        else:
            args = list(_play_args(table))
            state = load_state(fresh(table))
            seat = state.seat_to_play()
            assert seat is not None
            args[3] = rng.choice(sorted(state.legal_cards(seat)))
            args[4] = "pirate" if args[3] == "TIG" else ""
            table = _move(committing, actions.play_card, *args)
        locked = fresh(table)
        kept = state_cache.take(locked)
        assert kept is not None
        read = load_state(locked)
        assert _rows(kept) == _rows(read)
        state_cache.keep_on_commit(kept)  # put it back, as the move had


def test_a_new_deal_is_pushed_and_kept_from_the_rows_it_wrote(
    committing: Any, django_assert_num_queries: Any
) -> None:
    """R2/R3: "Next round" deals and pushes the new round to every watching seat without
    reading the game again; the next bid runs on the dealt game as the database holds it."""
    table, users = _in_tricks(committing, players=3)
    while table.phase != Table.Phase.ROUND_DONE:
        if table.phase == Table.Phase.TRICK_DONE:
            table = _move(committing, actions.next_trick, users[0], table.pk, table.version)
        else:
            table = _move(committing, actions.play_card, *_play_args(table))
    state = load_state(fresh(table))
    for seat in state.seats:
        presence.touch(seat.pk, f"socket-{seat.pk}")
    sent: list[Any] = []
    with (
        mock.patch.object(broadcast, "send", sent.extend),
        # the action's own queries, nothing more: the push reads nothing, not even the
        # chat log (a new deal leaves it alone, R11)
        django_assert_num_queries(NEXT_ROUND),
        committing(execute=True),
    ):
        table = actions.next_round(users[0], table.pk, table.version)
    assert len(sent) == 3 and all(m["version"] == table.version for _g, m in sent)
    locked = fresh(table)
    kept = state_cache.take(locked)
    assert kept is not None
    read = load_state(locked)
    assert _rows(kept) == _rows(read)
    assert read.round is not None and read.round.number == 4
    assert [(s.pk, s.running_total) for s in kept.scores] == [
        (s.pk, s.running_total) for s in read.scores
    ]
