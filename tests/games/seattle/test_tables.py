"""Every table of the rulebook, cell by cell against the seed (section in each docstring)."""

import copy
import tomllib
from importlib import resources
from itertools import cycle

import pytest

from pbem.games.seattle.tables import (TABLES, Amount, TableError, add_visibility, load_tables,
                                       modified_total, parse_tables)


def _data() -> dict:
    return tomllib.loads(resources.files("pbem.games.seattle.data").joinpath("tables.toml").read_text("utf-8"))


# -- Elenco delle pedine, 2.1 -----------------------------------------------------------------------

COUNTERS = {  # the seed's counter list: count, combat-morale-move
    "anarchists": (8, "2-5-3"), "antagonists": (12, "2-4-3"), "organised-labour": (12, "1-3-1"),
    "progressives": (12, "2-2-1"), "environmentalists": (8, "2-3-1"), "opportunists": (10, "1-2-3"),
    "spd": (15, "4-4-3"), "wsp": (4, "3-5-3"), "ngmp": (4, "2-6-3"),
}


@pytest.mark.parametrize("key,expected", sorted(COUNTERS.items()))
def test_counter_list(key, expected):
    """"Elenco delle pedine del gioco"."""
    u = TABLES.unit(key)
    assert (u.count, f"{u.combat}-{u.morale}-{u.move}") == expected


def test_groups_and_crowds():
    """2.1: "Anarchici, Antagonisti ed Opportunisti sono sempre e solo dei gruppi mentre tutto il
    resto è sempre e solo Folla"; Crowds move 1."""
    kinds = {u.key: u.kind for u in TABLES.units if u.side == "demonstrators"}
    assert {k for k, v in kinds.items() if v == "group"} == {"anarchists", "antagonists", "opportunists"}
    assert {k for k, v in kinds.items() if v == "crowd"} == {"organised-labour", "progressives", "environmentalists"}
    assert all(TABLES.unit(k).move == 1 for k, v in kinds.items() if v == "crowd")


def test_markers_and_total():
    """Counter list: 6 Barricades, two index markers, one turn marker. The list adds up to 94,
    not the 96 of 2.0 (decision in docs/games/seattle.md: the list wins)."""
    assert {m.key: m.count for m in TABLES.markers} == {
        "barricade": 6, "demonstrators-visibility": 1, "authorities-visibility": 1, "turn": 1}
    assert sum(u.count for u in TABLES.units) + sum(m.count for m in TABLES.markers) == 94


# -- set-up -------------------------------------------------------------------------------------------

def test_setup():
    """"Istruzioni per l'inizio del gioco": SPD in Convention Center, index 30 and 0, 5 Crowds."""
    s = TABLES.setup
    assert (s.spd_area, s.spd_on_map, s.authorities_visibility, s.demonstrators_visibility,
            s.random_crowds) == ("convention-center", 1, 30, 0, 5)


# -- turn track, 2.4, 3.0, 7.1 --------------------------------------------------------------------------

def test_turn_track():
    """3.0: 4-hour day turns, 12-hour night; 2.4: from the morning of 30 November to the afternoon of
    2 December (11 turns; turn 7 = 1 December afternoon), optionally to the afternoon of 3 December."""
    std = TABLES.scheduled_turns
    assert len(std) == 11 and len(TABLES.turns) == 15
    assert (std[0].date, std[0].period.key) == ("1999-11-30", "morning")
    assert (std[-1].date, std[-1].period.key) == ("1999-12-02", "afternoon")
    assert (TABLES.turn(7).date, TABLES.turn(7).period.key) == ("1999-12-01", "afternoon")
    assert (TABLES.turns[-1].date, TABLES.turns[-1].period.key) == ("1999-12-03", "afternoon")
    assert [t.number for t in TABLES.turns if t.night] == [4, 8, 12]
    assert all((t.period.hours == 12) == t.night for t in TABLES.turns)
    assert sum(t.period.hours for t in TABLES.turns[:4]) == 24


def test_sequence_reaction_after_movement():
    """3.3 (stated twice) puts reaction movement after the phasing player's movement, before combat;
    5.1 says "subito prima": decided for 3.3 (docs)."""
    seq = TABLES.sequence
    assert seq[:2] == ("random-event", "reinforcements") and seq[-1] == "end"
    assert seq.index("demonstrator-movement") < seq.index("authority-reaction") < seq.index("demonstrator-combat")
    assert seq.index("authority-movement") < seq.index("demonstrator-reaction") < seq.index("authority-combat")


# -- Tabella Rinforzi, 4.21 -------------------------------------------------------------------------------

