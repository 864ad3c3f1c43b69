"""Server settings for the computer players' socket tests (issue 48): config.settings with
the test hasher (tests.support.browser_settings) and a presence heartbeat from the
environment, so that "away" is reached in a second or two instead of a minute."""

import os

from tests.support.browser_settings import *  # noqa: F403

PRESENCE_HEARTBEAT_SECONDS = float(os.environ.get("PRESENCE_HEARTBEAT_SECONDS", "10"))
