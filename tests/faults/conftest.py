"""Fault-injection tests: the service behind real mail servers on loopback (the embedded
pymap + aiosmtpd, and Dovecot where installed), with a TCP proxy that cuts or freezes
connections, injected SMTP replies, and the daemon killed at every crash point."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.faults.stack import Stack, make_stack
from tests.mail.fixtures import dovecot_mail, embedded_mail, mail_server  # noqa: F401
from tests.mail.servers import MailHarness


@pytest.fixture
async def stack(mail_server: MailHarness, tmp_path: Path) -> AsyncIterator[Stack]:  # noqa: F811
    """A Kriegspiel game whose welcome mails went out; the daemon reads IMAP through
    ``stack.imap_proxy`` and sends SMTP through ``stack.smtp_proxy``."""
    s = await make_stack(mail_server, tmp_path)
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
async def embedded_stack(embedded_mail: MailHarness, tmp_path: Path) -> AsyncIterator[Stack]:  # noqa: F811
    """The same on the embedded server only, for what does not depend on the IMAP server."""
    s = await make_stack(embedded_mail, tmp_path)
    try:
        yield s
    finally:
        await s.close()
