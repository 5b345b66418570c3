"""Send → IMAP round trips against real servers: the embedded one and Dovecot."""

from __future__ import annotations

import asyncio
import email
import email.policy
import time

import pytest

from pbem.errors import MailPermanentError, MailTransientError
from pbem.mail.compose import Attachment, compose
from pbem.mail.parse import read_mail

from .servers import MailHarness

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64 + b"\r\n.\r\n\n.\n\r\r\x00end"


def _mail(to: str = "pbem@localhost", text: str = "GAME k42\nSEAT north s\nEND\n",
          **kwargs: object) -> tuple[str, bytes]:
    return compose(sender="anna@localhost", to=to, subject="orders", text=text,
                   domain="localhost", **kwargs)  # type: ignore[arg-type]


async def test_png_roundtrip_and_seen_only_after_mark(mail_server: MailHarness) -> None:
    mid, raw = compose(sender="pbem@localhost", to="anna@localhost", subject="[pbem] k42 map",
                       text="Città: your map", html='<p><img src="cid:map"></p>',
                       attachments=(Attachment("map.png", "image/png", PNG, inline_cid="map"),
                                    Attachment("view.json", "application/json", b'{"k": 1}')),
                       domain="localhost", game_id="k42")
    result = await mail_server.sender().send("pbem-bounces@localhost", ["anna@localhost"], raw)
    assert result.all_sent and result["anna@localhost"].code == 250

    inbox = mail_server.inbox("anna@localhost")
    await inbox.connect()
    fetched = await inbox.fetch_new()
    assert len(fetched) == 1
    got = fetched[0]
    assert got.raw is not None and not got.too_large and got.size == len(got.raw)
    assert got.raw.endswith(raw)  # byte-identical below the trace headers
    msg = email.message_from_bytes(got.raw, policy=email.policy.default)
    png = next(p for p in msg.walk() if p.get_content_type() == "image/png")
    assert png.get_content() == PNG
    parsed = read_mail(got.raw)
    assert parsed.message_id == mid and parsed.text.strip() == "Città: your map"
    assert parsed.return_path == "pbem-bounces@localhost"

    # the work list: nothing is \Seen until the caller says so
    assert [m.uid for m in await inbox.fetch_new()] == [got.uid]
    await inbox.mark_seen(got.uid)
    assert await inbox.fetch_new() == []
    await inbox.close()


async def test_plus_addressing_delivers_to_the_base_account(mail_server: MailHarness) -> None:
    _, raw = _mail(to="pbem+k42.north@localhost")
    await mail_server.send("anna@localhost", ["pbem+k42.north@localhost"], raw)
    mails = await mail_server.wait_for("pbem@localhost", 1)
    assert mails[0].header("to") == "pbem+k42.north@localhost"


async def test_unknown_domain_is_refused_with_550(mail_server: MailHarness) -> None:
    _, raw = _mail(to="someone@example.com")
    with pytest.raises(MailPermanentError, match="550"):
        await mail_server.send("pbem@localhost", ["someone@example.com"], raw)
    result = await mail_server.send("pbem@localhost", ["someone@example.com", "anna@localhost"],
                                    raw)
    assert result.sent == ("anna@localhost",)
    assert result.permanent == ("someone@example.com",)
    assert result["someone@example.com"].code == 550


async def test_injected_451_then_success(mail_server: MailHarness) -> None:
    _, raw = _mail()
    mail_server.fail_next(451)
    with pytest.raises(MailTransientError, match="451"):
        await mail_server.send("anna@localhost", ["pbem@localhost"], raw)
    assert (await mail_server.send("anna@localhost", ["pbem@localhost"], raw)).all_sent
    assert len(await mail_server.wait_for("pbem@localhost", 1)) == 1


async def test_idle_wakes_up_quickly(mail_server: MailHarness) -> None:
    inbox = mail_server.inbox("pbem@localhost")
    await inbox.connect()
    assert inbox.idle_supported
    assert await inbox.fetch_new() == []
    _, raw = _mail()

    async def later() -> None:
        await asyncio.sleep(0.2)
        await mail_server.send("anna@localhost", ["pbem@localhost"], raw)

    task = asyncio.create_task(later())
    start = time.monotonic()
    await inbox.wait(10)
    elapsed = time.monotonic() - start
    await task
    assert elapsed < 2.5, elapsed
    assert len(await inbox.fetch_new()) == 1
    # with nothing new, wait() lasts its timeout
    start = time.monotonic()
    await inbox.wait(0.3)
    assert 0.25 < time.monotonic() - start < 2
    await inbox.close()


async def test_polling_fallback_without_idle(mail_server: MailHarness) -> None:
    inbox = mail_server.inbox("pbem@localhost", use_idle=False, poll_interval=0.1)
    await inbox.connect()
    assert await inbox.fetch_new() == []
    _, raw = _mail()

    async def later() -> None:
        await asyncio.sleep(0.2)
        await mail_server.send("anna@localhost", ["pbem@localhost"], raw)

    task = asyncio.create_task(later())
    start = time.monotonic()
    await inbox.wait(10)
    await task
    assert time.monotonic() - start < 3
    assert len(await inbox.fetch_new()) == 1
    await inbox.close()


async def test_size_limit_never_fetches_the_body(mail_server: MailHarness) -> None:
    _, small = _mail()
    _, big = _mail(text="x" * 20_000)
    await mail_server.send("anna@localhost", ["pbem@localhost"], small)
    await mail_server.send("anna@localhost", ["pbem@localhost"], big)
    inbox = mail_server.inbox("pbem@localhost", max_size=10_000)
    fetched = await inbox.fetch_new()
    assert [m.too_large for m in fetched] == [False, True]
    assert fetched[1].raw is None and fetched[1].size > 20_000
    await inbox.mark_seen(fetched[1].uid)
    assert [m.uid for m in await inbox.fetch_new()] == [fetched[0].uid]
    await inbox.close()


async def test_wrong_password_is_permanent(mail_server: MailHarness) -> None:
    from pbem.mail.imap import ImapInbox

    inbox = ImapInbox(mail_server.host, mail_server.imap_port, "pbem@localhost", "wrong",
                      timeout=5)
    with pytest.raises(MailPermanentError, match="login refused"):
        await inbox.connect()
    await inbox.close()
