"""The deadline storm: N games on one PostgreSQL database whose deadlines fall at the same
second; W worker processes share the work as `pbem serve` workers do (due games claimed
with FOR UPDATE SKIP LOCKED, report jobs with advisory locks, `pbem.service.claims`): each
game resolved with the default orders, every seat's report drawn with its map at the given
width and queued in the outbox.

``--kinds kriegspiel`` (the default): Kriegspiel games, a North playing in English and a
South in Italian (two maps a game); ``--kinds mix``: the five kinds in turn (Kriegspiel,
Corteo, Battle of Seattle, Arditi del Popolo with three parties, Block Mania with three
players), the seats' languages alternating. Every game has its own dice seed.

Prints, per number of games and of workers: the wall time from the deadline to the last
report queued (the workers are started, their modules loaded and their database connected
before it, as running `pbem serve` workers are), the cost per game in wall time, the CPU
time the workers used per game from the deadline on and
the CPU time of their PostgreSQL backends per game (sampled from /proc: the server must be
on this machine, else it shows 0). On a machine shared with other work the wall time
follows the load; the CPU times do not. At the end a sample of the queued reports is read
back and its PNG maps decoded.

The games are made once per (kinds, count) in a template database (``<db>_tpl_<kinds>_<n>``,
kept between runs; ``--fresh`` makes it again), and each run starts from a copy of it
(``CREATE DATABASE … TEMPLATE``), so that making 3,000 games is paid once. Usage:

    python benchmarks/deadline_storm.py --url postgresql://postgres@127.0.0.1:5432/pbem_storm \\
        --games 100 1000 --workers 1 2 4 --kinds kriegspiel --width 1600
"""

from __future__ import annotations

import argparse
import asyncio
import email
import io
import multiprocessing
import os
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

START = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
DEADLINE = timedelta(hours=2)  # Sunday 20:00, the club's deadline
KEY_FILE = "/tmp/pbem-storm.key"

#: The seats each kind is played with here (its usual table).
SEATS = {
    "kriegspiel": ("north", "south"),
    "corteo": ("corteo", "potere"),
    "seattle": ("demonstrators", "authorities"),
    "arditi": ("red", "blue", "green"),
    "blockmania": ("red", "blue", "green"),
}
MIXES = {"kriegspiel": ("kriegspiel",), "mix": tuple(SEATS)}
TEMPLATE_MARK = "storm_template_v1"


def _admin_dsn(url: str) -> tuple[str, str]:
    from sqlalchemy.engine import make_url

    base = make_url(url)
    dsn = base.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    return dsn, base.database or "pbem_storm"


def _with_database(url: str, name: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).set(database=name).render_as_string(hide_password=False)


def _admin(url: str, *statements: tuple[str, tuple[Any, ...]]) -> list[Any]:
    import psycopg

    dsn, _ = _admin_dsn(url)
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [conn.execute(q, args).fetchall() if q.lstrip().upper().startswith("SELECT") else conn.execute(q, args)
                for q, args in statements]


