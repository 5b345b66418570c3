"""The outbox: every mail we send is first a row, written in the same transaction
as the change it reports, with its Message-ID and bytes fixed at that moment.

`drain` sends due rows, oldest first, and marks each after its own 250, on several
connections at once (`lanes`: each recipient's mails on one, in order).  A server that
cannot be used at all (unreachable, certificate, login, sender) is the server's state
(`ServerHealth`): nothing fails, the server is probed with backoff, and when it answers
again everything waiting goes out at once.  An answer about one mail (4xx/5xx to RCPT or
DATA) is that mail's: 4xx backs off exponentially, 5xx fails the row.  A reminder whose
deadline passed while it waited is dropped, not sent late.  A crash between the server's 250
and our commit re-sends that mail with the same Message-ID: the documented duplicate,
one a connection at most (see docs/mail.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Coroutine, Sequence
from weakref import WeakKeyDictionary

from sqlalchemy import ARRAY, Integer, any_, bindparam, case, event, func, literal, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlalchemy.orm import defer
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from pbem.config import format_duration, parse_duration
from pbem.db import direct
from pbem.db.models import AnswerTally, Game, OutboxMail, PhaseRow
from pbem.errors import MailPermanentError, MailServerError, MailTransientError
from pbem.faults import checkpoint
from pbem.mail.transport import Outgoing, SendResult
from pbem.service import atrest, limits, wakeup
from pbem.service.claims import OUTBOX, Claims, shared
from pbem.service.context import Context

log = logging.getLogger(__name__)

_MIN_ATTEMPTS = 5
#: Rows read to be listed or marked, not sent, are read without their bytes (`_listed`): each
#: read of ``raw`` is a decryption.
_NO_RAW = defer(OutboxMail.raw)  # type: ignore[arg-type]  # SQLModel types the column as bytes


#: The bytes of small rows this process queued, by engine and row id, kept from the moment
#: their transaction committed until they are sent (`fresh`): the drain that follows a mail
#: sends its reply without reading back and decrypting what the mail's transaction just sealed.
#: A queued row's bytes never change (retention rewrites sent ones only), and a row another
#: worker sent meanwhile is skipped by the read under the claims (`_under_claims`).
_FRESH: WeakKeyDictionary[Engine, OrderedDict[int, tuple[str, bytes]]] = WeakKeyDictionary()
_FRESH_ROWS = 256
_FRESH_BYTES = 64 * 1024  # a report with its maps is read from the database when it is sent
#: session.info: the rows queued in its transaction, with their bytes when small (`_FRESH_BYTES`), else None
_QUEUED = "pbem.outbox.queued"
#: The ids of the rows this process queued and has not taken to send, by engine (`_listed`'s
#: preference: a worker that handles mail sends its own answers first, `OWN_FIRST`).
_MINE: WeakKeyDictionary[Engine, OrderedDict[int, None]] = WeakKeyDictionary()
_MINE_ROWS = 1024
#: While a batch of mail is handled, a worker's drains leave the rows another worker queued
#: in the last this many seconds to that worker (it sends them itself, from memory): the
#: workers no longer race for each other's answers, each race a claim refused or given back
#: and a row's bytes read and decrypted. A row older than that is anybody's (its worker may
#: be dead), and the drain at the end of a batch lists everybody's; the claims still decide
#: who sends what.
OWN_FIRST = timedelta(seconds=5)


#: A queued row is written with one core statement on the transaction's connection (no ORM
#: object, no unit of work at commit), its id returned for `fresh`. On PostgreSQL with the
#: notice that wakes a worker sending mail (`wakeup.NOTICE`), in the same round trip. A
#: transaction that notifies takes a lock of the whole server while it commits; measured here
#: it cost nothing (two writers, each a row and a commit at a time: 5,606-5,812 commits/s with
#: the notice, 4,925-5,658 without).
_TABLE = OutboxMail.__table__  # type: ignore[attr-defined]


#: `enqueue`'s INSERT (… SELECT under an answer's caps), by the caps' kinds (None: no caps), whether
#: it notifies and whether it bumps the tally of answers (`_queueing`); its values typed as the
#: columns are (``raw`` sealed).
_QUEUEING: dict[tuple[tuple[bool, ...] | None, bool, bool], Any] = {}
_COLUMNS = [c for c in _TABLE.c if c.name != "id"]
_TALLY = AnswerTally.__table__  # type: ignore[attr-defined]
_TALLY_KEY = [_TALLY.c.kind, _TALLY.c.minute, _TALLY.c.slot]
#: On SQLite (one daemon, one writer): the answer's minute bumped by a statement of its own.
_BUMP = (sqlite_insert(_TALLY).values(kind=bindparam("kind"), minute=bindparam("minute"), slot=0, n=1)
         .on_conflict_do_update(index_elements=_TALLY_KEY, set_={"n": _TALLY.c.n + 1}))


def _queueing(budget: limits.Budget | None, notice: bool, tally: bool) -> Any:
    """The statement that queues a row: under ``budget``'s caps, counted by the INSERT itself;
    with ``notice``, the wake-up of the workers that send; with ``tally`` (PostgreSQL, an
    answer of a limited kind), the answer counted in its minute's tally (`AnswerTally`, the
    backend's own row: two workers never wait for each other) by the same statement."""
    key = (None if budget is None else budget.per_address(), notice, tally)
    stmt = _QUEUEING.get(key)
    if stmt is not None:
        return stmt
    values = [bindparam(c.name, type_=c.type) for c in _COLUMNS]
    insert = (_TABLE.insert().values(dict(zip([c.name for c in _COLUMNS], values))) if budget is None
              else _TABLE.insert().from_select([c.name for c in _COLUMNS], select(*values).where(limits.under(budget))))
    if not tally:
        stmt = insert.returning(_TABLE.c.id, *([wakeup.NOTICE] if notice else []))
    else:
        queued = insert.returning(_TABLE.c.id, _TABLE.c.kind).cte("queued")
        counted = select(queued.c.kind, bindparam("minute", type_=_TALLY.c.minute.type), func.pg_backend_pid(),
                         literal(1))
        bump = (pg_insert(_TALLY).from_select([c.name for c in _TALLY.c], counted)
                .on_conflict_do_update(index_elements=_TALLY_KEY, set_={"n": _TALLY.c.n + 1}))
        stmt = select(queued.c.id, *([wakeup.NOTICE] if notice else [])).add_cte(bump.cte("tallied"))
    _QUEUEING[key] = stmt
    return stmt


