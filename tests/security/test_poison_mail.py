"""Poison mail through the real path (the embedded SMTP and IMAP servers on loopback, the
daemon's own cycle): the mails that froze the service before (hostile-mail issue, item 1;
security review, items 2 and 9) are each handled once, inside the per-mail budget, and a
player's orders sent behind them are answered; a reply to an Outlook-length Message-ID
threads (hostile-mail issue, item 4).

No timing is asserted: a mail that costs more than its budget (``limits.mail_seconds``) is
recorded as ``error`` "over budget" by the reader, so "not an error" is the proof that each
was read in time, whatever the machine's speed."""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator

import pytest
from sqlmodel import col, select

from pbem.app import App
from pbem.db.models import InboundMail, OutboxMail
from pbem.service.context import Context
from tests.mail.fixtures import embedded_mail  # noqa: F401  (fixture)
from tests.mail.servers import MailHarness
from tests.security.mailpath import RED, new_duel, settle
from tests.security.support import orders_mail

SERVER = "pbem@localhost"
STRANGER = "mallory@localhost"
#: An Outlook Message-ID as Outlook writes them (88 characters with the brackets).
OUTLOOK_ID = "<AM9PR07MB7412C0F5A8D1E3B8E9C4A1B2D8A12C3E4F5@AM9PR07MB7412.eurprd07.prod.outlook.com>"


@pytest.fixture
async def server(ctx: Context, embedded_mail: MailHarness) -> AsyncIterator[App]:  # noqa: F811
    inbox = embedded_mail.inbox(ctx.config.server.address)
    await inbox.connect()
    app = App(ctx, inbox, embedded_mail.sender())
    try:
        yield app
    finally:
        app.inspector.close()
        await inbox.close()


def _mail(sender: str, subject: str, headers: str, body: bytes) -> bytes:
    return (f"From: {sender}\r\nTo: {SERVER}\r\nSubject: {subject}\r\n"
            f"Message-ID: <{abs(hash((sender, subject, len(body))))}@poison.example>\r\n"
            f"Date: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\n{headers}\r\n").encode() + body


def html_bomb() -> bytes:
    """HTML only, ``<a`` 100,000 times, base64: 270 KB (item 1 of the hostile-mail issue)."""
    payload = base64.encodebytes(b"<html><body>" + b"<a" * 100_000 + b"</body></html>")
    return _mail(STRANGER, "hello", "Content-Type: text/html; charset=utf-8\r\n"
                 "Content-Transfer-Encoding: base64\r\n", payload)


def poison_bounce() -> bytes:
    """Looks like a bounce; its body is 25,000 blank lines (the security review, item 2)."""
    return _mail("MAILER-DAEMON@localhost", "Undelivered Mail Returned to Sender",
                 "Content-Type: text/plain\r\n", b"\r\n" * 25_000 + b"The mail could not be delivered.\r\n")


def parameter_bomb() -> bytes:
    """A Content-Type with 20,000 ``a=b;`` parameters (item 1 of the hostile-mail issue)."""
    params = "".join(f";\r\n a{n}=b" for n in range(20_000))
    return _mail(STRANGER, "params", f"Content-Type: text/plain{params}\r\n", b"HELP\r\n")


async def test_poison_mails_are_read_once_in_budget_and_orders_behind_them_are_answered(
        server: App, embedded_mail: MailHarness, ctx: Context) -> None:  # noqa: F811
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    smtp = embedded_mail.sender()
    for raw in (html_bomb(), poison_bounce(), parameter_bomb()):
        await smtp.send(STRANGER, [SERVER], raw)
    await smtp.send(RED, [SERVER], orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3"]))
    handled = await settle(server, 4)
    assert handled.get("orders") == 1 and "error" not in handled, handled
    with ctx.session() as s:
        rows = list(s.exec(select(InboundMail).order_by(col(InboundMail.id))))
        answers = list(s.exec(select(OutboxMail).where(col(OutboxMail.recipients_json).contains("MAILER-DAEMON"))))
    assert len(rows) == 4 and not [r for r in rows if r.status in ("error", "processing", "retrying")], \
        [(r.status, r.note) for r in rows]
    bounce = next(r for r in rows if r.sender.lower().startswith("mailer-daemon"))
    assert bounce.status == "ignored" and answers == []  # a machine is never answered
    confirmation = (await embedded_mail.wait_for(RED))[-1]
    assert "accepted" in confirmation.subject
    # Fetched again (a restart that finds them unseen): nothing is read or answered twice.
    assert sum((await server.cycle()).handled.values()) == 0
    with ctx.session() as s:
        assert len(list(s.exec(select(InboundMail)))) == 4


async def test_a_reply_to_an_outlook_message_id_threads(server: App, embedded_mail: MailHarness,
                                                        ctx: Context) -> None:  # noqa: F811
    game_id, secrets = await new_duel(server, embedded_mail, ctx)
    await embedded_mail.sender().send(RED, [SERVER], orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3"],
                                                                 message_id=OUTLOOK_ID))
    assert await settle(server, 1) == {"orders": 1}
    raw = (await embedded_mail.fetch(RED))[-1].raw or b""  # the answer (the welcome was read)
    assert b"accepted" in raw
    head = raw.partition(b"\r\n\r\n")[0].decode("ascii")
    unfolded = re.sub(r"\r\n[ \t]+", " ", head)
    in_reply_to = re.search(r"^In-Reply-To: (.*)$", unfolded, re.MULTILINE | re.IGNORECASE)
    references = re.search(r"^References: (.*)$", unfolded, re.MULTILINE | re.IGNORECASE)
    assert in_reply_to is not None and in_reply_to.group(1).strip() == OUTLOOK_ID
    assert references is not None and OUTLOOK_ID in references.group(1).split()
    assert "=?" not in in_reply_to.group(1) + references.group(1)
