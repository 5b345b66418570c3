"""A big database: the cost of one order mail and of one turn (the mail that completes it,
the resolution, every seat's report drawn and queued) with 10 games in the PostgreSQL
database, and again with 10,000. Every hot query is on an index (tests/workers/test_explain.py),
so the two rows should agree within noise. Beside them, the time to open the database as a
worker's start or any command opens it (a new engine, its key attached): it looked at every
welcome and answer in full (a Kriegspiel welcome with its map is ~300 KB), and now reads none;
and the reminder job with nothing due (`reminder_scan`, every 15 s on every worker): it scans
every open phase by design, so it grows with the games, but it reads no game's row.

The 10,000 are copies of a made game (its game, seats, holders, phase and welcome rows,
under new ids), written in bulk: making each with `pbem game new` would take hours.

    python benchmarks/big_database.py --url postgresql://postgres@127.0.0.1:5432/pbem_big [--games 10000]
"""

from __future__ import annotations

import argparse
import email
import email.policy
import re
import statistics
import sys
import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

from sqlalchemy import insert, select, text

from sqlmodel import SQLModel
from sqlmodel import select as select_rows

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pbem.db.models import OutboxMail  # noqa: E402
from pbem.demo import load_script  # noqa: E402
from pbem.service import atrest, games, inbound, reports, turns  # noqa: E402
from pbem.service.context import Context  # noqa: E402
from deadline_storm import _context, drop_database, remake_database  # noqa: E402

WHEN = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
DEPLOY = {"north": load_script("kriegspiel").steps[0].text, "south": load_script("kriegspiel").steps[1].text}
_T = SQLModel.metadata.tables
PLAYERS = {"north": "nora@players.example", "south": "sandro@players.example"}


def _ctx(url: str, width: int) -> Context:
    remake_database(url)
    ctx = _context(url, width, WHEN, "upgrade")
    ctx.defer_reports = True
    return ctx  # type: ignore[no-any-return]


def secrets(ctx: Context, game_id: str) -> dict[str, str]:
    out = {}
    with ctx.session() as s:
        for mail in s.exec(select_rows(OutboxMail).where(OutboxMail.game_id == game_id, OutboxMail.kind == "welcome")):
            msg = email.message_from_bytes(mail.raw, policy=email.policy.default)
            part = msg.get_body(("plain",))
            found = re.search(r"(?:SEAT|POSTO) (\w+) ([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})", part.get_content())  # type: ignore[union-attr]
            if found:
                out[found.group(1)] = found.group(2)
    return out


