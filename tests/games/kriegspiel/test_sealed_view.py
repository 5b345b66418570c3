"""A seat sees its own sealed deployment (issue 19.1; rulebook "REGOLAMENTO": each side deploys
its whole army in its own territory, unseen by the enemy): in the acceptance reply and in MAP,
on a real SQLite file, while the other side's deployment stays hidden."""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import pytest
from PIL import Image

from pbem.config import from_mapping
from pbem.db.session import make_engine
from pbem.games.kriegspiel import RULES
from pbem.service import games, inbound
from pbem.service.context import Context, ManualClock
from tests.service.helpers import files_of, last_id, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

NORTH, SOUTH = "nora@example.org", "sandro@example.org"
DEPLOYMENT = ["INFANTRY A1 A2 A3 A4 A5 A6 A7 A8 A9", "ARTILLERY A13", "HORSE-ARTILLERY A14",
              "CAVALRY I8 J16 A10 A11", "HORSE-RELAY J8", "RELAY J15"]


def test_preview_places_only_the_seats_own_army() -> None:
    state = RULES.new_game(["north", "south"], {})
    sheet = RULES.parse_orders(state, "north", "\n".join(DEPLOYMENT))
    assert sheet.ok
    plain = RULES.view(state, "north")
    shown = RULES.preview(state, "north", sheet.orders)
    assert plain["units"] == [] and shown["preview"] is True
    assert {u["side"] for u in shown["units"]} == {"north"} and len(shown["units"]) == 17
    assert shown["hidden_sides"] == ["south"]
    assert "Your deployment on file" in RULES.describe(shown, "en")
    assert "Il tuo schieramento" in RULES.describe(shown, "it")


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[Context]:
    from tests.support import players

    clock = ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    players.clock = clock
    cfg = from_mapping({"games": {"deadline": "48h"}, "render": {"width": 400}}, "test")
    engine = make_engine(f"sqlite:///{tmp_path}/pbem.sqlite")
    yield Context(engine=engine, config=cfg, clock=clock)
    engine.dispose()
    players.clock = None


def _north_units(mail: object) -> list[dict[str, object]]:
    data = json.loads(next(v for n, v in files_of(mail).items() if n.endswith(".json")))  # type: ignore[arg-type]
    assert data["hidden_sides"] == ["south"]
    assert not [u for u in data["units"] if u["side"] == "south"]
    return [u for u in data["units"] if u["side"] == "north"]


def test_acceptance_and_map_show_the_own_sealed_deployment(ctx: Context) -> None:
    game_id = games.create(ctx, "kriegspiel", "sealed", [games.SeatSpec("north", NORTH),
                                                         games.SeatSpec("south", SOUTH, "it")])
    secret = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0]))
              for s, a in (("north", NORTH), ("south", SOUTH))}
    before = last_id(ctx)
    inbound.handle(ctx, player_mail(NORTH, order_block(game_id, "north", secret["north"], DEPLOYMENT)))
    accepted = outbox(ctx, to=NORTH, after=before)
    assert len(accepted) == 1 and "accepted" in accepted[0].subject
    assert len(_north_units(accepted[0])) == 17
    png = next(v for n, v in files_of(accepted[0]).items() if n.endswith(".png"))
    assert Image.open(io.BytesIO(png)).size[0] == 400
    before = last_id(ctx)
    inbound.handle(ctx, player_mail(NORTH, order_block(game_id, "north", secret["north"], ["MAP"])))
    shown = outbox(ctx, to=NORTH, after=before)
    squares = {u["square"] for u in _north_units(shown[0])}
    assert {"A1", "A13", "J15", "I8"} <= squares
    assert "Your deployment on file" in text_of(shown[0])
    # South, who has filed nothing, still sees an empty board: North's army is not given away.
    before = last_id(ctx)
    inbound.handle(ctx, player_mail(SOUTH, order_block(game_id, "south", secret["south"], ["MAPPA"])))
    theirs = json.loads(next(v for n, v in files_of(outbox(ctx, to=SOUTH, after=before)[0]).items()
                             if n.endswith(".json")))
    assert theirs["units"] == [] and theirs["hidden_sides"] == ["north"]
    # South writes in Italian: the acceptance echoes FANTERIA, not INFANTRY (issue 19.5)
    before = last_id(ctx)
    south_deploy = ["FANTERIA T1 T2 T3 T4 T5 T6 T7 T8 T9", "ARTIGLIERIA T13", "ARTIGLIERIA-A-CAVALLO T14",
                    "CAVALLERIA T10 T11 S8 S16", "STAFFETTA-A-CAVALLO S9", "STAFFETTA S15"]
    inbound.handle(ctx, player_mail(SOUTH, order_block(game_id, "south", secret["south"], south_deploy)))
    echoed = text_of(outbox(ctx, to=SOUTH, after=before)[0])
    assert "FANTERIA T1" in echoed and "INFANTRY" not in echoed and "CAVALLERIA" in echoed
