"""The deadline storm: N Kriegspiel games on one PostgreSQL database whose deadlines fall
at the same second; W worker processes share the work as `pbem serve` workers do (due
games claimed with FOR UPDATE SKIP LOCKED, report jobs with advisory locks,
`pbem.service.claims`): each game resolved with the default orders, every seat's report
drawn with its map at the given width and queued in the outbox.

Prints the wall time from the deadline to the last report queued, per worker count, and
the cost per game. Usage (the database is made on the server if missing, and emptied):

    python benchmarks/deadline_storm.py --url postgresql://postgres@127.0.0.1:5432/pbem_storm \\
        --games 100 --workers 1 2 4 --width 1600
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import time
from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
DEADLINE = timedelta(hours=2)  # Sunday 20:00, the club's deadline


def _ensure_database(url: str) -> None:
    import psycopg
    from psycopg import sql
    from sqlalchemy.engine import make_url

    base = make_url(url)
    dsn = base.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (base.database,)).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(base.database or "pbem_storm")))


def _context(url: str, width: int, when: datetime, schema: str = "require"):  # type: ignore[no-untyped-def]
    from pbem.config import from_mapping
    from pbem.db.session import make_engine
    from pbem.service.context import Context, ManualClock

    cfg = from_mapping({"database": {"url": url, "workers": "shared"}, "render": {"width": width, "workers": 0},
                        "security": {"key_file": "/tmp/pbem-storm.key"}}, "storm")
    return Context(engine=make_engine(url, schema), config=cfg, clock=ManualClock(when), defer_reports=True)  # type: ignore[arg-type]


def make_games(url: str, games: int, width: int) -> float:
    """An empty database with ``games`` games, every deadline at START + DEADLINE; returns s."""
    from sqlalchemy import text

    from pbem.db.session import make_engine
    from pbem.service import games as made

    _ensure_database(url)
    engine = make_engine(url, "none")
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    ctx = _context(url, width, START, "upgrade")
    t0 = time.perf_counter()
    for n in range(games):
        made.create(ctx, "kriegspiel", f"Storm {n}", [made.SeatSpec("north", f"n{n}@players.example"),
                                                      made.SeatSpec("south", f"s{n}@players.example", "it")],
                    deadline="2h")
    ctx.engine.dispose()
    return time.perf_counter() - t0


def worker(url: str, width: int) -> None:
    """One worker: resolve what is due, draw and queue its share of the reports, until none is left."""
    from pbem.service import turns, workers
    from pbem.service.claims import Claims

    ctx = _context(url, width, START + DEADLINE + timedelta(seconds=1))
    claims = Claims(ctx.engine)
    while True:
        resolved = turns.resolve_due(ctx)
        drawn = asyncio.run(workers.draw_reports(ctx, None, claims, 2))
        if not resolved and not drawn:
            break
    claims.close()
    ctx.engine.dispose()


def storm(url: str, games: int, count: int, width: int) -> tuple[float, int, int]:
    from sqlmodel import select

    from pbem.db.models import OutboxMail, ReportJob

    procs = [multiprocessing.get_context("spawn").Process(target=worker, args=(url, width)) for _ in range(count)]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    wall = time.perf_counter() - t0
    ctx = _context(url, width, START)
    with ctx.session() as s:
        jobs = [j.status for j in s.exec(select(ReportJob))]
        reports = len(list(s.exec(select(OutboxMail.id).where(OutboxMail.kind == "report"))))
    ctx.engine.dispose()
    assert len(jobs) == games and all(j == "done" for j in jobs), "not every game's reports were queued"
    return wall, len(jobs), reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/pbem_storm")
    parser.add_argument("--games", type=int, nargs="+", default=[100])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--width", type=int, default=1600)
    args = parser.parse_args()
    print(f"deadline storm: Kriegspiel, every deadline at the same second, maps {args.width} px")
    print(f"{'games':>6} {'workers':>7} {'setup s':>8} {'wall s':>8} {'ms/game':>8} {'reports':>8}")
    for games in args.games:
        for count in args.workers:
            setup = make_games(args.url, games, args.width)
            wall, jobs, reports = storm(args.url, games, count, args.width)
            print(f"{games:>6} {count:>7} {setup:>8.1f} {wall:>8.1f} {wall * 1000 / games:>8.0f} {reports:>8}",
                  flush=True)


if __name__ == "__main__":
    main()
