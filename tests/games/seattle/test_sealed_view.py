"""The sealed reinforcement phase (3.2: both sides write at once, neither sees the other's orders)
shows a side its own filed placements on its view, the other side's not (issue 19.1)."""

from __future__ import annotations

from pbem.games.seattle import RULES
from pbem.games.seattle.state import Pending
from tests.games.seattle.helpers import position


def _where(view: dict, unit: str) -> str | None:
    return next((u.get("loc") or u.get("area") for u in view["units"] if u.get("id") == unit), None)


def test_a_side_sees_its_own_filed_reinforcements_and_nothing_of_the_others() -> None:
    state = position({"SPD1": "convention-center"}, turn=2, stage="reinforcements", vis_dem=10,
                     pending=Pending(arrivals=("AN1", "OL1"), spd_arrivals=("SPD2",)))
    assert RULES.phase(state).sealed
    dem = RULES.parse_orders(state, "demonstrators", "PLACE AN1 sheraton\nPLACE OL1 westlake")
    assert dem.ok
    plain = RULES.view(state, "demonstrators")
    shown = RULES.preview(state, "demonstrators", dem.orders)
    assert shown["preview"] is True
    assert _where(shown, "AN1") == "sheraton" and _where(shown, "OL1") == "westlake"
    assert _where(plain, "AN1") != "sheraton"
    # the Authorities, whatever the Demonstrators filed, see the position of the phase's start
    theirs = RULES.preview(state, "authorities", RULES.parse_orders(state, "authorities", "PASS").orders)
    assert _where(theirs, "AN1") == _where(plain, "AN1")
    assert "reinforcement orders on file" in RULES.describe(shown, "en")
    assert "ordini di rinforzo depositati" in RULES.describe(shown, "it")
