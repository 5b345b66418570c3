"""Movement (rulebook 5.0-5.2), reaction movement (5.1), barricades (7.2), events 21, 23, 25."""

from __future__ import annotations

import pytest

from pbem.games.seattle.state import RESERVE
from tests.games.seattle.helpers import errors, loc, orders, position, resolve


def test_the_movement_example_of_5_0():
    """5.0: "un Gruppo che inizia ... nell'International District può muovere verso Kingdome -
    Pioneer Square - Waterfront ma non oltre"."""
    state = position({"AN1": "international-district"})
    sheet = orders(state, "demonstrators", "MOVE AN1 kingdome pioneer-square waterfront")
    assert sheet.canonical() == "MOVE AN1 KINGDOME PIONEER-SQUARE WATERFRONT"
    assert "err-too-far" in errors(state, "demonstrators", "MOVE AN1 kingdome pioneer-square waterfront belltown")
    # Only a destination: the shortest legal path is filled in.
    assert orders(state, "demonstrators", "MOVE AN1 waterfront").canonical() == \
        "MOVE AN1 KINGDOME PIONEER-SQUARE WATERFRONT"
    assert "err-unreachable" in errors(state, "demonstrators", "MOVE AN1 belltown")
    new = resolve(state, {"demonstrators": "MOVE AN1 waterfront"}, [])
    assert loc(new, "AN1") == "waterfront"


def test_crowds_move_one_area_and_lines_must_join():
    """2.1: Crowds always move 1; 5.0: along the lines of communication."""
    state = position({"OL1": "westlake"})
    assert "err-too-far" in errors(state, "demonstrators", "MOVE OL1 sheraton convention-center")
    assert "err-unreachable" in errors(state, "demonstrators", "MOVE OL1 paramount")
    assert "err-not-linked" in errors(position({"AN1": "westlake"}), "demonstrators", "MOVE AN1 paramount roosevelt")


def test_entering_enemies_stops_a_unit_but_a_unit_with_enemies_may_leave():
    """5.0: entering an area with enemy units stops the unit; a unit starting with enemies
    leaves but stops at the first area with other enemy units."""
    state = position({"AN1": "international-district", "SPD1": "kingdome", "AN2": "pioneer-square",
                      "SPD2": "pioneer-square"})
    assert "err-stop-enemy" in errors(state, "demonstrators", "MOVE AN1 kingdome pioneer-square")
    orders(state, "demonstrators", "MOVE AN1 kingdome")
    orders(state, "demonstrators", "MOVE AN2 waterfront belltown seattle-center")
    assert "err-stop-enemy" in errors(state, "demonstrators", "MOVE AN2 kingdome international-district")


def test_stacking_two_crowds_per_area():
    """5.2: never more than two Crowds in one area; Groups are not limited."""
    state = position({"OL1": "westlake", "OL2": "westlake", "OL3": "sheraton", "AN1": "sheraton",
                      "AN2": "sheraton", "AN3": "sheraton"})
    assert "err-stacking" in errors(state, "demonstrators", "MOVE OL3 westlake")
    orders(state, "demonstrators", "MOVE OL1 sheraton\nMOVE OL3 westlake")  # a swap is fine
    orders(state, "demonstrators", "MOVE AN1 westlake\nMOVE AN2 westlake\nMOVE AN3 westlake")


@pytest.mark.parametrize("event,unit,still", [
    ("anarchists-argue", "AN1", True), ("costume-broke", "EN1", True), ("lunch-break", "OL1", True),
    ("anarchists-argue", "AT1", False),
])
def test_events_that_keep_a_faction_still(event, unit, still):
    """Events 21 (Anarchists), 23 (Organised Labour, in the Demonstrator turn), 25
    (Environmentalists) cannot move."""
    state = position({unit: "westlake"}, event=event)
    text = f"MOVE {unit} sheraton"
    if still:
        assert "err-still" in errors(state, "demonstrators", text)
    else:
        orders(state, "demonstrators", text)


def test_reaction_limit_and_reach():
    """5.1 and the reinforcement table: the reacting side moves as many units as its reaction
    limit (by its own index), one area each; the Authorities may instead bring a unit from the
    Reserve Pool to any area; the Demonstrators react with Groups only."""
    where = {"SPD1": "westlake", "SPD2": "sheraton", "SPD3": RESERVE, "AN1": "union-square", "OL1": "union-square"}
    state = position(where, stage="authority-reaction", vis_auth=30)  # 21-40: limit 1
    orders(state, "authorities", "MOVE SPD1 union-square")
    orders(state, "authorities", "DEPLOY SPD3 kingdome")
    assert "err-reaction-limit" in errors(state, "authorities", "MOVE SPD1 union-square\nMOVE SPD2 union-square")
    assert "err-unreachable" in errors(state, "authorities", "MOVE SPD1 first-avenue")
    state = position(where, stage="authority-reaction", vis_auth=45)  # 41-60: limit 2
    new = resolve(state, {"authorities": "MOVE SPD1 union-square\nDEPLOY SPD3 kingdome"}, [])
    assert loc(new, "SPD1") == "union-square" and loc(new, "SPD3") == "kingdome"
    dem = position(where, stage="demonstrator-reaction", vis_dem=25)
    orders(dem, "demonstrators", "MOVE AN1 westlake")
    assert "err-unit-not-here" in errors(dem, "demonstrators", "MOVE OL1 westlake")


