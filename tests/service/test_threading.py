"""One thread per seat and player (issue 19.2), through real SMTP and IMAP (the embedded
pymap + aiosmtpd on loopback, and Dovecot where installed): the welcome is the root; the
answer to a mail carries the chain (the root, the player's References, the mail), a
report and a reminder name the root; the other seat's mail has a root of its own."""

from __future__ import annotations

import json
from typing import Any

from collections.abc import AsyncIterator
from datetime import datetime, timezone

import pytest
from sqlmodel import select

from pbem.app import App
from pbem.config import from_mapping
from pbem.core import registry
from pbem.db.models import Game, Holder, PhaseRow
from pbem.db.session import make_engine
from pbem.mail.parse import IncomingMail
from pbem.service import games, threads
from pbem.service.context import Context, ManualClock
from tests.mail.fixtures import mail_server  # noqa: F401
from tests.service.conftest import CountingEntropy
from tests.mail.servers import MailHarness
from tests.security.support import orders_mail
from tests.support import players
from tests.support.players import player_mail, secret_from_welcome, order_block

registry.register("duel", "tests.support.duel:RULES")

RED, BLUE = "red@localhost", "blue@localhost"


@pytest.fixture
async def app(mail_server: MailHarness, tmp_path) -> AsyncIterator[App]:  # noqa: F811  # type: ignore[no-untyped-def]
    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp_path}/pbem.sqlite"}, "render": {"width": 300},
                        "games": {"deadline": "48h", "reminders": ["24h"]}}, "threads")
    clock = ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    # Fixed entropy: the turn's dice are the same on every run (random dice tied now and then,
    # and the tiebreak that follows has a 12-hour deadline, too short for a 24-hour reminder).
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock, entropy=CountingEntropy())
    players.clock = clock
    inbox = mail_server.inbox(cfg.server.address)
    await inbox.connect()
    try:
        yield App(ctx, inbox, mail_server.sender())
    finally:
        players.clock = None
        await inbox.close()
        ctx.engine.dispose()


async def _settle(app: App, count: int) -> None:
    handled = 0
    for _ in range(40):
        handled += sum((await app.cycle()).handled.values())
        if handled >= count:
            for _ in range(3):
                await app.cycle()  # the report stage, then the outbox
            return
        await app.inbox.wait(0.1)
    raise AssertionError(f"only {handled} mails handled")


def _refs(mail: IncomingMail) -> list[str]:
    return list(mail.references)


def _root(app: App, game_id: str, seat: str, address: str) -> str:
    with app.ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None
        holder = threads.holder_for(s, game, address)
        assert isinstance(holder, Holder) and holder.id is not None
        return threads.root_id(game, seat, holder.id, app.ctx.config.server.domain)


