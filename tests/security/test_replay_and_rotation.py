"""Replayed mails change nothing they should not; SECRET NEW retires the old secret and
mails the new one only to the seat's registered address."""

from __future__ import annotations

from sqlmodel import col, select

from pbem.db.models import Holder, InboundMail, PhaseRow, RollRow
from tests.security.support import orders_mail, recipients, send, sheets
from tests.service.helpers import BLUE, RED, last_id, outbox, text_of
from tests.support.players import parse, secret_from_welcome


def _new_id(raw: bytes, old: str, new: str) -> bytes:
    assert old.encode() in raw
    return raw.replace(old.encode(), new.encode())


def _resolved(ctx, game_id):  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        phases = s.exec(select(PhaseRow).where(PhaseRow.game_id == game_id).order_by(col(PhaseRow.seq))).all()
        rolls = s.exec(select(RollRow).where(RollRow.game_id == game_id)).all()
    return [p.turn for p in phases if p.resolved_at is not None], len(rolls)


def test_the_same_message_again_is_a_duplicate(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = orders_mail(RED, game_id, "red", secrets["red"], message_id="<once@example.org>")
    assert send(ctx, raw).status == "orders"
    before = last_id(ctx)
    # Delivered again, or re-sent by an attacker who captured it: the dedupe key is taken.
    assert send(ctx, raw).status == "duplicate"
    assert send(ctx, raw.replace(b"<once@example.org>", b"<once@EXAMPLE.ORG>")).status == "duplicate"
    assert outbox(ctx, after=before) == []
    with ctx.session() as s:
        assert len(s.exec(select(InboundMail)).all()) == 1


def test_the_same_orders_under_a_new_message_id_are_harmless(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3"], turn=1, message_id="<first@example.org>")
    first = send(ctx, raw)
    again = send(ctx, _new_id(raw, "<first@example.org>", "<replayed@example.org>"))
    assert (first.status, again.status) == ("orders", "orders")
    filed = sheets(ctx)
    assert [(s.canonical, s.superseded) for s in filed] == [("PLAY 3", True), ("PLAY 3", False)]
    assert filed[0].receipt == filed[1].receipt  # the very same orders on file
    assert _resolved(ctx, game_id) == ([], 0)  # red alone resolves nothing
    assert send(ctx, orders_mail(BLUE, game_id, "blue", secrets["blue"], ["PLAY 1"])).status == "orders"
    resolved = _resolved(ctx, game_id)
    assert resolved[0] == [1]
    # Replayed once more after the turn: its TURN line names a turn that is over.
    late = send(ctx, _new_id(raw, "<first@example.org>", "<late@example.org>"))
    assert late.status == "refused" and _resolved(ctx, game_id) == resolved
    assert len([s for s in sheets(ctx) if s.phase_seq > 0]) == 0


def test_an_old_mail_replayed_after_its_turn_is_not_applied_to_the_next(ctx, clock, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3"], message_id="<t1@example.org>")
    assert send(ctx, raw).status == "orders"
    clock.advance(hours=2)
    assert send(ctx, orders_mail(BLUE, game_id, "blue", secrets["blue"], ["PLAY 1"])).status == "orders"
    resolved = _resolved(ctx, game_id)
    clock.advance(hours=2)
    replay = send(ctx, _new_id(raw, "<t1@example.org>", "<t1-again@example.org>"))
    assert replay.status == "refused" and "before turn 2 began" in replay.note
    assert _resolved(ctx, game_id) == resolved and [s for s in sheets(ctx) if s.phase_seq > 0] == []


def test_secret_new_retires_the_old_secret_and_tells_only_the_registered_address(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    old = secrets["red"]
    # A forger who knows the old secret cannot rotate it: the From must be the seat's address.
    forged = send(ctx, orders_mail("mallory@evil.example", game_id, "red", old, ["SECRET NEW"]))
    assert (forged.status, forged.note) == ("refused", "wrong-sender")
    with ctx.session() as s:
        hash_before = s.exec(select(Holder).where(Holder.address == RED)).one().secret_hash
    before = last_id(ctx)
    assert send(ctx, orders_mail(RED, game_id, "red", old, ["SECRET NEW"])).status == "command"
    with ctx.session() as s:
        assert s.exec(select(Holder).where(Holder.address == RED)).one().secret_hash != hash_before
    mails = outbox(ctx, after=before)
    assert [recipients(m) for m in mails] == [[RED]]
    new = secret_from_welcome(text_of(mails[0]))
    assert new != old and parse(mails[0].raw)["To"] == RED
    # The new secret appears in no other mail, to anyone.
    assert [m.id for m in outbox(ctx) if new in text_of(m)] == [mails[0].id]
    # The old secret stops working; the new one works.
    stale = send(ctx, orders_mail(RED, game_id, "red", old, ["PLAY 2"]))
    assert (stale.status, stale.note) == ("refused", "wrong-secret")
    notice = outbox(ctx, kind="refusal", to=RED)[-1]
    assert old not in text_of(notice) and new not in text_of(notice)
    assert send(ctx, orders_mail(RED, game_id, "red", new, ["PLAY 2"])).status == "orders"
