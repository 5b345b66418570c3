"""Corteo's tables, cell by cell, and their design properties (rulebook section in each docstring).

"C n" is a section of the seed's Gioco Avanzato, "B n" of its Gioco Base, "D" its scenarios. The cells
of both tables are ours (the seed lacks the map they are printed on); the properties asserted at the
end are the design goals of docs/games/corteo.md, computed exactly from the table.
"""

import copy
import tomllib
from fractions import Fraction
from importlib import resources

import pytest

from pbem.games.corteo.tables import (COMBAT_RESULTS, TABLES, THROW_RESULTS, Odds, TableError, load_tables,
                                      parse_tables)

F = Fraction


def _data() -> dict:
    return tomllib.loads(resources.files("pbem.games.corteo.data").joinpath("tables.toml").read_text("utf-8"))


# -- "esiti di scontro", C 8a, C 8d ---------------------------------------------------------------------------

COMBAT_COLUMNS = ["1-5", "1-4", "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1"]
COMBAT = {  # ours, read from die 1 to die 6
    "1-5": "AP AP AP AR AR AR",
    "1-4": "AP AP AR AR AR DR",
    "1-3": "AP AR AR AR AR DR",
    "1-2": "AR AR AR AR DR DR",
    "1-1": "AR AR AR DR DR DR",
    "2-1": "AR AR DR DR DR DR",
    "3-1": "AR DR DR DR DR DP",
    "4-1": "AR DR DR DR DP DP",
    "5-1": "DR DR DR DP DP DP",
}


def test_combat_columns():
    """C 8d: odds from "1 a 5" to "5 a 1"; C 8a: the columns head the table."""
    assert [c.label for c in TABLES.combat.columns] == COMBAT_COLUMNS


@pytest.mark.parametrize("column", COMBAT_COLUMNS)
@pytest.mark.parametrize("die", range(1, 7))
def test_combat_cell(column, die):
    """C 8a: "leggere sulla tabella «esiti di scontro» l'esito ... dove si incrociano il risultato del dado
    e il rapporto"; every cell, by lookup and by strengths that fall on the column."""
    expected = COMBAT[column].split()[die - 1]
    odds = Odds.parse(column)
    assert TABLES.combat.result(odds, die) == expected
    assert TABLES.combat.resolve(odds.attacker * 3, odds.defender * 3, die) == expected


def test_combat_results_are_the_rulebooks():
    """C 8d: AR, DR (retreat), AP, DP (panic); no elimination and no "no effect"."""
    assert COMBAT_RESULTS == ("AP", "AR", "DR", "DP")
    assert {cell for row in TABLES.combat.rows for cell in row} == set(COMBAT_RESULTS)


# -- odds and their rounding in the defender's favour, C 7b, C 8a, C 8b, C 8d, C 11 ---------------------------

@pytest.mark.parametrize("attack,defence,column", [
    (4, 4, "1-1"),          # C 8a, first example: 6-4 carabinieri on a 4-4 cordone
    (4, 6, "1-2"),          # C 8a, second example: "4 a 6 ... diventa 4 a 8, cioè 1-2"
    (12, 4, "3-1"),         # C 8b: "3 unità del potere (12) contro 1 del corteo (4) = 3 a 1"
    (4, 16, "1-4"),         # C 8b: "1 unità del potere (4) contro 3 del corteo (16) = 1 a 4"
    (8, 4, "2-1"),          # C 8b: the "8 a 4" combat
    (16, 8, "2-1"),         # C 11: a column of blindati, 16 against 8
    (7, 4, "1-1"), (11, 4, "2-1"), (19, 4, "4-1"), (20, 4, "5-1"),
    (3, 4, "1-2"), (2, 4, "1-2"), (3, 10, "1-4"), (2, 10, "1-5"), (5, 12, "1-3"),
    (1, 6, "1-5"), (1, 60, "1-5"),   # C 8d: beyond 1-5 read on 1-5
    (30, 1, "5-1"), (99, 2, "5-1"),  # C 8d: beyond 5-1 read on 5-1
    (F(1, 2), 2, "1-4"),    # C 8c: a 4-1 in a crowded hex (x1/2)
    (F(9, 2), 9, "1-2"), (F(17, 2), 9, "1-2"), (9, F(9, 2), "2-1"), (F(1, 2), F(1, 2), "1-1"),
])
def test_combat_odds_rounded_for_the_defender(attack, defence, column):
    """C 8a: an imperfect ratio "si arrotonda in favore del difensore, allo stesso modo che per i lanci"."""
    assert TABLES.combat.odds(attack, defence).label == column


