"""Reading the outbox in service tests."""

from __future__ import annotations

import json

from sqlmodel import col, select

from pbem.db.models import OutboxMail
from pbem.service.context import Context
from tests.support.players import attachments, body_text, parse


RED, BLUE = "red@example.org", "blue@example.org"


def outbox(ctx: Context, to: str | None = None, kind: str | None = None, after: int = 0) -> list[OutboxMail]:
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail).where(col(OutboxMail.id) > after).order_by(col(OutboxMail.id))))
    if to is not None:
        rows = [r for r in rows if to in json.loads(r.recipients_json)]
    if kind is not None:
        rows = [r for r in rows if r.kind == kind]
    return rows


def last_id(ctx: Context) -> int:
    rows = outbox(ctx)
    return rows[-1].id or 0 if rows else 0


def text_of(row: OutboxMail) -> str:
    return body_text(parse(row.raw))


def files_of(row: OutboxMail) -> dict[str, bytes]:
    return attachments(parse(row.raw))
