"""Inbound mail on PostgreSQL, with several workers: stored first, handled by any worker.

The mailbox reader (`pbem.service.lease`) only stores each mail — a row under the digest of
its bytes (`pbem.service.receipt.receipt_key`), status ``stored``, the mail itself sealed in
``held`` — commits, and marks it \\Seen. Any worker then claims a stored mail
(`pbem.service.claims`), marks it ``processing`` and hands it to `pbem.service.inbound.handle`:
one transaction per mail under its dedupe key, as on SQLite. A mail found ``processing`` and
not claimed was in the hands of a worker that died: it gets one more try (``retrying``); found
``retrying``, it was there at two deaths, and is recorded as ``error`` and never read again —
the rules of `pbem.service.receipt`, with the database instead of the mailbox as the queue.
"""

from __future__ import annotations

import logging

from sqlalchemy import update
from sqlmodel import col, select

from pbem.db.models import InboundMail
from pbem.service import wakeup
from pbem.service.claims import INBOUND, Claims
from pbem.service.context import Context
from pbem.service.receipt import PROCESSING, RETRYING, receipt_key
from pbem.service.replies import Handled

log = logging.getLogger(__name__)

STORED = "stored"
WAITING = (STORED, PROCESSING, RETRYING)


def store(ctx: Context, raw: bytes) -> Handled | None:
    """Put the mail on record, to be handled by a worker (None); a mail on record already
    and handled is a duplicate."""
    key = receipt_key(raw)
    with ctx.session() as session:
        row = session.exec(select(InboundMail).where(InboundMail.dedupe_key == key)).first()
        if row is not None:
            if row.status in WAITING:
                return None  # stored already: a worker has it or will
            return Handled("duplicate", "already processed", row.game_id, row.id)
        session.add(InboundMail(dedupe_key=key, size=len(raw), received_at=ctx.now(), status=STORED, held=raw))
        wakeup.announce(session)  # the other workers claim it as soon as it is committed
        session.commit()
    return None


def claim(ctx: Context, claims: Claims) -> tuple[int, bytes] | None:
    """The next stored mail for this worker, marked ``processing``; None: nothing to do."""
    with ctx.session() as session:
        ids = [i for i in session.exec(select(InboundMail.id).where(col(InboundMail.status).in_(WAITING))
                                       .order_by(col(InboundMail.id)).limit(64)) if i is not None]
    for row_id in ids:
        if not claims.take(INBOUND, row_id):
            continue  # another worker handles it
        with ctx.session() as session:
            row = session.get(InboundMail, row_id)
            if row is None or row.status not in WAITING or row.held is None:
                claims.give_back(INBOUND, row_id)
                continue
            if row.status == RETRYING:
                row.status, row.held = "error", None
                row.note = "the worker stopped twice while processing it: not read again"
                log.error("inbound mail %s: %s", row.id, row.note)
            elif row.status == PROCESSING:
                log.warning("inbound mail %s was being processed when its worker stopped: one more try", row.id)
                row.status = RETRYING
            else:
                row.status = PROCESSING
            raw, status = row.held or b"", row.status
            session.add(row)
            session.commit()
        if status == "error":
            claims.give_back(INBOUND, row_id)
            continue
        return row_id, raw
    return None


def done(ctx: Context, claims: Claims, row_id: int) -> None:
    """The mail is handled (its row says how): drop the sealed copy and the claim."""
    try:
        with ctx.session() as session:
            session.execute(update(InboundMail).where(col(InboundMail.id) == row_id).values(held=None))
            session.commit()
    finally:
        claims.give_back(INBOUND, row_id)
