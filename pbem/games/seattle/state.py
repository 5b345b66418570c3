"""The state of a game of The Battle of Seattle: frozen dataclasses, encoded with `pbem.core.codec`.

Every counter has an id (``AN3``, ``SPD12``: the unit type's code and a number) and a location:
an area id of the map, or one of the boxes below.  The state also holds both Visibility
Indexes (2.3), the escalation phase (7.3), the event in force (4.1), what the reinforcement
phase has to settle (4.2), each side's standing instructions for choices about the enemy's
units (6.3), and the record of what happened since the last phase a player answered (for the
report and the map).
"""

from __future__ import annotations

from dataclasses import dataclass, field

VERSION = "1"
SEATS = ("demonstrators", "authorities")
DEM, AUTH = SEATS

# -- locations that are not areas --------------------------------------------------------------
RESERVE = "reserve"  # the Reserve Pool printed on the map (Authorities, 4.2, 5.0)
PILE = "pile"  # off the map and available (Demonstrators: the piles by type, 6.4; Authorities: 4.22)
AWAY = "away"  # Crowds gone at nightfall (7.1), Progressives at the folk festival: back next morning
OUT = "out"  # removed permanently (arrest, dispersal: 6.3)
DESK = "desk"  # SPD units filling in forms for the rest of the game (event 54-56)
FESTIVAL = "festival"  # Progressives off the map at the folk festival (event 24): back to the pile next morning
TRACK = "track:"  # "track:7": on the turn track, reaching the Reserve Pool in turn 7 (4.22)

BOXES = (RESERVE, PILE, AWAY, FESTIVAL, OUT, DESK)


def track(turn: int) -> str:
    return f"{TRACK}{turn}"


def track_turn(loc: str) -> int | None:
    return int(loc[len(TRACK):]) if loc.startswith(TRACK) else None


@dataclass(frozen=True)
class Unit:
    id: str  # "AN3"
    type: str  # the unit type's key in tables.toml ("anarchists")
    loc: str  # an area id or a box


@dataclass(frozen=True)
class EventInForce:
    """The random event of the turn (4.1): the two dice read as tens and units."""

    turn: int
    roll: int
    key: str
    amount: int = 0  # units of 11-16 (1d6 halved, up) or 26 (1d6)


@dataclass(frozen=True)
class Pending:
    """What the reinforcement phase (4.2) of this turn has to settle, drawn by the server."""

    arrivals: tuple[str, ...] = ()  # Demonstrator counters to place (drawn, back from the night, event)
    choose: int = 0  # event 11-16: units the Demonstrators choose from their piles
    choose_crowds: bool = False  # ... Crowds too (their index is not below the Authorities')
    group_removals: int = 0  # negative "Groups" of 4.21: Groups to take off the map
    crowd_removals: int = 0
    spd_arrivals: tuple[str, ...] = ()  # SPD of 4.21 to the Reserve Pool, unless declined
    spd_removals: int = 0  # SPD of 4.21 to take away
    attrition: bool = False  # event 51-53: a Crowd of their choice leaves
    bureaucracy: bool = False  # event 54-56: an SPD unit of their choice leaves for the game
    held: tuple[str, ...] = ()  # Crowds drawn at night: they wait for the morning (7.1)


@dataclass(frozen=True)
class Standing:
    """A side's standing instructions (6.3): which enemy units it picks when a result lets it
    choose, which way it takes the points for a Group removed, special munitions in defence."""

    targets: tuple[str, ...] = ()  # unit codes or ids, first choice first
    visibility: str = "authorities"  # Authorities: +2 to themselves ("authorities") or -2 to them
    munitions_in_defence: bool = False  # Authorities: special munitions when attacked


# -- the record of what happened (report and map) --------------------------------------------------


@dataclass(frozen=True)
class Move:
    unit: str
    path: tuple[str, ...]  # the locations in order, the start first
    kind: str = "move"  # move | react | reserve | deploy | place | decline | remove | arrive | call


@dataclass(frozen=True)
class BarricadeTry:
    unit: str
    area: str
    roll: int
    built: bool


@dataclass(frozen=True)
class MoraleCheck:
    unit: str
    roll: int
    morale: int  # with the event's bonus
    passed: bool


@dataclass(frozen=True)
class SideRoll:
    """One side's half of a combat (6.1): its units, total, roll and result."""

    side: str
    units: tuple[str, ...]
    factors: tuple[tuple[str, int, int], ...]  # (unit, factor, doublings)
    halvings: tuple[str, ...]  # "barricade", "night"
    total: int
    roll: int
    result: str  # N | MC | A | X (after the Phase 1 reading of X as A)
    printed: str  # the CRT cell as printed
    munitions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Combat:
    area: str
    attack: SideRoll
    defence: SideRoll
    checks: tuple[MoraleCheck, ...] = ()
    removed: tuple[str, ...] = ()  # permanently (Demonstrators)
    withdrawn: tuple[str, ...] = ()  # temporarily: off the map or to the Reserve Pool
    chosen: tuple[tuple[str, str], ...] = ()  # (what, unit): ("MC", "SPD2"), ("A", "AN1")


@dataclass(frozen=True)
class Visibility:
    side: str
    delta: int
    reason: str  # a key of tables.toml [[visibility]] or an event
    count: int = 1


@dataclass(frozen=True)
class PhaseLog:
    turn: int
    phase: str
    moves: tuple[Move, ...] = ()
    barricades: tuple[BarricadeTry, ...] = ()
    combats: tuple[Combat, ...] = ()
    visibility: tuple[Visibility, ...] = ()
    notes: tuple[tuple[str, str], ...] = ()  # (message key, argument): things said in the report
    rolls: tuple[tuple[str, int], ...] = ()  # (purpose, value) of dice not shown elsewhere


@dataclass(frozen=True)
class Result:
    winner: str
    level: str  # "authorities" | "marginal" | "substantive" | "decisive"
    demonstrators: int
    authorities: int


@dataclass(frozen=True)
class State:
    version: str
    last_turn: int  # 11 (2 December) or 15 (3 December, by option: 8.0)
    turn: int = 0  # 0: set-up
    stage: str = "setup-draw"
    units: tuple[Unit, ...] = ()
    barricades: tuple[str, ...] = ()
    vis_dem: int = 0
    vis_auth: int = 0
    escalation: int = 1
    morale_loss: bool = False  # an Authority unit was removed by a morale check (7.3: Phase 2)
    phase2_full_from: int | None = None  # the first turn wholly in Phase 2 (7.3: Phase 3 after it)
    event: EventInForce | None = None
    pending: Pending | None = None
    engaged: tuple[str, ...] = ()  # units already in a combat this combat phase (6.1)
    standing_dem: Standing = field(default_factory=Standing)
    standing_auth: Standing = field(default_factory=lambda: Standing(visibility="authorities"))
    log: tuple[PhaseLog, ...] = ()
    result: Result | None = None

    def standing(self, side: str) -> Standing:
        return self.standing_dem if side == DEM else self.standing_auth


CODEC_TYPES: tuple[type, ...] = (State, Unit, EventInForce, Pending, Standing, Move, BarricadeTry, MoraleCheck,
                                 SideRoll, Combat, Visibility, PhaseLog, Result)
