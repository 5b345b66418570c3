"""Work shared by several daemons on one PostgreSQL database: who takes what.

Each unit of work is claimed before it is done, so that two workers never do it twice:

* a due deadline: the game's row, ``SELECT … FOR UPDATE SKIP LOCKED`` in the resolution's
  own transaction (`claim_game`): a game another worker is resolving is skipped, not waited for;
* a job that runs once over many games (the reminders): a transaction-level advisory lock,
  tried, never waited for (`once_at_a_time`);
* an outbox row, a report job or a stored inbound mail (`pbem.service.queue`), whose work spans several transactions and a network
  send or a map drawing: a session-level advisory lock on a connection of the worker's own
  (`Claims`). The row is read again once the lock is held: whatever the holder before
  committed (sent, done) is seen, so nothing is done twice. A worker that dies loses its
  connection, and PostgreSQL drops its locks at once: another worker takes the work over.
  The outbox's claims ride on statements it sends anyway: the listing claims the first row
  (`Claims.listed`), the mark of a sent row claims the next (`Claims.outbox_sent`); the read
  under the claim is always a statement after the one that took it (a statement sees what
  was committed when it began, and the holder before may have committed and let go since).

On SQLite one daemon serves the database (`pbem.db.lock`): every claim is granted, but
for the work this daemon is at already.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from collections.abc import Collection
from typing import Any

from sqlalchemy import bindparam, case, func, null, text
from sqlalchemy import select as columns
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from pbem.db import direct
from pbem.db.models import Game, OutboxMail, ReportJob
from pbem.service import atrest
from pbem.service.context import Context

log = logging.getLogger(__name__)

#: The advisory locks pbem takes: two keys, the kind of work (near "pbem", 0x7062656D, so
#: that no other program's locks on the same database collide) and the row (0: none).
PBEM = 0x7062656D
OUTBOX, REPORT, REMINDERS, MAILBOX, INBOUND = PBEM + 1, PBEM + 2, PBEM + 3, PBEM + 4, PBEM + 5


def shared(engine: Engine) -> bool:
    """True on PostgreSQL: several workers may serve this database."""
    return engine.dialect.name == "postgresql"


def claim_game(session: Session, game_id: str) -> Game | None:
    """The game's row, locked for this transaction; None when another worker holds it."""
    stmt = select(Game).where(Game.id == game_id.strip().lower())
    stmt = stmt.with_for_update(skip_locked=True) if shared(session.get_bind().engine) else stmt.with_for_update()
    return session.exec(stmt).first()


def locking(session: Session, stmt: Any, of: Any) -> Any:
    """``stmt`` locking its rows of ``of`` for this transaction; rows another worker holds are
    skipped, not waited for (PostgreSQL), as `claim_game` does."""
    if shared(session.get_bind().engine):
        return stmt.with_for_update(skip_locked=True, of=of)
    return stmt.with_for_update(of=of)


def once_at_a_time(session: Session, kind: int) -> bool:
    """True when this transaction may run the job ``kind``; False: another worker runs it now."""
    if not shared(session.get_bind().engine):
        return True
    return bool(session.execute(text("SELECT pg_try_advisory_xact_lock(:k, 0)"),
                                {"k": kind}).scalar())


_TABLE = OutboxMail.__table__  # type: ignore[attr-defined]
#: What `Claims.outbox_row` and `Claims.outbox_mail` read under the claim, made once.
_OUTBOX_DUE = select(_TABLE.c.status, _TABLE.c.next_attempt_at).where(_TABLE.c.id == bindparam("row_id"))
_OUTBOX_MAIL = select(_TABLE.c.status, _TABLE.c.next_attempt_at, _TABLE.c.raw).where(_TABLE.c.id == bindparam("row_id"))


@dataclass(frozen=True)
class FirstFree:
    """`first_free`'s statement, and the listing a single worker reads instead."""

    statement: Any
    listed: Any


