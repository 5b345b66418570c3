"""What an announced absence does to deadlines (issue "A club by mail" 4): a deadline
inside the absence of a seat's player moves past it, by whole days, up to the game's
allowance per player (``absence_days``, counted in the database); beyond it the seat's
default orders play; every player is told; a team's seat keeps its deadline while one of
its players is here."""

from __future__ import annotations

from datetime import date, timedelta

from icalendar import Calendar
from sqlmodel import select

from pbem.db.models import Absence, Holder, Player, SheetRow
from pbem.service import absences, games, store, turns
from tests.security.support import orders_mail, send
from tests.service.helpers import BLUE, RED, files_of, outbox, text_of
from tests.support.players import secret_from_welcome

ANNA = "anna@example.org"


def _away(ctx, address: str, start: date, end: date, cancelled: bool = False) -> None:  # type: ignore[no-untyped-def]
    """The absence as the ABSENCE command stores it (pbem.db.models.Absence)."""
    with ctx.session() as s:
        player = s.exec(select(Player).where(Player.address == address)).one()
        assert player.id is not None
        s.add(Absence(player_id=player.id, start_date=start, end_date=end, cancelled=cancelled))
        s.commit()


def _phase(ctx, game_id: str):  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        phase = store.current_phase(s, store.get_game(s, game_id))
        assert phase is not None
        return phase


def _used(ctx, address: str) -> int:  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        return sum(h.absence_days_used for h in s.exec(select(Holder).where(Holder.address == address)))


def _duel(ctx, **policies: str) -> str:  # type: ignore[no-untyped-def]
    return games.create(ctx, "duel", "Holidays", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")],
                        policies=policies)


def test_a_deadline_inside_an_absence_moves_past_it(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    game_id = _duel(ctx)
    first = _phase(ctx, game_id).deadline  # Wed 25 Nov 2026 09:00 UTC (48h)
    assert first.date() == date(2026, 11, 25)
    _away(ctx, RED, date(2026, 11, 24), date(2026, 11, 26))
    mark = outbox(ctx)[-1].id or 0
    assert absences.apply(ctx) == 1
    moved = _phase(ctx, game_id)
    assert moved.deadline == first + timedelta(days=2)  # the day after the absence, same time
    assert _used(ctx, RED) == 2 and _used(ctx, BLUE) == 0
    told = outbox(ctx, after=mark)
    assert sorted(r.recipients_json for r in told) == sorted([f'["{RED}"]', f'["{BLUE}"]'])
    blue = next(r for r in told if BLUE in r.recipients_json)
    assert "spostata" in text_of(blue) and "ven 27 nov 2026" in text_of(blue)
    assert "2 days of 14 days" in text_of(next(r for r in told if RED in r.recipients_json))
    (ics,) = [v for k, v in files_of(blue).items() if k.endswith(".ics")]
    (event,) = Calendar.from_ical(ics).walk("VEVENT")
    assert int(event["sequence"]) == 1 and event.decoded("dtstart") == moved.deadline
    # once past the absence, nothing moves again
    assert absences.apply(ctx) == 0 and _phase(ctx, game_id).deadline == moved.deadline
    clock.advance(days=3)
    assert turns.resolve_due(ctx) == 0  # the original deadline has passed: still waiting for red
    clock.advance(days=1)
    assert turns.resolve_due(ctx) == 1


def test_an_absence_beyond_the_allowance_runs_into_defaults(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    game_id = _duel(ctx, absence_days="1")
    first = _phase(ctx, game_id).deadline
    _away(ctx, RED, date(2026, 11, 24), date(2026, 11, 30))
    assert absences.apply(ctx) == 1
    assert _phase(ctx, game_id).deadline == first + timedelta(days=1) and _used(ctx, RED) == 1
    assert "beyond this game's 1 day" in text_of(outbox(ctx, to=RED)[-1])
    assert absences.apply(ctx) == 0  # the allowance is spent: nothing more moves
    blue_secret = secret_from_welcome(text_of(outbox(ctx, to=BLUE, kind="welcome")[0]))
    send(ctx, orders_mail(BLUE, game_id, "blue", blue_secret, ["GIOCA 2"]))
    clock.advance(days=3)
    assert turns.resolve_due(ctx) == 1
    with ctx.session() as s:
        sheets = {r.seat: r.source for r in s.exec(select(SheetRow).where(SheetRow.game_id == game_id,
                                                                          SheetRow.phase_seq == 0))}
    assert sheets == {"red": "default", "blue": "mail"}
    # the next phase's deadline is inside the absence too, but the allowance is spent
    nxt = _phase(ctx, game_id)
    assert absences.apply(ctx) == 0 and _phase(ctx, game_id).deadline == nxt.deadline


def test_what_keeps_a_deadline(ctx) -> None:  # type: ignore[no-untyped-def]
    """A team-mate who is here, orders already on file, a cancelled absence, a policy of 0."""
    team = games.create(ctx, "duel", "Team", [games.SeatSpec("red", RED, None, (games.HolderSpec(ANNA),)),
                                              games.SeatSpec("blue", BLUE)])
    filed = _duel(ctx)
    off = _duel(ctx, absence_days="0")
    cancelled_game = games.create(ctx, "duel", "Other", [games.SeatSpec("red", "carl@example.org"),
                                                         games.SeatSpec("blue", "dora@example.org")])
    secret = secret_from_welcome(text_of(outbox(ctx, to=RED, kind="welcome")[1]))
    assert send(ctx, orders_mail(RED, filed, "red", secret, ["PLAY 1"])).status == "orders"
    _away(ctx, RED, date(2026, 11, 24), date(2026, 11, 26))
    _away(ctx, "carl@example.org", date(2026, 11, 24), date(2026, 11, 26), cancelled=True)
    before = {g: _phase(ctx, g).deadline for g in (team, filed, off, cancelled_game)}
    assert absences.apply(ctx) == 0
    assert {g: _phase(ctx, g).deadline for g in before} == before
    # when Anna is away as well, the team's seat has nobody here: its deadline moves
    _away(ctx, ANNA, date(2026, 11, 25), date(2026, 11, 25))
    assert absences.apply(ctx) == 1
    assert _phase(ctx, team).deadline == before[team] + timedelta(days=1)  # Anna is back first
    assert _used(ctx, ANNA) == 1 and _used(ctx, RED) == 0


def test_the_policy_takes_absence_days(ctx) -> None:  # type: ignore[no-untyped-def]
    assert games.policy(ctx, None, {"absence_days": "3"})["absence_days"] == 3
    assert games.policy(ctx, None)["absence_days"] == ctx.config.games.absence_days == 14
    import pytest

    from pbem.errors import UserError

    with pytest.raises(UserError):
        games.policy(ctx, None, {"absence_days": "-1"})
