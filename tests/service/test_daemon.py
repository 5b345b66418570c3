"""The daemon's cycle with the in-memory mail twins (fast), on a real database:
\\Seen only after commit, the outbox's retries, deadlines while mail is down."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from pbem.app import App
from pbem.db.models import OutboxMail, PhaseRow, SheetRow
from pbem.errors import MailTransientError
from pbem.mail.transport import MemoryInbox, MemoryOutgoing
from pbem.service import games, inbound
from pbem.service.games import SeatSpec
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

RED, BLUE = "red@example.org", "blue@example.org"


@pytest.fixture
def setup(ctx):  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Daemon", [SeatSpec("red", RED), SeatSpec("blue", BLUE)])
    secrets = {seat: secret_from_welcome(text_of(outbox(ctx, to=addr, kind="welcome")[0]))
               for seat, addr in (("red", RED), ("blue", BLUE))}
    inbox, out = MemoryInbox(), MemoryOutgoing()
    return App(ctx, inbox, out), inbox, out, game_id, secrets


async def test_cycle_processes_marks_seen_after_commit_and_sends(setup):  # type: ignore[no-untyped-def]
    app, inbox, out, game_id, secrets = setup
    uid = inbox.deliver(player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 2"])))
    summary = await app.cycle()
    assert summary.handled == {"orders": 1} and inbox.is_seen(uid)
    assert [m.recipients for m in out.sent] == [(RED,), (BLUE,), (RED,)]  # 2 welcomes, 1 receipt


async def test_crash_between_commit_and_seen_applies_orders_once(setup, ctx):  # type: ignore[no-untyped-def]
    app, inbox, out, game_id, secrets = setup
    raw = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 2"]))
    uid = inbox.deliver(raw)

    async def crash(uid: int) -> None:
        raise MailTransientError("connection lost before STORE \\Seen")

    original = inbox.mark_seen
    inbox.mark_seen = crash  # type: ignore[method-assign]
    summary = await app.cycle()  # committed, but \Seen never set
    assert "inbox" in summary.errors[0] and not inbox.is_seen(uid)
    inbox.mark_seen = original  # type: ignore[method-assign]
    summary = await app.cycle()  # the restart sees it again
    assert summary.handled == {"duplicate": 1} and inbox.is_seen(uid)
    with ctx.session() as s:
        assert len(list(s.exec(select(SheetRow)))) == 1
    assert len(out.to(RED)) == 2  # welcome + one receipt, not two


async def test_outbox_backs_off_on_451_and_fails_a_550(setup, ctx, clock):  # type: ignore[no-untyped-def]
    app, inbox, out, game_id, secrets = setup
    out.fail_next(451, count=1)
    summary = await app.cycle()
    assert summary.sent == 0 and out.sent == []
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail).order_by(OutboxMail.id)))  # type: ignore[arg-type]
    assert [r.status for r in rows] == ["queued", "queued"] and rows[0].attempts == 1
    assert (await app.cycle()).sent == 1  # the second row was never tried and is due
    clock.advance(seconds=31)  # retry_first = 30 s
    assert (await app.cycle()).sent == 1
    out.refuse(RED, 550)
    inbox.deliver(player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"])))
    await app.cycle()
    with ctx.session() as s:
        last = s.exec(select(OutboxMail).order_by(OutboxMail.id.desc())).first()  # type: ignore[union-attr]
    assert last is not None and last.status == "failed" and "550" in last.last_error


async def test_deadlines_fire_while_mail_is_down(setup, ctx, clock):  # type: ignore[no-untyped-def]
    app, inbox, out, game_id, secrets = setup

    async def down() -> list:  # type: ignore[type-arg]
        raise MailTransientError("IMAP server unreachable")

    inbox.fetch_new = down  # type: ignore[method-assign]
    out.fail_next(421, count=100)
    clock.advance(hours=49)
    summary = await app.cycle()
    assert summary.resolved == 1 and summary.errors == ["inbox: IMAP server unreachable"]
    with ctx.session() as s:
        assert s.exec(select(PhaseRow).where(PhaseRow.seq == 0)).one().resolved_at is not None
    with ctx.session() as s:
        queued = [json.loads(r.recipients_json) for r in s.exec(select(OutboxMail)) if r.status == "queued"]
    assert [RED] in queued and [BLUE] in queued  # the reports wait for the mail server
    out._faults.clear()
    clock.advance(hours=2)
    await app.cycle()
    assert any(b"report" in m.raw for m in out.to(BLUE))


async def test_oversized_mail_is_recorded_once_and_not_fetched(setup, ctx):  # type: ignore[no-untyped-def]
    app, inbox, out, game_id, secrets = setup
    inbox.max_size = 2000
    uid = inbox.deliver(player_mail(RED, "x" * 5000))
    summary = await app.cycle()
    assert summary.handled == {"refused": 1} and inbox.is_seen(uid)
    assert inbound.record_oversized(ctx, uid, inbox.uidvalidity, 5000 + 0).status in ("refused", "duplicate")


def test_two_workers_first_heartbeats_at_once_are_one_row(ctx):  # type: ignore[no-untyped-def]
    """Two workers that start together each find no heartbeat (`status.record_cycle`) and write
    the first: the one that comes second finds the other's row when it commits, and writes its
    time there, instead of failing its cycle (the watcher logged it as failed and waited)."""
    from sqlalchemy import event

    from pbem.db.models import Setting
    from pbem.service import status

    raced = []

    def other_worker_first(conn, cursor, statement, *rest):  # type: ignore[no-untyped-def]
        if statement.startswith("INSERT INTO setting") and not raced:
            raced.append(statement)
            with ctx.engine.connect() as other:  # the other worker's first heartbeat, committed
                other.execute(Setting.__table__.insert().values(name=status.LAST_CYCLE, value="other"))
                other.commit()

    event.listen(ctx.engine, "before_cursor_execute", other_worker_first)
    try:
        status.record_cycle(ctx)
    finally:
        event.remove(ctx.engine, "before_cursor_execute", other_worker_first)
    assert raced  # the race was run
    with ctx.session() as s:
        rows = list(s.exec(select(Setting).where(Setting.name == status.LAST_CYCLE)))
    assert [r.value for r in rows] == [ctx.now().isoformat()]
