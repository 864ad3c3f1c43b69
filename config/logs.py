"""Log lines that say who and where: request id, user id and table id on every line.

The ids live in context variables, bound once per HTTP request (by
config.middleware.RequestContextMiddleware) and once per websocket connection
(by config.middleware.SocketContextMiddleware); ContextFilter copies them onto
every log record, so a warning logged deep inside an action carries them too.
Under ASGI every request and every socket runs in its own asyncio task, and
asgiref copies the context into the threads that run sync code, so the ids never
leak from one request to another.

Two formats, chosen by LOG_FORMAT in the settings: ``text`` (the default, for a
terminal) and ``json`` (one JSON object per line, for production log collectors).
Both include the traceback of a record logged with exc_info.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
user_id: ContextVar[int | None] = ContextVar("user_id", default=None)
table_id: ContextVar[int | None] = ContextVar("table_id", default=None)
# The HTTP request being served, read lazily: its user is known only once the
# session was loaded, and the table only once the URL was resolved.
lazy_ids: ContextVar[Callable[[], tuple[int | None, int | None]] | None] = ContextVar(
    "lazy_ids", default=None
)

CONTEXT_FIELDS = ("request_id", "user_id", "table_id")
# Attributes every LogRecord has; anything else on a record came from ``extra``.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "fields",
    *CONTEXT_FIELDS,
}

socket_log = logging.getLogger("skullking.socket")


def current_ids() -> tuple[str | None, int | None, int | None]:
    """(request id, user id, table id) of the request or socket being served."""
    user, table = user_id.get(), table_id.get()
    resolve = lazy_ids.get()
    if resolve is not None and (user is None or table is None):
        lazy_user, lazy_table = resolve()
        user = user if user is not None else lazy_user
        table = table if table is not None else lazy_table
    return request_id.get(), user, table


class ContextFilter(logging.Filter):
    """Puts request_id, user_id and table_id on every record (unless given in ``extra``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = dict(zip(CONTEXT_FIELDS, current_ids(), strict=True))
        for name, value in ids.items():
            if getattr(record, name, None) is None:
                setattr(record, name, value)
        return True


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The record's own fields: ``fields={...}`` and any other ``extra`` key."""
    fields = {key: value for key, value in vars(record).items() if key not in _RECORD_ATTRIBUTES}
    given = getattr(record, "fields", None)
    if isinstance(given, dict):
        fields.update(given)
    return fields


class TextFormatter(logging.Formatter):
    """``2026-01-02 10:11:12,345 INFO skullking.request [req=.. user=3 table=7] GET ... k=v``"""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(context)s%(message)s%(tail)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = [
            f"{short}={value}"
            for short, name in (("req", "request_id"), ("user", "user_id"), ("table", "table_id"))
            if (value := getattr(record, name, None)) is not None
        ]
        record.context = f"[{' '.join(ids)}] " if ids else ""
        fields = extra_fields(record)
        for shown in ("context", "tail", "event"):  # "event" is already in the message
            fields.pop(shown, None)
        record.tail = "".join(f" {key}={value}" for key, value in fields.items())
        return super().format(record)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the ids, fields, traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in CONTEXT_FIELDS:
            line[name] = getattr(record, name, None)
        for key, value in extra_fields(record).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str)


def log_socket_event(event: str, user_id: int | None, table_id: int | None, **fields: Any) -> None:
    """One line for a websocket event: ``log_socket_event("snapshot", user.pk, table.pk, n=3)``.

    The socket's request id (its handshake's X-Request-ID) is added by ContextFilter.
    """
    socket_log.info(
        "socket %s",
        event,
        extra={"user_id": user_id, "table_id": table_id, "event": event, "fields": fields},
    )


def logging_config(level: str, log_format: str) -> dict[str, Any]:
    """The LOGGING setting: one console handler, the ids on every line, text or JSON."""
    if log_format not in {"text", "json"}:
        raise ValueError(f"LOG_FORMAT must be 'text' or 'json', not {log_format!r}")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "config.logs.ContextFilter"}},
        "formatters": {
            "text": {"()": "config.logs.TextFormatter"},
            "json": {"()": "config.logs.JsonFormatter"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "filters": ["context"],
                "formatter": log_format,
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Our own line per request replaces django.request's 4xx warnings;
            # its errors (a 500's traceback) stay.
            "django.request": {"level": "ERROR"},
            # daphne's own per-request access lines would double ours.
            "django.channels.server": {"level": "WARNING"},
        },
    }
