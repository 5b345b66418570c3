"""Hostile mail, the service's side, through real SMTP and IMAP (the embedded server on
loopback): a mail over its time budget (item 1), a sender's clock (item 3), oversized mail
(item 6), echoes (item 7) — each as the daemon meets it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.app import App, CycleSummary
from pbem.db.models import InboundMail, PhaseRow, SheetRow
from pbem.service import budget, limits
from pbem.service.context import Context, ManualClock
from tests.mail.fixtures import embedded_mail  # noqa: F401  (fixture)
from tests.mail.servers import MailHarness
from tests.security.mailpath import BLUE, RED, new_duel, settle
from tests.security.support import orders_mail, with_headers
from tests.service.helpers import outbox
from tests.support.players import order_block, player_mail

SERVER = "pbem@localhost"
MAX_SIZE = 40_000


@pytest.fixture
async def server(ctx: Context, embedded_mail: MailHarness) -> AsyncIterator[App]:  # noqa: F811
    ctx.config = dataclasses.replace(ctx.config, mail=dataclasses.replace(ctx.config.mail, max_size=MAX_SIZE))
    inbox = embedded_mail.inbox(ctx.config.server.address, max_size=MAX_SIZE)
    await inbox.connect()
    app = App(ctx, inbox, embedded_mail.sender())
    try:
        yield app
    finally:
        app.inspector.close()
        await inbox.close()


def active_sheets(ctx: Context) -> list[str]:
    with ctx.session() as s:
        return [r.canonical for r in s.exec(select(SheetRow).order_by(col(SheetRow.id))) if not r.superseded]


async def wait_for_file(flag: Path) -> None:
    for _ in range(1200):
        if flag.exists():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{flag} never appeared: the mail never reached the reader")


async def test_deadlines_and_the_outbox_run_while_a_mail_is_being_read(
        server: App, embedded_mail: MailHarness, ctx: Context, clock: ManualClock,  # noqa: F811
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flag, release = tmp_path / "stalled", tmp_path / "release"
    monkeypatch.setenv("PBEM_TEST_STALL_FLAG", str(flag))
    monkeypatch.setenv("PBEM_TEST_STALL_RELEASE", str(release))
    server.inspector = budget.Inspector(600.0, target="tests.security.slowreader:inspect")
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    await embedded_mail.sender().send(BLUE, [SERVER], with_headers(
        orders_mail(BLUE, game_id, "blue", secrets["blue"], ["PLAY 3"]), "X-Test-Stall: until-released"))
    clock.advance(hours=49)  # the turn's deadline has passed: the deadline job must resolve it

    summary = CycleSummary()
    inbox = asyncio.create_task(server.process_inbox(summary))
    await wait_for_file(flag)
    await server._job("deadlines")  # neither waits for the mail being read
    await server._job("outbox")
    assert not inbox.done()
    with ctx.session() as s:
        assert [r.resolved_at is not None for r in s.exec(select(PhaseRow).where(PhaseRow.game_id == game_id)
                                                          .order_by(col(PhaseRow.seq)))] == [True, False]
    reports = await embedded_mail.wait_for(RED)
    assert "report" in reports[-1].subject
    release.write_text("go", encoding="utf-8")
    await inbox
    assert summary.handled == {"refused": 1}  # read in time after all: handled as any mail (its turn is over)


async def test_a_mail_over_its_budget_is_recorded_and_its_sender_told_once(
        server: App, embedded_mail: MailHarness, ctx: Context, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_TEST_STALL_FLAG", str(tmp_path / "stalled"))
    server.inspector = budget.Inspector(3.0, target="tests.security.slowreader:inspect")
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    smtp = embedded_mail.sender()
    await smtp.send(RED, [SERVER], with_headers(orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3"]),
                                                "X-Test-Stall: yes"))
    await smtp.send(BLUE, [SERVER], orders_mail(BLUE, game_id, "blue", secrets["blue"], ["PLAY 2"]))
    assert await settle(server, 2) == {"error": 1, "orders": 1}  # the next mail is read by a new reader

    with ctx.session() as s:
        rows = [r for r in s.exec(select(InboundMail)) if r.status == "error"]
    assert len(rows) == 1 and "over budget: reading it took more than 3 s" in rows[0].note
    assert "red@localhost told" in rows[0].note
    assert active_sheets(ctx) == ["PLAY 2"]  # red's mail was never read, so never applied
    told = [m for m in await embedded_mail.wait_for(RED) if "within this server's limits" in m.text]
    assert len(told) == 1 and secrets["red"] not in told[0].text

    # the same kind of mail again (a new Message-ID): recorded again, red is not told twice in a day
    await smtp.send(RED, [SERVER], with_headers(orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 4"]),
                                                "X-Test-Stall: yes"))
    assert await settle(server, 1) == {"error": 1}
    assert await embedded_mail.fetch(RED) == []


async def test_orders_are_ordered_by_arrival_not_by_the_senders_clock(server: App, embedded_mail: MailHarness,
                                                                     ctx: Context, clock: ManualClock) -> None:  # noqa: F811
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    smtp = embedded_mail.sender()
    ahead = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"]), date=clock() + timedelta(days=1))
    await smtp.send(RED, [SERVER], ahead)
    assert await settle(server, 1) == {"orders": 1}
    clock.advance(minutes=1)
    corrected = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 2"]), date=clock())
    await smtp.send(RED, [SERVER], corrected)
    assert await settle(server, 1) == {"orders": 1}
    assert active_sheets(ctx) == ["PLAY 2"]
    answers = await embedded_mail.wait_for(RED, 2)
    assert "replace" in answers[-1].text and "older than the orders on file" not in answers[-1].text


async def test_oversized_mail_is_recorded_and_its_registered_sender_told_once(
        server: App, embedded_mail: MailHarness, ctx: Context) -> None:  # noqa: F811
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    smtp = embedded_mail.sender()
    filler = "\n".join(f"# a long note {n:06d} " + "x" * 60 for n in range(MAX_SIZE // 60))
    await smtp.send(RED, [SERVER], orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3", filler]))
    await smtp.send("nobody@made-up.example", [SERVER], player_mail("nobody@made-up.example", filler))
    assert await settle(server, 2) == {"refused": 2}
    with ctx.session() as s:
        notes = sorted(r.note for r in s.exec(select(InboundMail)))
    assert any("not fetched" in n and "red@localhost told" in n for n in notes), notes
    assert any("not fetched" in n and "not a registered player" in n for n in notes), notes
    told = await embedded_mail.wait_for(RED)
    assert len(told) == 1 and "was not read" in told[0].text
    assert [r.kind for r in outbox(ctx, kind=limits.STRANGER)] == [limits.STRANGER]  # nobody else answered


async def test_a_bad_line_is_quoted_short_and_diagnostics_are_capped(server: App, embedded_mail: MailHarness,
                                                                     ctx: Context) -> None:  # noqa: F811
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    smtp = embedded_mail.sender()
    line = "PLAY \u202e" + "htuos " * 140  # 845 characters, with a right-to-left override
    await smtp.send(RED, [SERVER], orders_mail(RED, game_id, "red", secrets["red"],
                                               [line, *(f"JUNK {n}" for n in range(120))]))
    await smtp.send(RED, [SERVER], orders_mail(RED, game_id, "red", secrets["red"], ["PLAY " + "htuos " * 4000]))
    assert await settle(server, 2) == {"refused": 2}
    refusal, too_long = await embedded_mail.wait_for(RED, 2)
    assert "NOT accepted" in refusal.subject
    assert "\u202e" not in refusal.text and "htuos " * 20 not in refusal.text
    assert "PLAY \ufffdhtuos htuos" in refusal.text  # the start of the line, its override made visible
    assert "JUNK 48" in refusal.text and "JUNK 49" not in refusal.text  # the first 50 diagnostics
    assert "… and 71 more, not listed (the first 50 are)." in refusal.text
    assert refusal.size < 20_000
    assert "htuos " * 20 not in too_long.text and too_long.size < 5_000  # a 24 KB line: a short answer


async def test_a_from_with_two_addresses_is_refused_by_the_rule_and_the_seat_told(
        server: App, embedded_mail: MailHarness, ctx: Context) -> None:  # noqa: F811
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    raw = orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3"]).replace(
        f"From: {RED}".encode(), f"From: {RED}, evil@localhost".encode(), 1)
    await embedded_mail.sender().send("evil@localhost", [SERVER], raw)
    assert await settle(server, 1) == {"refused": 1}
    assert active_sheets(ctx) == []
    notice = (await embedded_mail.wait_for(RED))[-1]
    assert "did not name exactly one sender" in notice.text and secrets["red"] not in notice.text
    assert await embedded_mail.fetch("evil@localhost") == []