def enqueue(session: Session, ctx: Context, *, message_id: str, raw: bytes, recipients: Sequence[str],
            subject: str, kind: str, game_id: str | None, budget: limits.Budget | None = None) -> int | None:
    """Queue one mail in the session's transaction; its row id. Objects the session holds
    unflushed (a new game, its seats) are flushed first: the row may name them. ``budget``: an
    answer's caps (`pbem.service.limits`), counted by the INSERT itself; one reached (or 0),
    nothing is queued, the cap is logged, and None returned. An answer of a limited kind is
    counted in its minute's tally (`AnswerTally`), capped or not (a new secret counts too)."""
    if budget is not None and budget.closed:
        limits.spent(session, ctx, budget)  # logged, nothing counted
        return None
    if session.new or session.dirty or session.deleted:
        session.flush()
    now = ctx.now()
    conn = session.connection()
    on_postgres = shared(conn.engine)
    tallied = kind in limits.LIMITED_KINDS
    values = {
        "message_id": message_id, "game_id": game_id, "kind": kind, "mail_from": ctx.config.server.bounce_address,
        "recipients_json": json.dumps(list(recipients)), "subject": subject, "raw": raw, "status": "queued",
        "attempts": 0, "next_attempt_at": now, "last_error": "", "created_at": now, "sent_at": None,
        "bounced_at": None, "bounce_status": "", "bounce_diagnostic": ""}
    params = values if budget is None else {**values, **budget.params(ctx)}
    if tallied and on_postgres:
        params = {**params, "minute": limits.minute_of(now)}
    got = direct.rows(conn, _queueing(budget, on_postgres, tallied and on_postgres), params)
    if not got:  # a cap reached: counted again, to say which (a loop or a flood, not every answer)
        assert budget is not None
        limits.spent(session, ctx, budget)
        return None
    if tallied and not on_postgres:
        direct.rows(conn, _BUMP, {"kind": kind, "minute": limits.minute_of(now)})
    row_id: int = got[0][0]
    session.info.setdefault(_QUEUED, []).append((row_id, message_id, raw if len(raw) <= _FRESH_BYTES else None))
    return row_id


