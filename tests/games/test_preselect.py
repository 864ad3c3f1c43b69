"""Choosing your next card before your turn (issue 12, seed 002's "hook").

The card is kept on the server, seen only by its owner, and played for them the
moment their turn comes, if R5 allows it then; if not, it is not played and the
choice is dropped. Choosing changes nothing anyone else sees: no version bump.
"""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.live import frames
from games.models import HandCard, Play, Table, Trick
from games.play import actions

from .helpers import (
    assert_refused,
    at_phase,
    bid_all,
    make_users,
    play_until,
    rig_hands,
    started_table,
    state_of,
)

pytestmark = pytest.mark.django_db


def round_two(hands: dict[int, list[str]], ghost: list[str] = ()):
    """Round 2 of a 2-player table with rigged hands, every bid 1: users[0] leads.

    With the ghost (seed 7) the order is users[0], the ghost, users[1].
    """
    table, users = started_table(2, ghost=bool(ghost), seed=7)
    table = play_until(table, random.Random(7), at_phase(Table.Phase.BIDDING, 2))
    rig_hands(table, hands, ghost)
    table = bid_all(table, 1)
    assert state_of(table).seat_to_play().user == users[0]
    return table, users


def chosen(table: Table, user) -> list[tuple[str, str]]:
    rows = HandCard.objects.filter(round__table=table, seat__user=user, preselected=True)
    return list(rows.values_list("card", "preselected_as"))


def cards_played(table: Table) -> list[str]:
    plays = Play.objects.filter(round__table=table, round__number=2).order_by("pk")
    return list(plays.values_list("card", flat=True))


def test_r5_a_chosen_card_is_played_the_moment_the_turn_comes() -> None:
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    version = table.version
    table = actions.preselect_card(other, table.pk, version, "G7")
    assert table.version == version, "a private choice must not make the others' forms stale"
    assert chosen(table, other) == [("G7", "")]
    table = actions.play_card(lead, table.pk, table.version, "G5")
    # One action, one version: the lead and the chosen card, then the trick is decided.
    assert table.version == version + 1
    assert cards_played(table) == ["G5", "G7"]
    assert table.phase == Table.Phase.TRICK_DONE
    assert chosen(table, other) == []


def test_r5_a_chosen_card_that_became_illegal_is_not_played_and_the_choice_dropped() -> None:
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    table = actions.preselect_card(other, table.pk, table.version, "Y9")
    table = actions.play_card(lead, table.pk, table.version, "G5")  # green led: must follow
    assert cards_played(table) == ["G5"]
    assert state_of(table).seat_to_play().user == other
    assert chosen(table, other) == []


DROPPED = "Your chosen card (Yellow 9) could not be played: you must follow green. Choose again."


def test_r5_r4_a_dropped_choice_is_told_to_its_owner_alone_until_they_play() -> None:
    """Issue 44: the dropped card was dropped without a word to its owner."""
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    table = actions.preselect_card(other, table.pk, table.version, "Y9")
    table = actions.play_card(lead, table.pk, table.version, "G5")  # green led: must follow
    pushed = frames.render_frames(state_of(table), frames.PUBLIC_REGIONS)
    assert DROPPED in pushed[other.pk]
    assert "Yellow 9" not in pushed[lead.pk] and "chosen card" not in pushed[lead.pk]  # R4
    owner, leader = Client(), Client()
    owner.force_login(other)
    leader.force_login(lead)
    url = reverse("table", args=[table.pk])
    assert DROPPED in owner.get(url).content.decode()  # a reload still says it
    assert "chosen card" not in leader.get(url).content.decode()
    table = actions.play_card(other, table.pk, table.version, "G7")
    assert "chosen card" not in owner.get(url).content.decode()