def first_free(kind: int, listed: Any) -> FirstFree:
    """The statement of `Claims.take_some`: the first ids of ``listed`` (a select of ids, in
    order) whose claims of work ``kind`` this connection takes, at most ``:want`` of them, but
    for the ids bound as ``skip``; built once by the caller. The lock is tried on the listed
    rows one by one, the outer LIMIT stopping once enough are taken (a volatile function is not
    pushed into a LIMITed subquery)."""
    waiting = listed.subquery("waiting")
    stmt = (columns(waiting.c[0]).where(waiting.c[0].not_in(bindparam("skip", expanding=True)),
                                        func.pg_try_advisory_lock(kind, waiting.c[0])).limit(bindparam("want")))
    return FirstFree(stmt, listed)


#: `Claims.take_instead` with one claim to give back, made once.
_SWAP = columns(func.pg_advisory_unlock(bindparam("k"), bindparam("before")),
                func.pg_try_advisory_lock(bindparam("k"), bindparam("row_id")))


#: `Claims.give_back_some`: the claims on the rows bound as ``row_ids`` given back.
_UNLOCK_SOME = text("SELECT pg_advisory_unlock(:k, r) FROM unnest(CAST(:row_ids AS integer[])) AS r")


#: `_listing` and `_marking` statements, made once for each statement they wrap.
_WRAPPED: dict[tuple[int, str, bool], Any] = {}


def _listing(stmt: Any, give_back: bool) -> Any:
    """``stmt`` (a listing, the row's id first) with two columns more, evaluated on its first
    row only (CASE): ``released``, the claim ``:before`` given back (when ``give_back``), and
    ``claimed``, that row claimed (`Claims.listed`)."""
    key = (id(stmt), "listing", give_back)
    if key not in _WRAPPED:
        due = stmt.cte("due")
        first = due.c[0] == columns(func.min(due.c[0])).scalar_subquery()
        released = (case((first, func.pg_advisory_unlock(bindparam("k"), bindparam("before"))))
                    if give_back else null())
        claimed = case((first, func.pg_try_advisory_lock(bindparam("k"), due.c[0])))
        _WRAPPED[key] = columns(*due.c, released.label("released"), claimed.label("claimed")).order_by(due.c[0])
    return _WRAPPED[key]


def _marking(stmt: Any, give_back: bool, take: bool) -> Any:
    """``stmt`` (an UPDATE) as a statement of its own that also gives the claim ``:before``
    back (``give_back``) and claims ``:then`` (``take``; the last column) (`Claims.outbox_sent`):
    PostgreSQL runs the UPDATE of a WITH once, whether or not the SELECT reads it."""
    key = (id(stmt), f"marking {take}", give_back)
    if key not in _WRAPPED:
        done = []
        if give_back:
            done.append(func.pg_advisory_unlock(bindparam("k"), bindparam("before")))
        if take:
            done.append(func.pg_try_advisory_lock(bindparam("k"), bindparam("then")))
        _WRAPPED[key] = columns(*done).add_cte(stmt.cte("marked"))
    return _WRAPPED[key]


def _all(result: Any) -> list[Any]:
    """The rows of a statement's result; none for a statement that returns none."""
    return list(result) if result.returns_rows else []


