"""How many examples a Hypothesis property runs: today's full count, or a tenth of it.

The profiles are registered in tests/conftest.py. ``HYPOTHESIS_PROFILE=thorough``
(CI's thorough run) gives every property its full count; the default profile (what
``make test`` runs) a tenth of it, at least 20, so the properties stay in the quick
run without dominating it::

    @settings(max_examples=examples(1500))
"""

from __future__ import annotations

from hypothesis import settings

THOROUGH = "thorough"


def examples(thorough: int, default: int | None = None) -> int:
    """``thorough`` under the thorough profile, else ``default`` (a tenth, at least 20)."""
    if settings.get_current_profile_name() == THOROUGH:
        return thorough
    return default if default is not None else max(thorough // 10, 20)
