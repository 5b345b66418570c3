"""Bounces of our own mail on a real database: matched to the outbox row, the player
marked, the game master told once a day per address, the bounce itself never answered.

Until the lead wires ``bounces.record`` into ``inbound._process``, ``deliver`` does what
the wiring will: classify the mail as a machine and a bounce, then record it in one
transaction.
"""

from __future__ import annotations

import dataclasses
import email
import email.policy
import json

from sqlmodel import select

from pbem.db.models import OutboxMail, Player
from pbem.mail.bounce import is_bounce
from pbem.mail.classify import machine_reason
from pbem.mail.parse import read_mail
from pbem.service import bounces, inbound, mailer
from pbem.service.context import Context
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import order_block, player_mail

GM = "gm@example.org"


def with_game_master(ctx: Context, address: str = GM) -> None:
    ctx.config = dataclasses.replace(ctx.config, server=dataclasses.replace(ctx.config.server, game_master=address))


def headers_of(row: OutboxMail) -> str:
    return row.raw.split(b"\r\n\r\n", 1)[0].decode("ascii").replace("\r\n", "\n") + "\n"


def dsn(row: OutboxMail, *, status: str = "5.1.1", action: str = "failed", n: int = 1,
        diagnostic: str = "smtp; 550 5.1.1 <{rcpt}>: Recipient address rejected: User unknown") -> bytes:
    """A Postfix-style RFC 3464 report about ``row``, with its headers attached."""
    rcpt = json.loads(row.recipients_json)[0]
    text = f"""\
Return-Path: <>
From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
To: pbem-bounces@localhost
Subject: Undelivered Mail Returned to Sender
Date: Mon, 23 Nov 2026 10:00:00 +0100
Message-ID: <bounce-{n}-{row.id}@mx.example.org>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="DSN{n}"

--DSN{n}
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.org. Your message could not be delivered.

<{rcpt}>: host mx.example.org said: 550 {status} User unknown

--DSN{n}
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org

Final-Recipient: rfc822; {rcpt}
Original-Recipient: rfc822;{rcpt}
Action: {action}
Status: {status}
Diagnostic-Code: {diagnostic.format(rcpt=rcpt)}

--DSN{n}
Content-Type: text/rfc822-headers

{headers_of(row)}
--DSN{n}--
"""
    return text.replace("\n", "\r\n").encode()


def qmail_bounce(row: OutboxMail) -> bytes:
    """A text-only bounce: no report, our mail copied below the text."""
    rcpt = json.loads(row.recipients_json)[0]
    text = f"""\
Return-Path: <>
From: MAILER-DAEMON@mail.example.net
To: pbem-bounces@localhost
Subject: failure notice
Date: 23 Nov 2026 09:01:12 -0000

Hi. This is the qmail-send program at mail.example.net.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<{rcpt}>:
Sorry, no mailbox here by that name. (#5.1.1)

--- Below this line is a copy of the message.

{headers_of(row)}
hello
"""
    return text.replace("\n", "\r\n").encode()


def deliver(ctx: Context, raw: bytes) -> str:
    """What ``inbound._process`` will do with a bounce once wired."""
    mail = read_mail(raw)
    assert machine_reason(mail, raw=raw) is not None and is_bounce(mail)
    with ctx.session() as s:
        note = bounces.record(s, ctx, mail, raw)
        s.commit()
    return note


def row(ctx: Context, row_id: int | None) -> OutboxMail:
    with ctx.session() as s:
        found = s.get(OutboxMail, row_id)
        assert found is not None
        return found


def player(ctx: Context, address: str) -> Player:
    with ctx.session() as s:
        found = s.exec(select(Player).where(Player.address == address)).first()
        assert found is not None
        return found


def play_turn(ctx: Context, game_id: str, secrets: dict[str, str]) -> None:
    for seat, addr in (("red", RED), ("blue", BLUE)):
        handled = inbound.handle(ctx, player_mail(addr, order_block(game_id, seat, secrets[seat], ["PLAY 2"])))
        assert handled.status == "orders"


