"""The checks that are always on: one From, the registered address, the seat's secret;
and the refusal notices: only to the seat's registered address, saying what and why,
never quoting the mail, at most one per seat and reason per interval."""

from __future__ import annotations

from pbem.service.texts import t
from tests.security.support import (
    note_of,
    orders_mail,
    recipients,
    send,
    sheets,
    with_headers,
)
from tests.service.helpers import BLUE, RED, last_id, outbox, text_of

MALLORY = "mallory@evil.example"


def test_a_forged_from_line_without_the_secret_is_refused_and_only_the_seat_hears(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    before = last_id(ctx)
    # Mallory writes From: red's address (nothing stops that) but cannot know red's secret.
    result = send(ctx, orders_mail(RED, game_id, "red", "k7m2-p9x4-zz3q", subject="totally red"))
    assert (result.status, result.note) == ("refused", "wrong-secret")
    notices = outbox(ctx, after=before)
    assert [recipients(n) for n in notices] == [[RED]] and notices[0].kind == "refusal"
    text = text_of(notices[0])
    assert "wrong or missing secret" in text and RED in text
    assert "totally red" not in text  # a forger's Subject never reaches the player (security review, finding 5)
    assert "k7m2-p9x4-zz3q" not in text and secrets["red"] not in text  # the block is never quoted
    assert sheets(ctx) == []


def test_a_display_name_that_looks_like_the_address_does_not_pass(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    before = last_id(ctx)
    raw = orders_mail(f'"{RED}" <{MALLORY}>', game_id, "red", secrets["red"])
    result = send(ctx, raw)
    assert (result.status, result.note) == ("refused", "wrong-sender")
    notices = outbox(ctx, after=before)
    assert [recipients(n) for n in notices] == [[RED]]  # never the forger
    assert MALLORY in text_of(notices[0]) and secrets["red"] not in text_of(notices[0])
    assert sheets(ctx) == []


def test_two_from_lines_are_refused_whichever_comes_first(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    for extra_on_top in (MALLORY, RED):
        raw = orders_mail(RED if extra_on_top == MALLORY else MALLORY, game_id, "red", secrets["red"])
        result = send(ctx, with_headers(raw, f"From: {extra_on_top}"))
        assert result.status == "refused" and result.note.startswith("several-from")
    assert sheets(ctx) == []
    notice = outbox(ctx, to=RED, kind="refusal")[0]
    assert "more than one From" in text_of(notice) and secrets["red"] not in text_of(notice)


def test_another_seats_secret_opens_nothing_and_is_not_echoed(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    before = last_id(ctx)
    # Red tries blue's secret for red's seat; blue tries its own secret on red's seat.
    assert send(ctx, orders_mail(RED, game_id, "red", secrets["blue"])).note == "wrong-secret"
    assert send(ctx, orders_mail(BLUE, game_id, "red", secrets["blue"])).note == "wrong-sender"
    notices = outbox(ctx, after=before)
    assert {tuple(recipients(n)) for n in notices} == {(RED,)}
    assert all(secrets["blue"] not in text_of(n) and secrets["red"] not in text_of(n) for n in notices)
    assert sheets(ctx) == []


def test_the_right_sender_and_secret_still_work(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    assert send(ctx, orders_mail(RED, game_id, "red", secrets["red"].upper().replace("-", " "))).status == "orders"
    assert send(ctx, orders_mail(f"Red Player <{RED.upper()}>", game_id, "red", secrets["red"])).status == "orders"


def test_refusal_notices_are_rate_limited_per_seat_and_reason(ctx, clock, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    before = last_id(ctx)
    flood = [send(ctx, orders_mail(RED, game_id, "red", f"bad{i}")) for i in range(5)]
    assert [r.status for r in flood] == ["refused"] * 5
    assert len(outbox(ctx, after=before)) == 1  # one notice for five forgeries
    # Every refusal is recorded in its inbound row, including that its notice was held back.
    assert note_of(ctx, flood[0]) == "wrong-secret"
    assert all(note_of(ctx, r).startswith("wrong-secret; notice held back") and "1h" in note_of(ctx, r)
               for r in flood[1:])
    # Another reason, and another seat, get their own notice.
    send(ctx, orders_mail(MALLORY, game_id, "red", secrets["red"]))
    send(ctx, orders_mail(BLUE, game_id, "blue", "bad"))
    send(ctx, orders_mail(MALLORY, game_id, "red", secrets["red"]))
    fresh = outbox(ctx, after=before)
    assert [(recipients(n)[0], n.kind) for n in fresh] == [(RED, "refusal"), (RED, "refusal"), (BLUE, "refusal")]
    assert "segreto sbagliato" in text_of(fresh[2])  # blue reads Italian
    # After the interval, the next refusal is notified again.
    clock.advance(minutes=59)
    send(ctx, orders_mail(RED, game_id, "red", "bad-again"))
    assert len(outbox(ctx, after=before)) == 3
    clock.advance(minutes=2)
    send(ctx, orders_mail(RED, game_id, "red", "bad-again"))
    assert len(outbox(ctx, after=before)) == 4


def test_refusal_notices_to_a_member_naming_no_seat_are_rate_limited_too(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    before = last_id(ctx)
    for _ in range(3):
        result = send(ctx, orders_mail(RED, game_id, "green", secrets["red"]))
        assert result.status == "refused" and result.note.startswith("unknown-seat")
    replies = outbox(ctx, after=before)
    assert [recipients(r) for r in replies] == [[RED]]
    assert "no seat green" in text_of(replies[0])


def test_every_reason_has_a_notice_in_english_and_italian() -> None:
    from pbem.service.identity import REASONS

    for why in REASONS:
        key = f"reply.{why}" if why in ("no-seat", "unknown-seat") else f"notice.refused.{why}"
        for lang in ("en", "it"):
            text = t(key, lang, game="d1", seat="red", sender="x@example.org", subject="s", seats="red, blue")
            assert "d1" in text and text != key
