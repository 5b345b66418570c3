"""Logs as JSON lines (``pbem --log-json``), for a log collector: one object per line with
the time (UTC), level, logger and message, and ``game``, ``seat`` and ``mail`` on every line
written while a mail is being handled (`about_mail`) or given them as ``extra``. A SEAT line
that slipped into a message is redacted: a secret never reaches the log."""

from __future__ import annotations

import json
import logging
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timezone
from typing import Any, Iterator

from pbem.service.atrest import redact_text

FIELDS = ("game", "seat", "mail")
_MAIL: ContextVar[dict[str, Any]] = ContextVar("pbem_mail", default={})


@contextmanager
def about_mail(**fields: Any) -> Iterator[dict[str, Any]]:
    """Lines logged inside carry these fields; the dict yielded may be filled in later
    (the game and seat are known only once the mail was read)."""
    current = {**_MAIL.get(), **{k: v for k, v in fields.items() if v is not None}}
    token = _MAIL.set(current)
    try:
        yield current
    finally:
        _MAIL.reset(token)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(), "logger": record.name,
            "message": redact_text(record.getMessage(), []),
        }
        for key, value in _MAIL.get().items():
            if value is not None:
                out[key] = value
        for key in FIELDS:
            value = getattr(record, key, None)
            if value is not None:
                out[key] = value
        if record.exc_info:
            out["exception"] = redact_text(self.formatException(record.exc_info), [])
        return json.dumps(out, ensure_ascii=False, default=str)