def test_a_bounce_of_our_report_is_matched_and_the_player_marked(ctx, duel, clock):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    with_game_master(ctx)
    play_turn(ctx, game_id, secrets)
    (report,) = outbox(ctx, to=RED, kind="report")
    clock.advance(minutes=5)
    note = deliver(ctx, dsn(report))
    assert note.startswith(f"bounce of outbox {report.id} (report to {RED}): failed 5.1.1")
    assert "player marked as bouncing" in note and "game master told" in note
    bounced = row(ctx, report.id)
    assert bounced.bounced_at == clock.current
    assert bounced.bounce_status == "failed 5.1.1"
    assert "Recipient address rejected" in bounced.bounce_diagnostic
    assert player(ctx, RED).bouncing_since == clock.current
    assert player(ctx, BLUE).bouncing_since is None
    (notice,) = outbox(ctx, to=GM)
    assert notice.kind == "notice" and notice.game_id == game_id
    assert RED in notice.subject
    body = text_of(notice)
    assert RED in body and f"red @ {game_id}" in body and "failed 5.1.1" in body and report.subject in body
    # never answered: nothing goes to the mailer daemon
    assert outbox(ctx, to="mailer-daemon@mx.example.org") == []


def test_the_game_master_gets_one_notice_not_one_per_bounce(ctx, duel, clock):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    with_game_master(ctx)
    play_turn(ctx, game_id, secrets)
    red_rows = outbox(ctx, to=RED)  # the welcome, the answer to the orders, the report
    assert len(red_rows) >= 3
    for n, r in enumerate(red_rows):
        deliver(ctx, dsn(r, n=n))
        deliver(ctx, dsn(r, n=n + 100))  # the same bounce twice (two MTAs, or a retry)
    assert len(outbox(ctx, to=GM)) == 1
    assert all(row(ctx, r.id).bounce_status == "failed 5.1.1" for r in red_rows)
    # another address is another notice
    deliver(ctx, dsn(outbox(ctx, to=BLUE)[0]))
    assert len(outbox(ctx, to=GM)) == 2
    # the next day, a new bounce tells the game master again
    clock.advance(hours=23)
    assert "already told today" in deliver(ctx, dsn(red_rows[0], n=500))
    clock.advance(hours=1, seconds=1)
    assert "game master told" in deliver(ctx, dsn(red_rows[0], n=501))
    assert len(outbox(ctx, to=GM)) == 3


def test_a_delay_is_recorded_but_marks_nobody(ctx, duel):  # type: ignore[no-untyped-def]
    with_game_master(ctx)
    (welcome,) = outbox(ctx, to=RED, kind="welcome")
    note = deliver(ctx, dsn(welcome, status="4.4.1", action="delayed",
                            diagnostic="X-Postfix; connect to mx.example.org[192.0.2.1]:25: Connection timed out"))
    assert "delayed 4.4.1" in note and "transient" in note
    assert row(ctx, welcome.id).bounce_status == "delayed 4.4.1"
    assert player(ctx, RED).bouncing_since is None
    assert outbox(ctx, to=GM) == []
    # the final failure replaces the delay; a late delay does not replace the failure
    deliver(ctx, dsn(welcome, status="4.4.7", action="failed", n=2, diagnostic="X-Postfix; message expired"))
    deliver(ctx, dsn(welcome, status="4.4.1", action="delayed", n=3))
    assert row(ctx, welcome.id).bounce_status == "failed 4.4.7"
    assert player(ctx, RED).bouncing_since is not None


def test_a_text_bounce_with_our_mail_copied_is_matched(ctx, duel):  # type: ignore[no-untyped-def]
    (welcome,) = outbox(ctx, to=BLUE, kind="welcome")
    note = deliver(ctx, qmail_bounce(welcome))
    assert note.startswith(f"bounce of outbox {welcome.id} (welcome to {BLUE}): failed 5.1.1")
    assert player(ctx, BLUE).bouncing_since is not None
    assert outbox(ctx, kind="notice") == []  # no game master configured: nobody to tell


