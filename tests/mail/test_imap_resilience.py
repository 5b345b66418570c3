"""The IMAP inbox survives dropped connections, restarts and UIDVALIDITY changes."""

from __future__ import annotations

import asyncio
import time

import pytest

from pbem.errors import MailPermanentError, MailTransientError
from pbem.mail.compose import compose
from pbem.mail.embedded import EmbeddedMailServer
from pbem.mail.imap import ImapInbox

from .servers import MailHarness, free_port


def _raw(n: int) -> bytes:
    return compose(sender="anna@localhost", to="pbem@localhost", subject=f"mail {n}",
                   text=f"HELP {n}", domain="localhost")[1]


async def test_dropped_connection_is_recovered(embedded_mail: MailHarness) -> None:
    server: EmbeddedMailServer = embedded_mail.server
    inbox = embedded_mail.inbox("pbem@localhost")
    await inbox.connect()
    assert await inbox.fetch_new() == []
    server.drop_connections()
    await server.deliver("pbem@localhost", _raw(1))
    fetched = await inbox.fetch_new()
    assert len(fetched) == 1 and inbox.reconnects >= 1
    server.drop_connections()
    await inbox.mark_seen(fetched[0].uid)  # also after a drop
    assert await inbox.fetch_new() == []


async def test_server_restart_is_recovered_with_backoff(embedded_mail: MailHarness) -> None:
    server: EmbeddedMailServer = embedded_mail.server
    inbox = embedded_mail.inbox("pbem@localhost", retries=8)
    await inbox.connect()
    await server.stop()

    async def restart() -> None:
        await asyncio.sleep(0.3)
        await server.start()
        await server.deliver("pbem@localhost", _raw(1))

    task = asyncio.create_task(restart())
    fetched = await inbox.fetch_new()  # retries until the server is back
    await task
    assert inbox.reconnects >= 1
    # the restarted server kept the data and the UIDs: nothing was lost or renumbered
    assert len(fetched) <= 1
    fetched = fetched or await inbox.fetch_new()
    assert len(fetched) == 1 and inbox.uidvalidity_changes == 0


async def test_server_down_raises_transient_after_retries() -> None:
    inbox = ImapInbox("127.0.0.1", free_port(), "pbem", "pbem", timeout=1, retries=2,
                      backoff_initial=0.01, backoff_max=0.02)
    start = time.monotonic()
    with pytest.raises(MailTransientError, match="after 3 attempts"):
        await inbox.fetch_new()
    assert time.monotonic() - start < 3
    # wait() swallows transient trouble and just waits
    start = time.monotonic()
    await inbox.wait(0.2)
    assert time.monotonic() - start < 2
    await inbox.close()


async def test_wait_returns_when_the_connection_drops_during_idle(
        embedded_mail: MailHarness) -> None:
    inbox = embedded_mail.inbox("pbem@localhost")
    await inbox.connect()
    loop = asyncio.get_running_loop()
    loop.call_later(0.2, embedded_mail.server.drop_connections)
    start = time.monotonic()
    await inbox.wait(10)
    assert time.monotonic() - start < 3
    assert await inbox.fetch_new() == []
    await inbox.close()


async def test_uidvalidity_change_rescans_unseen(embedded_mail: MailHarness) -> None:
    server: EmbeddedMailServer = embedded_mail.server
    await server.deliver("pbem@localhost", _raw(1))
    await server.deliver("pbem@localhost", _raw(2))
    inbox = embedded_mail.inbox("pbem@localhost")
    first = await inbox.fetch_new()
    assert [m.uid for m in first] == [101, 102]
    old_validity = inbox.uidvalidity
    assert first[0].uidvalidity == old_validity
    await inbox.mark_seen(101)

    new_validity = await server.reset_uidvalidity("pbem")
    server.drop_connections()
    again = await inbox.fetch_new()
    assert inbox.uidvalidity == new_validity != old_validity
    assert inbox.uidvalidity_changes == 1
    # the unseen mail is offered again under its new UID; the seen one stays seen
    assert len(again) == 1 and again[0].uid != 102 and again[0].raw == first[1].raw
    assert again[0].uidvalidity == new_validity
    await inbox.mark_seen(102)  # a stale UID: ignored, never flags another mail
    assert [m.uid for m in await inbox.fetch_new()] == [again[0].uid]
    await inbox.mark_seen(again[0].uid)
    assert await inbox.fetch_new() == []


