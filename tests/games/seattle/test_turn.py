"""Set-up, the random event and reinforcements (rulebook Istruzioni, 3.2, 4.1-4.22), night
(7.1), the end phase (3.4 and the visibility table), escalation (7.3) and victory (8.0)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.core.dice import ScriptedDice
from pbem.errors import UserError
from pbem.games.seattle import RULES
from pbem.games.seattle.state import AWAY, DESK, FESTIVAL, PILE, RESERVE, Pending, track
from tests.games.seattle.helpers import errors, loc, orders, position, resolve, resolve_server


def test_set_up():
    """Istruzioni: one SPD in the Convention Center, the rest off the map, Authorities' index
    30; five Crowds drawn at random, placed in any downtown-core areas; Demonstrators' index 0."""
    state = RULES.new_game(("demonstrators", "authorities"), {})
    assert RULES.phase(state).awaiting == ()
    state = resolve_server(state, [1, 1, 1, 1, 1])  # each draw: the first Crowd left in the pile
    assert state.vis_auth == 30 and state.vis_dem == 0
    assert loc(state, "SPD1") == "convention-center"
    assert state.pending.arrivals == ("OL1", "OL2", "OL3", "OL4", "OL5")
    assert RULES.phase(state).awaiting == ("demonstrators",)
    assert "err-setup-core" in errors(state, "demonstrators", "PLACE OL1 belltown")
    assert "err-stacking" in errors(state, "demonstrators", "PLACE OL 3 westlake")
    sheet = orders(state, "demonstrators", "PLACE OL1 westlake\nPLACE OL westlake")
    # The three not placed go where the default puts them: the most exposed core areas.
    assert sheet.canonical().splitlines() == ["PLACE OL1 WESTLAKE", "PLACE OL2 WESTLAKE",
                                              "PLACE OL3 CONVENTION-CENTER", "PLACE OL4 PARAMOUNT",
                                              "PLACE OL5 ROOSEVELT"]
    state = resolve(state, {"demonstrators": sheet.canonical()}, [])
    assert state.stage == "random-event" and state.turn == 0


def reinforcement_turn(vis_dem, vis_auth, rolls, where=None, turn=1):
    base = position(where or {}, turn=turn - 1, stage="random-event", vis_dem=vis_dem, vis_auth=vis_auth)
    return resolve_server(base, rolls)


def test_the_reinforcement_example_of_4_21():
    """4.21 example: index 46 for the Demonstrators, 28 for the Authorities: 3 Crowds and 2
    Groups drawn at random; the table's 21-40 column gives the Authorities +2 SPD (the example's
    "3" disagrees with the table: docs/games/seattle.md, decision 3)."""
    # Event 65 (lost key: no effect here), then each draw takes the first counter left.
    state = reinforcement_turn(46, 28, [6, 5, 1, 1, 1, 1, 1])
    p = state.pending
    assert p.arrivals == ("AN1", "AN2", "OL1", "OL2", "OL3")
    assert p.spd_arrivals == ("SPD1", "SPD2")
    assert RULES.phase(state).awaiting == ("demonstrators", "authorities") and RULES.phase(state).sealed


def test_draws_are_dice_over_the_counters_left():
    """4.21: Demonstrator reinforcements are drawn at random from the off-map piles; the band
    0-20 gives 2d6 Groups and 1 Crowd."""
    # Event 61 (+10 Authorities), Groups 2d6 = 1+1 = 2: draws 30 -> OP10, then 29 -> OP9; Crowd: 5 -> OL5.
    state = reinforcement_turn(0, 30, [6, 1, 1, 1, 30, 29, 5])
    assert state.pending.arrivals == ("OP10", "OP9", "OL5")
    assert state.vis_auth == 40
    rolls = [r for r in state.log[-1].rolls]
    assert ("reinforcement-groups", 2) in rolls and ("reinforcement-crowds", 1) in rolls


