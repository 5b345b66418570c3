"""Reading the outbox in service tests."""

from __future__ import annotations

import json

from sqlmodel import col, func, select

from pbem.db.models import OutboxMail
from pbem.service.context import Context
from tests.support.players import attachments, body_text, parse


RED, BLUE = "red@example.org", "blue@example.org"


def outbox(ctx: Context, to: str | None = None, kind: str | None = None, after: int = 0) -> list[OutboxMail]:
    """The outbox's rows after id ``after``, in id order, to ``to`` and of ``kind`` when given.

    Both filters are also put to the database, so that only the rows that may match are read: a
    row's ``raw`` is decrypted as it is loaded, and a whole game's tests ask for the reports of one
    address after every phase (most of their time went on decrypting the rows thrown away). The
    recipient's test in SQL is a ``LIKE`` that any row to ``to`` passes; the exact one stays below."""
    query = select(OutboxMail).where(col(OutboxMail.id) > after)
    if kind is not None:
        query = query.where(col(OutboxMail.kind) == kind)
    if to is not None and to.isascii() and '"' not in to and "\\" not in to:  # as json.dumps writes it
        query = query.where(col(OutboxMail.recipients_json).contains(f'"{to}"', autoescape=True))
    with ctx.session() as s:
        rows = list(s.exec(query.order_by(col(OutboxMail.id))))
    if to is not None:
        rows = [r for r in rows if to in json.loads(r.recipients_json)]
    if kind is not None:
        rows = [r for r in rows if r.kind == kind]
    return rows


def last_id(ctx: Context) -> int:
    """The outbox's last id (0 when empty): read alone, not with every row's decrypted ``raw``."""
    with ctx.session() as s:
        return s.exec(select(func.max(OutboxMail.id))).one() or 0


def text_of(row: OutboxMail) -> str:
    return body_text(parse(row.raw))


def files_of(row: OutboxMail) -> dict[str, bytes]:
    return attachments(parse(row.raw))
