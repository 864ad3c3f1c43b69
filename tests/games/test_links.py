"""The table's links (games.pages.links) are Django's own reverse(), kept per process.

Rendered in every frame (issue 9: reversing them on every render was a tenth of
a frame's rendering), they must stay right when what a URL depends on changes.
"""

from __future__ import annotations

import pytest
from django.urls import reverse, set_script_prefix

from games.pages import links


@pytest.fixture
def prefix_restored():
    yield
    set_script_prefix("/")


def test_each_action_link_is_what_reverse_gives() -> None:
    actions = {name: reverse(name, args=[42]) for name in links.TABLE_ACTIONS}
    assert links.table_links(42) == {**actions, "lobby": reverse("home")}
    assert links.table_links(43)["play_card"] == "/tables/43/play/"
    assert links.player_link("anne") == reverse("player", args=["anne"]) == "/players/anne/"


def test_a_site_under_a_path_prefix_gets_its_own_links(prefix_restored) -> None:
    assert links.table_links(7)["place_bid"] == "/tables/7/bid/"
    set_script_prefix("/skullking/")
    # Behind a proxy that mounts the site under a path, nothing from "/" is reused.
    assert links.table_links(7)["place_bid"] == "/skullking/tables/7/bid/"
    assert links.table_links(7)["lobby"] == "/skullking/"
    assert links.player_link("bert") == "/skullking/players/bert/"


def test_a_name_with_characters_to_escape_is_quoted_as_reverse_quotes_it() -> None:
    assert links.player_link("a b+c") == reverse("player", args=["a b+c"])