def test_negative_amounts_are_removals_that_cannot_be_declined():
    """4.21: negative numbers remove units (returned to availability); a player may decline
    additions but must always remove. Band 101+: Groups -2, SPD -2."""
    where = {"AN1": "westlake", "AN2": "belltown", "SPD1": "westlake", "SPD2": RESERVE, "SPD3": "kingdome"}
    # Event 65; Crowds 2d6 = 1+1; two draws.
    state = reinforcement_turn(110, 110, [6, 5, 1, 1, 1, 1], where)
    p = state.pending
    assert p.group_removals == 2 and p.spd_removals == 2
    dem = orders(state, "demonstrators", "DECLINE OL1")
    assert "REMOVE AN1" in dem.canonical() and "REMOVE AN2" in dem.canonical()
    auth = orders(state, "authorities", "PASS")
    # The default takes the Reserve Pool first, then the least exposed area.
    assert auth.canonical().splitlines()[:2] == ["REMOVE SPD2", "REMOVE SPD3"]
    assert "err-remove-count" in errors(state, "authorities", "REMOVE SPD1 SPD2 SPD3")
    new = resolve(state, {"demonstrators": "DECLINE OL1", "authorities": "REMOVE SPD1 SPD2"}, [])
    assert loc(new, "SPD1") == PILE and loc(new, "SPD3") == "kingdome" and loc(new, "AN1") == PILE
    assert loc(new, "OL1") == PILE


def test_placement_avoids_authorities_and_declined_spd_stay_off():
    """4.2: Demonstrator reinforcements go anywhere without Authority units; the Authorities'
    go to the Reserve Pool (4.2), and they may decline them (4.21)."""
    state = reinforcement_turn(46, 28, [6, 5, 1, 1, 1, 1, 1], {"SPD9": "westlake"})
    assert "err-place-authorities" in errors(state, "demonstrators", "PLACE AN1 westlake")
    new = resolve(state, {"demonstrators": "PLACE AN1 sheraton", "authorities": "DECLINE SPD2"}, [])
    assert loc(new, "AN1") == "sheraton"
    assert loc(new, "SPD1") == RESERVE and loc(new, "SPD2") == PILE
    assert new.stage == "demonstrator-movement"


def test_emergency_reinforcements():
    """4.22: any available SPD/WSP/NGMP, -4 each; SPD to the Reserve Pool at once, WSP and NGMP
    on the turn track two turns later; 7.3: no WSP/NGMP in escalation Phase 1."""
    # Event 65; Groups 2d6 = 1+1, two draws; one Crowd drawn.
    state = reinforcement_turn(0, 30, [6, 5, 1, 1, 1, 1, 1], turn=3)
    assert "err-call-phase-1" in errors(state, "authorities", "CALL WSP1")
    state = replace(state, escalation=2)
    new = resolve(state, {"demonstrators": "PASS", "authorities": "CALL SPD 2\nCALL WSP1 NG1"}, [])
    spd = [u for u in ("SPD3", "SPD4") if loc(new, u) == RESERVE]
    assert spd == ["SPD3", "SPD4"]  # SPD1-2 arrive by the table, the calls take the next ones
    assert loc(new, "WSP1") == track(5) and loc(new, "NG1") == track(5)
    assert new.vis_auth == 30 - 16
    # Two turns later they reach the Reserve Pool in the random event phase.
    later = resolve_server(replace(new, turn=4, stage="random-event"), [6, 5] + [1] * 5)
    assert loc(later, "WSP1") == RESERVE


@pytest.mark.parametrize("event,first,expected", [("go-slow", 3, 6), ("rapid-response", 3, 4)])
def test_events_change_arrival_times(event, first, expected):
    """Events 31-32 / 33-34: emergency units arrive a turn later / earlier (those already on
    the turn track, and those called this turn)."""
    e = {"go-slow": [3, 1], "rapid-response": [3, 3]}[event]
    base = position({"WSP1": track(5)}, turn=first - 1, stage="random-event", vis_dem=0, vis_auth=30,
                    escalation=2)
    state = resolve_server(base, e + [1] * 5)
    assert loc(state, "WSP1") == track(expected)
    new = resolve(state, {"demonstrators": "PASS", "authorities": "CALL NG1"}, [])
    assert loc(new, "NG1") == track(first + 2 + (1 if event == "go-slow" else -1))


