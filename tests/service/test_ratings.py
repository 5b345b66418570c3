"""Ratings (issue "Leagues, ratings and the club's website"): OpenSkill's Plackett-Luce
figures checked by hand for one game, the order of games by their end, abandoned games
left out, and `pbem ratings verify` passing on exported archives and naming a tampered one."""

from __future__ import annotations

import json
import math

import pytest
from sqlmodel import select

from pbem.db.models import Game, Player
from pbem.errors import VerifyError
from pbem.service import archive, games, ratings, votes
from pbem.service.games import SeatSpec
from tests.support.leagues import kriegspiel

A, B, C = "ann@example.org", "bob@example.org", "cid@example.org"


def _handle(ctx, address: str) -> str:  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        return f"p{s.exec(select(Player).where(Player.address == address)).one().id}"


def _game(ctx, north: str, south: str, winner: str | None) -> str:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "kriegspiel", f"{north} v {south}", [SeatSpec("north", north), SeatSpec("south", south)])
    kriegspiel(ctx, game_id, winner)
    return game_id


def test_one_game_by_hand(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    """Weng & Lin (2011), Plackett-Luce, two fresh players (mu 25, sigma 25/3, beta 25/6,
    tau 25/300 added to sigma first): c² = 2(sigma² + beta²), each wins with p = ½;
    the winner's mu rises by sigma²/c · (1 − p), the loser's falls as much; both sigmas
    shrink by the factor sqrt(1 − (sigma/c) · sigma²/c² · p(1 − p))."""
    _game(ctx, A, B, "north")
    table = ratings.of_database(ctx)["kriegspiel"]
    s2 = (25 / 3) ** 2 + (25 / 300) ** 2
    c = math.sqrt(2 * s2 + 2 * (25 / 6) ** 2)
    step = s2 / c * 0.5
    sigma = math.sqrt(s2) * math.sqrt(1 - math.sqrt(s2) / c * s2 / c ** 2 * 0.25)
    winner, loser = table[_handle(ctx, A)], table[_handle(ctx, B)]
    assert winner.mu == pytest.approx(25 + step, abs=1e-9) and loser.mu == pytest.approx(25 - step, abs=1e-9)
    assert winner.sigma == pytest.approx(sigma, abs=1e-9) and loser.sigma == pytest.approx(sigma, abs=1e-9)
    assert winner.games == loser.games == 1
    assert [r.player for r in ratings.ordered({"kriegspiel": table})] == [_handle(ctx, A), _handle(ctx, B)]


def test_games_count_in_the_order_they_ended_and_abandoned_games_not_at_all(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    first = games.create(ctx, "kriegspiel", "late start", [SeatSpec("north", A), SeatSpec("south", C)])
    clock.advance(hours=1)
    _game(ctx, A, B, "north")  # ends first, though made second
    clock.advance(hours=1)
    kriegspiel(ctx, first, "south")
    with ctx.session() as s:  # a game nobody plays any more: abandoned, rated for nobody
        game_id = games.create(ctx, "kriegspiel", "nobody", [SeatSpec("north", B), SeatSpec("south", C)])
        game = s.get(Game, game_id)
        votes.end_game(s, ctx, game, "abandoned", [], "abandoned")
        s.commit()
    order = [g.game_id for g in sorted(ratings.from_database(ctx), key=lambda g: g.finished_at)]
    assert first in order and game_id not in order and order[-1] == first
    got = ratings.of_database(ctx)["kriegspiel"]
    # replayed in order of the end: A beat B, then C beat A
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    a, b, c = model.rating(), model.rating(), model.rating()
    [[a], [b]] = model.rate([[a], [b]], ranks=[1, 2])
    [[c], [a]] = model.rate([[c], [a]], ranks=[1, 2])
    assert got[_handle(ctx, A)].mu == pytest.approx(a.mu) and got[_handle(ctx, C)].mu == pytest.approx(c.mu)
    assert got[_handle(ctx, A)].games == 2 and got[_handle(ctx, B)].games == 1


def test_ratings_verify_from_exported_archives_and_a_tampered_one(ctx, clock, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ids = [_game(ctx, A, B, "north"), _game(ctx, B, C, None), _game(ctx, C, A, "south")]
    for game_id in ids:
        archive.export(ctx, game_id, tmp_path / game_id)
        clock.advance(minutes=5)
    answer = ratings.verify(ctx, tmp_path)
    assert answer.startswith("OK: 3 games in 3 archives give the same 3 ratings")
    # a seat credited to somebody else: the archive still replays, the ratings differ
    path = tmp_path / ids[1] / "game.json"
    data = json.loads(path.read_text())
    data["game"]["players"]["north"], data["game"]["players"]["south"] = (data["game"]["players"]["south"],
                                                                          data["game"]["players"]["north"])
    path.write_text(json.dumps(data))
    with pytest.raises(VerifyError, match=f"game {ids[1]}: the archive gives north \\({_handle(ctx, C)}\\)"):
        ratings.verify(ctx, tmp_path)
    # an order changed after the game: the archive itself fails, and is named
    archive.export(ctx, ids[1], tmp_path / ids[1])
    path = tmp_path / ids[2] / "game.json"
    data = json.loads(path.read_text())
    phase = data["phases"][0]
    phase["orders"]["north"] = phase["orders"]["north"] + "\n"
    path.write_text(json.dumps(data))
    with pytest.raises(VerifyError, match=f"the archive of {ids[2]} does not verify: phase 0 \\(turn 0, deploy\\)"):
        ratings.verify(ctx, tmp_path)
    (tmp_path / ids[2] / "game.json").unlink()
    with pytest.raises(VerifyError, match=f"game {ids[2]} counts in the database's ratings and has no archive"):
        ratings.verify(ctx, tmp_path)


def test_a_team_seat_rates_its_players_together(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    from openskill.models import PlackettLuce

    from pbem.service.games import HolderSpec

    game_id = games.create(ctx, "kriegspiel", "team", [SeatSpec("north", A, more=(HolderSpec(C),)),
                                                       SeatSpec("south", B)])
    kriegspiel(ctx, game_id, "south")
    got = ratings.of_database(ctx)["kriegspiel"]
    model = PlackettLuce()
    [[a, c], [b]] = model.rate([[model.rating(), model.rating()], [model.rating()]], ranks=[2, 1])
    assert got[_handle(ctx, A)].mu == pytest.approx(a.mu) and got[_handle(ctx, C)].mu == pytest.approx(c.mu)
    assert got[_handle(ctx, B)].mu == pytest.approx(b.mu) and b.mu > 25 > a.mu
    assert got[_handle(ctx, C)].games == 1
