"""A refusal notice about a mail with a wrong secret never threads to that mail (issue 23): the
mail refused may be a stranger's forgery, which the seat's player never saw, so the notice
carries no In-Reply-To or References to it; it joins the seat's own thread, rooted at the
player's welcome (issue 19.2). An answer to a player's own good mail still threads to it."""

from __future__ import annotations

from pathlib import Path

from tests.faults.stack import DEPLOY, SEATS, order_mail, parse
from tests.faults.stack import make_stack
from tests.mail.servers import MailHarness


async def test_a_refusal_notice_does_not_thread_to_the_refused_mail(embedded_mail: MailHarness,
                                                                   tmp_path: Path) -> None:
    stack = await make_stack(embedded_mail, tmp_path)
    try:
        forged, raw = order_mail(stack.game_id, "north", "k7m2-p9x4-zz3q", DEPLOY["north"], date=stack.clock(),
                                 sender="mallory@localhost")
        raw = raw.replace(b"From: mallory@localhost", f"From: {SEATS['north']}".encode())
        await stack.deliver("north", raw, expect="refused", mid=forged)
        good, _ = await stack.send("south", DEPLOY["south"])
        await stack.settle(inbound=2)
        notices = [r for r in stack.outbox() if r.kind == "refusal"]
        assert len(notices) == 1 and SEATS["north"] in notices[0].recipients_json
        notice = parse(notices[0].raw)
        assert forged not in str(notice["In-Reply-To"]) and forged not in str(notice["References"])
        welcome = next(parse(r.raw) for r in stack.outbox() if r.kind == "welcome"
                       and SEATS["north"] in r.recipients_json)
        assert notice["In-Reply-To"] == welcome["Message-ID"]  # the seat's thread
        receipts = [parse(r.raw) for r in stack.outbox() if r.kind == "reply"]
        assert [m["In-Reply-To"] for m in receipts] == [good]
    finally:
        await stack.close()
