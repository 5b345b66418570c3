"""The deadline storm grows linearly: ten times the games due at the same second cost less
than twenty times the work (`benchmarks/deadline_storm.py` measures the figures; this
checks the order of growth on PostgreSQL, with small maps so that it stays cheap). The
time is the worker's CPU time, not the wall clock: the machine may be busy with others."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

from sqlmodel import col, select

from pbem.config import from_mapping
from pbem.db.models import OutboxMail, ReportJob
from pbem.db.session import make_engine
from pbem.service import games, turns, workers
from pbem.service.claims import Claims
from pbem.service.context import Context, ManualClock
from tests.workers.harness import postgres_url

DEADLINE = timedelta(hours=2)


def _storm(key: str, start: datetime, count: int) -> float:
    """``count`` Kriegspiel games made at ``start`` on an empty database, all due at the same
    second; one worker resolves them and queues every report. Returns the worker's CPU seconds."""
    url = postgres_url()
    cfg = from_mapping({"database": {"url": url, "workers": "shared"}, "render": {"width": 200, "workers": 0},
                        "security": {"key_file": key}}, "storm")
    clock = ManualClock(start)
    ctx = Context(engine=make_engine(url), config=cfg, clock=clock, defer_reports=True)
    for n in range(count):
        games.create(ctx, "kriegspiel", f"Storm {n}", [games.SeatSpec("north", f"n{n}@players.example"),
                                                       games.SeatSpec("south", f"s{n}@players.example", "it")],
                     deadline="2h")
    clock.advance(seconds=DEADLINE.total_seconds() + 1)
    claims = Claims(ctx.engine)
    began = time.process_time()
    while turns.resolve_due(ctx) + asyncio.run(workers.draw_reports(ctx, None, claims, 2)):
        pass
    spent = time.process_time() - began
    claims.close()
    with ctx.session() as s:
        jobs = [j.status for j in s.exec(select(ReportJob))]
        reports = s.exec(select(OutboxMail.id).where(col(OutboxMail.kind) == "report")).all()
    ctx.engine.dispose()
    assert jobs == ["done"] * count
    assert len(reports) == 2 * count  # every seat's report of every game, once
    return spent


def test_ten_times_the_games_cost_less_than_twenty_times(tmp_path) -> None:  # type: ignore[no-untyped-def]
    key = str(tmp_path / "pbem.key")
    start = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
    _storm(key, start, 1)  # the first maps of a process draw the static boards
    small = _storm(key, start, 2)
    large = _storm(key, start, 20)
    assert large < 20 * small, f"2 games: {small:.2f} s, 20 games: {large:.2f} s"
