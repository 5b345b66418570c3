"""SMTP faults under the running daemon: a 451 (at MAIL, RCPT or DATA) then success, a 550
for one recipient, and a server whose reply to the final "." never comes (the mail may
have been delivered: it is sent again, the one documented duplicate, same Message-ID)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from pbem.db.models import OutboxMail
from tests.faults.stack import DEPLOY, SEATS, Stack, check_exactly_once


def _reply_row(stack: Stack, mid: str) -> OutboxMail:
    from tests.faults.stack import parse

    rows = [r for r in stack.outbox() if r.kind == "reply" and parse(r.raw)["In-Reply-To"] == mid]
    assert len(rows) == 1, rows
    return rows[0]


@pytest.mark.parametrize("stage", ["mail", "rcpt", "data"])
async def test_451_then_success_is_retried_with_backoff_and_sent_once(stack: Stack, stage: str) -> None:
    """Two 451s for north's receipt: it waits 30 s, then 60 s (exponential backoff; the
    rows behind it wait too: the server is unwell), then goes, once."""
    mid, _ = await stack.send("north", DEPLOY["north"])
    stack.mail.smtp.fail_next(451, count=2, stage=stage)
    t0 = stack.clock()
    first = await stack.cycle()
    row = _reply_row(stack, mid)
    assert first.sent == 0 and row.status == "queued" and row.attempts == 1 and "451" in row.last_error
    assert row.next_attempt_at == t0 + timedelta(seconds=30)
    assert (await stack.cycle()).sent == 0  # not due yet: not even tried
    assert _reply_row(stack, mid).attempts == 1
    stack.clock.advance(seconds=31)
    await stack.cycle()
    row = _reply_row(stack, mid)
    assert row.status == "queued" and row.attempts == 2
    assert row.next_attempt_at == stack.clock() + timedelta(seconds=60)
    stack.clock.advance(seconds=61)
    assert (await stack.cycle()).sent == 1
    row = _reply_row(stack, mid)
    assert row.status == "sent" and row.attempts == 3
    await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=2)
    verdict = await check_exactly_once(stack)
    assert verdict.delivered[SEATS["north"]][row.message_id] == 1 and verdict.rolls == 1


async def test_550_for_one_recipient_fails_that_row_and_the_others_go(stack: Stack) -> None:
    """South's address is refused for good: its rows (the receipt, the report) fail at once,
    with the 550 recorded; north's rows are sent in the same drain."""
    stack.mail.smtp.refuse(SEATS["south"], 550)
    before = max(r.id or 0 for r in stack.outbox())
    await stack.send("north", DEPLOY["north"])
    south_mid, _ = await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=2)
    failed = [r for r in stack.outbox() if r.status == "failed"]
    assert failed and all(json.loads(r.recipients_json) == [SEATS["south"]] for r in failed)
    assert all("550" in r.last_error and r.attempts == 1 for r in failed)
    assert {r.kind for r in failed} == {"reply", "report"}
    assert _reply_row(stack, south_mid).status == "failed"
    assert {r.message_id for r in failed} == {r.message_id for r in stack.outbox()
                                              if (r.id or 0) > before and SEATS["south"] in r.recipients_json}
    verdict = await check_exactly_once(stack, failed=frozenset(r.message_id for r in failed))
    assert verdict.rolls == 1
    assert any(r.kind == "report" and r.status == "sent" for r in stack.outbox())


async def test_no_answer_after_data_is_retried_at_most_one_duplicate(stack: Stack) -> None:
    """The proxy in front of SMTP swallows the server's reply to the final "." (the server
    did store the mail). The sender times out: 'may have been delivered', a transient
    failure; the row is retried after the backoff and sent again with the same Message-ID:
    one duplicate, the documented one, and no more."""
    stack.app.outgoing.timeout = 1.0  # type: ignore[attr-defined]
    mid, _ = await stack.send("north", DEPLOY["north"])
    rule = stack.smtp_proxy.on_client(b"\r\n.\r\n", "freeze", times=1)
    first = await stack.cycle()
    row = _reply_row(stack, mid)
    assert rule.fired == 1 and first.sent == 0
    assert row.status == "queued" and "may have been delivered" in row.last_error
    assert len(await stack.mailbox(SEATS["north"])) == 2  # the welcome and the receipt: it did arrive
    stack.clock.advance(seconds=31)
    await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=2)
    verdict = await check_exactly_once(stack, duplicates_allowed=1)
    assert verdict.duplicates == {row.message_id: 2}
    assert _reply_row(stack, mid).attempts == 2


async def test_a_long_smtp_outage_loses_nothing_and_the_cycle_keeps_running(embedded_stack: Stack) -> None:
    """SMTP refuses connections for two days: the server is probed (at most every 5 minutes,
    here once an hour as the cycles come), north's receipt waits in the queue without an
    attempt counted against it — an outage is the server's state, never one mail's fate
    (issue 23) — every cycle meanwhile completes (inbound mail keeps being processed), and
    when the server is back everything waiting goes out in the first drain."""
    stack = embedded_stack
    mid, _ = await stack.send("north", DEPLOY["north"])
    await stack.smtp_proxy.down()
    for _ in range(49):
        summary = await stack.cycle()
        assert summary.sent == 0 and any(e.startswith("outbox: cannot connect to SMTP") for e in summary.errors)
        stack.clock.advance(hours=1)
    row = _reply_row(stack, mid)
    assert row.status == "queued" and row.attempts == 0 and "cannot connect" in row.last_error
    await stack.smtp_proxy.up()
    south, _ = await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=2)
    assert _reply_row(stack, mid).status == "sent" and _reply_row(stack, south).status == "sent"
