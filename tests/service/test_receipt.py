"""A mail is on record before it is read: after the daemon died on it, it gets one more
try; after two deaths, or over its budget, it is an error and never read again."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from pbem.db.models import InboundMail, SheetRow
from pbem.service import inbound, limits, receipt
from tests.service.helpers import RED, outbox, text_of
from tests.support.players import order_block, player_mail


def rows(ctx) -> list[InboundMail]:  # type: ignore[no-untyped-def]
    """In the order received (PostgreSQL returns an updated row where it now lies, not by id)."""
    with ctx.session() as s:
        return list(s.exec(select(InboundMail).order_by(InboundMail.id)))


def test_a_mail_interrupted_once_is_tried_again_and_handled_once(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"]))
    first = receipt.receive(ctx, raw)
    assert first.handled is None and [r.status for r in rows(ctx)] == ["processing"]
    # the daemon died here; after the restart the same bytes come back from the mail server
    again = receipt.receive(ctx, raw)
    assert again.row_id == first.row_id and [r.status for r in rows(ctx)] == ["retrying"]
    assert inbound.handle(ctx, raw, again.row_id).status == "orders"
    assert [(r.id, r.status) for r in rows(ctx)] == [(first.row_id, "orders")]
    # committed, but not flagged \Seen before a death: it comes back and is a duplicate
    third = receipt.receive(ctx, raw)
    assert third.handled is None
    assert inbound.handle(ctx, raw, third.row_id).status == "duplicate"
    assert [r.status for r in rows(ctx)] == ["orders"]  # the receipt of the copy is gone


def test_a_mail_the_daemon_died_on_twice_is_never_read_again(ctx):  # type: ignore[no-untyped-def]
    raw = player_mail("anna@example.org", "whatever kills the reader")
    receipt.receive(ctx, raw)
    receipt.receive(ctx, raw)
    gave_up = receipt.receive(ctx, raw)
    assert gave_up.handled is not None and gave_up.handled.status == "error"
    assert [(r.status, r.note) for r in rows(ctx)] == [
        ("error", "the daemon stopped twice while processing it: not read again")]
    assert receipt.receive(ctx, raw).handled == receipt.Handled("duplicate", "already processed", None,
                                                                gave_up.handled.inbound_id)


def test_over_budget_is_an_error_told_to_a_registered_sender_only(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    mine = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"]))
    theirs = player_mail("eve@example.net", "HELP")
    for raw in (mine, theirs):
        got = receipt.receive(ctx, raw)
        assert got.row_id is not None
        result = receipt.over_budget(ctx, got.row_id, raw, "reading it took more than 10 s")
        assert result.status == "error"
        assert receipt.receive(ctx, raw).handled.status == "duplicate"  # type: ignore[union-attr]
    notes = [r.note for r in rows(ctx)]
    assert notes == ["over budget: reading it took more than 10 s; red@example.org told",
                     "over budget: reading it took more than 10 s; eve@example.net is not a registered player: "
                     "not answered"]
    told = outbox(ctx, to=RED, kind=limits.STRANGER)
    assert len(told) == 1 and "reading it took more than 10 s" in text_of(told[0])
    assert outbox(ctx, to="eve@example.net") == []


def test_the_sender_of_an_unread_mail_is_read_from_its_head_alone() -> None:
    assert receipt.head_sender(b"Subject: x\r\nFrom: Anna <Anna@Example.org>\r\n\r\nbody") == "anna@example.org"
    assert receipt.head_sender(b"From: Anna\r\n <anna@example.org>\r\nTo: x\r\n\r\n") == "anna@example.org"
    assert receipt.head_sender(b"From: a@example.org, b@example.org\r\n\r\n") is None
    assert receipt.head_sender(b"From: a@example.org\r\nFrom: b@example.org\r\n\r\n") is None
    assert receipt.head_sender(b"Subject: x\r\n\r\nFrom: a@example.org\r\n") is None  # in the body: no header
    assert receipt.head_sender(b"From: " + b"a" * 2_000_000 + b"\r\n\r\n") is None


def _sheets(ctx) -> list[SheetRow]:  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        return list(s.exec(select(SheetRow).order_by(SheetRow.id)))


def test_a_copy_found_when_its_row_is_filled_in_keeps_none_of_its_work(ctx, duel):  # type: ignore[no-untyped-def]
    """Handed over with its row's time (as the daemon does), a mail's row is filled in with its
    outcome after the work, by one UPDATE: a copy of a mail on record (the same Message-ID,
    other bytes: delivered twice) is found there by the key's unique index, and everything it
    did is rolled back: one sheet, one reply, the copy's receipt dropped."""
    game_id, secrets = duel
    body = order_block(game_id, "red", secrets["red"], ["PLAY 3"])
    first = player_mail(RED, body, message_id="<twice@example.org>")
    copy = player_mail(RED, body, message_id="<twice@example.org>", headers=[("X-Delivered", "again")])
    got = [receipt.receive(ctx, raw) for raw in (first, copy)]
    assert all(g.received_at is not None for g in got)
    assert inbound.handle(ctx, first, got[0].row_id, got[0].received_at).status == "orders"
    assert inbound.handle(ctx, copy, got[1].row_id, got[1].received_at).status == "duplicate"
    assert [r.status for r in rows(ctx)] == ["orders"]
    assert [(s.seat, s.superseded) for s in _sheets(ctx)] == [("red", False)]
    assert len(outbox(ctx, to=RED, kind="reply")) == 1


def test_a_mail_handed_over_later_stands_at_its_receipt_not_its_handling(ctx, duel, clock):  # type: ignore[no-untyped-def]
    """The row's time comes from the caller (`receipt.Receipt`), not from the clock at handling:
    a mail dated a minute before its receipt and handled an hour later stands at its Date
    (`inbound.ORDER_WINDOW`), as it would have been handled at once."""
    game_id, secrets = duel
    received = clock()
    raw = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"]),
                      date=received - timedelta(minutes=1))
    got = receipt.receive(ctx, raw)
    clock.advance(hours=1)
    assert inbound.handle(ctx, raw, got.row_id, got.received_at).status == "orders"
    assert [s.mail_date for s in _sheets(ctx)] == [received - timedelta(minutes=1)]
    assert [(r.received_at, r.sender) for r in rows(ctx)] == [(received, RED)]


def test_a_mail_whose_receipt_row_is_gone_is_handled_without_one(ctx, duel):  # type: ignore[no-untyped-def]
    """The row named by the caller was dropped meanwhile: nothing is filled in at the end, so
    the work is redone on a row of the mail's own, never lost."""
    game_id, secrets = duel
    raw = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"]))
    got = receipt.receive(ctx, raw)
    with ctx.session() as s:
        s.delete(s.get(InboundMail, got.row_id))
        s.commit()
    handled = inbound.handle(ctx, raw, got.row_id, got.received_at)
    assert handled.status == "orders"  # (SQLite may give the new row the id freed)
    assert [(r.id, r.status) for r in rows(ctx)] == [(handled.inbound_id, "orders")]
    assert [s.inbound_id for s in _sheets(ctx)] == [handled.inbound_id]
    assert len(outbox(ctx, to=RED, kind="reply")) == 1
