"""Reliability figures (issue "Leagues, ratings and the club's website"): a Duel where red
answers every report and blue answers once, misses a deadline and leaves; the figures by
hand, the median time from report to orders included."""

from __future__ import annotations

import statistics

from sqlmodel import select

from pbem.db.models import Player
from pbem.service import games, reliability, store, turns
from tests.service.helpers import BLUE, RED
from tests.support.leagues import send


def test_reliability_of_a_player_who_stays_and_one_who_leaves(ctx, clock, duel) -> None:  # type: ignore[no-untyped-def]
    game_id, _ = duel
    waits = []
    clock.advance(hours=2)
    assert send(ctx, game_id, "red", ["PLAY 2"]) == "orders"
    waits.append(2 * 3600)
    clock.advance(hours=2)
    assert send(ctx, game_id, "blue", ["PLAY 1"]) == "orders"  # blue: 4 hours after the report
    blue_met = 1
    with ctx.session() as s:
        tied = store.current_phase(s, store.get_game(s, game_id)).decision  # type: ignore[union-attr]
    if tied:
        clock.advance(minutes=10)
        assert send(ctx, game_id, "red", ["SPLIT"]) == "orders"
        waits.append(600)
    clock.advance(hours=1)
    assert send(ctx, game_id, "red", ["PLAY 3"]) == "orders"
    waits.append(3600)
    clock.advance(hours=49)  # blue misses the deadline: its default orders play
    assert turns.resolve_due(ctx) == 1
    assert send(ctx, game_id, "blue", ["LEAVE CONFIRM"]) == "command"
    for _ in range(60):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        assert "red" in shown["awaiting"]  # blue's seat plays its default orders at once
        clock.advance(minutes=10)
        with ctx.session() as s:
            decision = store.current_phase(s, store.get_game(s, game_id)).decision  # type: ignore[union-attr]
        assert send(ctx, game_id, "red", ["ROLL" if decision else "PLAY 3"]) == "orders"
        waits.append(600)
    assert games.show_game(ctx, game_id)["status"] == "finished"
    with ctx.session() as s:
        ids = {p.address: p.id for p in s.exec(select(Player))}
        red = reliability.of_player(s, ids[RED])
        blue = reliability.of_player(s, ids[BLUE])
    assert (red.started, red.finished, red.met, red.missed, red.abandoned) == (1, 1, len(waits), 0, 0)
    assert red.median is not None and red.median.total_seconds() == statistics.median(waits)
    assert (blue.started, blue.finished, blue.met, blue.missed, blue.abandoned) == (1, 0, blue_met, 1, 1)
    assert blue.median is not None and blue.median.total_seconds() == 4 * 3600
    assert red.as_dict()["share_met"] == 1.0 and blue.as_dict()["share_met"] == 0.5
