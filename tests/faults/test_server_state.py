"""A wrong setting costs no mail (issue 23): a refused login or a refused sender is the SMTP
server's state, never one mail's fate. The mail stays queued, the server is probed once per
backoff (never one login per mail: a server that locks accounts out after failed logins
would ban the service), the status says what to fix, and after the fix everything goes
out once, oldest first. A reminder that could not go out before its deadline is dropped,
not sent late."""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import select

from pbem.db.models import OutboxMail
from pbem.mail.smtp import SmtpSender
from pbem.service import outbox
from tests.faults.stack import DEPLOY, SEATS, SERVER, Stack, check_exactly_once, make_stack
from tests.mail.servers import MailHarness


def _queued(stack: Stack) -> list[OutboxMail]:
    return [r for r in stack.outbox() if r.status == "queued"]


async def test_a_refused_login_loses_nothing_and_logs_in_once_per_probe(embedded_mail: MailHarness,
                                                                       tmp_path: Path) -> None:
    stack = await make_stack(embedded_mail, tmp_path)
    try:
        # The administrator's password is wrong (535): the turn still resolves, its mail waits.
        stack.app.outgoing = SmtpSender("127.0.0.1", stack.smtp_proxy.port, SERVER, "not-the-password", timeout=2,
                                        connections=4)  # four lanes, still one login a probe
        await stack.send("north", DEPLOY["north"])
        await stack.send("south", DEPLOY["south"])
        logins = stack.smtp_proxy.accepted
        await stack.run_until(lambda: stack.inbound_count() >= 2 and any(r.kind == "report" for r in stack.outbox()))
        summary = stack.summaries[-1]
        waiting = _queued(stack)
        assert len(waiting) >= 4  # two receipts, two reports
        assert stack.smtp_proxy.accepted - logins == 1  # one probe, however many mails wait
        assert all(r.attempts == 0 for r in waiting) and "login refused" in waiting[0].last_error
        assert [e for e in summary.errors if e.startswith("outbox:")] == [
            f"outbox: {stack.app.smtp_health.problem()}"]
        assert "password_env" in summary.servers[0]["fix"] and summary.servers[0]["ok"] is False

        again = await stack.cycle()  # the same minute: the next probe is not due, nothing is tried
        assert again.sent == 0 and stack.smtp_proxy.accepted - logins == 1
        stack.clock.advance(seconds=31)
        await stack.cycle()  # the second probe, refused again: still one login
        assert stack.smtp_proxy.accepted - logins == 2 and all(r.status == "queued" for r in waiting)

        # The fix: the right password. At the next probe everything goes out, once.
        stack.app.outgoing = SmtpSender("127.0.0.1", stack.smtp_proxy.port, SERVER, embedded_mail.password,
                                        timeout=2, connections=4)
        stack.clock.advance(seconds=61)
        fixed = await stack.cycle()
        assert fixed.errors == [] and fixed.sent == len(waiting) and not _queued(stack)
        assert stack.app.smtp_health.down is False and fixed.servers == []
        verdict = await check_exactly_once(stack)
        assert verdict.rolls == 1
    finally:
        await stack.close()


async def test_a_refused_sender_is_a_setting_to_fix_not_a_failed_mail(stack: Stack) -> None:
    """A 5xx to MAIL FROM (Postfix's reject_sender_login_mismatch when the login may not send
    as the bounce address) refuses every mail alike: the mail waits, the status names the fix."""
    await stack.send("north", DEPLOY["north"])
    stack.mail.smtp.fail_next(553, count=1, stage="mail", text="5.7.1 Sender address rejected: not owned by user")
    summary = await stack.cycle()
    assert summary.sent == 0 and not [r for r in stack.outbox() if r.status == "failed"]
    assert "smtpd_sender_login_maps" in summary.servers[0]["fix"]
    stack.clock.advance(seconds=31)
    assert (await stack.cycle()).sent == 1
    await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=2)
    verdict = await check_exactly_once(stack)
    assert verdict.rolls == 1


async def test_a_reminder_whose_deadline_passed_while_smtp_was_down_is_dropped(embedded_stack: Stack) -> None:
    stack = embedded_stack
    await stack.smtp_proxy.down()
    stack.clock.advance(hours=24, minutes=1)  # the 24 h reminder is due (48 h turn)
    first = await stack.cycle()
    assert first.reminders == 2 and first.sent == 0
    reminders = [r for r in stack.outbox() if r.kind == "reminder"]
    assert len(reminders) == 2 and all(r.status == "queued" for r in reminders)
    stack.clock.advance(hours=24)  # past the deadline: the turn resolves by default orders
    await stack.cycle()
    await stack.smtp_proxy.up()
    stack.clock.advance(minutes=10)
    back = await stack.cycle()
    assert back.errors == [] and back.sent >= 2
    rows = {r.message_id: r for r in stack.outbox()}
    for r in reminders:
        assert rows[r.message_id].status == "dropped" and rows[r.message_id].last_error.startswith("not sent:")
    assert not _queued(stack)
    for address in SEATS.values():  # the report arrived; the late reminder did not
        subjects = [str(m) for m in await stack.mailbox(address)]
        assert not any(r.message_id in s for r in reminders for s in subjects)


async def test_mail_failed_in_the_past_can_be_requeued(stack: Stack) -> None:
    """``pbem outbox retry``: welcomes failed under an old setting go out once when requeued."""
    with stack.ctx.session() as s:
        rows = list(s.exec(select(OutboxMail)))
        for row in rows:
            row.status, row.last_error = "failed", "TLS certificate not trusted (before the fix)"
            s.add(row)
        s.commit()
    before = {addr: len(await stack.mailbox(addr)) for addr in SEATS.values()}
    welcomes = outbox.requeue(stack.ctx, kind="welcome")
    assert len(welcomes) == 2 and all(r.status == "queued" and r.attempts == 0 for r in welcomes)
    assert outbox.requeue(stack.ctx) == []  # nothing else had failed
    assert (await stack.cycle()).sent == 2
    after = {addr: len(await stack.mailbox(addr)) for addr in SEATS.values()}
    assert all(after[a] == before[a] + 1 for a in SEATS.values())
    assert all(json.loads(r.recipients_json)[0] in SEATS.values() for r in welcomes)