@pytest.mark.parametrize("attack,defence,column", [
    (6, 4, "1-1"),          # C 7c example: "6/6 lancia su 4/4: il rapporto è 1 a 1"
    (2, 4, "1-2"),          # C 7b a: "raggiungono ... la metà" -> 1-2
    (3, 4, "1-2"), (4, 4, "1-1"),    # C 7b b: "raggiungono o superano i punti/potenza" -> 1-1
    (8, 4, "2-1"), (11, 4, "2-1"),   # C 7b c: "il doppio" -> 2-1
    (12, 4, "3-1"), (16, 4, "4-1"), (20, 4, "5-1"),  # C 7b: "il triplo, il quadruplo, il quintuplo"
    (12, 1, "5-1"),         # beyond 5-1: the last column (C 8d, by C 7b's "allo stesso modo")
    (3, 7, None), (6, 13, None), (4, 24, None),  # below half: no column, no throw (our reading of C 7b)
])
def test_throw_odds_rounded_for_the_target(attack, defence, column):
    """C 7b: "Rapporti non perfetti si arrotondano sempre in favore del bersaglio"."""
    odds = TABLES.throw.column(attack, defence)
    assert (None if odds is None else odds.label) == column


def test_lookup_edges():
    """C 8a: a die roll 1-6 and positive strengths; a column must be in the table."""
    with pytest.raises(ValueError):
        TABLES.combat.result(Odds(1, 1), 0)
    with pytest.raises(ValueError):
        TABLES.combat.result(Odds(1, 1), 7)
    with pytest.raises(ValueError):
        TABLES.combat.odds(0, 4)
    with pytest.raises(ValueError):
        TABLES.combat.odds(4, -1)
    with pytest.raises(ValueError, match="no throw column 1-5"):
        TABLES.throw.result(Odds(1, 5), 3)
    with pytest.raises(ValueError):
        Odds.parse("2-3")
    assert TABLES.throw.resolve(1, 6, 6) is None
    assert TABLES.combat.resolve(1, 60, 6) == "AR"
    assert TABLES.combat.resolve(60, 1, 1) == "DR"


# -- "esiti di lancio", C 7b, C 7c, C 13b ----------------------------------------------------------------------

THROW_COLUMNS = ["1-2", "1-1", "2-1", "3-1", "4-1", "5-1"]
THROW = {  # ours (but 1-1 die 4, C 7c), read from die 1 to die 6
    "1-2": "NE NE NE NE R1 R1",
    "1-1": "NE NE NE R1 R1 R2",
    "2-1": "NE NE R1 R1 R2 R2",
    "3-1": "NE NE R1 R2 R2 P2",
    "4-1": "NE R1 R2 R2 P2 P2",
    "5-1": "NE R1 R2 P2 P2 P2",
}


def test_throw_columns_and_results():
    """C 7b: "1-2", "1-1", "2 a 1" ... "5 a 1"; C 7c: NE, R1, R2, P2."""
    assert [c.label for c in TABLES.throw.columns] == THROW_COLUMNS
    assert THROW_RESULTS == ("NE", "R1", "R2", "P2")


