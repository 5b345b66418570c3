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
  The outbox's claims ride on statements it sends anyway: the listing claims the first few
  free rows (`Claims.listed`), all of them read again by the one statement after it (a
  statement sees what was committed when it began, and the holder before may have committed
  and let go since), and the claims a worker is done with are given back by its next
  statement (a listing, or the mark of a sent row: `Claims.outbox_sent`).

On SQLite one daemon serves the database (`pbem.db.lock`): every claim is granted, but
for the work this daemon is at already.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from collections.abc import Collection
from typing import Any

from sqlalchemy import ARRAY, Integer, any_, bindparam, case, false, func, text, true
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
    stmt = (columns(waiting.c[0]).where(_try_unless(waiting.c[0].in_(bindparam("skip", expanding=True)), kind,
                                                    waiting.c[0])).limit(bindparam("want")))
    return FirstFree(stmt, listed)


def _try_unless(skipped: Any, kind: Any, row: Any) -> Any:
    """The claim of ``row`` tried, unless ``skipped``: a CASE, so that the lock is never tried
    on a row to skip. As two conditions of a WHERE, PostgreSQL evaluates the cheaper first, and
    it costs a list of three ids dearer than the function: a row this connection holds would be
    locked a second time (a claim that one give-back no longer frees), another worker's row
    claimed and dropped on the floor."""
    return case((skipped, false()), else_=func.pg_try_advisory_lock(kind, row))


#: `Claims.give_back_some`: the claims on the rows bound as ``row_ids`` given back.
_UNLOCK_SOME = text("SELECT pg_advisory_unlock(:k, r) FROM unnest(CAST(:row_ids AS integer[])) AS r")


#: `_listing` and `_marking` statements, made once for each statement they wrap.
_WRAPPED: dict[tuple[int, str], Any] = {}


def _given_back() -> Any:
    """The claims of work ``:k`` on the rows bound as ``:before`` (an array) given back: one row,
    how many."""
    before = func.unnest(bindparam("before", type_=ARRAY(Integer))).table_valued("r").render_derived()
    return columns(func.count(func.pg_advisory_unlock(bindparam("k"), before.c.r)).label("n"))


def _listing(stmt: Any) -> Any:
    """``stmt`` (a listing, the row's id first, in order) with two columns more (`Claims.listed`):
    ``claimed``, whether its row is one of the first ``:want`` free ones, claimed by the same
    statement (the rows bound as ``:skip`` are not tried), and ``released``, how many of the
    claims bound as ``:before`` it gave back first. The statement gives one row more, all
    NULL but ``released``, when the listing is empty (the claims are given back all the same).
    The claims are tried on the listed rows one by one in their order, the LIMIT of ``taken``
    stopping once ``:want`` are taken (a CTE that calls a volatile function is not inlined)."""
    key = (id(stmt), "listing")
    if key not in _WRAPPED:
        due = stmt.cte("due")
        gone = _given_back().cte("gone")
        taken = (columns(due.c[0]).where(_try_unless(due.c[0] == any_(bindparam("skip", type_=ARRAY(Integer))),
                                                     bindparam("k"), due.c[0]))
                 .limit(bindparam("want")).cte("taken"))
        _WRAPPED[key] = (columns(*due.c, gone.c.n.label("released"), due.c[0].in_(columns(taken.c[0])).label("claimed"))
                         .select_from(gone.outerjoin(due, true())).order_by(due.c[0]))
    return _WRAPPED[key]


def _marking(stmt: Any) -> Any:
    """``stmt`` (an UPDATE) as a statement of its own that also gives back the claims bound as
    ``:before`` (`Claims.outbox_sent`): PostgreSQL runs the UPDATE of a WITH once, whether or
    not the SELECT reads it."""
    key = (id(stmt), "marking")
    if key not in _WRAPPED:
        _WRAPPED[key] = _given_back().add_cte(stmt.cte("marked"))
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
        #: Outbox rows a drain claimed and has not recorded yet (it sends on several connections
        #: at once, `pbem.service.outbox.lanes`): their claims are never given back by another
        #: statement, only once the row is recorded (`idle`) or the drain is over.
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

    def _done(self, kind: int, but: int | None = None) -> list[int]:
        """The rows of ``kind`` this worker holds a claim on and is no longer at (`busy`), but
        ``but``: the claims the next claim's statement may give back. Under ``_guard``."""
        return [r for k, r in self._held if k == kind and r != but and (k, r) not in self._busy]

    def holding(self, kind: int) -> list[int]:
        """The rows of ``kind`` this worker holds a claim on."""
        with self._guard:
            return [r for k, r in self._held if k == kind]

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
        claims, given back by its next statement, `listed` or `outbox_sent`)."""
        with self._guard:
            held = [h for h in self._held if h[0] == kind and h[1] not in keep]
        for k, row_id in held:
            self.give_back(k, row_id)

    def listed(self, ctx: Context, stmt: Any, params: dict[str, Any], kind: int, want: int) -> tuple[list[Any], list[int]]:
        """``stmt``'s rows (a listing of rows of work ``kind``, in order, their id first) and the
        ids of the first ``want`` of them this worker claimed, at work on them until `idle` or
        given back. On PostgreSQL one statement: the listing, the claims, and every claim of
        ``kind`` this worker was done with given back (`_listing`). The caller reads the claimed
        rows again in a statement after this one, as after `take`."""
        with self._guard:
            conn = self._connection()  # a new one holds nothing
            before = self._done(kind)
            if self.shared:
                busy = [r for k, r in self._held if k == kind and r not in before]
                got = self._run(_listing(stmt), {**params, "k": kind, "before": before, "skip": busy, "want": want})
                self._held.difference_update((kind, r) for r in before)
                rows = [row for row in got if row[0] is not None]
                taken = [row[0] for row in rows if row.claimed]
            else:
                rows = _all(conn.execute(stmt, params))
                self._held.difference_update((kind, r) for r in before)
                taken = [row[0] for row in rows if (kind, row[0]) not in self._held][:want]
            self._held.update((kind, r) for r in taken)
            self._busy.update((kind, r) for r in taken)
            return rows, taken

    def outbox_sent(self, ctx: Context, stmt: Any, params: dict[str, Any], row_id: int) -> None:
        """``stmt``, the UPDATE that marks outbox row ``row_id`` sent, committed at once; on
        PostgreSQL in one statement with the claims this worker is done with given back (but
        ``row_id``'s own: given back in the statement that marks the row, it would be free
        before the mark is committed; it is given back by the next statement, or kept: the row
        is sent, nobody takes it again)."""
        with self._guard:
            if self.shared:
                self._connection()  # a new one holds nothing: the mark is made all the same
                before = self._done(OUTBOX, but=row_id)
                if before:
                    self._run(_marking(stmt), {**params, "k": OUTBOX, "before": before})
                    self._held.difference_update((OUTBOX, r) for r in before)
                    return
            self._run(stmt, params)

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
            self._busy.difference_update((kind, r) for r in mine)

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
