"""Failures of the server, not of one mail (issue 23): SmtpSender tells them apart and says what
to fix. Unreachable (refused, unknown name) → MailServerDownError; answering but refusing us
(certificate not trusted, login, sender) → MailSetupError; both MailServerError with a ``fix``
naming the setting. A refused recipient stays an answer about that mail."""

from __future__ import annotations

import pytest

from pbem.errors import MailPermanentError, MailServerDownError, MailServerError, MailSetupError
from pbem.mail.smtp import SmtpSender
from tests.mail.servers import MailHarness, free_port
from tests.mail.test_tls import certificate, tls_server  # noqa: F401 - fixtures

RAW = b"From: pbem@localhost\r\nTo: anna@localhost\r\nSubject: hi\r\nMessage-ID: <s1@localhost>\r\n\r\nhello\r\n"


async def test_an_unknown_host_name_is_the_servers_state() -> None:
    sender = SmtpSender("no-such-host.invalid", 587, timeout=5)
    with pytest.raises(MailServerDownError, match="does not resolve") as caught:
        await sender.send("pbem@localhost", ["anna@localhost"], RAW)
    assert "mail.smtp.host" in caught.value.fix


async def test_a_refused_connection_is_the_servers_state() -> None:
    sender = SmtpSender("127.0.0.1", free_port(), timeout=5, setting="mail.embedded")
    with pytest.raises(MailServerDownError, match="cannot connect") as caught:
        await sender.send("pbem@localhost", ["anna@localhost"], RAW)
    assert "mail.embedded.port" in caught.value.fix


async def test_an_untrusted_certificate_says_to_set_ca_file(tls_server) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    sender = SmtpSender("127.0.0.1", tls_server.smtp_port, "a", "pbem", "starttls", timeout=5)
    with pytest.raises(MailSetupError, match="not trusted") as caught:
        await sender.send("pbem@localhost", ["anna@localhost"], RAW)
    assert "mail.smtp.ca_file" in caught.value.fix
    assert isinstance(caught.value, MailPermanentError)  # for callers that only know the old tree


async def test_a_refused_login_and_a_refused_sender_are_settings(embedded_mail: MailHarness) -> None:
    with pytest.raises(MailSetupError, match="login refused") as caught:
        await SmtpSender("127.0.0.1", embedded_mail.smtp_port, "pbem@localhost", "wrong", timeout=5).send(
            "pbem@localhost", ["anna@localhost"], RAW)
    assert "password_env" in caught.value.fix
    embedded_mail.fail_next(553, stage="mail")
    with pytest.raises(MailSetupError, match="refused the sender") as caught:
        await embedded_mail.sender().send("pbem-bounces@localhost", ["anna@localhost"], RAW)
    assert "pbem-bounces@localhost" in caught.value.fix


async def test_a_refused_recipient_is_about_that_mail_only(embedded_mail: MailHarness) -> None:
    embedded_mail.refuse("anna@localhost", 550)
    with pytest.raises(MailPermanentError) as caught:
        await embedded_mail.sender().send("pbem@localhost", ["anna@localhost"], RAW)
    assert not isinstance(caught.value, MailServerError)
