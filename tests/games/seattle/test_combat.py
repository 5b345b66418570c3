"""Combat (rulebook 6.0-6.4, the CRT, the visibility table's combat rows, 7.3)."""

from __future__ import annotations

import pytest

from pbem.games.seattle.state import OUT, PILE, RESERVE, Standing
from tests.games.seattle.helpers import errors, loc, position, resolve, text

AREA = "westlake"


def example_64(**changes):
    """6.4 "Esempio di un combattimento": two SPD (4), two Groups 2-4-3, a Crowd 1-3-1 and a
    barricade in one area; the Authorities' combat phase; special munitions allowed (Phase 2)."""
    settings = {"barricades": (AREA,), "escalation": 2, "vis_dem": 20, "vis_auth": 30, **changes}
    return position({"SPD1": AREA, "SPD2": AREA, "AT1": AREA, "AT2": AREA, "OL1": AREA},
                    stage="authority-combat", **settings)


def test_the_worked_example_of_6_4_reproduces_every_number():
    """6.4: 4+4=8, doubled to 16 by special munitions, halved to 8 by the barricade; die 6 in
    column 7-10: X. The Demonstrators: 2+2=4 halved to 2; die 5 in column 2-3: MC. Both Groups
    removed for good; the Authorities +4 and -2 for two units using munitions: net +2. An SPD
    checks morale, rolls 5 (morale 4): to the Reserve Pool, the Demonstrators +1."""
    state = example_64()
    new = resolve(state, {"authorities": "ATTACK SPD1 SPD2 ON AT1 AT2 MUNITIONS ALL"}, [6, 5, 5])
    combat = new.log[0].combats[0]
    a, d = combat.attack, combat.defence
    assert [(u, f, dbl) for u, f, dbl in a.factors] == [("SPD1", 4, 1), ("SPD2", 4, 1)]
    assert sum(f * 2 ** dbl for _, f, dbl in a.factors) == 16
    assert a.halvings == ("barricade",) and a.total == 8
    assert (a.roll, a.printed, a.result) == (6, "X", "X")
    assert d.total == 2 and d.halvings == ("barricade",)
    assert (d.roll, d.result) == (5, "MC")
    assert loc(new, "AT1") == OUT and loc(new, "AT2") == OUT
    assert loc(new, "OL1") == AREA  # the Crowd was not attacked
    assert new.vis_auth == 30 + 4 - 2
    assert combat.checks[0].unit == "SPD1" and combat.checks[0].roll == 5 and not combat.checks[0].passed
    assert loc(new, "SPD1") == RESERVE and loc(new, "SPD2") == AREA
    assert new.vis_dem == 20 + 1
    # The barricade stays: a Crowd is still there (7.2).
    assert AREA in new.barricades
    report = text(new)
    assert "SPD1 4×2 + SPD2 4×2 = 16 halved (barricade) = 8; die 6, column 7-10: X" in report
    assert "AT1 2 + AT2 2 = 4 halved (barricade) = 2; die 5, column 2-3: MC" in report


def test_the_worked_example_with_points_taken_off_the_demonstrators():
    """Visibility table: for each Group removed by A or X, +2 Authorities OR -2 Demonstrators
    (the Authority player's choice: POINTS DEMONSTRATORS)."""
    state = example_64()
    new = resolve(state, {"authorities": "POINTS DEMONSTRATORS\nATTACK SPD1 SPD2 ON AT1 AT2 MUNITIONS ALL"},
                  [6, 5, 5])
    assert new.vis_auth == 30 - 2
    assert new.vis_dem == 20 - 4 + 1
    assert new.standing_auth.visibility == "demonstrators"  # kept for later combats


def test_phase_1_reads_x_as_a_and_forbids_special_munitions():
    """7.3 Phase 1: no special munitions; every X counts as A (6.3)."""
    state = example_64(escalation=1, barricades=())
    assert "err-munitions-phase-1" in errors(state, "authorities", "ATTACK SPD1 SPD2 ON AT1 AT2 MUNITIONS ALL")
    # 8 -> column 7-10, die 6: X read as A: one Group removed for good, the other checks morale.
    new = resolve(state, {"authorities": "ATTACK SPD1 SPD2 ON AT1 AT2 ARREST AT2"}, [6, 1, 6])
    a = new.log[0].combats[0].attack
    assert (a.printed, a.result) == ("X", "A")
    assert loc(new, "AT2") == OUT
    assert loc(new, "AT1") == PILE  # failed its check (6 > 4): off the map, back in the pile
    assert new.vis_auth == 32


