"""Soak: thousands of mixed mails through the real mail path on loopback, with faults.

An embedded mail server (pymap in memory + aiosmtpd) and the daemon's ``App`` share one
event loop; a SQLite file holds the games. Kriegspiel games are created first (their
welcome mails sent, the secrets read from the players' mailboxes); then a producer task
plays the players over SMTP while ``App.cycle()`` runs, until every mail is processed
and the outbox is empty. The mix:

* order mails: per game north's sealed deployment, a second one replacing it, south's
  deployment (resolves turn 0, rolls the die), then a PASS with ``TURN 1`` from both
  seats (exactly one is the awaited seat's; the other is refused);
* junk (no order block: answered with help), bounces (DSNs of our own mails, null return
  path), auto-replies (Auto-Submitted: auto-replied), duplicates (an earlier order mail
  delivered again, same Message-ID), forged mails (wrong secret, or the right secret
  from the wrong address);
* hostile mail (``--hostile``, a share of the other mails): HELP floods with a forged From
  of a registered player, HELP from made-up addresses, a Content-Type with 20,000
  parameters, an HTML-only mail of ``<a`` × 100,000, a fake bounce of 25,000 blank lines;
* faults at random: SMTP 451s (at MAIL, RCPT or DATA; the players' clients retry, the
  outbox backs off) and every connection dropped (``drop_connections()``) mid-cycle.

Then it prints: mails processed per second, orders lost (accepted orders expected but not
on file; goal 0), orders doubled (goal 0), answers owed and not sent (every order mail of a
registered player is owed its confirmation or refusal; goal 0), the worst single-mail time,
machine mails answered (goal 0), replies sent,
duplicates received by players (same Message-ID twice), failed outbox rows, dice/archive
checks, peak memory. A plain script: figures, no assertions.

    .venv/bin/python benchmarks/soak.py [--mails 3000] [--seed 1] [--width 800] [--workers 1] [--keep]

The default run (3000 mails, 240 games) takes about 3 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import email
import email.policy
import email.utils
import json
import logging
import random
import re
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlmodel import col, select  # noqa: E402

from pbem.app import App  # noqa: E402
from pbem.config import from_mapping  # noqa: E402
from pbem.db.models import Game, InboundMail, OutboxMail, PhaseRow, ReportJob, RollRow, SheetRow  # noqa: E402
from pbem.db.session import make_engine  # noqa: E402
from pbem.demo import load_script  # noqa: E402
from pbem.errors import MailError  # noqa: E402
from pbem.mail.imap import ImapInbox  # noqa: E402
from pbem.mail.parse import normalise_message_id  # noqa: E402
from pbem.mail.smtp import SmtpSender  # noqa: E402
from pbem.service import games  # noqa: E402
from pbem.service.archive import archive_data  # noqa: E402
from pbem.service.context import Context  # noqa: E402
from pbem.service.verify import verify_data  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mailserver import MailServerProcess  # noqa: E402

SERVER = "pbem@localhost"
_SCRIPT = load_script("kriegspiel")
DEPLOY_N = _SCRIPT.steps[0].text
DEPLOY_N2 = DEPLOY_N.replace("CAVALRY I8 J16 A10 A11", "CAVALRY I8 J16 A10 A12")
DEPLOY_S = _SCRIPT.steps[1].text
SECRET_RE = re.compile(r"\b([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})\b")
ORDER_MAILS_PER_GAME = 5


@dataclass
class Planned:
    kind: str  # order | junk | bounce | autoreply | duplicate | forged | flood | stranger | params | html | poison
    sender: str
    raw: bytes
    mid: str
    game: str = ""
    role: str = ""  # n1 n2 s1 pn ps (orders)
    mail_from: str = ""  # SMTP envelope sender ("" for a bounce: <>)


@dataclass
class Stats:
    delivered: int = 0  # SMTP transactions of players that got a 250
    retries: int = 0  # player sends retried after a fault
    faults_451: int = 0
    drops: int = 0
    cycles: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    player_errors: Counter[str] = field(default_factory=Counter)


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def person(sender: str, subject: str, text: str, *, mid: str | None = None,
           headers: tuple[tuple[str, str], ...] = ()) -> tuple[str, bytes]:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, SERVER, subject
    msg["Date"] = email.utils.format_datetime(now())
    mid = mid or email.utils.make_msgid(domain="players.example")
    msg["Message-ID"] = mid
    for name, value in headers:
        msg[name] = value
    msg.set_content(text)
    return mid, msg.as_bytes(policy=email.policy.SMTP)


def orders(game: str, seat: str, secret: str, lines: str, turn: int | None = None) -> str:
    block = [f"GAME {game}", f"SEAT {seat} {secret}", *([f"TURN {turn}"] if turn is not None else []),
             lines.strip(), "END"]
    return "Hello,\n\n" + "\n".join(block) + "\n\n-- \n" + seat + "\n"


def hostile(kind: str, sender: str) -> tuple[str, bytes]:
    """The hostile mails of the issue "Hostile mail": each built to cost the reader the most."""
    mid = email.utils.make_msgid(domain="hostile.example")
    head = f"From: {sender}\r\nTo: {SERVER}\r\nDate: {email.utils.format_datetime(now())}\r\nMessage-ID: {mid}\r\n"
    if kind == "params":
        params = "".join(f";\r\n a{i}=b" for i in range(20_000))  # folded: an MTA refuses 80 KB lines
        return mid, (head + f"Subject: hello\r\nMIME-Version: 1.0\r\nContent-Type: text/plain{params}\r\n\r\nHELP\r\n").encode()
    if kind == "html":
        body = base64.encodebytes(b"<html><body>" + b"<a" * 100_000 + b"</body></html>").decode().replace("\n", "\r\n")
        return mid, (head + "Subject: hello\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n"
                     "Content-Transfer-Encoding: base64\r\n\r\n" + body).encode()
    # a fake bounce: a daemon's From and subject, a body of blank lines
    return mid, (f"From: MAILER-DAEMON@hostile.example\r\nTo: {SERVER}\r\n"
                 f"Date: {email.utils.format_datetime(now())}\r\nMessage-ID: {mid}\r\n"
                 "Subject: Undelivered Mail Returned to Sender\r\n\r\n" + "\r\n" * 25_000 + "x\r\n").encode()


def bounce(original_mid: str, rcpt: str) -> tuple[str, bytes]:
    """A delivery status notification (RFC 3464) for one of our own mails."""
    mid = email.utils.make_msgid(domain="mx.example")
    raw = (f"From: MAILER-DAEMON@localhost (Mail Delivery System)\r\n"
           f"To: pbem-bounces@localhost\r\n"
           f"Subject: Undelivered Mail Returned to Sender\r\n"
           f"Date: {email.utils.format_datetime(now())}\r\n"
           f"Message-ID: {mid}\r\n"
           f"Auto-Submitted: auto-replied\r\n"
           f"MIME-Version: 1.0\r\n"
           f'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"\r\n\r\n'
           f"--b1\r\nContent-Type: text/plain\r\n\r\n"
           f"This is the mail system. Your message could not be delivered to <{rcpt}>.\r\n\r\n"
           f"--b1\r\nContent-Type: message/delivery-status\r\n\r\n"
           f"Reporting-MTA: dns; mx.example\r\n\r\n"
           f"Final-Recipient: rfc822; {rcpt}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
           f"--b1\r\nContent-Type: text/rfc822-headers\r\n\r\n"
           f"From: pbem@localhost\r\nTo: {rcpt}\r\nMessage-ID: {original_mid}\r\nX-PBEM-Game: k1\r\n\r\n"
           f"--b1--\r\n")
    return mid, raw.encode()


class Soak:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.tmp = Path(tempfile.mkdtemp(prefix="pbem-soak-"))
        self.cfg = from_mapping({"database": {"url": f"sqlite:///{self.tmp}/pbem.sqlite"},
                                 "render": {"width": args.width, "workers": args.workers},
                                 "outbox": {"retry_first": "1s", "retry_max": "4s"}}, "soak")
        self.ctx = Context(engine=make_engine(self.cfg.database.url), config=self.cfg)
        self.server = MailServerProcess()
        self.stats = Stats()
        self.secrets: dict[tuple[str, str], str] = {}
        self.addresses: dict[tuple[str, str], str] = {}
        self.welcome_ids: list[tuple[str, str]] = []  # (Message-ID, recipient)
        self.plan: list[Planned] = []
        self.expected_keys: set[str] = set()
        self.producer_done = False

    # ---------------------------------------------------------------------- setup

    async def setup(self, n_games: int) -> float:
        await self.server.start()
        self.inbox = ImapInbox("127.0.0.1", self.server.imap_port, SERVER, "pbem", "none", timeout=5,
                               backoff_initial=0.05, backoff_max=0.5, max_batch=200)
        self.app = App(self.ctx, self.inbox, SmtpSender("127.0.0.1", self.server.smtp_port, timeout=5,
                                                         connections=self.ctx.config.outbox.connections))
        self.players = SmtpSender("127.0.0.1", self.server.smtp_port, timeout=5)
        t0 = time.perf_counter()
        ids = []
        for i in range(n_games):
            north, south = f"n{i}@localhost", f"s{i}@localhost"
            gid = games.create(self.ctx, "kriegspiel", f"soak {i}", [games.SeatSpec("north", north),
                                                                       games.SeatSpec("south", south, "it")])
            self.addresses[(gid, "north")], self.addresses[(gid, "south")] = north, south
            ids.append(gid)
        while await self.app.drain():
            pass
        for (gid, seat), address in self.addresses.items():
            for raw in await self.server.messages(address):
                msg = email.message_from_bytes(raw, policy=email.policy.default)
                text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
                m = SECRET_RE.search(text)
                if m and f"({gid})" in text:
                    self.secrets[(gid, seat)] = m.group(1)
                    self.welcome_ids.append((str(msg["Message-ID"]), address))
        self.games = ids
        return time.perf_counter() - t0

    def make_plan(self, n_mails: int) -> None:
        """Per game the five order mails in order; the other kinds spread in between."""
        rng = self.rng
        streams: list[list[tuple[str, str, str, int | None]]] = []
        for gid in self.games:
            streams.append([("n1", "north", DEPLOY_N, None), ("n2", "north", DEPLOY_N2, None),
                            ("s1", "south", DEPLOY_S, None), ("pn", "north", "PASS", 1), ("ps", "south", "PASSA", 1)])
        others = n_mails - ORDER_MAILS_PER_GAME * len(self.games)
        kinds = ["junk", "bounce", "autoreply", "duplicate", "forged"]
        bad = ["flood", "stranger", "flood", "stranger", "params", "html", "poison"]
        n_bad = round(max(0, others) * self.args.hostile)
        other_kinds = [kinds[i % len(kinds)] for i in range(max(0, others) - n_bad)]
        other_kinds += [bad[i % len(bad)] for i in range(n_bad)]
        rng.shuffle(other_kinds)
        # Interleave: take the next order of a random game, or one of the other kinds.
        slots = ["order"] * (ORDER_MAILS_PER_GAME * len(self.games)) + ["other"] * len(other_kinds)
        rng.shuffle(slots)
        live = list(range(len(streams)))
        self.schedule: list[tuple[str, tuple[object, ...]]] = []
        for slot in slots:
            if slot == "order" and live:
                gi = rng.choice(live[: max(8, len(live) // 8)])  # a window of games at a time
                role, seat, lines, turn = streams[gi].pop(0)
                if not streams[gi]:
                    live.remove(gi)
                self.schedule.append(("order", (self.games[gi], role, seat, lines, turn)))
            else:
                self.schedule.append((other_kinds.pop() if other_kinds else "junk", ()))
        # whatever orders remain (the window may leave some), at the end
        for gi in live:
            for role, seat, lines, turn in streams[gi]:
                self.schedule.append(("order", (self.games[gi], role, seat, lines, turn)))

    def build(self, kind: str, params: tuple[object, ...], n: int) -> Planned:
        rng = self.rng
        if kind == "order":
            gid, role, seat, lines, turn = params
            assert isinstance(gid, str) and isinstance(seat, str) and isinstance(lines, str)
            address = self.addresses[(gid, seat)]
            mid, raw = person(address, f"orders {role}", orders(gid, seat, self.secrets[(gid, seat)], lines,
                                                                 turn if isinstance(turn, int) else None))
            return Planned("order", address, raw, mid, gid, str(role), address)
        if kind == "duplicate":
            earlier = [p for p in self.plan if p.kind == "order"]
            if earlier:
                p = rng.choice(earlier[-200:])
                return Planned("duplicate", p.sender, p.raw, p.mid, p.game, p.role, p.mail_from)
            kind = "junk"
        if kind == "flood":  # HELP "from" a registered player, forged
            sender = self.addresses[(rng.choice(self.games), rng.choice(["north", "south"]))]
            mid, raw = person(sender, "click here", "HELP")
            return Planned("flood", sender, raw, mid, mail_from=sender)
        if kind == "stranger":
            sender = f"made-up{n}@localhost"
            mid, raw = person(sender, "hello", "HELP")
            return Planned("stranger", sender, raw, mid, mail_from=sender)
        if kind in ("params", "html", "poison"):
            sender = f"bomber{n}@localhost"
            mid, raw = hostile(kind, sender)
            return Planned(kind, sender, raw, mid, mail_from="" if kind == "poison" else sender)
        if kind == "junk":
            sender = f"visitor{n}@localhost"
            mid, raw = person(sender, "hello?", "Hi, is this the game server? How do I join?\n\nBye")
            return Planned("junk", sender, raw, mid, mail_from=sender)
        if kind == "bounce":
            original, rcpt = rng.choice(self.welcome_ids)
            mid, raw = bounce(original, rcpt)
            return Planned("bounce", "MAILER-DAEMON@localhost", raw, mid, mail_from="")
        if kind == "autoreply":
            original, rcpt = rng.choice(self.welcome_ids)
            mid, raw = person(rcpt, "Automatic reply: [pbem] your game", "I am away until Monday.",
                              headers=(("Auto-Submitted", "auto-replied"), ("In-Reply-To", original)))
            return Planned("autoreply", rcpt, raw, mid, mail_from=rcpt)
        # forged: the right secret from a stranger, or the seat's address with a wrong secret
        gid = rng.choice(self.games)
        seat = rng.choice(["north", "south"])
        if rng.random() < 0.5:
            sender, secret = f"mallory{n}@localhost", self.secrets[(gid, seat)]
        else:
            sender, secret = self.addresses[(gid, seat)], "2222-3333-4444"
        mid, raw = person(sender, "orders", orders(gid, seat, secret, "PASS", 1))
        return Planned("forged", sender, raw, mid, gid, mail_from=sender)

    # ------------------------------------------------------------------ running

    async def produce(self) -> None:
        """The players: each mail over SMTP, retried like a mail client on a fault."""
        for n, (kind, params) in enumerate(self.schedule):
            p = self.build(kind, params, n)
            self.plan.append(p)
            for attempt in range(50):
                try:
                    await self.players.send(p.mail_from, [SERVER], p.raw)
                    self.stats.delivered += 1
                    if p.kind != "duplicate":  # the daemon owes it processing once the server took it
                        self.expected_keys.add(normalise_message_id(p.mid) or p.mid)
                    break
                except MailError as exc:
                    self.stats.retries += 1
                    self.stats.player_errors[type(exc).__name__] += 1
                    await asyncio.sleep(0.02 * (attempt + 1))
            if n % 25 == 0:
                await asyncio.sleep(0)  # let the daemon breathe
        self.producer_done = True

    def processed(self) -> int:
        with self.ctx.session() as s:
            return len(list(s.exec(select(InboundMail.id))))

    def outbox_open(self) -> int:
        with self.ctx.session() as s:
            queued = len(list(s.exec(select(OutboxMail.id).where(OutboxMail.status == "queued"))))
            pending = len(list(s.exec(select(ReportJob.id).where(ReportJob.status == "pending"))))
        return queued + pending

    async def chaos(self) -> None:
        """Until every mail is processed: now and then a burst of SMTP 451s (when none is
        pending) and, now and then, every IMAP and SMTP connection dropped. Then the storm
        ends and the outbox must settle."""
        rng = self.rng
        next_451 = time.monotonic() + rng.expovariate(1 / self.args.every451)
        next_drop = time.monotonic() + rng.expovariate(1 / self.args.everydrop)
        while not (self.producer_done and len(self.expected_keys) <= self.processed()):
            await asyncio.sleep(0.05)
            t = time.monotonic()
            if t >= next_451:
                if not await self.server.call("faults_pending"):
                    await self.server.call("fail_next", 451, rng.randint(1, 3), rng.choice(["mail", "rcpt", "data"]))
                    self.stats.faults_451 += 1
                next_451 = t + rng.expovariate(1 / self.args.every451)
            if t >= next_drop:
                await self.server.call("drop")
                self.stats.drops += 1
                next_drop = t + rng.expovariate(1 / self.args.everydrop)
        await self.server.call("clear_faults")

    def time_mails(self) -> None:
        """Wrap the daemon's handling of one mail to keep the worst time."""
        one = self.app._one_mail
        self.worst = 0.0

        async def timed(fetched: object) -> object:
            t0 = time.perf_counter()
            try:
                return await one(fetched)
            finally:
                self.worst = max(self.worst, time.perf_counter() - t0)

        self.app._one_mail = timed  # type: ignore[method-assign,assignment]

    async def run(self, timeout: float) -> float:
        await self.inbox.connect()
        self.time_mails()
        start = time.perf_counter()
        producer = asyncio.create_task(self.produce())
        chaos = asyncio.create_task(self.chaos())
        end = time.monotonic() + timeout
        try:
            while time.monotonic() < end:
                summary = await self.app.cycle()
                self.stats.cycles += 1
                for e in summary.errors:
                    self.stats.errors[e.split(":")[0]] += 1
                if self.producer_done and len(self.expected_keys) <= self.processed() and not self.outbox_open():
                    break
                if summary.fetched == 0:
                    await asyncio.sleep(0.05)
        finally:
            for task in (producer, chaos):
                if not task.done():
                    task.cancel()
            await asyncio.gather(producer, chaos, return_exceptions=True)
        return time.perf_counter() - start

    # ---------------------------------------------------------------- the figures

    async def report(self, took: float, setup: float) -> None:
        with self.ctx.session() as s:
            inbound = list(s.exec(select(InboundMail)))
            sheets = list(s.exec(select(SheetRow)))
            rows = list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
            games_ = list(s.exec(select(Game)))
            rolls = list(s.exec(select(RollRow)))
            phases = list(s.exec(select(PhaseRow)))
        by_mid = {r.message_id: r for r in inbound}
        per_inbound = Counter(r.inbound_id for r in sheets if r.source == "mail")
        lost = doubled = 0
        orders = [p for p in self.plan if p.kind == "order"]
        for p in orders:
            if p.role in ("pn", "ps"):
                continue
            row = by_mid.get(normalise_message_id(p.mid) or p.mid)
            n = per_inbound.get(row.id, 0) if row is not None else 0
            lost += n == 0
            doubled += n > 1
        for gid in self.games:  # exactly one of the two PASS mails with TURN 1 is the awaited seat's
            passes = [by_mid.get(normalise_message_id(p.mid) or p.mid) for p in orders
                      if p.game == gid and p.role in ("pn", "ps")]
            n = sum(per_inbound.get(r.id, 0) for r in passes if r is not None)
            lost += n == 0
            doubled += max(0, n - 1)
        live = Counter((r.game_id, r.phase_seq, r.seat) for r in sheets if not r.superseded)
        doubled += sum(1 for n in live.values() if n > 1)
        unprocessed = len(self.expected_keys - set(by_mid) - {normalise_message_id(p.mid) or p.mid for p in self.plan
                                                               if p.kind in ("params", "html", "poison")})
        machine_ids = {normalise_message_id(p.mid) for p in self.plan if p.kind in ("bounce", "autoreply")}
        answered_machines = 0
        replies = [r for r in rows if r.kind in ("reply", "refusal", "stranger")]
        for r in replies:
            head = r.raw.split(b"\r\n\r\n", 1)[0]
            m = re.search(rb"(?im)^In-Reply-To:\s*(<[^>]+>)", head)
            if m and normalise_message_id(m.group(1).decode()) in machine_ids:
                answered_machines += 1
        answered_machines += sum(1 for r in rows if "mailer-daemon" in r.recipients_json.lower())
        # every order mail of a registered player (authenticated) is owed one answer, sent
        answered: set[tuple[str, str]] = set()
        for r in rows:
            if r.kind != "reply" or r.status != "sent":
                continue
            head = r.raw.split(b"\r\n\r\n", 1)[0]
            m = re.search(rb"(?im)^In-Reply-To:\s*(<[^>]+>)", head)
            if m:
                answered.add((normalise_message_id(m.group(1).decode()) or "", json.loads(r.recipients_json)[0]))
        owed = [p for p in orders if (normalise_message_id(p.mid) or p.mid) in by_mid]
        not_answered = sum(1 for p in owed if (normalise_message_id(p.mid) or p.mid, p.sender) not in answered)
        over_budget = sum(1 for r in inbound if r.status == "error" and r.note.startswith("over budget"))
        hostile_ids = {normalise_message_id(p.mid) or p.mid for p in self.plan
                       if p.kind in ("params", "html", "poison")}
        # what the players received
        received: Counter[str] = Counter()
        for address in set(self.addresses.values()) | {p.sender for p in self.plan if p.kind in ("junk", "forged")}:
            for raw in await self.server.messages(address):
                head = raw.split(b"\r\n\r\n", 1)[0]
                m = re.search(rb"(?im)^Message-ID:\s*(<[^>]+>)", head)
                received[f"{address} {m.group(1).decode() if m else '?'}"] += 1
        dup_received = sum(1 for n in received.values() if n > 1)
        # dice and archives
        gaps = 0
        by_game: dict[str, list[int]] = {}
        for roll in rolls:
            by_game.setdefault(roll.game_id, []).append(roll.counter)
        for g in games_:
            if sorted(by_game.get(g.id, [])) != list(range(g.roll_counter)):
                gaps += 1
        verified = sum(1 for g in games_ if verify_data(json.loads(json.dumps(archive_data(self.ctx, g.id)))).ok)
        resolved = sum(1 for ph in phases if ph.resolved_at is not None)
        kinds = Counter(p.kind for p in self.plan)
        statuses = Counter(r.status for r in inbound)
        rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        rss_mail = await self.server.call("rss")

        print(f"soak: {len(self.plan)} mails ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}) "
              f"for {len(self.games)} Kriegspiel games; render.width {self.args.width}, "
              f"render.workers {self.args.workers}; seed {self.args.seed}")
        print(f"setup: {len(self.games)} games created, {2 * len(self.games)} welcome mails sent in {setup:.1f} s")
        print(f"faults: {self.stats.faults_451} SMTP 451 bursts, {self.stats.drops} drops of every connection; "
              f"players' sends retried {self.stats.retries}x {dict(self.stats.player_errors)}; "
              f"cycles with an error {dict(self.stats.errors)}")
        print(f"run: {took:.1f} s, {self.stats.cycles} cycles; inbound outcomes {dict(sorted(statuses.items()))}")
        print(f"mails processed per second:   {len(self.plan) / took:8.1f}  (end to end: sent by SMTP, fetched by "
              f"IMAP, processed, answered)")
        print(f"mails never processed:        {unprocessed:8d}")
        print(f"orders lost:                  {lost:8d}  (goal 0)")
        print(f"orders doubled:               {doubled:8d}  (goal 0)")
        print(f"answers owed and not sent:    {not_answered:8d}  (goal 0; of {len(owed)} order mails of players)")
        print(f"worst single-mail time:       {self.worst:8.2f} s  (fetched to committed; limits.mail_seconds "
              f"{self.cfg.limits.mail_seconds:g} s; {over_budget} mail(s) over budget, "
              f"{sum(1 for k in hostile_ids if k in by_mid)} hostile mails read in time)")
        print(f"machine mails answered:       {answered_machines:8d}  (goal 0)")
        sent_by_kind = Counter(r.kind for r in replies if r.status == "sent")
        print(f"replies sent:                 {sum(sent_by_kind.values()):8d}  "
              f"(answers to players {sent_by_kind['reply']}, security notices {sent_by_kind['refusal']}, "
              f"answers to strangers {sent_by_kind['stranger']} (limits.strangers_per_hour "
              f"{self.cfg.limits.strangers_per_hour}); {sum(1 for r in rows if r.status == 'sent')} mails sent in all, "
              f"{sum(1 for r in rows if r.kind == 'report' and r.status == 'sent')} reports)")
        print(f"duplicates sent:              {dup_received:8d}  (a player got one Message-ID twice)")
        print(f"outbox rows failed / queued:  {sum(1 for r in rows if r.status == 'failed'):8d} / "
              f"{sum(1 for r in rows if r.status == 'queued')}")
        print(f"turns resolved:               {resolved:8d}; dice counters with gaps: {gaps}; "
              f"archives verified {verified}/{len(games_)}")
        print(f"peak memory (RSS):            {rss_self:8.0f} MiB the daemon (App, SQLite, the players' SMTP "
              f"client); the mail server process (all mail in memory) {rss_mail:.0f} MiB")

    async def close(self) -> None:
        await self.app.stop()
        await self.server.stop()
        self.ctx.engine.dispose()
        if self.args.keep:
            print(f"database kept: {self.tmp}/pbem.sqlite")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=3000)
    parser.add_argument("--order-share", type=float, default=0.4, help="share of order mails (default 0.4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=int, default=800)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--every451", type=float, default=1.0, help="mean seconds between SMTP 451 bursts")
    parser.add_argument("--everydrop", type=float, default=2.0, help="mean seconds between connection drops")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--hostile", type=float, default=0.2, help="share of hostile mails among the non-order mails")
    parser.add_argument("--keep", action="store_true", help="keep the SQLite database (its path is printed)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("pbem.mail.imap").setLevel(logging.CRITICAL)
    logging.getLogger("pbem.service.outbox").setLevel(logging.CRITICAL)
    soak = Soak(args)
    n_games = max(1, round(args.mails * args.order_share / ORDER_MAILS_PER_GAME))
    try:
        setup = await soak.setup(n_games)
        soak.make_plan(args.mails)
        took = await soak.run(args.timeout)
        await soak.report(took, setup)
    finally:
        await soak.close()


if __name__ == "__main__":
    asyncio.run(main())
