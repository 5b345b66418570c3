"""Reply addresses through real SMTP and IMAP (the embedded pymap + aiosmtpd on loopback):
a player answers the welcome mail with the reply button (its Reply-To, a plus-address of
the server's mailbox) and the orders are accepted; the same address used for another
seat is refused and only that seat's owner hears about it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator

import pytest

from pbem.app import App
from pbem.config import SecurityConfig
from pbem.service import games
from pbem.service.context import Context
from tests.mail.fixtures import embedded_mail  # noqa: F401  (fixture)
from tests.mail.servers import MailHarness
from tests.security.mailpath import settle
from tests.security.support import orders_mail
from tests.service.helpers import outbox
from tests.support.players import secret_from_welcome

RED, BLUE = "red@localhost", "blue@localhost"


@pytest.fixture
async def server(ctx: Context, embedded_mail: MailHarness) -> AsyncIterator[App]:  # noqa: F811
    ctx.config = dataclasses.replace(ctx.config, security=SecurityConfig(reply_tokens=True))
    inbox = embedded_mail.inbox(ctx.config.server.address)
    await inbox.connect()
    try:
        yield App(ctx, inbox, embedded_mail.sender())
    finally:
        await inbox.close()


async def test_replying_to_the_reply_address_works_and_another_seat_cannot_use_it(
        server: App, embedded_mail: MailHarness, ctx: Context) -> None:  # noqa: F811
    game_id = games.create(ctx, "duel", "By reply", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    await server.drain()
    red_welcome = (await embedded_mail.wait_for(RED))[0]
    blue_welcome = (await embedded_mail.wait_for(BLUE))[0]
    red_reply = red_welcome.header("reply-to")
    assert red_reply and red_reply.startswith("pbem+") and red_reply != blue_welcome.header("reply-to")
    secrets = {"red": secret_from_welcome(red_welcome.text), "blue": secret_from_welcome(blue_welcome.text)}

    await embedded_mail.send(RED, [red_reply], orders_mail(RED, game_id, "red", secrets["red"], to=red_reply))
    # Blue answers through red's reply address (a forwarded mail, a shared thread).
    await embedded_mail.send(BLUE, [red_reply], orders_mail(BLUE, game_id, "blue", secrets["blue"], to=red_reply))
    assert await settle(server, 2) == {"orders": 1, "refused": 1}

    refusals = outbox(ctx, kind="refusal")
    assert [json.loads(r.recipients_json) for r in refusals] == [[BLUE]]
    notice = (await embedded_mail.wait_for(BLUE))[-1]
    assert "reply address of another seat" in notice.text and secrets["blue"] not in notice.text
    accepted = (await embedded_mail.wait_for(RED))[-1]
    assert "are on file" in accepted.text and accepted.header("reply-to") == red_reply
