"""pbem on a club's own mail stack, as an administrator sets it up (docs/deploy.md): Postfix
with submission (STARTTLS, SASL through Dovecot, sender-login checks), Dovecot IMAPS, one
certificate signed by the club's own CA, the daemon configured from a `[mail]` section like
deploy/pbem.remote.toml.

One story (issue 23): the administrator first forgets ``ca_file`` — nothing is lost, the
server is probed once, not once per mail, and the status says what to fix; with ``ca_file``
set every welcome arrives exactly once; a welcome to an unknown user comes back as Postfix's
DSN (the player is marked bouncing, the game master told, the bounce never answered); the
game reaches its first report while Postfix is stopped, and the reports go out, oldest
first, when it is back.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.app import App, CycleSummary
from pbem.config import from_mapping
from pbem.db.models import InboundMail, OutboxMail, Player
from pbem.db.session import make_engine
from pbem.mail.imap import ImapInbox
from pbem.service import games
from pbem.service.context import Context, ManualClock
from tests.e2e.clubstack import BOUNCES, DOMAIN, USERS, ClubStack, StackUnavailable, dovecot_binary, postfix_binary
from tests.faults.stack import DEPLOY, secret_of
from tests.support.players import order_block, player_mail

SERVICE = f"pbem@{DOMAIN}"
ANNA, BRUNO, GHOST, GM = f"anna@{DOMAIN}", f"bruno@{DOMAIN}", f"ghost@{DOMAIN}", f"gm@{DOMAIN}"


@pytest.fixture
async def club() -> AsyncIterator[ClubStack]:
    if postfix_binary() is None or dovecot_binary() is None:
        pytest.skip("Postfix or Dovecot is not installed (scripts/install-postfix.sh, scripts/install-dovecot.sh)")
    stack = ClubStack()
    try:
        await asyncio.to_thread(stack.start)
    except StackUnavailable as exc:  # pragma: no cover - only without the packages
        await asyncio.to_thread(stack.stop)
        pytest.skip(str(exc))
    except BaseException:
        await asyncio.to_thread(stack.stop)
        raise
    try:
        yield stack
    finally:
        await asyncio.to_thread(stack.stop)


def _config(club: ClubStack, tmp_path: Path, *, ca_file: bool) -> Any:
    trust = {"ca_file": str(club.ca)} if ca_file else {}
    return from_mapping({
        "server": {"name": "Club PBEM", "address": SERVICE, "bounce_address": BOUNCES, "domain": DOMAIN,
                   "game_master": GM, "timezone": "Europe/Rome"},
        "database": {"url": f"sqlite:///{tmp_path}/pbem.sqlite"},
        "mail": {"backend": "remote", "poll_seconds": 1, "idle": False,
                 "imap": {"host": "127.0.0.1", "port": club.imaps_port, "security": "tls",
                          "username_env": "CLUB_PBEM_USER", "password_env": "CLUB_PBEM_PASSWORD", **trust},
                 "smtp": {"host": "127.0.0.1", "port": club.submission_port, "security": "starttls",
                          "username_env": "CLUB_PBEM_USER", "password_env": "CLUB_PBEM_PASSWORD",
                          "helo_name": "pbem.club.test", **trust}},
        "render": {"width": 400, "workers": 0}}, "club")


class Reader:
    """What the players (and the game master) see: their INBOX over IMAPS, trusting the CA."""

    def __init__(self, club: ClubStack) -> None:
        self.club = club

    async def mails(self, address: str) -> list[email.message.EmailMessage]:
        inbox = ImapInbox("127.0.0.1", self.club.imaps_port, address, USERS[address], "tls",
                          ssl_context=self.club.client_context(), timeout=10)
        try:
            fetched = await inbox.fetch_new()  # BODY.PEEK: nothing is marked seen
        finally:
            await inbox.close()
        return [email.message_from_bytes(m.raw or b"", policy=email.policy.default)  # type: ignore[misc]
                for m in fetched]

    async def wait(self, address: str, count: int, timeout: float = 20.0) -> list[email.message.EmailMessage]:
        """Postfix delivers in the background: wait (bounded) until ``count`` mails are there."""
        end = time.monotonic() + timeout
        while True:
            got = await self.mails(address)
            if len(got) >= count or time.monotonic() > end:
                return got
            await asyncio.sleep(0.1)


def _submission_connects(club: ClubStack) -> int:
    return len(re.findall(r"postfix/submission/smtpd\[\d+\]: connect from", club.maillog()))


def _rows(ctx: Context) -> list[OutboxMail]:
    with ctx.session() as s:
        return list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))


async def _cycles_until(app: App, done: Callable[[], bool], timeout: float = 20.0) -> list[CycleSummary]:
    summaries = []
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, [s.as_dict() for s in summaries[-3:]]
        summaries.append(await app.cycle())
        if not done():
            await asyncio.sleep(0.2)
    return summaries


def _orders(game_id: str, seat: str, secret: str, sender: str, clock: ManualClock) -> bytes:
    body = order_block(game_id, seat, secret, DEPLOY[seat].strip().splitlines())
    return player_mail(sender, body, to=SERVICE, subject=f"orders for {game_id}", date=clock(),
                       message_id=f"<{seat}-{game_id}@players.club.test>")


async def test_a_club_stack_from_the_missing_ca_file_to_the_first_report(  # noqa: PLR0915 - one story
        club: ClubStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLUB_PBEM_USER", SERVICE)
    monkeypatch.setenv("CLUB_PBEM_PASSWORD", USERS[SERVICE])
    clock = ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    reader = Reader(club)

    # 1. The administrator's first start: no ca_file, so the club's certificate is not trusted.
    untrusted = _config(club, tmp_path, ca_file=False)
    ctx = Context(engine=make_engine(untrusted.database.url), config=untrusted, clock=clock)
    game = games.create(ctx, "kriegspiel", "Club", [games.SeatSpec("north", ANNA, "en"),
                                                    games.SeatSpec("south", BRUNO, "it")], deadline="48h")
    ghost_game = games.create(ctx, "kriegspiel", "Ghost", [games.SeatSpec("north", ANNA, "en"),
                                                           games.SeatSpec("south", GHOST, "en")], deadline="48h")
    welcomes = [r.message_id for r in _rows(ctx)]
    assert len(welcomes) == 4
    app = App.from_config(untrusted, ctx)
    await app.start()
    try:
        before = _submission_connects(club)
        first = await app.cycle()
        second = await app.cycle()  # the same minute: the server's next probe is not due
    finally:
        await app.stop()
    assert first.sent == 0 and second.sent == 0
    outbox_errors = [e for e in first.errors if e.startswith("outbox:")]
    assert len(outbox_errors) == 1 and "not trusted" in outbox_errors[0] and "mail.smtp.ca_file" in outbox_errors[0]
    assert any(e.startswith("inbox:") and "mail.imap.ca_file" in e for e in first.errors)
    assert first.servers[0]["ok"] is False and "ca_file" in first.servers[0]["fix"]
    # one probe for four waiting mails, none on the second cycle: no login storm against the server
    assert _submission_connects(club) - before == 1
    rows = _rows(ctx)
    assert [r.status for r in rows] == ["queued"] * 4 and all(r.attempts == 0 for r in rows)
    assert "not trusted" in rows[0].last_error
    ctx.engine.dispose()

    # 2. ca_file set, the daemon started again: every welcome goes out once.
    trusted = _config(club, tmp_path, ca_file=True)
    ctx = Context(engine=make_engine(trusted.database.url), config=trusted, clock=clock)
    app = App.from_config(trusted, ctx)
    await app.start()
    try:
        summary = await app.cycle()
        assert summary.errors == [] and summary.sent == 4, summary.as_dict()
        anna = await reader.wait(ANNA, 2)
        bruno = await reader.wait(BRUNO, 1)
        assert sorted(str(m["Message-ID"]) for m in anna + bruno) == sorted(
            r.message_id for r in _rows(ctx) if GHOST not in r.recipients_json)
        welcome = anna[0]
        sender = welcome["From"].addresses[0]
        assert (sender.display_name, sender.addr_spec) == ("Club PBEM", SERVICE)  # server.name shows
        received = " ".join(str(h) for h in welcome.get_all("Received", []))
        assert "from pbem.club.test (localhost [127.0.0.1])" in received  # our EHLO name, not "localhost"
        assert welcome["Return-Path"] == f"<{BOUNCES}>"

        # 3. The welcome to a user the club does not have comes back as Postfix's DSN.
        def bounce_recorded() -> bool:
            with ctx.session() as s:
                ghost = s.exec(select(Player).where(Player.address == GHOST)).one()
                return ghost.bouncing_since is not None

        await _cycles_until(app, bounce_recorded)
        gm = await reader.wait(GM, 1)
        assert len(gm) == 1 and GHOST in gm[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
        with ctx.session() as s:
            bounces = list(s.exec(select(InboundMail).where(col(InboundMail.note).contains("bounce"))))
        assert len(bounces) == 1
        ghost_row = next(r for r in _rows(ctx) if GHOST in r.recipients_json)
        assert ghost_row.bounce_status.startswith("failed 5.1.1")
        answered = {a for r in _rows(ctx) for a in json.loads(r.recipients_json)}
        assert answered == {ANNA, BRUNO, GHOST, GM}  # MAILER-DAEMON is never answered

        # 4. The players deploy; Postfix stops while the turn resolves.
        secrets = {ANNA: secret_of([m.as_bytes() for m in anna if game in str(m["Subject"])]),
                   BRUNO: secret_of([m.as_bytes() for m in bruno])}
        club.deliver_from_outside(ANNA, SERVICE, _orders(game, "north", secrets[ANNA], ANNA, clock))
        await _cycles_until(app, lambda: len([r for r in _rows(ctx) if r.kind == "reply"]) == 1)
        club.deliver_from_outside(BRUNO, SERVICE, _orders(game, "south", secrets[BRUNO], BRUNO, clock))
        spy = Reader(club)
        assert len(await spy.wait(SERVICE, 1)) == 1  # in pbem's mailbox (unseen: pbem has not read it)
        await asyncio.to_thread(club.stop_postfix)
        down = await app.cycle()
        # the second deployment completes turn 0 (early resolution): the first report is drawn
        assert down.handled == {"orders": 1} and down.reports == 1 and down.sent == 0
        assert any("cannot connect to SMTP" in e for e in down.errors), down.errors
        waiting = [r for r in _rows(ctx) if r.status == "queued"]
        assert {r.kind for r in waiting} == {"reply", "report"} and len(waiting) == 3  # bruno's receipt, 2 reports
        assert all(r.attempts == 0 for r in waiting)

        # 5. Postfix back: at the next probe everything waiting goes out at once, oldest first.
        await asyncio.to_thread(club.start_postfix)
        assert (await app.cycle()).sent == 0  # the probe is not due yet: nothing tried
        clock.advance(seconds=31)
        back = await app.cycle()
        assert back.errors == [] and back.sent == 3, back.as_dict()
        anna = await reader.wait(ANNA, 4)
        bruno = await reader.wait(BRUNO, 3)
    finally:
        await app.stop()
    order = re.findall(r"postfix/cleanup\[\d+\]: \w+: message-id=(<[^>]+>)", club.maillog())
    assert [m for m in order if m in {r.message_id for r in waiting}] == [r.message_id for r in waiting]

    # Every mail delivered exactly once; every row sent.
    rows = _rows(ctx)
    assert all(r.status == "sent" for r in rows), [(r.kind, r.status, r.last_error) for r in rows]
    for address, mails in ((ANNA, anna), (BRUNO, bruno)):
        copies = Counter(str(m["Message-ID"]) for m in mails)
        mine = {r.message_id for r in rows if address in json.loads(r.recipients_json)}
        assert copies == Counter({mid: 1 for mid in mine}), (address, copies)
    reports = [m for m in anna + bruno if "report" in str(m["Subject"]) or "rapporto" in str(m["Subject"])]
    assert len(reports) == 2
    ctx.engine.dispose()
