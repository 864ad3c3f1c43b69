"""The score sheet's socket (issue 47): who may watch, a snapshot on connect, every save
pushed to every device watching, in the language of the page that opened it, and the
sheet as it is now on reconnecting."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import rules
from games.live.push import CLOSE_ANONYMOUS, CLOSE_NO_TABLE
from games.sheets import actions
from games.sheets.forms import ResultLine
from games.testing.factories import make_user, session_cookie
from tests.live.helpers import headers

pytestmark = pytest.mark.django_db(transaction=True)


def make_sheet() -> tuple[Any, Any, Any]:
    ann, dee = make_user("ann"), make_user("dee")
    sheet = actions.create_sheet(ann, 5, [("user", "ann"), ("guest", "Zoé")])
    return sheet, session_cookie(ann), session_cookie(dee)


async def connect(path: str, cookie: str | None) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, path, headers=headers(cookie))
    connected, _ = await comm.connect(timeout=3)
    assert connected
    return comm


async def test_who_watches_every_save_pushed_and_a_snapshot_on_reconnect() -> None:
    sheet, ann_cookie, dee_cookie = await database_sync_to_async(make_sheet)()
    path = f"/ws/sheets/{sheet.token}/"
    anonymous = await connect(path, None)
    assert (await anonymous.receive_output(timeout=3))["code"] == CLOSE_ANONYMOUS
    nowhere = await connect("/ws/sheets/no-such-sheet/", dee_cookie)
    assert (await nowhere.receive_output(timeout=3))["code"] == CLOSE_NO_TABLE

    watcher = await connect(path + "?lang=fr", dee_cookie)  # not on the sheet: watches
    editor = await connect(path, ann_cookie)
    first = await watcher.receive_from(timeout=3)
    assert 'id="sheet-view"' in first and 'data-version="1"' in first
    assert "Manche 1" not in first  # a watcher gets no entry form
    assert "Manche" in first  # French, as the page that opened it
    assert 'name="bid-1"' in await editor.receive_from(timeout=3)

    ann = await database_sync_to_async(lambda: sheet.created_by)()
    await database_sync_to_async(actions.save_bids)(ann, sheet.token, 1, 1, 1, {1: 1, 2: 0})
    pushed = await watcher.receive_from(timeout=3)
    assert 'data-version="2"' in pushed and 'data-player="ann" data-bid="1"' in pushed
    assert 'name="tricks-1"' in await editor.receive_from(timeout=3)

    line = ResultLine(1, rules.Captures(black_14=1), 0)
    await database_sync_to_async(actions.save_results)(
        ann, sheet.token, 2, 1, {1: line, 2: ResultLine(0, rules.Captures(), 0)}
    )
    pushed = await watcher.receive_from(timeout=3)
    assert 'data-player="ann" data-bid="1" data-tricks="1" data-total="40"' in pushed
    assert 'name="bid-1"' in await editor.receive_from(timeout=3)

    # A device that lost its socket meanwhile gets the sheet as it is on reconnecting.
    await watcher.disconnect()
    await database_sync_to_async(actions.save_bids)(ann, sheet.token, 3, 2, 2, {1: 0, 2: 2})
    assert 'data-version="4"' in await editor.receive_from(timeout=3)
    again = await connect(path + "?lang=fr", dee_cookie)
    snapshot = await again.receive_from(timeout=3)
    assert 'data-version="4"' in snapshot and 'data-player="Zoé" data-bid="2"' in snapshot
    for comm in (again, editor):
        await comm.disconnect()
