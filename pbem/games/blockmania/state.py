"""The state of a game of Block Mania / Mega Mania: frozen dataclasses, encoded with `pbem.core.codec`.

Seats are the players; each holds a block (``Seat.block``, a key of ``data/blocks.toml`` and of the
roster) in the ring's order (1.ii, 3).  A Blocker's place is a square of the ring (``curie:D6``) or a
box: its owner's pile (face down, secret order), dead, removed by Justice.  Armoury and Hardware
counters are in a pool (secret order), carried by a Blocker, or lying in a square.  The squares'
damage (Structural Damage, Collapses, Fires, loot, scrawls, transit damage) is kept by square.
Cards: the Mania deck and the set-aside cards (secret order), each player's hand (secret), the
discards; the Final Phase uses the Justice faces (12).  The view is the one redaction point.
"""

from __future__ import annotations

from dataclasses import dataclass, field

VERSION = "1"
SEAT_NAMES = ("red", "blue", "green", "yellow", "white", "black")

PILE = "pile"  # the owner's face-down pile (3)
DEAD = "dead"  # lost: a defeat point for the owner (12.iv)
JUSTICE = "justice"  # removed by a Justice card: not a loss (12.ii)
POOL = "pool"  # an Armoury or Hardware counter still in its pool (3)
READY = "ready"  # drawn at set-up, waiting to be placed by its owner (3)


@dataclass(frozen=True)
class Seat:
    name: str  # red, blue, ...
    block: str  # its block's key (curie, keaton, ...)
    pile: tuple[str, ...] = ()  # Blocker ids, top first (secret)
    hand: tuple[int, ...] = ()  # card numbers (secret)


@dataclass(frozen=True)
class Blocker:
    id: str  # "red-3"
    type: str  # a key of roster.toml
    owner: str  # the seat
    loc: str  # "curie:D6", or PILE, DEAD, JUSTICE
    symbols: tuple[str, ...] = ()  # A / H printed on the counter: the counters it draws on entering (1.iii)
    carried: tuple[str, ...] = ()  # counter ids
    face_down: bool = False  # has acted this turn (7, 8): face up again at its owner's end phase (10.ii)
    activated: bool = False  # activated this turn (5.iii)
    set_up: bool = False  # its heavy weapon is set up (6.xi)
    locked: bool = False  # in a close combat that ended in a tie (8.vi)


@dataclass(frozen=True)
class Counter:
    id: str  # "spit-gun-2"
    type: str  # a key of roster.toml's counters
    loc: str  # POOL ("pool:armoury"), a Blocker id, or a square "curie:D6" (dropped)
    armed_turn: int | None = None  # a Demo Charge armed in this turn (explodes in the next combat)


@dataclass(frozen=True)
class SquareState:
    """What happened to a square (9, 10): only squares with something to say are kept."""

    loc: str
    damage: int = 0  # Structural Damage markers (9.ii)
    collapsed: bool = False  # 9.iii
    fires: int = 0  # 10.i
    looted: bool = False  # 8.vii
    scrawled: bool = False  # 8.viii
    transit: str = ""  # pedway: stopped | collapsed | severed; mega-way: damaged | collapsed; sky rail: collapsed


@dataclass(frozen=True)
class Standing:
    """A player's standing instructions for the other players' turns (the checklist "over email"):
    defensive fire (7), lift interception (6.iii), hazard cards played on a trigger (11.iii)."""

    defensive_fire: str = "nearest"  # nearest | strongest | never | ask (a decision phase, 7)
    intercept_lifts: bool = True
    keep: tuple[int, ...] = ()  # cards played by themselves at their trigger (11.iii hazards, 11.iv attacks)
    discard: int = 0  # the card to discard if the end-phase draw makes a fourth (10.ii); 0: the card drawn
    hazards_ask: bool = False  # asked in a decision phase whether to play a hazard at the Blocker that moved (11.iii)


@dataclass(frozen=True)
class Note:
    key: str
    args: tuple[tuple[str, str], ...] = ()
    to: tuple[str, ...] | None = None  # seats that may read it (a card drawn); None: everyone


@dataclass(frozen=True)
class PhaseLog:
    turn: int
    seat: str
    phase: str
    notes: tuple[Note, ...] = ()


@dataclass(frozen=True)
class Result:
    defeat: tuple[tuple[str, int], ...]  # seat, defeat points (12.iv)
    ranking: tuple[str, ...]  # lowest defeat first


@dataclass(frozen=True)
class State:
    version: str
    seats: tuple[Seat, ...]
    turn: int = 0
    active: int = 0  # index of the active seat
    stage: str = "setup"
    command_points: int = 0
    blockers: tuple[Blocker, ...] = ()
    counters: tuple[Counter, ...] = ()
    squares: tuple[SquareState, ...] = ()
    fallen: tuple[str, ...] = ()  # blocks fallen to a catastrophic collapse (10.iii)
    judges: tuple[str, ...] = ()  # squares with a Judges marker (Judges' Patrol, 12.ii): nobody enters them
    deck: tuple[int, ...] = ()  # Mania deck, top first (secret)
    set_aside: tuple[int, ...] = ()  # for the Final Phase (3)
    discards: tuple[int, ...] = ()
    final: bool = False  # the Judges are here (12)
    standing: tuple[Standing, ...] = field(default_factory=tuple)
    # the Command Phase's memory between the sheets of one phase (CONTINUE): board.Moving
    moving: str | None = None
    mp: int = 0
    done: tuple[str, ...] = ()
    drew: tuple[str, ...] = ()
    # a Command Phase paused for the other players' hazard cards (11.iii): the Blocker that moved, the
    # squares it passed (latest first), and the orders of the active player's sheet still to carry out
    mover: str = ""
    passed: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    log: tuple[PhaseLog, ...] = ()
    result: Result | None = None

    def seat(self, name: str) -> Seat:
        return next(s for s in self.seats if s.name == name)

    @property
    def active_seat(self) -> Seat:
        return self.seats[self.active]


CODEC_TYPES: tuple[type, ...] = (State, Seat, Blocker, Counter, SquareState, Standing, Note, PhaseLog, Result)