def test_r11_the_next_leader_plays_its_chosen_card_when_the_host_moves_on() -> None:
    table, (host, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    table = actions.play_card(host, table.pk, table.version, "G5")
    table = actions.play_card(other, table.pk, table.version, "G7")
    assert Trick.objects.get(round__table=table, round__number=2, number=1).winner.user == other
    assert table.phase == Table.Phase.TRICK_DONE
    table = actions.preselect_card(other, table.pk, table.version, "Y9")  # between tricks
    table = actions.next_trick(host, table.pk, table.version)
    assert cards_played(table) == ["G5", "G7", "Y9"]
    assert state_of(table).seat_to_play().user == host


def test_r7_the_tigress_is_chosen_with_its_choice_and_played_so() -> None:
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["TIG", "Y9"]})
    table = actions.preselect_card(other, table.pk, table.version, "TIG", "pirate")
    assert chosen(table, other) == [("TIG", "pirate")]
    table = actions.play_card(lead, table.pk, table.version, "G5")
    tigress = Play.objects.get(round__table=table, card="TIG")
    assert tigress.tigress_as == "pirate"
    assert Trick.objects.get(round__table=table, round__number=2, number=1).winner.user == other


def test_r8_after_the_ghost_the_chosen_card_is_played_in_the_same_action() -> None:
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]}, ghost=["Y4", "G9"])
    table = actions.preselect_card(other, table.pk, table.version, "G7")
    table = actions.play_card(lead, table.pk, table.version, "G5")
    assert cards_played(table) == ["G5", "Y4", "G7"]
    assert table.phase == Table.Phase.TRICK_DONE


def test_a_choice_can_be_changed_and_cleared_until_the_turn_comes() -> None:
    table, (_lead, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    table = actions.preselect_card(other, table.pk, table.version, "G7")
    table = actions.preselect_card(other, table.pk, table.version, "Y9")
    assert chosen(table, other) == [("Y9", "")]
    table = actions.preselect_card(other, table.pk, table.version, "")
    assert chosen(table, other) == []


def test_refusals_say_why_and_change_nothing() -> None:
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["TIG", "Y9"]})
    (stranger,) = make_users(1, "stranger")
    v, pk = table.version, table.pk
    assert "your turn" in assert_refused(409, actions.preselect_card, lead, pk, v, "G5")
    assert "not in your hand" in assert_refused(400, actions.preselect_card, other, pk, v, "G5")
    assert_refused(400, actions.preselect_card, other, pk, v, "X99")
    assert_refused(400, actions.preselect_card, other, pk, v, "TIG")  # R7: pirate or escape?
    assert_refused(400, actions.preselect_card, other, pk, v, "Y9", "pirate")
    assert_refused(403, actions.preselect_card, stranger, pk, v, "Y9")
    assert_refused(404, actions.preselect_card, other, 987654321, v, "Y9")
    assert_refused(409, actions.preselect_card, other, pk, v, "")  # nothing to clear
    assert_refused(409, actions.preselect_card, other, pk, v + 1, "Y9")  # from the future
    assert_refused(409, actions.preselect_card, other, pk, 1, "Y9")  # from round 1's page
    actions.preselect_card(other, pk, v, "Y9")
    # The same POST again (a double click) is a 409 that changes nothing.
    assert "already" in assert_refused(409, actions.preselect_card, other, pk, v, "Y9")


def test_r4_no_choice_during_the_bids() -> None:
    table, users = started_table(2, ghost=False)
    state = state_of(table)
    card = state.hands[state.seats[0].pk][0].card
    assert_refused(409, actions.preselect_card, users[0], table.pk, table.version, card)


