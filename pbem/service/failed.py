"""Mail that went wrong, for the administrator: inbound mail stored as ``error`` (``pbem
mail failed`` / ``pbem mail retry ID``) and outbound rows given up on purpose (``pbem
outbox drop``).

A retried inbound mail gets one more reading: the mail is marked unread again on the IMAP
server, where the daemon fetches it on its next cycle and reads it as a new mail, on a record
of its own. The failed row is kept, marked ``retried``, its dedupe key set aside (under its
key the new reading would be taken for a duplicate and dropped). The stored copy is never
re-read: it is redacted (no secrets at rest), the mailbox keeps the original.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Sequence

from sqlmodel import col, select

from pbem.db.models import InboundMail, OutboxMail
from pbem.errors import NotFoundError, UserError
from pbem.service.context import Context

log = logging.getLogger(__name__)

#: A failed inbound mail whose retry was asked for: final, its key set aside (see the module's notes).
RETRIED = "retried"


def inbound_failed(ctx: Context, limit: int = 50) -> list[InboundMail]:
    with ctx.session() as s:
        return list(s.exec(select(InboundMail).where(InboundMail.status == "error")
                           .order_by(col(InboundMail.id).desc()).limit(limit)))


def _unseen_again(ctx: Context, message_id: str) -> int:
    """Clear \\Seen on the mailbox's copies of ``message_id``; returns how many."""
    from pbem.app import App

    async def run() -> int:
        app = App.from_config(ctx.config, ctx)
        inbox: Any = app.inbox
        await inbox.connect()
        try:
            async def unflag(client: Any) -> int:
                found = await client.uid_search(f'HEADER Message-ID "{message_id}"')
                uids = [u for line in found.lines[:1] for u in line.decode().split() if u.isdigit()]
                for uid in uids:
                    await client.uid("store", uid, "-FLAGS", "(\\Seen)")
                return len(uids)

            return int(await inbox._run(unflag, "mark the mail unread again"))
        finally:
            await inbox.close()

    return asyncio.run(run())


def inbound_retry(ctx: Context, row_id: int) -> str:
    with ctx.session() as s:
        row = s.get(InboundMail, row_id)
        if row is None:
            raise NotFoundError(f"no inbound mail {row_id} (see `pbem mail failed`)")
        if row.status != "error":
            raise UserError(f"inbound mail {row_id} is {row.status!r}, not an error: nothing to retry")
        if not row.message_id or any(c in row.message_id for c in '"\\\r\n'):
            raise UserError(f"inbound mail {row_id} has no Message-ID on record (it was never read: the daemon "
                            "stopped on it twice, or it ran over its time budget), so it cannot be found in the "
                            "mailbox again: ask the sender to send it again")
        row.status = RETRIED
        row.note = f"retry asked by the administrator: read again as a new mail (was: {row.note})"[:2000]
        row.dedupe_key = f"{RETRIED}:{row.id}:{row.dedupe_key}"[:255]
        s.add(row)
        s.commit()
        message_id = row.message_id
    found = _unseen_again(ctx, message_id)
    log.info("inbound mail %d queued for one more reading (%d copy(ies) in the mailbox)", row_id, found)
    if not found:
        return (f"inbound mail {row_id} will be read once more, but the mailbox no longer has it: "
                "ask the sender to send it again")
    return f"inbound mail {row_id} will be read once more on the daemon's next cycle"


def outbox_drop(ctx: Context, message_ids: Sequence[str]) -> list[OutboxMail]:
    """Give up on queued or failed mails (never on a sent one); they stay listed as dropped."""
    if not message_ids:
        raise UserError("name the Message-IDs to drop (see `pbem outbox list`)")
    dropped = []
    with ctx.session() as s:
        for mid in message_ids:
            row = s.exec(select(OutboxMail).where(OutboxMail.message_id == mid)).first()
            if row is None:
                raise NotFoundError(f"no outgoing mail {mid}")
            if row.status not in ("queued", "failed"):
                raise UserError(f"{mid} is {row.status}: only queued or failed mail can be dropped")
            row.status, row.last_error = "dropped", ("dropped by the administrator; " + row.last_error)[:2000]
            s.add(row)
            dropped.append(row)
        s.commit()
    return dropped