def remake_database(url: str) -> None:
    """The benchmark's own database, dropped and made again empty."""
    _, db = _admin_dsn(url)
    _admin(url, (f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)', ()), (f'CREATE DATABASE "{db}"', ()))


def drop_database(url: str) -> None:
    _, db = _admin_dsn(url)
    _admin(url, (f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)', ()))


def _context(url: str, width: int, when: datetime, schema: str = "require"):  # type: ignore[no-untyped-def]
    from pbem.config import from_mapping
    from pbem.db.session import make_engine
    from pbem.service.context import Context, ManualClock

    cfg = from_mapping({"database": {"url": url, "workers": "shared"}, "render": {"width": width, "workers": 0},
                        "security": {"key_file": KEY_FILE}}, "storm")
    return Context(engine=make_engine(url, schema), config=cfg, clock=ManualClock(when), defer_reports=True)  # type: ignore[arg-type]


def _remember_welcome_maps() -> None:
    """While games are made: a welcome map drawn once per distinct drawing in this process
    (every new game of a kind starts from the same position, so its welcome maps are the
    same pictures); only the setup, which is not measured, is spared the drawing."""
    from pbem.service import mailer

    drawn: dict[tuple[str, str], bytes] = {}
    plain = mailer.MapCache.png

    def png(self: Any, rules: Any, view: Any, lang: str = "en") -> bytes:
        key = (rules.info.slug, mailer.map_key(view, lang))
        if key not in drawn:
            drawn[key] = plain(self, rules, view, lang)
        return drawn[key]

    mailer.MapCache.png = png  # type: ignore[method-assign]


def _make_template(url: str, name: str, kinds: str, games: int, width: int) -> float:
    """A database ``name`` holding ``games`` games, every deadline at START + DEADLINE; returns s."""
    from sqlalchemy import text

    from pbem.service import games as made
    from pbem.service import reports

    _admin(url, (f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', ()), (f'CREATE DATABASE "{name}"', ()))
    target = _with_database(url, name)
    ctx = _context(target, width, START, "upgrade")
    _remember_welcome_maps()
    cycle = MIXES[kinds]
    t0 = time.perf_counter()
    for n in range(games):
        kind = cycle[n % len(cycle)]
        specs = [made.SeatSpec(seat, f"{seat}{n}@players.example", "it" if (n + i) % 2 else "en")
                 for i, seat in enumerate(SEATS[kind])]
        made.create(ctx, kind, f"Storm {n}", specs, deadline="2h")
    reports.run_pending(ctx)  # a first step the server took at the start (a draw) has its reports sent already
    with ctx.engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE {TEMPLATE_MARK} (games integer)"))
        conn.execute(text(f"INSERT INTO {TEMPLATE_MARK} VALUES ({games})"))
    ctx.engine.dispose()
    return time.perf_counter() - t0


def make_games(url: str, kinds: str, games: int, width: int, fresh: bool = False) -> float:
    """The database of ``url`` made again as a copy of the template of ``games`` games
    (made first when missing); returns the seconds spent making the template (0: kept)."""
    _, db = _admin_dsn(url)
    template = f"{db}_tpl_{kinds}_{games}"
    made = 0.0
    exists = _admin(url, ("SELECT 1 FROM pg_database WHERE datname = %s", (template,)))[0]
    if exists and not fresh:
        import psycopg

        try:
            with psycopg.connect(_with_database(url, template).replace("+psycopg", "")) as conn:
                exists = conn.execute(f"SELECT games FROM {TEMPLATE_MARK}").fetchone() == (games,)
        except psycopg.Error:
            exists = False
    if not exists or fresh:
        made = _make_template(url, template, kinds, games, width)
    _admin(url, (f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)', ()),
           (f'CREATE DATABASE "{db}" TEMPLATE "{template}"', ()))
    from pbem.db.session import make_engine

    make_engine(url, "upgrade").dispose()  # a template made before a new schema revision
    return made


def worker(url: str, width: int, ready: Any = None, go: Any = None, spent: Any = None) -> None:
    """One worker: resolve what is due, draw and queue its share of the reports, until none is
    left. Started before the deadline as a running `pbem serve` is (its modules loaded, its
    database connected: ``ready``), it begins at ``go`` and puts its CPU seconds from then in
    ``spent``."""
    from pbem.service import turns, workers
    from pbem.service.claims import Claims

    ctx = _context(url, width, START + DEADLINE + timedelta(seconds=1))
    claims = Claims(ctx.engine)
    with ctx.session() as s:  # connected, as a running worker is
        s.connection()
    if ready is not None:
        ready.set()
        go.wait()
    began = os.times()
    while True:
        resolved = turns.resolve_due(ctx)
        drawn = asyncio.run(workers.draw_reports(ctx, None, claims, 2))
        if not resolved and not drawn:
            break
    ended = os.times()
    claims.close()
    ctx.engine.dispose()
    if spent is not None:
        spent.put(ended.user - began.user + ended.system - began.system)


class BackendClock:
    """The CPU time of the PostgreSQL backends serving one database from the deadline on,
    sampled from /proc while the workers run (the last figure seen of each backend)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen: dict[int, float] = {}
        self.before: dict[int, float] = {}
        self._stop, self._started = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self, conn: Any, db: str, tick: int) -> dict[int, float]:
        out: dict[int, float] = {}
        for (pid,) in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (db,)):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[pid] = (int(fields[11]) + int(fields[12])) / tick
        return out

    def _run(self) -> None:
        import psycopg

        dsn, db = _admin_dsn(self.url)
        tick = os.sysconf("SC_CLK_TCK")
        with psycopg.connect(dsn, autocommit=True) as conn:
            self.before = self._sample(conn, db, tick)  # the workers' connections, made before the deadline
            self._started.set()
            while not self._stop.wait(0.25):
                self.seen.update(self._sample(conn, db, tick))

    def __enter__(self) -> BackendClock:
        self._thread.start()
        self._started.wait()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def seconds(self) -> float:
        return sum(cpu - self.before.get(pid, 0.0) for pid, cpu in self.seen.items())


def storm(url: str, games: int, count: int, width: int) -> tuple[float, float, float, int]:
    """Run ``count`` workers until every report is queued: wall s, workers' CPU s, backends' CPU s, reports."""
    from sqlmodel import col, select

    from pbem.db.models import OutboxMail, ReportJob

    with _context(url, width, START).session() as s:
        before_jobs = len(list(s.exec(select(ReportJob.id))))
        before_reports = len(list(s.exec(select(OutboxMail.id).where(OutboxMail.kind == "report"))))
    spawn = multiprocessing.get_context("spawn")
    go, spent = spawn.Event(), spawn.Queue()
    readies = [spawn.Event() for _ in range(count)]
    procs = [spawn.Process(target=worker, args=(url, width, ready, go, spent)) for ready in readies]
    for p in procs:
        p.start()
    for ready in readies:
        ready.wait()
    with BackendClock(url) as backends:
        t0 = time.perf_counter()  # the deadline: every worker is running
        go.set()
        cpu = sum(spent.get() for _ in procs)
        for p in procs:
            p.join()
        wall = time.perf_counter() - t0
    ctx = _context(url, width, START)
    with ctx.session() as s:
        jobs = [j.status for j in s.exec(select(ReportJob))]
        ids = [i for i in s.exec(select(OutboxMail.id).where(OutboxMail.kind == "report").order_by(col(OutboxMail.id)))]
        sample = ids[before_reports:][:: max(1, (len(ids) - before_reports) // 12)]
        raws = [row.raw for row in s.exec(select(OutboxMail).where(OutboxMail.id.in_(sample)))]  # type: ignore[union-attr]
    ctx.engine.dispose()
    assert len(jobs) == before_jobs + games and all(j == "done" for j in jobs), "not every game's reports were queued"
    for raw in raws:
        _check_map(raw, width)
    return wall, cpu, backends.seconds, len(ids) - before_reports


def _check_map(raw: bytes, width: int) -> None:
    """The report carries a PNG map of the width asked for, which decodes."""
    from PIL import Image

    mail = email.message_from_bytes(raw)
    pngs = [p.get_payload(decode=True) for p in mail.walk() if p.get_content_type() == "image/png"]
    assert len(pngs) == 1 and isinstance(pngs[0], bytes), "a report without its map"
    with Image.open(io.BytesIO(pngs[0])) as image:
        image.load()
        assert image.width == width, f"a map {image.width} px wide"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/pbem_storm")
    parser.add_argument("--games", type=int, nargs="+", default=[100])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--kinds", choices=sorted(MIXES), default="kriegspiel")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--fresh", action="store_true", help="make the template databases again")
    args = parser.parse_args()
    kinds = "Kriegspiel" if args.kinds == "kriegspiel" else "a mix of " + ", ".join(MIXES["mix"])
    print(f"deadline storm: {kinds}, every deadline at the same second, maps {args.width} px, "
          f"{os.cpu_count()} cores")
    print(f"{'games':>6} {'workers':>7} {'wall s':>8} {'ms/game':>8} {'cpu ms/game':>12} {'pg ms/game':>11} "
          f"{'reports':>8}  (template made in s)")
    for games in args.games:
        for count in args.workers:
            made = make_games(args.url, args.kinds, games, args.width, args.fresh)
            args.fresh = False
            wall, cpu, pg, reports = storm(args.url, games, count, args.width)
            print(f"{games:>6} {count:>7} {wall:>8.1f} {wall * 1000 / games:>8.0f} {cpu * 1000 / games:>12.0f} "
                  f"{pg * 1000 / games:>11.0f} {reports:>8}  ({made:.0f})", flush=True)


if __name__ == "__main__":
    main()