REINFORCEMENTS = [  # the seed's table, column by column
    ((0, 20), "+2d6", "+1", "+3", 0),
    ((21, 40), "+1d6", "+2", "+2", 1),
    ((41, 60), "+2", "+3", "+1", 2),
    ((61, 80), "+1", "+1d6", "0", 3),
    ((81, 100), "-1", "+1d6", "-1", 4),
    ((101, None), "-2", "+2d6", "-2", 5),
]


@pytest.mark.parametrize("band,groups,crowds,spd,reaction", REINFORCEMENTS)
def test_reinforcement_table(band, groups, crowds, spd, reaction):
    """4.21: "Tabella Rinforzi legati all'Indice di Visibilità"."""
    lo, hi = band
    for vi in (lo, hi if hi is not None else 250):
        row = TABLES.reinforcement(vi)
        assert (row.min, row.max) == band
        assert (row.groups, row.crowds, row.spd, row.reaction) == (
            Amount.parse(groups), Amount.parse(crowds), Amount.parse(spd), reaction)


def test_reinforcement_example():
    """4.21 example: Demonstrators at 46 get 3 Crowds and 2 Groups. The example gives the Authorities
    at 28 three SPD, the table +2: the table wins (docs)."""
    row = TABLES.reinforcement(46)
    assert (row.crowds.value(), row.groups.value()) == (3, 2)
    assert TABLES.reinforcement(28).spd.value() == 2


def test_reinforcement_dice():
    rolls = cycle([3, 5])
    assert TABLES.reinforcement(0).groups.value(lambda: next(rolls)) == 8
    assert (TABLES.reinforcement(0).groups.minimum, TABLES.reinforcement(0).groups.maximum) == (2, 12)
    with pytest.raises(ValueError):
        TABLES.reinforcement(-1)


def test_emergency():
    """4.22 and the visibility table: -4 per unit; SPD at once, WSP and NGMP two turns later."""
    assert TABLES.rules.emergency_visibility == -4
    assert dict(TABLES.rules.emergency_delay) == {"spd": 0, "wsp": 2, "ngmp": 2}
    assert TABLES.visibility_rule("emergency-reinforcement").authorities == Amount.parse("-4")


def test_rule_numbers():
    """5.1 reaction one area; 5.2 two Crowds, one Barricade per area; 7.2 Group builds on 1, Crowd 1-2."""
    r = TABLES.rules
    assert (r.reaction_move, r.crowds_per_area, r.barricades_per_area) == (1, 2, 1)
    assert dict(r.barricade_roll) == {"group": (1,), "crowd": (1, 2)}


# -- Tabella degli Eventi Casuali, 4.1 --------------------------------------------------------------------

EVENTS = {  # the seed's table: first-last -> event
    (11, 16): "random-reinforcements", (21, 21): "anarchists-argue", (22, 22): "angry-feminists",
    (23, 23): "lunch-break", (24, 24): "folk-festival", (25, 25): "costume-broke", (26, 26): "hey-beavis",
    (31, 32): "go-slow", (33, 34): "rapid-response", (35, 36): "solidarity-forever",
    (41, 42): "faction-friction", (43, 44): "non-violent-protest", (45, 46): "pointing-fingers",
    (51, 53): "attrition", (54, 56): "bureaucracy", (61, 62): "mayor-denounces",
    (63, 64): "clinton-concedes", (65, 66): "lost-the-key",
}
READINGS = [(t, u) for t in range(1, 7) for u in range(1, 7)]


@pytest.mark.parametrize("tens,units", READINGS)
def test_every_event_reading(tens, units):
    """4.1: first die tens, second die units ("un 4 seguito da un 6 va considerato come 46")."""
    roll = tens * 10 + units
    expected = next(key for (lo, hi), key in EVENTS.items() if lo <= roll <= hi)
    assert TABLES.event_for_dice(tens, units).key == expected


def test_event_example_and_impossible_readings():
    assert TABLES.event_for_dice(4, 6).key == "pointing-fingers"
    for roll in (10, 17, 20, 27, 67, 70):
        with pytest.raises(ValueError):
            TABLES.event(roll)
    with pytest.raises(ValueError):
        TABLES.event_for_dice(7, 1)


def test_event_parameters():
    """The numbers and factions of the events table."""
    e = TABLES.event
    assert (e(11).dice, e(11).duration) == (Amount.parse("1d6"), "now")  # 1d6 halved, rounded up
    assert (e(21).faction, e(21).duration) == ("anarchists", "turn")
    assert (e(22).faction, e(22).combat_multiplier) == ("antagonists", 2)
    assert (e(23).faction, e(23).duration) == ("organised-labour", "demonstrator-turn")
    assert (e(24).faction, e(24).duration) == ("progressives", "until-morning")
    assert (e(25).faction, e(25).duration) == ("environmentalists", "turn")
    assert (e(26).faction, e(26).dice) == ("opportunists", Amount.parse("1d6"))
    assert e(31).arrival_delay == 1 and e(34).arrival_delay == -1
    assert e(36).morale_bonus == 1
    assert e(46).combat_multiplier == 2
    assert (e(55).faction, e(55).duration) == ("spd", "game")
    assert (e(61).visibility_authorities, e(61).visibility_demonstrators) == (10, 0)
    assert (e(64).visibility_authorities, e(64).visibility_demonstrators) == (0, 10)
    assert e(66).duration == "turn"  # not stated in the seed: decided (docs)


