"""The hourly purge (`pbem.service.retention`) with workers on PostgreSQL: workers started
together each run it, and the mark it keeps (``retention.outbox_through``) was inserted by both,
the second failing on its unique key (a traceback and "mail watcher failed" in the log at
nearly every start of two workers). Now one purges at a time; the other skips the round."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from pbem.config import from_mapping
from pbem.db.models import Setting
from pbem.db.session import make_engine
from pbem.service import claims, retention
from pbem.service.context import Context, ManualClock
from tests.workers.harness import postgres_url


@pytest.fixture
def two(tmp_path) -> Iterator[tuple[Context, Context]]:  # type: ignore[no-untyped-def]
    url = postgres_url()
    cfg = from_mapping({"security": {"key_file": str(tmp_path / "pbem.key")}}, "retention")
    clock = ManualClock(datetime(2026, 11, 29, 20, 0, tzinfo=UTC))
    first = Context(engine=make_engine(url), config=cfg, clock=clock)
    second = Context(engine=make_engine(url, "none"), config=cfg, clock=clock)
    yield first, second
    first.engine.dispose()
    second.engine.dispose()


def test_one_worker_purges_at_a_time(two: tuple[Context, Context]) -> None:
    a, b = two
    with a.session() as held:  # worker a is purging: it holds the purge's lock
        assert claims.once_at_a_time(held, retention.RETENTION)
        assert retention.purge(b) == 0  # b skips this round instead of racing a for the mark
        with b.session() as s:
            assert s.get(Setting, retention.THROUGH) is None
        held.commit()  # a's round is over: the lock goes with its transaction
    assert retention.purge(b) == 0  # nothing past the retention, but b runs and keeps its mark
    with b.session() as s:
        assert s.get(Setting, retention.THROUGH) is not None
