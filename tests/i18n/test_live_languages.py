"""Issue 13: each socket push is in the language of the player it goes to.

A French and a German player share a table (no ghost) and play round 1 and the
start of round 2 (R2: one card each, R4 the bids, R5-R6 the trick, R9 the score,
R11 the host's "Next trick"/"Next round"). Every frame each socket receives, the
snapshot included, must be in that player's language and in no other: no English
msgid shown as-is (tests.i18n.untranslated), none of the other player's words.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.models import Table
from games.testing.driver import random_move
from tests.i18n.untranslated import untranslated, visible_text
from tests.live.helpers import drain, headers, make_game

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
#: Words only that language's table shows (trick, round, bid).
OWN_WORDS = {"fr": ("pli", "manche", "annonce"), "de": ("Stich", "Runde", "Gebot")}


@pytest.fixture(autouse=True)
async def _fresh_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()
    yield
    await layer.flush()


def set_languages(users: list, languages: tuple[str, ...]) -> None:  # type: ignore[type-arg]
    for user, language in zip(users, languages, strict=True):
        user.language = language
        user.save(update_fields=["language"])


def check_frames(frames: list[str], language: str, other: str, moment: str) -> str:
    text = " ".join(visible_text(frame) for frame in frames)
    for frame in frames:
        shown = untranslated(frame, language, ignore=("anne", "bert"))
        assert not shown, f"{language} socket, {moment}: English {shown}"
    for word in OWN_WORDS[other]:
        assert word not in text, f"{language} socket, {moment}: {other} word {word!r}"
    return text


async def test_a_french_and_a_german_player_each_read_their_own_language_live() -> None:
    game = await db(make_game)(("anne", "bert"))
    await db(set_languages)(game.users, ("fr", "de"))
    languages = {"fr": "de", "de": "fr"}  # each socket's language -> the other one
    socks = {}
    for language, cookie in zip(languages, game.cookies, strict=True):
        comm = WebsocketCommunicator(
            application, f"/ws/tables/{game.table.pk}/", headers=headers(cookie)
        )
        connected, _ = await comm.connect(timeout=3)
        assert connected
        socks[language] = comm
    seen = {"fr": "", "de": ""}
    for language, comm in socks.items():
        seen[language] += check_frames(await drain(comm), language, languages[language], "snapshot")

    rng = random.Random(13)
    table = game.table
    moves = 0
    while table is not None and not (
        table.round_number == 2 and moves > 0 and table.phase == Table.Phase.BIDDING
    ):
        table = await db(random_move)(table.pk, rng)
        moves += 1
        assert table is not None and moves < 20
        for language, comm in socks.items():
            frames = await drain(comm)
            moment = f"after move {moves} ({table.phase}, round {table.round_number})"
            seen[language] += check_frames(frames, language, languages[language], moment)

    # Both live views showed the table's own words in their language, R4 to R11.
    assert "Annonce" in seen["fr"] or "annonce" in seen["fr"]
    assert "Pli suivant" in seen["fr"] or "pli" in seen["fr"]
    assert "Manche suivante" in seen["fr"]  # anne is the host (R11)
    assert "Runde beendet" in seen["de"]
    assert "Stich" in seen["de"]
    for comm in socks.values():
        await comm.disconnect()


def test_public_regions_are_rendered_once_per_language_not_per_seat(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Three seats, two languages: each public region (seats, trick...) is rendered twice, not three
    times; each seat's own regions once for that seat, in its language (R4: only its own)."""
    from games.live import frames
    from games.play.state import load_state
    from games.testing.factories import make_user, started_table

    users = [make_user(name) for name in ("anne", "bert", "cleo")]
    set_languages(users, ("fr", "de", "fr"))
    table, users = started_table(users, ghost=False)
    state = load_state(Table.objects.get(pk=table.pk))
    rendered: list[tuple[str, str]] = []
    original = frames.render_region

    def counting(region: str, context: dict) -> str:  # type: ignore[type-arg]
        from django.utils import translation

        rendered.append((region, translation.get_language()))
        return original(region, context)

    monkeypatch.setattr(frames, "render_region", counting)
    result = frames.render_frames(state, frames.MOVE_REGIONS)
    public = [r for r in rendered if r[0] in frames.MOVE_REGIONS]
    expected = [(region, language) for region in frames.MOVE_REGIONS for language in ("fr", "de")]
    assert sorted(public) == sorted(expected)
    assert [r for r in rendered if r[0] == "hand"] == [
        ("hand", "fr"),
        ("hand", "de"),
        ("hand", "fr"),
    ]
    by_user = {user.username: result[user.pk] for user in users}
    assert "Votre main" in by_user["anne"] and "Deine Hand" in by_user["bert"]
    assert "Deine Hand" not in by_user["cleo"]
