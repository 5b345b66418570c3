"""The last loop breaker: how many answers one address, and everybody, may get in an hour.

Counted from the outbox (the truth of what we sent or are about to send): rows of the
kinds that answer a mail — ``reply`` and ``refusal`` — created in the last hour, rows of
this very transaction included (the session flushes before it counts). Reports,
welcomes, reminders and notices are what a game sends its seats on its own schedule and
are never limited.

``limits.per_sender_per_hour`` caps the answers to one address, ``limits.global_per_hour``
the answers to everybody; a limit of 0 means no answers at all.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.db.models import OutboxMail
from pbem.service.context import Context

__all__ = ["LIMITED_KINDS", "WINDOW", "allow_reply", "replies_in_window"]

log = logging.getLogger(__name__)

#: The outbox kinds that answer a mail (and so could feed a loop).
LIMITED_KINDS = ("reply", "refusal")
WINDOW = timedelta(hours=1)


def replies_in_window(session: Session, ctx: Context, address: str | None = None) -> int:
    """Answers queued in the last hour: to ``address`` (case-insensitive), or to anybody."""
    since = ctx.now() - WINDOW
    base = (col(OutboxMail.kind).in_(LIMITED_KINDS), col(OutboxMail.created_at) > since)
    if address is None:
        count = session.exec(select(func.count()).select_from(OutboxMail).where(*base)).one()
        return int(count)
    want = address.strip().lower()
    rows = session.exec(select(OutboxMail.recipients_json).where(*base))
    total = 0
    for recipients_json in rows:
        try:
            recipients = json.loads(recipients_json)
        except ValueError:
            continue
        if any(str(r).strip().lower() == want for r in recipients):
            total += 1
    return total


def allow_reply(session: Session, ctx: Context, address: str) -> bool:
    """May we answer ``address`` now? False — and a log line — when the per-sender or the
    global hourly limit is reached. Call it before queueing a reply or a refusal."""
    limits = ctx.config.limits
    everybody = replies_in_window(session, ctx)
    if everybody >= limits.global_per_hour:
        log.warning("reply to %s suppressed: %d answers in the last hour reach the global limit (%d)",
                    address, everybody, limits.global_per_hour)
        return False
    to_sender = replies_in_window(session, ctx, address)
    if to_sender >= limits.per_sender_per_hour:
        log.warning("reply to %s suppressed: %d answers to this address in the last hour reach the limit (%d)",
                    address, to_sender, limits.per_sender_per_hour)
        return False
    return True
