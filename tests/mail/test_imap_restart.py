"""A Dovecot restart while the service waits in IDLE (issue 23): the IDLE task of the dropped
connection is settled (no "Task exception was never retrieved" with aioimaplib's Abort), the
log says once what happened (one WARNING) and once that the server is back (one INFO)."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal

import pytest

from tests.mail.servers import MailHarness


async def _restart(harness: MailHarness) -> None:
    """Kill Dovecot at once (as a crash or a restart does) and start it on the same ports."""
    server = harness.server
    assert server.process is not None
    os.killpg(server.process.pid, signal.SIGKILL)
    await asyncio.to_thread(server.process.wait, 5)
    await asyncio.to_thread(server.start)


async def test_a_restart_during_idle_logs_one_warning_one_info_and_no_traceback(
        dovecot_mail: MailHarness, caplog: pytest.LogCaptureFixture) -> None:
    inbox = dovecot_mail.inbox("pbem@localhost", use_idle=True, timeout=5.0)
    await inbox.connect()
    assert inbox.idle_supported
    caplog.set_level(logging.DEBUG)
    waiting = asyncio.create_task(inbox.wait(60))
    for _ in range(100):  # until the IDLE command is running
        client = inbox._client
        if client is not None and client.has_pending_idle():
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("IDLE never started")

    await _restart(dovecot_mail)
    await asyncio.wait_for(waiting, 20)  # the lost connection ends the wait
    raw = b"From: anna@localhost\r\nTo: pbem@localhost\r\nSubject: after\r\nMessage-ID: <a1@x>\r\n\r\nhi\r\n"
    await dovecot_mail.send("anna@localhost", ["pbem@localhost"], raw)
    fetched = await inbox.fetch_new()
    assert [m.raw for m in fetched if m.raw and b"<a1@x>" in m.raw]
    await inbox.close()
    gc.collect()  # an unretrieved task exception is reported when the task is collected
    await asyncio.sleep(0.05)

    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    imap = [r for r in caplog.records if r.name == "pbem.mail.imap"]
    warnings = [r.getMessage() for r in imap if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "lost" in warnings[0], warnings
    back = [r.getMessage() for r in imap if r.levelno == logging.INFO and "answers again" in r.getMessage()]
    assert len(back) == 1, back
    assert inbox.reconnects == 1