# -- Tabella del Risultato del Combattimento, 6.1, 6.3 ------------------------------------------------------

CRT = {  # the seed's table, "VM" written MC
    1: "N N N N N MC", 2: "N N N N MC MC", 3: "N N MC MC MC A",
    4: "N MC MC MC A A", 5: "MC MC A A A X", 6: "MC A A X X X",
}
COLUMNS = [(1, 1), (2, 3), (4, 6), (7, 10), (11, 15), (16, 40)]


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("col", range(6))
def test_crt_cell(die, col):
    """6.1: "Tabella del Risultato del Combattimento", every cell at both ends of its column."""
    lo, hi = COLUMNS[col]
    for total in (lo, hi):
        assert TABLES.crt.result(total, die) == CRT[die].split()[col]


def test_crt_limits():
    with pytest.raises(ValueError):
        TABLES.crt.result(0, 3)
    with pytest.raises(ValueError):
        TABLES.crt.result(5, 7)


# -- 6.2 modifiers and the worked example of 6.4 -----------------------------------------------------------

def test_modifier_list():
    """"Modificatori del Risultato del Combattimento": doubling and halving."""
    eff = {m.key: (m.effect, m.side) for m in TABLES.modifiers}
    assert eff == {
        "special-munitions": ("double", "authorities"), "angry-feminists": ("double", "demonstrators"),
        "pointing-fingers": ("double", "authorities"), "escalation-3": ("double", "both"),
        "barricade": ("half", "both"), "night": ("half", "both"),
    }


def test_double_before_halving_round_up():
    """6.2: "prima si raddoppia poi si dimezza ... arrotondare in eccesso"; each halving rounds up."""
    assert modified_total([(2, 0), (1, 0)], halvings=1) == 2
    assert modified_total([(3, 0)], halvings=2) == 1
    assert modified_total([(2, 1), (1, 0)], halvings=1) == 3
    assert modified_total([(4, 2)]) == 16  # Phase 3 plus special munitions (7.3)


def test_worked_combat_example():
    """6.4 "Esempio di un combattimento": two SPD (4) with special munitions, barricade, against two
    Groups (2-4-3): 8 -> 16 -> 8, die 6 -> X; Demonstrators 4 -> 2, die 5 -> MC. The Authorities
    gain +2 per Group removed by X and pay -1 per unit using munitions: net +2; the SPD failing its
    morale check (5 > 4) goes to the Reserve Pool and gives the Demonstrators +1."""
    auth = modified_total([(4, 1), (4, 1)], halvings=1)
    dem = modified_total([(2, 0), (2, 0)], halvings=1)
    assert (auth, dem) == (8, 2)
    assert TABLES.crt.result(auth, 6) == "X"
    assert TABLES.crt.result(dem, 5) == "MC"
    group = TABLES.visibility_rule("group-removed").authorities
    munitions = TABLES.visibility_rule("special-munitions").authorities
    assert isinstance(group, Amount) and isinstance(munitions, Amount)
    assert 2 * group.value() + 2 * munitions.value() == 2
    assert 5 > TABLES.unit("spd").morale
    assert TABLES.visibility_rule("authority-unit-removed").demonstrators == Amount.parse("+1")


# -- Tabella dei modificatori dell'Indice di Visibilità, 2.3 -------------------------------------------------

def test_visibility_table_rows():
    """Every row of the table: amount per side, OR/AND, phase."""
    rows = {r.key: (r.authorities, r.demonstrators, r.choice, r.when) for r in TABLES.visibility}
    a = Amount.parse
    assert rows == {
        "random-event": ("event", "event", False, "random-event"),
        "emergency-reinforcement": (a("-4"), None, False, "random-event"),
        "group-removed": (a("+2"), a("-2"), True, "combat"),
        "crowd-removed": (a("-1"), a("-1d6"), False, "combat"),
        "special-munitions": (a("-1"), None, False, "combat"),
        "authority-unit-removed": (None, a("+1"), False, "combat"),
        "core-area-held": (None, "exposure", False, "end"),
        "no-demonstrators": (a("+20"), None, False, "end"),
        "no-crowds-by-day": (a("+10"), None, False, "end"),
        "spd-on-map": (a("-1"), None, False, "end"),
    }


