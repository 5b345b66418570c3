"""A team through real SMTP and IMAP (the embedded pymap + aiosmtpd on loopback, and
Dovecot where installed): the red seat of a Duel is held by Anna (English) and Rosa
(Italian), each welcomed with a secret and a reply address of their own. Rosa answers
with the reply button, Anna hears who sent what; Anna's mail with Rosa's secret is
refused to Anna alone; Anna's new orders replace Rosa's; the reports reach both, each in
their language."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from datetime import datetime, timezone

import pytest
from sqlmodel import col, select

from pbem.app import App
from pbem.config import SecurityConfig, from_mapping
from pbem.db.models import SheetRow
from pbem.db.session import make_engine
from pbem.mail.parse import IncomingMail
from pbem.service import games
from pbem.service.context import Context, ManualClock
from tests.mail.servers import MailHarness
from tests.security.support import orders_mail
from tests.service.helpers import outbox
from tests.support import players
from tests.support.players import secret_from_welcome

ANNA, ROSA, BLUE = "anna@localhost", "rosa@localhost", "blue@localhost"


@pytest.fixture
async def app(mail_server: MailHarness, tmp_path) -> AsyncIterator[App]:  # type: ignore[no-untyped-def]
    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp_path}/pbem.sqlite"}, "render": {"width": 400}}, "e2e")
    cfg = dataclasses.replace(cfg, security=SecurityConfig(reply_tokens=True))
    clock = ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock)
    players.clock = clock  # the players' mails are dated by the server's clock
    inbox = mail_server.inbox(cfg.server.address)
    await inbox.connect()
    try:
        yield App(ctx, inbox, mail_server.sender())
    finally:
        players.clock = None
        await inbox.close()
        ctx.engine.dispose()


async def _settle(app: App, count: int) -> dict[str, int]:
    handled: dict[str, int] = {}
    for _ in range(40):
        summary = await app.cycle()
        for k, v in summary.handled.items():
            handled[k] = handled.get(k, 0) + v
        if sum(handled.values()) >= count:
            await app.drain()
            return handled
        await app.inbox.wait(0.1)
    raise AssertionError(f"only {handled} handled")


async def _one(mail_server: MailHarness, address: str) -> IncomingMail:
    (got,) = await mail_server.wait_for(address)
    return got


async def test_a_team_plays_by_mail(app: App, mail_server: MailHarness) -> None:
    ctx = app.ctx
    red = games.SeatSpec("red", ANNA, "en", (games.HolderSpec(ROSA, "it"),))
    game_id = games.create(ctx, "duel", "Team by mail", [red, games.SeatSpec("blue", BLUE)])
    await app.drain()
    welcome = {a: await _one(mail_server, a) for a in (ANNA, ROSA, BLUE)}
    secrets = {a: secret_from_welcome(m.text) for a, m in welcome.items()}
    replies = {a: m.header("reply-to") for a, m in welcome.items()}
    assert "Welcome" in welcome[ANNA].text and "Benvenuto" in welcome[ROSA].text
    assert len(set(secrets.values())) == 3 and len(set(replies.values())) == 3
    assert secrets[ROSA] not in welcome[ANNA].text and replies[ROSA] not in welcome[ANNA].text

    # Rosa answers with the reply button; Anna is told what is on file and who sent it.
    await mail_server.send(ROSA, [replies[ROSA]], orders_mail(ROSA, game_id, "red", secrets[ROSA], ["GIOCA 3"],
                                                              to=replies[ROSA]))
    assert await _settle(app, 1) == {"orders": 1}
    assert "accettati" in (await _one(mail_server, ROSA)).subject
    told = await _one(mail_server, ANNA)
    assert ROSA in told.subject and "PLAY 3" in told.text and told.header("reply-to") == replies[ANNA]

    # Anna's address with Rosa's secret: refused, and only Anna hears of it.
    await mail_server.send(ANNA, ["pbem@localhost"], orders_mail(ANNA, game_id, "red", secrets[ROSA], ["PLAY 1"]))
    assert await _settle(app, 1) == {"refused": 1}
    assert [json.loads(r.recipients_json) for r in outbox(ctx, kind="refusal")] == [[ANNA]]
    assert "wrong or missing secret" in (await _one(mail_server, ANNA)).text

    # Anna's own orders replace Rosa's; Rosa is told.
    await mail_server.send(ANNA, [replies[ANNA]], orders_mail(ANNA, game_id, "red", secrets[ANNA], ["PLAY 1"],
                                                              to=replies[ANNA]))
    assert await _settle(app, 1) == {"orders": 1}
    echo = await _one(mail_server, ANNA)
    assert ROSA in echo.text and "are on file" in echo.text
    assert ANNA in (await _one(mail_server, ROSA)).text
    with ctx.session() as s:
        on_file = s.exec(select(SheetRow).where(col(SheetRow.superseded).is_(False))).one()
    assert (on_file.canonical, on_file.sender) == ("PLAY 1", ANNA)

    # Blue completes the turn: both holders of red get the report, each in their language.
    await mail_server.send(BLUE, ["pbem@localhost"], orders_mail(BLUE, game_id, "blue", secrets[BLUE], ["PLAY 2"]))
    assert await _settle(app, 1) == {"orders": 1}
    for _ in range(3):
        await app.cycle()  # the report stage, then the outbox
    anna = [m for m in await mail_server.wait_for(ANNA) if "report" in m.subject]
    rosa = [m for m in await mail_server.wait_for(ROSA) if "rapporto" in m.subject]
    assert anna and rosa and "report for red" in anna[0].text and "rapporto per red" in rosa[0].text
    assert f"{game_id}-turn-1-red.png" in {name for name, _type, _size in rosa[0].attachments}
