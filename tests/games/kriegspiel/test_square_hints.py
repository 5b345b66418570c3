"""A square off the board is answered with the nearest one only when that one is near in the
board's sense (issue 19.3; rulebook "REGOLAMENTO": rows A to T, columns 1 to 25)."""

from __future__ import annotations

import pytest

from pbem.games.kriegspiel import RULES
from pbem.games.kriegspiel.orders import square_hint
from tests.games.kriegspiel.helpers import position


@pytest.mark.parametrize(("token", "hint"), [("U7", "T7"), ("G26", "G25"), ("G27", "G25"), ("V1", "T1"),
                                             ("J55", None), ("G28", None), ("Z3", None), ("A0", "A1")])
def test_only_a_near_square_is_suggested(token: str, hint: str | None) -> None:
    assert square_hint(token) == hint


def test_the_refusal_of_j55_suggests_nothing_far_away() -> None:
    state = position(north="INFANTRY G6", south="INFANTRY O6")
    sheet = RULES.parse_orders(state, "north", "MOVE G6 J55")
    assert not sheet.ok
    found = [d for d in sheet.diagnostics if "J55" in d.text]
    assert found and found[0].suggestion is None
    text = RULES.catalog.text(found[0].message, "en")
    assert "J55" in text and "J25" not in text
    near = RULES.parse_orders(state, "north", "MOVE G6 G26")
    hints = [RULES.catalog.text(d.suggestion, "en") for d in near.diagnostics if d.suggestion is not None]
    assert any("G25" in h for h in hints)