@event.listens_for(OrmSession, "after_commit")
def _committed(session: OrmSession) -> None:
    """The rows queued in the transaction just committed: their ids kept for `_listed`'s
    preference (`OWN_FIRST`), the bytes of the small ones for `fresh`."""
    queued = session.info.pop(_QUEUED, None)
    if not queued:
        return
    engine = session.get_bind().engine
    kept = _FRESH.setdefault(engine, OrderedDict())
    mine = _MINE.setdefault(engine, OrderedDict())
    for row_id, message_id, raw in queued:
        mine[row_id] = None
        if raw is not None:
            kept[row_id] = (message_id, raw)
    while len(kept) > _FRESH_ROWS:
        kept.popitem(last=False)
    while len(mine) > _MINE_ROWS:
        mine.popitem(last=False)


@event.listens_for(OrmSession, "after_rollback")
def _rolled_back(session: OrmSession) -> None:
    session.info.pop(_QUEUED, None)  # never queued


def _forget_mine(ctx: Context, row_id: int) -> None:
    """A row of this process's is about to be sent: no longer listed as its own."""
    mine = _MINE.get(ctx.engine)
    if mine is not None:
        mine.pop(row_id, None)


def fresh(ctx: Context, row: Any) -> bytes | None:
    """The bytes of ``row`` when this process queued it (and forgets them), else None."""
    kept = _FRESH.get(ctx.engine)
    got = kept.pop(row.id, None) if kept is not None and row.id is not None else None
    if got is None or got[0] != row.message_id:
        return None
    return got[1]


def _listed(ctx: Context, limit: int, claims: Claims | None, own_first: bool, want: int) -> tuple[list[Any], list[int]]:
    """The due rows, oldest first, without their bytes (``raw`` is not read, so not decrypted:
    `_under_claims` reads those of the rows about to be sent), and the ids of the first ``want``
    of them now this drain's: with ``claims``, those it claimed (on PostgreSQL in the listing's
    own statement, `Claims.listed`); without, all. One statement of the table's own columns.
    ``own_first``: this worker's rows, and the others' once stale (`OWN_FIRST`). Rows, not
    `OutboxMail` objects: building one cost more than reading it."""
    params = {"now": ctx.now(), "limit": limit}
    if claims is not None and claims.shared and own_first:
        mine = list(_MINE.get(ctx.engine, ()))
        return claims.listed(ctx, _PENDING_OWN, {**params, "mine": mine, "stale": ctx.now() - OWN_FIRST}, OUTBOX,
                             want)
    if claims is not None:
        return claims.listed(ctx, _PENDING, params, OUTBOX, want)
    with ctx.engine.connect() as conn:
        rows = list(conn.execute(_PENDING, params))
    return rows, [row.id for row in rows[:want]]


#: The rows a drain took, read again under their claims in one statement: still due? and the
#: bytes of those bound as ``raw_ids`` (the others' bytes are in memory: `fresh`).
_AGAIN = (select(_TABLE.c.id, _TABLE.c.status, _TABLE.c.next_attempt_at,
                 case((_TABLE.c.id.in_(bindparam("raw_ids", expanding=True)), _TABLE.c.raw)).label("raw"))
          .where(_TABLE.c.id.in_(bindparam("ids", expanding=True))))


