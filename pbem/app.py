"""The daemon: wires the configuration to the mail servers, the database and the
jobs, and runs the cycle fetch → process → resolve what is due → send.

`run_once` is one full cycle (cron, scripts, tests); `serve` keeps an IDLE watcher
task on the inbox and scheduler jobs for deadlines, reminders and the outbox, so
deadlines still fire while the mail server is down and replies wait in the outbox.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Sequence, TypeVar

from sqlalchemy import select

from pbem.config import Config, helo_name
from pbem.db.lock import DaemonLock
from pbem.db.models import ReportJob
from pbem.db.session import make_engine
from pbem.errors import DrawingRefused, MailError, MailServerError, PbemError
from pbem.faults import checkpoint
from pbem.mail.transport import Inbox, Outgoing, SendResult
from pbem.render import refuse
from pbem.service import budget, inbound, limits, logjson, outbox, receipt, retention, sdnotify, status, turns
from pbem.service import queue, wakeup, workers
from pbem.service.claims import Claims
from pbem.service.lease import TRY_SECONDS, MailboxLease
from pbem.service.context import Context

log = logging.getLogger(__name__)
T = TypeVar("T")

#: A batch's replies are sent while it is handled, by a drain every this many mails (`App._drain_meanwhile`).
DRAIN_EVERY = 8
#: While mail keeps coming, the watcher's cycles run the time-driven jobs (deadlines, reminders,
#: the purge) at most once in this many seconds; the scheduler's own job runs them as often. Each
#: run reads every active game's open phase for its reminders: once per batch of mail, it cost
#: 11-18 ms every few mails (200 games; benchmarks/mail_throughput.py) and grew with the games.
JOBS_EVERY = 15.0

_JOBS = ReportJob.__table__  # type: ignore[attr-defined]
#: The pending report jobs, each logged once (`App._log_resolutions`).
_PENDING_JOBS = (select(_JOBS.c.id, _JOBS.c.game_id, _JOBS.c.first_seq, _JOBS.c.last_seq)
                 .where(_JOBS.c.status == "pending"))


@dataclass
class CycleSummary:
    fetched: int = 0
    handled: dict[str, int] = field(default_factory=dict)
    resolved: int = 0
    reports: int = 0
    reminders: int = 0
    sent: int = 0
    errors: list[str] = field(default_factory=list)
    servers: list[dict[str, Any]] = field(default_factory=list)  # a mail server that cannot be used: what to fix

    def as_dict(self) -> dict[str, Any]:
        return {"fetched": self.fetched, "handled": self.handled, "resolved": self.resolved, "reports": self.reports,
                "reminders": self.reminders, "sent": self.sent, "errors": self.errors, "servers": self.servers}


def settle_memory() -> None:
    """What start-up made (modules, the configuration, the mail clients) set beside the cyclic
    collector (`gc.freeze`): it lives as long as the daemon, and each full collection walked it
    again (measured with `gc.callbacks`: 60-110 ms once every ~200 order mails, a tenth of their
    handling). What dies later is still freed by reference counting."""
    gc.collect()
    gc.freeze()


def _exit_with_parent() -> None:
    """In a map worker: exit when the daemon dies (a crash must not leave workers behind).
    Ctrl-C reaches every process of the terminal's group: the daemon stops its workers
    itself, so a worker ignores it (no KeyboardInterrupt traceback from a worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


async def _whole(func: Callable[..., T], *args: Any, undo: Callable[[T], object] | None = None) -> T:
    """``func(*args)`` in a thread, awaited to its end even when the caller is cancelled
    meanwhile (a thread goes on regardless): its work is then undone by ``undo`` (given its
    result), and the cancellation goes on. The claims of stored mail are never given back
    while the thread that takes them, or handles their mail, still runs."""
    running = asyncio.ensure_future(asyncio.to_thread(func, *args))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        result = (await asyncio.gather(running, return_exceptions=True))[0]
        if undo is not None and not isinstance(result, BaseException):
            await asyncio.to_thread(undo, result)
        raise


class App:
    def __init__(self, ctx: Context, inbox: Inbox, outgoing: Outgoing, embedded: Any = None,
                 roles: frozenset[str] = frozenset(workers.ROLES)) -> None:
        self.ctx = ctx
        self.roles = roles  # what this worker does (pbem.service.workers)
        mode = ctx.config.database.workers  # "shared": one of several workers on PostgreSQL
        self.claims = Claims(ctx.engine, mode)  # its share of the work, among workers on PostgreSQL
        self.lease = MailboxLease(ctx.engine, mode)  # one worker at a time reads the mailbox
        # mail the reader stored, for the others; mail to send and maps to draw, for a worker of those alone
        self.stored = wakeup.Listener(ctx.engine, self.claims.shared, wakeup.channels(roles))
        self.ctx.defer_reports = True  # the report stage below draws the maps
        self.inbox = inbox
        self.outgoing = outgoing
        self.embedded = embedded
        self._pool: Executor | None = None
        self._daemon_lock = DaemonLock(ctx.engine, exclusive=mode != "shared")  # one daemon: a second is refused
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()  # one unit of database work at a time: a mail, the jobs, the outbox
        self._inbox_lock = asyncio.Lock()  # one pass over the inbox at a time: no mail is taken twice
        self._drain_lock = asyncio.Lock()  # one drain of the outbox at a time: no row is sent twice
        self._drainer: asyncio.Task[int] | None = None  # the drain sending a batch's replies while it is handled
        self._unsent = 0  # mails handled since that drain last began
        # A batch's replies go out while it is handled (`_drain_meanwhile`), on SQLite too: the
        # drain mostly waits on the SMTP server, and after the batch it cost as much wall time as
        # handling it (benchmarks/mail_throughput.py, 100 order mails on SQLite: 72-90 mails/s
        # without, 94-100 with, the same CPU a mail). Off: only the cycle's own drain sends.
        self.send_meanwhile = True
        self.inspector = budget.Inspector(ctx.config.limits.mail_seconds)
        name = getattr(outgoing, "server", None)
        self.smtp_health = outbox.ServerHealth(name if isinstance(name, str) else "SMTP")
        self._inbox_error = ""
        self._logged_jobs: set[int] = set()
        self._purged_at: datetime | None = None
        self._jobs_at: float | None = None  # time.monotonic() of the jobs' last run

    @classmethod
    def from_config(cls, cfg: Config, ctx: Context | None = None,
                    roles: frozenset[str] = frozenset(workers.ROLES)) -> "App":
        from pbem.mail.imap import ImapInbox
        from pbem.mail.smtp import SmtpSender

        ctx = ctx or Context(engine=make_engine(cfg.database.resolved().url), config=cfg)
        mail = cfg.mail
        if mail.backend == "embedded":
            from pbem.mail.embedded import EmbeddedMailServer

            emb = mail.embedded
            server = EmbeddedMailServer(host=emb.host, imap_port=emb.imap_port, smtp_port=emb.smtp_port,
                                        maildir=emb.maildir, domains=tuple(emb.domains), password=emb.password)
            inbox: Inbox = ImapInbox(emb.host, emb.imap_port, cfg.server.address, emb.password, "none",
                                     use_idle=mail.idle, max_size=mail.max_size, poll_interval=mail.poll_seconds)
            outgoing: Outgoing = SmtpSender(emb.host, emb.smtp_port, local_hostname=helo_name(cfg),
                                            setting="mail.embedded", connections=cfg.outbox.connections)
            return cls(ctx, inbox, outgoing, server, roles)
        imap_user, imap_pass = mail.imap.credentials()
        smtp_user, smtp_pass = mail.smtp.credentials()
        inbox = ImapInbox(mail.imap.host, mail.imap.port, imap_user or cfg.server.address, imap_pass or "",
                          mail.imap.security,  # type: ignore[arg-type]
                          mailbox=mail.imap.mailbox, use_idle=mail.idle, max_size=mail.max_size,
                          poll_interval=mail.poll_seconds, ssl_context=mail.imap.ssl_context())
        outgoing = SmtpSender(mail.smtp.host, mail.smtp.port, smtp_user, smtp_pass,
                              mail.smtp.security,  # type: ignore[arg-type]
                              ssl_context=mail.smtp.ssl_context(), local_hostname=helo_name(cfg),
                              connections=cfg.outbox.connections)
        return cls(ctx, inbox, outgoing, None, roles)

    async def start(self) -> None:
        self._daemon_lock.acquire()
        if self.embedded is not None:
            await self.embedded.start()
            log.info("embedded mail server: IMAP %s:%s, SMTP %s:%s", self.embedded.host, self.embedded.imap_port,
                     self.embedded.host, self.embedded.smtp_port)
        try:
            if "inbox" in self.roles:
                await self.inbox.connect()
        except MailError as exc:
            fix = getattr(exc, "fix", "")
            log.warning("inbox not reachable yet (%s)%s; deadlines still run, mail is retried", exc,
                        f" — to fix: {fix}" if fix else "")
            self._inbox_error = str(exc)

    async def stop(self) -> None:
        self._stop.set()
        await asyncio.to_thread(self.stored.stop)
        closing = getattr(self.outgoing, "close", None)
        if closing is not None:
            try:
                await closing()
            except Exception:  # a dead SMTP connection must not hide the real error
                log.debug("closing the SMTP connection failed", exc_info=True)
        try:
            await self.inbox.close()
        except Exception:  # closing a dead connection must not hide the real error
            log.debug("closing the inbox failed", exc_info=True)
        if self.embedded is not None:
            await self.embedded.stop()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        await asyncio.to_thread(self.inspector.close)
        self.lease.release()
        self.claims.close()
        self._daemon_lock.release()

    async def process_inbox(self, summary: CycleSummary | None = None) -> int:
        """Fetch unseen mail; each one is committed before it is marked \\Seen.

        Each mail is on record before it is read (`receipt.receive`), read first in the
        worker under its time budget (`budget.Inspector`) without holding the database
        lock, then handled under that lock alone: the deadline and outbox jobs run between
        mails and while a mail is being read."""
        summary = summary or CycleSummary()
        if "inbox" not in self.roles:
            return 0
        if self.claims.shared:  # PostgreSQL: the reader stores, any worker handles (pbem.service.queue)
            return await self._store_and_handle(summary)
        async with self._inbox_lock:
            mails = await self.inbox.fetch_new()
            self.inspector.ahead([fetched.raw for fetched in mails if fetched.raw is not None])  # read ahead
            committed: list[int] = []
            try:
                for fetched in mails:
                    self._count(summary, await self._one_mail(fetched))
                    checkpoint("inbound.after-commit")
                    committed.append(fetched.uid)
                    self._drain_meanwhile(summary)
                    await asyncio.sleep(0)  # handled on the loop: the replies' sending goes on between mails
            finally:  # one STORE \Seen for the batch, only for mails whose work is committed
                try:
                    await self.inbox.mark_seen_many(committed)
                finally:
                    await self._drained()
            summary.fetched += len(mails)
            return len(mails)

    async def _store_and_handle(self, summary: CycleSummary) -> int:
        """Workers on PostgreSQL: the mailbox reader stores the mails it fetched (a statement for
        many, `queue.store_many`) and marks them \\Seen; then this worker handles the stored
        mails it can claim, one transaction each."""
        count = 0
        got: inbound.Handled | None
        if await asyncio.to_thread(self.lease.hold):
            async with self._inbox_lock:
                mails = await self.inbox.fetch_new()
                stored: list[int] = []
                try:
                    for fetched in mails:  # too big to be fetched: on record at once, with its head
                        if fetched.raw is None:
                            async with self._lock:
                                got = await asyncio.to_thread(inbound.record_oversized, self.ctx, fetched.uid,
                                                              fetched.uidvalidity, fetched.size, fetched.head)
                            self._count(summary, got)
                            stored.append(fetched.uid)
                    whole = {fetched.uid: fetched.raw for fetched in mails if fetched.raw is not None}
                    if whole:  # the rest in a few statements (`queue.store_many`)
                        for got in await asyncio.to_thread(queue.store_many, self.ctx, list(whole.values()),
                                                           self.claims):
                            self._count(summary, got)
                        checkpoint("inbound.after-commit")
                        stored += whole
                finally:  # one STORE \Seen for the batch, after every mail's commit
                    await self.inbox.mark_seen_many(stored)
                count = len(mails)
                summary.fetched += count
        try:
            await self._handle_stored(summary)
        finally:
            await self._drained()
        return count

    @staticmethod
    def _count(summary: CycleSummary, got: inbound.Handled | None) -> None:
        """A mail handled (None: stored by the mailbox reader, handled later by a worker)."""
        if got is not None:
            summary.handled[got.status] = summary.handled.get(got.status, 0) + 1

    async def _handle_stored(self, summary: CycleSummary) -> None:
        """The stored mails this worker can claim, a few at a time (`queue.claim`), each handled
        in one transaction, the mail reader reading the next while one is handled (as on
        SQLite). Once the batch is over its claims are given back in one statement: those
        handed to their handling as done, the rest (the worker was stopped) as never tried."""
        while batch := await self._claim_batch():
            tried: list[int] = []
            try:
                for claimed in batch:
                    self._count(summary, await self._handle_one_stored(claimed, tried))
                    self._drain_meanwhile(summary)
                    await asyncio.sleep(0)  # handled on the loop: the replies' sending goes on between mails
            finally:
                await asyncio.to_thread(self._give_back, batch, tried)

    async def _handle_one_stored(self, claimed: queue.Claimed, tried: list[int]) -> inbound.Handled:
        """One claimed mail: its verdict waited for without the database lock, then handled
        under it (``tried`` gets its row as it is handed over). A cancelled caller waits for
        the handling begun, so that its claim is never given back while it runs."""
        with logjson.about_mail(mail=claimed.row_id) as about:
            known, over = self.inspector.poll(claimed.raw)  # never waits: read ahead (`_claim`)
            if not known:
                over = await asyncio.to_thread(self.inspector.check, claimed.raw)
            async with self._lock:
                tried.append(claimed.row_id)
                result = await self._handle_here(claimed.raw, claimed.row_id, over, claimed.received_at,
                                                 self.inspector.reading(claimed.raw))
            about.update(game=result.game_id)
            if result.status == "orders":
                about["seat"] = result.seat or await asyncio.to_thread(self._seat_of, result.inbound_id)
                log.info("game %s: orders accepted from seat %s (inbound mail %s)", result.game_id,
                         about["seat"], result.inbound_id)
            return result

    async def _claim_batch(self) -> list[queue.Claimed]:
        """`_claim` in its thread; cancelled meanwhile, the claims it takes are given back as
        never tried."""
        return await _whole(self._claim, undo=lambda taken: self._give_back(taken, []))

    def _claim(self) -> list[queue.Claimed]:
        """The next stored mails this worker can claim, handed to the mail reader to be read
        under their time budget (`budget.Inspector.ahead`) while the first is handled."""
        batch = queue.claim(self.ctx, self.claims)
        self.inspector.ahead([claimed.raw for claimed in batch])
        return batch

    def _give_back(self, batch: Sequence[queue.Claimed], tried: Sequence[int]) -> None:
        """The batch's claims given back: the mails handed to their handling as done, the
        rest as never tried (`queue.release`)."""
        untried = [claimed.row_id for claimed in batch if claimed.row_id not in tried]
        try:
            queue.done(self.ctx, self.claims, tried)
        finally:
            if untried:
                queue.release(self.ctx, self.claims, untried)

    async def _one_mail(self, fetched: Any) -> inbound.Handled:
        """One mail; every line logged meanwhile names it (and its game and seat once known)."""
        with logjson.about_mail(mail=f"uid {fetched.uid}") as about:
            handled = await self._read_mail(fetched, about)
            about.update(game=handled.game_id, mail=handled.inbound_id or about["mail"])
            if handled.status == "orders":  # one line, no secret: the mail's number, its game and seat
                about["seat"] = handled.seat or await asyncio.to_thread(self._seat_of, handled.inbound_id)
                log.info("game %s: orders accepted from seat %s (inbound mail %s)", handled.game_id, about["seat"],
                         handled.inbound_id)
            return handled

    def _seat_of(self, inbound_id: int | None) -> str | None:
        from sqlmodel import select

        from pbem.db.models import SheetRow

        with self.ctx.session() as s:
            sheet = s.exec(select(SheetRow).where(SheetRow.inbound_id == inbound_id)).first()
        return sheet.seat if sheet is not None else None

    async def _read_mail(self, fetched: Any, about: dict[str, Any]) -> inbound.Handled:
        if fetched.raw is None:
            async with self._lock:
                return await asyncio.to_thread(inbound.record_oversized, self.ctx, fetched.uid, fetched.uidvalidity,
                                               fetched.size, fetched.head)
        raw = fetched.raw
        async with self._lock:
            got = receipt.receive(self.ctx, raw)  # on record before it is read (one INSERT, here)
            if got.handled is not None:
                return got.handled
            assert got.row_id is not None
            about["mail"] = got.row_id
            known, over = self.inspector.poll(raw)  # the reader reads the batch ahead: usually known
            if known:
                return await self._handle_here(raw, got.row_id, over, got.received_at, self.inspector.reading(raw))
        # still being read: waited for without the database lock (the jobs and the outbox run meanwhile)
        over = await asyncio.to_thread(self.inspector.check, raw)
        async with self._lock:
            return await self._handle_here(raw, got.row_id, over, got.received_at, self.inspector.reading(raw))

    async def _handle_here(self, raw: bytes, row_id: int, over: str | None, received_at: datetime | None = None,
                           reading: budget.Reading | None = None) -> inbound.Handled:
        """`_handle` on the event loop's own thread: most mails are handled in a few ms, and a
        thread would cost them more than their handling (the hop, and the interpreter lock
        handed back and forth with the loop at every statement: ~1 ms of CPU a mail more,
        measured with benchmarks/mail_throughput.py). A mail whose handling would draw a map
        stops before it draws, nothing of it kept (`pbem.render.refuse`), and is handled again
        in a thread: no map is drawn on the loop. The caller holds the database lock."""
        try:
            with refuse.drawing_refused():
                return self._handle(raw, row_id, over, received_at, reading)
        except DrawingRefused:
            return await _whole(self._handle, raw, row_id, over, received_at, reading)

    def _handle(self, raw: bytes, row_id: int, over: str | None, received_at: datetime | None = None,
                reading: budget.Reading | None = None) -> inbound.Handled:
        """A mail on record, handled: recorded as over budget (``over``: why), else read
        (``received_at``: the row's time; ``reading``: what the mail reader read of it,
        `inbound.handle`)."""
        if over is not None:
            return receipt.over_budget(self.ctx, row_id, raw, over)
        return inbound.handle(self.ctx, raw, row_id, received_at, reading)

    async def run_jobs(self, summary: CycleSummary | None = None) -> None:
        summary = summary or CycleSummary()
        if "deadlines" not in self.roles:
            return
        self._jobs_at = time.monotonic()
        summary.resolved += await asyncio.to_thread(turns.resolve_due, self.ctx)
        summary.reminders += await asyncio.to_thread(turns.send_reminders, self.ctx)
        now = self.ctx.now()
        if self._purged_at is None or now - self._purged_at >= retention.INTERVAL:
            await asyncio.to_thread(retention.purge, self.ctx)  # raw mail past retention.raw_mail
            await asyncio.to_thread(limits.forget_tally, self.ctx)  # minutes no answer cap counts any more
            self._purged_at = now

    def _executor(self) -> Executor | None:
        """The map workers: processes, so that drawing uses the other cores (None: threads)."""
        workers = self.ctx.config.render.workers
        if workers and self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_exit_with_parent)
        return self._pool

    def _log_resolutions(self) -> None:
        """One line per resolution: every resolved phase leaves a report job (`reports`).
        The jobs logged are remembered while they are pending only: the statement and the
        set stay the size of the jobs waiting, however long the daemon runs."""
        # one statement on the claims' connection (no session: a pooled connection's check, a rollback)
        jobs = self.claims.execute(self.ctx, _PENDING_JOBS)
        for job in jobs:
            if job.id in self._logged_jobs:
                continue
            phases = str(job.first_seq) if job.first_seq == job.last_seq else f"{job.first_seq}-{job.last_seq}"
            log.info("game %s: phase %s resolved; drawing the reports", job.game_id, phases,
                     extra={"game": job.game_id})
        self._logged_jobs = {job.id for job in jobs}

    async def draw_reports(self, summary: CycleSummary | None = None) -> int:
        if "maps" not in self.roles:
            return 0
        await asyncio.to_thread(self._log_resolutions)
        window = 4 * max(self.ctx.config.render.workers, 1)  # jobs in flight: the pool never waits
        done = await workers.draw_reports(self.ctx, self._executor(), self.claims, window)
        if summary is not None:
            summary.reports += done
        return done

    def _drain_meanwhile(self, summary: CycleSummary) -> None:
        """A mail of a batch is handled: the replies of the last `DRAIN_EVERY` are sent while
        the next ones are handled (a drain, unless one is under way; it lets the database lock
        go while a mail is on the wire, `_send_outbox`), not only once the whole batch is.
        Not after every mail: each drain lists the outbox once (`send_meanwhile`: off, only
        the cycle's own drain sends)."""
        self._unsent += 1
        if (self.send_meanwhile and "outbox" in self.roles and self._unsent >= DRAIN_EVERY
                and self._drainer is None and not self._drain_lock.locked()
                and not self.smtp_health.down):  # a server that is down: the cycle's drain probes it
            self._unsent = 0
            self._drainer = asyncio.create_task(self._drain_quietly(summary), name="outbox-meanwhile")
            self._drainer.add_done_callback(self._drain_done)

    def _drain_done(self, task: asyncio.Task[int]) -> None:
        if self._drainer is task:
            self._drainer = None

    async def _drain_logged(self, summary: CycleSummary) -> None:
        """The cycle's drain: a mail error in the summary and the log."""
        try:
            await self.drain(summary)
        except MailError as exc:
            summary.errors.append(f"outbox: {exc}")
            log.warning("outbox: %s", exc)

    async def _drain_quietly(self, summary: CycleSummary) -> int:
        """A drain while a batch is handled: its replies sent counted, a server that fails
        left for the cycle's own drain to report (the outbox logged the failure itself)."""
        try:
            sent = await self._send_outbox(own_first=True)
        except MailError as exc:
            log.debug("outbox, while mail is handled: %s", exc)
            return 0
        summary.sent += sent
        return sent

    async def _drained(self) -> None:
        """The end of a batch: the drain sending its replies is over (cancelled with it)."""
        task = self._drainer
        if task is None:
            return
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise
        finally:
            self._drain_done(task)

    async def _send_outbox(self, own_first: bool = False) -> int:
        """`outbox.drain`, one at a time, the database lock held for each row's database work,
        never while a mail is on the wire: mails are handled meanwhile. ``own_first``: while a
        batch is handled, the answers other workers queued lately are theirs to send."""
        async with self._drain_lock:
            return await outbox.drain(self.ctx, self.outgoing, health=self.smtp_health, claims=self.claims,
                                      guard=self._lock, own_first=own_first)

    async def drain(self, summary: CycleSummary | None = None) -> int:
        """Send the outbox, one drain at a time. A server that cannot be used is reported
        (with what to fix) in the summary; the outbox logged it once when it happened, not
        on every cycle. The database lock is held but while a mail is on the wire."""
        if "outbox" not in self.roles:
            return 0
        try:
            sent = await self._send_outbox()
        except MailServerError as exc:
            if summary is not None:
                summary.errors.append(f"outbox: {self.smtp_health.problem() or exc}")
                summary.servers.append(self.smtp_health.status())
            log.debug("outbox: %s", exc)
            return 0
        if summary is not None:
            summary.sent += sent
        return sent

    async def cycle(self, jobs: bool = True) -> CycleSummary:
        """One pass: fetch and process mail, resolve what is due (``jobs``: false, the
        deadline jobs are left to their next run), send the outbox. A mail server that is
        down is logged; the rest of the cycle still runs."""
        summary = CycleSummary()
        try:
            await self.process_inbox(summary)  # takes the lock mail by mail
            self._inbox_error = ""
        except MailError as exc:
            fix = getattr(exc, "fix", "")
            summary.errors.append(f"inbox: {exc}" + (f" — to fix: {fix}" if fix else ""))
            # the inbox logged the outage when it began: once a cycle here would flood the log
            log.log(logging.DEBUG if self._inbox_error else logging.WARNING, "inbox: %s", exc)
            self._inbox_error = str(exc)
        async with self._lock:
            if jobs:
                await self.run_jobs(summary)
            await self.draw_reports(summary)  # a mail that ended a turn: its reports now
        await self._drain_logged(summary)  # takes the lock itself
        async with self._lock:
            await asyncio.to_thread(status.record_cycle, self.ctx, self.claims)  # the heartbeat `pbem status` reads
        return summary

    async def run_once(self) -> dict[str, Any]:
        await self.start()
        try:
            summary = await self.cycle()
            if self.embedded is not None:
                await asyncio.sleep(0)  # let the embedded SMTP finish local deliveries
            return summary.as_dict()
        finally:
            await self.stop()

    async def _watch_inbox(self) -> None:
        """The IDLE watcher: wake on new mail (or the poll interval), run a cycle."""
        delay = 1.0
        while not self._stop.is_set():
            try:
                await self.cycle(jobs=self._jobs_due())
                if "inbox" in self.roles and self.lease.held:
                    await self.inbox.wait(self.ctx.config.mail.poll_seconds)
                else:  # not the mailbox reader: handle what it stores, try for the lease again soon
                    await self.stored.wait(min(TRY_SECONDS, self.ctx.config.mail.poll_seconds))
                delay = 1.0
            except asyncio.CancelledError:
                raise
            except PbemError as exc:
                log.warning("mail watcher: %s; retrying in %.0f s", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 300.0)
            except Exception:
                log.exception("mail watcher failed; retrying in %.0f s", delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 300.0)

    def _jobs_due(self) -> bool:
        """Whether the watcher's cycle runs the deadline jobs: not if they ran in the last
        `JOBS_EVERY` seconds (mail coming fast would run them for every batch)."""
        return self._jobs_at is None or time.monotonic() - self._jobs_at >= JOBS_EVERY

    async def _job(self, name: str) -> None:
        try:
            if name == "deadlines":
                async with self._lock:
                    await self.run_jobs()
                    await self.draw_reports()
            else:
                await self.drain()  # takes the lock itself
        except MailError as exc:
            log.warning("%s job: %s", name, exc)
        except Exception:
            log.exception("%s job failed", name)

    async def _watchdog(self) -> None:
        """WATCHDOG=1 from the event loop itself: a loop that hangs stops the pings."""
        interval = sdnotify.watchdog_interval()
        while interval is not None and not self._stop.is_set():
            sdnotify.notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    async def serve(self) -> None:
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        await self.start()
        scheduler = AsyncIOScheduler(timezone="UTC")
        scheduler.add_job(self._job, "interval", args=["deadlines"], seconds=15, max_instances=1, coalesce=True,
                          id="deadlines", name="deadlines, reminders and reports")
        scheduler.add_job(self._job, "interval", args=["outbox"], seconds=self.ctx.config.outbox.drain_seconds,
                          max_instances=1, coalesce=True, id="outbox", name="outbox")
        scheduler.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, self._stop.set)
            except (NotImplementedError, RuntimeError):
                pass
        self.stored.start()  # listens only where there is something to listen for (`wakeup.channels`)
        settle_memory()
        watcher = asyncio.create_task(self._watch_inbox(), name="inbox-watcher")
        log.info("pbem serving; mail to %s", self.ctx.config.server.address)
        sdnotify.notify(f"READY=1\nSTATUS=serving; mail to {self.ctx.config.server.address}")
        pings = asyncio.create_task(self._watchdog(), name="watchdog")
        try:
            await self._stop.wait()
        finally:
            sdnotify.notify("STOPPING=1")
            watcher.cancel()
            pings.cancel()
            await asyncio.gather(watcher, pings, return_exceptions=True)
            scheduler.shutdown(wait=False)
            await self.stop()
            log.info("pbem stopped")