async def test_every_mail_of_a_seat_is_one_thread_rooted_at_its_welcome(app: App, mail_server: MailHarness) -> None:  # noqa: F811
    game_id = games.create(app.ctx, "duel", "Threads", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    await app.drain()
    (welcome,) = await mail_server.wait_for(RED)
    (blue_welcome,) = await mail_server.wait_for(BLUE)
    root, blue_root = _root(app, game_id, "red", RED), _root(app, game_id, "blue", BLUE)
    assert root != blue_root
    assert welcome.message_id == root and welcome.in_reply_to is None and not welcome.references
    assert blue_welcome.message_id == blue_root
    secret = secret_from_welcome(welcome.text)

    # The player answers the welcome with the reply button: the answer keeps the whole chain.
    mine = "<red-1@player.example>"
    raw = player_mail(RED, order_block(game_id, "red", secret, ["PLAY 3"]), message_id=mine,
                      headers=[("In-Reply-To", root), ("References", root)], subject=f"Re: {welcome.subject}")
    await mail_server.send(RED, ["pbem@localhost"], raw)
    await _settle(app, 1)
    (accepted,) = await mail_server.wait_for(RED)
    assert "accepted" in accepted.subject
    assert accepted.in_reply_to == mine and _refs(accepted) == [root, mine]

    # A fresh mail (no References at all) is still answered inside the seat's thread.
    fresh = "<red-2@player.example>"
    await mail_server.send(RED, ["pbem@localhost"], orders_mail(RED, game_id, "red", secret, ["STATUS"],
                                                                message_id=fresh))
    await _settle(app, 1)
    (status,) = await mail_server.wait_for(RED)
    assert status.in_reply_to == fresh and _refs(status) == [root, fresh]

    # A reply to that answer: root first, then the chain as the player's client wrote it.
    third = "<red-3@player.example>"
    chain = f"{root} {fresh} {status.message_id}"
    await mail_server.send(RED, ["pbem@localhost"], player_mail(
        RED, order_block(game_id, "red", secret, ["MAP"]), message_id=third,
        headers=[("In-Reply-To", status.message_id or ""), ("References", chain)]))
    await _settle(app, 1)
    (shown,) = await mail_server.wait_for(RED)
    assert _refs(shown) == [root, fresh, status.message_id, third] and shown.in_reply_to == third

    # Blue's orders resolve the turn: each report names its own seat's root, and nothing else.
    blue_secret = secret_from_welcome(blue_welcome.text)
    await mail_server.send(BLUE, ["pbem@localhost"], orders_mail(BLUE, game_id, "blue", blue_secret, ["PLAY 1"]))
    await _settle(app, 1)
    red_report = [m for m in await mail_server.wait_for(RED) if "report" in m.subject]
    blue_mail = await mail_server.wait_for(BLUE)
    blue_report = [m for m in blue_mail if "report" in m.subject]
    assert len(red_report) == len(blue_report) == 1
    assert red_report[0].in_reply_to == root and _refs(red_report[0]) == [root]
    assert blue_report[0].in_reply_to == blue_root and _refs(blue_report[0]) == [blue_root]
    assert all(m.in_reply_to is not None and _refs(m)[0] == blue_root for m in blue_mail)

    # The reminder for the next turn joins the thread too: the clock goes to an hour before the
    # turn's deadline, and the reminder is looked for in the thread of a seat it awaits.
    with app.ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None
        phase = s.exec(select(PhaseRow).where(PhaseRow.game_id == game_id,
                                              PhaseRow.seq == game.phase_seq)).one()
        awaited, deadline = json.loads(phase.awaiting_json), phase.deadline
    assert deadline is not None and awaited
    address, seat_root = (RED, root) if "red" in awaited else (BLUE, blue_root)
    app.ctx.clock.advance(seconds=(deadline - app.ctx.now()).total_seconds() - 3600)  # type: ignore[attr-defined]
    await app.cycle()
    await app.drain()
    reminders: list[Any] = []  # a mail still on its way from before may come first (Dovecot's delivery)
    for _ in range(5):
        reminders += [m for m in await mail_server.wait_for(address, timeout=20.0) if "reminder" in m.subject]
        if reminders:
            break
    assert reminders and all(m.in_reply_to == seat_root and _refs(m) == [seat_root] for m in reminders)


async def test_a_new_welcome_stays_in_the_thread_under_a_new_id(app: App, mail_server: MailHarness) -> None:  # noqa: F811
    """A reset secret comes in a fresh welcome: a Message-ID of its own (a provider drops a
    mail whose id it has seen), inside the same thread."""
    from pbem.service import teams

    game_id = games.create(app.ctx, "duel", "Threads", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    await app.drain()
    (first,) = await mail_server.wait_for(RED)
    teams.reset(app.ctx, game_id, "red")
    await app.drain()
    (again,) = await mail_server.wait_for(RED)
    root = _root(app, game_id, "red", RED)
    assert first.message_id == root and again.message_id != root
    assert again.in_reply_to == root and _refs(again) == [root]
    assert secret_from_welcome(again.text) != secret_from_welcome(first.text)