def order(game_id: str, seat: str, secret: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = PLAYERS[seat], "pbem@localhost", f"orders {game_id}"
    msg["Message-ID"], msg["Date"] = make_msgid(domain="players.example"), format_datetime(WHEN)
    msg.set_content(f"GAME {game_id}\nSEAT {seat} {secret}\n{DEPLOY[seat].strip()}\nEND\n")
    return msg.as_bytes()


def measure(ctx: Context, game_id: str) -> tuple[float, float]:
    """(ms for the mail that files orders, ms for the mail that completes the turn + reports)."""
    keys = secrets(ctx, game_id)
    t0 = time.perf_counter()
    first = inbound.handle(ctx, order(game_id, "north", keys["north"]))
    t1 = time.perf_counter()
    second = inbound.handle(ctx, order(game_id, "south", keys["south"]))
    done = reports.run_pending(ctx, game_id)
    t2 = time.perf_counter()
    assert first.status == "orders" and second.status == "orders" and done == 1, (first, second, done)
    return (t1 - t0) * 1000, (t2 - t1) * 1000


def reminder_scan(ctx: Context) -> float:
    """ms for the reminder job when no reminder is due (the deadline job runs it every 15 s on
    every worker): it scans every open phase's deadline and its game's policy, and reads a
    game's row only when a reminder is due (it read every game's row, state and sealed seed)."""
    t0 = time.perf_counter()
    sent = turns.send_reminders(ctx)
    took = time.perf_counter() - t0
    assert sent == 0, sent
    return took * 1000


def opening(ctx: Context) -> float:
    """ms to open the database as a worker's start or a command opens it: a new engine, its
    key attached (which looks for values an older version kept in clear, `atrest.seal_legacy`)."""
    from pbem.db.session import make_engine

    engine = make_engine(ctx.engine.url.render_as_string(hide_password=False), "none")
    t0 = time.perf_counter()
    atrest.attach(engine, ctx.config)
    took = time.perf_counter() - t0
    engine.dispose()
    return took * 1000


def clone(ctx: Context, source: str, count: int, start: int) -> None:
    """``count`` copies of game ``source``, ids ``b<start>``…, in bulk."""
    with ctx.session() as s:
        conn = s.connection()
        game = conn.execute(select(_T['game']).where(_T['game'].c.id == source)).mappings().one()
        seats = conn.execute(select(_T['seat']).where(_T['seat'].c.game_id == source)).mappings().all()
        holders = conn.execute(select(_T['holder']).where(_T['holder'].c.game_id == source)).mappings().all()
        phases = conn.execute(select(_T['phase']).where(_T['phase'].c.game_id == source)).mappings().all()
        welcomes = conn.execute(select(_T['outbox']).where(_T['outbox'].c.game_id == source)
                                ).mappings().all()
        next_seat = conn.execute(text("SELECT coalesce(max(id), 0) + 1 FROM seat")).scalar() or 1
        for lo in range(start, start + count, 500):
            ids = [f"b{n}" for n in range(lo, min(lo + 500, start + count))]
            conn.execute(insert(_T['game']), [{**game, "id": g, "name": f"Copy {g}"} for g in ids])
            seat_rows, holder_rows = [], []
            for g in ids:
                for seat in seats:
                    seat_rows.append({**seat, "id": next_seat, "game_id": g})
                    holder_rows += [{**h, "id": None, "seat_id": next_seat, "game_id": g}
                                    for h in holders if h["seat_id"] == seat["id"]]
                    next_seat += 1
            conn.execute(insert(_T['seat']), seat_rows)
            if holder_rows:
                conn.execute(insert(_T['holder']), [{k: v for k, v in h.items() if k != "id"} for h in holder_rows])
            conn.execute(insert(_T['phase']), [{k: v for k, v in {**p, "game_id": g}.items() if k != "id"}
                                                      for g in ids for p in phases])
            conn.execute(insert(_T['outbox']), [
                {k: v for k, v in {**w, "game_id": g, "message_id": f"<{g}-{i}-{w['message_id'][1:]}"}.items()
                 if k != "id"} for g in ids for i, w in enumerate(welcomes)])
        conn.execute(text("SELECT setval(pg_get_serial_sequence('seat', 'id'), (SELECT max(id) FROM seat))"))
        s.commit()
    with ctx.engine.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/pbem_big")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ctx = _ctx(args.url, args.width)
    try:
        _run(ctx, args)
    finally:
        ctx.engine.dispose()
        drop_database(args.url)  # 10,000 welcomes with their maps: ~6 GB


def _run(ctx: Context, args: argparse.Namespace) -> None:
    made = [games.create(ctx, "kriegspiel", f"Big {n}", [games.SeatSpec(s, a) for s, a in PLAYERS.items()],
                         deadline="48h") for n in range(max(10, 2 * args.runs))]
    small: list[tuple[float, ...]] = [(*measure(ctx, g), opening(ctx), reminder_scan(ctx)) for g in made[: args.runs]]
    t0 = time.perf_counter()
    clone(ctx, made[-1], args.games - len(made), 1)
    copied = time.perf_counter() - t0
    big = [(*measure(ctx, g), opening(ctx), reminder_scan(ctx)) for g in made[args.runs: 2 * args.runs]]
    print(f"big database: Kriegspiel, maps {args.width} px; median of {args.runs} runs "
          f"({args.games - len(made)} games copied in {copied:.1f} s)")
    print(f"{'games':>7} {'order mail ms':>14} {'turn + reports ms':>18} {'opening the database ms':>24}"
          f" {'reminder job ms':>16}")
    for label, rows in ((len(made), small), (args.games, big)):
        print(f"{label:>7} {statistics.median(r[0] for r in rows):>14.0f} {statistics.median(r[1] for r in rows):>18.0f}"
              f" {statistics.median(r[2] for r in rows):>24.0f} {statistics.median(r[3] for r in rows):>16.1f}")




if __name__ == "__main__":
    main()
