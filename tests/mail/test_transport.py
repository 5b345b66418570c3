from __future__ import annotations

import asyncio
import time

import pytest

from pbem.errors import MailPermanentError, MailTransientError
from pbem.mail.embedded import EmbeddedMailServer
from pbem.mail.imap import ImapInbox, uid_set
from pbem.mail.smtp import SmtpSender
from pbem.mail.transport import Inbox, MemoryInbox, MemoryOutgoing, Outgoing


def test_protocols_are_implemented() -> None:
    assert isinstance(MemoryInbox(), Inbox)
    assert isinstance(ImapInbox("h", 1, "u", "p"), Inbox)
    assert isinstance(MemoryOutgoing(), Outgoing)
    assert isinstance(SmtpSender("h", 1), Outgoing)
    assert EmbeddedMailServer  # importable without side effects


async def test_memory_inbox_work_list() -> None:
    inbox = MemoryInbox(max_size=100)
    await inbox.connect()
    a = inbox.deliver(b"Subject: a\r\n\r\nx")
    b = inbox.deliver(b"x" * 200)
    got = await inbox.fetch_new()
    assert [m.uid for m in got] == [a, b] == [101, 102]
    assert got[0].raw == b"Subject: a\r\n\r\nx" and not got[0].too_large
    assert got[1].raw is None and got[1].too_large and got[1].size == 200
    assert len(await inbox.fetch_new()) == 2  # nothing is seen until marked
    await inbox.mark_seen(a)
    assert [m.uid for m in await inbox.fetch_new()] == [b]


async def test_memory_inbox_wait_wakes_on_delivery() -> None:
    inbox = MemoryInbox()
    await inbox.fetch_new()
    loop = asyncio.get_running_loop()
    loop.call_later(0.05, inbox.deliver, b"x")
    start = time.monotonic()
    await inbox.wait(5)
    assert time.monotonic() - start < 1
    start = time.monotonic()
    await inbox.fetch_new()
    await inbox.wait(0.05)
    assert time.monotonic() - start >= 0.04


async def test_memory_outgoing_results_and_faults() -> None:
    out = MemoryOutgoing()
    out.refuse("bad@x.it")
    result = await out.send("pbem@localhost", ["a@x.it", "bad@x.it"], b"raw")
    assert result.sent == ("a@x.it",) and result.permanent == ("bad@x.it",)
    assert result["bad@x.it"].code == 550
    assert [m.recipients for m in out.to("A@x.it")] == [("a@x.it",)]
    out.fail_next(451)
    with pytest.raises(MailTransientError):
        await out.send("pbem@localhost", ["a@x.it"], b"raw")
    assert (await out.send("pbem@localhost", ["a@x.it"], b"raw")).all_sent
    out.fail_next(554)
    with pytest.raises(MailPermanentError):
        await out.send("pbem@localhost", ["a@x.it"], b"raw")
    with pytest.raises(MailPermanentError):
        await out.send("pbem@localhost", ["bad@x.it"], b"raw")


def test_uid_set() -> None:
    assert uid_set([101, 103, 102, 107, 108, 110]) == "101:103,107:108,110"
    assert uid_set([5]) == "5"