@pytest.mark.parametrize("spd,change", [(0, 0), (1, -1), (5, -1), (6, -2), (10, -2), (11, -3), (15, -3)])
def test_spd_on_map_rounds_up(spd, change):
    """"-1 Autorità per ogni 5 unità della SPD presenti sulla mappa ... arrotondare alla frazione superiore"."""
    assert TABLES.spd_visibility(spd) == change


def test_crowd_removed_costs_a_die():
    crowd = TABLES.visibility_rule("crowd-removed").demonstrators
    assert isinstance(crowd, Amount) and crowd.value(lambda: 4) == -4
    assert (crowd.minimum, crowd.maximum) == (-6, -1)


def test_index_never_below_zero():
    """2.3: the points "sotto lo zero" go to the other side."""
    assert add_visibility(3, 10, -5) == (0, 12)
    assert add_visibility(3, 10, -3) == (0, 10)
    assert add_visibility(3, 10, 4) == (7, 10)


# -- 7.3 escalation -------------------------------------------------------------------------------------------

def test_escalation_phases():
    """7.3: Phase 1 no special munitions, no WSP/NGMP emergency calls, no barricades, X read as A;
    Phase 2 lifts them; Phase 3 doubles every combat factor and the Authorities cannot win."""
    p1, p2, p3 = (TABLES.escalation_phase(n) for n in (1, 2, 3))
    assert (p1.special_munitions, p1.emergency_wsp_ngmp, p1.barricades, p1.x_as_a) == (False, False, False, True)
    assert (p2.special_munitions, p2.emergency_wsp_ngmp, p2.barricades, p2.x_as_a) == (True, True, True, False)
    assert (p3.combat_multiplier, p3.authorities_can_win) == (2, False)
    assert p1.authorities_can_win and p2.authorities_can_win and p2.combat_multiplier == 1
    assert [p.entry for p in TABLES.escalation] == [
        "start", "authority-unit-removed-by-morale-check", "one-full-turn-in-phase-2"]


# -- 8.0 victory ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dem,auth,level", [
    (20, 21, "authorities"), (0, 30, "authorities"), (30, 30, "marginal"), (60, 30, "marginal"),
    (61, 30, "substantive"), (90, 30, "substantive"), (91, 30, "decisive"), (200, 0, "decisive"),
])
def test_victory_levels(dem, auth, level):
    """8.0: Authorities higher wins; Demonstrators ahead by 0-30, 31-60, 61+ (a tie is "0")."""
    assert TABLES.victory_level(dem, auth) == level


def test_phase_three_denies_authority_victory():
    """7.3: in Phase 3, an Authority lead is still a Demonstrator marginal victory."""
    assert TABLES.victory_level(10, 80, phase=3) == "marginal"
    assert TABLES.victory_level(80, 30, phase=3) == "substantive"


# -- the loader's checks ---------------------------------------------------------------------------------------

def _broken(change) -> dict:
    data = copy.deepcopy(_data())
    change(data)
    return data


@pytest.mark.parametrize("change,message", [
    (lambda d: d["event"].pop(), r"no event for the readings \[65, 66\]"),
    (lambda d: d["event"][0].update(last=17), "not a range of two-dice readings"),
    (lambda d: d["event"][1].update(first=16, last=16), "both"),
    (lambda d: d["crt"]["rows"][2].pop(), "row 3 has 5 cells"),
    (lambda d: d["crt"]["rows"][0].__setitem__(0, "VM"), "unknown results"),
    (lambda d: d["crt"]["columns"][2].update(min=5), "starts at 5"),
    (lambda d: d["reinforcement"][1].update(min=22), "starts at 22"),
    (lambda d: d["reinforcement"][0].update(groups="2d"), "bad amount"),
    (lambda d: d["unit"][2].update(move=2), "a crowd with movement 2"),
    (lambda d: d["unit"].append(dict(d["unit"][0])), "appears twice"),
    (lambda d: d["turns"]["track"].__setitem__(3, [4, "1999-11-30", "morning", False]), "expected 'night'"),
    (lambda d: d["setup"].update(spd_area="space-needle"), "unknown area"),
    (lambda d: d["victory"][1].update(min=1), "starts at 1"),
    (lambda d: d["event"][1].update(faction="hippies"), "unknown faction"),
    (lambda d: d["visibility"][2].pop("authorities"), "needs both"),
])
def test_inconsistent_data_is_rejected(change, message):
    from pbem.games.seattle.map import MAP

    with pytest.raises(TableError, match=message):
        parse_tables(_broken(change), MAP.area_ids)


def test_malformed_text_gives_a_table_error():
    with pytest.raises(TableError):
        load_tables("die = ")
    with pytest.raises(TableError, match="missing"):
        load_tables("die = 6\n")
