"""The daemon's mail loop (issue 17): a mail whose reading the reader has finished already is
received and handled on the event loop, no thread hop, and still keeps its budget
(`budget.Inspector.poll`); a mail that would draw a map there is handled again in a thread;
on PostgreSQL the replies of a batch are sent while its later mails are handled (the
database lock let go while a mail is on the wire), each once; the report jobs logged are
remembered while pending only. Real reader processes; no timing is asserted."""

from __future__ import annotations

import asyncio
from typing import Any, Sequence

import pytest
from sqlmodel import col, select

import pbem.app as app_module
from pbem.app import App
from pbem.db.models import InboundMail, OutboxMail, ReportJob
from pbem.errors import MailServerError
from pbem.mail.transport import MemoryInbox, MemoryOutgoing, SendResult
from pbem.service import budget, games
from pbem.service import inbound as inbound_module
from pbem.render import refuse as refuse_module
from pbem.service.context import Context
from pbem.service.games import SeatSpec
from tests.security.test_read_ahead import mail, reader  # noqa: F401  (reader: a fixture)
from tests.service.conftest import sqlite_only
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

def _answered(reader: budget.Inspector, raw: bytes, poll: Any = None) -> tuple[bool, str | None]:
    """`poll` until the reader has answered (the worker reads in a few ms)."""
    for _ in range(2000):
        got = (poll or reader.poll)(raw)
        if got[0]:
            return got
        reader._guard.acquire()  # wait a little on the pipe, as `check` would, without reading
        try:
            assert reader._conn is not None
            reader._conn.poll(0.01)
        finally:
            reader._guard.release()
    raise AssertionError("never answered")


def test_poll_gives_a_verdict_only_once_the_mail_is_read_in_its_budget(reader: budget.Inspector) -> None:
    batch = [mail(0), mail(1), mail(2, stall=True), mail(3)]
    reader.ahead(batch)
    assert reader.poll(batch[0]) == (False, None)  # no reader yet: `check` starts it
    assert reader.check(batch[0]) is None
    assert _answered(reader, batch[1]) == (True, None)  # read ahead: known without waiting
    assert reader.poll(batch[2]) == (False, None)  # still being read (it never finishes)
    verdict = reader.check(batch[2])  # waits out its budget, the start `poll` saw included
    assert verdict is not None and "more than 2 s" in verdict
    assert reader.check(batch[3]) is None  # a new reader reads the rest


def test_poll_drops_the_answers_of_skipped_mails(reader: budget.Inspector) -> None:
    batch = [mail(0), mail(1), mail(2), mail(3)]
    reader.ahead(batch)
    assert reader.check(batch[0]) is None
    assert _answered(reader, batch[3]) == (True, None)  # 1 and 2 skipped: their answers read and dropped
    assert not reader._sent and reader._sent_bytes == 0


def test_without_a_budget_poll_knows_at_once() -> None:
    assert budget.Inspector(0).poll(b"anything") == (True, None)


RED, BLUE = "red@example.org", "blue@example.org"
BATCH = 6


class _Watching(MemoryOutgoing):
    """Records, at each send, how many mails were handled and whether the database lock was free."""

    app: Any = None
    seen: list[tuple[int, bool]]

    async def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> SendResult:
        with self.app.ctx.session() as s:
            handled = len(list(s.exec(select(InboundMail.id).where(InboundMail.status == "orders"))))
        self.seen.append((handled, self.app._lock.locked()))
        await asyncio.sleep(0.01)  # on the wire: the mail loop goes on meanwhile
        return await super().send(mail_from, recipients, raw)


@pytest.fixture
def duels(ctx: Context) -> tuple[App, MemoryInbox, _Watching, list[bytes]]:
    mails = []  # one seat's orders in each game: no turn resolves, the replies are all the outbox sends
    for i in range(BATCH):
        game_id = games.create(ctx, "duel", f"Loop {i}", [SeatSpec("red", RED), SeatSpec("blue", BLUE)])
        secret = secret_from_welcome(text_of(outbox(ctx, to=RED, kind="welcome")[i]))
        mails.append(player_mail(RED, order_block(game_id, "red", secret, ["PLAY 2"])))
    inbox, out = MemoryInbox(), _Watching()
    out.seen = []
    app = App(ctx, inbox, out)
    out.app = app
    return app, inbox, out, mails