class Claims:
    """A worker's claims on outbox rows and report jobs (module docstring)."""

    def __init__(self, engine: Engine, workers: str = "shared") -> None:
        self.engine = engine
        # several workers only where the configuration says so (database.workers = "shared")
        self.shared = shared(engine) and workers == "shared"
        self._conn: Any = None
        self._held: set[tuple[int, int]] = set()
        #: Rows whose claim a statement of `listed` or `outbox_sent` tried and another worker
        #: held: `_outbox` skips them without trying again (one statement less each).
        self._refused: set[tuple[int, int]] = set()
        #: Outbox rows on the wire now (a drain sends on several connections at once,
        #: `pbem.service.outbox.lanes`): their claims are never given back by the statement
        #: that claims another row, only once the row is recorded (`idle`).
        self._busy: set[tuple[int, int]] = set()
        self._guard = threading.Lock()

    def _connection(self) -> Any:
        if self._conn is not None and (self._conn.closed or self._conn.invalidated):
            self._conn.close()  # the database dropped it, and every claim with it
            self._conn = None
        if self._conn is None:
            self._conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            self._held.clear()  # a new connection holds nothing
            self._busy.clear()
        return self._conn

    def take(self, kind: int, row_id: int) -> bool:
        """Claim row ``row_id`` of work ``kind``; False: another worker (or this one) is at it."""
        with self._guard:
            if (kind, row_id) in self._held:
                return False  # this worker is at it already
            if self.shared and not self._connection().execute(text("SELECT pg_try_advisory_lock(:k, :r)"),
                                                                {"k": kind, "r": row_id}).scalar():
                return False
            self._held.add((kind, row_id))
            return True

    def take_instead(self, kind: int, row_id: int) -> bool:
        """`give_back_all` of ``kind``, then `take`, in one statement (one round trip): for work
        done one row at a time, each row's work committed before the next is claimed."""
        with self._guard:
            before = self._done(kind)
            if self.shared and before and row_id not in before:
                conn = self._connection()  # a new one holds nothing: then as below
                if len(before) == 1 and (kind, before[0]) in self._held:
                    got = conn.execute(_SWAP, {"k": kind, "before": before[0], "row_id": row_id}).one()
                    self._held.difference_update((kind, r) for r in before)
                    if got[-1]:
                        self._held.add((kind, row_id))
                    return bool(got[-1])
        self.give_back_all(kind, keep=self._busy_rows(kind))
        return self.take(kind, row_id)

    def _done(self, kind: int, but: int | None = None) -> list[int]:
        """The rows of ``kind`` this worker holds a claim on and is no longer at (`busy`), but
        ``but``: the claims the next claim's statement may give back. Under ``_guard``."""
        return [r for k, r in self._held if k == kind and r != but and (k, r) not in self._busy]

    def _busy_rows(self, kind: int) -> set[int]:
        with self._guard:
            return {r for k, r in self._busy if k == kind}

    def idle(self, kind: int, row_id: int) -> None:
        """Row ``row_id`` of ``kind`` is no longer being worked at (an outbox row off the wire):
        its claim may go with the next claim's statement."""
        with self._guard:
            self._busy.discard((kind, row_id))

    def give_back(self, kind: int, row_id: int) -> None:
        with self._guard:
            if (kind, row_id) not in self._held:
                return
            self._held.discard((kind, row_id))
            self._busy.discard((kind, row_id))
            if not self.shared:
                return
            try:
                self._connection().execute(text("SELECT pg_advisory_unlock(:k, :r)"), {"k": kind, "r": row_id})
            except Exception:  # a lost connection released it already
                log.debug("releasing claim %s/%s failed", kind, row_id, exc_info=True)

    def give_back_all(self, kind: int, keep: Collection[int] = ()) -> None:
        """Give back every claim of ``kind`` but those on the rows ``keep`` (work done and
        committed, that nobody can take again: `pbem.service.outbox.drain` keeps the sent rows'
        claims, given back by the statement of its next claim, `take_instead`, `listed`)."""
        with self._guard:
            held = [h for h in self._held if h[0] == kind and h[1] not in keep]
        for k, row_id in held:
            self.give_back(k, row_id)

    def listed(self, ctx: Context, stmt: Any, params: dict[str, Any], kind: int) -> list[Any]:
        """``stmt``'s rows (a listing of rows of work ``kind``, in order, their id first), the
        first of them claimed in the same statement on PostgreSQL, and the one claim of ``kind``
        held before given back in it (two columns more: ``released``, ``claimed``). The caller
        reads the row again under the claim (`outbox_row`), as after `take`: one statement
        instead of two or three."""
        with self._guard:
            if self.shared:
                conn = self._connection()  # a new one holds nothing
                before = self._done(kind)
                self._refused.clear()
                if len(before) <= 1:
                    got = _all(conn.execute(_listing(stmt, bool(before)),
                                            {**params, "k": kind, "before": before[0] if before else 0}))
                    if before and got:
                        self._held.discard((kind, before[0]))
                    if got:
                        (self._held if got[0].claimed else self._refused).add((kind, got[0][0]))
                    return got
        return self._rows(ctx, stmt, params)

    def outbox_sent(self, ctx: Context, stmt: Any, params: dict[str, Any], row_id: int, then: int | None) -> None:
        """``stmt``, the UPDATE that marks outbox row ``row_id`` sent, committed at once; on
        PostgreSQL in one statement with the claim of row ``then`` (the next listed, sent next:
        `outbox_row` then only reads it again) and the claim held before ``row_id``'s given
        back. ``row_id``'s own claim is kept: given back in the statement that marks the row,
        it would be free before the mark is committed; it is given back by the next claim's
        statement (or kept: the row is sent, nobody takes it again)."""
        with self._guard:
            if self.shared:
                conn = self._connection()  # a new one holds nothing: the mark is made all the same
                before = self._done(OUTBOX, but=row_id)
                take = then is not None and (OUTBOX, then) not in self._held
                if len(before) <= 1 and (before or take):
                    [got] = self._run(_marking(stmt, bool(before), take),
                                      {**params, "k": OUTBOX, "then": then, "before": before[0] if before else 0})
                    if before:
                        self._held.discard((OUTBOX, before[0]))
                    if then is not None and take:
                        (self._held if got[-1] else self._refused).add((OUTBOX, then))
                    return
        self._rows(ctx, stmt, params)

    def outbox_row(self, ctx: Context, row_id: int) -> bool:
        """Claim an outbox row that is still due; False: another worker sends it or sent it."""
        return self._outbox(ctx, row_id, _OUTBOX_DUE) is not None

    def outbox_mail(self, ctx: Context, row_id: int) -> bytes | None:
        """`outbox_row`, returning the claimed row's bytes (None: not claimed): the re-read under
        the claim fetches them too, one statement and the only decryption of the row's bytes
        (`pbem.service.outbox.pending` lists the due rows without them)."""
        atrest.attach(ctx.engine, ctx.config)  # the key that opens them, as a session would attach it
        row = self._outbox(ctx, row_id, _OUTBOX_MAIL)
        if row is None:
            return None
        raw: bytes = row[2]
        return raw

    def _outbox(self, ctx: Context, row_id: int, stmt: Any) -> Any:
        """The claimed row as ``stmt`` reads it (its status and next attempt first), None when it
        is another worker's or no longer due. A row claimed already (by the listing, `listed`,
        or with the mark of the row before, `outbox_sent`) is only read again."""
        with self._guard:
            held = (OUTBOX, row_id) in self._held
            if (OUTBOX, row_id) in self._refused:
                self._refused.discard((OUTBOX, row_id))
                return None  # another worker's a moment ago: it sends it, or gives it back for a later drain
        if not held and not self.take_instead(OUTBOX, row_id):  # one row at a time: the one before is recorded
            return None
        with self._guard:
            rows = self._run(stmt, {"row_id": row_id})
        due = bool(rows) and rows[0][0] == "queued" and (rows[0][1] is None or rows[0][1] <= ctx.now())
        if not due:
            self.give_back(OUTBOX, row_id)
            return None
        with self._guard:
            self._busy.add((OUTBOX, row_id))  # on the wire until `idle`
        return rows[0]

    def take_some(self, ctx: Context, kind: int, candidates: FirstFree, want: int,
                  skip: Collection[int] = ()) -> list[int]:
        """Claim the first ``want`` free rows of ``candidates`` (`first_free`'s statement for
        ``kind``) in one statement: the ids are tried in turn, those claimed are the answer (none:
        all are other workers'; ``skip``: ids not to try). The caller reads the rows again under
        the claims."""
        with self._guard:
            held = [r for k, r in self._held if k == kind] + list(skip) or [0]
            if not self.shared:
                got = [i for i in self._unshared_read(ctx, candidates.listed) if i not in held][:want]
            else:
                got = list(self._connection().execute(candidates.statement, {"skip": held, "want": want}).scalars())
            self._held.update((kind, i) for i in got)
            return got

    def give_back_some(self, kind: int, row_ids: Collection[int], stmt: Any = None,
                       params: dict[str, Any] | None = None) -> None:
        """Give back the claims of ``kind`` on ``row_ids`` in one statement: ``stmt``, a statement
        of the caller's own that releases the claims bound as ``row_ids`` (and does more:
        `pbem.service.queue.done`), or one of ours. A claim whose statement failed stays held
        (a lost connection released it already; `_connection` then starts anew)."""
        with self._guard:
            mine = [r for r in row_ids if (kind, r) in self._held]
            if mine and (self.shared or stmt is not None):
                self._connection().execute(stmt if stmt is not None else _UNLOCK_SOME,
                                           {**(params or {}), "k": kind, "row_ids": mine})
            self._held.difference_update((kind, r) for r in mine)

    def execute(self, ctx: Context, stmt: Any, params: dict[str, Any] | None = None) -> list[Any]:
        """``stmt``'s rows (an INSERT, UPDATE or DELETE too, committed at once): one statement
        and one round trip on the claims' own connection where there is one (`_rows`)."""
        with self._guard:
            return self._run(stmt, params or {})

    def report_jobs(self, ctx: Context, want: int) -> list[int]:
        """Claim up to ``want`` pending report jobs, oldest first."""
        if want <= 0:
            return []
        stmt = (select(ReportJob.id).where(ReportJob.status == "pending").order_by(col(ReportJob.id))
                .limit(want + len(self._held) + 64))
        ids = [i for i in self._read(ctx, stmt) if i is not None]
        got: list[int] = []
        for job_id in ids:
            if len(got) >= want:
                break
            if not self.take(REPORT, job_id):
                continue
            # read again under the claim: done meanwhile?
            if self._read(ctx, select(ReportJob.status).where(ReportJob.id == job_id)) != ["pending"]:
                self.give_back(REPORT, job_id)
                continue
            if (REPORT, job_id) not in self._held:
                continue  # the connection holding the claim was lost meanwhile, and the claim with it
            got.append(job_id)
        return got

    def _read(self, ctx: Context, stmt: Any) -> list[Any]:
        """The first column of ``stmt``'s rows (`_rows`)."""
        return [row[0] for row in self._rows(ctx, stmt, {})]

    def _rows(self, ctx: Context, stmt: Any, params: dict[str, Any]) -> list[Any]:
        """``stmt``'s rows, read on the claims' own connection (autocommit: a write is committed
        at once, and each statement sees what is committed, as a new session would). Kept for
        the worker's life on SQLite and by a single worker too: a connection of the pool a
        statement cost its checkout (on PostgreSQL a ``SELECT 1`` when idle, `ping_when_idle`), its
        BEGIN and COMMIT and its return (issue 17: the outbox marks each sent mail here)."""
        with self._guard:
            return _all(self._connection().execute(stmt, params))

    def _run(self, stmt: Any, params: dict[str, Any]) -> list[Any]:
        """`_rows` of a statement made once that runs for every mail (the outbox's marks and
        re-reads, the inbound queue's): as `pbem.db.direct` runs it, named rows, half the CPU of
        `Connection.execute` (a statement it refuses, an ``IN`` list, runs through that). The
        guard is held."""
        conn = self._connection()
        try:
            return direct.rows(conn, stmt, params, named=True)
        except direct.Refused:
            return _all(conn.execute(stmt, params))

    def _unshared_read(self, ctx: Context, stmt: Any) -> list[Any]:
        """The first column of ``stmt``'s rows; the guard held (`take_first`)."""
        return [row[0] for row in self._connection().execute(stmt)]

    def close(self) -> None:
        with self._guard:
            self._held.clear()
            if self._conn is not None:
                try:
                    self._conn.close()
                finally:
                    self._conn = None