def _under_claims(ctx: Context, rows: Sequence[Any], taken: Sequence[int],
                  claims: Claims | None) -> tuple[list[Any], dict[int, bytes]]:
    """The rows of ``taken`` still due, read again under their claims (one statement after the
    one that claimed them: whatever a worker that held one before committed is seen), in the
    listing's order, and their bytes: from memory for the rows this process queued (`fresh`),
    read (and decrypted) by that statement for the others. A row found sent or not due is this
    drain's no longer (its claim goes with the next statement)."""
    if not taken:
        return [], {}
    listed = {row.id: row for row in rows}
    raws: dict[int, bytes] = {}
    for row_id in taken:
        kept = fresh(ctx, listed[row_id])
        if kept is not None:
            raws[row_id] = kept
    params = {"ids": list(taken), "raw_ids": [r for r in taken if r not in raws]}
    if params["raw_ids"]:
        atrest.attach(ctx.engine, ctx.config)  # the key that opens them, as a session would attach it
    if claims is not None:
        again = claims.execute(ctx, _AGAIN, params)
    else:
        with ctx.engine.connect() as conn:
            again = list(conn.execute(_AGAIN, params))
    now = ctx.now()
    due = {row.id: row for row in again
           if row.status == "queued" and (row.next_attempt_at is None or row.next_attempt_at <= now)}
    ready = []
    for row_id in taken:
        found = due.get(row_id)
        if found is None:
            _settled(claims, row_id)  # another worker sent it meanwhile (or it is gone)
            continue
        if row_id not in raws:  # not this process's: read by the statement above
            raws[row_id] = found.raw
        ready.append(listed[row_id])
    return ready, raws


def _backoff(ctx: Context, attempts: int) -> timedelta:
    return _doubling(parse_duration(ctx.config.outbox.retry_first), parse_duration(ctx.config.outbox.retry_max),
                     attempts)


def _doubling(first: timedelta, cap: timedelta, attempts: int) -> timedelta:
    delay = first
    for _ in range(max(attempts - 1, 0)):  # doubling, stopped at the cap (2**n would overflow)
        if delay >= cap:
            break
        delay *= 2
    return min(delay, cap)


#: The statement a sent row costs, made once (`_sent`); the table's own columns, not the
#: ORM's: an ORM UPDATE would look for the row among the session's objects first.
_OUTBOX = OutboxMail.__table__  # type: ignore[attr-defined]
_SENT = (update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id"))
         .values(attempts=_OUTBOX.c.attempts + 1, last_error="", status="sent", sent_at=bindparam("now")))


_PENDING = (select(*[c for c in _OUTBOX.c if c.name != "raw"])
            .where(_OUTBOX.c.status == "queued", _OUTBOX.c.next_attempt_at <= bindparam("now"))
            .order_by(_OUTBOX.c.id).limit(bindparam("limit")))
#: `_PENDING` of this worker's rows (``mine``) and of the others' queued before ``stale`` (`OWN_FIRST`).
_PENDING_OWN = _PENDING.where(or_(_OUTBOX.c.id == any_(bindparam("mine", type_=ARRAY(Integer))),
                                  _OUTBOX.c.created_at <= bindparam("stale")))


def _sent(ctx: Context, row_id: int, claims: Claims | None = None) -> None:
    """`_record` of a 250: one UPDATE, without loading (and decrypting) the row, committed at
    once; with ``claims``, on the claims' own connection, the claims this worker is done with
    given back in the same statement on PostgreSQL (`Claims.outbox_sent`)."""
    if claims is not None:
        claims.outbox_sent(ctx, _SENT, {"row_id": row_id, "now": ctx.now()}, row_id)
        return
    with ctx.engine.begin() as conn:
        conn.execute(_SENT, {"row_id": row_id, "now": ctx.now()})