@sqlite_only
async def test_replies_go_out_while_the_batch_is_handled_each_once(
        duels: tuple[App, MemoryInbox, _Watching, list[bytes]], ctx: Context,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app, inbox, out, mails = duels
    monkeypatch.setattr(app_module, "DRAIN_EVERY", 2)  # a drain after the second mail, another later
    assert app.send_meanwhile  # on SQLite as on PostgreSQL
    await app.drain()  # the welcomes
    out.seen.clear()
    first = len(out.sent)
    app.inspector.check(b"Subject: warm-up\r\n\r\nstart the mail reader\r\n")  # as a running daemon has it
    for raw in mails:
        inbox.deliver(raw)
    summary = await app.cycle()
    assert summary.handled == {"orders": BATCH} and summary.sent == BATCH
    assert out.seen[0][0] < BATCH  # the first reply went out before the batch was handled
    assert not any(locked for _, locked in out.seen)  # the lock let go while a mail is on the wire
    replies = out.sent[first:]
    assert len(replies) == BATCH and len({m.raw for m in replies}) == BATCH  # each reply sent once
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
    assert {r.status for r in rows} == {"sent"} and all(r.attempts == 1 for r in rows)
    assert app._drainer is None  # the drain that ran meanwhile ended with the batch


@sqlite_only
async def test_a_mail_read_ahead_is_received_and_handled_on_the_loop_without_a_hop(
        duels: tuple[App, MemoryInbox, _Watching, list[bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    app, inbox, out, mails = duels
    await app.drain()
    hops: list[str] = []
    plain = asyncio.to_thread

    async def counting(func: Any, /, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(func, "__name__", repr(func)))
        return await plain(func, *args, **kwargs)

    app.inspector.check(b"Subject: warm-up\r\n\r\nstart the mail reader\r\n")
    inbox.deliver(mails[0])
    assert (await app.cycle()).handled == {"orders": 1}
    for raw in mails[1:]:
        inbox.deliver(raw)
    monkeypatch.setattr(app_module.asyncio, "to_thread", counting)
    reader, plain_poll = app.inspector, app.inspector.poll

    def read_by_now(raw: bytes) -> tuple[bool, str | None]:  # the reader ahead of the daemon, as it is under load
        return _answered(reader, raw, plain_poll) if raw in reader._sent else plain_poll(raw)

    monkeypatch.setattr(reader, "poll", read_by_now)
    assert (await app.process_inbox()) == BATCH - 1
    mail_hops = [h for h in hops if h in ("receive", "check", "_handle", "handle")]
    # the first mail of a batch waits for its reading in a thread; none is received or handled in one
    assert mail_hops == ["check"]


@sqlite_only
async def test_report_jobs_logged_are_forgotten_once_drawn(
        duels: tuple[App, MemoryInbox, _Watching, list[bytes]], ctx: Context,
        caplog: pytest.LogCaptureFixture) -> None:
    app, _, _, _ = duels
    with ctx.session() as s:
        game_ids = [g for g in s.exec(select(OutboxMail.game_id).distinct()) if g]
        jobs = [ReportJob(game_id=g, first_seq=1, last_seq=1, status="pending") for g in game_ids[:2]]
        s.add_all(jobs)
        s.commit()
        ids = [j.id for j in jobs]
    caplog.set_level("INFO", logger="pbem.app")
    app._log_resolutions()
    app._log_resolutions()  # logged once
    assert sum("resolved; drawing the reports" in r.getMessage() for r in caplog.records) == 2
    assert app._logged_jobs == set(ids)
    with ctx.session() as s:
        for job in s.exec(select(ReportJob)):
            job.status = "done"
            s.add(job)
        s.commit()
    app._log_resolutions()
    assert app._logged_jobs == set()  # drawn: no longer remembered


class _Down(MemoryOutgoing):
    """An SMTP server that cannot be used at all."""

    tries = 0

    async def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> SendResult:
        self.tries += 1
        raise MailServerError("connection refused", "check mail.smtp.host")


@sqlite_only
async def test_a_server_down_while_the_batch_is_handled_is_reported_once(
        duels: tuple[App, MemoryInbox, _Watching, list[bytes]], ctx: Context,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app, inbox, _, mails = duels
    await app.drain()  # the welcomes
    down = _Down()
    app.outgoing = down
    monkeypatch.setattr(app_module, "DRAIN_EVERY", 2)
    app.send_meanwhile = True
    for raw in mails:
        inbox.deliver(raw)
    summary = await app.cycle()
    assert summary.handled == {"orders": BATCH} and summary.sent == 0
    assert down.tries == 1  # tried once while the batch was handled; then it waits for its probe
    assert len(summary.errors) == 1 and "connection refused" in summary.errors[0]
    assert len(summary.servers) == 1 and summary.servers[0]["failures"] == 1
    with ctx.session() as s:
        assert {r.status for r in s.exec(select(OutboxMail).where(OutboxMail.kind != "welcome"))} == {"queued"}


@sqlite_only
async def test_a_mail_that_draws_a_map_is_handled_again_in_a_thread_once(
        duels: tuple[App, MemoryInbox, _Watching, list[bytes]], ctx: Context,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No map is drawn on the event loop (design/performance.md): the MAP command's first try
    on the loop stops before it draws, nothing of it kept, and the mail is handled in a thread;
    an order mail beside it is handled on the loop. One reply each, the map attached."""
    app, inbox, out, _ = duels
    await app.drain()  # the welcomes
    first = len(out.sent)
    with ctx.session() as s:
        game_id = s.exec(select(OutboxMail.game_id).where(OutboxMail.kind == "welcome")).first()
    assert game_id is not None
    secret = secret_from_welcome(text_of(outbox(ctx, to=RED, kind="welcome")[0]))
    refused: list[bool] = []
    threads: list[str] = []
    plain_check, plain_whole = app_module.refuse.check, app_module._whole

    def check() -> None:
        try:
            plain_check()
        except app_module.DrawingRefused:
            refused.append(True)
            raise

    async def whole(func: Any, *args: Any, **kwargs: Any) -> Any:
        threads.append(func.__name__)
        return await plain_whole(func, *args, **kwargs)

    monkeypatch.setattr(refuse_module, "check", check)
    monkeypatch.setattr(app_module, "_whole", whole)
    inbox.deliver(player_mail(RED, order_block(game_id, "red", secret, ["MAP"])))
    inbox.deliver(player_mail(RED, order_block(game_id, "red", secret, ["PLAY 2"])))
    summary = await app.cycle()
    assert summary.handled == {"command": 1, "orders": 1}
    assert refused == [True] and threads == ["_handle"]  # the MAP mail alone went to a thread, once
    with ctx.session() as s:
        rows = list(s.exec(select(InboundMail).order_by(col(InboundMail.id))))
    assert [r.status for r in rows[-2:]] == ["command", "orders"] and rows[-2].note == "map"
    replies = out.sent[first:]
    assert len(replies) == 2  # one each: the first try's reply was never queued
    assert b"image/png" in replies[0].raw and b"image/png" not in replies[1].raw


def test_no_map_is_drawn_where_drawing_is_refused() -> None:
    from pbem.render.raster import png_size, svg_to_png

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#c00"/></svg>'
    with refuse_module.drawing_refused():
        with pytest.raises(app_module.DrawingRefused):
            svg_to_png(svg, 40)
    assert png_size(svg_to_png(svg, 40)) == (40, 20)  # refused only within


@pytest.mark.parametrize("seconds", [5.0, 0.0])
async def test_a_persons_mail_is_read_once_by_the_reader_not_again_by_the_daemon(
        duels: tuple[App, MemoryInbox, _Watching, list[bytes]], monkeypatch: pytest.MonkeyPatch,
        seconds: float) -> None:
    """What the mail reader read under the mail's budget (`budget.Reading`) is handed to the
    handling: the daemon parses neither the mail nor its envelope again. Without a budget
    (``limits.mail_seconds = 0``: no reader) the daemon reads each mail itself."""
    app, inbox, _out, mails = duels
    await app.drain()
    app.inspector.close()
    app.inspector = budget.Inspector(seconds)
    reads: list[str] = []

    def counted(name: str, func: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            reads.append(name)
            return func(*args, **kwargs)
        return call

    monkeypatch.setattr(inbound_module, "read_mail", counted("read_mail", inbound_module.read_mail))
    monkeypatch.setattr(inbound_module, "parse_envelope", counted("parse_envelope", inbound_module.parse_envelope))
    for raw in mails:
        inbox.deliver(raw)
    try:
        assert (await app.cycle()).handled == {"orders": BATCH}
    finally:
        app.inspector.close()
    assert reads == ([] if seconds else ["read_mail", "parse_envelope"] * BATCH)
