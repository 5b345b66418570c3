"""A team through real SMTP and IMAP (the embedded pymap + aiosmtpd on loopback, and
Dovecot where installed): the red seat of a Duel is held by Anna (English) and Rosa
(Italian), each welcomed with a secret and a reply address of their own. Rosa answers
with the reply button, Anna hears who sent what; Anna's mail with Rosa's secret is
refused to Anna alone; Anna's new orders replace Rosa's; the reports reach both, each in
their language."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from sqlmodel import col, select

from pbem.app import App
from pbem.db.models import SheetRow
from pbem.mail.parse import IncomingMail
from pbem.service import games
from tests.e2e.mailstack import open_app, settle
from tests.mail.servers import MailHarness
from tests.security.support import orders_mail
from tests.service.helpers import outbox
from tests.support.players import secret_from_welcome

ANNA, ROSA, BLUE = "anna@localhost", "rosa@localhost", "blue@localhost"


@pytest.fixture
async def app(mail_server: MailHarness, tmp_path) -> AsyncIterator[App]:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path}/pbem.sqlite"
    async with open_app(mail_server, url, {"security": {"reply_tokens": True}}) as opened:
        yield opened


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
    assert await settle(app, 1, tries=40) == {"orders": 1}
    assert "accettati" in (await _one(mail_server, ROSA)).subject
    told = await _one(mail_server, ANNA)
    assert ROSA in told.subject and "PLAY 3" in told.text and told.header("reply-to") == replies[ANNA]

    # Anna's address with Rosa's secret: refused, and only Anna hears of it.
    await mail_server.send(ANNA, ["pbem@localhost"], orders_mail(ANNA, game_id, "red", secrets[ROSA], ["PLAY 1"]))
    assert await settle(app, 1, tries=40) == {"refused": 1}
    assert [json.loads(r.recipients_json) for r in outbox(ctx, kind="refusal")] == [[ANNA]]
    assert "wrong or missing secret" in (await _one(mail_server, ANNA)).text

    # Anna's own orders replace Rosa's; Rosa is told.
    await mail_server.send(ANNA, [replies[ANNA]], orders_mail(ANNA, game_id, "red", secrets[ANNA], ["PLAY 1"],
                                                              to=replies[ANNA]))
    assert await settle(app, 1, tries=40) == {"orders": 1}
    echo = await _one(mail_server, ANNA)
    assert ROSA in echo.text and "are on file" in echo.text
    assert ANNA in (await _one(mail_server, ROSA)).text
    with ctx.session() as s:
        on_file = s.exec(select(SheetRow).where(col(SheetRow.superseded).is_(False))).one()
    assert (on_file.canonical, on_file.sender) == ("PLAY 1", ANNA)

    # Blue completes the turn: both holders of red get the report, each in their language.
    await mail_server.send(BLUE, ["pbem@localhost"], orders_mail(BLUE, game_id, "blue", secrets[BLUE], ["PLAY 2"]))
    assert await settle(app, 1, tries=40) == {"orders": 1}
    for _ in range(3):
        await app.cycle()  # the report stage, then the outbox
    anna = [m for m in await mail_server.wait_for(ANNA) if "report" in m.subject]
    rosa = [m for m in await mail_server.wait_for(ROSA) if "rapporto" in m.subject]
    assert anna and rosa and "report for red" in anna[0].text and "rapporto per red" in rosa[0].text
    assert f"{game_id}-turn-1-red.png" in {name for name, _type, _size in rosa[0].attachments}
