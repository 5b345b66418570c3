"""End-to-end mail figures on loopback (embedded pymap + aiosmtpd in a process of its own):

* order mails processed per second: players send order mails over SMTP, the daemon
  fetches them over IMAP, checks them, commits, and sends every reply over SMTP;
  measured separately for mails that only file orders and for mails that complete a
  turn (resolution, map rendering, a report to every seat), from the first send to every
  mail handled and every reply (and report) sent; the CPU time the daemon spent a mail;
* time from the last order of a turn to every report mail queued (in the outbox);
* peak memory of the daemon's process;
* the floor: in the same run, the raw rate of the same mail path with no processing at
  all, and pbem's rate for mails that file orders as a share of it. The floor sends the
  very mails of the burst (to a mailbox of its own) while a process of its own, as the
  daemon is, reads them with the daemon's IMAP calls (aioimaplib FETCH and STORE, one each
  a batch, IDLE between) and sends each a copy of a reply the daemon wrote in the warm-up
  below (aiosmtplib). The floor and pbem's burst are measured in turn ``--pairs`` times (3
  by default), each pair on games of its own, and the median printed last: on a shared
  machine the floor alone wandered by half within the hour. Kriegspiel's first phase is sealed: each such mail also draws its
  seat's preview map (and the reply carries it); ``--kind corteo`` files orders with no map;
* the CPU time a mail of every process on the path, for the floor (the players' side, the
  mail server, its reader) and for pbem (the players' side, the mail server, the daemon's
  processes and their children, on PostgreSQL their backends), and the one as a multiple of
  the other: the rates follow the machine's speed, which wanders on a shared machine, this
  ratio much less (on 2 cores, with every core busy, half the floor's rate is about twice
  its CPU a mail).

The mail server (the embedded one, every mail in memory, in a process of its own) runs without
Python's cyclic collector, whose full collections walked every mail it held and stalled every
client at once (`mailserver.MailServerProcess`): a real mail server does not pause so.

Each game has its own two players (``--players own``, the default), as in a club: a burst's
replies go to as many addresses as it has mails, and the daemon sends them on its
``outbox.connections`` connections at once, as `pbem serve` does (the outbox keeps one
address's mails in order on one connection). ``--players shared`` seats the same two
addresses in every game, the figures of before 2026-11-27: every reply of the burst to one
address, so on one connection, and each answer limit counted over all the burst's answers.
The floor sends each reply to the mail's sender too.

The daemon runs as `pbem serve` runs, in a process of its own (``App.serve``: IDLE on the
inbox, a cycle when mail comes), and the players' mails, written before the timing, go out
from this process while it runs: mail comes while mail is handled, as it does to a daemon in
service. Every burst ends with a check that each mail was handled exactly once: one inbound
row a mail, all ``orders``, one sheet each (the seats sent), one reply each, sent.

``--url`` names the database: a SQLite file in a fresh folder by default (one daemon). With
``--url postgresql://…`` the database is dropped and made again (a name of the benchmark's
own: every table is emptied), and ``--workers N`` daemon processes serve it as `pbem serve`
workers do (one holds the mailbox lease and stores each mail, every worker claims and
handles stored mails, `pbem.service.queue`). The daemon (each worker) is spawned, its modules
and the game's rules loaded, its database and inbox connected and a first cycle run before
the timing, as a running one is. A burst is over when every mail is handled, no outbox row
is queued and no report job pending (polled from here on a connection of its own).
Printed then: the daemon's (workers') CPU a mail (the sum of their processes, os.times; and
apart, their mail readers' and map pools'), on PostgreSQL the CPU of their backends a mail
(sampled from /proc, `deadline_storm.BackendClock`: the server must be on this machine; the
polling connection left out), the SQL statements sent a mail, how many mails each worker
handled, and the share of the floor. ``--workers 1 2`` runs each count in turn, each on a
new database, its games and its floor; the database is dropped at the end. ``--roles`` gives
the workers roles as ``pbem serve --role`` does, each its own in turn (``--workers 2 --roles
inbox,deadlines maps,outbox``: one handles the mail, the other sends the answers, woken by each
one queued, `pbem.service.wakeup`); a worker not named has them all. The latency
section runs on SQLite only, in this process once the daemon has stopped. The load average
at the start is printed first: on a shared machine the wall times follow it, the CPU times
less so.

The mail reader (the worker process that reads each mail under its time budget) is started
before the timing, as a running daemon has it; and before the timing the daemon (each worker)
handles a few order mails of games of their own (``WARM_UP`` a worker, in rounds until each
worker that reads mail has had its share: `warm_up`), as a running one has:
the game's tables loaded, its statements compiled (a fresh worker's first ten mails cost it two
to three times a later one's).

    .venv/bin/python benchmarks/mail_throughput.py [--games 30] [--width 1600] [--kind kriegspiel] [--orders-only]
        [--pairs 3] [--players own|shared]
        [--url postgresql://postgres@127.0.0.1:5432/pbem_mailbench --workers 1 2 [--roles inbox,deadlines maps,outbox]]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import multiprocessing
import os
import re
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pbem.app import App, CycleSummary  # noqa: E402
from pbem.config import Config, from_mapping  # noqa: E402
from pbem.core import registry  # noqa: E402
from pbem.db.session import make_engine  # noqa: E402
from pbem.errors import ConfigError  # noqa: E402
from pbem.demo import ScriptedTable, received, welcome_secret  # noqa: E402
from pbem.mail.imap import ImapInbox  # noqa: E402
from pbem.mail.smtp import SmtpSender  # noqa: E402
from pbem.service import games, inbound, store, timefmt  # noqa: E402
from pbem.service.context import Context  # noqa: E402
from pbem.service.workers import parse_roles  # noqa: E402
from deadline_storm import BackendClock, _admin_dsn, drop_database, remake_database  # noqa: E402
from mailserver import MailServerProcess  # noqa: E402

#: The key for data at rest that the PostgreSQL workers share (a stored mail is sealed with it).
KEY_FILE = "/tmp/pbem-mailbench.key"
LIMITS = {"per_sender_per_hour": 100000, "global_per_hour": 100000}
#: Order mails a daemon (or each worker) handles before the timing, in games of their own.
WARM_UP = 4
#: At most this many rounds of ``WARM_UP`` mails a worker, until every worker that reads mail
#: has handled its share: the mailbox's reader may take a whole round alone.
WARM_ROUNDS = 5
Sends = list[tuple[str, str, str]]  # (game, seat, orders)
Mails = list[tuple[str, str, str, bytes]]  # (game, seat, sender, the mail)
Players = dict[tuple[str, str], str]  # (game, seat) -> the player's address
#: The floor's mailbox: the same server, a mailbox no daemon reads.
FLOOR = "floor@localhost"
#: The trace fields a receiving server puts on top of a mail (our own server's, not a stranger's).
_TRACE = re.compile(rb"\A(?:(?:Return-Path|Received):[^\r\n]*\r\n(?:[ \t][^\r\n]*\r\n)*)+")


def is_shared(url: str) -> bool:
    return url.startswith("postgresql")


def config(url: str, width: int) -> Config:
    """The daemon's configuration: on PostgreSQL, shared by its workers (one key for all)."""
    if not is_shared(url):
        return from_mapping({"database": {"url": url}, "render": {"width": width}, "limits": LIMITS}, "bench")
    return from_mapping({"database": {"url": url, "workers": "shared"}, "render": {"width": width},
                         "limits": LIMITS, "security": {"key_file": KEY_FILE}}, "bench")


