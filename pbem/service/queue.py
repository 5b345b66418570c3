"""Inbound mail on PostgreSQL, with several workers: stored first, handled by any worker.

The mailbox reader (`pbem.service.lease`) only stores each mail — a row under the digest of
its bytes (`pbem.service.receipt.receipt_key`), status ``stored``, the mail itself sealed in
``held`` — commits, and marks it \\Seen. Any worker then claims a stored mail
(`pbem.service.claims`), marks it ``processing`` and hands it to `pbem.service.inbound.handle`:
one transaction per mail under its dedupe key, as on SQLite. A worker claims a few stored
mails at once (`BATCH`: one statement claims them, one marks them, one gives them back once
handled, instead of three a mail); a mail it gives back untried (it was stopped first) is
marked as it was before, not counted as a try. A mail found ``processing`` and
not claimed was in the hands of a worker that died: it gets one more try (``retrying``); found
``retrying``, it was there at two deaths, and is recorded as ``error`` and never read again —
the rules of `pbem.service.receipt`, with the database instead of the mailbox as the queue.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from sqlalchemy import bindparam, case, text, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import select

from pbem.db.models import InboundMail
from pbem.service import atrest, wakeup
from pbem.service.claims import INBOUND, Claims, first_free
from pbem.service.context import Context
from pbem.service.receipt import PROCESSING, RETRYING, receipt_key
from pbem.service.replies import Handled

log = logging.getLogger(__name__)

STORED = "stored"
#: The statuses of a mail waiting for a worker (the partial index `ix_inbound_waiting` lists them:
#: `pbem.db.models.WAITING_MAIL`).
WAITING = (STORED, PROCESSING, RETRYING)
#: Why a mail found ``retrying`` is not read again.
TWICE = "the worker stopped twice while processing it: not read again"

#: The statements of a mail's way through the queue, made once; the table's own columns, each
#: statement one round trip on the claims' autocommit connection (`Claims.execute`) instead of
#: a session's (a pooled connection's check, BEGIN, the statements, COMMIT).
_TABLE = InboundMail.__table__  # type: ignore[attr-defined]
_KNOWN = select(_TABLE.c.id, _TABLE.c.status, _TABLE.c.game_id).where(_TABLE.c.dedupe_key == bindparam("key"))
_WAITING = first_free(INBOUND, select(_TABLE.c.id).where(_TABLE.c.status.in_(WAITING)).order_by(_TABLE.c.id).limit(64))
#: Stored mails a worker claims at once (`claim`): enough that the three statements of a batch
#: cost little a mail, few enough that several workers share a burst.
BATCH = 8
#: The claimed mails read again and marked at once: stored -> processing; processing (its
#: worker died) -> retrying, one more try; retrying (two deaths) -> error, its bytes dropped.
#: The new status says which, as the old one did. A dead worker's mail is marked only as the
#: first of a batch (``:first``): a dead worker leaves its whole batch ``processing``, the one it
#: had in hand and those it never began, and two of them marked together would share the next
#: death (a mail that crashes the worker would take the others of its batch with it to `TWICE`).
_MARK = (update(_TABLE).where(_TABLE.c.id.in_(bindparam("row_ids", expanding=True)), _TABLE.c.status.in_(WAITING),
                              _TABLE.c.held.is_not(None),
                              (_TABLE.c.status == STORED) | (_TABLE.c.id == bindparam("first")))
         .values(status=case((_TABLE.c.status == STORED, PROCESSING), (_TABLE.c.status == PROCESSING, RETRYING),
                             else_="error"),
                 held=case((_TABLE.c.status == RETRYING, None), else_=_TABLE.c.held),
                 note=case((_TABLE.c.status == RETRYING, TWICE), else_=_TABLE.c.note))
         .returning(_TABLE.c.id, _TABLE.c.status, _TABLE.c.held, _TABLE.c.received_at))
#: Mails stored in one statement at most (`store_many`), and their bytes at most (a chunk ends
#: with the mail that reaches them).
STORE_ROWS = 50
STORE_BYTES = 8 * 1024 * 1024
#: What differs from one stored mail to the next: its key, its size and its sealed bytes, bound
#: as three arrays; every other column is the model's default (`_parameters`), the same for all.
_OWN = ("dedupe_key", "size", "held")
_COMMON = [c for c in _TABLE.c if c.name != "id" and c.name not in _OWN]
#: The statement that stores new mails, however many: their rows, in the order given, and the
#: NOTIFY that wakes the other workers, in one transaction (a mail on record already inserts
#: nothing; the NOTIFY of each row inserted is one notice, PostgreSQL folds a transaction's
#: same notices into one). One statement of one shape, its mails bound as arrays: compiled
#: once and prepared by the driver, where a multi-row VALUES list was a statement of its own
#: for each number of mails, compiled for each and its hundreds of parameters converted anew
#: at every batch (benchmarks/mail_throughput.py, the mailbox reader's thread).
_STORE = text(
    f"WITH stored AS (INSERT INTO {_TABLE.name} ({', '.join(_OWN)}, {', '.join(c.name for c in _COMMON)})"
    f" SELECT m.dedupe_key, m.size, m.held, {', '.join(f':{c.name}' for c in _COMMON)}"
    f" FROM unnest(:dedupe_keys, :sizes, :helds) WITH ORDINALITY AS m(dedupe_key, size, held, n) ORDER BY m.n"
    f" ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, dedupe_key)"
    f" SELECT id, dedupe_key, pg_notify('{wakeup.CHANNEL}', '') FROM stored"
).bindparams(bindparam("dedupe_keys", type_=ARRAY(_TABLE.c.dedupe_key.type)),
             bindparam("sizes", type_=ARRAY(_TABLE.c.size.type)),
             bindparam("helds", type_=ARRAY(_TABLE.c.held.type)),
             *[bindparam(c.name, type_=c.type) for c in _COMMON])


#: The claims of the mails bound as ``row_ids`` given back (`Claims.give_back_some`), in one
#: statement with what became of them: `_DONE`, a mail whose outcome is committed loses its
#: sealed copy (one still waiting, whose handling failed, keeps it: it is tried again as after a
#: worker's death); `_UNTRIED`, a mail never handed to its handling is marked as it was before
#: the claim. Each UPDATE locks its rows before the claims are given back (the scalar subquery
#: runs first): a worker that claims one meanwhile marks it only after this commits, and reads
#: what this statement left.
_WAITING_SQL = ", ".join(f"'{status}'" for status in WAITING)
_GIVE_BACK = (" SELECT pg_advisory_unlock(:k, r) FROM unnest(CAST(:row_ids AS integer[])) AS r"
              " WHERE (SELECT count(*) FROM changed) >= 0")
_DONE = text(f"WITH changed AS (UPDATE {_TABLE.name} SET held = NULL WHERE id = ANY(CAST(:row_ids AS integer[]))"
             f" AND status NOT IN ({_WAITING_SQL}) RETURNING id)" + _GIVE_BACK)
_UNTRIED = text(f"WITH changed AS (UPDATE {_TABLE.name} SET status = CASE status WHEN '{PROCESSING}' THEN '{STORED}'"
                f" ELSE '{PROCESSING}' END WHERE id = ANY(CAST(:row_ids AS integer[]))"
                f" AND status IN ('{PROCESSING}', '{RETRYING}') AND held IS NOT NULL RETURNING id)" + _GIVE_BACK)


@dataclass(frozen=True)
class Claimed:
    """A stored mail this worker claimed and marked: its row, its bytes, and whether this is
    its last try (a worker died with it before)."""

    row_id: int
    raw: bytes
    retry: bool = False
    received_at: datetime | None = None  # the row's time, for `inbound.handle`


def _parameters(ctx: Context, raws: Sequence[bytes]) -> dict[str, object]:
    """The parameters of `_STORE` for ``raws``: the rows as the model makes them (every other
    column's default), ``held`` sealed with the key at rest (the column's type seals each)."""
    atrest.attach(ctx.engine, ctx.config)  # the key that seals ``held``
    row = InboundMail(dedupe_key="", received_at=ctx.now(), status=STORED)
    return {"dedupe_keys": [receipt_key(raw) for raw in raws], "sizes": [len(raw) for raw in raws],
            "helds": list(raws), **{c.name: getattr(row, c.name) for c in _COMMON}}


def store(ctx: Context, raw: bytes, claims: Claims | None = None) -> Handled | None:
    """`store_many` for one mail."""
    return store_many(ctx, [raw], claims)[0]


def store_many(ctx: Context, raws: Sequence[bytes], claims: Claims | None = None) -> list[Handled | None]:
    """Put the mails on record, each to be handled by a worker (None); a mail on record
    already and handled is a duplicate. One statement for `STORE_ROWS` mails: their rows (the
    key's unique index the duplicate check) and the other workers' wake-up (`wakeup`),
    committed together; one more for each mail on record already."""
    mine = claims if claims is not None else Claims(ctx.engine)
    got: list[Handled | None] = []
    try:
        for chunk in _chunks(raws):
            keys = [receipt_key(raw) for raw in chunk]
            new = {row.dedupe_key for row in mine.execute(ctx, _STORE, _parameters(ctx, chunk))}
            got += [None if key in new else _known(ctx, mine, key) for key in keys]
    finally:
        if claims is None:
            mine.close()
    return got


def _chunks(raws: Sequence[bytes]) -> Iterator[Sequence[bytes]]:
    """``raws`` in runs of `STORE_ROWS` mails and about `STORE_BYTES` at most."""
    start, size = 0, 0
    for end, raw in enumerate(raws, 1):
        size += len(raw)
        if end - start >= STORE_ROWS or size >= STORE_BYTES:
            yield raws[start:end]
            start, size = end, 0
    if start < len(raws):
        yield raws[start:]


def _known(ctx: Context, claims: Claims, key: str) -> Handled | None:
    """A mail not stored because its key is on record: waiting (None: a worker has it or will),
    or handled already (a duplicate)."""
    known = claims.execute(ctx, _KNOWN, {"key": key})
    if not known or known[0][1] in WAITING:
        return None
    return Handled("duplicate", "already processed", known[0][2], known[0][0])


def claim(ctx: Context, claims: Claims, want: int = BATCH) -> list[Claimed]:
    """The next stored mails for this worker, up to ``want``, marked ``processing``; none:
    nothing to do. Three statements whatever their number: the claims, the marks, and the
    give-back of those found handled meanwhile, dropped (`TWICE`) or a dead worker's but the
    first (`_MARK`: taken back one at a time, each the first of a later claim)."""
    atrest.attach(ctx.engine, ctx.config)  # the key that opens ``held``
    passed: set[int] = set()  # rows found not to be claimed after all: not tried again
    while row_ids := sorted(claims.take_some(ctx, INBOUND, _WAITING, want, passed)):
        marked = {row.id: row for row in claims.execute(ctx, _MARK, {"row_ids": row_ids, "first": row_ids[0]})}
        got: list[Claimed] = []
        for row_id in row_ids:
            row = marked.get(row_id)
            if row is not None and row.status != "error":
                if row.status == RETRYING:
                    log.warning("inbound mail %s was being processed when its worker stopped: one more try", row_id)
                got.append(Claimed(row_id, row.held, row.status == RETRYING, row.received_at))
                continue
            if row is not None:
                log.error("inbound mail %s: %s", row_id, TWICE)
            if row is not None or row_id == row_ids[0]:
                passed.add(row_id)  # dropped (TWICE), or the first yet not marked: handled meanwhile
            # else not marked and not the first: a dead worker's (taken as the first next time),
            # or handled meanwhile
        claims.give_back_some(INBOUND, [r for r in row_ids if r not in marked or marked[r].status == "error"])
        if got:
            return got
    return []


def done(ctx: Context, claims: Claims, row_ids: Collection[int]) -> None:
    """The mails were handed to their handling, which is over: the sealed copies of those
    whose outcome is committed dropped, and every claim given back, in one statement."""
    claims.give_back_some(INBOUND, row_ids, _DONE if claims.shared else None)


def release(ctx: Context, claims: Claims, row_ids: Collection[int]) -> None:
    """The mails were claimed but never handed to their handling (the worker was stopped):
    marked as they were before the claim, not a try, and given back, in one statement."""
    claims.give_back_some(INBOUND, row_ids, _UNTRIED if claims.shared else None)
