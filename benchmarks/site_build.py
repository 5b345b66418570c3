"""Site build: how long ``pbem site build`` takes for a club with many finished games.

Makes a club on a SQLite file: ``--games`` Kriegspiel games between ``--players`` players,
each played by order mail through the service to its end (one side deploys, the other
resigns: two phases, so two maps per archive; the report mails are left undrawn), the first twenty as a Swiss league's games;
then builds the site three times and prints the figures:

* cold: every page and every archive (a map per phase) written;
* warm: nothing changed, every archive kept (its stamp matches the game);
* one more game finished: one archive written, every page again.

A plain script: figures, no assertions.

    .venv/bin/python benchmarks/site_build.py [--games 1000] [--players 40] [--width 400] [--keep DIR]
"""

from __future__ import annotations

import argparse
import email
import email.policy
import email.utils
import re
import shutil
import tempfile
import time
from datetime import datetime, timezone
from email.message import EmailMessage
from pathlib import Path

from pbem.config import from_mapping
from pbem.db.session import make_engine
from pbem.games.kriegspiel.play import opening_text
from pbem.service import games, inbound, leagues
from pbem.service.context import Context, ManualClock
from pbem.site import build


SECRET = re.compile(r"\b([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})\b")


def _order_mail(ctx: Context, sender: str, game_id: str, seat: str, secret: str, lines: list[str]) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, ctx.config.server.address, "orders"
    msg["Date"] = email.utils.format_datetime(ctx.now())
    msg["Message-ID"] = email.utils.make_msgid(domain="players.invalid")
    msg.set_content("\n".join([f"GAME {game_id}", f"SEAT {seat} {secret}", *lines, "END"]))
    return msg.as_bytes(policy=email.policy.SMTP)


def _play(ctx: Context, game_id: str, winner: str, mail: dict[str, str], secrets: dict[tuple[str, str], str]) -> None:
    for seat in ("north", "south"):
        text = opening_text(seat).splitlines() if seat == winner else ["RESIGN"]
        inbound.handle(ctx, _order_mail(ctx, mail[seat], game_id, seat, secrets[(game_id, seat)], text))


def _secrets(ctx: Context, game_id: str) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    import json

    from sqlmodel import select

    from pbem.db.models import OutboxMail, Seat

    with ctx.session() as s:
        seats = {r.name: r.address for r in s.exec(select(Seat).where(Seat.game_id == game_id))}
        welcomes = s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id, OutboxMail.kind == "welcome")).all()
        found = {}
        for m in welcomes:
            to = json.loads(m.recipients_json)[0]
            seat = next(n for n, a in seats.items() if a == to)
            msg = email.message_from_bytes(m.raw, policy=email.policy.default)
            body = msg.get_body(("plain",))  # type: ignore[attr-defined]
            hit = SECRET.search(body.get_content() if body is not None else "")
            assert hit is not None, "no secret in a welcome"
            found[(game_id, seat)] = hit.group(1)
    return seats, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--width", type=int, default=400)
    parser.add_argument("--keep", help="keep the club and its site in this folder")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pbem-site-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    clock = ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    cfg = from_mapping({"database": {"url": f"sqlite:///{root}/pbem.sqlite"}, "render": {"width": args.width},
                        "site": {"title": "Benchmark club"}}, "bench")
    # the players' report mails are left to the daemon (not drawn here): the setup is not what is measured
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock, defer_reports=True)
    people = [f"player{i}@example.org" for i in range(args.players)]
    t0 = time.perf_counter()
    league = leagues.create(ctx, "Benchmark Swiss", "kriegspiel", "swiss", people[:20], rounds=2)
    made = 0
    for _ in range(2):
        leagues.pair(ctx, league)
        for entry in leagues.show(ctx, league)["games"][str(_ + 1)]:
            mail, secrets = _secrets(ctx, entry["game"])
            _play(ctx, entry["game"], "north", mail, secrets)
            clock.advance(minutes=10)
            made += 1
    while made < args.games:
        a, b = people[made % args.players], people[(made * 7 + 3) % args.players]
        if a == b:
            b = people[(made + 1) % args.players]
        game_id = games.create(ctx, "kriegspiel", f"Game {made}", [games.SeatSpec("north", a), games.SeatSpec("south", b)])
        mail, secrets = _secrets(ctx, game_id)
        _play(ctx, game_id, "north" if made % 3 else "south", mail, secrets)
        clock.advance(minutes=10)
        made += 1
    setup = time.perf_counter() - t0
    out = root / "site"
    cold = build(ctx, out)
    warm = build(ctx, out)
    extra = games.create(ctx, "kriegspiel", "One more", [games.SeatSpec("north", people[0]),
                                                         games.SeatSpec("south", people[1])])
    mail, secrets = _secrets(ctx, extra)
    _play(ctx, extra, "north", mail, secrets)
    one = build(ctx, out)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"club: {made} finished games, {args.players} players, maps {args.width} px (set up in {setup:.1f} s)")
    print(f"cold build:             {cold.seconds:7.1f} s  ({cold.pages} pages, {cold.archives_written} archives written)")
    print(f"warm build, no change:  {warm.seconds:7.1f} s  ({warm.archives_kept} archives kept)")
    print(f"after one more game:    {one.seconds:7.1f} s  ({one.archives_written} archive written)")
    print(f"site size: {size / 1e6:.1f} MB in {sum(1 for p in out.rglob('*') if p.is_file())} files")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