def default_text(ctx: Context, game_id: str, seat: str) -> str:
    with ctx.session() as s:
        game = store.get_game(s, game_id)
        rules = store.rules_of(game)
        return rules.default_orders(store.state_of(game), seat).canonical() or "PASS"


def last_ids(ctx: Context) -> tuple[int, int]:
    """The newest inbound and outbox rows before a burst: what it adds comes after."""
    from sqlalchemy import func
    from sqlmodel import select

    from pbem.db.models import InboundMail, OutboxMail

    with ctx.session() as s:
        return (s.exec(select(func.max(InboundMail.id))).one() or 0,
                s.exec(select(func.max(OutboxMail.id))).one() or 0)


def check_once(ctx: Context, after: tuple[int, int], sends: Mails) -> None:
    """Every mail of the burst handled exactly once: one inbound row each, all ``orders``,
    one sheet each for the seat that sent it, one reply each, sent to its sender."""
    from sqlmodel import col, select

    from pbem.db.models import InboundMail, OutboxMail, SheetRow

    with ctx.session() as s:
        rows = list(s.exec(select(InboundMail.status).where(col(InboundMail.id) > after[0])))
        sheets = list(s.exec(select(SheetRow.game_id, SheetRow.seat, SheetRow.inbound_id)
                             .where(col(SheetRow.inbound_id) > after[0])))
        replies = list(s.exec(select(OutboxMail.status, OutboxMail.recipients_json)
                              .where(col(OutboxMail.id) > after[1], OutboxMail.kind == "reply")))
    assert len(rows) == len(sends) and set(rows) == {"orders"}, f"inbound rows: {sorted(rows)[:5]}… of {len(rows)}"
    assert sorted((g, seat) for g, seat, _ in sheets) == sorted((g, seat) for g, seat, _, _ in sends), "sheets"
    assert len({i for _, _, i in sheets}) == len(sheets), "a mail filed twice"
    statuses = {status for status, _ in replies}
    assert len(replies) == len(sends) and statuses == {"sent"}, f"replies: {len(replies)} {statuses}"
    assert (sorted(json.loads(to)[0] for _, to in replies) == sorted(sender for _, _, sender, _ in sends)), \
        "a reply not to its mail's sender"