@pytest.mark.parametrize("column", THROW_COLUMNS)
@pytest.mark.parametrize("die", range(1, 7))
def test_throw_cell(column, die):
    """C 7b: "il risultato del dado determina l'esito del lancio secondo la tabella ... «esiti di lancio»"."""
    expected = THROW[column].split()[die - 1]
    odds = Odds.parse(column)
    assert TABLES.throw.result(odds, die) == expected
    assert TABLES.throw.resolve(odds.attacker * 2, odds.defender * 2, die) == expected


def test_throw_worked_example():
    """C 7c: "6/6 lancia su 4/4: il rapporto è 1 a 1, il risultato del dado è 4. L'unità 4/4 del potere
    deve ritirarsi di 1"."""
    six, four = TABLES.unit("spezzone-6-6"), TABLES.unit("celere")
    assert TABLES.throw.resolve(six.power, four.power, 4) == "R1"


@pytest.mark.parametrize("column,face", [("1-2", 4), ("1-1", 3), ("2-1", 2), ("3-1", 2), ("4-1", 1), ("5-1", 1)])
def test_short_throw_face(column, face):
    """C 13b: "il risultato NE di tutti i rapporti di lancio che sta per ultimo prima dei risultati positivi"
    is the short throw: every column has one, just before its first result."""
    odds = Odds.parse(column)
    assert TABLES.throw.short_face(odds) == face
    cells = TABLES.throw.cells(odds)
    assert cells[face - 1] == "NE" and cells[face] != "NE" and set(cells[:face]) == {"NE"}


# -- design properties, exact (docs/games/corteo.md) ------------------------------------------------------

RANK = {code: i for i, code in enumerate(COMBAT_RESULTS)}


def _at_least(dist: dict[str, Fraction], codes: tuple[str, ...], k: int) -> Fraction:
    return sum((dist[c] for c in codes[k:]), F(0))


def test_higher_odds_never_worse_for_the_attacker():
    """C 8a (the odds decide): each column dominates the one to its left, for every threshold of the
    scale AP < AR < DR < DP, and within a column a higher die is never worse."""
    cols = TABLES.combat.columns
    for left, right in zip(cols, cols[1:]):
        a, b = TABLES.combat.distribution(left), TABLES.combat.distribution(right)
        for k in range(1, 4):
            assert _at_least(b, COMBAT_RESULTS, k) >= _at_least(a, COMBAT_RESULTS, k), (left, right, k)
    for odds in cols:
        ranks = [RANK[c] for c in TABLES.combat.cells(odds)]
        assert ranks == sorted(ranks)


def test_one_to_one_is_even_and_the_table_is_symmetric():
    """C 8a: at 1-1 the attacker wins half the time; column 1-n is n-1 from the other side, so only the
    rounding in the defender's favour (C 8a) favours a side."""
    even = TABLES.combat.distribution(Odds(1, 1))
    assert even["DR"] + even["DP"] == F(1, 2)
    swap = {"AP": "DP", "AR": "DR", "DR": "AR", "DP": "AP"}
    for odds in TABLES.combat.columns:
        mine, theirs = TABLES.combat.distribution(odds), TABLES.combat.distribution(odds.mirror())
        assert {swap[c]: p for c, p in mine.items()} == theirs


def test_attacker_chance_per_column():
    """C 8d, the design: certain end columns (worse odds are read there), +1/6 per step near 1-1."""
    wins = [TABLES.combat.distribution(o)["DR"] + TABLES.combat.distribution(o)["DP"]
            for o in TABLES.combat.columns]
    assert wins == [F(k, 6) for k in (0, 1, 1, 2, 3, 4, 5, 5, 6)]


