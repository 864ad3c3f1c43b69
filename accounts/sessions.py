"""Sessions read from the cache, kept in the database, working while the cache is down.

Django's cached_db store reads a session from the cache first (no query on most
requests) but, when the cache cannot be reached, fails the whole request: its
fallback to the database then writes the cache again, unguarded. The database
holds every session anyway, so here a cache failure costs a query and a log
line, never the page (a player keeps playing through a Redis restart).
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.sessions.backends import cached_db, db

log = logging.getLogger("django.contrib.sessions")


class SessionStore(cached_db.SessionStore):
    def load(self) -> dict[str, Any]:
        try:
            return super().load()
        except Exception:
            log.warning("session cache unreachable: read from the database", exc_info=True)
            return db.SessionStore.load(self)

    def exists(self, session_key: str) -> bool:
        try:
            return super().exists(session_key)
        except Exception:
            log.warning("session cache unreachable: checked in the database", exc_info=True)
            return db.SessionStore.exists(self, session_key)

    def delete(self, session_key: str | None = None) -> None:
        try:
            super().delete(session_key)
        except Exception:
            log.warning("session cache unreachable: deleted from the database", exc_info=True)
            db.SessionStore.delete(self, session_key)
