"""The service under fault: a real mail server on loopback (embedded pymap + aiosmtpd, or
Dovecot behind an aiosmtpd front), a FaultProxy in front of its IMAP and one in front of
its SMTP, the daemon's ``App`` on a SQLite file with a manual clock, and a Kriegspiel game
between two players who mail their orders over SMTP.

``check_exactly_once`` is the verdict every fault test ends with.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import email.utils
import itertools
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Callable, Protocol

from sqlmodel import col, select

from pbem.app import App, CycleSummary
from pbem.config import from_mapping
from pbem.db.models import Game, InboundMail, OutboxMail, PhaseRow, ReportJob, RollRow, SheetRow
from pbem.db.session import make_engine
from pbem.demo import load_script
from pbem.mail.imap import ImapInbox
from pbem.mail.parse import normalise_message_id
from pbem.mail.smtp import SmtpSender
from pbem.service import games, store
from pbem.service.archive import archive_data
from pbem.service.context import Context, ManualClock
from pbem.service.verify import verify_data
from tests.faults.proxy import FaultProxy
from tests.mail.servers import MailHarness

SERVER = "pbem@localhost"
SEATS = {"north": "nora@localhost", "south": "sandro@localhost"}
LANGS = {"north": "en", "south": "it"}
_SCRIPT = load_script("kriegspiel")
#: The sealed deployments of the demo script: the second one completes turn 0 and rolls the die.
DEPLOY = {"north": _SCRIPT.steps[0].text, "south": _SCRIPT.steps[1].text}
#: Another legal deployment for north (a changed mind: it replaces the first).
DEPLOY_NORTH_2 = DEPLOY["north"].replace("CAVALRY I8 J16 A10 A11", "CAVALRY I8 J16 A10 A12")
_ids = itertools.count(1)


def message_id(tag: str = "p") -> str:
    return f"<fault-{tag}-{next(_ids)}-{time.monotonic_ns()}@players.example>"


def order_mail(game_id: str, seat: str, secret: str, lines: str, *, date: datetime, mid: str | None = None,
               sender: str | None = None, turn: int | None = None) -> tuple[str, bytes]:
    """A person's order mail (no Auto-Submitted, no marker of ours); returns (Message-ID, raw)."""
    block = [f"GAME {game_id}", f"SEAT {seat} {secret}", *([f"TURN {turn}"] if turn is not None else []),
             lines.strip(), "END"]
    msg = EmailMessage()
    msg["From"] = sender or SEATS[seat]
    msg["To"] = SERVER
    msg["Subject"] = f"orders for {game_id}"
    msg["Date"] = email.utils.format_datetime(date)
    mid = mid or message_id(seat)
    msg["Message-ID"] = mid
    msg.set_content("Hello,\n\n" + "\n".join(block) + "\n\n-- \n" + seat + "\n")
    return mid, msg.as_bytes(policy=email.policy.SMTP)


def parse(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


def body(raw: bytes) -> str:
    part = parse(raw).get_body(("plain",))
    return part.get_content() if part is not None else ""


@dataclass
class Stack:
    mail: MailHarness
    imap_proxy: FaultProxy
    smtp_proxy: FaultProxy
    ctx: Context
    clock: ManualClock
    inbox: ImapInbox
    app: App
    game_id: str = ""
    secrets: dict[str, str] = field(default_factory=dict)
    sent: dict[str, str] = field(default_factory=dict)  # Message-ID -> expected inbound status
    summaries: list[CycleSummary] = field(default_factory=list)

    # ----------------------------------------------------------------- players

    async def send(self, seat: str, lines: str, *, expect: str = "orders", mid: str | None = None,
                   date: datetime | None = None, turn: int | None = None) -> tuple[str, bytes]:
        """The seat's player mails orders over SMTP (straight to the server, not the proxy)."""
        mid, raw = order_mail(self.game_id, seat, self.secrets[seat], lines, date=date or self.clock(), mid=mid,
                              turn=turn)
        await self.deliver(seat, raw, expect=expect, mid=mid)
        return mid, raw

    async def deliver(self, seat: str, raw: bytes, *, expect: str, mid: str) -> None:
        await self.mail.send(SEATS[seat], [SERVER], raw)
        self.sent.setdefault(normalise_message_id(mid) or mid, expect)

    async def mailbox(self, address: str) -> list[bytes]:
        """Every mail in the address's INBOX (read over IMAP, straight to the server)."""
        return [m.raw or b"" for m in await self.mail.fetch(address)]

    # ---------------------------------------------------------------- service

    async def cycle(self) -> CycleSummary:
        summary = await self.app.cycle()
        self.summaries.append(summary)
        return summary

    def inbound_count(self) -> int:
        with self.ctx.session() as s:
            return len(list(s.exec(select(InboundMail.id))))

    async def run_until(self, done: Callable[[], bool], timeout: float = 15.0, pause: float = 0.05) -> None:
        """Run daemon cycles until ``done()`` (bounded)."""
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise AssertionError(f"not done after {timeout}s; last cycles: "
                                     f"{[s.as_dict() for s in self.summaries[-3:]]}")
            await self.cycle()
            if not done():
                await asyncio.sleep(pause)

    async def settle(self, inbound: int, timeout: float = 15.0) -> None:
        """Cycles until ``inbound`` mails are recorded and nothing is left to send now."""
        await self.run_until(lambda: self.inbound_count() >= inbound and not self.due_rows(), timeout)

    def inbound_by(self, mid: str) -> InboundMail:
        with self.ctx.session() as s:
            return s.exec(select(InboundMail).where(InboundMail.message_id == normalise_message_id(mid))).one()

    def due_rows(self) -> list[OutboxMail]:
        with self.ctx.session() as s:
            return list(s.exec(select(OutboxMail).where(OutboxMail.status == "queued",
                                                        col(OutboxMail.next_attempt_at) <= self.clock())))

    def pending_reports(self) -> list[ReportJob]:
        with self.ctx.session() as s:
            return list(s.exec(select(ReportJob).where(ReportJob.status != "done")))

    def outbox(self) -> list[OutboxMail]:
        with self.ctx.session() as s:
            return list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))

    def phase(self, seq: int) -> PhaseRow:
        with self.ctx.session() as s:
            return s.exec(select(PhaseRow).where(PhaseRow.game_id == self.game_id, PhaseRow.seq == seq)).one()

    def on_file(self, seq: int) -> dict[str, SheetRow]:
        with self.ctx.session() as s:
            return {r.seat: r for r in store.sheets_of_phase(s, self.game_id, seq)}

    async def close(self) -> None:
        try:
            await self.app.stop()
        finally:
            await self.imap_proxy.stop()
            await self.smtp_proxy.stop()
            self.ctx.engine.dispose()


