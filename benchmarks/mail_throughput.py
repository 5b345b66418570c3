"""End-to-end mail figures on loopback (embedded pymap + aiosmtpd, a SQLite file):

* order mails processed per second: players send order mails over SMTP, the daemon
  fetches them over IMAP, checks them, commits, and sends every reply over SMTP;
  measured separately for mails that only file orders and for mails that complete a
  turn (resolution, map rendering, a report to every seat);
* time from the last order of a turn to every report mail queued (in the outbox);
* peak memory of the daemon's process;
* the floor: in the same run, the raw rate of the same mail path with no processing at
  all (aiosmtplib sends, aioimaplib FETCH and STORE as the daemon issues them — one each a
  batch —, one reply sent per mail), and pbem's rate for mails that file orders as a share
  of it. Kriegspiel's first phase is sealed: each such mail also draws its seat's preview
  map; ``--kind corteo`` files orders with no map.

The mail reader (the worker process that reads each mail under its time budget) is started
before the timing, as a running daemon has it.

The mail server (the embedded one, in memory) runs in a process of its own.

    .venv/bin/python benchmarks/mail_throughput.py [--games 30] [--width 1600] [--kind kriegspiel] [--orders-only]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pbem.app import App  # noqa: E402
from pbem.config import from_mapping  # noqa: E402
from pbem.core import registry  # noqa: E402
from pbem.db.session import make_engine  # noqa: E402
from pbem.demo import ScriptedTable  # noqa: E402
from pbem.mail.imap import ImapInbox  # noqa: E402
from pbem.mail.smtp import SmtpSender  # noqa: E402
from pbem.service import games, inbound, store  # noqa: E402
from pbem.service.context import Context  # noqa: E402
from mailserver import MailServerProcess  # noqa: E402


def default_text(ctx: Context, game_id: str, seat: str) -> str:
    with ctx.session() as s:
        game = store.get_game(s, game_id)
        rules = store.rules_of(game)
        return rules.default_orders(store.state_of(game), seat).canonical() or "PASS"


async def burst(app: App, table: ScriptedTable, sends: list[tuple[str, str, str]]) -> tuple[int, float]:
    """Send every mail, then run the daemon until all are processed and answered."""
    start = time.perf_counter()
    for game_id, seat, text in sends:
        await table.send(game_id, seat, text)
    sent_at = time.perf_counter()
    cpu = _cpu()
    done = 0
    while done < len(sends):
        summary = await app.cycle()
        done += summary.fetched
        if summary.fetched == 0:
            await app.inbox.wait(0.2)
    while await app.drain():
        pass
    end = time.perf_counter()
    cpu = _cpu() - cpu
    print(f"  (players' SMTP sends {sent_at - start:.2f} s, server fetch+process+reply {end - sent_at:.2f} s; "
          f"the daemon's process: {cpu / len(sends) * 1000:.1f} ms of CPU a mail)")
    return len(sends), end - start


async def raw_floor(server: MailServerProcess, n: int) -> float:
    """Mails per second through the bare path: the players' sends, then the daemon's own
    IMAP calls (the batch's FETCH, one STORE \\Seen for it) and one reply each, with nothing
    read, checked or stored in between."""
    inbox = ImapInbox("127.0.0.1", server.imap_port, "floor@localhost", "pbem", "none", max_batch=1000)
    sender = SmtpSender("127.0.0.1", server.smtp_port)
    await inbox.connect()
    raws = [_mail("player@localhost", "k1", "north", "abcd-efgh-jkmn", "INFANTRY F10 G6 G7") for _ in range(n)]
    reply = _mail("floor@localhost", "k1", "north", "[secret]", "accepted")
    start = time.perf_counter()
    for raw in raws:
        await sender.send("player@localhost", ["floor@localhost"], raw)
    got = 0
    while got < n:
        mails = await inbox.fetch_new()
        await inbox.mark_seen_many([fetched.uid for fetched in mails])
        for _fetched in mails:
            await sender.send("floor@localhost", ["player@localhost"], reply)
        got += len(mails)
        if not mails:
            await inbox.wait(0.2)
    took = time.perf_counter() - start
    await inbox.close()
    await sender.close()
    return n / took


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--kind", default="kriegspiel")
    parser.add_argument("--orders-only", action="store_true",
                        help="stop after the floor and the order mails that file orders")
    args = parser.parse_args()
    rules = registry.get(args.kind)
    seats = list(rules.info.seats)[:2]
    tmp = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp}/pbem.sqlite"}, "render": {"width": args.width},
                        "limits": {"per_sender_per_hour": 100000, "global_per_hour": 100000}}, "bench")
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg)
    server = MailServerProcess()  # a mail server of its own, as in a real deployment
    await server.start()
    inbox = ImapInbox("127.0.0.1", server.imap_port, cfg.server.address, "pbem", "none", max_batch=1000)
    sender = SmtpSender("127.0.0.1", server.smtp_port)
    app = App(ctx, inbox, sender)
    await inbox.connect()
    await asyncio.to_thread(app.inspector.check, b"Subject: warm-up\r\n\r\nstart the mail reader\r\n")  # as the daemon does once
    floor = await raw_floor(server, args.games)
    print(f"the floor (no processing: SMTP send, IMAP FETCH + STORE, one reply): {args.games} mails "
          f"= {floor:6.1f} mails/s")
    addresses = {seat: f"{seat}@localhost" for seat in seats}
    table = ScriptedTable(app, sender, lambda a: ImapInbox("127.0.0.1", server.imap_port, a, "pbem", "none"),
                          addresses, cfg.server.address)
    t0 = time.perf_counter()
    ids = [games.create(ctx, args.kind, f"bench {i}", [games.SeatSpec(s, a) for s, a in addresses.items()])
           for i in range(args.games)]
    created = time.perf_counter() - t0
    while await app.drain():  # the outbox sends at most 100 a drain
        pass
    await table.collect_all()
    phase = rules.phase(rules.new_game(seats, {}))
    first, second = (seats[0], seats[1]) if len(phase.awaiting) > 1 else (phase.awaiting[0], None)
    print(f"{args.kind}: {args.games} games created (welcome mails queued) in {created:.2f} s; map width {args.width} px")

    if second is not None:
        sends = [(g, first, default_text(ctx, g, first)) for g in ids]
        n, took = await burst(app, table, sends)
        preview = phase.sealed and hasattr(rules, "preview")  # the seat's own sealed view, drawn (issue 19.1)
        print(f"order mails that file orders:       {n} in {took:.2f} s = {n / took:6.1f} mails/s end to end "
              f"({n / took / floor:.0%} of the floor){'; each draws its seat a preview map' if preview else ''}")
        if args.orders_only:
            await table.close()
            await app.stop()
            await server.stop()
            return
        sends = [(g, second, default_text(ctx, g, second)) for g in ids]
        n, took = await burst(app, table, sends)
        print(f"order mails that complete a turn:   {n} in {took:.2f} s = {n / took:6.1f} mails/s end to end "
              f"(each: resolution, map, {len(seats)} reports)")
    await table.collect_all()

    # The next turn: one seat moves; its mail completes the turn at once.
    movers = []
    for g in ids:
        with ctx.session() as s:
            game = store.get_game(s, g)
            awaited = rules.phase(store.state_of(game)).awaiting
        movers.append((g, awaited[0], default_text(ctx, g, awaited[0])))
    n, took = await burst(app, table, movers)
    print(f"move mails (one seat, turn resolves): {n} in {took:.2f} s = {n / took:6.1f} mails/s end to end")
    await table.collect_all()

    # Latency: the last order of a turn until every report is in the outbox.
    latencies, processing = [], []
    await app.draw_reports()  # start the map worker before timing
    for g in ids[: min(15, len(ids))]:
        with ctx.session() as s:
            game = store.get_game(s, g)
            seat = rules.phase(store.state_of(game)).awaiting[0]
        text = default_text(ctx, g, seat)
        raw = _mail(addresses[seat], g, seat, table.secrets[(g, seat)], text)
        t = time.perf_counter()
        result = await asyncio.to_thread(inbound.handle, ctx, raw)
        handled = time.perf_counter()
        await app.draw_reports()
        latencies.append(time.perf_counter() - t)
        processing.append(handled - t)
        assert result.status == "orders", result
    print(f"last order -> turn resolved and committed: median {statistics.median(processing) * 1000:.0f} ms")
    print(f"last order -> all reports queued (maps drawn): median {statistics.median(latencies) * 1000:.0f} ms, "
          f"max {max(latencies) * 1000:.0f} ms over {len(latencies)} turns")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS): {peak:.0f} MiB")
    await table.close()
    await app.stop()
    await server.stop()


def _cpu() -> float:
    """CPU seconds of this process (the daemon's every thread), less dependent on the
    machine's other load than the wall clock."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _mail(sender: str, game_id: str, seat: str, secret: str, text: str) -> bytes:
    from email.message import EmailMessage
    from email.utils import make_msgid

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "pbem@localhost", "orders", make_msgid()
    msg.set_content(f"GAME {game_id}\nSEAT {seat} {secret}\n{text}\nEND\n")
    return msg.as_bytes()


if __name__ == "__main__":
    asyncio.run(main())