async def test_accounts_exist_on_demand_and_logins_are_checked(
        embedded_mail: MailHarness) -> None:
    port = embedded_mail.imap_port
    fresh = ImapInbox("127.0.0.1", port, "newcomer", "pbem", timeout=5)
    await fresh.connect()
    assert await fresh.fetch_new() == []
    await fresh.close()
    for user, password in (("pbem@example.com", "pbem"), ("pbem", "nope"), ("../etc", "pbem")):
        inbox = ImapInbox("127.0.0.1", port, user, password, timeout=5)
        with pytest.raises(MailPermanentError):
            await inbox.connect()
        await inbox.close()


async def test_maildir_backend_persists_across_restarts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pbem.mail.smtp import SmtpSender

    raw = _raw(1)
    server = EmbeddedMailServer(maildir=tmp_path / "mail", password="pw")
    await server.start()
    port = server.imap_port
    try:
        inbox = ImapInbox("127.0.0.1", port, "pbem@localhost", "pw", timeout=5)
        await inbox.connect()
        assert await inbox.fetch_new() == []
        result = await SmtpSender("127.0.0.1", server.smtp_port).send(
            "anna@localhost", ["pbem@localhost"], raw)
        assert result.all_sent
        start = time.monotonic()
        await inbox.wait(5)  # maildir: pymap notices within about a second
        assert time.monotonic() - start < 3
        fetched = await inbox.fetch_new()
        # Python's mailbox module stores LF line ends; the content is otherwise the same
        assert len(fetched) == 1 and fetched[0].raw
        assert fetched[0].raw.endswith(raw.replace(b"\r\n", b"\n"))
        await inbox.close()
    finally:
        await server.stop()

    again = EmbeddedMailServer(maildir=tmp_path / "mail", password="pw", imap_port=port)
    await again.start()
    try:
        inbox = ImapInbox("127.0.0.1", port, "pbem", "pw", timeout=5)
        fetched2 = await inbox.fetch_new()
        assert [(m.uid, m.raw) for m in fetched2] == [(fetched[0].uid, fetched[0].raw)]
        assert fetched2[0].uidvalidity == fetched[0].uidvalidity
        await inbox.mark_seen(fetched2[0].uid)
        assert await inbox.fetch_new() == []
        await inbox.close()
    finally:
        await again.stop()


@pytest.mark.parametrize("use_idle", [True, False])
async def test_other_calls_end_a_running_wait(embedded_mail: MailHarness, use_idle: bool) -> None:
    inbox = embedded_mail.inbox("pbem@localhost", use_idle=use_idle, poll_interval=30)
    await inbox.connect()
    waiter = asyncio.create_task(inbox.wait(30))
    await asyncio.sleep(0.1)
    start = time.monotonic()
    assert await inbox.fetch_new() == []  # not blocked behind IDLE / the poll sleep
    await asyncio.wait_for(waiter, 2)
    assert time.monotonic() - start < 2
    waiter = asyncio.create_task(inbox.wait(30))
    await asyncio.sleep(0.1)
    await asyncio.wait_for(inbox.close(), 2)
    await asyncio.wait_for(waiter, 2)


async def test_fetch_new_hands_out_bounded_batches(embedded_mail: MailHarness) -> None:
    for n in range(5):
        await embedded_mail.server.deliver("pbem@localhost", _raw(n))
    inbox = embedded_mail.inbox("pbem@localhost", max_batch=2)
    batches = []
    while True:
        batch = await inbox.fetch_new()
        if not batch:
            break
        batches.append([m.uid for m in batch])
        if len(batch) == 2:
            start = time.monotonic()
            await inbox.wait(5)  # more is waiting: returns at once
            assert time.monotonic() - start < 1
        for mail in batch:
            await inbox.mark_seen(mail.uid)
    assert batches == [[101, 102], [103, 104], [105]]
