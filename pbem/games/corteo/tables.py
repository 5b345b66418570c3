"""Corteo's combat and throw tables, terrain effects and counters, read from ``data/tables.toml``.

The rulebook (C = gioco avanzato) refers to the tables "esiti di scontro" and "esiti di lancio" printed
on the map, which the seed lacks: their cells are ours (docs/games/corteo.md, "Tables"); the odds
columns, the rounding in the defender's favour and the result vocabulary are the rulebook's (C 7b,
C 7c, C 8a, C 8d). The loader checks the data (odds columns in sequence, one cell per die face and
column, only the rulebook's result codes, results never worse for the attacker at higher odds or with
a higher die, C 13b's NE before every throw result, counter sets adding up) and raises ``TableError``
naming the entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Final, Mapping, Sequence

from pbem.games.common.data import find as _find, load_toml

SIDES = ("corteo", "potere")
COMBAT_RESULTS = ("AP", "AR", "DR", "DP")  # C 8d, from the attacker's worst to its best
THROW_RESULTS = ("NE", "R1", "R2", "P2")  # C 7c, from no effect to the worst for the target
COMBAT_KINDS = ("normal", "none", "slope")
CORTEO_KINDS = ("gruppo", "cordone", "spezzone")
POTERE_KINDS = ("blindati", "celere", "lacrimogeni", "carabinieri", "piantoni", "vigili", "finanza")


class TableError(ValueError):
    """The table data is inconsistent; the message says where."""


@dataclass(frozen=True)
class Odds:
    """An odds column, attacker to defender ("3-1", "1-2"); one side is always 1 (C 8a)."""

    attacker: int
    defender: int

    @classmethod
    def parse(cls, text: str) -> "Odds":
        parts = text.split("-")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ValueError(f"not an odds column: {text!r}")
        odds = cls(int(parts[0]), int(parts[1]))
        if min(odds.attacker, odds.defender) != 1:
            raise ValueError(f"not an odds column: {text!r}")
        return odds

    @property
    def ratio(self) -> Fraction:
        return Fraction(self.attacker, self.defender)

    @property
    def label(self) -> str:
        return f"{self.attacker}-{self.defender}"

    def mirror(self) -> "Odds":
        """The same fight seen from the other side: 3-1 <-> 1-3."""
        return Odds(self.defender, self.attacker)

    def __str__(self) -> str:
        return self.label


def _ratio(attack: Fraction | int, defence: Fraction | int) -> Fraction:
    attack, defence = Fraction(attack), Fraction(defence)
    if attack <= 0 or defence <= 0:
        raise ValueError(f"strengths must be positive: {attack} v {defence}")
    return attack / defence


@dataclass(frozen=True)
class ResultTable:
    """One of the two tables: columns of odds, one row per die face (``rows[die - 1][column]``)."""

    CODES: ClassVar[tuple[str, ...]] = ()

    name: str  # "combat" | "throw"
    columns: tuple[Odds, ...]
    rows: tuple[tuple[str, ...], ...]
    below: str  # "first": worse odds are read on the first column (C 8d); "none": no column (C 7b)

    def column(self, attack: Fraction | int, defence: Fraction | int) -> Odds | None:
        """The column for two strengths, rounded in the defender's favour (C 7b, C 8a): the best
        column whose ratio the attacker reaches or exceeds; beyond the last column, the last (C 8d);
        below the first, the first or none (``below``)."""
        ratio = _ratio(attack, defence)
        reached = [c for c in self.columns if ratio >= c.ratio]
        if reached:
            return reached[-1]
        return self.columns[0] if self.below == "first" else None

    def index(self, odds: Odds) -> int:
        try:
            return self.columns.index(odds)
        except ValueError:
            raise ValueError(f"no {self.name} column {odds}") from None

    def result(self, odds: Odds, die: int) -> str:
        """The cell where a die roll meets an odds column (C 8a)."""
        if not 1 <= die <= len(self.rows):
            raise ValueError(f"not a die roll: {die}")
        return self.rows[die - 1][self.index(odds)]

    def cells(self, odds: Odds) -> tuple[str, ...]:
        """A column read from die 1 to die 6."""
        i = self.index(odds)
        return tuple(row[i] for row in self.rows)

    def distribution(self, odds: Odds) -> dict[str, Fraction]:
        """The exact chance of each result in a column (every face equally likely)."""
        cells = self.cells(odds)
        return {code: Fraction(cells.count(code), len(cells)) for code in self.CODES}


@dataclass(frozen=True)
class CombatTable(ResultTable):
    """"Esiti di scontro" (C 8d): AR/DR retreat, AP/DP panic; every combat has a loser."""

    CODES: ClassVar[tuple[str, ...]] = COMBAT_RESULTS

    def odds(self, attack: Fraction | int, defence: Fraction | int) -> Odds:
        """The combat column; never off the table (C 8d)."""
        odds = self.column(attack, defence)
        assert odds is not None
        return odds

    def resolve(self, attack: Fraction | int, defence: Fraction | int, die: int) -> str:
        return self.result(self.odds(attack, defence), die)


@dataclass(frozen=True)
class ThrowTable(ResultTable):
    """"Esiti di lancio" (C 7c): NE, R1, R2, P2; only the target is affected."""

    CODES: ClassVar[tuple[str, ...]] = THROW_RESULTS

    def resolve(self, attack: Fraction | int, defence: Fraction | int, die: int) -> str | None:
        """The throw result, or None when the odds are below the first column (no throw, C 7b)."""
        odds = self.column(attack, defence)
        return None if odds is None else self.result(odds, die)

    def short_face(self, odds: Odds) -> int:
        """C 13b: the face of the last NE before the first result with an effect ("lancio corto")."""
        return self.cells(odds).count("NE")


@dataclass(frozen=True)
class Terrain:
    """A hex type's effects on combat (C 8c) and on throws passing over it (C 7f)."""

    key: str
    combat: str  # "normal" | "none" | "slope"
    throw_through: bool
    corteo_factor: Fraction = Fraction(1)
    no_combat_for: str | None = None  # the side that may not fight in the hex
    no_throw_at: str | None = None  # the side whose units may not be thrown at in the hex

    def allows_combat(self, side: str) -> bool:
        return self.combat != "none" and self.no_combat_for != side

    def factor(self, side: str) -> Fraction:
        """The multiple of a unit's strength in this hex (C 8c: QP x2, crowded x1/2, corteo only)."""
        return self.corteo_factor if side == "corteo" else Fraction(1)