def test_panic_needs_three_to_one():
    """C 8e, C 8f: a corteo panic spreads to every connected unit and those that cannot move are arrested;
    the design keeps panic (of either loser) away below 3-1 and never above one chance in two."""
    for odds in TABLES.combat.columns:
        dp = TABLES.combat.distribution(odds)["DP"]
        assert dp == 0 if odds.ratio < 3 else 0 < dp <= F(1, 2)
    assert [TABLES.combat.distribution(Odds.parse(c))["DP"] for c in ("3-1", "4-1", "5-1")] == \
           [F(1, 6), F(2, 6), F(3, 6)]


def test_throws_never_stronger_than_combat():
    """C 7c: a throw affects only the target and risks nothing; at the same odds it never does more than a
    combat (effect <= attacker's win, P2 <= DP), it is never certain, and tear-gas panic (C 7c: it moves
    the whole connected Corteo) needs 3-1."""
    for odds in TABLES.throw.columns:
        t, c = TABLES.throw.distribution(odds), TABLES.combat.distribution(odds)
        assert 1 - t["NE"] <= c["DR"] + c["DP"]
        assert t["P2"] <= c["DP"]
        assert t["NE"] >= F(1, 6)
        assert (t["P2"] == 0) == (odds.ratio < 3)
    assert 1 - TABLES.throw.distribution(Odds(1, 1))["NE"] == F(1, 2)


def test_throw_table_monotone():
    """C 7b: better odds never worse for the thrower; C 13b: NE first, then the results."""
    cols = TABLES.throw.columns
    for left, right in zip(cols, cols[1:]):
        a, b = TABLES.throw.distribution(left), TABLES.throw.distribution(right)
        for k in range(1, 4):
            assert _at_least(b, THROW_RESULTS, k) >= _at_least(a, THROW_RESULTS, k)
    for odds in cols:
        ranks = [THROW_RESULTS.index(c) for c in TABLES.throw.cells(odds)]
        assert ranks == sorted(ranks)


def test_tear_gas_against_each_corteo_type():
    """C 7e, C 1a: a lone lacrimogeni (6) panics only the weak (4-2 at 3-1, 4-1 at 5-1); the spezzoni and
    4-4 cordoni are at 1-1."""
    gas = TABLES.unit("lacrimogeni").power
    cols = {u.key: TABLES.throw.column(gas, u.power) for u in TABLES.units if u.side == "corteo"}
    assert {k: (v.label if v else None) for k, v in cols.items()} == {
        "gruppo-4-1": "5-1", "cordone-4-2": "3-1", "cordone-4-4": "1-1", "spezzone-6-4": "1-1",
        "spezzone-6-6": "1-1"}


# -- terrain effects, C 8c (combat) and C 7f (throws) ----------------------------------------------------

@pytest.mark.parametrize("key,combat,corteo_factor,no_combat_for,throw_through,no_throw_at", [
    ("strada", "normal", 1, None, True, None),
    ("viale", "normal", 1, None, True, None),
    ("giardino", "normal", 1, None, False, None),
    ("obiettivo", "normal", 1, None, False, None),
    ("salita", "slope", 1, None, False, None),
    ("discesa", "slope", 1, None, True, None),
    ("scale", "none", 1, None, True, None),
    ("caseggiato", "none", 1, None, False, None),
    ("fiume", "none", 1, None, False, None),
    ("muro", "none", 1, None, False, None),
    ("case-popolari", "normal", 2, None, False, None),
    ("affollato", "normal", F(1, 2), None, False, None),
    ("caserma", "normal", 1, "corteo", False, "potere"),
    ("metro", "normal", 1, "potere", False, "corteo"),
])
def test_terrain(key, combat, corteo_factor, no_combat_for, throw_through, no_throw_at):
    """C 8c "Effetti del terreno sullo scontro" and C 7f "Effetti del terreno sui lanci" (walls: ours)."""
    t = TABLES.hex(key)
    assert (t.combat, t.corteo_factor, t.no_combat_for, t.throw_through, t.no_throw_at) == \
           (combat, corteo_factor, no_combat_for, throw_through, no_throw_at)
    assert t.factor("potere") == 1 and t.factor("corteo") == corteo_factor
    assert t.allows_combat("corteo") == (combat != "none" and no_combat_for != "corteo")


