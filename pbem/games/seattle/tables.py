"""Every table of The Battle of Seattle's rulebook, read from ``data/tables.toml``.

The loader checks the data (bands contiguous, every two-dice reading 11-66 has exactly one event,
every CRT cell known, ...) and raises ``TableError`` with the place of the inconsistency.
A few pure helpers read the tables the way the rulebook says (section numbers in docstrings).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Final, Iterable, Mapping

from pbem.games.common.data import load_toml

SIDES = ("demonstrators", "authorities")
UNIT_KINDS = ("group", "crowd", "police")
RESULTS = ("N", "MC", "A", "X")
DURATIONS = ("now", "turn", "demonstrator-turn", "until-morning", "game")
PHASES_WHEN = ("random-event", "combat", "end")
_AMOUNT = re.compile(r"([+-]?)(?:([0-9]+)d6|([0-9]+))")


class TableError(ValueError):
    """The table data is inconsistent; the message says where."""


@dataclass(frozen=True)
class Amount:
    """A signed number of units or points: ``sign * (sum of `dice` d6 + constant)``."""

    sign: int  # +1 | -1
    dice: int
    constant: int

    @classmethod
    def parse(cls, text: str) -> "Amount":
        m = _AMOUNT.fullmatch(text.replace(" ", ""))
        if not m:
            raise TableError(f"tables.toml: bad amount {text!r}")
        sign = -1 if m.group(1) == "-" else 1
        if m.group(2) is not None:
            if int(m.group(2)) == 0:
                raise TableError(f"tables.toml: bad amount {text!r}")
            return cls(sign, int(m.group(2)), 0)
        return cls(1 if int(m.group(3)) == 0 else sign, 0, int(m.group(3)))

    @property
    def is_fixed(self) -> bool:
        return self.dice == 0

    @property
    def minimum(self) -> int:
        return min(self.sign * (self.dice + self.constant), self.sign * (6 * self.dice + self.constant))

    @property
    def maximum(self) -> int:
        return max(self.sign * (self.dice + self.constant), self.sign * (6 * self.dice + self.constant))

    def value(self, roll: Callable[[], int] | None = None) -> int:
        """The amount, rolling ``roll()`` (a d6) once per die."""
        if self.dice and roll is None:
            raise ValueError(f"{self} needs dice")
        total = self.constant + sum(roll() for _ in range(self.dice)) if roll else self.constant
        return self.sign * total

    def __str__(self) -> str:
        body = f"{self.dice}d6" if self.dice else str(self.constant)
        return body if self.sign > 0 or body == "0" else f"-{body}"


@dataclass(frozen=True)
class UnitType:
    key: str
    side: str
    kind: str  # "group" | "crowd" | "police"
    colour: str
    count: int
    combat: int
    morale: int
    move: int
    code: str = ""  # counter ids are code + number: "AN3", "SPD12"

    def ids(self) -> tuple[str, ...]:
        return tuple(f"{self.code}{n}" for n in range(1, self.count + 1))


@dataclass(frozen=True)
class Marker:
    key: str
    colour: str
    count: int


@dataclass(frozen=True)
class Setup:
    authorities_visibility: int
    demonstrators_visibility: int
    spd_area: str
    spd_on_map: int
    random_crowds: int


@dataclass(frozen=True)
class Period:
    key: str
    hours: int
    night: bool
    start: str


@dataclass(frozen=True)
class Turn:
    number: int
    date: str  # ISO date
    period: Period
    optional: bool  # only when the players agree to play to 3 December

    @property
    def night(self) -> bool:
        return self.period.night


@dataclass(frozen=True)
class ReinforcementBand:
    min: int
    max: int | None  # None: no upper limit
    groups: Amount
    crowds: Amount
    spd: Amount
    reaction: int


@dataclass(frozen=True)
class Event:
    first: int
    last: int
    key: str
    duration: str
    faction: str | None = None
    dice: Amount | None = None
    visibility_authorities: int = 0
    visibility_demonstrators: int = 0
    arrival_delay: int = 0
    morale_bonus: int = 0
    combat_multiplier: int = 1

    def covers(self, roll: int) -> bool:
        return self.first <= roll <= self.last


@dataclass(frozen=True)
class CombatResults:
    columns: tuple[tuple[int, int | None], ...]
    rows: tuple[tuple[str, ...], ...]  # rows[die - 1][column]

    def column(self, total: int) -> int:
        """The CRT column (0-based) of a modified combat total (6.1)."""
        for i, (lo, hi) in enumerate(self.columns):
            if total >= lo and (hi is None or total <= hi):
                return i
        raise ValueError(f"no CRT column for a combat total of {total}")

    def result(self, total: int, die: int) -> str:
        """"N", "MC", "A" or "X" for ``total`` and a d6 roll (6.1)."""
        if not 1 <= die <= len(self.rows):
            raise ValueError(f"not a die roll: {die}")
        return self.rows[die - 1][self.column(total)]


@dataclass(frozen=True)
class Modifier:
    key: str
    effect: str  # "double" | "half"
    side: str  # "authorities" | "demonstrators" | "both"
    per_unit: bool


@dataclass(frozen=True)
class EscalationPhase:
    phase: int
    entry: str
    special_munitions: bool
    emergency_wsp_ngmp: bool
    barricades: bool
    x_as_a: bool
    combat_multiplier: int
    authorities_can_win: bool


@dataclass(frozen=True)
class VisibilityRule:
    key: str
    when: str
    per: str
    authorities: Amount | str | None  # str: "event" or "exposure"
    demonstrators: Amount | str | None
    choice: bool
    round_up_per: int


@dataclass(frozen=True)
class VictoryBand:
    key: str
    min: int | None
    max: int | None


@dataclass(frozen=True)
class RuleNumbers:
    crowds_per_area: int
    barricades_per_area: int
    reaction_move: int
    barricade_roll: Mapping[str, tuple[int, ...]]
    spd_per_visibility_point: int
    emergency_visibility: int
    emergency_delay: Mapping[str, int]


@dataclass(frozen=True)
class Tables:
    die: int
    units: tuple[UnitType, ...]
    markers: tuple[Marker, ...]
    setup: Setup
    periods: tuple[Period, ...]
    turns: tuple[Turn, ...]
    sequence: tuple[str, ...]
    reinforcements: tuple[ReinforcementBand, ...]
    rules: RuleNumbers
    events: tuple[Event, ...]
    crt: CombatResults
    modifiers: tuple[Modifier, ...]
    escalation: tuple[EscalationPhase, ...]
    visibility: tuple[VisibilityRule, ...]
    victory: tuple[VictoryBand, ...]
    _units: dict[str, UnitType] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_units", {u.key: u for u in self.units})

    def unit(self, key: str) -> UnitType:
        return self._units[key]

    def by_code(self, code: str) -> UnitType | None:
        return next((u for u in self.units if u.code == code), None)

    @property
    def scheduled_turns(self) -> tuple[Turn, ...]:
        """The turns of the standard game (2.4: to the afternoon of 2 December)."""
        return tuple(t for t in self.turns if not t.optional)

    def turn(self, number: int) -> Turn:
        return self.turns[number - 1]

    def reinforcement(self, visibility: int) -> ReinforcementBand:
        """The row of the reinforcement table for a Visibility Index (4.21)."""
        for band in self.reinforcements:
            if visibility >= band.min and (band.max is None or visibility <= band.max):
                return band
        raise ValueError(f"no reinforcement band for a Visibility Index of {visibility}")

    def event(self, roll: int) -> Event:
        """The random event for a two-dice reading, first die tens, second units (4.1)."""
        for ev in self.events:
            if ev.covers(roll) and 1 <= roll % 10 <= self.die:
                return ev
        raise ValueError(f"not a two-dice reading: {roll}")

    def event_for_dice(self, tens: int, units: int) -> Event:
        if not (1 <= tens <= self.die and 1 <= units <= self.die):
            raise ValueError(f"not two dice: {tens}, {units}")
        return self.event(tens * 10 + units)

    def modifier(self, key: str) -> Modifier:
        for m in self.modifiers:
            if m.key == key:
                return m
        raise KeyError(key)

    def escalation_phase(self, phase: int) -> EscalationPhase:
        return self.escalation[phase - 1]

    def visibility_rule(self, key: str) -> VisibilityRule:
        for r in self.visibility:
            if r.key == key:
                return r
        raise KeyError(key)

    def victory_level(self, demonstrators: int, authorities: int, phase: int = 1) -> str:
        """The outcome of 8.0 and 7.3: "authorities", "marginal", "substantive" or "decisive".

        In escalation phase 3 the Authorities cannot win: their win becomes a marginal one for
        the Demonstrators; any larger Demonstrator lead keeps its band.
        """
        lead = demonstrators - authorities
        for band in self.victory:
            if (band.min is None or lead >= band.min) and (band.max is None or lead <= band.max):
                if band.key == "authorities" and not self.escalation_phase(phase).authorities_can_win:
                    return "marginal"
                return band.key
        raise ValueError(f"no victory band for a lead of {lead}")

    def spd_visibility(self, spd_on_map: int) -> int:
        """End-phase change of the Authorities' index for their SPD units on the map (rounded up)."""
        rule = self.visibility_rule("spd-on-map")
        assert isinstance(rule.authorities, Amount)
        return rule.authorities.value() * math.ceil(spd_on_map / rule.round_up_per)