async def make_stack(mail: MailHarness, tmp_path: Path, *, timeout: float = 1.0, retries: int = 3,
                     smtp_timeout: float = 2.0, poll: float = 0.3, create: bool = True) -> Stack:
    """Start the proxies and the daemon; create the game and hand out the welcome mails."""
    imap_proxy = await FaultProxy("127.0.0.1", mail.imap_port).start()
    smtp_proxy = await FaultProxy("127.0.0.1", mail.smtp_port).start()
    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp_path}/pbem.sqlite"},
                        "mail": {"poll_seconds": poll},
                        "outbox": {"drain_seconds": 0.2},
                        "render": {"width": 400, "workers": 0}}, "faults")
    clock = ManualClock(datetime.now(UTC).replace(microsecond=0))
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock)
    inbox = ImapInbox("127.0.0.1", imap_proxy.port, SERVER, mail.password, "none", timeout=timeout, retries=retries,
                      backoff_initial=0.05, backoff_max=0.2, poll_interval=poll)
    app = App(ctx, inbox, SmtpSender("127.0.0.1", smtp_proxy.port, timeout=smtp_timeout))
    stack = Stack(mail, imap_proxy, smtp_proxy, ctx, clock, inbox, app)
    if create:
        await start_game(stack)
    return stack


async def start_game(stack: Stack) -> None:
    stack.game_id = games.create(stack.ctx, "kriegspiel", "Faults",
                                 [games.SeatSpec(seat, addr, LANGS[seat]) for seat, addr in SEATS.items()],
                                 deadline="48h")
    await stack.app.drain()
    for seat, address in SEATS.items():
        stack.secrets[seat] = await _welcome_secret(stack, address)


async def _welcome_secret(stack: Stack, address: str, timeout: float = 30.0) -> str:
    """The secret of the address's welcome, once the server has stored it: the SMTP 250 comes
    before the mailbox shows the mail, and on a loaded machine the gap is seen to last."""
    end = time.monotonic() + timeout
    while True:
        try:
            return secret_of(await stack.mailbox(address))
        except AssertionError:
            if time.monotonic() > end:
                raise
            await asyncio.sleep(0.1)


def secret_of(mails: list[bytes]) -> str:
    import re

    for raw in mails:
        subject = str(parse(raw)["Subject"])
        m = re.search(r"\b([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})\b", body(raw))
        if m and ("welcome" in subject or "benvenuto" in subject):
            return m.group(1)
    raise AssertionError("no welcome mail with a secret")


# ------------------------------------------------------------------- the verdict

class Checked(Protocol):
    """What the verdict needs: the database, the game, the mails sent and the mailboxes."""

    ctx: Context
    game_id: str
    sent: dict[str, str]

    async def mailbox(self, address: str) -> list[bytes]: ...


@dataclass
class Verdict:
    duplicates: dict[str, int]  # Message-ID -> copies, for mails that arrived more than once
    delivered: dict[str, Counter[str]]  # address -> Message-ID -> copies
    inbound: dict[str, InboundMail]
    rolls: int
    phases: int


