"""A mail is on record before any work on it starts, so that no mail runs twice after
it went wrong.

`receive` writes (and commits) a row keyed by the digest of the mail's bytes, with the
status ``processing``, before the mail is read at all; `pbem.service.inbound.handle` then
fills that very row. If the daemon dies meanwhile, the mail comes back from the mail
server under the same digest: it gets one more try (``retrying``) — a kill -9 under load
must not lose an order — and a mail found ``retrying`` was there at two deaths: it is
recorded as ``error`` and never read again. A mail over its time budget
(`pbem.service.budget`) is recorded as ``error`` at once, and so is never read again either.

Such a mail, and a mail over the size limit (never downloaded), is answered once, and only
when its From is the address of a registered player: the answer is a stranger's (nobody
checked that the player sent it), so it spends the strangers' budget, never the player's.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.db import direct
from pbem.db.models import InboundMail, Player
from pbem.mail.address import parse_from
from pbem.service import limits, mailer
from pbem.service.context import Context
from pbem.service.replies import Handled
from pbem.service.texts import t

log = logging.getLogger(__name__)

PROCESSING, RETRYING = "processing", "retrying"
#: How much of a mail's head is searched for its From when the mail itself is not read.
HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class Receipt:
    """What `receive` found: ``row_id`` to hand to `inbound.handle`, or a final ``handled``."""

    row_id: int | None
    handled: Handled | None = None
    received_at: datetime | None = None  # the row's time, for `inbound.handle`


#: A new mail's receipt row (built once, run as core on the session's connection: the ORM's
#: unit of work, and its bulk-insert path, cost more than the INSERT).
_RECEIVE = (insert(InboundMail).values(dedupe_key=bindparam("key"), message_id="", sender="", subject="",
                                       size=bindparam("size"), received_at=bindparam("at"), status=PROCESSING, note="")
            .returning(col(InboundMail.id)))


def receipt_key(raw: bytes) -> str:
    return "receipt:" + hashlib.sha256(raw).hexdigest()


def receive(ctx: Context, raw: bytes) -> Receipt:
    """Put the mail on record before reading it (see the module's docstring)."""
    key = receipt_key(raw)
    with ctx.session() as session:
        # a new mail (the usual case) is one INSERT; its key taken, the row on record decides
        try:
            at = ctx.now()
            row_id = direct.rows(session.connection(), _RECEIVE, {"key": key, "size": len(raw), "at": at})[0][0]
            session.commit()
            return Receipt(row_id, received_at=at)
        except IntegrityError:
            session.rollback()
        found = session.exec(select(InboundMail).where(InboundMail.dedupe_key == key)).first()
        if found is None:  # the row on record was a receipt, dropped meanwhile: this one is new after all
            row = InboundMail(dedupe_key=key, size=len(raw), received_at=ctx.now(), status=PROCESSING)
        elif (row := found).status == PROCESSING:
            log.warning("inbound mail %s was being processed when the daemon stopped: one more try", row.id)
            row.status = RETRYING
        elif row.status == RETRYING:
            row.status, row.note = "error", "the daemon stopped twice while processing it: not read again"
            log.error("inbound mail %s: %s", row.id, row.note)
            session.add(row)
            session.commit()
            return Receipt(None, Handled("error", row.note, None, row.id))
        else:
            return Receipt(None, Handled("duplicate", "already processed", row.game_id, row.id))
        session.add(row)
        session.commit()
        return Receipt(row.id, received_at=row.received_at)


def forget(session: Session, row_id: int | None) -> None:
    """The mail turned out to be one already on record under its own key: drop the receipt."""
    if row_id is None:
        return
    row = session.get(InboundMail, row_id)
    if row is not None and row.status in (PROCESSING, RETRYING):
        session.delete(row)


def head_sender(head: bytes) -> str | None:
    """The From address of a mail that is not read: from its first ``HEAD_BYTES``, one
    bounded pass; None unless exactly one address can be read."""
    text = head[:HEAD_BYTES].replace(b"\r\n", b"\n").partition(b"\n\n")[0].decode("utf-8", "replace")
    values: list[str] = []
    for line in text.split("\n"):
        if line[:1] in (" ", "\t") and values:
            values[-1] += " " + line.strip()
        elif line[:5].lower() == "from:":
            values.append(line[5:].strip())
        elif values and line[:1] not in (" ", "\t"):
            values.append("")  # another header: a later From would be a second one
    froms = [v[:998] for v in values if v]
    if len(froms) != 1:
        return None
    address = (parse_from(froms).address or "").strip().lower()
    return address if "@" in address else None


def tell_registered(session: Session, ctx: Context, address: str | None, subject_key: str, text_key: str,
                    **args: object) -> str:
    """Tell ``address`` once, when it is a registered player's; returns a note for the record."""
    if not address:
        return "no sender address could be read"
    player = session.exec(select(Player).where(Player.address == address)).first()
    if player is None:
        return f"{address[:80]} is not a registered player: not answered"
    lang = player.language
    if not limits.allow(session, ctx, address, limits.STRANGER):
        return f"{address[:80]} told already (the strangers' limits)"
    mailer.queue(session, ctx, to=address, subject=mailer.subject(None, t(subject_key, lang), None, lang),
                 text=t(text_key, lang, **args), kind=limits.STRANGER, game=None, auto_submitted="auto-replied")
    return f"{address[:80]} told"


def over_budget(ctx: Context, row_id: int, raw: bytes, reason: str) -> Handled:
    """The mail could not be read within its budget: recorded as an error, never read again."""
    with ctx.session() as session:
        row = session.get(InboundMail, row_id)
        assert row is not None
        told = tell_registered(session, ctx, head_sender(raw), "subject.refused", "reply.over_budget", reason=reason)
        row.status, row.note = "error", f"over budget: {reason}; {told}"[:2000]
        session.add(row)
        session.commit()
        log.warning("inbound mail %s: %s", row_id, row.note)
        return Handled("error", row.note, None, row.id)


def record_oversized(ctx: Context, uid: int, uidvalidity: int, size: int, head: bytes | None = None) -> Handled:
    """A mail above the size limit is never downloaded: record it once, and tell its From
    (read from ``head``, the header the inbox fetched) when that is a registered player."""
    key = f"oversized:{uidvalidity}:{uid}:{size}"
    with ctx.session() as session:
        if session.exec(select(InboundMail).where(InboundMail.dedupe_key == key)).first():
            return Handled("duplicate", "already recorded")
        sender = head_sender(head) if head else None
        told = tell_registered(session, ctx, sender, "subject.refused", "reply.oversized", size=size,
                               limit=ctx.config.mail.max_size)
        row = InboundMail(dedupe_key=key, size=size, received_at=ctx.now(), status="refused", sender=sender or "",
                          note=f"larger than the limit ({size} bytes): not fetched; {told}"[:2000])
        session.add(row)
        session.commit()
        log.warning("mail uid %s of %d bytes is over the size limit: not fetched (%s)", uid, size, told)
        return Handled("refused", row.note, None, row.id)
