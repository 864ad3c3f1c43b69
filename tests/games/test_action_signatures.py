"""Every action keeps its own signature through ``_atomic_action`` (issue 15).

The decorator used to return ``Callable[..., Any]``, so mypy accepted any call
of any action. mypy checks a call with a wrong argument here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.play import actions

ROOT = Path(__file__).resolve().parents[2]


def test_the_decorated_actions_keep_their_names_and_docs() -> None:
    assert actions.place_bid.__name__ == "place_bid"
    assert actions.leave_table.__doc__ and "confirmed" in actions.leave_table.__doc__
    assert actions.place_bid.__wrapped__.__name__ == "place_bid"  # type: ignore[attr-defined]


def test_mypy_sees_each_actions_real_signature(tmp_path: Path) -> None:
    snippet = tmp_path / "calls.py"
    snippet.write_text(
        "from games.play import actions\n"
        "actions.place_bid(None, 1, 2, 3)\n"  # right
        'actions.place_bid(None, "one", 2, 3)\n'  # the table id is an int
        "actions.play_card(None, 1, 2)\n"  # the card is missing
    )
    mypy = [sys.executable, "-m", "mypy", "--follow-imports=silent"]
    mypy += ["--ignore-missing-imports", "--no-incremental", str(snippet)]
    done = subprocess.run(mypy, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if "No module named mypy" in done.stderr:
        pytest.fail("mypy is a development dependency: install requirements-dev.lock")
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["3", "4"], done.stdout
    assert '"place_bid"' in errors[0] and '"play_card"' in errors[1]
