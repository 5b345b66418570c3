"""Leagues (issue "Leagues, ratings and the club's website"): a 6-player Kriegspiel Swiss
league of 3 rounds played to its end through the service, standings checked by hand on a
small round robin, and the bad input a game master can give."""

from __future__ import annotations

from itertools import combinations

import pytest
from sqlmodel import select

from pbem.db.models import League, Player
from pbem.errors import GameStateError, NotFoundError, UserError
from pbem.service import leagues
from tests.service.helpers import outbox
from tests.support.leagues import kriegspiel

PLAYERS = [f"k{i}@example.org" for i in range(1, 7)]


def _handles(ctx) -> dict[str, str]:  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        return {p.address: f"p{p.id}" for p in s.exec(select(Player))}


def _strength(address: str) -> int:
    return int(address[1])  # k1 is the strongest


def test_a_six_player_kriegspiel_swiss_league_of_three_rounds(ctx) -> None:  # type: ignore[no-untyped-def]
    league_id = leagues.create(ctx, "Autumn Swiss", "kriegspiel", "swiss", PLAYERS, rounds=3)
    handles = _handles(ctx)
    by_handle = {h: a for a, h in handles.items()}
    seen_pairs: list[frozenset[str]] = []
    norths: dict[str, int] = {h: 0 for h in handles.values()}
    for number in (1, 2, 3):
        answer = leagues.pair(ctx, league_id)
        assert answer.startswith(f"league {league_id} round {number}: games ")
        shown = leagues.show(ctx, league_id)
        tables = shown["games"][str(number)]
        assert len(tables) == 3 and all("game" in t for t in tables)  # six players: three games, no bye
        for table in tables:
            north, south = table["seats"]["north"], table["seats"]["south"]
            seen_pairs.append(frozenset((north, south)))
            norths[north] += 1
            # the stronger player wins; k3 and k4 agree a draw when they meet
            a, b = by_handle[north], by_handle[south]
            if {a, b} == {"k3@example.org", "k4@example.org"}:
                winner = None
            else:
                winner = "north" if _strength(a) < _strength(b) else "south"
            kriegspiel(ctx, table["game"], winner)
            welcomes = outbox(ctx, kind="welcome")
            assert {w.game_id for w in welcomes} >= {table["game"]}  # each seat was mailed its welcome
    assert len(set(seen_pairs)) == 9  # Swiss never repeated a pairing
    assert all(1 <= n <= 2 for n in norths.values())  # the first seat shared out over the rounds
    shown = leagues.show(ctx, league_id)
    assert shown["status"] == "finished"
    table = shown["standings"]
    assert [s["played"] for s in table] == [3] * 6
    assert sum(s["points"] for s in table) == 9  # one point a game
    assert table[0]["handle"] == handles["k1@example.org"] and table[0]["points"] == 3  # won every game
    assert [s["points"] for s in table] == sorted((s["points"] for s in table), reverse=True)
    with pytest.raises(GameStateError, match="all its 3 rounds"):
        leagues.pair(ctx, league_id)


def test_standings_by_hand_on_a_four_player_round_robin(ctx) -> None:  # type: ignore[no-untyped-def]
    """Round robin of A, B, C, D (three rounds, circle method). Results: A beats everybody,
    B and C draw, B beats D, C beats D. By hand: A 3; B 1.5; C 1.5; D 0.
    Buchholz (opponents' points): A: 1.5+1.5+0 = 3; B: 3+1.5+0 = 4.5; C: 3+1.5+0 = 4.5;
    D: 3+1.5+1.5 = 6. B and C tie on points and Buchholz; wins: B 1, C 1; B joined first."""
    names = ["a@example.org", "b@example.org", "c@example.org", "d@example.org"]
    league_id = leagues.create(ctx, "Club cup", "kriegspiel", "round-robin", names)
    handles = _handles(ctx)
    by_handle = {h: a for a, h in handles.items()}
    order = {a: i for i, a in enumerate(names)}
    met = []
    for number in (1, 2, 3):
        leagues.pair(ctx, league_id)
        for table in leagues.show(ctx, league_id)["games"][str(number)]:
            north, south = by_handle[table["seats"]["north"]], by_handle[table["seats"]["south"]]
            met.append(frozenset((north, south)))
            if {north, south} == {"b@example.org", "c@example.org"}:
                kriegspiel(ctx, table["game"], None)
            else:
                kriegspiel(ctx, table["game"], "north" if order[north] < order[south] else "south")
    assert set(met) == {frozenset(p) for p in combinations(names, 2)}  # every pair met once
    got = [(by_handle[s["handle"]][0], s["points"], s["buchholz"], s["wins"]) for s in
           leagues.show(ctx, league_id)["standings"]]
    assert got == [("a", 3, 3, 3), ("b", 1.5, 4.5, 1), ("c", 1.5, 4.5, 1), ("d", 0, 6, 0)]


def test_bad_leagues_are_refused_with_the_reason(ctx) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError, match="at least 4 players"):
        leagues.create(ctx, "Too few", "kriegspiel", "swiss", PLAYERS[:3], rounds=2)
    with pytest.raises(UserError, match="named twice"):
        leagues.create(ctx, "Twice", "kriegspiel", "swiss", [*PLAYERS[:4], PLAYERS[0]])
    with pytest.raises(UserError, match="unknown game kind 'chess'"):
        leagues.create(ctx, "Chess", "chess", "swiss", PLAYERS)
    with pytest.raises(UserError, match="format is round-robin or swiss"):
        leagues.create(ctx, "Knockout", "kriegspiel", "knockout", PLAYERS)
    with pytest.raises(UserError, match="would repeat pairings"):
        leagues.create(ctx, "Long", "kriegspiel", "swiss", PLAYERS[:4], rounds=4)
    with pytest.raises(UserError, match="exactly 5 players"):
        leagues.create(ctx, "Arditi", "arditi", "round-robin", PLAYERS, seats=5)
    with pytest.raises(UserError, match="2–2 seats"):
        leagues.create(ctx, "Three", "kriegspiel", "swiss", PLAYERS, seats=3)
    with pytest.raises(NotFoundError):
        leagues.pair(ctx, "l99")
    with ctx.session() as s:
        assert s.exec(select(League)).all() == []  # nothing was made


def test_pairing_while_a_round_runs_is_refused_unless_forced(ctx) -> None:  # type: ignore[no-untyped-def]
    league_id = leagues.create(ctx, "Quick", "kriegspiel", "swiss", PLAYERS[:4], rounds=2)
    leagues.pair(ctx, league_id)
    first, second = leagues.show(ctx, league_id)["games"]["1"]
    kriegspiel(ctx, first["game"], "north")
    with pytest.raises(GameStateError, match=f"still has games running \\({second['game']}\\)"):
        leagues.pair(ctx, league_id)
    answer = leagues.pair(ctx, league_id, force=True)
    assert "round 2" in answer
    shown = leagues.show(ctx, league_id)
    pairs = [frozenset(t["seats"].values()) for r in ("1", "2") for t in shown["games"][r]]
    assert len(set(pairs)) == 4  # no repeat, the unfinished game counted as a draw for the pairing
    assert sum(s["played"] for s in shown["standings"]) == 2  # the standings count finished games only
