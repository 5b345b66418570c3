"""SmtpSender maps every aiosmtplib failure to the Outgoing contract."""

from __future__ import annotations

import asyncio

import pytest

from pbem.errors import MailMaybeDeliveredError, MailPermanentError, MailTransientError
from pbem.mail.embedded import SmtpFront
from pbem.mail.smtp import SmtpSender

from .servers import MailHarness, free_port

RAW = b"From: pbem@localhost\r\nSubject: x\r\nMessage-ID: <m1@localhost>\r\n\r\nbody\r\n.\r\n..\r\n"


async def test_connection_refused_is_transient() -> None:
    sender = SmtpSender("127.0.0.1", free_port(), timeout=2)
    with pytest.raises(MailTransientError, match="cannot connect"):
        await sender.send("pbem@localhost", ["a@localhost"], RAW)


async def test_dot_lines_survive(embedded_mail: MailHarness) -> None:
    await embedded_mail.send("pbem@localhost", ["a@localhost"], RAW)
    fetched = await embedded_mail.fetch("a@localhost")
    assert fetched[0].raw is not None and fetched[0].raw.endswith(RAW)


async def test_smtp_auth(embedded_mail: MailHarness) -> None:
    good = embedded_mail.sender(username="pbem", password=embedded_mail.password)
    assert (await good.send("pbem@localhost", ["a@localhost"], RAW)).all_sent
    bad = embedded_mail.sender(username="pbem", password="wrong")
    with pytest.raises(MailPermanentError, match="login refused"):
        await bad.send("pbem@localhost", ["a@localhost"], RAW)


async def test_partial_and_mixed_refusals(embedded_mail: MailHarness) -> None:
    embedded_mail.refuse("full@localhost", 452)
    embedded_mail.refuse("gone@localhost", 550)
    result = await embedded_mail.send("pbem@localhost",
                                      ["a@localhost", "full@localhost", "gone@localhost"], RAW)
    assert result.sent == ("a@localhost",)
    assert result.transient == ("full@localhost",) and result["full@localhost"].code == 452
    assert result.permanent == ("gone@localhost",) and result["gone@localhost"].code == 550
    assert "refused" in result["gone@localhost"].text
    # nobody accepted, mixed codes: per-recipient answer, no exception
    mixed = await embedded_mail.send("pbem@localhost", ["full@localhost", "gone@localhost"], RAW)
    assert mixed.sent == () and mixed.transient == ("full@localhost",)
    with pytest.raises(MailTransientError):
        await embedded_mail.send("pbem@localhost", ["full@localhost"], RAW)
    # the connection-level state was reset: the next mail goes through
    assert (await embedded_mail.send("pbem@localhost", ["a@localhost"], RAW)).all_sent


@pytest.mark.parametrize("stage,code,error", [
    ("mail", 421, MailTransientError), ("mail", 451, MailTransientError),
    ("mail", 550, MailPermanentError), ("rcpt", 554, MailPermanentError),
    ("data", 451, MailTransientError), ("data", 554, MailPermanentError),
])
async def test_injected_failures(embedded_mail: MailHarness, stage: str, code: int,
                                 error: type[Exception]) -> None:
    embedded_mail.fail_next(code, stage=stage)
    with pytest.raises(error):
        await embedded_mail.send("pbem@localhost", ["a@localhost"], RAW)
    assert (await embedded_mail.send("pbem@localhost", ["a@localhost"], RAW)).all_sent


async def test_stall_after_data_may_have_delivered() -> None:
    delivered: list[bytes] = []

    async def slow(mail_from: str, rcpt: str, raw: bytes) -> None:
        delivered.append(raw)
        await asyncio.sleep(3)

    front = SmtpFront(slow, lambda address: True)
    await front.start()
    try:
        sender = SmtpSender("127.0.0.1", front.port, timeout=0.5)
        with pytest.raises(MailMaybeDeliveredError, match="may have been delivered"):
            await sender.send("pbem@localhost", ["a@localhost"], RAW)
        assert delivered and issubclass(MailMaybeDeliveredError, MailTransientError)
    finally:
        await front.stop()


async def test_empty_recipient_list_is_a_bug() -> None:
    with pytest.raises(ValueError):
        await SmtpSender("127.0.0.1", 1).send("pbem@localhost", [], RAW)
