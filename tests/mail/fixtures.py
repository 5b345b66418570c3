"""Reusable mail-server fixtures (real servers on loopback). Any test folder can use them:

    # tests/<folder>/conftest.py
    from tests.mail.fixtures import embedded_mail, dovecot_mail, mail_server  # noqa: F401

``embedded_mail`` / ``dovecot_mail`` / ``mail_server`` (parametrized over both) each yield a
``tests.mail.servers.MailHarness``; see that module for its methods.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.mail.servers import (
    MailHarness,
    dovecot_binary,
    start_dovecot,
    start_embedded,
)

__all__ = ["dovecot_mail", "embedded_mail", "mail_server"]


@pytest.fixture
async def embedded_mail() -> AsyncIterator[MailHarness]:
    """pymap (in memory) + aiosmtpd on free loopback ports, in the test's event loop.

    ``embedded_mail.server`` is the EmbeddedMailServer (fault injection, deliver(),
    reset_uidvalidity(), stop()/start())."""
    harness = await start_embedded()
    try:
        yield harness
    finally:
        await harness.stop()


@pytest.fixture
async def dovecot_mail() -> AsyncIterator[MailHarness]:
    """A real Dovecot (IMAP + LMTP) behind an aiosmtpd SMTP front; skipped only when the
    dovecot binary is not installed (scripts/install-dovecot.sh installs it)."""
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (scripts/install-dovecot.sh)")
    harness = await start_dovecot()
    try:
        yield harness
    finally:
        await harness.stop()


@pytest.fixture(params=["embedded", pytest.param("dovecot", marks=pytest.mark.dovecot)])
async def mail_server(request: pytest.FixtureRequest) -> AsyncIterator[MailHarness]:
    """The same test against the embedded server and against Dovecot."""
    if request.param == "dovecot" and dovecot_binary() is None:
        pytest.skip("dovecot is not installed (scripts/install-dovecot.sh)")
    harness = await (start_embedded() if request.param == "embedded" else start_dovecot())
    try:
        yield harness
    finally:
        await harness.stop()