def test_reaction_with_limit_zero_is_passed_over():
    """5.1: a limit of 0 (index 0-20) means no reaction: the phase asks nothing."""
    state = position({"AN1": "westlake", "SPD1": "sheraton"}, stage="demonstrator-movement", vis_auth=10)
    new = resolve(state, {"demonstrators": "MOVE AN1 sheraton"}, [])
    assert new.stage == "demonstrator-combat"
    assert ("note-passed", "authority-reaction") in new.log[-1].notes


def test_reserve_pool_moves_in_the_authority_movement_phase():
    """5.0 Zona di Riserva: in their movement phase the Authorities move any units to and
    from the Pool; from the Pool they may be placed in any area."""
    state = position({"SPD1": "westlake", "SPD2": RESERVE}, stage="authority-movement")
    new = resolve(state, {"authorities": "RESERVE SPD1\nDEPLOY SPD2 capitol-hill"}, [])
    assert loc(new, "SPD1") == RESERVE and loc(new, "SPD2") == "capitol-hill"
    assert "err-unit-not-here" in errors(state, "authorities", "DEPLOY SPD1 kingdome")


def test_barricades():
    """7.2: only in escalation Phase 2 or 3, instead of moving; a Group builds on 1, a Crowd on
    1 or 2; one barricade per area."""
    where = {"AN1": "westlake", "OL1": "westlake", "OL2": "sheraton", "AN2": "union-square"}
    assert "err-barricade-phase" in errors(position(where, escalation=1), "demonstrators", "BARRICADE AN1")
    state = position(where, escalation=2)
    assert "err-unit-not-here" in errors(state, "demonstrators", "MOVE AN1 sheraton\nBARRICADE AN1")
    # Westlake: the Group fails on 2, the Crowd builds on 2; Sheraton: the Crowd fails on 3;
    # Union Square: the Group builds on 1.
    new = resolve(state, {"demonstrators": "BARRICADE AN1 OL1 OL2 AN2"}, [2, 2, 3, 1])
    assert new.barricades == ("union-square", "westlake")
    tries = [(b.unit, b.roll, b.built) for b in new.log[0].barricades]
    assert tries == [("AN1", 2, False), ("OL1", 2, True), ("OL2", 3, False), ("AN2", 1, True)]
    later = position(where, escalation=2, barricades=("westlake",))
    assert "err-barricade-there" in errors(later, "demonstrators", "BARRICADE OL1")


def test_a_unit_named_by_kind_is_one_that_can_get_there():
    """5.0 with the syntax of docs/games/seattle.md: MOVE GROUP <area> moves the first Group that can
    reach the area, not merely the first Group."""
    state = position({"AN1": "seattle-center", "AT1": "sheraton"})  # AN1 is 4 lines away
    assert orders(state, "demonstrators", "MOVE GROUP convention-center").canonical() == \
        "MOVE AT1 CONVENTION-CENTER"


def test_a_barricade_goes_after_a_combat_phase_passed_over():
    """7.2: "Se alla fine di ogni fase di combattimento nell'area nella quale si trova il
    segnalino Barricata non sono presenti unità dei Manifestanti il segnalino viene rimosso":
    every combat phase, also one passed over because nobody can fight."""
    state = position({"AN1": "westlake", "SPD1": "kingdome"}, turn=2, escalation=2, barricades=("westlake",),
                     vis_auth=10)
    new = resolve(state, {"demonstrators": "MOVE AN1 sheraton"}, [])
    assert new.stage == "authority-movement"
    notes = new.log[-1].notes
    assert ("note-passed", "authority-reaction") in notes and ("note-passed", "demonstrator-combat") in notes
    assert new.barricades == ()
    assert ("note-barricade-gone", "westlake") in notes
    # With a Demonstrator still there, the barricade stays through the phase passed over.
    kept = resolve(state, {"demonstrators": "PASS"}, [])
    assert kept.stage == "authority-movement" and kept.barricades == ("westlake",)


def test_anarchists_who_argue_do_not_react_either():
    """Event 21: "Tutte le unità Anarchici in questo turno non possono muovere": the whole turn,
    the Demonstrators' reaction movement in the Authorities' player turn included."""
    state = position({"AN1": "westlake", "AT1": "westlake"}, stage="demonstrator-reaction", vis_dem=25,
                     event="anarchists-argue")
    assert "err-still" in errors(state, "demonstrators", "MOVE AN1 sheraton")
    orders(state, "demonstrators", "MOVE AT1 sheraton")
