"""The outbox: every mail we send is first a row, written in the same transaction
as the change it reports, with its Message-ID and bytes fixed at that moment.

`drain` sends due rows and marks each after its own 250.  Transient failures back
off exponentially; permanent ones fail the row.  A crash between the server's 250
and our commit re-sends one mail with the same Message-ID: the one documented
duplicate (see docs/mail.md).
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import Sequence

from sqlmodel import Session, col, select

from pbem.config import parse_duration
from pbem.db.models import OutboxMail
from pbem.errors import MailPermanentError, MailTransientError
from pbem.faults import checkpoint
from pbem.mail.transport import Outgoing, SendResult
from pbem.service.context import Context

log = logging.getLogger(__name__)

_MIN_ATTEMPTS = 5


def enqueue(session: Session, ctx: Context, *, message_id: str, raw: bytes, recipients: Sequence[str],
            subject: str, kind: str, game_id: str | None) -> OutboxMail:
    row = OutboxMail(message_id=message_id, game_id=game_id, kind=kind, mail_from=ctx.config.server.bounce_address,
                     recipients_json=json.dumps(list(recipients)), subject=subject, raw=raw, status="queued",
                     next_attempt_at=ctx.now(), created_at=ctx.now())
    session.add(row)
    return row


def pending(ctx: Context, limit: int = 100) -> list[OutboxMail]:
    with ctx.session() as s:
        stmt = (select(OutboxMail).where(OutboxMail.status == "queued")
                .where(col(OutboxMail.next_attempt_at) <= ctx.now())
                .order_by(col(OutboxMail.id)).limit(limit))
        return list(s.exec(stmt))


def _backoff(ctx: Context, attempts: int) -> timedelta:
    first = parse_duration(ctx.config.outbox.retry_first)
    cap = parse_duration(ctx.config.outbox.retry_max)
    delay = first
    for _ in range(max(attempts - 1, 0)):  # doubling, stopped at the cap (2**n would overflow)
        if delay >= cap:
            break
        delay *= 2
    return min(delay, cap)


def _record(ctx: Context, row_id: int, status: str, error: str = "", retry: bool = False) -> None:
    with ctx.session() as s:
        row = s.get(OutboxMail, row_id)
        if row is None:
            return
        now = ctx.now()
        row.attempts += 1
        row.last_error = error
        if status == "sent":
            row.status, row.sent_at = "sent", now
        elif retry:
            created = row.created_at or now
            # Give up only on a mail that was really tried, not one that waited while we were down.
            if row.attempts >= _MIN_ATTEMPTS and now - created >= parse_duration(ctx.config.outbox.give_up):
                row.status = "failed"
                log.error("outbox %s: giving up after %d attempts: %s", row.message_id, row.attempts, error)
            else:
                row.next_attempt_at = now + _backoff(ctx, row.attempts)
        else:
            row.status = "failed"
        s.add(row)
        s.commit()


async def drain(ctx: Context, outgoing: Outgoing, limit: int = 100) -> int:
    """Send what is due; returns how many rows were sent."""
    sent = 0
    for row in pending(ctx, limit):
        assert row.id is not None
        recipients = json.loads(row.recipients_json)
        try:
            result = await outgoing.send(row.mail_from, recipients, row.raw)
        except MailTransientError as exc:
            log.warning("outbox %s: temporary failure: %s", row.message_id, exc)
            _record(ctx, row.id, "queued", str(exc), retry=True)
            break  # the server is unwell: try the rest later
        except MailPermanentError as exc:
            log.error("outbox %s: permanent failure: %s", row.message_id, exc)
            _record(ctx, row.id, "failed", str(exc))
            continue
        checkpoint("outbox.after-send")
        if result.all_sent:
            _record(ctx, row.id, "sent")
            sent += 1
        elif result.transient:
            _record(ctx, row.id, "queued", _summary(result), retry=True)
        else:
            # One recipient a row: it was refused for good.
            _record(ctx, row.id, "failed", _summary(result))
    return sent


def _summary(result: SendResult) -> str:
    return "; ".join(f"{rcpt}: {r.code} {r.text}" for rcpt, r in result.recipients.items())
