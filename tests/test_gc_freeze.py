"""The server process keeps what its startup made out of the garbage collector (config.asgi).

Issue 9: a full collection walked every object of the process, most of them made at
startup and never freed, and stopped every move in flight for about 77 ms. Checked in
a fresh interpreter, as a server starts: importing the ASGI application loads the
views and the regions' templates, then freezes all of it.
"""

from __future__ import annotations

import json
import os

from tests.support.servers import python_said

READ_GC = """
import gc, json
import config.asgi
from games.pages import regions
from games.play import views
seats = regions.template("seats")
# Imported by the controls at game over only: compiled at startup all the same.
rematch = regions.jinja_environment().get_template("games/regions/_rematch.jinja")
walked = gc.get_objects()
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "walked": len(walked),
    "template_walked": any(o is seats for o in walked),
    "partial_walked": any(o is rematch for o in walked),
    "views_walked": any(o is views.play_card for o in walked),
}))
"""


def test_a_full_collection_skips_what_the_server_loaded_at_startup() -> None:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    gc_state = json.loads(python_said(READ_GC, environment))
    # Loaded before the freeze: a region's compiled template, the pieces the regions
    # import, the views.
    assert not gc_state["template_walked"]
    assert not gc_state["partial_walked"]
    assert not gc_state["views_walked"]
    # What a full collection still walks is a small part of the process.
    assert gc_state["frozen"] > 10 * gc_state["walked"]
