"""A small club for the site tests, made once per module: a Kriegspiel Swiss league of four
played to its end, a Kriegspiel running past its sealed deployment (a hidden game), an
Arditi running, and the site built from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from sqlmodel import select

from pbem.config import from_mapping
from pbem.db.models import Game, OutboxMail
from pbem.db.session import make_engine
from pbem.games.kriegspiel.play import opening_text
from pbem.service import games, leagues
from pbem.service.context import Context, ManualClock
from pbem.service.games import SeatSpec
from pbem.site import build
from tests.service.conftest import START, CountingEntropy
from tests.support import players
from tests.support.leagues import kriegspiel, send
from tests.support.players import body_text, parse, secret_from_welcome

MEMBERS = ["ann@example.org", "bea@example.org", "cid@example.org", "dan@example.org"]


@dataclass
class Club:
    ctx: Context
    out: Path
    league: str
    hidden: str  # a running Kriegspiel: positions only its players may see
    arditi: str
    conceded: str  # ended by a vote
    secrets: list[str]
    running_seeds: list[str]
    hidden_orders: list[str]


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    root = tmp_path_factory.mktemp("club")
    clock = ManualClock(START)
    players.clock = clock
    cfg = from_mapping({"games": {"deadline": "48h"}, "render": {"width": 480},
                        "database": {"url": f"sqlite:///{root}/pbem.sqlite"},
                        "site": {"title": "Circolo di prova"}}, "test")
    engine = make_engine(cfg.database.url)
    ctx = Context(engine=engine, config=cfg, clock=clock, entropy=CountingEntropy())
    league = leagues.create(ctx, "Autumn Swiss", "kriegspiel", "swiss", MEMBERS, rounds=2)
    for number in ("1", "2"):
        leagues.pair(ctx, league)
        for i, table in enumerate(leagues.show(ctx, league)["games"][number]):
            clock.advance(hours=2)
            kriegspiel(ctx, table["game"], "north" if i == 0 else "south")
    hidden = games.create(ctx, "kriegspiel", "Fog of war", [SeatSpec("north", MEMBERS[0]), SeatSpec("south", MEMBERS[1])])
    orders = [opening_text("north"), opening_text("south")]
    assert send(ctx, hidden, "north", orders[0].splitlines()) == "orders"
    assert send(ctx, hidden, "south", orders[1].splitlines()) == "orders"
    arditi = games.create(ctx, "arditi", "Corteo", [SeatSpec(s, a) for s, a in zip(("red", "blue", "green"), MEMBERS)],
                          options={"rounds": "3"})
    for seat in ("red", "blue"):
        clock.advance(minutes=30)
        assert send(ctx, arditi, seat, ["AUTO"]) == "orders"
    conceded = games.create(ctx, "arditi", "Conceded", [SeatSpec("red", MEMBERS[2]), SeatSpec("blue", MEMBERS[3])])
    assert send(ctx, conceded, "red", ["CONCEDE"]) == "command"  # ended by a vote: the archive lists it
    with ctx.session() as s:
        secrets = [secret_from_welcome(body_text(parse(m.raw)))
                   for m in s.exec(select(OutboxMail).where(OutboxMail.kind == "welcome"))]
        seeds = [g.seed_hex for g in s.exec(select(Game).where(Game.status != "finished"))]
    out = root / "site"
    report = build(ctx, out)
    assert not report.problems, report.problems
    yield Club(ctx, out, league, hidden, arditi, conceded, secrets, seeds, orders)
    players.clock = None
    engine.dispose()