def test_slope_barricades_and_jams():
    """C 8c: uphill defender and downhill attacker fight double; C 5d, C 13c: barricades and jams stop
    combat (and, C 13c, throws)."""
    assert (TABLES.slope.defender_uphill, TABLES.slope.attacker_downhill) == (2, 2)
    assert all(TABLES.obstacle(k).blocks_combat and TABLES.obstacle(k).blocks_throws
               for k in ("barricata", "ingorgo"))


# -- rules numbers and single-die rolls, C 7a, C 9, C 10a, C 13 -------------------------------------------------

def test_rule_numbers():
    """C 9: two units per hex; C 10a: +2 per connected unit; C 7a: a throw costs half the movement points,
    once per unit."""
    r = TABLES.rules
    assert (r.stack_limit, r.head_bonus_per_unit, r.throw_cost, r.throws_per_unit) == (2, 2, F(1, 2), 1)


def test_smoke_wind():
    """C 13a: "1-2-3 ... 1 esa, 4 ... 2 esa, 5 ... rimane, 6 ... si dissolve"; direction per face (ours)."""
    assert [TABLES.smoke_drift(d) for d in range(1, 7)] == [1, 1, 1, 2, 0, -1]
    assert sorted(TABLES.smoke.direction) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError):
        TABLES.smoke_drift(7)


@pytest.mark.parametrize("key,faces", [
    ("ingorgo", {1, 3, 5}),            # C 13c
    ("corteo-nazionale", {2, 4, 6}),   # C 13d
    ("dissidenti", {1, 3, 5}),         # D Antifascista: "numeri pari non hanno effetto"
    ("processo", {4, 5, 6}),           # D Antirepressivo
])
def test_single_die_rolls(key, faces):
    """C 13c, C 13d and the scenarios' die checks."""
    assert {d for d in range(1, 7) if TABLES.roll_succeeds(key, d)} == faces


# -- the units and the counter sheet, B 2, C 1a, C 1b, C 13d, D ------------------------------------------------

@pytest.mark.parametrize("key,side,label,throw_range", [
    ("gruppo-4-1", "corteo", "4-1", 0), ("cordone-4-2", "corteo", "4-2", 0), ("cordone-4-4", "corteo", "4-4", 0),
    ("spezzone-6-4", "corteo", "6-4", 3), ("spezzone-6-6", "corteo", "6-6", 3),
    ("blindati", "potere", "8-4", 0), ("celere", "potere", "4-4", 0), ("lacrimogeni", "potere", "4-6", 4),
    ("carabinieri", "potere", "6-4", 0), ("piantoni", "potere", "2-2", 0), ("vigili", "potere", "2-2", 0),
    ("finanza", "potere", "2-2", 0),
])
def test_unit_factors(key, side, label, throw_range):
    """C 1a, C 1b, C 13d: speed-power ("il primo ... velocità ... il secondo ... potenza"); C 7d: spezzoni
    throw 3 hexes, C 7e: lacrimogeni 4."""
    u = TABLES.unit(key)
    assert (u.side, u.label, u.throw_range) == (side, label, throw_range)


def test_power_counters():
    """C 1b: "50 unità per un valore di 190 punti/potenza": 5 blindati, 10 celere, 10 lacrimogeni,
    10 carabinieri, 10 piantoni, 5 vigili; C 13d: 5 Finanza 2-2."""
    s = TABLES.counter_set("potere")
    assert (s.units, s.power) == (50, 190)
    assert {c.unit.key: c.count for c in s.counters} == {
        "blindati": 5, "celere": 10, "lacrimogeni": 10, "carabinieri": 10, "piantoni": 10, "vigili": 5}
    f = TABLES.counter_set("finanza")
    assert (f.units, f.power, f.counters[0].unit.key) == (5, 10, "finanza")