async def check_exactly_once(stack: Checked, *, duplicates_allowed: int = 0, failed: frozenset[str] = frozenset(),
                             since: int = 0) -> Verdict:
    """Every order applied exactly once, every due reply sent (at most ``duplicates_allowed``
    mails twice, each with one Message-ID), no lost or doubled die, and the archive verifies.

    ``failed``: Message-IDs of outbox rows refused for good (they fail and never arrive).
    ``since``: only outbox rows after this id were sent to these mailboxes."""
    ctx, game_id = stack.ctx, stack.game_id
    with ctx.session() as s:
        inbound_rows = list(s.exec(select(InboundMail)))
        sheets = list(s.exec(select(SheetRow).where(SheetRow.game_id == game_id)))
        game = s.exec(select(Game).where(Game.id == game_id)).one()
        phases = list(s.exec(select(PhaseRow).where(PhaseRow.game_id == game_id).order_by(col(PhaseRow.seq))))
        rolls = list(s.exec(select(RollRow).where(RollRow.game_id == game_id).order_by(col(RollRow.counter))))
        jobs = list(s.exec(select(ReportJob)))
        rows = list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
    # 1. Every mail sent is on record exactly once, with the expected outcome.
    by_mid: dict[str, list[InboundMail]] = {}
    for mail in inbound_rows:
        by_mid.setdefault(mail.message_id, []).append(mail)
    for mid, expect in stack.sent.items():
        got = by_mid.get(mid, [])
        assert len(got) == 1, f"{mid}: {len(got)} inbound rows"
        assert got[0].status == expect, f"{mid}: {got[0].status} ({got[0].note}), expected {expect}"
    # 2. Each accepted order mail filed exactly one sheet; no sheet from a mail twice.
    per_inbound = Counter(r.inbound_id for r in sheets if r.source == "mail")
    assert all(n == 1 for n in per_inbound.values()), per_inbound
    for mid, expect in stack.sent.items():
        if expect == "orders":
            assert per_inbound[by_mid[mid][0].id] == 1, f"{mid}: its orders are not on file once"
    # 3. One sheet on file per seat and phase; every resolved phase used exactly those.
    live = Counter((r.phase_seq, r.seat) for r in sheets if not r.superseded)
    assert all(n == 1 for n in live.values()), live
    data = archive_data(ctx, game_id)
    for ph in data["phases"]:
        if ph["resolved_at"]:
            assert set(ph["orders"]) == set(ph["awaiting"]), ph
            for seat, text in ph["orders"].items():
                sheet = next(r for r in sheets if r.phase_seq == ph["seq"] and r.seat == seat and not r.superseded)
                assert sheet.canonical == text
    # 4. Dice: the counter runs gap-free, each phase owns its slice, nothing rolled twice.
    counters = [r.counter for r in rolls]
    assert counters == list(range(game.roll_counter)), (counters, game.roll_counter)
    for ph in phases:
        mine = [r.counter for r in rolls if r.phase_seq == ph.seq]
        assert mine == list(range(ph.rolls_start, ph.rolls_start + ph.rolls_count)), (ph.seq, mine)
    # 5. The archive replays: orders, dice and the hash chain agree.
    report = verify_data(json.loads(json.dumps(data)))
    assert report.ok, report.text()
    # 6. Reports drawn and queued; every row sent, except to recipients refused for good.
    assert all(j.status == "done" for j in jobs), [(j.id, j.status) for j in jobs]
    for out in rows:
        want = "failed" if out.message_id in failed else "sent"
        assert out.status == want, (out.message_id, out.recipients_json, out.status, out.last_error)
    # 7. Each order mail has exactly one answer, however often it was fetched or delivered.
    for mid, expect in stack.sent.items():
        answers = [r for r in rows if r.kind == "reply" and parse(r.raw)["In-Reply-To"] == mid]
        if expect in ("orders", "refused"):
            assert len(answers) == 1, (mid, len(answers))
    # 8. What the players received: every sent row at least once, at most twice, same Message-ID.
    delivered: dict[str, Counter[str]] = {}
    duplicates: dict[str, int] = {}
    for address in SEATS.values():
        copies = Counter(normalise_message_id(str(parse(raw)["Message-ID"])) or ""
                         for raw in await stack.mailbox(address))
        delivered[address] = copies
        to_them = [r for r in rows if address in json.loads(r.recipients_json) and (r.id or 0) > since]
        expected = {r.message_id for r in to_them if r.status == "sent"}
        refused = {r.message_id for r in to_them if r.status == "failed"}
        assert expected <= set(copies), f"{address}: never received {expected - set(copies)}"
        assert not (refused & set(copies)), f"{address}: received refused rows {refused & set(copies)}"
        assert set(copies) <= expected, f"{address}: mail not from our outbox: {set(copies) - expected}"
        for mid, n in copies.items():
            assert n <= 2, f"{address}: {mid} arrived {n} times"
            if n == 2:
                duplicates[mid] = n
    assert len(duplicates) <= duplicates_allowed, f"duplicates: {duplicates}"
    return Verdict(duplicates, delivered, {k: v[0] for k, v in by_mid.items()}, len(rolls), len(phases))
