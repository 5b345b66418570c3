"""A player's own settings by mail (issue 13 items 4 and 7, the part outside a game block):
ABSENCE / ASSENZA with its bad dates, ABSENCE CANCEL, SET ZONE / IMPOSTA FUSO, SET LANGUAGE /
IMPOSTA LINGUA — each confirmed by a one-time code, as a forged From must change nothing —
and what the game master sees (`players.player_list` / `player_show`)."""

from __future__ import annotations

from datetime import date
from typing import Iterator

import pytest
from sqlmodel import col, select

from pbem.db.models import Absence, Holder, Player
from pbem.errors import NotFoundError
from pbem.service import games, inbound, players, turns
from pbem.service.context import Context
from tests.service.helpers import last_id, outbox, text_of
from tests.service.test_club_signup import ANN, BEA, answer, club_ctx, code_in, mail
from tests.support.players import order_block, player_mail, secret_from_welcome

# The test clock starts on Monday 23 November 2026, 09:00 UTC (tests/service/conftest.py).


@pytest.fixture
def ctx(db_url: str, clock) -> Iterator[Context]:  # type: ignore[no-untyped-def]
    made = club_ctx(db_url, clock, limits={"stranger_per_day": 50})
    yield made
    made.engine.dispose()


def confirmed(ctx: Context, clock, who: str, line: str) -> str:  # type: ignore[no-untyped-def]
    """Send ``line``, confirm it with the code mailed back; the answer to the CONFIRM."""
    before = last_id(ctx)
    assert mail(ctx, who, line).status == "command"
    code = code_in(ctx, who, before)
    before = last_id(ctx)
    assert mail(ctx, who, f"CONFIRM {code}").status == "command"
    clock.advance(hours=1, seconds=1)  # the next request may mail a code again
    return answer(ctx, who, before)


def absences(ctx: Context) -> list[tuple[date, date, bool]]:
    with ctx.session() as s:
        return [(a.start_date, a.end_date, a.cancelled) for a in s.exec(select(Absence).order_by(col(Absence.id)))]


def test_absence_is_stored_on_confirm_and_cancelled(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    before = last_id(ctx)
    mail(ctx, ANN, "ABSENCE 2026-12-20 2027-01-06")
    assert "ABSENCE from 2026-12-20 to 2027-01-06" in text_of(outbox(ctx, to=ANN, after=before)[0])
    assert absences(ctx) == []  # nothing before the code comes back
    clock.advance(hours=1, seconds=1)
    assert "away from 2026-12-20 to 2027-01-06" in confirmed(ctx, clock, ANN, "ABSENCE 2026-12-20 2027-01-06")
    assert absences(ctx) == [(date(2026, 12, 20), date(2027, 1, 6), False)]
    assert "(1)" in confirmed(ctx, clock, ANN, "ASSENZA ANNULLA")
    assert absences(ctx) == [(date(2026, 12, 20), date(2027, 1, 6), True)]
    before = last_id(ctx)
    assert mail(ctx, ANN, "ABSENCE CANCEL").status == "refused"
    assert "no absence to come" in answer(ctx, ANN, before)


@pytest.mark.parametrize("line, words", [
    ("ABSENCE 2026-11-22 2026-11-30", "cannot start in the past (2026-11-22; today is 2026-11-23"),
    ("ABSENCE 2026-12-10 2026-12-01", "2026-12-10 to 2026-12-01 is reversed"),
    ("ABSENCE 2026-12-01 2028-01-01", "at most 366 days"),
    ("ABSENCE 2026-12-01", "give the first and the last day"),
    ("ABSENCE 2026-12-01 tomorrow", "tomorrow is not a date as YYYY-MM-DD"),
    ("SET ZONE Mars/Olympus", "Mars/Olympus is not a time zone we know"),
    ("SET ZONE Europe", "Europe is not a time zone we know"),
    ("SET LANGUAGE fr", "the languages are en and it, not fr"),
])
def test_bad_settings_get_a_specific_answer_and_change_nothing(ctx: Context, line: str, words: str) -> None:
    before = last_id(ctx)
    assert mail(ctx, ANN, line).status == "refused"
    text = answer(ctx, ANN, before)
    assert words in text and "Nothing has changed" in text
    assert absences(ctx) == [] and not outbox(ctx, kind="signup")


def test_past_is_the_players_own_day(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    """At 23:30 UTC on 23 November it is already the 24th in Tokyo: the 23rd is past there."""
    assert "Asia/Tokyo" in confirmed(ctx, clock, ANN, "SET ZONE Asia/Tokyo")  # the clock is at 10:00:01 UTC now
    clock.advance(hours=13, minutes=29, seconds=59)  # 23:30 UTC, still the 23rd in UTC
    before = last_id(ctx)
    assert mail(ctx, ANN, "ABSENCE 2026-11-23 2026-11-25").status == "refused"
    assert "today is 2026-11-24" in answer(ctx, ANN, before)


def test_zone_and_language_are_stored_for_the_player_and_their_seats(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Settings", [games.SeatSpec("red", ANN), games.SeatSpec("blue", BEA)])
    assert "Europe/London" in confirmed(ctx, clock, ANN, "SET ZONE Europe/London")
    assert "l'italiano" in confirmed(ctx, clock, ANN, "IMPOSTA LINGUA it")
    with ctx.session() as s:
        ann = s.exec(select(Player).where(Player.address == ANN)).one()
        assert (ann.timezone, ann.language) == ("Europe/London", "it")
        assert [h.language for h in s.exec(select(Holder).where(Holder.address == ANN))] == ["it"]
    before = last_id(ctx)
    mail(ctx, ANN, "GAMES")
    assert "Le tue partite:" in answer(ctx, ANN, before) and game_id in answer(ctx, ANN, before)


def test_a_forged_setting_changes_nothing(ctx: Context) -> None:
    for line in ("SET LANGUAGE it", "ABSENCE 2026-12-01 2026-12-31", "SET ZONE Asia/Tokyo"):
        mail(ctx, ANN, line)
    with ctx.session() as s:
        assert s.exec(select(Player).where(Player.address == ANN)).first() is None
    assert absences(ctx) == []


def test_player_list_and_show(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Figures", [games.SeatSpec("red", ANN), games.SeatSpec("blue", BEA)])
    secret = secret_from_welcome(text_of(outbox(ctx, to=ANN, kind="welcome")[0]))
    assert inbound.handle(ctx, player_mail(ANN, order_block(game_id, "red", secret, ["PLAY 2"]))).status == "orders"
    clock.advance(hours=49)
    turns.resolve_due(ctx)  # Ann met the deadline, Bea missed it
    confirmed(ctx, clock, ANN, "ABSENCE 2026-12-20 2026-12-24")
    listed = {p["address"]: p for p in players.player_list(ctx)}
    assert listed[ANN]["seats"] == 1 and listed[BEA]["seats"] == 1
    ann, bea = players.player_show(ctx, ANN), players.player_show(ctx, BEA.upper())
    assert ann["reliability"] == {"deadlines_met": 1, "deadlines_missed": 0, "share_met": 1.0}
    assert bea["reliability"] == {"deadlines_met": 0, "deadlines_missed": 1, "share_met": 0.0}
    assert ann["seats"][0]["game"] == game_id and ann["seats"][0]["seat"] == "red"
    assert ann["absences"] == [{"from": "2026-12-20", "to": "2026-12-24", "cancelled": False}]
    with pytest.raises(NotFoundError):
        players.player_show(ctx, "nobody@example.org")