@dataclass(frozen=True)
class Obstacle:
    """A piece that stops combat and throws through its hex (C 5d barricades, C 13c jams)."""

    key: str
    blocks_combat: bool
    blocks_throws: bool


@dataclass(frozen=True)
class Slope:
    """C 8c "esa salita-discesa": the upper unit fights at these multiples."""

    defender_uphill: Fraction
    attacker_downhill: Fraction


@dataclass(frozen=True)
class UnitType:
    """A counter type, "speed-power" (B 2, C 1a, C 1b)."""

    key: str
    side: str
    kind: str
    speed: int
    power: int
    throw_range: int = 0  # hexes, counting the target's (C 7d, C 7e); 0: cannot throw

    @property
    def label(self) -> str:
        return f"{self.speed}-{self.power}"

    @property
    def throws(self) -> bool:
        return self.throw_range > 0


@dataclass(frozen=True)
class Component:
    """A political component of the Corteo, by acronym and colour (C 1a)."""

    key: str
    colour: str


@dataclass(frozen=True)
class Counter:
    """``count`` counters of one type in a set, of one component (corteo) or none (potere)."""

    set: str
    unit: UnitType
    count: int
    component: str | None = None
    reconstructed: bool = False  # the split or the factors are ours, not the rulebook's


@dataclass(frozen=True)
class CounterSet:
    """The counters of one side that enter play together (the base sheet, a scenario's, C 13d's)."""

    key: str
    side: str
    counters: tuple[Counter, ...]

    @property
    def units(self) -> int:
        return sum(c.count for c in self.counters)

    @property
    def power(self) -> int:
        return sum(c.count * c.unit.power for c in self.counters)

    def count(self, unit: str, component: str | None = None) -> int:
        return sum(c.count for c in self.counters
                   if c.unit.key == unit and (component is None or c.component == component))


@dataclass(frozen=True)
class Rules:
    """Numbers the engine needs next to the tables."""

    stack_limit: int  # C 9
    head_bonus_per_unit: int  # C 10a
    throw_cost: Fraction  # C 7a, of the thrower's movement points
    throws_per_unit: int  # C 7a


