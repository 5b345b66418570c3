"""Leagues by mail (architecture 2.8): JOIN LEAGUE / ENTRA LEGA confirmed by a one-time code
as a game's JOIN, STANDINGS / CLASSIFICA, the bad inputs each with its answer, and GAMES
showing who is seated already with their reliability when the club allows it. Real SQLite
file, mail in through the inbound pipeline and out through the outbox."""

from __future__ import annotations

import re
from typing import Iterator

import pytest
from sqlmodel import select

from pbem.db.models import LeagueMember, SignupRequest
from pbem.service import games, inbound, leagues
from pbem.service.context import Context
from tests.service.helpers import last_id, outbox, text_of
from tests.service.test_club_signup import club_ctx
from tests.support.leagues import kriegspiel
from tests.support.players import player_mail

MEMBERS = ["ann@example.org", "bea@example.org", "cid@example.org"]
DAN, EVA = "dan@example.org", "eva@example.org"
CODE = re.compile(r"CON(?:FIRM|FERMA) (\S+)")


@pytest.fixture
def ctx(db_url: str, clock) -> Iterator[Context]:  # type: ignore[no-untyped-def]
    made = club_ctx(db_url, clock, limits={"stranger_per_day": 50}, club={"games_reliability": True})
    yield made
    made.engine.dispose()


def mail(ctx: Context, sender: str, body: str) -> str:
    return inbound.handle(ctx, player_mail(sender, body)).status


def answer(ctx: Context, to: str, after: int) -> str:
    rows = outbox(ctx, to=to, after=after)
    assert len(rows) == 1, [(r.kind, text_of(r)) for r in rows]
    return text_of(rows[0])


def test_join_league_by_mail_confirmed_by_code(ctx) -> None:  # type: ignore[no-untyped-def]
    league_id = leagues.create(ctx, "Open Swiss", "kriegspiel", "swiss", MEMBERS, rounds=2, open_signup=True)
    mark = last_id(ctx)
    assert mail(ctx, DAN, f"JOIN LEAGUE {league_id}") == "command"
    text = answer(ctx, DAN, mark)
    assert f"JOIN LEAGUE {league_id} (Open Swiss, a league of Kriegspiel" in text
    code = CODE.search(text)
    assert code is not None
    with ctx.session() as s:
        assert len(s.exec(select(LeagueMember)).all()) == 3  # nothing yet: the code must come back
    assert mail(ctx, EVA, f"CONFIRM {code.group(1)}") == "refused"  # from another address: no
    mark = last_id(ctx)
    assert mail(ctx, DAN, f"CONFIRM {code.group(1)}") == "command"
    assert f"You joined league {league_id} (Open Swiss); it has 4 players now" in answer(ctx, DAN, mark)
    mark = last_id(ctx)
    assert mail(ctx, DAN, f"CONFIRM {code.group(1)}") == "refused"  # once
    assert "used already" in answer(ctx, DAN, mark)
    mark = last_id(ctx)
    assert mail(ctx, DAN, f"JOIN LEAGUE {league_id}") == "refused"
    assert f"You already play in league {league_id}" in answer(ctx, DAN, mark)
    # the first round closes the sign-up; an Italian stranger is answered in Italian
    leagues.pair(ctx, league_id)
    mark = last_id(ctx)
    assert mail(ctx, EVA, f"ENTRA LEGA {league_id}") == "refused"
    assert f"La lega {league_id} non accetta nuovi giocatori" in answer(ctx, EVA, mark)
    with ctx.session() as s:
        assert s.exec(select(SignupRequest).where(SignupRequest.address == EVA)).all() == []


def test_bad_league_mail(ctx) -> None:  # type: ignore[no-untyped-def]
    closed = leagues.create(ctx, "Closed", "kriegspiel", "swiss", [*MEMBERS, DAN])
    for body, expected in ((f"JOIN LEAGUE {closed}", f"League {closed} takes no new players"),
                           ("JOIN LEAGUE l77", "There is no league l77"),
                           ("JOIN LEAGUE", "JOIN needs the league's id"),
                           ("STANDINGS l77", "There is no league l77"),
                           (f"STANDINGS {closed} please", "unexpected"),
                           ("STANDINGS", "STANDINGS needs the league's id")):
        mark = last_id(ctx)
        assert mail(ctx, EVA, body) == "refused", body
        assert expected in answer(ctx, EVA, mark), body


def test_standings_by_mail_in_both_languages(ctx) -> None:  # type: ignore[no-untyped-def]
    league_id = leagues.create(ctx, "Winter", "kriegspiel", "swiss", [*MEMBERS, DAN], rounds=2)
    leagues.pair(ctx, league_id)
    for i, table in enumerate(leagues.show(ctx, league_id)["games"]["1"]):
        kriegspiel(ctx, table["game"], "north" if i == 0 else "south")
    mark = last_id(ctx)
    assert mail(ctx, EVA, f"STANDINGS {league_id}") == "command"
    text = answer(ctx, EVA, mark)
    assert f"Standings of league {league_id} (Winter) after round 1 of 2" in text
    lines = [ln for ln in text.splitlines() if re.match(r"\s+\d\. p\d", ln)]
    assert [ln.split()[2] for ln in lines] == ["1", "1", "0", "0"]
    assert "@" not in "\n".join(lines)
    mark = last_id(ctx)
    assert mail(ctx, "zoe@example.org", f"classifica {league_id}") == "command"
    assert f"Classifica della lega {league_id} (Winter) dopo il turno 1 di 2" in answer(ctx, "zoe@example.org", mark)


def test_games_shows_the_reliability_of_seated_players(ctx) -> None:  # type: ignore[no-untyped-def]
    played = games.create(ctx, "kriegspiel", "Before", [games.SeatSpec("north", MEMBERS[0]),
                                                       games.SeatSpec("south", MEMBERS[1])])
    kriegspiel(ctx, played, "north")
    games.create(ctx, "kriegspiel", "Open one", [games.SeatSpec("north", MEMBERS[0])], open_all=True)
    mark = last_id(ctx)
    assert mail(ctx, EVA, "GAMES") == "command"
    text = answer(ctx, EVA, mark)
    assert re.search(r"p\d+: 1 of 1 games finished, 1 deadlines met, 0 missed, 0 seats abandoned", text)
    assert MEMBERS[0] not in text