def test_corteo_base_counters():
    """B 2: spezzoni 5 "6-6", 7 "6-4"; cordoni 5 "4-4", 8 "4-2"; gruppi 8 "4-1": 33 units. The text's
    "100 punti" is 102 by its own list (C 1a's "3 da 4-4" gives 31 units, contradicting its "33" and
    C 3a's "le 33 unità del gioco base"): the list is kept, the discrepancy documented."""
    s = TABLES.counter_set("base")
    per_type = {u.key: s.count(u.key) for u in TABLES.units if u.side == "corteo"}
    assert per_type == {"spezzone-6-6": 5, "spezzone-6-4": 7, "cordone-4-4": 5, "cordone-4-2": 8, "gruppo-4-1": 8}
    assert (s.units, s.power) == (33, 102)


def test_scenario_and_optional_counters():
    """D Sociale: 7 MOV units with an asterisk for 32 points, 40 units in all, 16 spezzoni deployed
    (4 crowded + 4 metro + 8 QP) and 24 others; C 13d: forestieri MOV 3 x 4-2 and 1 x 4-4;
    D Antifascista: 5 POC dissidents (factors ours)."""
    star = TABLES.counter_set("asterisco")
    assert (star.units, star.power) == (7, 32) and {c.component for c in star.counters} == {"MOV"}
    base = TABLES.counter_set("base")
    spezzoni = sum(c.count for s in (base, star) for c in s.counters if c.unit.kind == "spezzone")
    assert (base.units + star.units, spezzoni) == (40, 4 + 4 + 8)
    fore = TABLES.counter_set("forestieri")
    assert {(c.component, c.unit.key): c.count for c in fore.counters} == {
        ("MOV", "cordone-4-2"): 3, ("MOV", "cordone-4-4"): 1}
    assert not any(c.reconstructed for c in fore.counters)
    assert TABLES.counter_set("poc").units == 5


def test_components():
    """C 1a: ten political components; D Sociale: the weak units (4-1, 4-2) are "gruppi, zombie,
    femministe, radicali, ML, DP, alcuni LC, alcuni MOV"; D Antirepressivo: AUTOP's spezzoni; C 10: a Head
    is 2 units of one component, so every component a scenario lets lead has two or more."""
    base = TABLES.counter_set("base")
    assert {c.key for c in TABLES.components} == {
        "MOV", "AUTOP", "LC", "DP", "RAD", "FEM", "ML", "ANARCHICI", "GRUPPETTI", "ZOMBIES", "POC"}
    kinds: dict[str, set[str]] = {}
    size: dict[str, int] = {}
    for c in base.counters:
        assert c.component is not None
        kinds.setdefault(c.component, set()).add(c.unit.key)
        size[c.component] = size.get(c.component, 0) + c.count
    weak = {"gruppo-4-1", "cordone-4-2"}
    for comp in ("DP", "RAD", "FEM", "ML", "GRUPPETTI", "ZOMBIES"):
        assert kinds[comp] <= weak, comp
    assert kinds["LC"] & weak and kinds["LC"] - weak and kinds["MOV"] & weak and kinds["MOV"] - weak
    assert not kinds["ANARCHICI"] & weak
    assert {TABLES.unit(k).kind for k in kinds["AUTOP"]} == {"spezzone"}
    for head in ("MOV", "ML", "LC", "AUTOP", "RAD", "ZOMBIES", "GRUPPETTI"):
        assert size[head] >= 2, head
    assert all(c.reconstructed for c in base.counters)


# -- the loader's checks -----------------------------------------------------------------------------------

def _broken(change) -> dict:
    data = copy.deepcopy(_data())
    change(data)
    return data


def _swap_die(data: dict, table: str, column: int, a: int, b: int) -> None:
    rows = data[table]["rows"]
    rows[a][column], rows[b][column] = rows[b][column], rows[a][column]