def test_events_of_the_reinforcement_phase():
    """Events 11-16 (1d6 halved up: units chosen, Crowds only if the index is not below the
    Authorities'), 24 (Progressives leave until the morning), 26 (1d6 Opportunists), 51-53
    (a Crowd leaves), 54-56 (an SPD leaves for the rest of the game)."""
    s = reinforcement_turn(0, 30, [1, 1, 5] + [1] * 5, turn=2)  # 11; 1d6 = 5 -> 3 units
    assert s.pending.choose == 3 and not s.pending.choose_crowds
    assert "err-unit-not-here" in errors(s, "demonstrators", "CHOOSE OL1")
    assert s.pending.arrivals[:2] == ("AN1", "AN2")  # the table's two Groups
    sheet = orders(s, "demonstrators", "CHOOSE AN 2")
    # Two chosen, the third by default (a Group: the first left in the pile).
    assert sheet.canonical().splitlines()[:3] == ["CHOOSE AN3", "CHOOSE AN4", "CHOOSE AN5"]
    where = {"PR1": "westlake", "OL1": "sheraton", "SPD4": "kingdome"}
    s = reinforcement_turn(0, 30, [2, 4] + [1] * 5, where, turn=2)  # 24
    assert loc(s, "PR1") == AWAY and loc(s, "PR2") == FESTIVAL
    s = reinforcement_turn(0, 30, [2, 6, 4] + [1] * 5, where, turn=2)  # 26, 1d6 = 4
    assert s.pending.arrivals[:4] == ("OP1", "OP2", "OP3", "OP4")
    s = reinforcement_turn(0, 30, [5, 1] + [1] * 5, where, turn=2)  # 51
    assert s.pending.attrition
    new = resolve(s, {"demonstrators": "PASS", "authorities": "PASS"}, [])
    assert loc(new, "OL1") == PILE and new.vis_dem == 0  # the default: the only Crowd; no penalty
    s = reinforcement_turn(0, 30, [5, 4] + [1] * 5, where, turn=2)  # 54
    new = resolve(s, {"authorities": "BUREAUCRACY SPD4"} | ({"demonstrators": "PASS"}
                  if "demonstrators" in RULES.phase(s).awaiting else {}), [])
    assert loc(new, "SPD4") == DESK


def test_night_and_morning():
    """7.1: after the afternoon all Crowds leave the map; the night's combat is halved; in the
    morning they come back as reinforcements with the Crowds drawn during the night."""
    where = {"OL1": "westlake", "OL2": "westlake", "AN1": "sheraton"}
    afternoon = position(where, turn=3, stage="end")
    night = resolve_server(afternoon, [])
    assert loc(night, "OL1") == AWAY and loc(night, "AN1") == "sheraton"
    # Turn 4 (night): Crowds drawn are held for the morning.
    night = resolve_server(night, [6, 5, 1, 1, 1, 1, 1])  # band 0-20: 2d6 Groups, two draws; a Crowd
    assert night.pending.held and all(loc(night, u) == AWAY for u in night.pending.held)
    morning = position({"OL1": AWAY, "OL2": AWAY, "OL3": AWAY}, turn=4, stage="random-event")
    morning = resolve_server(morning, [6, 5, 1, 1, 1, 1, 1])
    assert {"OL1", "OL2", "OL3"} <= set(morning.pending.arrivals)


def test_end_phase_visibility():
    """3.4 and the table: + the exposure of every core area with a Demonstrator unit; +20
    Authorities with no Demonstrator on the map, else +10 with no Crowd in a day turn; -1
    Authorities per 5 SPD on the map, rounded up (the Pool not counted)."""
    where = {"AN1": "convention-center", "AN2": "westin", "AN3": "belltown",
             **{f"SPD{i}": "kingdome" for i in range(1, 7)}, "SPD7": RESERVE}
    new = resolve_server(position(where, turn=2, stage="end", vis_dem=10, vis_auth=30), [])
    assert new.vis_dem == 10 + 3 + 2
    assert new.vis_auth == 30 + 10 - 2
    empty = resolve_server(position({"SPD1": "kingdome"}, turn=2, stage="end", vis_dem=10, vis_auth=30), [])
    assert empty.vis_auth == 30 + 20 - 1