def modified_total(units: Iterable[tuple[int, int]], halvings: int = 0) -> int:
    """A side's combat total (6.2): each unit is ``(factor, doublings)``; the doubled factors are
    summed, then the total is halved ``halvings`` times, each time rounding up."""
    total = sum(factor * 2 ** doublings for factor, doublings in units)
    for _ in range(halvings):
        total = -(-total // 2)
    return total


def add_visibility(own: int, other: int, delta: int) -> tuple[int, int]:
    """Apply ``delta`` to a side's index (2.3): never below zero, the points below zero go to the
    other side.  Returns the new ``(own, other)``."""
    new = own + delta
    if new < 0:
        return 0, other - new
    return new, other


# -- loading ----------------------------------------------------------------------------------


def _err(what: str) -> TableError:
    return TableError(f"tables.toml: {what}")


def _bands(rows: list[tuple[int | None, int | None]], what: str, start: int | None) -> None:
    """Check that bands follow each other without gaps or overlaps; only the ends may be open."""
    for i, (lo, hi) in enumerate(rows):
        if lo is None and (i > 0 or start is not None):
            raise _err(f"{what} band {i + 1} has no min")
        if hi is None and i != len(rows) - 1:
            raise _err(f"{what} band {i + 1} has no max but is not the last")
        if lo is not None and hi is not None and hi < lo:
            raise _err(f"{what} band {i + 1} runs backwards ({lo}..{hi})")
        if i == 0 and start is not None and lo != start:
            raise _err(f"{what} must start at {start}, not {lo}")
        if i > 0:
            prev = rows[i - 1][1]
            if prev is None or lo != prev + 1:
                raise _err(f"{what} band {i + 1} starts at {lo}, expected {None if prev is None else prev + 1}")
    if rows and rows[-1][1] is not None:
        raise _err(f"{what}: the last band must have no max")


def _opt_int(raw: Mapping[str, Any], key: str) -> int | None:
    return int(raw[key]) if key in raw else None


def _units(data: Mapping[str, Any], die: int) -> tuple[UnitType, ...]:
    units: list[UnitType] = []
    for raw in data["unit"]:
        u = UnitType(str(raw["key"]), str(raw["side"]), str(raw["kind"]), str(raw["colour"]), int(raw["count"]),
                     int(raw["combat"]), int(raw["morale"]), int(raw["move"]), str(raw["code"]))
        if u.key in {v.key for v in units}:
            raise _err(f"unit {u.key!r} appears twice")
        if not re.fullmatch(r"[A-Z]{2,4}", u.code) or u.code in {v.code for v in units}:
            raise _err(f"unit {u.key!r}: code {u.code!r} must be 2-4 capital letters, unique")
        if u.side not in SIDES or u.kind not in UNIT_KINDS:
            raise _err(f"unit {u.key!r}: bad side {u.side!r} or kind {u.kind!r}")
        if (u.side == "authorities") != (u.kind == "police"):
            raise _err(f"unit {u.key!r}: kind {u.kind!r} does not fit side {u.side!r}")
        # 2.1: Crowds always move 1; Groups move more.
        if u.kind == "crowd" and u.move != 1 or u.kind == "group" and u.move <= 1:
            raise _err(f"unit {u.key!r}: a {u.kind} with movement {u.move} (2.1)")
        if u.count < 1 or u.combat < 1 or u.move < 1 or not 1 <= u.morale <= die:
            raise _err(f"unit {u.key!r}: factors or count out of range")
        units.append(u)
    return tuple(units)


def _turns(data: Mapping[str, Any]) -> tuple[tuple[Period, ...], tuple[Turn, ...]]:
    periods = tuple(Period(str(p["key"]), int(p["hours"]), bool(p["night"]), str(p["start"]))
                    for p in data["period"])
    by_key = {p.key: p for p in periods}
    if len(by_key) != len(periods) or sum(p.hours for p in periods) != 24:
        raise _err("the periods must have unique keys and make up 24 hours")
    turns: list[Turn] = []
    for i, row in enumerate(data["turns"]["track"], start=1):
        number, date, period, optional = row
        if number != i:
            raise _err(f"turn track: turn {number} where {i} was expected")
        if period not in by_key:
            raise _err(f"turn track: turn {i} has unknown period {period!r}")
        expected = periods[(i - 1) % len(periods)]
        if by_key[period] != expected:
            raise _err(f"turn track: turn {i} is {period!r}, expected {expected.key!r}")
        if turns and turns[-1].optional and not optional:
            raise _err(f"turn track: turn {i} is standard but follows an optional turn")
        turns.append(Turn(int(number), str(date), by_key[period], bool(optional)))
    for prev, nxt in zip(turns, turns[1:]):
        if (nxt.date != prev.date) != (prev.period.key == periods[-1].key):
            raise _err(f"turn track: the date changes wrongly between turns {prev.number} and {nxt.number}")
    return periods, tuple(turns)


def _reinforcements(data: Mapping[str, Any]) -> tuple[ReinforcementBand, ...]:
    bands = tuple(ReinforcementBand(int(r["min"]), _opt_int(r, "max"), Amount.parse(str(r["groups"])),
                                    Amount.parse(str(r["crowds"])), Amount.parse(str(r["spd"])),
                                    int(r["reaction"])) for r in data["reinforcement"])
    _bands([(b.min, b.max) for b in bands], "reinforcement", 0)
    reactions = [b.reaction for b in bands]
    if reactions != sorted(reactions) or reactions[0] < 0:
        raise _err("reinforcement: reaction limits must be >= 0 and grow with visibility")
    return bands


def _events(data: Mapping[str, Any], die: int, factions: set[str]) -> tuple[Event, ...]:
    events: list[Event] = []
    covered: dict[int, str] = {}
    for raw in data["event"]:
        first, last, key = int(raw["first"]), int(raw["last"]), str(raw["key"])
        if key in {e.key for e in events}:
            raise _err(f"event {key!r} appears twice")
        if first // 10 != last // 10 or not 1 <= first % 10 <= last % 10 <= die or not 1 <= first // 10 <= die:
            raise _err(f"event {key!r}: {first}-{last} is not a range of two-dice readings")
        duration = str(raw["duration"])
        if duration not in DURATIONS:
            raise _err(f"event {key!r}: bad duration {duration!r}")
        faction = str(raw["faction"]) if "faction" in raw else None
        if faction is not None and faction not in factions:
            raise _err(f"event {key!r}: unknown faction {faction!r}")
        for roll in range(first, last + 1):
            if roll in covered:
                raise _err(f"event reading {roll} is both {covered[roll]!r} and {key!r}")
            covered[roll] = key
        events.append(Event(first, last, key, duration, faction,
                            Amount.parse(str(raw["dice"])) if "dice" in raw else None,
                            int(raw.get("visibility_authorities", 0)), int(raw.get("visibility_demonstrators", 0)),
                            int(raw.get("arrival_delay", 0)), int(raw.get("morale_bonus", 0)),
                            int(raw.get("combat_multiplier", 1))))
    missing = [t * 10 + u for t in range(1, die + 1) for u in range(1, die + 1) if t * 10 + u not in covered]
    if missing:
        raise _err(f"no event for the readings {missing}")
    return tuple(events)


def _crt(data: Mapping[str, Any], die: int) -> CombatResults:
    raw = data["crt"]
    columns = tuple((int(c["min"]), _opt_int(c, "max")) for c in raw["columns"])
    _bands(list(columns), "crt column", 1)
    rows = tuple(tuple(str(cell) for cell in row) for row in raw["rows"])
    if len(rows) != die:
        raise _err(f"crt: {len(rows)} rows, expected one per die face ({die})")
    for i, row in enumerate(rows, start=1):
        if len(row) != len(columns):
            raise _err(f"crt: row {i} has {len(row)} cells, expected {len(columns)}")
        bad = [cell for cell in row if cell not in RESULTS]
        if bad:
            raise _err(f"crt: row {i} has unknown results {bad}")
    return CombatResults(columns, rows)


def _side_amount(raw: Mapping[str, Any], key: str, rule: str) -> Amount | str | None:
    if key not in raw:
        return None
    text = str(raw[key])
    if text in ("event", "exposure"):
        return text
    try:
        return Amount.parse(text)
    except TableError:
        raise _err(f"visibility {rule!r}: bad {key} amount {text!r}") from None


def _visibility(data: Mapping[str, Any]) -> tuple[VisibilityRule, ...]:
    rules: list[VisibilityRule] = []
    for raw in data["visibility"]:
        key = str(raw["key"])
        rule = VisibilityRule(key, str(raw["when"]), str(raw["per"]), _side_amount(raw, "authorities", key),
                              _side_amount(raw, "demonstrators", key), bool(raw.get("choice", False)),
                              int(raw.get("round_up_per", 1)))
        if key in {r.key for r in rules}:
            raise _err(f"visibility {key!r} appears twice")
        if rule.when not in PHASES_WHEN:
            raise _err(f"visibility {key!r}: bad phase {rule.when!r}")
        if rule.authorities is None and rule.demonstrators is None:
            raise _err(f"visibility {key!r} changes nobody's index")
        if rule.choice and (rule.authorities is None or rule.demonstrators is None):
            raise _err(f"visibility {key!r}: a choice needs both amounts")
        if rule.round_up_per < 1:
            raise _err(f"visibility {key!r}: bad round_up_per")
        rules.append(rule)
    return tuple(rules)


def parse_tables(data: Mapping[str, Any], area_ids: Iterable[str] | None = None) -> Tables:
    """Build and check the tables from parsed TOML; ``area_ids`` checks the set-up's areas."""
    die = int(data["die"])
    units = _units(data, die)
    factions = {u.key for u in units}
    for needed in ("spd", "wsp", "ngmp"):
        if needed not in factions:
            raise _err(f"unit {needed!r} is missing")
    markers = tuple(Marker(str(m["key"]), str(m["colour"]), int(m["count"])) for m in data["marker"])
    s = data["setup"]
    setup = Setup(int(s["authorities_visibility"]), int(s["demonstrators_visibility"]), str(s["spd_area"]),
                  int(s["spd_on_map"]), int(s["random_crowds"]))
    if area_ids is not None and setup.spd_area not in set(area_ids):
        raise _err(f"setup: unknown area {setup.spd_area!r}")
    periods, turns = _turns(data)
    sequence = tuple(str(p) for p in data["sequence"]["phases"])
    if len(set(sequence)) != len(sequence):
        raise _err("sequence: a phase appears twice")
    reinforcements = _reinforcements(data)
    r, e = data["rules"], data["emergency"]
    barricade_roll = {str(k): tuple(int(v) for v in vs) for k, vs in r["barricade_roll"].items()}
    if set(barricade_roll) != {"group", "crowd"} or any(not 1 <= v <= die for vs in barricade_roll.values() for v in vs):
        raise _err("rules: barricade_roll needs group and crowd die faces")
    delay = {str(k): int(v) for k, v in e["delay"].items()}
    if set(delay) != {u.key for u in units if u.side == "authorities"}:
        raise _err("emergency: a delay is needed for every Authority unit type")
    rules = RuleNumbers(int(r["crowds_per_area"]), int(r["barricades_per_area"]), int(r["reaction_move"]),
                        barricade_roll, int(r["spd_per_visibility_point"]), int(e["visibility"]), delay)
    events = _events(data, die, factions)
    crt = _crt(data, die)
    modifiers = tuple(Modifier(str(m["key"]), str(m["effect"]), str(m["side"]), bool(m["per_unit"]))
                      for m in data["modifier"])
    for m in modifiers:
        if m.effect not in ("double", "half") or m.side not in (*SIDES, "both"):
            raise _err(f"modifier {m.key!r}: bad effect or side")
    escalation = tuple(EscalationPhase(int(p["phase"]), str(p["entry"]), bool(p["special_munitions"]),
                                       bool(p["emergency_wsp_ngmp"]), bool(p["barricades"]), bool(p["x_as_a"]),
                                       int(p["combat_multiplier"]), bool(p["authorities_can_win"]))
                       for p in data["escalation"])
    if [p.phase for p in escalation] != list(range(1, len(escalation) + 1)):
        raise _err("escalation: phases must be numbered 1, 2, 3, ...")
    visibility = _visibility(data)
    spd_rule = next((v for v in visibility if v.key == "spd-on-map"), None)
    if spd_rule is None or spd_rule.round_up_per != rules.spd_per_visibility_point:
        raise _err("visibility 'spd-on-map' must round up per rules.spd_per_visibility_point")
    victory = tuple(VictoryBand(str(v["key"]), _opt_int(v, "min"), _opt_int(v, "max")) for v in data["victory"])
    _bands([(v.min, v.max) for v in victory], "victory", None)
    return Tables(die, units, markers, setup, periods, turns, sequence, reinforcements, rules, events, crt,
                  modifiers, escalation, visibility, victory)


def load_tables(text: str | None = None, area_ids: Iterable[str] | None = None) -> Tables:
    """The tables from ``text`` (TOML) or from the packaged ``data/tables.toml``."""
    return load_toml("pbem.games.seattle.data", "tables.toml", text, lambda data: parse_tables(data, area_ids),
                     TableError)


def _load() -> Tables:
    from pbem.games.seattle.map import MAP

    return load_tables(area_ids=MAP.area_ids)


TABLES: Final = _load()