def _record(ctx: Context, row_id: int, status: str, error: str = "", retry: bool = False,
            claims: Claims | None = None) -> None:
    if status == "sent" and not error:
        _sent(ctx, row_id, claims)
        return
    with ctx.session() as s:
        row = s.get(OutboxMail, row_id, options=[_NO_RAW])
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


@dataclass
class ServerHealth:
    """What the daemon knows about one SMTP server between drains.

    A failure to use the server at all (refused connection, unknown host, certificate not
    trusted, login or sender refused) is the server's state, never one mail's fate: the mail
    stays queued and the server is probed again — one attempt, not one per mail (a server
    that locks out after failed logins must not ban us) — after a backoff doubling from
    ``outbox.retry_first`` up to ``outbox.probe_max``.
    """

    name: str = "SMTP"
    down_since: datetime | None = None
    failures: int = 0
    next_probe: datetime | None = None
    error: str = ""
    fix: str = ""

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def status(self) -> dict[str, Any]:
        """For the status output (``serve --once``): what is wrong and what to fix."""
        return {"server": self.name, "ok": not self.down, "since": _iso(self.down_since),
                "failures": self.failures, "next_probe": _iso(self.next_probe), "error": self.error,
                "fix": self.fix}

    def problem(self) -> str:
        return f"{self.error} — to fix: {self.fix}" if self.fix else self.error

    def failed(self, ctx: Context, exc: MailServerError) -> None:
        now = ctx.now()
        first = not self.down or self.error != str(exc)
        if self.down_since is None:
            self.down_since = now
        self.failures += 1
        self.error, self.fix = str(exc), exc.fix
        delay = _doubling(parse_duration(ctx.config.outbox.retry_first), parse_duration(ctx.config.outbox.probe_max),
                          self.failures)
        self.next_probe = now + delay
        if first:  # one line per new problem, not one per probe
            log.warning("%s cannot be used; mail waits in the outbox, next try in %s: %s",
                        self.name, format_duration(delay), self.problem())
        else:
            log.debug("%s still cannot be used (%d tries): %s", self.name, self.failures, exc)

    def recovered(self, ctx: Context, waiting: int) -> None:
        if self.down_since is not None:
            log.info("%s answers again after %s; sending the %d mails waiting, oldest first", self.name,
                     format_duration(ctx.now() - self.down_since), waiting)
        self.down_since, self.failures, self.next_probe, self.error, self.fix = None, 0, None, "", ""


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def _release_waiting(ctx: Context) -> int:
    """After an outage, every queued mail is due at once (none waits out a backoff the
    outage made); returns how many are queued."""
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail).options(_NO_RAW).where(OutboxMail.status == "queued")))
        now = ctx.now()
        for row in rows:
            if row.next_attempt_at is None or row.next_attempt_at > now:
                row.next_attempt_at = now
                s.add(row)
        s.commit()
        return len(rows)


def _note_probe(ctx: Context, row_id: int, error: str) -> None:
    """The mail that served as the probe keeps its place: not failed, not delayed, and not
    counted as tried (``give_up`` counts the mail's own refusals, never the server's outage)."""
    with ctx.session() as s:
        row = s.get(OutboxMail, row_id, options=[_NO_RAW])
        if row is not None:
            row.last_error = error
            s.add(row)
            s.commit()


def _stale_reminder(ctx: Context, row: Any) -> str:
    """Why a reminder must not go out any more ("" if it still may): its deadline passed,
    or the phase it was about has ended. A reminder after the report only confuses."""
    if row.kind != "reminder" or row.game_id is None:
        return ""
    with ctx.session() as s:
        game = s.get(Game, row.game_id)
        if game is None:
            return "the game no longer exists"
        phase = s.exec(select(PhaseRow).where(PhaseRow.game_id == game.id,
                                              PhaseRow.seq == game.phase_seq)).first()
        created = row.created_at
        if phase is None or phase.resolved_at is not None or game.status == "finished":
            return "the turn it was about is over"
        if created is not None and phase.opened_at is not None and phase.opened_at > created:
            return "the turn it was about is over"
        if phase.deadline is not None and phase.deadline <= ctx.now():
            return "its deadline has passed"
    return ""