@dataclass(frozen=True)
class Smoke:
    """C 13a: hexes of drift per face (-1 = dissolves) and the wind direction per face (ours)."""

    drift: tuple[int, ...]
    direction: tuple[int, ...]


@dataclass(frozen=True)
class Tables:
    die: int
    rules: Rules
    combat: CombatTable
    throw: ThrowTable
    terrain: tuple[Terrain, ...]
    obstacles: tuple[Obstacle, ...]
    slope: Slope
    smoke: Smoke
    rolls: Mapping[str, frozenset[int]]
    units: tuple[UnitType, ...]
    components: tuple[Component, ...]
    sets: tuple[CounterSet, ...]
    def hex(self, key: str) -> Terrain:
        return _find(self.terrain, "terrain", key)

    def obstacle(self, key: str) -> Obstacle:
        return _find(self.obstacles, "obstacle", key)

    def unit(self, key: str) -> UnitType:
        return _find(self.units, "unit", key)

    def component(self, key: str) -> Component:
        return _find(self.components, "component", key)

    def counter_set(self, key: str) -> CounterSet:
        return _find(self.sets, "counter set", key)

    def roll_succeeds(self, key: str, die: int) -> bool:
        """C 13c, C 13d and the scenarios' single-die checks."""
        if not 1 <= die <= self.die:
            raise ValueError(f"not a die roll: {die}")
        return die in self.rolls[key]

    def smoke_drift(self, die: int) -> int:
        """C 13a: hexes the smoke drifts (0 stays, -1 dissolves)."""
        if not 1 <= die <= self.die:
            raise ValueError(f"not a die roll: {die}")
        return self.smoke.drift[die - 1]


# -- loading ----------------------------------------------------------------------------------------


def _err(what: str) -> TableError:
    return TableError(f"tables.toml: {what}")


def _fraction(text: Any, what: str) -> Fraction:
    try:
        value = Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        raise _err(f"{what}: not a number: {text!r}") from None
    if value <= 0:
        raise _err(f"{what}: must be positive, not {text!r}")
    return value


def _columns(raw: Sequence[Any], name: str) -> tuple[Odds, ...]:
    """Odds columns must run 1-n ... 1-1 ... n-1 with no gaps (C 7b, C 8d)."""
    try:
        columns = tuple(Odds.parse(str(c)) for c in raw)
    except ValueError as exc:
        raise _err(f"{name}: {exc}") from None
    ratios = [c.ratio for c in columns]
    if Fraction(1) not in ratios:
        raise _err(f"{name}: no 1-1 column")
    for a, b in zip(columns, columns[1:]):
        step_ok = (a.defender == b.defender + 1 and a.attacker == b.attacker == 1) or \
                  (b.attacker == a.attacker + 1 and a.defender == b.defender == 1)
        if not step_ok:
            raise _err(f"{name}: column {b} does not follow {a}")
    return columns


