"""Stored mail wakes the other workers (`pbem.service.wakeup`): the mailbox reader's store
commits a NOTIFY, and a worker listening claims the mail then, not on its next try for the
lease (`lease.TRY_SECONDS` later). A store rolled back wakes nobody. A worker that sends mail
and draws maps but handles none (``--role outbox,maps``) is woken by a mail queued or a turn's
reports to draw instead."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from pbem.config import from_mapping
from pbem.db.session import make_engine
from pbem.service import outbox, queue, wakeup
from pbem.service.workers import ROLES
from pbem.service.claims import Claims
from pbem.service.context import Context, ManualClock
from tests.workers.harness import postgres_url

RAW = b"From: nora@players.example\r\nTo: pbem@localhost\r\nSubject: orders\r\nMessage-ID: <w1@x>\r\n\r\nhello\r\n"


@pytest.fixture
def ctx(tmp_path) -> Iterator[Context]:  # type: ignore[no-untyped-def]
    cfg = from_mapping({"security": {"key_file": str(tmp_path / "pbem.key")}}, "wakeup")
    context = Context(engine=make_engine(postgres_url()), config=cfg,
                      clock=ManualClock(datetime(2026, 11, 29, 20, 0, tzinfo=UTC)))
    yield context
    context.engine.dispose()


def test_a_stored_mail_wakes_a_listening_worker(ctx: Context) -> None:
    async def run() -> None:
        listener = wakeup.Listener(ctx.engine)
        listener.start()
        try:
            await listener.wait(10)  # the wake-up a listener gives itself once it listens
            with ctx.session() as s:  # the store's own statement, in a transaction that never commits: no notice
                assert s.execute(queue._STORE, queue._parameters(ctx, [RAW])).all()
                s.rollback()
            assert not await listener.wait(1.5)
            await asyncio.to_thread(queue.store, ctx, RAW)
            assert await listener.wait(10)  # well before a worker's next try for the lease
            claims = Claims(ctx.engine)
            claimed = await asyncio.to_thread(queue.claim, ctx, claims)
            assert [c.raw for c in claimed] == [RAW]
            claims.close()
        finally:
            await asyncio.to_thread(listener.stop)

    asyncio.run(run())


def test_only_workers_sharing_a_database_listen(ctx: Context) -> None:
    assert not wakeup.Listener(ctx.engine, enabled=False).enabled  # database.workers = "single"
    sqlite = make_engine("sqlite://")
    assert not wakeup.Listener(sqlite).enabled  # one daemon: it stores nothing, it handles each mail
    assert wakeup.Listener(ctx.engine).enabled


def test_queued_mail_wakes_a_worker_that_sends_it(ctx: Context) -> None:
    assert wakeup.channels(ROLES) == (wakeup.CHANNEL,)  # it handles mail: its own answers it sends itself
    assert wakeup.channels({"outbox", "maps"}) == wakeup.channels({"outbox"}) == (wakeup.WORK,)
    assert wakeup.channels({"deadlines"}) == ()
    assert not wakeup.Listener(ctx.engine, channels=wakeup.channels({"deadlines"})).enabled

    def queue_mail(n: int, commit: bool) -> None:
        with ctx.session() as s:
            outbox.enqueue(s, ctx, message_id=f"<q{n}@pbem>", raw=b"Subject: orders accepted\r\n\r\nok\r\n",
                           recipients=["nora@players.example"], subject="orders accepted", kind="reply", game_id=None)
            s.commit() if commit else s.rollback()

    def announce() -> None:
        with ctx.session() as s:  # a turn resolved: its reports to draw
            wakeup.announce(s)
            s.commit()

    async def run() -> None:
        listener = wakeup.Listener(ctx.engine, channels=wakeup.channels({"outbox", "maps"}))
        listener.start()
        try:
            await listener.wait(10)  # the wake-up a listener gives itself once it listens
            await asyncio.to_thread(queue.store, ctx, RAW)  # stored mail is for the workers that handle it
            assert not await listener.wait(1.5)
            await asyncio.to_thread(queue_mail, 1, False)  # rolled back: never queued
            assert not await listener.wait(1.5)
            await asyncio.to_thread(queue_mail, 2, True)
            assert await listener.wait(10)  # well before the outbox's next look
            await asyncio.to_thread(announce)
            assert await listener.wait(10)
        finally:
            await asyncio.to_thread(listener.stop)

    asyncio.run(run())