def _drop(ctx: Context, row_id: int, why: str) -> None:
    with ctx.session() as s:
        row = s.get(OutboxMail, row_id, options=[_NO_RAW])
        if row is not None:
            row.status, row.last_error = "dropped", f"not sent: {why}"
            s.add(row)
            s.commit()
            log.info("outbox %s: reminder dropped, not sent late: %s", row.message_id, why)


async def drain(ctx: Context, outgoing: Outgoing, limit: int = 100, health: ServerHealth | None = None,
                claims: Claims | None = None, guard: AbstractAsyncContextManager[Any] | None = None,
                own_first: bool = False) -> int:
    """`send`, with each row claimed first when several workers share the database
    (`pbem.service.claims`): a row another worker is sending, or sent, is skipped.
    ``own_first``: the rows other workers queued lately are left to them (`OWN_FIRST`)."""
    marked: set[int] = set()
    try:
        return await _send(ctx, outgoing, limit, health, claims, marked, guard, own_first)
    finally:
        if claims is not None:  # a sent row's claim is kept: given back by the next statement
            claims.give_back_some(OUTBOX, [r for r in claims.holding(OUTBOX) if r not in marked])


async def send(ctx: Context, outgoing: Outgoing, limit: int = 100, health: ServerHealth | None = None,
               claims: Claims | None = None, guard: AbstractAsyncContextManager[Any] | None = None) -> int:
    """Send what is due, oldest first; returns how many rows were sent.

    ``health`` is the server's state kept between drains (the daemon keeps one per server):
    while the server cannot be used nothing is tried before its next probe, and the error
    (MailServerError, with what to fix) is raised for the caller's status output.

    The rows go out on ``outgoing.connections`` connections at once (`lanes`; 1 when it
    says nothing), each recipient's mails on one of them in their order. ``guard`` is held
    around the database work of each row (the daemon's database lock) and never while a
    mail is on the wire.
    """
    return await _send(ctx, outgoing, limit, health, claims, set(), guard)


def lanes(rows: Sequence[Any], width: int) -> list[list[Any]]:
    """``rows`` (in order) dealt to at most ``width`` lanes sent side by side: every row to
    the lane of the rows before it to the same recipients (a player gets their mails in the
    order they were queued), a new recipient to the shortest lane."""
    dealt: list[list[Any]] = [[] for _ in range(max(1, min(width, len(rows))))]
    lane_of: dict[str, list[Any]] = {}
    for row in rows:
        lane = lane_of.get(row.recipients_json)
        if lane is None:
            lane = lane_of[row.recipients_json] = min(dealt, key=len)
        lane.append(row)
    return [lane for lane in dealt if lane]


@dataclass
class _Drain:
    """What the lanes of one listing share: the counts, and whether to stop."""

    sent: int = 0
    released: bool = False
    stop: bool = False  # the server is unwell (a 4xx, or down): no lane takes another row
    down: MailServerError | None = None  # the first lane to find the server down: raised once all are over
    #: Set once the first lane's server answered about a mail (or that lane is over): the other
    #: lanes open their connections only then, so a server that cannot be used (a wrong
    #: password, a bad certificate) is tried once a drain, never once a connection.
    answered: asyncio.Event = field(default_factory=asyncio.Event)


#: Rows a drain claims at once, for each of the connections it sends on: enough that a listing
#: and a read under the claims cost little a mail, few enough that several workers share a
#: backlog. Never more than half the rows a listing reads: another worker's drain, listing the
#: same rows meanwhile, finds some of them free.
TAKE_PER_CONNECTION = 4