def test_an_arrest_by_the_authorities_removes_one_and_checks_the_others():
    """6.3 A by the Authorities: one Demonstrator unit of their choice removed for good, all
    the other attacked units take a morale check; a Crowd removed costs -1 Authorities and
    -1d6 Demonstrators (visibility table)."""
    state = position({"SPD1": AREA, "SPD2": AREA, "OL1": AREA, "PR1": AREA}, stage="authority-combat",
                     vis_dem=20, vis_auth=30)
    # 8 -> column 7-10; die 5: A. Demonstrators 1+2=3 -> column 2-3, die 1: N.
    new = resolve(state, {"authorities": "ATTACK SPD1 SPD2 ON OL1 PR1 ARREST OL1"}, [5, 1, 2, 4])
    assert loc(new, "OL1") == OUT
    check = new.log[0].combats[0].checks[0]
    assert (check.unit, check.roll, check.morale, check.passed) == ("PR1", 2, 2, True)
    assert loc(new, "PR1") == AREA
    assert new.vis_auth == 29 and new.vis_dem == 16  # the 1d6 rolled 4


def test_results_of_the_demonstrators_take_authority_units_to_the_reserve_pool():
    """6.3: A by the Demonstrators: one Authority unit of their choice removed for now (to the
    Reserve Pool); X: all the attacked Authority units; +1 Demonstrators for each."""
    state = position({"AN1": AREA, "AN2": AREA, "AN3": AREA, "AN4": AREA, "AN5": AREA, "AN6": AREA,
                      "AN7": AREA, "AN8": AREA, "SPD1": AREA, "SPD2": AREA},
                     stage="demonstrator-combat", escalation=2, vis_dem=20)
    # 16 -> column 16+, die 5: X. The Authorities 8 -> column 7-10, die 1: N.
    new = resolve(state, {"demonstrators": f"ATTACK {' '.join(f'AN{i}' for i in range(1, 9))} ON SPD1 SPD2"},
                  [5, 1])
    assert loc(new, "SPD1") == RESERVE and loc(new, "SPD2") == RESERVE
    assert new.vis_dem == 22
    state = position({"AN1": AREA, "AN2": AREA, "SPD1": AREA, "SPD2": AREA}, stage="demonstrator-combat",
                     vis_dem=20)
    # 4 -> column 4-6, die 5: A on SPD2 (named). The Authorities 8 -> die 2: N.
    new = resolve(state, {"demonstrators": "ATTACK AN1 AN2 ON SPD1 SPD2 ARREST SPD2"}, [5, 2])
    assert loc(new, "SPD2") == RESERVE and loc(new, "SPD1") == AREA
    assert new.vis_dem == 21
    assert not new.morale_loss  # removed by a result, not by a morale check (7.3)


def test_a_failed_morale_check_of_an_authority_unit_opens_phase_2():
    """7.3: the Authorities may go to Phase 2 once one of their units was removed from the map
    by a morale check; before that ESCALATE is refused."""
    state = position({"AN1": AREA, "SPD5": AREA}, stage="demonstrator-combat", vis_dem=20)
    # 2 -> column 2-3, die 4: MC on SPD5; it rolls 5 against morale 4.
    new = resolve(state, {"demonstrators": "ATTACK AN1 ON SPD5"}, [4, 1, 5])
    assert loc(new, "SPD5") == RESERVE and new.morale_loss
    before = position({"SPD5": AREA}, stage="authority-movement")
    assert "err-escalate-2" in errors(before, "authorities", "ESCALATE")


