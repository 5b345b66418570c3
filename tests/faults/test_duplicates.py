"""The same mail twice, the same orders twice, two order mails for one seat: what the
server does today, held to what the README and docs/mail.md promise.

* the same message delivered twice (one Message-ID, two copies in the mailbox): the second
  copy finds its dedupe key taken, changes nothing and gets no answer;
* the same orders re-sent (a new Message-ID): a new mail, so it is filed again and replaces
  the sheet on file (same orders, same receipt), and the answer says it replaces it;
* two different order mails for one seat: the one written later stays on file and the
  answer names the receipt it replaced; when the earlier-written one arrives last (they
  overtook each other) it is refused and the answer names the receipt still on file.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from pbem.db.models import SheetRow
from pbem.service.turns import receipt
from tests.faults.stack import (DEPLOY, DEPLOY_NORTH_2, SEATS, SERVER, Stack, body, check_exactly_once, order_mail,
                                parse)


def _answer(stack: Stack, mid: str) -> str:
    rows = [r for r in stack.outbox() if r.kind == "reply" and parse(r.raw)["In-Reply-To"] == mid]
    assert len(rows) == 1, f"{mid}: {len(rows)} answers"
    return body(rows[0].raw)


def _receipt(text: str) -> str:
    return text.split("Receipt: ")[1].split()[0]


async def test_the_same_message_delivered_twice_is_applied_once(stack: Stack) -> None:
    """Two copies of one mail arrive together, and a third copy after the next cycle."""
    mid, raw = order_mail(stack.game_id, "north", stack.secrets["north"], DEPLOY["north"], date=stack.clock())
    await stack.deliver("north", raw, expect="orders", mid=mid)
    await stack.deliver("north", raw, expect="orders", mid=mid)
    await stack.settle(inbound=1)
    await stack.deliver("north", raw, expect="orders", mid=mid)
    await stack.run_until(lambda: sum(s.fetched for s in stack.summaries) >= 3)
    assert sum(s.handled.get("duplicate", 0) for s in stack.summaries) == 2
    assert len(stack.on_file(0)) == 1
    _answer(stack, mid)  # exactly one answer
    await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=2)
    verdict = await check_exactly_once(stack)
    assert verdict.rolls == 1


async def test_the_same_orders_sent_twice_with_new_message_ids(stack: Stack) -> None:
    first, _ = await stack.send("north", DEPLOY["north"])
    await stack.settle(inbound=1)
    stack.clock.advance(minutes=1)
    second, _ = await stack.send("north", DEPLOY["north"])
    await stack.settle(inbound=2)
    a, b = _answer(stack, first), _answer(stack, second)
    assert _receipt(a) == _receipt(b)  # the same orders: the same receipt
    assert "replace" not in a and f"They replace your earlier orders (receipt {_receipt(a)})" in b
    on_file = stack.on_file(0)["north"]
    assert on_file.receipt == _receipt(b) and on_file.inbound_id == stack.inbound_by(second).id
    await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=3)
    verdict = await check_exactly_once(stack)  # two sheets filed, one on file, one die
    assert verdict.rolls == 1


async def test_two_order_mails_for_one_seat_the_later_written_stays(stack: Stack) -> None:
    """In order: the second replaces the first. Out of order (the later-written one arrives
    first): the earlier-written one is refused and the answer names the receipt on file."""
    # The sender's Date counts only within the two minutes before the server's receipt
    # (inbound.ORDER_WINDOW); the manual clock stands still, so every mail is received at t0.
    t0 = stack.clock()
    first, _ = await stack.send("north", DEPLOY["north"], date=t0 - timedelta(minutes=2))
    await stack.settle(inbound=1)
    second, _ = await stack.send("north", DEPLOY_NORTH_2, date=t0)
    await stack.settle(inbound=2)
    a, b = _answer(stack, first), _answer(stack, second)
    assert _receipt(a) != _receipt(b)
    assert f"They replace your earlier orders (receipt {_receipt(a)})" in b
    assert stack.on_file(0)["north"].receipt == _receipt(b)
    # Written between the two, delivered last: older than what is on file, so refused.
    late, _ = await stack.send("north", DEPLOY["north"], date=t0 - timedelta(minutes=1), expect="refused")
    await stack.settle(inbound=3)
    c = _answer(stack, late)
    assert "older than the orders on file" in c and _receipt(b) in c
    assert stack.on_file(0)["north"].receipt == _receipt(b)
    await stack.send("south", DEPLOY["south"])
    await stack.settle(inbound=4)
    verdict = await check_exactly_once(stack)
    assert verdict.rolls == 1
    phase = stack.phase(0)
    canonical = stack.on_file(0)["north"].canonical
    assert _receipt(b) == receipt(stack.game_id, phase.seq, "north", canonical)
    assert "A12" in canonical
    assert SEATS["north"] in verdict.delivered


async def test_the_same_message_without_message_id_delivered_twice_is_applied_once(stack: Stack) -> None:
    """A mail without a Message-ID (the docs: the dedupe key is then the SHA-256 of the mail)
    delivered twice, as an upstream MTA does after a lost 250: each copy carries its own
    trace headers (Received ...). docs/mail.md: the same message delivered twice finds its
    dedupe key taken and changes nothing."""
    _mid, raw = order_mail(stack.game_id, "north", stack.secrets["north"], DEPLOY["north"], date=stack.clock())
    raw = b"\r\n".join(line for line in raw.split(b"\r\n") if not line.lower().startswith(b"message-id:"))
    for hop in ("a1", "b2"):
        trace = (f"Received: from mx.players.example by relay.example with ESMTP id {hop}; "
                 f"{stack.clock().strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\n").encode()
        await stack.mail.send(SEATS["north"], [SERVER], trace + raw)
    await stack.run_until(lambda: sum(s.fetched for s in stack.summaries) >= 2 and not stack.due_rows())
    handled: dict[str, int] = {}
    for summary in stack.summaries:
        for status, n in summary.handled.items():
            handled[status] = handled.get(status, 0) + n
    answers = [r for r in stack.outbox() if r.kind == "reply"]
    with stack.ctx.session() as s:
        sheets = list(s.exec(select(SheetRow).where(SheetRow.game_id == stack.game_id)))
    assert handled == {"orders": 1, "duplicate": 1}
    assert len(answers) == 1 and len(sheets) == 1
