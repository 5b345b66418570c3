"""The next deadline as an iCalendar event on welcomes, reports and reminders: one
event per game and phase (a stable UID), SEQUENCE rising when the deadline moves."""

from __future__ import annotations

from datetime import timedelta

from icalendar import Calendar

from pbem.service import games, reports
from pbem.service.turns import send_reminders
from tests.security.support import orders_mail, send
from tests.service.helpers import BLUE, RED, files_of, outbox, text_of
from tests.support.players import secret_from_welcome


def _event(row):  # type: ignore[no-untyped-def]
    (name,) = [n for n in files_of(row) if n.endswith(".ics")]
    cal = Calendar.from_ical(files_of(row)[name])
    assert str(cal["method"]) == "PUBLISH"
    (event,) = cal.walk("VEVENT")
    return event


def test_welcome_reminder_and_report_carry_the_deadline(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Calendar", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    welcome = _event(outbox(ctx, to=RED, kind="welcome")[0])
    uid = str(welcome["uid"])
    assert uid.startswith(f"{game_id}-") and uid.endswith(f"@{ctx.config.server.domain}")
    assert welcome.decoded("dtstart") == clock() + timedelta(hours=48)
    assert int(welcome["sequence"]) == 0
    assert "Scadenza" in str(_event(outbox(ctx, to=BLUE, kind="welcome")[0])["summary"])

    games.extend(ctx, game_id, "24h")
    clock.advance(hours=60)  # inside the 24h reminder of the moved deadline
    assert send_reminders(ctx) == 2
    moved = _event(outbox(ctx, to=RED, kind="reminder")[-1])
    assert str(moved["uid"]) == uid  # the calendar updates the same event
    assert int(moved["sequence"]) == 1
    assert moved.decoded("dtstart") == welcome.decoded("dtstart") + timedelta(hours=24)

    secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (RED, BLUE)}
    send(ctx, orders_mail(RED, game_id, "red", secrets[RED], ["PLAY 1"]))
    send(ctx, orders_mail(BLUE, game_id, "blue", secrets[BLUE], ["GIOCA 2"]))
    reports.run_pending(ctx)
    report = outbox(ctx, to=RED, kind="report")[-1]
    nxt = _event(report)
    assert str(nxt["uid"]) != uid and int(nxt["sequence"]) == 0  # the next phase: an event of its own
