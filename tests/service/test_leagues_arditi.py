"""A 5-player Arditi round robin played to its end through the service (issue "Leagues,
ratings and the club's website"): five rounds of one five-seat game each, the seats turning
so that every player takes every seat (the first player included) once; standings from the
games' finish order, ratings of five-seat rankings, and ratings verify on the archives."""

from __future__ import annotations

import json

from pbem.service import archive, leagues, ratings
from tests.support.leagues import arditi

PLAYERS = [f"arditi{i}@example.org" for i in range(1, 6)]


def test_a_five_player_arditi_round_robin(ctx, clock, tmp_path) -> None:  # type: ignore[no-untyped-def]
    league_id = leagues.create(ctx, "Corteo league", "arditi", "round-robin", PLAYERS, seats=5,
                               options={"rounds": "2"})
    seats_taken: dict[str, set[str]] = {}
    for number in range(1, 6):
        leagues.pair(ctx, league_id)
        (table,) = leagues.show(ctx, league_id)["games"][str(number)]
        assert len(table["seats"]) == 5
        for seat, player in table["seats"].items():
            seats_taken.setdefault(player, set()).add(seat)
        arditi(ctx, table["game"], lambda: clock.advance(minutes=20))
        clock.advance(hours=1)
    assert all(seats == {"red", "blue", "green", "yellow", "white"} for seats in seats_taken.values())
    shown = leagues.show(ctx, league_id)
    assert shown["status"] == "finished" and shown["round"] == 5
    table = shown["standings"]
    assert [s["played"] for s in table] == [5] * 5
    assert sum(s["points"] for s in table) == 5 * 10  # each game shares C(5,2) = 10 points
    # every game's points follow its finish order: recompute them from the games' results
    by_game = {g["game"]: g for r in shown["games"].values() for g in r}
    from pbem.service import results, store

    totals: dict[str, float] = {}
    with ctx.session() as s:
        for game_id, entry in by_game.items():
            result = results.of_game(s, store.get_game(s, game_id))
            assert result is not None
            ranks = sorted(x.rank for x in result.seats)
            assert ranks[0] == 1 and len(result.seats) == 5
            for seat in result.seats:
                totals[entry["seats"][seat.seat]] = totals.get(entry["seats"][seat.seat], 0) + result.points(seat.seat)
    assert {s["handle"]: s["points"] for s in table} == totals
    rated = ratings.of_database(ctx)["arditi"]
    assert sorted(r.games for r in rated.values()) == [5] * 5
    for game_id in by_game:
        folder = tmp_path / "archives" / game_id
        folder.mkdir(parents=True)
        (folder / "game.json").write_text(json.dumps(archive.archive_data(ctx, game_id)))
    assert ratings.verify(ctx, tmp_path / "archives").startswith("OK: 5 games in 5 archives give the same 5 ratings")
