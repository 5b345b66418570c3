"""Stored mail wakes the other workers (`pbem.service.wakeup`): the mailbox reader's store
commits a NOTIFY, and a worker listening claims the mail then, not on its next try for the
lease (`lease.TRY_SECONDS` later). A store rolled back wakes nobody."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from pbem.config import from_mapping
from pbem.db.session import make_engine
from pbem.service import queue, wakeup
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
                assert s.execute(queue._storing(1), queue._parameters(ctx, [RAW])).all()
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
