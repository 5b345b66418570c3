"""EmbeddedMailServer specifics: addressing, direct delivery, catch-all."""

from __future__ import annotations

import pytest

from pbem.errors import MailPermanentError
from pbem.mail.embedded import EmbeddedMailServer
from pbem.mail.smtp import SmtpSender

RAW = b"From: a@localhost\r\nSubject: s\r\nMessage-ID: <e1@localhost>\r\n\r\nhello\r\n"


def test_address_mapping() -> None:
    server = EmbeddedMailServer(domains=("localhost", "Club.Example"))
    assert server.account_for("Pbem+k42.North@LOCALHOST") == "pbem"
    assert server.account_for("<anna@club.example>") == "anna"
    assert server.account_for("anna@example.com") is None
    assert server.account_for("../x@localhost") is None
    assert server.account_for("no-at-sign") is None
    assert server.account_for_login("Anna") == "anna"
    assert server.account_for_login("anna@club.example") == "anna"
    assert server.account_for_login("anna@example.com") is None
    assert server.address("pbem") == "pbem@localhost"


async def test_direct_delivery_and_messages() -> None:
    async with EmbeddedMailServer() as server:
        await server.deliver("pbem+x@localhost", RAW)
        assert await server.messages("pbem") == [(101, RAW, False)]
        assert await server.messages("pbem@localhost") == [(101, RAW, False)]
        with pytest.raises(ValueError):
            await server.deliver("pbem@example.com", RAW)
    assert not server.running


async def test_catch_all_takes_foreign_domains() -> None:
    async with EmbeddedMailServer(catch_all="outside") as server:
        sender = SmtpSender(server.host, server.smtp_port, timeout=5)
        result = await sender.send("pbem@localhost", ["player@gmail.com"], RAW)
        assert result.all_sent
        messages = await server.messages("outside")
        assert len(messages) == 1 and messages[0][1].endswith(RAW)
        assert b"for <player@gmail.com>" in messages[0][1]


async def test_smtp_refuses_unknown_domain_without_catch_all() -> None:
    async with EmbeddedMailServer() as server:
        sender = SmtpSender(server.host, server.smtp_port, timeout=5)
        with pytest.raises(MailPermanentError, match="550"):
            await sender.send("pbem@localhost", ["player@gmail.com"], RAW)
