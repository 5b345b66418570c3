"""The state of a game of Corteo: frozen dataclasses, encoded with `pbem.core.codec`.

A unit's place is a hex label (``K12``) or a box: the power's units not yet in play, the prison
(8f), off the map (8h: the edge part and the hand it comes back).  The state also holds the
pieces on the map (barricades, jams, smoke, covered objectives), the objectives held at the end
of the last hand, the corteo's points, runs and barricades left, the Head, each side's standing
instructions, and the record of what happened since the last phase a player answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.games.corteo.units import CORTEO, POTERE, SEATS

VERSION = "1"
MODES = ("advanced", "basic")
OPTIONS = ("smoke", "short", "jams", "national")  # C 13a-13d

RESERVE = "reserve"  # the power's units off the map, not yet in play (C 3a, 6c)
PRISON = "prison"  # arrested corteo units (C 8f)
HOME = "home"  # D Sociale: a weak unit gone home off the map (out of the game, not arrested)
OFF = "off:"  # "off:N2:5": off the map by the North edge, part 2, back in hand 5 (C 8h)


def off(edge: str, part: int, back: int) -> str:
    return f"{OFF}{edge}{part}:{back}"


def off_parts(loc: str) -> tuple[str, int, int] | None:
    """(edge, part, hand of return) of an off-map place, else None."""
    if not loc.startswith(OFF):
        return None
    where, back = loc[len(OFF):].split(":")
    return where[0], int(where[1:]), int(back)


@dataclass(frozen=True)
class Unit:
    id: str
    loc: str  # a hex label or a box
    panicked: bool = False  # power: face down in a barracks until its next movement phase (8g)
    panic_hand: int = 0  # the hand it panicked in: it turns face up in the power's movement of the next
    presidio: bool = False  # piantoni bound to their objective (6b)
    waiting: bool = False  # C 13d: forestieri / Finanza placed but not yet in the game


def relocated(unit: Unit, loc: str, *, waiting: bool | None = None, presidio: bool | None = None) -> Unit:
    """``dataclasses.replace(unit, loc=loc, ...)`` for the flags given, built directly: a unit is
    moved for every line of a sheet, and ``replace`` reads the fields' list each time. The copy's
    fields are written into its ``__dict__`` as the frozen ``__init__`` would write them, without
    its ``object.__setattr__`` for each field (about 0.5 against 1.5 us)."""
    new = object.__new__(Unit)
    fields = new.__dict__
    fields.update(unit.__dict__)
    fields["loc"] = loc
    if presidio is not None:
        fields["presidio"] = presidio
    if waiting is not None:
        fields["waiting"] = waiting
    return new


@dataclass(frozen=True)
class Barricade:
    hex: str
    hand: int  # built in this hand; removable from the next (5d)


@dataclass(frozen=True)
class Smoke:
    hex: str
    until: str  # "hand" (removed after the power's combat) | "corteo" (after the corteo's next turn, 13a: 5)


@dataclass(frozen=True)
class Standing:
    """A side's standing instructions for the choices the rules give it during the other's turn
    or in the middle of a resolution (7c, 8d, 8e, 8g)."""

    toward: str | None = None  # own retreats go toward this hex (default: see docs)
    push: str | None = None  # potere: panicked corteo units are pushed toward this hex
    barracks: tuple[int, ...] = ()  # corteo: barracks preferred for panicked power units


# -- the record of what happened (report and map) ---------------------------------------------


@dataclass(frozen=True)
class Step:
    unit: str
    path: tuple[str, ...]  # the start first
    kind: str = "move"  # move | metro | retreat | panic | advance | arrest | offmap | back | place | enter | barracks


@dataclass(frozen=True)
class Throw:
    units: tuple[str, ...]
    origin: str
    target: str  # the hex aimed at
    hit: str  # the hex hit (13b: one short)
    targets: tuple[str, ...]
    strength: str
    against: str
    odds: str
    roll: int
    result: str
    short: bool = False


@dataclass(frozen=True)
class Fight:
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    attack: str  # the strength, as a text with its terms
    defence: str
    odds: str
    roll: int
    result: str
    losers: tuple[str, ...] = ()  # every unit the result moved (a Head carries the whole Corteo)
    arrested: tuple[str, ...] = ()
    panicked: tuple[str, ...] = ()
    advanced: tuple[str, ...] = ()


@dataclass(frozen=True)
class Note:
    key: str
    args: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class PhaseLog:
    hand: int
    phase: str
    steps: tuple[Step, ...] = ()
    throws: tuple[Throw, ...] = ()
    fights: tuple[Fight, ...] = ()
    notes: tuple[Note, ...] = ()


@dataclass(frozen=True)
class Result:
    corteo: int  # objective points
    potere: int  # arrested strength + spezzoni caught on the map
    final: int
    level: str
    verdict: int


@dataclass(frozen=True)
class Mobile:
    """A mobile objective of a scenario (D): a piece of the Corteo Presidenziale or of the
    reactionary rally. Not a unit: no ZOC, no strength, no combat."""

    id: str  # PRE1-PRE5, COM1-COM10
    loc: str  # its hex (in a clinic: the clinic hex; gone or saved: the hex it left from)
    status: str = "map"  # map | clinic (sent to hospital) | saved (in a barracks) | gone (off the East edge)
    moved: int = 0  # the last hand it moved in


@dataclass(frozen=True)
class Tally:
    """Scenario points of one hand (D): who scores, why, how much."""

    hand: int
    side: str
    key: str  # the reason (tally-<key> in the texts)
    points: int
    what: str = ""  # the piece, hex or line it was scored for


@dataclass(frozen=True)
class State:
    version: str
    mode: str  # "advanced" | "basic"
    options: tuple[str, ...] = ()
    hand: int = 0  # 0: set-up
    stage: str = "setup"
    units: tuple[Unit, ...] = ()
    barricades: tuple[Barricade, ...] = ()
    barricades_left: int = 10
    jams: tuple[str, ...] = ()
    smoke: tuple[Smoke, ...] = ()
    covered: tuple[str, ...] = ()  # objective hexes covered: buildings from now on (12a)
    held: tuple[str, ...] = ()  # objective hexes held at the end of the last hand: to leave, then covered
    points: int = 0  # the corteo's points from objectives
    runs_left: int = 5
    running: bool = False
    head_component: str | None = None
    heads: tuple[str, ...] = ()
    standing_corteo: Standing = field(default_factory=Standing)
    standing_potere: Standing = field(default_factory=Standing)
    log: tuple[PhaseLog, ...] = ()
    result: Result | None = None
    scenario: str = ""  # D: "" or a key of data/scenarios.toml
    mobiles: tuple[Mobile, ...] = ()
    tally: tuple[Tally, ...] = ()
    facts: tuple[str, ...] = ()  # scenario facts that last: crossed lines, the rally dissolved, ...
    secret: tuple[str, ...] = ()  # D Sociale: the corteo's secret place of formation (hexes); never in the power's view unless revealed

    def has(self, option: str) -> bool:
        return option in self.options

    def knows(self, fact: str) -> bool:
        return fact in self.facts

    def scored(self, side: str) -> int:
        """The scenario points of ``side`` so far (D)."""
        return sum(t.points for t in self.tally if t.side == side)

    def standing(self, side: str) -> Standing:
        return self.standing_corteo if side == CORTEO else self.standing_potere


CODEC_TYPES: tuple[type, ...] = (State, Unit, Barricade, Smoke, Standing, Step, Throw, Fight, Note, PhaseLog,
                                 Result, Mobile, Tally)

__all__ = ["CORTEO", "POTERE", "SEATS", "State", "Unit", "VERSION"]
