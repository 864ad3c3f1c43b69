"""A move's frames are rendered once, from the state the action wrote (games.broadcast).

That state must say exactly what the rows say: after every move of whole games,
the frames sent equal the same regions rendered from a fresh read of the table.
And what is rendered once for everyone (the public regions) is the same string in
every seat's frame and holds nothing of anyone in particular.
"""

from __future__ import annotations

import random
import re
from typing import Any
from unittest import mock

import pytest

from games import broadcast, frames
from games.models import Table
from games.state import load_state

from .helpers import random_move, started_table

pytestmark = pytest.mark.django_db

SEAT_REGION = re.compile(r'\n?<section id="(?:status|hand|controls)".*?</section>\n?', re.S)


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message))


@pytest.mark.parametrize(
    ("players", "ghost", "seed", "last_round"),
    [pytest.param(2, True, 11, 4, id="2-ghost"), pytest.param(4, False, 12, 3, id="4")],
)
def test_frames_from_the_actions_state_equal_a_fresh_read_after_every_move(
    players: int, ghost: bool, seed: int, last_round: int, django_capture_on_commit_callbacks: Any
) -> None:
    """R4-R10 through the actions; what the sockets get is what a reload would show."""
    table, users = started_table(players, ghost=ghost, seed=seed)
    rng = random.Random(seed)
    layer = Recorder()
    moves = 0
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        while not (table.round_number == last_round and table.phase == Table.Phase.ROUND_DONE):
            layer.sent.clear()
            with django_capture_on_commit_callbacks(execute=True):
                table = random_move(table, rng)
            moves += 1
            sent = {group: message for group, message in layer.sent}
            first = next(iter(sent.values()))
            public = [r for r in first["regions"] if r in frames.PUBLIC_REGIONS]
            fresh = Table.objects.select_related("host", "cancelled_by").get(pk=table.pk)
            again = frames.render_frames(load_state(fresh), public)
            for user in users:
                message = sent[broadcast.user_group(table.pk, user.pk)]
                assert message["html"] == again[user.pk], f"move {moves}: {user.username}"
            shared = {SEAT_REGION.sub("", m["html"]) for m in sent.values()}
            assert len(shared) == 1, f"move {moves}: the public regions differ between seats"
            assert "data-my-bid" not in shared.pop()
    assert moves > 10
