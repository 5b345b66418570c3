"""The outbox over a real SMTP server (the embedded one, behind the fault proxy), on several
connections at once (``outbox.connections``): the daemon opens that many and keeps them,
each player's mails arrive in the order they were queued, and a connection that stalls
holds only its own lane: the others' mails go out meanwhile. With one connection the same
stall holds everything behind it (the control)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.db.models import OutboxMail
from pbem.mail.parse import read_mail
from pbem.mail.smtp import SmtpSender
from pbem.service import outbox
from tests.faults.stack import Stack, make_stack
from tests.mail.servers import MailHarness


def _queue(stack: Stack, mails: list[tuple[str, str]]) -> None:
    """(recipient, subject) in order, as the daemon queues them."""
    with stack.ctx.session() as s:
        for n, (to, subject) in enumerate(mails):
            raw = (f"From: pbem@localhost\r\nTo: {to}\r\nSubject: {subject}\r\n"
                   f"Message-ID: <lane-{n}-{subject.replace(' ', '')}@localhost>\r\n\r\n{subject}\r\n").encode()
            outbox.enqueue(s, stack.ctx, message_id=f"<lane-{n}-{subject.replace(' ', '')}@localhost>", raw=raw,
                           recipients=[to], subject=subject, kind="report", game_id=None)
        s.commit()


def _rows(stack: Stack) -> list[OutboxMail]:
    with stack.ctx.session() as s:
        return list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))


async def _subjects(stack: Stack, address: str) -> list[str]:
    return [read_mail(raw).subject for raw in await stack.mailbox(address)]


async def test_the_daemon_sends_on_its_connections_each_players_mails_in_order(embedded_mail: MailHarness,
                                                                              tmp_path: Path) -> None:
    stack = await make_stack(embedded_mail, tmp_path, create=False)
    try:
        stack.app.outgoing = SmtpSender("127.0.0.1", stack.smtp_proxy.port, timeout=5, connections=3)
        players = [embedded_mail.address(f"lane{p}") for p in "abcd"]
        _queue(stack, [(to, f"{to[:5]} {n}") for n in range(3) for to in players])
        before = stack.smtp_proxy.accepted
        assert await stack.app.drain() == 12
        assert stack.smtp_proxy.accepted - before == 3  # three connections, not one, not one a mail
        assert stack.smtp_proxy.open_connections == 3  # kept for the next drain
        for to in players:
            assert await _subjects(stack, to) == [f"{to[:5]} {n}" for n in range(3)]
        _queue(stack, [(to, f"{to[:5]} again") for to in players])
        assert await stack.app.drain() == 4
        assert stack.smtp_proxy.accepted - before == 3  # the kept connections, used again
        assert {r.status for r in _rows(stack)} == {"sent"}
    finally:
        await stack.app.outgoing.close()  # type: ignore[attr-defined]
        await stack.close()


@pytest.mark.parametrize("connections, sent", [(1, 1), (2, 4)])
async def test_a_stalled_connection_holds_only_its_own_lane(embedded_mail: MailHarness, tmp_path: Path,
                                                            connections: int, sent: int) -> None:
    """The server takes the slow mail but its answer to the end of the data never comes (the
    proxy freezes that connection): that mail waits as 'may have been delivered' (retried
    later, the documented duplicate). On two connections the fast mails of the other lane go
    out while it stalls; on one, everything queued behind it waits for the next drain."""
    stack = await make_stack(embedded_mail, tmp_path, create=False)
    try:
        stack.app.outgoing = SmtpSender("127.0.0.1", stack.smtp_proxy.port, timeout=1, connections=connections)
        p0, p1, p2 = (embedded_mail.address(f"stall{p}") for p in "012")
        # lanes on two connections: [fast0 p0, fast2 p2, fast3 p0, fast4 p2] and [slow p1]
        _queue(stack, [(p0, "fast 0"), (p1, "slow"), (p2, "fast 2"), (p0, "fast 3"), (p2, "fast 4")])
        rule = stack.smtp_proxy.on_client(b"Subject: slow", "freeze")
        assert await stack.app.drain() == sent
        assert rule.fired == 1
        rows = {r.subject: r for r in _rows(stack)}
        assert rows["slow"].status == "queued" and "may have been delivered" in rows["slow"].last_error
        fast = [rows[s] for s in ("fast 0", "fast 2", "fast 3", "fast 4")]
        assert sum(r.status == "sent" for r in fast) == sent
        if connections == 1:  # behind the stall: not tried at all
            assert [(r.status, r.attempts) for r in fast[1:]] == [("queued", 0)] * 3
        assert await _subjects(stack, p0) == (["fast 0", "fast 3"] if connections == 2 else ["fast 0"])
    finally:
        await stack.app.outgoing.close()  # type: ignore[attr-defined]
        await stack.close()