def test_choices_follow_the_order_then_standing_targets_then_the_default():
    """6.3 MC: "una unità ... a scelta del giocatore": named with CHECK; else the roller's
    standing TARGETS; else the unit with the lowest morale."""
    where = {"SPD1": AREA, "SPD2": AREA, "AN1": AREA, "OP1": AREA}
    state = position(where, stage="authority-combat")
    # 8 -> column 7-10, die 3: MC. Default: OP1 (morale 2) rather than AN1 (5).
    new = resolve(state, {"authorities": "ATTACK SPD1 SPD2 ON AN1 OP1"}, [3, 1, 1])
    assert new.log[0].combats[0].chosen[0] == ("MC", "OP1")
    new = resolve(state, {"authorities": "TARGETS AN\nATTACK SPD1 SPD2 ON AN1 OP1"}, [3, 1, 1])
    assert new.log[0].combats[0].chosen[0] == ("MC", "AN1")
    assert new.standing_auth.targets == ("AN",)
    new = resolve(state, {"authorities": "TARGETS AN\nATTACK SPD1 SPD2 ON AN1 OP1 CHECK OP1"}, [3, 1, 1])
    assert new.log[0].combats[0].chosen[0] == ("MC", "OP1")
    # The defender's choice comes from its standing instructions, set in an earlier sheet.
    state = position({"SPD1": AREA, "WSP1": AREA, "AN1": AREA, "AN2": AREA, "AN3": AREA}, stage="authority-combat",
                     standing_dem=Standing(targets=("WSP",)))
    # Authorities 7 -> die 1: N; Demonstrators 6 -> column 4-6, die 3: MC, on WSP1 by TARGETS.
    new = resolve(state, {"authorities": "ATTACK SPD1 WSP1 ON AN1 AN2 AN3"}, [1, 3, 1])
    assert new.log[0].combats[0].chosen[0] == ("MC", "WSP1")


def test_each_unit_fights_once_per_combat_phase():
    """6.1: "Una data unità ... può essere coinvolta solo in un singolo combattimento"."""
    state = position({"SPD1": AREA, "SPD2": AREA, "AN1": AREA, "AN2": AREA}, stage="authority-combat")
    assert "err-unit-not-here" in errors(state, "authorities", "ATTACK SPD1 ON AN1\nATTACK SPD2 ON AN1")
    assert "err-unit-not-here" in errors(state, "authorities", "ATTACK SPD1 ON AN1\nATTACK SPD1 ON AN2")
    resolve(state, {"authorities": "ATTACK SPD1 ON AN1\nATTACK SPD2 ON AN2"}, [1, 1, 1, 1])


def test_combat_only_where_both_sides_are():
    """6.1: combat against enemy units in the same area only."""
    state = position({"SPD1": AREA, "AN1": "sheraton", "AN2": AREA}, stage="authority-combat")
    assert "err-unit-not-here" in errors(state, "authorities", "ATTACK SPD1 ON AN1")
    assert "err-attack-nothing" in errors(state, "authorities", "ATTACK sheraton")


def test_night_halves_and_escalation_phase_3_doubles():
    """6.2: night halves (round up); Phase 3 doubles every unit; doubling before halving."""
    night = position({"SPD1": AREA, "AN1": AREA}, turn=4, stage="authority-combat")
    new = resolve(night, {"authorities": "ATTACK SPD1 ON AN1"}, [1, 1])
    c = new.log[0].combats[0]
    assert c.attack.halvings == ("night",) and c.attack.total == 2 and c.defence.total == 1
    phase3 = position({"SPD1": AREA, "AN1": AREA}, turn=4, stage="authority-combat", escalation=3)
    new = resolve(phase3, {"authorities": "ATTACK SPD1 ON AN1 MUNITIONS SPD1"}, [1, 1])
    c = new.log[0].combats[0]
    assert c.attack.factors == (("SPD1", 4, 2),) and c.attack.total == 8  # 4 x2 x2 = 16, halved: 8
    assert c.defence.total == 2  # 2 x2 = 4, halved: 2


@pytest.mark.parametrize("event,attackers,defenders,expected", [
    ("angry-feminists", "AT1", "SPD1", (("AT1", 2, 1),)),
    ("pointing-fingers", "SPD1", "AN1", None),
])
def test_events_that_double(event, attackers, defenders, expected):
    """Events 22 (Antagonists x2) and 45-46 (Authorities x2 attacking only Groups where Crowds
    are too)."""
    side = "demonstrators" if attackers.startswith("AT") else "authorities"
    where = {attackers: AREA, defenders: AREA, "OL1": AREA}
    state = position(where, stage=f"{'demonstrator' if side == 'demonstrators' else 'authority'}-combat",
                     event=event)
    new = resolve(state, {side: f"ATTACK {attackers} ON {defenders}"}, [1, 1])
    c = new.log[0].combats[0]
    if expected:
        assert c.attack.factors == expected
    else:
        assert c.attack.factors == (("SPD1", 4, 1),)
        both = resolve(state, {side: f"ATTACK {attackers} ON {defenders} OL1"}, [1, 1])
        assert both.log[0].combats[0].attack.factors == (("SPD1", 4, 0),)  # a Crowd attacked: no bonus