def test_r2_a_new_round_starts_with_no_choice() -> None:
    table, (_lead, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    table = actions.preselect_card(other, table.pk, table.version, "Y9")
    table = play_until(table, random.Random(3), at_phase(Table.Phase.PLAYING, 3))
    assert not HandCard.objects.filter(round__table=table, round__number=3, preselected=True)


def test_r4_the_choice_is_shown_to_its_owner_only() -> None:
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    client = Client()
    client.force_login(other)
    response = client.post(
        reverse("preselect_card", args=[table.pk]),
        {"version": table.version, "hook": "G7"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    answer = response.content.decode()
    assert "Next card: Green 7." in answer and "hand__card--next" in answer
    rendered = frames.render_frames(state_of(table), frames.PUBLIC_REGIONS)
    assert "hand__card--next" in rendered[other.pk]
    assert "hand__card--next" not in rendered[lead.pk]
    assert "Next card" not in rendered[lead.pk]
    page = Client()
    page.force_login(lead)
    html = page.get(reverse("table", args=[table.pk])).content.decode()
    assert "hand__card--next" not in html and "hook-button" not in html


def hand_of(client: Client, table: Table) -> str:
    html = client.get(reverse("table", args=[table.pk])).content.decode()
    start = html.index('<section id="hand"')
    return html[start : html.index("</section>", start)]


def test_r5_while_others_play_each_card_is_a_button_that_hooks_it() -> None:
    """Issue 49: no drop-down; the hand's form posts to the hook, each card sends itself
    as "hook" (not "card": nothing is playable now), the Tigress both ways (R1)."""
    table, (lead, other) = round_two({0: ["G5", "Y3"], 1: ["TIG", "Y9"]})
    client = Client()
    client.force_login(other)
    hand = hand_of(client, table)
    assert f'action="{reverse("preselect_card", args=[table.pk])}"' in hand
    assert "<select" not in hand and 'name="card"' not in hand
    y9 = '<button id="hook-Y9" name="hook" value="Y9" class="hook-button" aria-pressed="false">'
    assert y9 in hand
    for value in ("TIG:pirate", "TIG:escape"):
        assert f'name="hook" value="{value}"' in hand
    # The player to move has playable cards, not hooks.
    mover = Client()
    mover.force_login(lead)
    assert "hook-button" not in hand_of(mover, table)
    assert 'name="card" value="G5"' in hand_of(mover, table)


def test_without_javascript_a_tap_hooks_then_unhooks_and_the_page_says_so() -> None:
    """A plain POST (no htmx) answers 303 to the table, which shows the hooked card
    pressed; its button then sends "" and unhooks it (issue 49)."""
    table, (_lead, other) = round_two({0: ["G5", "Y3"], 1: ["TIG", "Y9"]})
    client = Client()
    client.force_login(other)
    url = reverse("preselect_card", args=[table.pk])
    response = client.post(url, {"version": table.version, "hook": "TIG:escape"})
    assert response.status_code == 303
    assert chosen(table, other) == [("TIG", "escape")]
    hand = hand_of(client, table)
    hooked = '<button id="hook-TIG" name="hook" value="" class="hook-button" aria-pressed="true">'
    assert hooked in hand
    assert 'data-as="escape"' in hand and "Next card: Tigress (as escape)." in hand
    response = client.post(url, {"version": table.version, "hook": "Y9"})  # moves the hook
    assert response.status_code == 303 and chosen(table, other) == [("Y9", "")]
    response = client.post(url, {"version": table.version, "hook": ""})  # unhooks
    assert response.status_code == 303 and chosen(table, other) == []
    assert 'aria-pressed="true"' not in hand_of(client, table)


def test_the_old_card_field_still_chooses() -> None:
    table, (_lead, other) = round_two({0: ["G5", "Y3"], 1: ["TIG", "Y9"]})
    client = Client()
    client.force_login(other)
    response = client.post(
        reverse("preselect_card", args=[table.pk]), {"version": table.version, "card": "TIG:escape"}
    )
    assert response.status_code == 303
    assert chosen(table, other) == [("TIG", "escape")]


@pytest.mark.parametrize("hook", ["X99", "TIG", "Y9:pirate", "G5"])
def test_a_bad_hook_is_a_400_and_changes_nothing(hook: str) -> None:
    table, (_lead, other) = round_two({0: ["G5", "Y3"], 1: ["TIG", "Y9"]})
    client = Client()
    client.force_login(other)
    url = reverse("preselect_card", args=[table.pk])
    response = client.post(url, {"version": table.version, "hook": hook})
    assert response.status_code == 400
    assert chosen(table, other) == []