@pytest.mark.parametrize("change,message", [
    (lambda d: d["combat"]["rows"][2].pop(), "combat: row 3 has 8 cells, expected 9"),
    (lambda d: d["combat"]["rows"].pop(), "combat: 5 rows"),
    (lambda d: d["combat"]["rows"][0].__setitem__(0, "AE"), r"combat: row 1 has unknown results \['AE'\]"),
    (lambda d: d["combat"]["rows"][0].__setitem__(0, "NE"), "unknown results"),
    (lambda d: _swap_die(d, "combat", 4, 0, 5), r"2-1 die 1 \(AR\) is worse for the attacker than 1-1 die 1"),
    (lambda d: d["combat"]["rows"][0].__setitem__(8, "DP"), r"5-1 die 2 \(DR\) is worse .* than die 1"),
    (lambda d: d["combat"]["rows"][5].__setitem__(8, "AR"), "5-1 die 6 \\(AR\\) is worse .* than 4-1 die 6"),
    (lambda d: d["combat"]["columns"].__setitem__(3, "1-3"), "column 1-3 does not follow 1-3"),
    (lambda d: d["combat"]["columns"].__setitem__(0, "2-5"), "not an odds column: '2-5'"),
    (lambda d: d["combat"].update(below="none"), "below must be 'first'"),
    (lambda d: d["throw"]["rows"][0].__setitem__(5, "R1"), r"throw: column 5-1 has no NE .* \(C 13b\)"),
    (lambda d: d["throw"]["rows"][0].__setitem__(0, "DR"), "throw: row 1 has unknown results"),
    (lambda d: d["throw"].update(columns=["2-1", "3-1", "4-1", "5-1", "6-1", "7-1"]), "throw: no 1-1 column"),
    (lambda d: d["throw"]["columns"].pop(0), "throw: row 1 has 6 cells, expected 5"),
    (lambda d: d["terrain"].append(dict(d["terrain"][0])), "terrain 'strada' appears twice"),
    (lambda d: d["terrain"][0].update(combat="bloody"), "bad combat effect 'bloody'"),
    (lambda d: d["terrain"][0].update(corteo_factor="0"), "must be positive"),
    (lambda d: d["terrain"][0].update(no_throw_at="police"), "unknown side 'police'"),
    (lambda d: d["unit"][5].update(throw_range=2), "'blindati': only spezzoni and lacrimogeni throw"),
    (lambda d: d["unit"][3].update(speed=4), "spezzoni are the units with 6 movement points"),
    (lambda d: d["unit"][0].update(kind="celere"), "bad side 'corteo' or kind 'celere'"),
    (lambda d: d["counter"][0].update(count=3), "set 'base' adds up to 34 units / 108 points, declared 33 / 102"),
    (lambda d: d["counter"][0].update(unit="tank"), "unknown unit 'tank'"),
    (lambda d: d["counter"][0].update(component="PCI"), "unknown component 'PCI'"),
    (lambda d: d["counter"][0].pop("component"), "needs a component"),
    (lambda d: d["counter"][0].update(unit="celere"), "'celere' is a potere unit in a corteo set"),
    (lambda d: d["counter"][0].update(set="nowhere"), "unknown set 'nowhere'"),
    (lambda d: d["smoke"].update(direction=[1, 1, 3, 4, 5, 6]), "direction"),
    (lambda d: d["roll"][0].update(success=[1, 7]), "roll 'ingorgo': faces"),
])
def test_inconsistent_data_is_rejected(change, message):
    """The loader names the entry that breaks the rulebook's shape (C 7b, C 7c, C 8d, C 13b, B 2, C 1a-b)."""
    with pytest.raises(TableError, match=message):
        parse_tables(_broken(change))


def test_malformed_text_gives_a_table_error():
    with pytest.raises(TableError):
        load_tables("die = ")
    with pytest.raises(TableError, match="missing"):
        load_tables("die = 6\n")