async def _send(ctx: Context, outgoing: Outgoing, limit: int, health: ServerHealth | None, claims: Claims | None,
                marked: set[int], guard: AbstractAsyncContextManager[Any] | None = None, own_first: bool = False) -> int:
    """`send`; ``marked`` gets the ids of the rows marked sent. Each round lists the due rows
    and claims the first few (one statement), reads those again under their claims (one
    more), and sends them on its lanes, marking each as it goes (one statement a mail)."""
    health = health if health is not None else ServerHealth()
    if health.down and health.next_probe is not None and ctx.now() < health.next_probe:
        raise _still_down(health)
    guard = guard if guard is not None else nullcontext()
    sent = 0
    while True:
        # a server that is down, or just back, is probed (and its backlog let go) on one connection
        width = 1 if health.down else max(1, int(getattr(outgoing, "connections", 1)))
        want = max(1, min(width * TAKE_PER_CONNECTION, limit // 2))
        async with guard:
            rows, taken = _listed(ctx, limit, claims, own_first, want)
            ready, raws = _under_claims(ctx, rows, taken, claims)
        drain = _Drain()
        if ready:
            await _all_lanes([_lane(ctx, outgoing, lane, raws, health, claims, marked, guard, drain, first=not at)
                              for at, lane in enumerate(lanes(ready, width))])
        sent += drain.sent
        if drain.down is not None:
            raise drain.down
        if drain.stop:
            return sent  # the server is unwell: try the rest later
        # every row taken left the due set (sent, failed, dropped or backed off); more may be
        # due when the listing was full or this round took all it could
        if (not taken or (len(taken) < want and len(rows) < limit)) and not drain.released:
            return sent


async def _all_lanes(lanes: list[Coroutine[Any, Any, None]]) -> None:
    """The lanes side by side, to the end of every one: one that fails (or the drain cancelled)
    stops the others, and they are over before it goes on (`drain` then gives back the claims:
    never those of a mail still on the wire)."""
    running = [asyncio.ensure_future(lane) for lane in lanes]
    try:
        await asyncio.gather(*running)
    except BaseException:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise


async def _lane(ctx: Context, outgoing: Outgoing, rows: Sequence[Any], raws: dict[int, bytes], health: ServerHealth,
                claims: Claims | None, marked: set[int], guard: AbstractAsyncContextManager[Any], drain: _Drain,
                first: bool) -> None:
    """One lane's rows, in order, one at a time on its own connection; the ``first`` lane
    goes ahead, the others once the server answered it (`_Drain.answered`)."""
    if not first:
        await drain.answered.wait()
    try:
        await _lane_rows(ctx, outgoing, rows, raws, health, claims, marked, guard, drain)
    finally:
        drain.answered.set()


async def _lane_rows(ctx: Context, outgoing: Outgoing, rows: Sequence[Any], raws: dict[int, bytes],
                     health: ServerHealth, claims: Claims | None, marked: set[int],
                     guard: AbstractAsyncContextManager[Any], drain: _Drain) -> None:
    """The rows of a lane, claimed and read again under their claims (`_under_claims`: their
    bytes in ``raws``), each sent and recorded before the next."""
    for row in rows:
        if drain.stop:
            return
        assert row.id is not None
        raw = raws.pop(row.id)
        _forget_mine(ctx, row.id)
        async with guard:
            why = _stale_reminder(ctx, row)
            if why:
                _drop(ctx, row.id, why)
                _settled(claims, row.id)
                continue
        recipients = json.loads(row.recipients_json)
        try:
            result = await outgoing.send(row.mail_from, recipients, raw)
        except MailServerError as exc:
            async with guard:
                _settled(claims, row.id)
                _note_probe(ctx, row.id, str(exc))
                if drain.down is None:
                    health.failed(ctx, exc)
                    drain.down = exc
                drain.stop = True
            return
        except (MailTransientError, MailPermanentError) as exc:  # the server's answer about this mail
            drain.answered.set()
            transient = isinstance(exc, MailTransientError)
            async with guard:
                _settled(claims, row.id)
                drain.released |= _answered(ctx, health)
                log.log(logging.WARNING if transient else logging.ERROR, "outbox %s: %s failure: %s", row.message_id,
                        "temporary" if transient else "permanent", exc)
                _record(ctx, row.id, "queued" if transient else "failed", str(exc), retry=transient)
            if transient:
                drain.stop = True  # the server is unwell: the rest is tried later
                return
            continue
        except BaseException:
            _settled(claims, row.id)  # cancelled on the wire: its claim is given back with the others
            raise
        drain.answered.set()
        async with guard:
            _settled(claims, row.id)
            drain.released |= _answered(ctx, health)
            checkpoint("outbox.after-send")
            if result.all_sent:
                _record(ctx, row.id, "sent", claims=claims)
                marked.add(row.id)
                drain.sent += 1
            elif result.transient:
                _record(ctx, row.id, "queued", _summary(result), retry=True)
            else:
                # One recipient a row: it was refused for good.
                _record(ctx, row.id, "failed", _summary(result))


def _settled(claims: Claims | None, row_id: int) -> None:
    """The row is no longer on the wire: its claim may be given back by a later claim's
    statement (`Claims.idle`)."""
    if claims is not None:
        claims.idle(OUTBOX, row_id)


def _answered(ctx: Context, health: ServerHealth) -> bool:
    """The server answered about a mail: if it was down, it is back, and everything the outage
    held back is due now (True: read the queue again)."""
    if not health.down:
        return False
    health.recovered(ctx, _release_waiting(ctx))
    return True


def _still_down(health: ServerHealth) -> MailServerError:
    return MailServerError(f"{health.error} (next try at {_iso(health.next_probe)})", health.fix)


def requeue(ctx: Context, *, message_ids: Sequence[str] = (), game_id: str | None = None,
            kind: str | None = None) -> list[OutboxMail]:
    """Put failed mail back in the queue (``pbem outbox retry``): due now, attempts from zero.
    Without ``message_ids`` every failed mail (of ``game_id``/``kind`` when given)."""
    with ctx.session() as s:
        stmt = select(OutboxMail).where(OutboxMail.status == "failed")
        if message_ids:
            wanted = [m if m.startswith("<") else f"<{m}>" for m in message_ids]
            stmt = stmt.where(col(OutboxMail.message_id).in_(wanted))
        if game_id:
            stmt = stmt.where(OutboxMail.game_id == game_id)
        if kind:
            stmt = stmt.where(OutboxMail.kind == kind)
        rows = list(s.exec(stmt.order_by(col(OutboxMail.id))))
        now = ctx.now()
        for row in rows:
            row.status, row.attempts, row.next_attempt_at = "queued", 0, now
            row.created_at = now  # give_up counts from the retry, not from the first try
            row.last_error = f"requeued after: {row.last_error}"[:2000]
            s.add(row)
        s.commit()
        for row in rows:
            s.refresh(row)
        return rows


def listing(ctx: Context, *, status: str | None = None, game_id: str | None = None,
            limit: int = 50) -> list[OutboxMail]:
    """The newest outbox rows (``pbem outbox list``), newest first; without their bytes (a
    welcome with its map is ~300 KB, each decrypted for a line that shows none of it)."""
    with ctx.session() as s:
        stmt = select(OutboxMail).options(_NO_RAW)
        if status:
            stmt = stmt.where(OutboxMail.status == status)
        if game_id:
            stmt = stmt.where(OutboxMail.game_id == game_id)
        return list(s.exec(stmt.order_by(col(OutboxMail.id).desc()).limit(limit)))


def _summary(result: SendResult) -> str:
    return "; ".join(f"{rcpt}: {r.code} {r.text}" for rcpt, r in result.recipients.items())
