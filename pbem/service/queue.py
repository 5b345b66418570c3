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

from sqlalchemy import bindparam, case, func, update
from sqlalchemy.dialects.postgresql import insert
from sqlmodel import col, select

from pbem.db.models import InboundMail
from pbem.service import atrest, wakeup
from pbem.service.claims import INBOUND, Claims, first_free
from pbem.service.context import Context
from pbem.service.receipt import PROCESSING, RETRYING, receipt_key
from pbem.service.replies import Handled

log = logging.getLogger(__name__)

STORED = "stored"
WAITING = (STORED, PROCESSING, RETRYING)
#: Why a mail found ``retrying`` is not read again.
TWICE = "the worker stopped twice while processing it: not read again"

#: The statements of a mail's way through the queue, made once; the table's own columns, each
#: statement one round trip on the claims' autocommit connection (`Claims.execute`) instead of
#: a session's (a pooled connection's check, BEGIN, the statements, COMMIT).
_TABLE = InboundMail.__table__  # type: ignore[attr-defined]
_KNOWN = select(_TABLE.c.id, _TABLE.c.status, _TABLE.c.game_id).where(_TABLE.c.dedupe_key == bindparam("key"))
_WAITING = first_free(INBOUND, select(_TABLE.c.id).where(_TABLE.c.status.in_(WAITING)).order_by(_TABLE.c.id).limit(64))
#: The claimed mail read again and marked at once: stored -> processing; processing (its worker
#: died) -> retrying, one more try; retrying (two deaths) -> error, its bytes dropped. The new
#: status says which, as the old one did.
_MARK = (update(_TABLE).where(_TABLE.c.id == bindparam("row_id"), _TABLE.c.status.in_(WAITING),
                              _TABLE.c.held.is_not(None))
         .values(status=case((_TABLE.c.status == STORED, PROCESSING), (_TABLE.c.status == PROCESSING, RETRYING),
                             else_="error"),
                 held=case((_TABLE.c.status == RETRYING, None), else_=_TABLE.c.held),
                 note=case((_TABLE.c.status == RETRYING, TWICE), else_=_TABLE.c.note))
         .returning(_TABLE.c.status, _TABLE.c.held))
#: A new mail: its row, and the NOTIFY that wakes the other workers, in one transaction (a
#: mail on record already inserts nothing and wakes nobody).
_NEW = (insert(_TABLE).values({c.name: bindparam(f"new_{c.name}", type_=c.type) for c in _TABLE.c if c.name != "id"})
        .on_conflict_do_nothing(index_elements=[_TABLE.c.dedupe_key]).returning(_TABLE.c.id).cte("stored"))
_STORE = select(_NEW.c.id, func.pg_notify(wakeup.CHANNEL, ""))
#: The handled mail's sealed copy dropped, and its claim with it once the row is locked by this
#: UPDATE: a worker claiming it meanwhile marks it only after this commits (its UPDATE waits
#: for the row), and then finds it handled (`_MARK` reads the row as committed).
_DROP = update(_TABLE).where(_TABLE.c.id == bindparam("row_id")).values(held=None)
_GONE = update(_TABLE).where(_TABLE.c.id == bindparam("row_id")).values(held=None).returning(_TABLE.c.id).cte("gone")
_DONE = select(func.pg_advisory_unlock(INBOUND, _GONE.c.id))


def new_row(ctx: Context, raw: bytes) -> dict[str, object]:
    """The parameters of `_STORE` for ``raw``: its row as the model makes it (every column's
    default), to be inserted by core, ``held`` sealed with the key at rest."""
    atrest.attach(ctx.engine, ctx.config)  # the key that seals ``held``
    row = InboundMail(dedupe_key=receipt_key(raw), size=len(raw), received_at=ctx.now(), status=STORED, held=raw)
    return {f"new_{c.name}": getattr(row, c.name) for c in _TABLE.c if c.name != "id"}


def store(ctx: Context, raw: bytes, claims: Claims | None = None) -> Handled | None:
    """Put the mail on record, to be handled by a worker (None); a mail on record already
    and handled is a duplicate. One statement: the row (the key's unique index the duplicate
    check) and the other workers' wake-up (`wakeup`), committed together."""
    key = receipt_key(raw)
    mine = claims if claims is not None else Claims(ctx.engine)
    try:
        if mine.execute(ctx, _STORE, new_row(ctx, raw)):
            return None
        known = mine.execute(ctx, _KNOWN, {"key": key})
    finally:
        if claims is None:
            mine.close()
    if not known or known[0][1] in WAITING:
        return None  # stored already: a worker has it or will
    return Handled("duplicate", "already processed", known[0][2], known[0][0])


def claim(ctx: Context, claims: Claims) -> tuple[int, bytes] | None:
    """The next stored mail for this worker, marked ``processing``; None: nothing to do."""
    atrest.attach(ctx.engine, ctx.config)  # the key that opens ``held``
    passed: set[int] = set()  # rows found not to be claimed after all: not tried again
    while (row_id := claims.take_first(ctx, INBOUND, _WAITING, passed)) is not None:
        marked = claims.execute(ctx, _MARK, {"row_id": row_id})
        if not marked or marked[0][0] == "error":
            if marked:
                log.error("inbound mail %s: %s", row_id, TWICE)
            claims.give_back(INBOUND, row_id)  # not marked: handled meanwhile by its holder
            passed.add(row_id)
            continue
        status, raw = marked[0]
        if status == RETRYING:
            log.warning("inbound mail %s was being processed when its worker stopped: one more try", row_id)
        return row_id, raw
    return None


def done(ctx: Context, claims: Claims, row_id: int) -> None:
    """The mail is handled (its row says how): drop the sealed copy and the claim."""
    if not claims.shared:
        try:
            claims.execute(ctx, _DROP, {"row_id": row_id})
        finally:
            claims.give_back(INBOUND, row_id)
        return
    released = False
    try:
        released = bool(claims.execute(ctx, _DONE, {"row_id": row_id}))  # one statement, the claim released
    finally:
        if released:
            claims.given_back(INBOUND, row_id)
        else:  # no row, or the statement failed: released on its own
            claims.give_back(INBOUND, row_id)