def test_visibility_never_below_zero():
    """2.3: points below zero go to the other side."""
    state = position({f"SPD{i}": "kingdome" for i in range(1, 12)}, turn=4, stage="end", vis_dem=5, vis_auth=1)
    state = replace(state, units=tuple(u if u.id != "AN1" else replace(u, loc="belltown") for u in state.units))
    new = resolve_server(state, [])
    # A night turn; -3 for 11 SPD: 1 - 3 = -2, so 0 and +2 to the Demonstrators.
    assert new.vis_auth == 0 and new.vis_dem == 7


def test_escalation_phase_3_after_a_whole_turn_in_phase_2():
    """7.3: Phase 3 after at least one whole turn in Phase 2; never back; phases only up."""
    state = position({"SPD1": "kingdome"}, turn=3, stage="authority-movement", morale_loss=True)
    new = resolve(state, {"authorities": "ESCALATE"}, [])
    assert new.escalation == 2 and new.phase2_full_from == 4
    at4 = replace(new, turn=4, stage="authority-movement")
    assert "err-escalate-3" in errors(at4, "authorities", "ESCALATE")
    at5 = replace(new, turn=5, stage="authority-movement")
    assert resolve(at5, {"authorities": "ESCALATE"}, []).escalation == 3
    assert "err-escalate-max" in errors(replace(at5, escalation=3), "authorities", "ESCALATE")


@pytest.mark.parametrize("dem,auth,escalation,winner,level", [
    (40, 41, 1, "authorities", "authorities"),
    (41, 41, 1, "demonstrators", "marginal"),
    (71, 40, 1, "demonstrators", "substantive"),
    (101, 40, 2, "demonstrators", "decisive"),
    (10, 90, 3, "demonstrators", "marginal"),
])
def test_victory_at_the_end_of_2_december(dem, auth, escalation, winner, level):
    """8.0: after the afternoon of 2 December the Demonstrators' lead decides; 7.3: in Phase 3
    the Authorities cannot win (a Demonstrator marginal victory)."""
    state = position({"AN1": "belltown", "OL1": "belltown"}, turn=11, stage="end", vis_dem=dem, vis_auth=auth,
                     escalation=escalation)
    new = resolve_server(state, [])
    assert new.stage == "over" and new.result is not None
    assert (new.result.winner, new.result.level) == (winner, level)
    outcome = RULES.outcome(new)
    assert outcome is not None and outcome.winners == (winner,) and outcome.reason == level


def test_the_game_may_run_to_3_december():
    """8.0: by agreement to the afternoon of 3 December (option days=3)."""
    assert RULES.new_game(("authorities", "demonstrators"), {"days": "3"}).last_turn == 15
    assert RULES.new_game(("authorities", "demonstrators"), {}).last_turn == 11
    with pytest.raises(UserError):
        RULES.new_game(("authorities", "demonstrators"), {"days": "4"})
    state = position({"AN1": "belltown"}, turn=11, stage="end", last_turn=15)
    assert resolve_server(state, []).stage == "random-event"


def test_default_orders_of_a_missed_reinforcement_phase():
    """Missed deadline: arrivals placed in the most exposed core areas free of Authorities,
    removals done the default way, nothing declined, nothing called."""
    state = position({"SPD1": "convention-center"}, turn=2, stage="reinforcements", vis_dem=10,
                     pending=Pending(arrivals=("AN1", "OL1"), spd_arrivals=("SPD2",)))
    dem = RULES.default_orders(state, "demonstrators")
    assert dem.canonical() == "PLACE AN1 PARAMOUNT\nPLACE OL1 ROOSEVELT"
    auth = RULES.default_orders(state, "authorities")
    assert auth.canonical() == "PASS"
    new = RULES.resolve(state, {"demonstrators": dem, "authorities": auth}, ScriptedDice([])).state
    assert loc(new, "SPD2") == RESERVE


