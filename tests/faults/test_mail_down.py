"""Deadlines keep firing while mail is down: with IMAP and SMTP unreachable (connections
refused, or accepted and never answered) the phase resolves by default orders, the die is
rolled, the reports are drawn and wait in the outbox; they go out, once, when the servers
are back."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.faults.stack import DEPLOY, SEATS, Stack, check_exactly_once, make_stack
from tests.mail.servers import MailHarness


@pytest.mark.parametrize("how", ["refused", "blackholed"])
async def test_deadline_resolves_while_mail_is_down_and_reports_wait(embedded_mail: MailHarness, tmp_path: Path,
                                                                     how: str) -> None:
    """(The embedded server: what is tested here does not depend on the IMAP server.)"""
    # Short timeouts keep a cycle against a blackholed server brief; 1 s for IMAP and SMTP leaves room
    # for a loaded machine to answer a healthy server before the outage (0.4 s for SMTP once timed out
    # the welcomes themselves in a CI run under faketime).
    stack = await make_stack(embedded_mail, tmp_path, timeout=1.0, retries=1, smtp_timeout=1.0)
    try:
        await _scenario(stack, how)
    finally:
        await stack.close()


async def _scenario(stack: Stack, how: str) -> None:
    await stack.send("north", DEPLOY["north"])
    await stack.settle(inbound=1)
    # A send that timed out on a busy machine waits in its backoff, and settle() does not wait for it:
    # let it go out before the outage, or the outage would count its second attempt.
    for _ in range(10):
        if not [r for r in stack.outbox() if r.status == "queued"]:
            break
        stack.clock.advance(minutes=5)
        await stack.settle(inbound=1)
    assert not [r for r in stack.outbox() if r.status == "queued"]
    before = {addr: len(await stack.mailbox(addr)) for addr in SEATS.values()}
    if how == "refused":
        await stack.imap_proxy.down()
        await stack.smtp_proxy.down()
    else:
        stack.imap_proxy.blackhole()
        stack.smtp_proxy.blackhole()
    stack.clock.advance(hours=49)  # south never sent orders; the 48 h deadline has passed

    for _ in range(2):  # a second cycle while down changes nothing
        start = time.monotonic()
        summary = await stack.cycle()
        assert time.monotonic() - start < 5
        assert any(e.startswith("inbox") for e in summary.errors)
        assert summary.sent == 0
    assert [s.resolved for s in stack.summaries[-2:]] == [1, 0]
    assert [s.reports for s in stack.summaries[-2:]] == [1, 0]
    phase = stack.phase(0)
    assert phase.resolved_at is not None and phase.rolls_count == 1
    sheets = stack.on_file(0)
    assert sheets["north"].source == "mail" and sheets["south"].source == "default"
    waiting = [r for r in stack.outbox() if r.status == "queued"]
    # the first row served as the probe of the server (the rest wait behind it), none was lost and
    # none counts an attempt of its own: the outage is the server's state (issue 23)
    assert waiting[0].attempts == 0 and "SMTP" in waiting[0].last_error
    assert summary.servers and summary.servers[0]["ok"] is False and summary.servers[0]["fix"]
    kinds = sorted((r.kind, json.loads(r.recipients_json)[0]) for r in waiting)
    assert ("report", SEATS["north"]) in kinds and ("report", SEATS["south"]) in kinds
    assert ("notice", SEATS["south"]) in kinds  # the missed deadline
    assert {addr: len(await stack.mailbox(addr)) for addr in SEATS.values()} == before

    if how == "refused":
        await stack.imap_proxy.up()
        await stack.smtp_proxy.up()
    else:
        stack.imap_proxy.blackhole(False)
        stack.smtp_proxy.blackhole(False)
        stack.imap_proxy.cut_all()
    stack.clock.advance(minutes=1)  # the server's next probe
    await stack.run_until(lambda: all(r.status == "sent" for r in stack.outbox()))
    verdict = await check_exactly_once(stack)
    assert verdict.rolls == 1
    for address in SEATS.values():
        reports = [r for r in stack.outbox() if r.kind == "report" and json.loads(r.recipients_json) == [address]]
        assert len(reports) == 1 and verdict.delivered[address][reports[0].message_id] == 1
