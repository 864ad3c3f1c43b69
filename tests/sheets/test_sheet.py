"""The score sheet for games played with real cards (seed 001, issue 47), through HTTP.

R9 (the scale, from games.rules), R2 (cards dealt), R10 (winners), the warning on the
tricks' sum, every refusal (a 4xx with a message, nothing changed), corrections with
their kept changes, 409 on a stale form, exports, history and statistics.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from games.after import stats
from games.after.history import history_page
from games.sheets.models import Sheet, SheetChange, SheetEntry

from .helpers import (
    bids_data,
    client_for,
    create,
    post_bids,
    post_results,
    results_data,
    totals,
    users,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def three() -> tuple[list, object, Sheet]:
    ann, bob, _cid = users("ann", "bob", "cid")
    client = client_for(ann)
    sheet = create(client, [("user", "ann"), ("user", "bob"), ("guest", "Grandpa")])
    return [ann, bob], client, sheet


def play_to_round(client, sheet: Sheet, last: int) -> None:  # type: ignore[no-untyped-def]
    """Rounds 1..last: everyone bids 0, ann wins every trick."""
    for n in range(1, last + 1):
        assert post_bids(client, sheet, n, [0, 0, 0]).status_code == 303
        assert post_results(client, sheet, n, [n, 0, 0]).status_code == 303


def test_create_from_the_lobby_with_registered_players_and_a_guest_in_seating_order(
    three,  # type: ignore[no-untyped-def]
) -> None:
    (_ann, _bob), client, sheet = three
    assert [(p.position, p.name, p.is_guest) for p in sheet.players.order_by("position")] == [
        (1, "ann", False),
        (2, "bob", False),
        (3, "Grandpa", True),
    ]
    assert sheet.rounds == 10
    page = client.get("/").content.decode()
    assert "/sheets/new/" in page and f"/sheets/{sheet.token}/" in page


def test_seed_001_round_5_a_bid_of_2_made_scores_40_and_a_bid_of_0_made_50(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    play_to_round(client, sheet, 4)
    before = totals(sheet)
    # "Exemple à la manche 5": ann bids 2 and wins 2, Grandpa bids 0 and wins none.
    assert post_bids(client, sheet, 5, [2, 2, 0]).status_code == 303
    assert post_results(client, sheet, 5, [2, 3, 0]).status_code == 303
    r5 = {e.player.name: e for e in SheetEntry.objects.filter(round__number=5)}
    assert r5["ann"].total == 40  # a bid of 2 made: 40
    assert r5["bob"].total == -10  # R9: one trick off, -10
    assert r5["Grandpa"].total == 50  # a bid of 0 made: 10 x 5
    assert totals(sheet)["ann"] == before["ann"] + 40


def test_seed_001_round_5_a_bid_of_2_with_4_tricks_costs_20_and_a_missed_0_costs_50(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    play_to_round(client, sheet, 4)
    post_bids(client, sheet, 5, [2, 0, 0])
    response = post_results(client, sheet, 5, [4, 1, 0])
    assert response.status_code == 303
    r5 = {e.player.name: e.total for e in SheetEntry.objects.filter(round__number=5)}
    assert r5 == {"ann": -20, "bob": -50, "Grandpa": 50}


def test_seed_001_r2_eight_players_get_9_cards_in_round_9_and_a_missed_0_costs_90() -> None:
    names = [f"p{i}" for i in range(1, 9)]
    people = users(*names)
    client = client_for(people[0])
    sheet = create(client, [("user", n) for n in names])
    for n in range(1, 9):
        post_bids(client, sheet, n, [0] * 8)
        post_results(client, sheet, n, [n] + [0] * 7)
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert 'name="cards" min="1" max="9" value="9"' in page  # R2: 9 by default in round 9
    assert post_bids(client, sheet, 9, [0] * 8, cards=9).status_code == 303
    assert post_results(client, sheet, 9, [9] + [0] * 7).status_code == 303
    r9 = SheetEntry.objects.get(round__number=9, player__position=1)
    assert (r9.base, r9.total) == (-90, -90)
    assert SheetEntry.objects.get(round__number=9, player__position=2).total == 90


def test_seed_001_round_10_zero_bid_plus_or_minus_100_and_the_winner() -> None:
    ann, _bob = users("ann", "bob")
    client = client_for(ann)
    sheet = create(client, [("user", "ann"), ("user", "bob")])
    for n in range(1, 10):
        post_bids(client, sheet, n, [0, 0])
        post_results(client, sheet, n, [0, n])  # ann +10n, bob -10n
    post_bids(client, sheet, 10, [0, 0])
    assert post_results(client, sheet, 10, [0, 10]).status_code == 303
    r10 = {e.player.name: e.total for e in SheetEntry.objects.filter(round__number=10)}
    assert r10 == {"ann": 100, "bob": -100}
    sheet.refresh_from_db()
    assert sheet.is_finished
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert 'data-winners="ann"' in page
    # stopped after the 10th round: no 11th
    refused = post_bids(client, sheet, 11, [0, 0], cards=10)
    assert refused.status_code == 400


def test_seed_001_a_made_bid_with_the_black_14_and_a_pirate_by_the_skull_king_is_base_plus_50(
    three,  # type: ignore[no-untyped-def]
) -> None:
    _users, client, sheet = three
    post_bids(client, sheet, 1, [1, 0, 0])
    response = post_results(
        client, sheet, 1, [1, 0, 0], black_14={1: 1}, pirates_by_skull_king={1: 1}
    )
    assert response.status_code == 303
    entry = SheetEntry.objects.get(round__number=1, player__position=1)
    assert (entry.base, entry.bonus, entry.total) == (20, 50, 70)
    # The sheet shows base + bonus = round, then the running total.
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert "20 + 50 = 70" in page
    assert (
        'data-player="ann" data-bid="1" data-tricks="1" data-total="70" data-running="70"' in page
    )


def test_r9_a_bonus_for_a_missed_bid_is_shown_as_not_counted(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    post_bids(client, sheet, 1, [0, 1, 0])
    post_bids(client, sheet, 1, [0, 0, 0])  # a correction of the bids: bob now bids 0
    post_results(client, sheet, 1, [0, 1, 0], colour_14s={2: 1}, other={2: 5})
    entry = SheetEntry.objects.get(round__number=1, player__position=2)
    assert (entry.base, entry.bonus, entry.total) == (-10, 0, -10)
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert 'data-not-counted="15"' in page
    assert "bonus 15 not counted" in page


def test_the_other_bonus_may_be_negative_and_counts_for_a_made_bid(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    post_bids(client, sheet, 1, [1, 0, 0])
    post_results(client, sheet, 1, [1, 0, 0], other={1: -30})
    entry = SheetEntry.objects.get(round__number=1, player__position=1)
    assert (entry.base, entry.bonus, entry.total) == (20, -30, -10)


def test_seed_001_tricks_not_adding_up_warn_without_refusing(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    play_to_round(client, sheet, 2)
    post_bids(client, sheet, 3, [1, 1, 0])
    # A Kraken took a trick away: 1 + 1 + 0 = 2 of 3 cards dealt.
    response = post_results(client, sheet, 3, [1, 1, 0])
    assert response.status_code == 303
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert 'data-warning="tricks"' in page
    assert "Tricks entered: 2, cards dealt: 3." in page
    assert page.count('data-warning="tricks"') == 1  # rounds 1 and 2 added up


# --- refusals: a 4xx with a clear message, and nothing changed ---------------------------


def _unchanged(sheet: Sheet):  # type: ignore[no-untyped-def]
    sheet.refresh_from_db()
    return (
        sheet.version,
        list(SheetEntry.objects.filter(round__sheet=sheet).values_list()),
        SheetChange.objects.filter(sheet=sheet).count(),
    )


# Results are refused in round 1 dealt with 3 cards (a variant: the cards dealt are
# editable), ann and bob bidding 1, Grandpa 0: every count but the one checked is possible.
RESULTS_CARDS = 3


def _bids_case(bids: list, message: str, cards: int | None = None, *, id: str):  # type: ignore[no-untyped-def,type-arg]
    return pytest.param("bids", {"bids": bids, "cards": cards}, message, id=id)


def _results_case(tricks: list, message: str, *, id: str, **bonus: dict[int, int]):  # type: ignore[no-untyped-def,type-arg]
    return pytest.param("results", {"tricks": tricks, **bonus}, message, id=id)


BAD_INPUT = [
    # A bid out of range (R4: 0 to the cards dealt).
    _bids_case([2, 0, 0], "ann&#x27;s bid must be from 0 to 1", id="bid-above-the-cards-dealt"),
    _bids_case([4, 0, 0], "ann&#x27;s bid must be from 0 to 3", 3, id="bid-above-edited-cards"),
    _bids_case([-1, 0, 0], "ann&#x27;s bid must be a whole number", id="bid-negative"),
    _bids_case(["x", 0, 0], "ann&#x27;s bid must be a whole number", id="bid-not-a-number"),
    _bids_case([0, 0, 0], "The cards dealt must be a whole number", 0, id="no-cards-dealt"),
    _bids_case([0, 0, 0], "The cards dealt must be a whole number from 1 to 24", 25, id="too-many"),
    # A trick count out of range; tricks won above the cards dealt.
    _results_case([-1, 0, 0], "ann&#x27;s tricks won must be a whole number", id="tricks-negative"),
    _results_case(["x", 0, 0], "ann&#x27;s tricks won must be a whole number", id="tricks-nan"),
    _results_case(
        [4, 0, 0], "ann cannot have won 4 tricks: 3 cards were dealt", id="tricks-above-cards"
    ),
    _results_case(
        [2, 2, 0],
        "Round 1&#x27;s tricks won add up to 4, more than the 3 cards dealt",
        id="tricks-sum-above-cards",
    ),
    # Bonus counts impossible for the round as a whole (R1's deck).
    _results_case(
        [1, 1, 0], "only three non-black 14s", colour_14s={1: 2, 2: 2}, id="four-colour-14s"
    ),
    _results_case([1, 1, 0], "from 0 to 3", colour_14s={1: 4}, id="four-colour-14s-one-player"),
    _results_case([1, 1, 0], "only one black 14", black_14={1: 1, 2: 1}, id="two-black-14s"),
    _results_case([1, 1, 0], "from 0 to 1", black_14={1: 2}, id="two-black-14s-one-player"),
    _results_case(
        [1, 1, 0], "only two Mermaids", mermaids_by_pirate={1: 2, 2: 1}, id="three-mermaids"
    ),
    _results_case(
        [1, 1, 0],
        "only five Pirates and the Tigress",
        pirates_by_skull_king={1: 4, 2: 3},
        id="seven-pirates-by-the-skull-king",
    ),
    _results_case(
        [1, 1, 0], "from 0 to 6", pirates_by_skull_king={1: 7}, id="seven-pirates-one-player"
    ),
    _results_case(
        [1, 1, 0],
        "only one Skull King",
        skull_king_by_mermaid={1: 1, 2: 1},
        id="skull-king-captured-twice",
    ),
    _results_case(
        [1, 1, 0], "from 0 to 1", skull_king_by_mermaid={1: 2}, id="skull-king-twice-one-player"
    ),
    _results_case(
        [1, 1, 0],
        "cannot both be captured by a Mermaid and capture Pirates",
        skull_king_by_mermaid={1: 1},
        pirates_by_skull_king={2: 1},
        id="skull-king-captured-and-capturing",
    ),
    # A capture bonus for a player who won no trick.
    _results_case(
        [1, 0, 0], "bob won no trick, so captured nothing", colour_14s={2: 1}, id="no-trick"
    ),
    _results_case(
        [1, 1, 0],
        "Grandpa won no trick, so captured nothing",
        skull_king_by_mermaid={3: 1},
        id="no-trick-skull-king",
    ),
]


@pytest.mark.parametrize(("step", "args", "message"), BAD_INPUT)
def test_bad_input_is_refused_with_a_message_and_changes_nothing(
    three,  # type: ignore[no-untyped-def]
    step: str,
    args: dict,  # type: ignore[type-arg]
    message: str,
) -> None:
    """Issue 47's "Bad input": a 400 with a clear message, with and without htmx; nothing
    changed (the sheet's version, its entries, its kept changes)."""
    _users, client, sheet = three
    if step == "results":
        assert post_bids(client, sheet, 1, [1, 1, 0], cards=RESULTS_CARDS).status_code == 303
    before = _unchanged(sheet)
    args = dict(args)
    if step == "bids":
        data = bids_data(sheet, 1, args["bids"], cards=args["cards"])
        url = f"/sheets/{sheet.token}/bids/"
    else:
        data = results_data(sheet, 1, args.pop("tricks"), **args)
        url = f"/sheets/{sheet.token}/results/"
    response = client.post(url, data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert 'role="alert"' in response.content.decode()
    assert _unchanged(sheet) == before
    response = client.post(url, data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert message in response.content.decode()
    assert _unchanged(sheet) == before


def test_captures_at_the_round_s_limits_are_accepted(three) -> None:  # type: ignore[no-untyped-def]
    """The refusals' limits are not off by one: three non-black 14s, the black 14, two
    Mermaids and six Pirates (the Tigress counts) captured by the Skull King in one round;
    the Skull King captured by a Mermaid in another."""
    _users, client, sheet = three
    post_bids(client, sheet, 1, [4, 3, 3], cards=10)
    response = post_results(
        client,
        sheet,
        1,
        [4, 3, 3],
        colour_14s={1: 1, 2: 1, 3: 1},
        black_14={1: 1},
        mermaids_by_pirate={2: 2},
        pirates_by_skull_king={1: 6},
    )
    assert response.status_code == 303
    r1 = {e.player.name: e.bonus for e in SheetEntry.objects.filter(round__number=1)}
    assert r1 == {"ann": 10 + 20 + 6 * 30, "bob": 10 + 2 * 20, "Grandpa": 10}
    post_bids(client, sheet, 2, [1, 1, 0])
    assert (
        post_results(client, sheet, 2, [1, 1, 0], skull_king_by_mermaid={2: 1}).status_code == 303
    )
    assert SheetEntry.objects.get(round__number=2, player__position=2).total == 20 + 40


def test_results_before_their_bids_or_before_the_previous_round_are_refused(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    before = _unchanged(sheet)
    response = post_results(client, sheet, 1, [1, 0, 0])
    assert response.status_code == 400
    assert "Enter round 1&#x27;s bids first." in response.content.decode()
    assert _unchanged(sheet) == before
    post_bids(client, sheet, 1, [1, 0, 0])
    before = _unchanged(sheet)
    # Round 2 before round 1's results: neither its bids nor its results.
    response = post_bids(client, sheet, 2, [1, 0, 0], cards=2)
    assert response.status_code == 400
    assert "Enter round 1&#x27;s results first." in response.content.decode()
    response = post_results(client, sheet, 2, [1, 0, 0])
    assert response.status_code == 400
    assert "Enter round 2&#x27;s bids first." in response.content.decode()
    # Round 3 before round 2: refused too, however far ahead.
    post_results(client, sheet, 1, [1, 0, 0])
    before = _unchanged(sheet)
    response = post_bids(client, sheet, 3, [1, 0, 0], cards=3)
    assert response.status_code == 400
    assert "Enter round 2&#x27;s results first." in response.content.decode()
    response = post_results(client, sheet, 3, [1, 0, 0])
    assert response.status_code == 400
    assert "Enter round 3&#x27;s bids first." in response.content.decode()
    assert _unchanged(sheet) == before


def test_a_stale_form_gets_409_and_the_current_sheet_with_what_was_typed(three) -> None:  # type: ignore[no-untyped-def]
    (_ann, bob), client, sheet = three
    stale = {"version": "1", "round": "1", "cards": "1", "bid-1": "1", "bid-2": "0", "bid-3": "1"}
    assert post_bids(client_for(bob), sheet, 1, [0, 1, 0]).status_code == 303
    before = _unchanged(sheet)
    response = client.post(f"/sheets/{sheet.token}/bids/", stale)
    assert response.status_code == 409
    page = response.content.decode()
    assert "changed on another device meanwhile" in page
    assert 'data-player="bob" data-bid="1"' in page  # the current sheet: bob's save
    assert 'name="version" value="2"' in page  # the form again, at the current version
    assert _unchanged(sheet) == before
    # with htmx: the same answer as out-of-band regions
    response = client.post(f"/sheets/{sheet.token}/bids/", stale, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert 'id="sheet-entry"' in response.content.decode()
    assert 'hx-swap-oob="true"' in response.content.decode()


def test_a_stale_results_form_gets_409_too_and_two_editors_never_overwrite(three) -> None:  # type: ignore[no-untyped-def]
    (_ann, bob), client, sheet = three
    post_bids(client, sheet, 1, [1, 0, 0])
    shown_to_ann = results_data(sheet, 1, [0, 1, 0])  # both forms shown at version 2
    assert post_results(client_for(bob), sheet, 1, [1, 0, 0]).status_code == 303
    before = _unchanged(sheet)
    response = client.post(f"/sheets/{sheet.token}/results/", shown_to_ann)
    assert response.status_code == 409
    assert 'data-player="ann" data-bid="1" data-tricks="1"' in response.content.decode()
    assert 'name="tricks-2" min="0" max="1" value="1"' in response.content.decode()  # typed
    assert _unchanged(sheet) == before


def test_htmx_save_answers_the_frame(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    data = {"version": "1", "round": "1", "cards": "1", "bid-1": "1", "bid-2": "0", "bid-3": "0"}
    response = client.post(f"/sheets/{sheet.token}/bids/", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="sheet-view"' in html and 'data-version="2"' in html
    assert "Round 1: results" in html


# --- corrections --------------------------------------------------------------------------


def test_an_earlier_round_is_corrected_totals_follow_and_the_change_is_kept(three) -> None:  # type: ignore[no-untyped-def]
    (_ann, bob), client, sheet = three
    play_to_round(client, sheet, 3)
    assert totals(sheet) == {"ann": -60, "bob": 60, "Grandpa": 60}
    page = client.get(f"/sheets/{sheet.token}/rounds/2/results/")
    assert page.status_code == 200
    assert 'name="correction" value="1"' in page.content.decode()
    bob_client = client_for(bob)
    response = post_results(bob_client, sheet, 2, [0, 2, 0])  # it was bob who won both
    assert response.status_code == 303
    assert totals(sheet) == {"ann": -20, "bob": 20, "Grandpa": 60}
    change = SheetChange.objects.filter(sheet=sheet, step="results", round_number=2).first()
    assert change is not None and change.user_name == "bob"
    assert change.before["players"][0]["tricks"] == 2
    assert change.after["players"][0]["tricks"] == 0
    # Readable on the sheet, by anyone who may watch it: who, when, before → after.
    (dee,) = users("dee")
    shown = client_for(dee).get(f"/sheets/{sheet.token}/").content.decode()
    item = shown[shown.index('<li data-step="results" data-round="2">') :]
    item = item[: item.index("</ul>")]
    assert "<strong>bob</strong>" in item
    assert f'<time datetime="{change.at.isoformat()}' in item
    assert "ann: tricks 2 → 0" in item
    assert "bob: tricks 0 → 2" in item
    assert "8 changes kept" in shown  # created, 3 x (bids, results), this correction


def test_an_earlier_round_s_bids_are_corrected_the_totals_follow(three) -> None:  # type: ignore[no-untyped-def]
    (ann, _bob), client, sheet = three
    play_to_round(client, sheet, 3)
    # Round 1 was dealt 2 cards (a variant) and bob had bid 1: he missed by one.
    page = client.get(f"/sheets/{sheet.token}/rounds/1/bids/").content.decode()
    assert 'name="correction" value="1"' in page
    assert post_bids(client, sheet, 1, [0, 1, 0], cards=2).status_code == 303
    # ann: 0 bid missed -20 (10 x 2 cards) instead of -10; bob -10 instead of +10;
    # Grandpa: 0 bid made +20 instead of +10. Every later running total follows.
    assert totals(sheet) == {"ann": -70, "bob": 40, "Grandpa": 70}
    r3 = SheetEntry.objects.get(round__number=3, player__position=2)
    assert (r3.total, r3.running_total) == (30, 40)
    change = SheetChange.objects.filter(sheet=sheet, step="bids", round_number=1).first()
    assert change is not None and change.user_name == ann.username
    shown = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert "cards dealt: 1 → 2" in shown
    assert "bob: bid 0 → 1" in shown


def test_fewer_cards_dealt_than_tricks_already_won_is_refused(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    play_to_round(client, sheet, 3)
    before = _unchanged(sheet)
    response = post_bids(client, sheet, 3, [0, 0, 0], cards=2)
    assert response.status_code == 400
    assert "the cards dealt cannot be fewer" in response.content.decode()
    # Nor fewer than the tricks the players won together (each trick to one player).
    post_bids(client, sheet, 4, [1, 1, 1])
    post_results(client, sheet, 4, [2, 1, 1])
    before = _unchanged(sheet)
    response = post_bids(client, sheet, 4, [1, 1, 1], cards=3)
    assert response.status_code == 400
    assert "Round 4&#x27;s tricks won add up to 4, more than the 3 cards dealt" in (
        response.content.decode()
    )
    assert _unchanged(sheet) == before


# --- who may do what ------------------------------------------------------------------------


def test_authorization_stranger_watcher_and_anonymous(three) -> None:  # type: ignore[no-untyped-def]
    (_ann, bob), _client, sheet = three
    (dee,) = users("dee")
    stranger = client_for(dee)
    # a logged-in watcher with the link reads it, without the forms
    page = stranger.get(f"/sheets/{sheet.token}/")
    assert page.status_code == 200
    assert "You are watching" in page.content.decode()
    assert 'name="bid-1"' not in page.content.decode()
    # ... and cannot change it
    before = _unchanged(sheet)
    assert post_bids(stranger, sheet, 1, [0, 0, 0]).status_code == 403
    assert stranger.get(f"/sheets/{sheet.token}/rounds/1/bids/").status_code == 403
    assert _unchanged(sheet) == before
    # a registered player on it may
    assert post_bids(client_for(bob), sheet, 1, [0, 0, 0]).status_code == 303
    # anonymous: to the log-in page
    from django.test import Client

    anonymous = Client()
    response = anonymous.get(f"/sheets/{sheet.token}/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert anonymous.get(f"/sheets/{sheet.token}/sheet.json").status_code == 302
    # a made-up link
    assert stranger.get("/sheets/nosuchsheet/").status_code == 404


def test_the_creator_edits_without_playing_and_a_guest_s_name_is_not_an_account() -> None:
    ann, bob, dee = users("ann", "bob", "dee")
    client = client_for(ann)
    # ann keeps the score of bob and a guest who happens to be called dee.
    sheet = create(client, [("user", "bob"), ("guest", "dee")], rounds=5)
    assert post_bids(client, sheet, 1, [1, 0]).status_code == 303  # the creator
    assert post_results(client_for(bob), sheet, 1, [1, 0]).status_code == 303  # a player
    watcher = client_for(dee)  # a registered user, not the guest on the sheet
    page = watcher.get(f"/sheets/{sheet.token}/").content.decode()
    assert "You are watching" in page and 'name="bid-1"' not in page
    before = _unchanged(sheet)
    assert post_bids(watcher, sheet, 2, [0, 0]).status_code == 403
    assert _unchanged(sheet) == before
    # watching includes the exports
    assert watcher.get(f"/sheets/{sheet.token}/sheet.json").status_code == 200
    assert watcher.get(f"/sheets/{sheet.token}/sheet.csv").status_code == 200


def test_creation_refusals() -> None:
    (ann,) = users("ann")
    client = client_for(ann)
    cases = [
        ({"name-1": "ann"}, "from 2 to 8 players"),
        ({"name-1": "ann", "kind-2": "user", "name-2": "nobody"}, "no registered player"),
        ({"name-1": "ann", "kind-2": "guest", "name-2": "ANN"}, "on the sheet twice"),
        ({"name-1": "ann", "kind-2": "guest", "name-2": "x", "rounds": "7"}, "short game of 5"),
    ]
    for fields, message in cases:
        data = {"rounds": "10", "kind-1": "user", **fields}
        response = client.post("/sheets/new/", data)
        assert response.status_code == 400
        assert message in response.content.decode(), message
    assert not Sheet.objects.exists()


# --- after: exports, history, statistics ---------------------------------------------------


def test_short_game_stops_after_five_rounds_exports_history_and_stats(three) -> None:  # type: ignore[no-untyped-def]
    (ann, _bob), _client, _sheet = three
    client = client_for(ann)
    sheet = create(client, [("user", "ann"), ("guest", "Zoé")], rounds=5)
    for n in range(1, 5):
        post_bids(client, sheet, n, [1, 1])  # Zoé misses every round: -10 each
        post_results(client, sheet, n, [1, 0])
    post_bids(client, sheet, 5, [1, 1])
    # Not finished yet: the JSON names no winner, round 5's results are null, and
    # neither history nor statistics count the sheet.
    data = json.loads(client.get(f"/sheets/{sheet.token}/sheet.json").content)
    assert (data["finished"], data["winners"]) == (False, [])
    assert data["rounds_played"][4]["players"][0] == {
        "name": "ann",
        "bid": 1,
        "tricks": None,
        "bonus": None,
        "base": None,
        "round_total": None,
        "running_total": None,
    }
    assert not [e for e in history_page(ann, ann, 1)[1] if e.with_cards]
    assert stats.player_stats(ann).card_games == 0
    post_results(client, sheet, 5, [1, 0], colour_14s={1: 1})
    sheet.refresh_from_db()
    assert sheet.is_finished
    assert post_bids(client, sheet, 6, [1, 0], cards=6).status_code == 400
    data = json.loads(client.get(f"/sheets/{sheet.token}/sheet.json").content)
    assert [p["name"] for p in data["players"]] == ["ann", "Zoé"]
    assert [r["number"] for r in data["rounds_played"]] == [1, 2, 3, 4, 5]
    last = data["rounds_played"][4]
    assert last["cards_dealt"] == 5
    assert last["players"][0] == {
        "name": "ann",
        "bid": 1,
        "tricks": 1,
        "bonus": 10,
        "base": 20,
        "round_total": 30,
        "running_total": 110,
    }
    assert data["winners"] == ["ann"]
    csv_text = client.get(f"/sheets/{sheet.token}/sheet.csv").content.decode()
    assert csv_text.splitlines()[0].startswith("round,cards_dealt,position,player,bid,tricks")
    assert "5,5,1,ann,1,1,10,20,30,110" in csv_text
    assert "5,5,2,Zoé,1,0,0,-10,-10,-50" in csv_text
    assert len(csv_text.splitlines()) == 1 + 5 * 2  # one line per round and player
    # history and statistics of its registered player, marked as played with cards
    _page, entries = history_page(ann, ann, 1)
    mine = [e for e in entries if e.with_cards]
    assert len(mine) == 1 and mine[0].score == 110 and mine[0].place == 1
    player_stats = stats.player_stats(ann)
    assert player_stats.games == 1 and player_stats.card_games == 1 and player_stats.wins == 1
    assert player_stats.rounds == 5 and player_stats.exact_bids == 5
    # A short game's total is not comparable: the average score counts 10-round games only.
    assert player_stats.average_score is None
    profile = client.get("/players/ann/").content.decode()
    assert "played with cards" in profile
    assert f"/sheets/{sheet.token}/" in profile


def test_r10_the_winners_sharing_the_top_and_the_leader_meanwhile() -> None:
    ann, bob = users("ann", "bob")
    client = client_for(ann)
    sheet = create(client, [("user", "ann"), ("user", "bob"), ("guest", "Zoé")], rounds=5)
    post_bids(client, sheet, 1, [1, 0, 0])
    post_results(client, sheet, 1, [1, 0, 0])  # ann 20, bob 10, Zoé 10
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert 'data-leaders="ann"' in page and "Leading: ann" in page
    assert "sheet-winners" not in page
    post_bids(client, sheet, 2, [0, 1, 1])
    post_results(client, sheet, 2, [0, 1, 1])  # ann 40, bob 30, Zoé 30
    post_bids(client, sheet, 3, [2, 3, 0])
    post_results(client, sheet, 3, [0, 3, 0])  # ann 20, bob 90, Zoé 60
    post_bids(client, sheet, 4, [4, 0, 0])
    post_results(client, sheet, 4, [4, 0, 0])  # ann 100, bob 130, Zoé 100
    post_bids(client, sheet, 5, [1, 0, 4])
    post_results(client, sheet, 5, [1, 0, 4])  # ann 120, bob 180, Zoé 180
    assert totals(sheet) == {"ann": 120, "bob": 180, "Zoé": 180}
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert 'data-winners="bob,Zoé"' in page
    assert "Winners, sharing the top: bob, Zoé" in page
    data = json.loads(client.get(f"/sheets/{sheet.token}/sheet.json").content)
    assert data["winners"] == ["bob", "Zoé"]
    assert stats.player_stats(bob).wins == 1  # a shared top is a win
    assert stats.player_stats(ann).wins == 0


def test_cards_dealt_edited_for_a_variant_a_zero_bid_scores_10_per_card_dealt(three) -> None:  # type: ignore[no-untyped-def]
    """R9 with c the cards dealt (not the round's number): round 2 dealt 3 cards."""
    _users, client, sheet = three
    play_to_round(client, sheet, 1)
    page = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert 'name="cards" min="1" max="24" value="2"' in page  # R2's default, editable
    assert post_bids(client, sheet, 2, [3, 0, 0], cards=3).status_code == 303  # bid up to 3
    assert post_results(client, sheet, 2, [3, 0, 0]).status_code == 303
    r2 = {e.player.name: e.total for e in SheetEntry.objects.filter(round__number=2)}
    assert r2 == {"ann": 60, "bob": 30, "Grandpa": 30}


def test_a_guest_s_name_cannot_smuggle_a_formula_into_the_csv() -> None:
    (ann,) = users("ann")
    client = client_for(ann)
    sheet = create(client, [("user", "ann"), ("guest", "=HYPERLINK(1)")], rounds=5)
    post_bids(client, sheet, 1, [1, 0])
    csv_text = client.get(f"/sheets/{sheet.token}/sheet.csv").content.decode()
    assert "1,1,2,'=HYPERLINK(1),0,,,,," in csv_text


# --- the README and its export format ------------------------------------------------------


ROOT = Path(__file__).resolve().parents[2]


def _keys(value: object) -> object:
    """The shape of a JSON value: its keys, recursively (lists by their first item)."""
    if isinstance(value, dict):
        return {key: _keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_keys(value[0])] if value else []
    return None


def test_the_readme_says_how_to_use_the_sheet_and_documents_its_json_export(three) -> None:  # type: ignore[no-untyped-def]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Score sheet") :]
    section = section[: section.index("\n## ", 1)]
    for words in ("New score sheet", "bids", "results", "correct", "409", "without JavaScript"):
        assert words in section, words
    assert "/sheets/<token>/sheet.json" in section and "docs/score-sheet.md" in section
    # The documented JSON is the export's own shape, key for key.
    doc = (ROOT / "docs" / "score-sheet.md").read_text(encoding="utf-8")
    example = json.loads(re.search(r"```json\n(.*?)```", doc, re.S).group(1))  # type: ignore[union-attr]
    (ann, _bob), _client, _sheet = three
    client = client_for(ann)
    sheet = create(client, [("user", "ann"), ("guest", "Zoé")], rounds=5)
    for n in range(1, 6):  # a finished sheet: winners named
        post_bids(client, sheet, n, [1, 0])
        post_results(client, sheet, n, [1, 0])
    exported = json.loads(client.get(f"/sheets/{sheet.token}/sheet.json").content)
    assert _keys(exported) == _keys(example)
    fields = doc[doc.index("Fields") :]
    for key in _all_keys(example):
        assert f"`{key}`" in fields, f"{key} is not described in docs/score-sheet.md"


def _all_keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for item in value.values() for k in _all_keys(item)}
    if isinstance(value, list):
        return {k for item in value for k in _all_keys(item)}
    return set()


# --- languages ---------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["fr", "de", "es"])
def test_the_sheet_speaks_every_language_french_with_the_seeds_words(language: str) -> None:
    from tests.i18n.untranslated import untranslated

    ann, _bob = users("ann", "bob")
    ann.language = language
    ann.save()
    client = client_for(ann)
    sheet = create(client, [("user", "ann"), ("guest", "Zoé")], rounds=5)
    post_bids(client, sheet, 1, [1, 0])
    post_results(client, sheet, 1, [0, 0], colour_14s={1: 1})  # missed: not counted
    post_bids(client, sheet, 2, [1, 0])
    pages = {
        "new": client.get("/sheets/new/").content.decode(),
        "sheet": client.get(f"/sheets/{sheet.token}/").content.decode(),
        "refused": post_results(client, sheet, 2, [3, 0]).content.decode(),
        "correct": client.get(f"/sheets/{sheet.token}/rounds/1/results/").content.decode(),
    }
    for name, html in pages.items():
        assert untranslated(html, language, ignore=("Zoé", "ann")) == [], name
    if language == "fr":
        sheet_page = pages["sheet"] + pages["new"]
        for word in ("pari", "plis", "Manche", "bonus", "Partie courte", "Autre bonus"):
            assert word in sheet_page, word