def test_a_group_removed_by_the_table_cannot_be_chosen_back_in_the_same_phase():
    """4.21 and event 11-16: the Groups the table takes off the map go back among the available units,
    but not in the same reinforcement phase: the event's choice is made among those that were off the
    map already (the sheet reads back the same from its canonical text)."""
    state = position({"AN4": "westlake"}, turn=2, stage="reinforcements", vis_dem=110,
                     pending=Pending(choose=3, group_removals=1))
    state = replace(state, units=tuple(u if u.loc != "pile" or u.type != "anarchists" and u.type != "antagonists"
                                       and u.type != "opportunists" or u.id in ("AT2", "AT10")
                                       else replace(u, loc="out") for u in state.units))
    sheet = orders(state, "demonstrators", "PASS")
    assert "CHOOSE AN4" not in sheet.canonical()
    assert RULES.parse_orders(state, "demonstrators", sheet.canonical()).orders == sheet.orders


def test_folk_festival_in_a_morning_waits_for_the_next_day():
    """Event 24: the Progressives "vanno rimosse dal gioco e riappariranno solo nel turno di
    gioco della mattina del giorno successivo". Rolled in a morning turn, this morning's return
    (7.1) does not bring them back: all of them - on the map, in the pile, away for the night -
    wait for the next day's morning, while the other Crowds of the night come back now."""
    where = {"PR1": "westlake", "PR2": AWAY, "OL1": AWAY}
    night = position(where, turn=4, stage="random-event", vis_dem=0, vis_auth=30)
    # Event 24; Groups 2d6 = 1+1: AN1, AN2; one Crowd drawn: the first left in the pile.
    morning = resolve_server(night, [2, 4, 1, 1, 1, 1, 1])
    assert morning.turn == 5 and morning.event.key == "folk-festival"
    assert loc(morning, "PR1") == AWAY and loc(morning, "PR2") == AWAY and loc(morning, "PR3") == FESTIVAL
    arrivals = morning.pending.arrivals
    assert "OL1" in arrivals and not any(u.startswith("PR") for u in arrivals)
    assert arrivals[-1] == "OL2"  # the drawn Crowd: no Progressive is in the pile
    # Midday of the same day: still away.
    midday = resolve_server(replace(morning, stage="random-event"), [6, 5, 1, 1, 1, 1, 1])
    assert midday.turn == 6 and loc(midday, "PR1") == AWAY and loc(midday, "PR3") == FESTIVAL
    # The next day's morning (turn 9): back as arrivals, the others back in the pile.
    next_day = resolve_server(replace(morning, turn=8, stage="random-event"), [6, 5, 1, 1, 1, 1, 1])
    assert {"PR1", "PR2"} <= set(next_day.pending.arrivals) and loc(next_day, "PR3") == PILE


def test_attrition_in_a_morning_takes_a_crowd_back_from_the_night():
    """Event 51-53: "Il giocatore Manifestanti deve rimuovere una unità Folla a sua scelta".
    In a morning every Crowd in play is off the map, back from the night as an arrival (7.1):
    the event is not lost for want of a Crowd on the map; one of those coming back goes home
    (to its pile, without a penalty), though not one the table has just drawn."""
    night = position({"OL1": AWAY, "OL2": AWAY}, turn=4, stage="random-event", vis_dem=0, vis_auth=30)
    morning = resolve_server(night, [5, 1, 1, 1, 1, 1, 1])  # event 51; AN1, AN2; a Crowd drawn: OL3
    assert morning.pending.attrition and morning.pending.arrivals[-1] == "OL3"
    assert "err-unit-not-here" in errors(morning, "demonstrators", "ATTRITION OL3")
    new = resolve(morning, {"demonstrators": "ATTRITION OL2", "authorities": "PASS"}, [])
    assert loc(new, "OL2") == PILE and loc(new, "OL1") != AWAY and loc(new, "OL3") != PILE
    assert new.vis_dem == 0
    # Left out of the sheet, the default sends home one of the Crowds back from the night.
    default = resolve(morning, {"demonstrators": "PASS", "authorities": "PASS"}, [])
    assert loc(default, "OL1") == PILE and loc(default, "OL2") not in (AWAY, PILE)