def write(table: ScriptedTable, sends: Sends, players: Players) -> Mails:
    """The players' order mails, written before the timing (as the floor's are), each from
    its game's player (``players``; the table's own address for a seat not in it)."""
    return [(game_id, seat, *table.order_mail(game_id, seat, text, sender=players.get((game_id, seat))))
            for game_id, seat, text in sends]


def own_players(seats: list[str], n: int) -> list[list[games.SeatSpec]]:
    """Each of ``n`` games its own players, one address a seat (``<seat>.<n>@localhost``), as
    in a club: no two games send their replies to the same address."""
    return [[games.SeatSpec(seat, f"{seat}.{i}@localhost") for seat in seats] for i in range(n)]


async def learn_secrets(server: MailServerProcess, table: ScriptedTable, players: Players) -> None:
    """The secret of every game's player, from the welcome in their mailbox (as they read it)."""
    for (game_id, seat), address in players.items():
        for raw in await server.messages(address):
            found = welcome_secret(received(seat, raw))
            if found is not None and found[0] == game_id:
                table.secrets[(game_id, seat)] = found[1]
        if (game_id, seat) not in table.secrets:
            raise AssertionError(f"no welcome with a secret reached {address}")


# --- the daemon: worker processes, as `pbem serve` runs them --------------------------------


class _Worker(App):
    """`pbem serve` as it runs, telling when its first cycle is over (it is then running),
    counting the mails it handles (each read under its budget, `App._handle`)."""

    cycled: asyncio.Event
    handled = 0

    async def cycle(self, jobs: bool = True) -> CycleSummary:
        summary = await super().cycle(jobs)
        self.cycled.set()
        return summary

    def _handle(self, raw: bytes, row_id: int, over: str | None, received_at: Any = None,
                reading: Any = None) -> inbound.Handled:
        handled = super()._handle(raw, row_id, over, received_at, reading)
        self.handled += 1
        return handled


class _Tally:
    """In a worker: the SQL statements it has sent, all its connections together."""

    def __init__(self, ctx: Context) -> None:
        from sqlalchemy import event

        self.statements = 0
        event.listen(ctx.engine, "before_cursor_execute", self._count)

    def _count(self, *_args: object) -> None:
        self.statements += 1


def _proc_cpu(pid: int | None) -> float:
    """CPU seconds of a process so far (its every thread), from /proc; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    """CPU seconds of this process so far (its every thread)."""
    times = os.times()
    return times.user + times.system


def _children_cpu() -> float:
    """CPU seconds of this process's children (the mail reader, the map pool), from /proc."""
    return sum(_proc_cpu(child.pid) for child in multiprocessing.active_children())


def worker(url: str, width: int, kind: str, imap_port: int, smtp_port: int, warm_maps: bool,
           conn: Connection, roles: str = "all") -> None:
    """One worker process: ``App.serve`` on the shared database, answering the benchmark's
    questions over ``conn`` ("cpu": its CPU seconds, its children's, the mails it handled,
    the statements it sent; "rss": its peak memory in MiB; "stop")."""
    asyncio.run(_worker(url, width, kind, imap_port, smtp_port, warm_maps, conn, roles))


