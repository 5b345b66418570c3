"""The turn lifecycle through the service layer, on a real database, with the
Duel test game (sealed simultaneous phases, dice every turn)."""

from __future__ import annotations

import io
import json

from PIL import Image
from sqlalchemy import event
from sqlmodel import select

from pbem.core.dice import derive
from pbem.db.models import InboundMail, PhaseRow, RollRow, SheetRow
from pbem.service import games, inbound, turns
from tests.service.helpers import files_of, last_id, outbox, text_of
from tests.support.players import order_block, player_mail

from tests.service.helpers import BLUE, RED


def send(ctx, sender, game_id, seat, secret, lines, turn=None, message_id=None):  # type: ignore[no-untyped-def]
    raw = player_mail(sender, order_block(game_id, seat, secret, lines, turn), message_id=message_id)
    return inbound.handle(ctx, raw)


def test_welcome_mails_carry_secret_commitment_and_map(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    red = outbox(ctx, to=RED, kind="welcome")
    blue = outbox(ctx, to=BLUE, kind="welcome")
    assert len(red) == len(blue) == 1
    shown = games.show_game(ctx, game_id)
    assert shown["commitment"] in text_of(red[0]) and shown["seed"] is None
    assert secrets["red"] != secrets["blue"]
    assert secrets["red"] not in text_of(blue[0])  # nobody sees another seat's secret
    assert "Benvenuto" in text_of(blue[0])  # blue plays in Italian
    png = files_of(red[0])[f"{game_id}-start.png"]
    assert Image.open(io.BytesIO(png)).size[0] == 400


def test_orders_replace_until_resolution_then_both_get_reports(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    first = send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 3"])
    assert first.status == "orders"
    second = send(ctx, RED, game_id, "red", secrets["red"], ["play 2"])
    assert second.status == "orders"
    reply = text_of(outbox(ctx, to=RED, kind="reply")[-1])
    assert "PLAY 2" in reply and "replace" in reply
    with ctx.session() as s:
        rows = list(s.exec(select(SheetRow).where(SheetRow.game_id == game_id).order_by(SheetRow.id)))  # type: ignore[arg-type]
    assert [r.superseded for r in rows] == [True, False]
    before = last_id(ctx)
    assert send(ctx, BLUE, game_id, "blue", secrets["blue"], ["GIOCA 1"]).status == "orders"
    reports = outbox(ctx, kind="report", after=before)
    assert sorted(r.recipients_json for r in reports) == sorted([json.dumps([RED]), json.dumps([BLUE])])
    with ctx.session() as s:
        rolls = list(s.exec(select(RollRow).where(RollRow.game_id == game_id).order_by(RollRow.counter)))  # type: ignore[arg-type]
        phase = s.exec(select(PhaseRow).where(PhaseRow.game_id == game_id, PhaseRow.seq == 0)).one()
    # Architecture 2.5: rolls derive from seed, game, phase, counter and the orders digest.
    seed = bytes.fromhex(ctx.engine and _seed(ctx, game_id))
    assert [r.counter for r in rolls] == [0, 1]
    for r in rolls:
        assert r.value == derive(seed, game_id, 0, r.counter, phase.orders_digest, 6)
    text = text_of(reports[0])
    assert "red die" in text and phase.hash[:16] in text


def _seed(ctx, game_id):  # type: ignore[no-untyped-def]
    from pbem.db.models import Game

    with ctx.session() as s:
        return s.get(Game, game_id).seed_hex


def test_bad_orders_are_refused_by_line_and_change_nothing(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 2"])
    result = send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 7"])
    assert result.status == "refused"
    reply = text_of(outbox(ctx, to=RED, kind="reply")[-1])
    assert "line 3" in reply and "PLAY 7" in reply and "expected PLAY 1" in reply
    assert "receipt" in reply  # the earlier orders stay on file
    with ctx.session() as s:
        filed = [r.canonical for r in s.exec(select(SheetRow)) if not r.superseded]
    assert filed == ["PLAY 2"]


def test_wrong_secret_or_sender_is_refused_and_the_seat_is_told(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    before = last_id(ctx)
    assert send(ctx, RED, game_id, "red", "aaaa-bbbb-cccc", ["PLAY 3"]).status == "refused"
    assert send(ctx, "mallory@evil.example", game_id, "red", secrets["red"], ["PLAY 3"]).status == "refused"
    notices = outbox(ctx, after=before)
    assert {r.recipients_json for r in notices} == {json.dumps([RED])}  # never the forger
    assert "mallory@evil.example" in text_of(notices[1])
    assert all(secrets["red"] not in text_of(n) for n in notices)
    with ctx.session() as s:
        assert list(s.exec(select(SheetRow))) == []


def test_turn_guard_and_duplicate_message(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    assert send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 1"], turn=4).status == "refused"
    assert "turn 1" in text_of(outbox(ctx, to=RED, kind="reply")[-1])
    first = send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 1"], message_id="<same@example.org>")
    again = send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 1"], message_id="<same@example.org>")
    assert (first.status, again.status) == ("orders", "duplicate")
    with ctx.session() as s:
        assert len(list(s.exec(select(InboundMail)))) == 2


def test_the_reminder_job_reads_only_the_games_with_a_reminder_due(ctx, clock, duel):  # type: ignore[no-untyped-def]
    """The job runs every 15 s on every worker: it scans the open phases' deadlines and the games'
    policies, and reads a game's row (its state, its sealed seed) only when a reminder is due."""
    game_id, _secrets = duel
    others = [games.create(ctx, "duel", f"quiet {n}", [games.SeatSpec("red", f"r{n}@example.org"),
                                                        games.SeatSpec("blue", f"b{n}@example.org")],
                           deadline="96h") for n in range(3)]
    statements: list[str] = []

    def heard(conn, cursor, statement, *rest):  # type: ignore[no-untyped-def]
        statements.append(statement.lower())

    clock.advance(hours=25)  # the duel's 24 h reminder is due; the 96 h games' are not
    event.listen(ctx.engine, "before_cursor_execute", heard)
    try:
        assert turns.send_reminders(ctx) == 2  # both of the duel's seats
        nothing = len(statements)
        assert turns.send_reminders(ctx) == 0
    finally:
        event.remove(ctx.engine, "before_cursor_execute", heard)
    assert not [s for s in statements[nothing:] if "game.state_json" in s or "seed_hex" in s]
    assert sum("game.state_json" in s for s in statements[:nothing]) == 1  # the duel's game, to be reminded
    reminded = {r.game_id for r in outbox(ctx, kind="reminder")}
    assert reminded == {game_id} and not reminded & set(others)


def test_deadline_reminders_defaults_and_abandon(ctx, clock, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 3"])
    clock.advance(hours=25)  # 23 h before the 48 h deadline: the 24 h reminder is due
    assert turns.send_reminders(ctx) == 1
    assert turns.send_reminders(ctx) == 0
    assert "turn 1" in text_of(outbox(ctx, to=BLUE, kind="reminder")[0]) or "turno 1" in text_of(outbox(ctx, to=BLUE, kind="reminder")[0])
    clock.advance(hours=24)
    assert turns.resolve_due(ctx) == 1
    with ctx.session() as s:
        blue_sheet = s.exec(select(SheetRow).where(SheetRow.seat == "blue")).one()
    assert (blue_sheet.source, blue_sheet.canonical) == ("default", "PLAY 1")
    shown = games.show_game(ctx, game_id)
    assert shown["turn"] == 2 and {s["seat"]: s["misses"] for s in shown["seats"]} == {"red": 0, "blue": 1}
    # Two more misses: abandoned (policy abandon_after = 3), then blue's orders default at once.
    for _ in range(2):
        send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 1"])
        clock.advance(hours=49)
        turns.resolve_due(ctx)
    shown = games.show_game(ctx, game_id)
    blue = next(s for s in shown["seats"] if s["seat"] == "blue")
    assert blue["status"] == "abandoned"
    turn = shown["turn"]
    if shown["status"] == "active":
        send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 3"])
        assert games.show_game(ctx, game_id)["turn"] in (turn + 1, None) or games.show_game(ctx, game_id)["status"] == "finished"


def test_pause_extend_resume(ctx, clock, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    games.extend(ctx, game_id, "24h")
    clock.advance(hours=60)
    assert turns.resolve_due(ctx) == 0  # 48 h + 24 h not yet over
    games.pause(ctx, game_id)
    clock.advance(hours=100)
    assert turns.resolve_due(ctx) == 0  # paused games have no running deadline
    send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 2"])
    send(ctx, BLUE, game_id, "blue", secrets["blue"], ["PLAY 2"])
    assert games.show_game(ctx, game_id)["turn"] == 1  # no resolution while paused
    games.resume(ctx, game_id)
    with ctx.session() as s:  # all orders were in: resolved on resume
        assert s.exec(select(PhaseRow).where(PhaseRow.seq == 0)).one().resolved_at is not None


def test_an_old_order_mail_arriving_after_the_turn_resolved_is_refused(ctx, clock, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    written = clock()  # a mail written now is delivered only after the turn resolved
    clock.advance(hours=1)
    send(ctx, RED, game_id, "red", secrets["red"], ["PLAY 1"])
    send(ctx, BLUE, game_id, "blue", secrets["blue"], ["PLAY 2"])
    if games.show_game(ctx, game_id)["phase"] == "tiebreak":
        send(ctx, RED, game_id, "red", secrets["red"], ["SPLIT"])
    assert games.show_game(ctx, game_id)["turn"] == 2
    late = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"]), date=written)
    assert inbound.handle(ctx, late).status == "refused"
    reply = text_of(outbox(ctx, to=RED, kind="reply")[-1])
    assert "before turn 2 began" in reply or "before turn" in reply
    assert games.show_game(ctx, game_id)["orders_in"] == []
    explicit = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"], turn=2), date=written)
    assert inbound.handle(ctx, explicit).status == "orders"  # TURN 2 says it is meant for this turn


def test_two_order_mails_out_of_order_the_later_written_stays(ctx, clock, duel):  # type: ignore[no-untyped-def]
    """Two mails that overtook each other within the window the Date may move a mail
    (inbound.ORDER_WINDOW, two minutes before its receipt) keep the order they were written in."""
    game_id, secrets = duel
    early, later = clock.current, clock.advance(seconds=40)
    clock.advance(seconds=50)
    newer = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 3"]), date=later)
    older = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 1"]), date=early)
    assert inbound.handle(ctx, newer).status == "orders"
    receipt = text_of(outbox(ctx, to=RED, kind="reply")[-1]).split("Receipt: ")[1].split()[0]
    assert inbound.handle(ctx, older).status == "refused"
    reply = text_of(outbox(ctx, to=RED, kind="reply")[-1])
    assert "older than the orders on file" in reply and receipt in reply
    with ctx.session() as s:
        filed = [r.canonical for r in s.exec(select(SheetRow)) if not r.superseded]
    assert filed == ["PLAY 3"]
