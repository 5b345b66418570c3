"""The SQL a deadline costs (issue 17, the deadline storm): a game resolved with default
orders, its missed-deadline notices and every seat's report queued take a bounded number of
statements, the same for each game whether 1 or 20 are due at once (the holders, thread roots
and sheets of a game are read once for all its seats, not once a seat or a mail)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlmodel import select

from pbem.db.models import OutboxMail, ReportJob
from pbem.service import games, turns, workers
from pbem.service.claims import Claims
from pbem.service.context import Context, ManualClock
from tests.service.conftest import sqlite_only
from tests.service.test_mail_queries import Counter

#: Statements for one Kriegspiel game due at the deadline: the claim (with its open phase), its seats, sheets
#: and holders, the notices' thread roots, the writes; the report job's claim, reading, the
#: reports' thread roots and the writes: 32, and a claim that finds no more per 16 games (56 on
#: SQLite before they were cut; 58 on PostgreSQL, 31 after).
PER_GAME = 33
#: What a storm costs beside its games (the absences, the list of games due, the searches
#: that find no more).
AROUND = 7


def _storm(ctx: Context, clock: ManualClock, count: int, first: int, hours: int) -> list[str]:
    """``count`` Kriegspiel games of turns of ``hours`` made now, all due at the same second;
    the statements one worker sends to resolve them and queue every report."""
    for n in range(first, first + count):
        games.create(ctx, "kriegspiel", f"Storm {n}", [games.SeatSpec("north", f"n{n}@players.example"),
                                                       games.SeatSpec("south", f"s{n}@players.example", "it")],
                     deadline=f"{hours}h")
    clock.advance(hours=hours, seconds=1)
    ctx.defer_reports = True
    claims = Claims(ctx.engine)
    with Counter(ctx) as counter:
        while turns.resolve_due(ctx) + asyncio.run(workers.draw_reports(ctx, None, claims, 1)):
            pass
    claims.close()
    ctx.defer_reports = False
    return counter.statements


@sqlite_only
def test_a_deadline_costs_the_same_statements_per_game_for_1_and_20_games(ctx: Context, clock: ManualClock,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import pbem.render.raster as raster

    monkeypatch.setattr(raster, "svg_to_png", lambda svg, width=None, **kw: b"\x89PNG storm")  # statements, not maps
    one = _storm(ctx, clock, 1, 0, 3)
    twenty = _storm(ctx, clock, 20, 1, 2)  # the first game's next deadline is not due yet
    assert len(one) <= PER_GAME + AROUND, "\n".join(one)
    assert len(twenty) - len(one) <= 19 * PER_GAME, f"{len(one)} then {len(twenty)} statements:\n" + "\n".join(twenty)
    with ctx.session() as s:
        assert [j.status for j in s.exec(select(ReportJob))] == ["done"] * 21  # each game's turn once
        reports = s.exec(select(OutboxMail.recipients_json)
                         .where(OutboxMail.kind == "report")).all()
        notices = s.exec(select(OutboxMail.id).where(OutboxMail.kind == "notice")).all()
    assert len(reports) == 42 and len(notices) == 42  # every seat's report and missed-deadline notice, once