async def _worker(url: str, width: int, kind: str, imap_port: int, smtp_port: int, warm_maps: bool,
                  conn: Connection, roles: str) -> None:
    cfg = config(url, width)
    ctx = Context(engine=make_engine(url, "require"), config=cfg)
    registry.get(kind)  # the game's rules and the dates' locale data loaded, as by the mails before
    for lang in ("en", "it"):  # in a running worker (py-spy: Babel's first load showed in the burst)
        timefmt.show(ctx.now(), "Europe/Rome", lang)
    tally = _Tally(ctx)
    inbox = ImapInbox("127.0.0.1", imap_port, cfg.server.address, "pbem", "none", max_batch=1000)
    app = _Worker(ctx, inbox, SmtpSender("127.0.0.1", smtp_port, connections=cfg.outbox.connections),
                  roles=parse_roles(roles))
    app.cycled = asyncio.Event()
    with ctx.session() as s:  # connected, as a running worker is
        s.connection()
    await asyncio.to_thread(app.inspector.check, b"Subject: warm-up\r\n\r\nstart the mail reader\r\n")
    pool = app._executor()
    if warm_maps and pool is not None:  # the map pool's process, started as a running daemon has it
        await asyncio.wrap_future(pool.submit(int))
    serving = asyncio.create_task(app.serve())
    await app.cycled.wait()
    conn.send("ready")
    while True:
        cmd = await asyncio.to_thread(conn.recv)
        if cmd == "cpu":
            conn.send((_own_cpu(), _children_cpu(), app.handled, tally.statements))
        elif cmd == "rss":
            conn.send(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        elif cmd == "stop":
            app._stop.set()
            await serving
            conn.send(None)
            return


class Workers:
    """``count`` worker processes on the database of ``url`` (spawned: modules loaded anew)."""

    def __init__(self, url: str, width: int, kind: str, server: MailServerProcess, count: int,
                 warm_maps: bool, roles: list[str] | None = None) -> None:
        spawn = multiprocessing.get_context("spawn")
        self.conns: list[Connection] = []
        self.started = False
        self.procs = []
        roles = (roles or []) + ["all"] * count
        self.roles = roles[:count]
        for n in range(count):
            mine, theirs = spawn.Pipe()
            self.conns.append(mine)
            self.procs.append(spawn.Process(target=worker, args=(url, width, kind, server.imap_port, server.smtp_port,
                                                                 warm_maps, theirs, roles[n])))  # with children

    async def start(self) -> None:
        for p in self.procs:
            p.start()
        self.started = True
        for c in self.conns:
            assert await asyncio.to_thread(c.recv) == "ready"

    async def cpu(self) -> tuple[float, float, list[int], int]:
        """CPU seconds so far: the workers' own processes, and their children; the mails
        each has handled; the statements they sent."""
        got = []
        for c in self.conns:
            c.send("cpu")
            got.append(await asyncio.to_thread(c.recv))
        return (sum(g[0] for g in got), sum(g[1] for g in got), [g[2] for g in got], sum(g[3] for g in got))

    async def peak_memory(self) -> list[float]:
        """Each worker's peak memory (RSS) so far, MiB."""
        got = []
        for c in self.conns:
            c.send("rss")
            got.append(await asyncio.to_thread(c.recv))
        return got

    async def stop(self) -> None:
        """Each worker stops as `pbem serve` does; one that does not (or died) is ended."""
        if not self.started:
            return
        self.started = False
        for c in self.conns:
            try:
                c.send("stop")
            except OSError:
                pass  # died already
        for c, p in zip(self.conns, self.procs):
            try:
                if await asyncio.to_thread(c.poll, 30):
                    c.recv()
            except (OSError, EOFError):
                pass
            await asyncio.to_thread(p.join, 10)
            if p.is_alive():
                p.terminate()
                await asyncio.to_thread(p.join, 10)


_PROGRESS = (
    "SELECT (SELECT count(*) FROM inbound WHERE id > %s AND status NOT IN ('stored', 'processing', 'retrying')),"
    " (SELECT count(*) FROM outbox WHERE id > %s AND kind = 'reply' AND status = 'sent'),"
    " (SELECT count(*) FROM outbox WHERE status = 'queued'),"
    " (SELECT count(*) FROM report_job WHERE status = 'pending')")


@contextmanager
def _poller(url: str) -> Iterator[tuple[Any, str]]:
    """A connection of the benchmark's own to watch the daemon's progress, and its SQL
    parameter mark; on PostgreSQL its backend is left out of the backends' CPU."""
    if is_shared(url):
        import psycopg

        with psycopg.connect(_dsn(url), autocommit=True) as shared:
            yield shared, "%s"
    else:
        from pbem.db.session import sqlite_path

        own = sqlite3.connect(str(sqlite_path(url)), isolation_level=None)  # each read sees the last commit
        try:
            yield own, "?"
        finally:
            own.close()


def _progress(conn: Any, mark: str, after: tuple[int, int]) -> tuple[int, int, int, int]:
    """Mails handled, replies sent, outbox rows queued, report jobs pending (one query)."""
    return tuple(conn.execute(_PROGRESS.replace("%s", mark), after).fetchone())


async def burst(ctx: Context, workers: Workers, server: MailServerProcess, table: ScriptedTable, sends: Mails,
                timeout: float = 600.0) -> tuple[int, float, float]:
    """Send every mail (written beforehand) while the daemon runs; done when every mail is
    handled, every reply sent, no outbox row queued and no report job pending (polled on a
    connection of the benchmark's own). Returns the mails, the wall time and the CPU time
    a mail of every process on the path (the players' side here, the mail server, the
    daemon's processes and, on PostgreSQL, their backends)."""
    n = len(sends)
    after = last_ids(ctx)
    url = ctx.config.database.url
    with _poller(url) as (poll, mark):
        own0, kids0, handled0, sql0 = await workers.cpu()
        here0, mail0 = _own_cpu(), _proc_cpu(server.pid)
        with BackendClock(url) if is_shared(url) else nullcontext(None) as backends:
            start = time.perf_counter()
            for _game, _seat, sender, raw in sends:
                await table.send_out.send(sender, [table.server_address], raw)
            sent_at = time.perf_counter()
            while True:
                handled, replied, queued, pending = _progress(poll, mark, after)
                if handled >= n and queued == 0 and pending == 0:
                    break  # each reply is queued with its mail's handling: sent, or failed (check_once)
                if time.perf_counter() - start > timeout:
                    raise AssertionError(f"not done in {timeout:.0f} s: {handled} handled, {replied} replies sent, "
                                         f"{queued} queued, {pending} report jobs pending")
                await asyncio.sleep(0.02)
            end = time.perf_counter()
        here1, mail1 = _own_cpu(), _proc_cpu(server.pid)
        own1, kids1, handled1, sql1 = await workers.cpu()
        if backends is not None:
            backends.seen.pop(poll.info.backend_pid, None)
    ms = 1000 / n
    who, database = "the daemon's process", ""
    everything = (own1 - own0) + (kids1 - kids0) + (here1 - here0) + (mail1 - mail0)
    if backends is not None:
        who = f"the {len(workers.procs)} workers' processes"
        database = f", their PostgreSQL backends {backends.seconds * ms:.1f} ms"
        everything += backends.seconds
    print(f"  (players' SMTP sends {sent_at - start:.2f} s, then fetch+process+reply {end - sent_at:.2f} s more; "
          f"{who}: {(own1 - own0) * ms:.1f} ms of CPU a mail, their mail readers and map pools "
          f"{(kids1 - kids0) * ms:.1f} ms{database}; {(sql1 - sql0) / n:.0f} SQL statements a mail; "
          f"mails handled by each worker: {' '.join(str(b - a) for a, b in zip(handled0, handled1))}; "
          f"the mail server {(mail1 - mail0) * ms:.1f} ms, the players' side {(here1 - here0) * ms:.1f} ms)")
    check_once(ctx, after, sends)
    return n, end - start, everything / n


async def warm_up(ctx: Context, workers: Workers, server: MailServerProcess, table: ScriptedTable,
                  mails: Sends) -> None:
    """Rounds of `burst`, ``WARM_UP`` mails a worker each, until every worker with the inbox
    role has handled ``WARM_UP`` of them or the mails run out: the first to see a round's
    mails may take them all, and a worker's first mails cost it two to three times a later
    one's (its tables loaded, its statements compiled, its mail server connection opened)."""
    readers = [n for n, role in enumerate(workers.roles) if "inbox" in parse_roles(role)]
    _own, _kids, start, _sql = await workers.cpu()
    step = WARM_UP * len(workers.procs)
    for at in range(0, len(mails), step):
        await burst(ctx, workers, server, table, write(table, list(mails[at:at + step]), {}))
        _own, _kids, handled, _sql = await workers.cpu()
        if all(handled[n] - start[n] >= WARM_UP for n in readers):
            return


def _dsn(url: str) -> str:
    """The database of ``url`` for psycopg itself."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


# --- the floor ------------------------------------------------------------------------------


def floor_reader(imap_port: int, smtp_port: int, to: list[str], reply: bytes, conn: Connection) -> None:
    """The floor's daemon, a process of its own as the daemon is: the daemon's IMAP calls
    (a batch's FETCH, one STORE \\Seen for it, IDLE while nothing is new) and one reply a
    mail, to its sender (``to``: in the order they were sent), with nothing read, checked
    or stored in between."""
    asyncio.run(_floor_reader(imap_port, smtp_port, to, reply, conn))


async def _floor_reader(imap_port: int, smtp_port: int, to: list[str], reply: bytes, conn: Connection) -> None:
    inbox = ImapInbox("127.0.0.1", imap_port, FLOOR, "pbem", "none", max_batch=1000)
    sender = SmtpSender("127.0.0.1", smtp_port)
    await inbox.connect()
    conn.send(_own_cpu())  # ready
    got = 0
    while got < len(to):
        mails = await inbox.fetch_new()
        await inbox.mark_seen_many([fetched.uid for fetched in mails])
        for at in range(got, got + len(mails)):
            await sender.send(FLOOR, [to[at]], reply)
        got += len(mails)
        if not mails:
            await inbox.wait(0.2)
    conn.send(_own_cpu())  # done
    await inbox.close()
    await sender.close()


async def raw_floor(server: MailServerProcess, mails: Mails, reply: bytes) -> tuple[float, float, str]:
    """Mails per second through the bare path, measured as the daemon is: the players send
    the very mails of the burst (to a mailbox of the floor's own) while a process of its
    own reads them and sends each a copy of a reply the daemon wrote (`floor_reader`); and
    the CPU time a mail of its every process (the players' side, the mail server, the reader),
    and the same, process by process, as a line to print."""
    spawn = multiprocessing.get_context("spawn")
    mine, theirs = spawn.Pipe()
    to = [sender for _game, _seat, sender, _raw in mails]
    reader = spawn.Process(target=floor_reader, args=(server.imap_port, server.smtp_port, to, reply, theirs))
    reader.start()
    sender = SmtpSender("127.0.0.1", server.smtp_port)
    try:
        reader0 = await asyncio.to_thread(mine.recv)  # ready: its CPU so far
        here0, mail0 = _own_cpu(), _proc_cpu(server.pid)
        start = time.perf_counter()
        for _game, _seat, address, raw in mails:
            await sender.send(address, [FLOOR], raw)
        reader1 = await asyncio.to_thread(mine.recv)  # done
        took = time.perf_counter() - start
        parts = (reader1 - reader0, _proc_cpu(server.pid) - mail0, _own_cpu() - here0)
        cpu = sum(parts)
    finally:
        await sender.close()
        await asyncio.to_thread(reader.join, 10)
        if reader.is_alive():
            reader.terminate()
    ms = 1000 / len(mails)
    apart = (f"  (its reader {parts[0] * ms:.1f} ms of CPU a mail, the mail server {parts[1] * ms:.1f} ms, "
             f"the players' side {parts[2] * ms:.1f} ms)")
    return len(mails) / took, cpu / len(mails), apart


async def floor_and_burst(ctx: Context, workers: Workers, server: MailServerProcess, table: ScriptedTable,
                          sends: Mails, reply: bytes, preview: bool) -> tuple[float, float, float]:
    """One pair: the floor on ``sends``, then the same mails through pbem (`burst`), each
    printed; returns pbem's rate, its share of the floor's and its CPU a mail as a multiple
    of the floor's (0: the floor's CPU below the clock's tick). ``preview``: each mail draws
    its seat's sealed view (issue 19.1)."""
    floor, floor_cpu, apart = await raw_floor(server, sends, reply)
    print(f"the floor (no processing: the same {len(sends)} mails sent, IMAP FETCH + STORE, the daemon's "
          f"reply ({len(reply)} bytes) sent to each) = {floor:6.1f} mails/s, {floor_cpu * 1000:.1f} ms of CPU "
          f"a mail in all its processes")
    print(apart)
    n, took, cpu = await burst(ctx, workers, server, table, sends)
    print(f"order mails that file orders:       {n} in {took:.2f} s = {n / took:6.1f} mails/s end to end "
          f"({n / took / floor:.0%} of the floor; {cpu * 1000:.1f} ms of CPU a mail in all the processes on "
          f"the path, {times_the_floor(cpu, floor_cpu)})"
          f"{'; each draws its seat a preview map' if preview else ''}")
    return n / took, n / took / floor, cpu / floor_cpu if floor_cpu > 0 else 0.0


def median_of_pairs(measured: list[tuple[float, float, float]]) -> str:
    """The line that sums up the pairs: the median rate, share and CPU multiple, and each
    pair's share. The floor and pbem are measured in turn, pair after pair, so that a
    machine whose speed wanders weighs on both sides of each share alike."""
    rates, shares, multiples = (sorted(column) for column in zip(*measured))
    each = " ".join(f"{share:.0%}" for _rate, share, _multiple in measured)
    known = [m for m in multiples if m > 0]
    multiple = f", {statistics.median(known):.2f} times the floor's CPU a mail" if known else ""
    return (f"order mails that file orders, the median of {len(measured)} pairs: {statistics.median(rates):6.1f} "
            f"mails/s, {statistics.median(shares):.0%} of the floor{multiple} (each pair: {each})")


def machine_speed() -> str:
    """A yardstick of the machine's speed, to compare runs on different machines (this one's
    speed changed threefold from one session to the next): the CPU time of 1,000 PBKDF2-SHA256
    rounds (C code, no allocation: a seat's secret checked once), the best of 50."""
    best = min(_timed_rounds() for _ in range(50))
    return f"this machine: 1,000 PBKDF2-SHA256 rounds in {best * 1e6:.0f} µs of CPU"


def _timed_rounds() -> float:
    start = time.thread_time()
    hashlib.pbkdf2_hmac("sha256", b"secret", b"salt", 1000)
    return time.thread_time() - start


def times_the_floor(cpu: float, floor_cpu: float) -> str:
    """The path's CPU a mail as a multiple of the floor's. The CPU clocks count in ticks of
    10 ms: the floor of a few mails may read 0, and then there is no multiple to tell."""
    if floor_cpu <= 0:
        return "no times the floor's: the floor's CPU below the clock's tick"
    return f"{cpu / floor_cpu:.2f} times the floor's"


def as_sent(raw: bytes) -> bytes:
    """A mail as the daemon sent it: the trace fields the receiving server put on top left out."""
    return _TRACE.sub(b"", raw, count=1)


# --- one run ----------------------------------------------------------------------------------


async def run(args: argparse.Namespace, url: str, count: int) -> None:
    """The whole benchmark once: the daemon in a process of its own on SQLite (``count``
    worker processes on PostgreSQL), as `pbem serve` runs, while this process plays the
    players."""
    shared = is_shared(url)
    rules = registry.get(args.kind)
    seats = list(rules.info.seats)[:2]
    if shared:
        remake_database(url)
    cfg = config(url, args.width)
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg)
    server = MailServerProcess(collector=False)  # a mail server of its own, as in a real deployment
    await server.start()
    inbox = ImapInbox("127.0.0.1", server.imap_port, cfg.server.address, "pbem", "none", max_batch=1000)
    sender = SmtpSender("127.0.0.1", server.smtp_port)
    app = App(ctx, inbox, sender)  # here: the setup's outbox, the players' clock and the latency section
    addresses = {seat: f"{seat}@localhost" for seat in seats}
    table = ScriptedTable(app, sender, lambda a: ImapInbox("127.0.0.1", server.imap_port, a, "pbem", "none", max_batch=100_000),
                          addresses, cfg.server.address)
    t0 = time.perf_counter()
    pairs = max(1, getattr(args, "pairs", 1))
    specs = (own_players(seats, args.games * pairs) if args.players == "own"
             else [[games.SeatSpec(s, a) for s, a in addresses.items()]] * (args.games * pairs))
    every = [games.create(ctx, args.kind, f"bench {i}", spec) for i, spec in enumerate(specs)]
    ids = every[:args.games]  # the turns below are played in the first pair's games
    players = ({(g, spec.seat): spec.address for g, seats_of in zip(every, specs) for spec in seats_of}
               if args.players == "own" else {})
    created = time.perf_counter() - t0
    warm_ids = [games.create(ctx, args.kind, f"warm-up {i}", [games.SeatSpec(s, a) for s, a in addresses.items()])
                for i in range(WARM_UP * count * WARM_ROUNDS)]
    while await app.drain():  # the outbox sends at most 100 a drain
        pass
    await table.collect_all()
    await learn_secrets(server, table, players)
    phase = rules.phase(rules.new_game(seats, {}))
    first, second = (seats[0], seats[1]) if len(phase.awaiting) > 1 else (phase.awaiting[0], None)
    print(f"{args.kind}: {args.games * pairs} games created (welcome mails queued) in {created:.2f} s; map width {args.width} px; "
          f"{'each game its own players' if players else 'the same two players in every game'}")
    workers = Workers(url, args.width, args.kind, server, count, warm_maps=not args.orders_only, roles=args.roles)
    t0 = time.perf_counter()
    try:
        await workers.start()
        print(f"{count} {'worker process(es) on PostgreSQL' if shared else 'daemon process on SQLite'}, started "
              f"(spawned, connected, a first cycle) in {time.perf_counter() - t0:.1f} s")
        # A running daemon has handled mail before: its game's tables loaded, its statements
        # compiled. Order mails of games of their own first, not timed, in rounds until every
        # worker that reads mail has handled ``WARM_UP`` (the lines below say how many each did).
        print(f"warm-up, not timed: order mails of games of their own, {WARM_UP * count} a round")
        await warm_up(ctx, workers, server, table, [(g, first, default_text(ctx, g, first)) for g in warm_ids])
        reply = as_sent((await table.collect_all())[first][-1].raw)  # the daemon's answer to an order mail
        if second is not None:
            measured: list[tuple[float, float, float]] = []  # each pair's rate, share of the floor, CPU multiple
            for at in range(pairs):
                if pairs > 1:
                    print(f"pair {at + 1} of {pairs}: the floor, then pbem, on games of their own")
                games_of_pair = every[at * args.games:(at + 1) * args.games]
                sends = write(table, [(g, first, default_text(ctx, g, first)) for g in games_of_pair], players)
                measured.append(await floor_and_burst(ctx, workers, server, table, sends, reply,
                                                      phase.sealed and hasattr(rules, "preview")))
            if pairs > 1:
                print(median_of_pairs(measured))
            if args.orders_only:
                return
            sends = write(table, [(g, second, default_text(ctx, g, second)) for g in ids], players)
            n, took, _ = await burst(ctx, workers, server, table, sends)
            print(f"order mails that complete a turn:   {n} in {took:.2f} s = {n / took:6.1f} mails/s end to end "
                  f"(each: resolution, map, {len(seats)} reports)")
        await table.collect_all()

        # The next turn: one seat moves; its mail completes the turn at once.
        movers = []
        for g in ids:
            with ctx.session() as s:
                game = store.get_game(s, g)
                awaited = rules.phase(store.state_of(game)).awaiting
            movers.append((g, awaited[0], default_text(ctx, g, awaited[0])))
        n, took, _ = await burst(ctx, workers, server, table, write(table, movers, players))
        print(f"move mails (one seat, turn resolves): {n} in {took:.2f} s = {n / took:6.1f} mails/s end to end")
        await table.collect_all()
        print(f"peak memory (RSS) of the daemon's process(es): "
              f"{' '.join(f'{mib:.0f}' for mib in await workers.peak_memory())} MiB")
        await workers.stop()
        if not shared:  # the daemon stopped: this process alone on the database
            await latency(app, ctx, table, ids, addresses, players)
    finally:
        await table.close()
        await workers.stop()
        await app.stop()
        await server.stop()
        ctx.engine.dispose()
        if shared:
            drop_database(url)


async def latency(app: App, ctx: Context, table: ScriptedTable, ids: list[str], addresses: dict[str, str],
                  players: Players) -> None:
    """The last order of a turn until every report is in the outbox; the peak memory."""
    latencies, processing = [], []
    await app.draw_reports()  # start the map worker before timing
    for g in ids[: min(15, len(ids))]:
        with ctx.session() as s:
            game = store.get_game(s, g)
            rules = store.rules_of(game)
            seat = rules.phase(store.state_of(game)).awaiting[0]
        text = default_text(ctx, g, seat)
        raw = _mail(players.get((g, seat), addresses[seat]), g, seat, table.secrets[(g, seat)], text)
        t = time.perf_counter()
        result = await asyncio.to_thread(inbound.handle, ctx, raw)
        handled = time.perf_counter()
        await app.draw_reports()
        latencies.append(time.perf_counter() - t)
        processing.append(handled - t)
        assert result.status == "orders", result
    print(f"last order -> turn resolved and committed: median {statistics.median(processing) * 1000:.0f} ms")
    print(f"last order -> all reports queued (maps drawn): median {statistics.median(latencies) * 1000:.0f} ms, "
          f"max {max(latencies) * 1000:.0f} ms over {len(latencies)} turns")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--kind", default="kriegspiel")
    parser.add_argument("--orders-only", action="store_true",
                        help="stop after the floor and the order mails that file orders")
    parser.add_argument("--pairs", type=int, default=3,
                        help="the floor and the order mails that file orders measured this many times in "
                             "turn, each pair on games of its own, and the median printed (default 3)")
    parser.add_argument("--players", choices=("own", "shared"), default="own",
                        help="own: each game its own two players, as in a club (default); shared: the same "
                             "two addresses in every game, so every reply of a burst goes to one address "
                             "(the outbox keeps one address's mails in order, on one connection)")
    parser.add_argument("--url", default="",
                        help="the database: a SQLite file in a new folder by default; postgresql://… "
                             "(a database of the benchmark's own: dropped and made again) for workers")
    parser.add_argument("--workers", type=int, nargs="+", default=[1],
                        help="worker processes on PostgreSQL, each count in turn (SQLite: one daemon)")
    parser.add_argument("--roles", nargs="+", default=[],
                        help="each worker's roles in turn, as `pbem serve --role` takes them (say "
                             "inbox,deadlines maps,outbox: one worker handles the mail, one sends the "
                             "answers); a worker not named here: all")
    args = parser.parse_args()
    if not is_shared(args.url) and (args.workers != [1] or args.roles):
        parser.error("--workers and --roles need a PostgreSQL --url: on SQLite one daemon serves the database")
    try:
        for roles in args.roles:
            parse_roles(roles)
    except ConfigError as exc:
        parser.error(str(exc))
    load = os.getloadavg()
    print(f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores); "
          f"{machine_speed()}")
    for count in args.workers:
        url = args.url or f"sqlite:///{Path(tempfile.mkdtemp(prefix='pbem-bench-'))}/pbem.sqlite"
        if is_shared(url):
            named = (args.roles + ["all"] * count)[:count]
            print(f"--- {count} worker(s) on {_admin_dsn(url)[1]} (PostgreSQL)"
                  f"{'; roles: ' + ' | '.join(named) if args.roles else ''}")
        await run(args, url, count)


def _mail(sender: str, game_id: str, seat: str, secret: str, text: str) -> bytes:
    from email.message import EmailMessage
    from email.utils import make_msgid

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "pbem@localhost", "orders", make_msgid()
    msg.set_content(f"GAME {game_id}\nSEAT {seat} {secret}\n{text}\nEND\n")
    return msg.as_bytes()


if __name__ == "__main__":
    asyncio.run(main())
