"""The next deadline as a calendar event (RFC 5545), attached to every welcome, report
and reminder.

One event per game and phase: its UID is stable (``<game>-<seq>@<domain>``), so a
calendar that already holds it updates the event when the deadline moves instead of
adding a second one; SEQUENCE rises with each move (``PhaseRow.calendar_sequence``,
raised by `moved`). METHOD:PUBLISH: the event is information, nobody is asked to answer.
"""

from __future__ import annotations

from datetime import timedelta

from icalendar import Calendar, Event

from pbem.db.models import Game, PhaseRow
from pbem.mail.compose import Attachment
from pbem.service.context import Context
from pbem.service.texts import t

#: How long the event lasts in a calendar: a deadline is a moment, shown as a short slot.
SLOT = timedelta(minutes=15)


def uid(ctx: Context, game: Game, phase: PhaseRow) -> str:
    """The event's identity: the same for every mail about this phase's deadline."""
    return f"{game.id}-{phase.seq}@{ctx.config.server.domain}"


def moved(phase: PhaseRow) -> None:
    """Record that the phase's deadline moved: the next event sent carries a higher SEQUENCE."""
    phase.calendar_sequence = (phase.calendar_sequence or 0) + 1


def event_bytes(ctx: Context, game: Game, phase: PhaseRow, lang: str) -> bytes | None:
    """The .ics text for the phase's deadline; None when it has none."""
    if phase.deadline is None or phase.resolved_at is not None:
        return None
    cal = Calendar()
    cal.add("prodid", "-//pbem//deadlines//EN")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    event = Event()
    event.add("uid", uid(ctx, game, phase))
    event.add("sequence", phase.calendar_sequence or 0)
    event.add("dtstamp", ctx.now())
    event.add("dtstart", phase.deadline)
    event.add("dtend", phase.deadline + SLOT)
    event.add("summary", t("calendar.summary", lang, game=game.id, name=game.name, turn=phase.turn))
    event.add("description", t("calendar.description", lang, game=game.id, turn=phase.turn,
                               address=ctx.config.server.address))
    cal.add_component(event)
    return bytes(cal.to_ical())


def attachment(ctx: Context, game: Game, phase: PhaseRow | None, lang: str) -> list[Attachment]:
    """The deadline's ``.ics`` as a list of zero or one attachment (none without a deadline)."""
    if phase is None:
        return []
    data = event_bytes(ctx, game, phase, lang)
    if data is None:
        return []
    return [Attachment(f"{game.id}-deadline.ics", "text/calendar; method=PUBLISH; charset=utf-8", data)]
