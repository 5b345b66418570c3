"""A worker stopped in the middle of a batch of stored mails (`pbem.app.App._handle_stored`)
loses none of them: the mails it claimed and never handed to their handling go back to the
queue as they were (stored, their sealed copies kept), not as tried, and the next worker
handles them. Before batches, a mail claimed and then given back on a stop lost its sealed
copy while still ``processing``: no worker could read it again, and its IMAP copy was
\\Seen already."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlmodel import select

from pbem.app import App, CycleSummary
from pbem.config import from_mapping
from pbem.db.models import InboundMail
from pbem.db.session import make_engine
from pbem.service import claims, queue
from pbem.service.claims import Claims
from pbem.service.context import Context, ManualClock
from tests.workers.harness import postgres_url


class _NoMail:
    """The mail servers, which the stored mails' handling never uses."""

    server = "none"

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the mail server was used: {name}")


@pytest.fixture
def ctx(tmp_path) -> Iterator[Context]:  # type: ignore[no-untyped-def]
    # no time budget: a claimed mail goes straight to the database lock, where the test holds it
    cfg = from_mapping({"database": {"workers": "shared"}, "limits": {"mail_seconds": 0},
                        "security": {"key_file": str(tmp_path / "pbem.key")}}, "stop")
    context = Context(engine=make_engine(postgres_url()), config=cfg,
                      clock=ManualClock(datetime(2026, 11, 29, 20, 0, tzinfo=UTC)))
    yield context
    context.engine.dispose()


def _stored(ctx: Context) -> list[bytes]:
    raws = [f"From: nora@players.example\r\nTo: pbem@localhost\r\nSubject: {i}\r\n\r\nHELP\r\n".encode()
            for i in range(3)]
    for raw in raws:
        assert queue.store(ctx, raw) is None
    return raws


def _given_back_untried(ctx: Context, app: App, raws: list[bytes]) -> None:
    """Every claim given back, every mail stored as before, and taken by the next worker as
    never tried."""
    assert not app.claims._held
    with ctx.session() as s:
        rows = list(s.exec(select(InboundMail).order_by(InboundMail.id)))  # type: ignore[arg-type]
    assert [(row.status, row.held) for row in rows] == [("stored", raw) for raw in raws]
    other = Claims(ctx.engine)
    assert [(c.raw, c.retry) for c in queue.claim(ctx, other)] == [(raw, False) for raw in raws]
    other.close()
    app.claims.close()


def test_a_worker_stopped_mid_batch_gives_its_untried_mails_back_as_stored(ctx: Context) -> None:
    raws = _stored(ctx)
    app = App(ctx, _NoMail(), _NoMail())  # type: ignore[arg-type]

    async def run() -> None:
        await app._lock.acquire()  # another unit of database work is under way
        worker = asyncio.create_task(app._handle_stored(CycleSummary()))
        for _ in range(500):  # mail claimed, the first waiting for the lock
            if [h for h in app.claims._held if h[0] == claims.INBOUND] and app._lock._waiters:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the worker claimed no mail")
        worker.cancel()  # `pbem serve` stops
        with pytest.raises(asyncio.CancelledError):
            await worker

    asyncio.run(run())
    _given_back_untried(ctx, app, raws)


def test_a_worker_stopped_while_it_claims_gives_the_claimed_mails_back(ctx: Context) -> None:
    """Stopped while the claim's thread is at work: the claims it takes are given back too (the
    thread goes on when its caller is cancelled)."""
    raws = _stored(ctx)
    app = App(ctx, _NoMail(), _NoMail())  # type: ignore[arg-type]
    claiming, claimed = app._claim, threading.Event()

    def slow_claim() -> list[queue.Claimed]:
        batch = claiming()
        claimed.set()
        time.sleep(0.5)  # the caller is cancelled now
        return batch

    app._claim = slow_claim  # type: ignore[method-assign]

    async def run() -> None:
        worker = asyncio.create_task(app._handle_stored(CycleSummary()))
        assert await asyncio.to_thread(claimed.wait, 30)
        worker.cancel()
        with pytest.raises(asyncio.CancelledError):
            await worker

    asyncio.run(run())
    _given_back_untried(ctx, app, raws)