def _rows(raw: Mapping[str, Any], name: str, die: int, columns: tuple[Odds, ...],
          codes: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """One row per die face, one known code per column; never worse for the attacker (or thrower)
    with a higher die or better odds."""
    rows = tuple(tuple(str(cell) for cell in row) for row in raw["rows"])
    if len(rows) != die:
        raise _err(f"{name}: {len(rows)} rows, expected one per die face ({die})")
    for face, row in enumerate(rows, start=1):
        if len(row) != len(columns):
            raise _err(f"{name}: row {face} has {len(row)} cells, expected {len(columns)}")
        bad = [cell for cell in row if cell not in codes]
        if bad:
            raise _err(f"{name}: row {face} has unknown results {bad}")
    rank = {code: i for i, code in enumerate(codes)}
    for face, row in enumerate(rows, start=1):
        for i in range(1, len(columns)):
            if rank[row[i]] < rank[row[i - 1]]:
                raise _err(f"{name}: {columns[i]} die {face} ({row[i]}) is worse for the attacker than "
                           f"{columns[i - 1]} die {face} ({row[i - 1]})")
    for i, odds in enumerate(columns):
        for face in range(2, die + 1):
            lower, upper = rows[face - 2][i], rows[face - 1][i]
            if rank[upper] < rank[lower]:
                raise _err(f"{name}: {odds} die {face} ({upper}) is worse for the attacker than "
                           f"die {face - 1} ({lower})")
    return rows


def _combat(data: Mapping[str, Any], die: int) -> CombatTable:
    raw = data["combat"]
    columns = _columns(raw["columns"], "combat")
    if str(raw["below"]) != "first":
        raise _err("combat: worse odds are read on the first column (C 8d): below must be 'first'")
    return CombatTable("combat", columns, _rows(raw, "combat", die, columns, COMBAT_RESULTS), "first")


def _throw(data: Mapping[str, Any], die: int) -> ThrowTable:
    raw = data["throw"]
    columns = _columns(raw["columns"], "throw")
    below = str(raw["below"])
    if below not in ("first", "none"):
        raise _err(f"throw: below must be 'first' or 'none', not {below!r}")
    rows = _rows(raw, "throw", die, columns, THROW_RESULTS)
    for i, odds in enumerate(columns):
        if rows[0][i] != "NE":
            raise _err(f"throw: column {odds} has no NE before its first result (C 13b)")
        if all(row[i] == "NE" for row in rows):
            raise _err(f"throw: column {odds} has only NE")
    return ThrowTable("throw", columns, rows, below)


def _side(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if value not in SIDES:
        raise _err(f"{what}: unknown side {value!r}")
    return str(value)


def _terrain(data: Mapping[str, Any]) -> tuple[Terrain, ...]:
    terrain: list[Terrain] = []
    for raw in data["terrain"]:
        key = str(raw["key"])
        if key in {t.key for t in terrain}:
            raise _err(f"terrain {key!r} appears twice")
        combat = str(raw["combat"])
        if combat not in COMBAT_KINDS:
            raise _err(f"terrain {key!r}: bad combat effect {combat!r}")
        t = Terrain(key, combat, bool(raw["throw_through"]),
                    _fraction(raw.get("corteo_factor", 1), f"terrain {key!r} corteo_factor"),
                    _side(raw.get("no_combat_for"), f"terrain {key!r} no_combat_for"),
                    _side(raw.get("no_throw_at"), f"terrain {key!r} no_throw_at"))
        if combat == "none" and (t.corteo_factor != 1 or t.no_combat_for):
            raise _err(f"terrain {key!r}: a hex without combat has combat modifiers")
        terrain.append(t)
    return tuple(terrain)


def _units(data: Mapping[str, Any]) -> tuple[UnitType, ...]:
    units: list[UnitType] = []
    for raw in data["unit"]:
        key = str(raw["key"])
        if key in {u.key for u in units}:
            raise _err(f"unit {key!r} appears twice")
        u = UnitType(key, str(raw["side"]), str(raw["kind"]), int(raw["speed"]), int(raw["power"]),
                     int(raw.get("throw_range", 0)))
        kinds = CORTEO_KINDS if u.side == "corteo" else POTERE_KINDS if u.side == "potere" else ()
        if u.kind not in kinds:
            raise _err(f"unit {key!r}: bad side {u.side!r} or kind {u.kind!r}")
        if u.speed < 1 or u.power < 1 or u.throw_range < 0:
            raise _err(f"unit {key!r}: speed, power or throw range out of range")
        # C 7d: only the spezzoni (speed 6) throw; C 7e: only the lacrimogeni.
        if u.throws != (u.kind in ("spezzone", "lacrimogeni")):
            raise _err(f"unit {key!r}: only spezzoni and lacrimogeni throw (C 7d, C 7e)")
        if u.kind == "spezzone" and u.speed != 6:
            raise _err(f"unit {key!r}: spezzoni are the units with 6 movement points (C 7d)")
        units.append(u)
    return tuple(units)


def _sets(data: Mapping[str, Any], units: tuple[UnitType, ...],
          components: tuple[Component, ...]) -> tuple[CounterSet, ...]:
    by_unit = {u.key: u for u in units}
    comps = {c.key for c in components}
    declared: dict[str, tuple[str, int, int]] = {}
    for raw in data["counter_set"]:
        key = str(raw["key"])
        if key in declared:
            raise _err(f"counter set {key!r} appears twice")
        side = _side(raw["side"], f"counter set {key!r}")
        assert side is not None
        declared[key] = (side, int(raw["units"]), int(raw["power"]))
    lines: dict[str, list[Counter]] = {key: [] for key in declared}
    for raw in data["counter"]:
        set_key, unit_key = str(raw["set"]), str(raw["unit"])
        if set_key not in declared:
            raise _err(f"counter of {unit_key!r}: unknown set {set_key!r}")
        if unit_key not in by_unit:
            raise _err(f"counter in set {set_key!r}: unknown unit {unit_key!r}")
        unit, side = by_unit[unit_key], declared[set_key][0]
        component = str(raw["component"]) if "component" in raw else None
        if unit.side != side:
            raise _err(f"set {set_key!r}: {unit_key!r} is a {unit.side} unit in a {side} set")
        if (component is None) != (side == "potere"):
            raise _err(f"set {set_key!r}: {unit_key!r} needs a component if and only if it is a corteo unit")
        if component is not None and component not in comps:
            raise _err(f"set {set_key!r}: unknown component {component!r}")
        count = int(raw["count"])
        if count < 1:
            raise _err(f"set {set_key!r}: {unit_key!r} count {count}")
        if any(c.unit.key == unit_key and c.component == component for c in lines[set_key]):
            raise _err(f"set {set_key!r}: {unit_key!r} of {component} appears twice")
        lines[set_key].append(Counter(set_key, unit, count, component, bool(raw.get("reconstructed", False))))
    sets: list[CounterSet] = []
    for key, (side, n_units, n_power) in declared.items():
        s = CounterSet(key, side, tuple(lines[key]))
        if (s.units, s.power) != (n_units, n_power):
            raise _err(f"counter set {key!r} adds up to {s.units} units / {s.power} points, "
                       f"declared {n_units} / {n_power}")
        sets.append(s)
    return tuple(sets)


def _faces(values: Sequence[Any], die: int, what: str) -> frozenset[int]:
    faces = [int(v) for v in values]
    if not faces or len(set(faces)) != len(faces) or any(not 1 <= f <= die for f in faces):
        raise _err(f"{what}: faces must be distinct numbers 1..{die}")
    return frozenset(faces)


def parse_tables(data: Mapping[str, Any]) -> Tables:
    """Build and check the tables from parsed TOML."""
    die = int(data["die"])
    if die < 2:
        raise _err(f"die {die}")
    r = data["rules"]
    rules = Rules(int(r["stack_limit"]), int(r["head_bonus_per_unit"]),
                  _fraction(r["throw_cost"], "rules throw_cost"), int(r["throws_per_unit"]))
    terrain = _terrain(data)
    obstacles = tuple(Obstacle(str(o["key"]), bool(o["blocks_combat"]), bool(o["blocks_throws"]))
                      for o in data["obstacle"])
    if len({o.key for o in obstacles}) != len(obstacles):
        raise _err("an obstacle appears twice")
    s = data["slope"]
    slope = Slope(_fraction(s["defender_uphill"], "slope defender_uphill"),
                  _fraction(s["attacker_downhill"], "slope attacker_downhill"))
    sm = data["smoke"]
    smoke = Smoke(tuple(int(v) for v in sm["drift"]), tuple(int(v) for v in sm["direction"]))
    if len(smoke.drift) != die or any(v < -1 for v in smoke.drift):
        raise _err(f"smoke: drift needs one number >= -1 per die face ({die})")
    if sorted(smoke.direction) != list(range(1, die + 1)):
        raise _err("smoke: direction must name each of the six neighbours once")
    rolls: dict[str, frozenset[int]] = {}
    for raw in data["roll"]:
        key = str(raw["key"])
        if key in rolls:
            raise _err(f"roll {key!r} appears twice")
        rolls[key] = _faces(raw["success"], die, f"roll {key!r}")
    units = _units(data)
    components = tuple(Component(str(c["key"]), str(c["colour"])) for c in data["component"])
    if len({c.key for c in components}) != len(components):
        raise _err("a component appears twice")
    sets = _sets(data, units, components)
    return Tables(die, rules, _combat(data, die), _throw(data, die), terrain, obstacles, slope, smoke, rolls,
                  units, components, sets)


def load_tables(text: str | None = None) -> Tables:
    """The tables from ``text`` (TOML) or from the packaged ``data/tables.toml``."""
    return load_toml("pbem.games.corteo.data", "tables.toml", text, parse_tables, TableError)


TABLES: Final = load_tables()