def test_unmatched_and_forged_bounces_change_nothing(ctx, duel):  # type: ignore[no-untyped-def]
    with_game_master(ctx)
    (welcome,) = outbox(ctx, to=RED, kind="welcome")
    before = len(outbox(ctx))
    forged = dsn(welcome).replace(welcome.message_id.encode(), b"<made-up-1@localhost>")
    assert deliver(ctx, forged).startswith("bounce unmatched: red@example.org failed 5.1.1")
    # a text bounce that names the player but none of our mails
    text_only = (b"Return-Path: <>\r\nFrom: MAILER-DAEMON@evil.example\r\nSubject: Undeliverable\r\n\r\n"
                 b"Delivery to the following recipient failed permanently: red@example.org\r\n")
    assert deliver(ctx, text_only).startswith("bounce unmatched")
    assert player(ctx, RED).bouncing_since is None
    assert row(ctx, welcome.id).bounced_at is None
    assert len(outbox(ctx)) == before


def test_a_bounce_through_the_inbox_is_never_answered(ctx, duel):  # type: ignore[no-untyped-def]
    (welcome,) = outbox(ctx, to=RED, kind="welcome")
    before = len(outbox(ctx))
    handled = inbound.handle(ctx, dsn(welcome))
    assert handled.status == "ignored"
    assert len(outbox(ctx)) == before  # no game master: nothing is sent at all


def test_a_bounce_of_a_notice_to_the_game_master_starts_no_loop(ctx, duel):  # type: ignore[no-untyped-def]
    with_game_master(ctx)
    deliver(ctx, dsn(outbox(ctx, to=RED, kind="welcome")[0]))
    (notice,) = outbox(ctx, to=GM)
    note = deliver(ctx, dsn(notice, n=2))
    assert "not a player's address" in note
    assert len(outbox(ctx, to=GM)) == 1


def test_the_game_master_is_not_told_about_its_own_address(ctx, duel):  # type: ignore[no-untyped-def]
    with_game_master(ctx, RED)  # the game master plays too
    deliver(ctx, dsn(outbox(ctx, to=RED, kind="welcome")[0]))
    assert player(ctx, RED).bouncing_since is not None
    assert outbox(ctx, kind="notice") == []


def test_clear_bouncing_keeps_the_once_a_day_notice(ctx, duel, clock):  # type: ignore[no-untyped-def]
    with_game_master(ctx)
    welcome = outbox(ctx, to=RED, kind="welcome")[0]
    deliver(ctx, dsn(welcome))
    with ctx.session() as s:
        assert bounces.clear_bouncing(s, "Red@Example.org")
        assert not bounces.clear_bouncing(s, BLUE)
        s.commit()
    assert player(ctx, RED).bouncing_since is None
    clock.advance(hours=2)
    assert "player marked as bouncing" in deliver(ctx, dsn(welcome, n=2))
    assert player(ctx, RED).bouncing_since == clock.current
    assert len(outbox(ctx, to=GM)) == 1


def test_the_notice_is_in_the_servers_language(ctx, duel):  # type: ignore[no-untyped-def]
    with_game_master(ctx)
    ctx.config = dataclasses.replace(ctx.config, server=dataclasses.replace(ctx.config.server, language="it"))
    deliver(ctx, dsn(outbox(ctx, to=BLUE, kind="welcome")[0]))
    (notice,) = outbox(ctx, to=GM)
    assert "torna indietro" in notice.subject
    assert "non può essere recapitata" in text_of(notice)
    msg = email.message_from_bytes(notice.raw, policy=email.policy.default)
    assert msg["Auto-Submitted"] == "auto-generated" and msg["X-PBEM-Game"] is not None


def test_a_mail_queued_by_hand_is_matched_by_its_message_id(ctx):  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        message_id = mailer.queue(s, ctx, to="someone@example.net", subject="[pbem] — help", text="x",
                                  kind="reply", game=None)
        s.commit()
    (queued,) = outbox(ctx, to="someone@example.net")
    assert queued.message_id == message_id
    assert "not a player's address" in deliver(ctx, dsn(queued))
    assert row(ctx, queued.id).bounce_status == "failed 5.1.1"