def test_events_that_forbid_attacks():
    """Events 23 (Organised Labour), 41-42 (no combined attacks across factions), 43-44 (Crowds
    do not attack) and 65-66 (no special munitions)."""
    where = {"OL1": AREA, "AN1": AREA, "AT1": AREA, "SPD1": AREA}
    assert "err-unit-not-here" in errors(position(where, stage="demonstrator-combat", event="lunch-break"),
                                         "demonstrators", "ATTACK OL1 ON SPD1")
    assert "err-friction" in errors(position(where, stage="demonstrator-combat", event="faction-friction"),
                                    "demonstrators", "ATTACK AN1 AT1 ON SPD1")
    assert "err-unit-not-here" in errors(position(where, stage="demonstrator-combat", event="non-violent-protest"),
                                         "demonstrators", "ATTACK OL1 ON SPD1")
    assert "err-munitions-key" in errors(position(where, stage="authority-combat", escalation=2, event="lost-the-key"),
                                         "authorities", "ATTACK SPD1 ON AN1 MUNITIONS ALL")


def test_solidarity_forever_adds_one_to_demonstrator_morale():
    """Event 35-36 (6.4): Demonstrator morale checks as if morale were 1 higher."""
    state = position({"SPD1": AREA, "OP1": AREA}, stage="authority-combat", event="solidarity-forever")
    # 4 -> column 4-6, die 2: N... use die 3: MC on OP1 (morale 2 + 1); it rolls 3: passes.
    new = resolve(state, {"authorities": "ATTACK SPD1 ON OP1"}, [3, 1, 3])
    check = new.log[0].combats[0].checks[0]
    assert (check.morale, check.passed) == (3, True)
    assert loc(new, "OP1") == AREA


def test_a_barricade_goes_when_no_demonstrator_is_left():
    """7.2: at the end of a combat phase a barricade with no Demonstrators in its area goes."""
    state = position({"SPD1": AREA, "SPD2": AREA, "SPD3": AREA, "SPD4": AREA, "OP1": AREA},
                     stage="authority-combat", barricades=(AREA,), escalation=2)
    # 16 halved: 8, die 6: X; OP1 removed for good.
    new = resolve(state, {"authorities": "ATTACK SPD1 SPD2 SPD3 SPD4 ON OP1"}, [6, 1])
    assert loc(new, "OP1") == OUT
    assert AREA not in new.barricades
    assert ("note-barricade-gone", AREA) in new.log[0].notes


def test_pointing_fingers_helps_the_authorities_only_when_they_attack():
    """Event 45-46: "qualsiasi unità del giocatore Autorità può raddoppiare il proprio Fattore di
    Combattimento se attacca dei Gruppi": attacked by a Group, an SPD unit fights at 4."""
    state = position({"AN1": AREA, "OL1": AREA, "SPD1": AREA}, stage="demonstrator-combat", event="pointing-fingers")
    new = resolve(state, {"demonstrators": "ATTACK AN1 ON SPD1"}, [1, 1])
    assert new.log[0].combats[0].defence.factors == (("SPD1", 4, 0),)


def test_pointing_fingers_is_lost_in_an_area_where_a_crowd_is_attacked():
    """Event 45-46: "(Se vuole mantenere questo vantaggio non può attaccare nessuna unità Folla
    in queste aree ...)": the bonus belongs to the area, not to one attack. A Crowd attacked in
    Westlake by SPD2 costs SPD1 its doubling there; in the Sheraton, where no Crowd is attacked,
    SPD3 keeps it."""
    where = {"SPD1": AREA, "SPD2": AREA, "AN1": AREA, "OL1": AREA, "SPD3": "sheraton", "AN2": "sheraton",
             "OL2": "sheraton"}
    state = position(where, turn=2, stage="authority-combat", escalation=2, event="pointing-fingers")
    new = resolve(state, {"authorities": "ATTACK SPD1 ON AN1\nATTACK SPD2 ON OL1\nATTACK SPD3 ON AN2"},
                  [1, 1, 1, 1, 1, 1])
    first, second, third = new.log[0].combats
    assert first.attack.factors == (("SPD1", 4, 0),) and first.attack.total == 4
    assert second.attack.factors == (("SPD2", 4, 0),)
    assert third.attack.factors == (("SPD3", 4, 1),) and third.attack.total == 8
