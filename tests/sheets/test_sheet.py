"""The score sheet for games played with real cards (seed 001, issue 47), through HTTP.

R9 (the scale, from games.rules), R2 (cards dealt), R10 (winners), the warning on the
tricks' sum, every refusal (a 4xx with a message, nothing changed), corrections with
their kept changes, 409 on a stale form, exports, history and statistics.
"""

from __future__ import annotations

import json

import pytest

from games.after import stats
from games.after.history import history_page
from games.sheets.models import Sheet, SheetChange, SheetEntry

from .helpers import client_for, create, post_bids, post_results, totals, users

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


def test_seed_001_round_5_examples_on_the_sheet(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    play_to_round(client, sheet, 4)  # ann -10-20-30-40 = -100? no: bids 0 missed
    before = totals(sheet)
    # Round 5: ann bids 2 and wins 2 (+40), bob bids 2 and wins 4 (-20)... three players
    assert post_bids(client, sheet, 5, [2, 2, 0]).status_code == 303
    assert post_results(client, sheet, 5, [2, 3, 0]).status_code == 303
    r5 = {e.player.name: e for e in SheetEntry.objects.filter(round__number=5)}
    assert r5["ann"].total == 40  # a bid of 2 made: 40
    assert r5["bob"].total == -10  # one trick off
    assert r5["Grandpa"].total == 50  # a bid of 0 made: 10 x 5
    assert totals(sheet)["ann"] == before["ann"] + 40


def test_seed_001_round_5_two_bid_four_won_and_zero_missed(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    play_to_round(client, sheet, 4)
    post_bids(client, sheet, 5, [2, 0, 0])
    response = post_results(client, sheet, 5, [4, 1, 0])
    assert response.status_code == 303
    r5 = {e.player.name: e.total for e in SheetEntry.objects.filter(round__number=5)}
    assert r5 == {"ann": -20, "bob": -50, "Grandpa": 50}


def test_r2_eight_players_deal_nine_cards_in_round_9_and_a_missed_zero_costs_90() -> None:
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


def test_r9_black_14_and_a_pirate_by_the_skull_king_count_base_plus_50_when_made(
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


@pytest.mark.parametrize(
    ("step", "args", "message"),
    [
        ("bids", {"bids": [2, 0, 0]}, "ann&#x27;s bid must be from 0 to 1"),
        ("bids", {"bids": [-1, 0, 0]}, "ann&#x27;s bid must be a whole number"),
        ("bids", {"bids": ["x", 0, 0]}, "ann&#x27;s bid must be a whole number"),
        ("bids", {"bids": [0, 0, 0], "cards": 0}, "The cards dealt must be a whole number"),
        ("results", {"tricks": [2, 0, 0]}, "ann cannot have won 2 tricks: 1 cards were dealt"),
        ("results", {"tricks": [-1, 0, 0]}, "ann&#x27;s tricks won must be a whole number"),
        (
            "results",
            {"tricks": [1, 0, 0], "colour_14s": {1: 2, 2: 2}},
            "only three non-black 14s",
        ),
        ("results", {"tricks": [1, 0, 0], "black_14": {1: 2}}, "from 0 to 1"),
        (
            "results",
            {"tricks": [1, 1, 0], "black_14": {1: 1, 2: 1}},
            "only one black 14",
        ),
        (
            "results",
            {"tricks": [1, 1, 0], "mermaids_by_pirate": {1: 2, 2: 1}},
            "only two Mermaids",
        ),
        (
            "results",
            {"tricks": [1, 1, 0], "pirates_by_skull_king": {1: 4, 2: 3}},
            "only five Pirates and the Tigress",
        ),
        (
            "results",
            {"tricks": [1, 1, 0], "skull_king_by_mermaid": {1: 1, 2: 1}},
            "only one Skull King",
        ),
        (
            "results",
            {"tricks": [1, 1, 0], "skull_king_by_mermaid": {1: 1}, "pirates_by_skull_king": {2: 1}},
            "cannot both be captured by a Mermaid and capture Pirates",
        ),
        (
            "results",
            {"tricks": [1, 0, 0], "colour_14s": {2: 1}},
            "bob won no trick, so captured nothing",
        ),
    ],
)
def test_bad_input_is_refused_with_a_message_and_changes_nothing(
    three,  # type: ignore[no-untyped-def]
    step: str,
    args: dict,  # type: ignore[type-arg]
    message: str,
) -> None:
    _users, client, sheet = three
    if step == "results":
        post_bids(client, sheet, 1, [1, 0, 0])
    before = _unchanged(sheet)
    if step == "bids":
        bids = args["bids"]
        response = post_bids(client, sheet, 1, bids, cards=args.get("cards"))
    else:
        tricks = args.pop("tricks")
        response = post_results(client, sheet, 1, tricks, **args)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert _unchanged(sheet) == before


def test_results_before_their_bids_or_before_the_previous_round_are_refused(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    before = _unchanged(sheet)
    response = post_results(client, sheet, 1, [1, 0, 0])
    assert response.status_code == 400
    assert "Enter round 1&#x27;s bids first." in response.content.decode()
    post_bids(client, sheet, 1, [1, 0, 0])
    before = _unchanged(sheet)
    response = post_bids(client, sheet, 2, [1, 0, 0], cards=2)
    assert response.status_code == 400
    assert "Enter round 1&#x27;s results first." in response.content.decode()
    response = post_results(client, sheet, 2, [1, 0, 0])
    assert response.status_code == 400
    assert "Enter round 2&#x27;s bids first." in response.content.decode()
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
    shown = client.get(f"/sheets/{sheet.token}/").content.decode()
    assert "ann: tricks 2 → 0" in shown
    assert "bob: tricks 0 → 2" in shown


def test_fewer_cards_dealt_than_tricks_already_won_is_refused(three) -> None:  # type: ignore[no-untyped-def]
    _users, client, sheet = three
    play_to_round(client, sheet, 3)
    response = post_bids(client, sheet, 3, [0, 0, 0], cards=2)
    assert response.status_code == 400
    assert "the cards dealt cannot be fewer" in response.content.decode()


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
    for n in range(1, 6):
        post_bids(client, sheet, n, [1, 1])  # Zoé misses every round: -10 each
        post_results(client, sheet, n, [1, 0], colour_14s={1: 1} if n == 5 else {})
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
    # history and statistics of its registered player, marked as played with cards
    _page, entries = history_page(ann, ann, 1)
    mine = [e for e in entries if e.with_cards]
    assert len(mine) == 1 and mine[0].score == 110 and mine[0].place == 1
    player_stats = stats.player_stats(ann)
    assert player_stats.games == 1 and player_stats.card_games == 1 and player_stats.wins == 1
    profile = client.get("/players/ann/").content.decode()
    assert "played with cards" in profile
    assert f"/sheets/{sheet.token}/" in profile


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
