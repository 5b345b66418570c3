"""The Blocks of Block Mania as cross-section maps, read from ``data/blocks.toml`` (rulebook 1.ii).

Each map is the vertical section of one Block, cut into levels (rows, level 1 = ground level, the
"livello terra" of 6.iv) and Squares (columns A, B, C, ... from the left edge). A Square is Open Air,
Window or Interior; a Window or Interior square is residential (blue, with an address 11-66 read from
two dice, 5.ii), Civic (green, 6.v) or special (yellow: Bank, Armoury, ...); an Open Air square may
carry a transit symbol (Tween Block Plaza, Pedway, Mega Way, Sky Rail). Lifts, grav-chutes and
fire-control points are symbols on Window and Interior squares (1.ii, 6.iii, 6.iv, 8.x).

The maps are set edge to edge in a row that closes into a ring (1.ii, "Movimento fra le mappe"): the
half square at the right edge of one map and the half square at the left edge of the next make one
square, and leaving the last map to the right brings you in at the left of the first. ``Ring`` holds
the maps in play order and gives the geometry across the joins. A square of the ring is a ``Loc``
(``curie:D6``); the square shared by two maps is named from the map on its right (column A).

The maps are a reconstruction: see docs/games/blockmania.md, "The blocks: a reconstruction".
"""

from __future__ import annotations

import re
import tomllib
from collections import deque
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Callable, Collection, Final, Iterable, Mapping, TypeVar

#: Square types of 1.ii, with the letter that opens a square's token in ``blocks.toml``.
TYPES: Final = ("open", "window", "interior")
TYPE_LETTERS: Final = {"o": "open", "w": "window", "i": "interior"}
#: Colours of 1.ii: Open Air, then blue, green and yellow for Window and Interior squares.
COLOURS: Final = ("open", "residential", "civic", "special")
#: The levels named in ``[map]`` that a kind of square may be tied to.
TRANSIT_LEVELS: Final = ("ground", "megaway", "pedway", "skyrail")
#: How hits on a square are resolved (9.ii-9.vii); see ``Kind.damage``.
DAMAGE_TRACKS: Final = ("block", "pedway", "megaway", "skyrail")
DRAW_POOLS: Final = ("armoury", "hardware")
#: The eight neighbours, as (column step, level step).
DIRECTIONS: Final = {
    "up": (0, 1), "up-right": (1, 1), "right": (1, 0), "down-right": (1, -1),
    "down": (0, -1), "down-left": (-1, -1), "left": (-1, 0), "up-left": (-1, 1),
}
COLUMN_LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DICE_ADDRESSES: Final = tuple(10 * t + u for t in range(1, 7) for u in range(1, 7))  # 5.ii: 11..66

_TOKEN = re.compile(r"([owi])([A-Z]{2})?([0-9]{2})?")
_LABEL = re.compile(r"([A-Z])([0-9]{1,2})")
_LOC = re.compile(r"([a-z0-9_-]+):([A-Z][0-9]{1,2})")


_T = TypeVar("_T")


class BlocksError(ValueError):
    """The blocks data is inconsistent; the message names the file and the entry."""


# -- the data ----------------------------------------------------------------------------------------


#: The names the cards use for the kinds of square (cards.SQUARE_KINDS): the kinds by code, the
#: square types and the features of a square.
KIND_KEYS: Final = {"OA": "open-air", "TP": "tween-block-plaza", "MW": "mega-way", "PW": "pedway",
                    "SR": "sky-rail", "RS": "residential", "CV": "civic", "BK": "bank", "AR": "armoury",
                    "SM": "shopping-mall", "VP": "vehicle-park", "TN": "tunnel", "BA": "balcony",
                    "EP": "entrance-plaza", "SS": "sky-rail-station", "TW": "tubeway", "PT": "pedway-terminus"}
SQUARE_KINDS: Final = tuple(KIND_KEYS.values()) + ("window", "interior", "lift", "grav-chute", "fire-control")


@dataclass(frozen=True)
class Kind:
    """A kind of square: Open Air, Residential, Civic, or a special location (1.ii).

    ``strength`` is the square's Strength against shooting at the square (9.i), None if it cannot
    be attacked; ``damage`` the track its hits follow: ``block`` (Structural Damage and a collapse
    roll, 9.ii), ``pedway`` (stopped, collapsed, severed, 9.vi), ``megaway`` (damage, then collapse,
    9.vii), ``skyrail`` (one hit collapses, only by ``only``, 9.v).
    """

    code: str
    name: str
    types: frozenset[str]
    colour: str
    level: str | None  # the [map] level it lies on, if tied to one
    addressed: bool  # carries an address 11-66 (5.ii)
    walk: bool  # Open Air a Blocker may enter on foot (6.i)
    land: bool  # fliers may move into it (6.ix)
    takeoff: bool  # fliers may take off from it (6.ix)
    free: bool  # entering costs no MP (Civic, 6.v)
    loot: bool  # may be looted (8.vii)
    draw: str | None  # counters drawn on entering it (6.x): armoury | hardware
    strength: int | None
    damage: str | None
    only: str | None  # the only weapon that can hit it
    min_count: int  # per block
    max_count: int | None
    source: str
    note: str


@dataclass(frozen=True)
class Square:
    """One square of a block's map: ``column`` 0-based from the left edge, ``level`` 1 = ground."""

    block: str
    column: int
    level: int
    type: str  # open | window | interior
    kind: Kind
    address: int | None
    lift: bool = False
    chute: bool = False
    fire_control: bool = False

    @property
    def label(self) -> str:
        return f"{COLUMN_LETTERS[self.column]}{self.level}"

    @property
    def is_open(self) -> bool:
        return self.type == "open"

    @property
    def is_window(self) -> bool:
        return self.type == "window"

    @property
    def is_interior(self) -> bool:
        return self.type == "interior"

    @property
    def is_civic(self) -> bool:
        return self.kind.colour == "civic"

    @property
    def exposed(self) -> bool:
        """+1 to shoot at a Blocker here: Civic and Open Air squares (7.ii, 8.v; not against squares, 9.i)."""
        return self.is_open or self.is_civic

    def __str__(self) -> str:
        return f"{self.block}:{self.label}"


@dataclass(frozen=True)
class Lift:
    """A lift shaft: the squares of ``column`` from ``bottom`` to ``top`` (6.iii)."""

    block: str
    column: int
    bottom: int
    top: int

    @property
    def levels(self) -> range:
        return range(self.bottom, self.top + 1)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f"{COLUMN_LETTERS[self.column]}{lv}" for lv in self.levels)


@dataclass(frozen=True)
class Chute:
    """A grav-chute: the squares of ``column`` with its symbol (``entries``, top first) and the ground
    square of the same column everyone using it lands in (6.iv)."""

    block: str
    column: int
    entries: tuple[int, ...]
    ground: int

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f"{COLUMN_LETTERS[self.column]}{lv}" for lv in self.entries)

    @property
    def landing(self) -> str:
        return f"{COLUMN_LETTERS[self.column]}{self.ground}"


@dataclass(frozen=True, eq=False)
class Block:
    """One block's map: ``rows[level - 1][column]``; the first and last columns are the half squares
    that join the neighbouring maps (1.ii)."""

    id: str
    name: str
    width: int
    levels: int
    rows: tuple[tuple[Square, ...], ...]
    lifts: tuple[Lift, ...]
    chutes: tuple[Chute, ...]
    note: str
    _addresses: dict[int, Square] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        found = {s.address: s for s in self.squares if s.address is not None}
        object.__setattr__(self, "_addresses", found)

    @property
    def squares(self) -> tuple[Square, ...]:
        return tuple(s for row in self.rows for s in row)

    def on_map(self, column: int, level: int) -> bool:
        return 0 <= column < self.width and 1 <= level <= self.levels

    def at(self, column: int, level: int) -> Square:
        if not self.on_map(column, level):
            raise KeyError(f"{self.id}: no square at column {column}, level {level}")
        return self.rows[level - 1][column]

    def square(self, label: str) -> Square:
        """The square named ``label`` ("D6": column D, level 6)."""
        pos = parse_label(label)
        if pos is None or not self.on_map(*pos):
            raise KeyError(f"{self.id}: no square {label!r}")
        return self.at(*pos)

    def address(self, number: int) -> Square:
        """The square with address ``number`` (5.ii: two dice read as tens and units, e.g. 3 then 4 = 34)."""
        try:
            return self._addresses[number]
        except KeyError:
            raise KeyError(f"{self.id}: no address {number}") from None

    def address_of_dice(self, tens: int, units: int) -> Square:
        return self.address(10 * tens + units)

    @property
    def addresses(self) -> Mapping[int, Square]:
        return dict(self._addresses)

    def of_kind(self, code: str) -> tuple[Square, ...]:
        return tuple(s for s in self.squares if s.kind.code == code)

    @property
    def fire_control(self) -> tuple[Square, ...]:
        return tuple(s for s in self.squares if s.fire_control)

    def lift_at(self, label: str) -> Lift | None:
        s = self.square(label)
        return next((lf for lf in self.lifts if lf.column == s.column and s.level in lf.levels), None)

    def chute_at(self, label: str) -> Chute | None:
        s = self.square(label)
        return next((c for c in self.chutes if c.column == s.column and s.level in c.entries), None)

    def picture(self) -> tuple[str, ...]:
        """The map as text, top level first (for the docs and ``scripts/blockmania_blocks.py --show``)."""
        out = []
        for level in range(self.levels, 0, -1):
            cells = []
            for s in self.rows[level - 1]:
                cells.append(_cell(s))
            out.append(f"{level:>2} " + "".join(cells))
        out.append("   " + "".join(f"   {COLUMN_LETTERS[c]}  " for c in range(self.width)))
        return tuple(out)


def _cell(s: Square) -> str:
    """Six characters: a Window ``[`` or Interior ``|`` square's address or kind and its symbols
    (``^`` lift, ``v`` grav-chute, ``*`` fire-control), or an Open Air square's symbol."""
    if s.is_open:
        body = {"OA": "   .  ", "TP": "  ~~~ ", "PW": "  === ", "MW": "  ### ", "SR": "  --- "}.get(s.kind.code)
        return body or f"  {s.kind.code:<3} "
    text = f"{s.address:02d}" if s.kind.code == "RS" else s.kind.code
    if s.kind.code == "EP":
        text = f"E{s.address:02d}"
    marks = ("^" if s.lift else "") + ("v" if s.chute else "") + ("*" if s.fire_control else "")
    return f"{'[' if s.is_window else '|'}{text:<3}{marks:<2}"[:6]


@dataclass(frozen=True, eq=False)
class Blocks:
    """Everything in ``blocks.toml``: the levels of every map, the kinds, the join profile, the blocks
    and the fire-spread diagram of 10.i."""

    levels: int
    transit: Mapping[str, int]  # ground, megaway, pedway, skyrail -> level
    kinds: Mapping[str, Kind]
    join: tuple[Kind, ...]  # the half square at each level (index level - 1), both edges of every map
    blocks: tuple[Block, ...]
    fire_spread: Mapping[int, str]  # 2d6 -> direction
    _rings: dict[tuple[str, ...], Ring] = field(default_factory=dict, init=False, repr=False, compare=False)

    def block(self, block_id: str) -> Block:
        for b in self.blocks:
            if b.id == block_id:
                return b
        raise KeyError(f"no block {block_id!r}")

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.blocks)

    def kind(self, code: str) -> Kind:
        return self.kinds[code]

    @property
    def ground(self) -> int:
        return self.transit["ground"]

    @property
    def pedway_level(self) -> int:
        return self.transit["pedway"]

    @property
    def megaway_level(self) -> int:
        return self.transit["megaway"]

    @property
    def skyrail_level(self) -> int:
        return self.transit["skyrail"]

    def ring(self, order: Iterable[str]) -> Ring:
        """The blocks ``order`` set edge to edge left to right, the last joined to the first (1.ii, 3)."""
        chosen = tuple(self.block(b) for b in order)
        if not chosen:
            raise ValueError("a ring needs at least one block")
        if len({b.id for b in chosen}) != len(chosen):
            raise ValueError("a block can be placed only once")
        key = tuple(b.id for b in chosen)
        if key not in self._rings:
            self._rings[key] = Ring(self, chosen)
        return self._rings[key]


def parse_label(label: str) -> tuple[int, int] | None:
    """(column, level) of a square label like ``D6`` (column letter, level number), or None."""
    m = _LABEL.fullmatch(label.strip().upper())
    if m is None:
        return None
    return COLUMN_LETTERS.index(m.group(1)), int(m.group(2))


# -- the ring ----------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Loc:
    """A square of the ring: a block id, a column (0-based) and a level (1 = ground).

    A square shared by two maps (the joined half squares) is always named from the map on its
    right, column A; ``Ring.loc`` turns the left map's name for it into this one.
    """

    block: str
    column: int
    level: int

    @property
    def label(self) -> str:
        return f"{COLUMN_LETTERS[self.column]}{self.level}"

    def __str__(self) -> str:
        return f"{self.block}:{self.label}"


@dataclass(frozen=True)
class Route:
    """A ride along a transit level (6.vi Sky Rail, 6.viii Mega Way) or a pedway (6.vii).

    ``squares``: every square passed, in order, the arrival included, the departure not.
    ``critical``: those whose collapse stops the ride (the transit's own squares).
    """

    start: Loc
    end: Loc
    direction: int  # +1 to the right, -1 to the left
    squares: tuple[Loc, ...]
    critical: tuple[Loc, ...]


def _memo(method: Callable[..., _T]) -> Callable[..., _T]:
    """Remember a Ring method's answers: the geometry never changes, and movement asks the same questions
    thousands of times a turn (a ring is shared by every Board of the same blocks, ``Blocks.ring``)."""
    name = method.__name__

    def cached(self: Ring, *args: Any) -> _T:
        table = self._memo.setdefault(name, {})
        try:
            return table[args]  # type: ignore[no-any-return]
        except KeyError:
            table[args] = value = method(self, *args)
            return value

    cached.__name__, cached.__doc__ = name, method.__doc__
    return cached


class Ring:
    """The maps in a row, closed into a ring (1.ii): geometry across the joins."""

    def __init__(self, data: Blocks, blocks: tuple[Block, ...]) -> None:
        self.data = data
        self.blocks = blocks
        self.levels = data.levels
        self._index = {b.id: i for i, b in enumerate(blocks)}
        offsets, x = [], 0
        for b in blocks:
            offsets.append(x)
            x += b.width - 1  # the last column is the next map's first
        self._offsets = tuple(offsets)
        self.width = x  # columns around the ring
        self._memo: dict[str, dict[tuple[Any, ...], Any]] = {}

    # -- names and coordinates

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.blocks)

    def _block_at_x(self, x: int) -> tuple[int, int]:
        x %= self.width
        for i in range(len(self.blocks) - 1, -1, -1):
            if x >= self._offsets[i]:
                return i, x - self._offsets[i]
        raise AssertionError("unreachable")

    def x_of(self, loc: Loc) -> int:
        return (self._offsets[self._index[loc.block]] + loc.column) % self.width

    def at(self, x: int, level: int) -> Loc | None:
        """The square at ring column ``x`` (any integer: it wraps) and ``level``; None above or below the maps."""
        if not 1 <= level <= self.levels:
            return None
        i, col = self._block_at_x(x)
        return Loc(self.blocks[i].id, col, level)

    @_memo
    def loc(self, block: str, label: str | None = None) -> Loc:
        """The square ``label`` of ``block`` (or ``"block:label"``), named canonically."""
        if label is None:
            m = _LOC.fullmatch(block.strip())
            if m is None:
                raise KeyError(f"not a square name like 'curie:D6': {block!r}")
            block, label = m.group(1), m.group(2)
        if block not in self._index:
            raise KeyError(f"block {block!r} is not in this ring")
        pos = parse_label(label)
        b = self.blocks[self._index[block]]
        if pos is None or not b.on_map(*pos):
            raise KeyError(f"{block}: no square {label!r}")
        col, level = pos
        found = self.at(self._offsets[self._index[block]] + col, level)
        assert found is not None
        return found

    @_memo
    def square(self, loc: Loc) -> Square:
        return self.data.block(loc.block).at(loc.column, loc.level)

    @_memo
    def maps_of(self, loc: Loc) -> tuple[str, ...]:
        """The blocks whose map shows ``loc``: one, or two for a joined half square (1.ii)."""
        if loc.column == 0:
            i = self._index[loc.block]
            left = self.blocks[(i - 1) % len(self.blocks)].id
            return (loc.block,) if left == loc.block else (left, loc.block)
        return (loc.block,)

    def adjacent_blocks(self, block: str) -> tuple[str, str]:
        """(left, right) neighbours of ``block`` in the ring (the same block twice in a ring of two)."""
        i = self._index[block]
        n = len(self.blocks)
        return self.blocks[(i - 1) % n].id, self.blocks[(i + 1) % n].id

    def block_squares(self, block: str) -> tuple[Loc, ...]:
        """Every square of ``block``'s map, shared half squares included."""
        b = self.data.block(block)
        return tuple(self.loc(block, s.label) for s in b.squares)

    # -- neighbours

    @_memo
    def step(self, loc: Loc, direction: str) -> Loc | None:
        """The neighbour of ``loc`` in one of ``DIRECTIONS`` (None above the top or below the ground)."""
        dx, dy = DIRECTIONS[direction]
        return self.at(self.x_of(loc) + dx, loc.level + dy)

    def above(self, loc: Loc) -> Loc | None:
        return self.step(loc, "up")

    def below(self, loc: Loc) -> Loc | None:
        return self.step(loc, "down")

    @_memo
    def neighbours(self, loc: Loc) -> tuple[Loc, ...]:
        """Orthogonal neighbours (6.i: no diagonal moves; 6.x hand-over; 8.vi charge): left, right, up, down."""
        return tuple(n for n in (self.step(loc, d) for d in ("left", "right", "up", "down")) if n is not None)

    @_memo
    def neighbours8(self, loc: Loc) -> tuple[Loc, ...]:
        """The eight neighbours, diagonals included (8.x fire-fighting "anche in diagonale")."""
        return tuple(n for n in (self.step(loc, d) for d in DIRECTIONS) if n is not None)

    def defensive_fire_adjacent(self, a: Loc, b: Loc) -> bool:
        """7.i: one square away orthogonally; diagonally only Open Air to Open Air or Open Air to Window."""
        if b in self.neighbours(a):
            return True
        if b not in self.neighbours8(a):
            return False
        ta, tb = self.square(a).type, self.square(b).type
        return (ta, tb) in {("open", "open"), ("open", "window"), ("window", "open")}

    # -- lifts, grav-chutes

    @_memo
    def lift(self, loc: Loc) -> Lift | None:
        """The lift shaft ``loc`` lies on (6.iii)."""
        for block in self.maps_of(loc):
            found = self.data.block(block).lift_at(self._label_in(loc, block))
            if found is not None:
                return found
        return None

    @_memo
    def lift_stops(self, loc: Loc) -> tuple[Loc, ...]:
        """The other squares of ``loc``'s lift, bottom to top: each is one MP away (6.iii)."""
        lift = self.lift(loc)
        if lift is None:
            return ()
        shaft = tuple(self.loc(lift.block, label) for label in lift.labels)
        return tuple(s for s in shaft if s != loc)

    @_memo
    def lift_shaft(self, loc: Loc) -> tuple[Loc, ...]:
        """Every square of ``loc``'s lift: a collapse in any of them blocks the lift (9.iv)."""
        lift = self.lift(loc)
        return tuple(self.loc(lift.block, label) for label in lift.labels) if lift else ()

    def lift_route(self, start: Loc, end: Loc) -> tuple[Loc, ...]:
        """The squares a lift ride passes, the arrival included (6.iii: enemies there may stop it)."""
        if end not in self.lift_stops(start):
            raise ValueError(f"{start} and {end} are not on one lift")
        step = 1 if end.level > start.level else -1
        out = []
        for level in range(start.level + step, end.level + step, step):
            found = self.at(self.x_of(start), level)
            assert found is not None
            out.append(found)
        return tuple(out)

    def chute_target(self, loc: Loc) -> Loc | None:
        """Where a grav-chute at ``loc`` drops a Blocker: the ground square straight below (6.iv)."""
        chute = self.data.block(loc.block).chute_at(loc.label)
        return self.loc(chute.block, chute.landing) if chute else None

    def chute_path(self, loc: Loc) -> tuple[Loc, ...]:
        """The squares below a grav-chute down to the ground, landing included: a collapse in any of
        them kills whoever uses it (6.iv, 9.iv)."""
        target = self.chute_target(loc)
        if target is None:
            return ()
        out = []
        for level in range(loc.level - 1, target.level - 1, -1):
            found = self.at(self.x_of(loc), level)
            assert found is not None
            out.append(found)
        return tuple(out)

    # -- transit: Sky Rail, Mega Way, Pedway

    def stations(self) -> tuple[Loc, ...]:
        """The Sky Rail stations, one per block, left to right (6.vi)."""
        return self._of_kind("SS")

    def vehicle_parks(self) -> tuple[Loc, ...]:
        """The Vehicle Parks, the only ways on and off the Mega Way (6.viii)."""
        return self._of_kind("VP")

    def termini(self) -> tuple[Loc, ...]:
        """The Pedway Termini at the pedway level, two per block (6.vii)."""
        return self._of_kind("PT")

    def _of_kind(self, code: str) -> tuple[Loc, ...]:
        return tuple(self.loc(b.id, s.label) for b in self.blocks for s in b.of_kind(code))

    def _ride(self, start: Loc, end: Loc, direction: int, critical: frozenset[str]) -> Route:
        x0, x1 = self.x_of(start), self.x_of(end)
        steps = ((x1 - x0) * direction) % self.width or self.width
        passed = []
        for k in range(1, steps + 1):
            found = self.at(x0 + k * direction, start.level)
            assert found is not None
            passed.append(found)
        crit = tuple(s for s in passed if self.square(s).kind.code in critical)
        return Route(start, end, direction, tuple(passed), crit)

    def skyrail_routes(self, start: Loc, end: Loc) -> tuple[Route, Route]:
        """Both ways round the ring from station to station (6.vi): the ride is blocked by a collapsed
        Sky Rail, Tubeway or station square on it (``critical``); other squares do not matter."""
        for s in (start, end):
            if self.square(s).kind.code != "SS":
                raise ValueError(f"{s} is not a Sky Rail station")
        if start == end:
            raise ValueError("a ride needs two different stations")
        crit = frozenset({"SR", "TW", "SS"})
        return self._ride(start, end, 1, crit), self._ride(start, end, -1, crit)

    def megaway_routes(self, start: Loc, end: Loc) -> tuple[Route, Route]:
        """Both ways round the ring from Vehicle Park to Vehicle Park (6.viii): blocked by a collapsed
        Mega Way, Tunnel or Vehicle Park square on it (``critical``)."""
        for s in (start, end):
            if self.square(s).kind.code != "VP":
                raise ValueError(f"{s} is not a Vehicle Park")
        if start == end:
            raise ValueError("a ride needs two different Vehicle Parks")
        crit = frozenset({"MW", "TN", "VP"})
        return self._ride(start, end, 1, crit), self._ride(start, end, -1, crit)

    def pedway(self, terminus: Loc) -> Route:
        """The pedway from ``terminus`` to the terminus facing it across the gap (6.vii): from a map's
        right terminus to the next map's left one, and back. ``squares`` are the Pedway squares and
        the far terminus, walkable one by one when the pedway is stopped (9.vi)."""
        if self.square(terminus).kind.code != "PT":
            raise ValueError(f"{terminus} is not a Pedway Terminus")
        x = self.x_of(terminus)
        for direction in (1, -1):
            nxt = self.at(x + direction, terminus.level)
            assert nxt is not None
            if self.square(nxt).kind.code != "PW":
                continue
            k = 1
            passed: list[Loc] = []
            while True:
                here = self.at(x + k * direction, terminus.level)
                assert here is not None
                passed.append(here)
                code = self.square(here).kind.code
                if code == "PT":
                    return Route(terminus, here, direction, tuple(passed), tuple(passed))
                if code != "PW" or k > self.width:
                    break
                k += 1
        raise ValueError(f"{terminus}: no pedway leads out of it")

    # -- flying (6.ix)

    def flight_targets(self, loc: Loc) -> tuple[Loc, ...]:
        """Where a flier at ``loc`` may fly to (6.ix): any Open Air, Balcony or Tween Block Plaza square
        of its map or an adjacent one, and the station (through a Tubeway) or the Vehicle Park (through
        a Tunnel) of an adjacent block. Collapses are the engine's to check (``flight_gate``)."""
        maps = set(self.maps_of(loc))
        for m in list(maps):
            maps.update(self.adjacent_blocks(m))
        out: set[Loc] = set()
        for m in maps:
            for s in self.block_squares(m):
                if self.square(s).kind.land:
                    out.add(s)
        for m in self._adjacent_of(loc):
            for code in ("SS", "VP"):
                out.update(self.loc(m, s.label) for s in self.data.block(m).of_kind(code))
        out.discard(loc)
        return tuple(sorted(out, key=lambda s: (self.x_of(s), s.level)))

    def flight_gate(self, target: Loc) -> tuple[Loc, ...]:
        """For a station or Vehicle Park reached by air, the Tubeway or Tunnel squares of its block:
        one of them must stand uncollapsed (6.ix)."""
        code = {"SS": "TW", "VP": "TN"}.get(self.square(target).kind.code)
        if code is None:
            return ()
        return tuple(self.loc(target.block, s.label) for s in self.data.block(target.block).of_kind(code))

    def _adjacent_of(self, loc: Loc) -> set[str]:
        out: set[str] = set()
        for m in self.maps_of(loc):
            out.update(self.adjacent_blocks(m))
        return out

    # -- shooting (8.iii, 8.iv)

    def fire_range(self, shooter: Loc, target: Loc, fallen: Collection[str] = (),
                   also_open: Collection[Loc] = (), max_range: int | None = None) -> int | None:
        """The range of the shortest line of fire from ``shooter`` to ``target``, or None (8.iii, 8.iv).

        A line runs from any point of the shooter's square to any point of the target's, to or
        through Open Air squares, to but not through Window and Interior squares; to an Interior
        square only along a level or a column. The squares of ``fallen`` blocks (10.iii: a block that
        fell counts as Open Air for lines of fire) and ``also_open`` squares count as Open Air.
        The range counts the target's square, not the shooter's, diagonally through Open Air (8.iii):
        the larger of the column and level differences. The ring is searched both ways round
        (1.ii: "anche quando si spara da una parte all'altra"). Lines longer than ``max_range`` (the
        weapon's range) are not searched.
        """
        if shooter == target:
            return 0
        fallen_set, opened = frozenset(fallen), frozenset(also_open)

        def blocks_fire(x: int, level: int) -> bool:
            loc = self.at(x, level)
            assert loc is not None
            if loc in opened or loc.block in fallen_set:
                return False
            return not self.square(loc).is_open

        x0, x1 = self.x_of(shooter), self.x_of(target)
        dy = target.level - shooter.level
        dx_right = (x1 - x0) % self.width
        candidates = sorted({dx_right, dx_right - self.width} if dx_right else {0}, key=abs)
        interior = self.square(target).is_interior and target.block not in fallen_set and target not in opened
        best: int | None = None
        for dx in candidates:
            if interior and dx != 0 and dy != 0:
                continue
            rng = max(abs(dx), abs(dy))
            if (best is not None and rng >= best) or (max_range is not None and rng > max_range):
                continue
            if interior:
                clear = all(not blocks_fire(x0 + k * _sign(dx), shooter.level + k * _sign(dy))
                            for k in range(1, rng))
            else:
                clear = _clear_line(x0, shooter.level, dx, dy, blocks_fire)
            if clear:
                best = rng
        return best

    # -- collapse and fire (9.iii, 10.i)

    def collapse_targets(self, loc: Loc) -> tuple[Loc, ...]:
        """Where a collapse at ``loc`` puts Structural Damage, in order: the square above, then the one
        above to the right, then above to the left, Open Air squares excepted (9.iii). Whether they
        have already collapsed is the engine's to check."""
        out = []
        for d in ("up", "up-right", "up-left"):
            n = self.step(loc, d)
            if n is not None and not self.square(n).is_open:
                out.append(n)
        return tuple(out)

    def fire_spread_target(self, loc: Loc, roll: int) -> Loc | None:
        """The neighbour a fourth Fire spreads to on the 2d6 ``roll`` (10.i diagram, as read in
        ``[fire_spread]``); None off the map. The engine drops it on Open Air, a collapsed square or
        one with three Fires."""
        direction = self.data.fire_spread.get(roll)
        if direction is None:
            raise ValueError(f"not a 2d6 roll: {roll}")
        return self.step(loc, direction)

    def distance(self, a: Loc, b: Loc) -> int:
        """Squares from ``a`` to ``b`` counting diagonals, the short way round the ring."""
        dx = (self.x_of(b) - self.x_of(a)) % self.width
        return max(min(dx, self.width - dx), abs(b.level - a.level))

    def _label_in(self, loc: Loc, block: str) -> str:
        """The label of ``loc`` on ``block``'s map (the left map names a shared half square by its last column)."""
        if block == loc.block:
            return loc.label
        b = self.data.block(block)
        return f"{COLUMN_LETTERS[b.width - 1]}{loc.level}"


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


#: Points of a square a line of fire may start or end at, in eighths of a square: near each corner
#: and the centre ("da un qualsiasi punto dello Square ... a qualsiasi punto", 8.iv).
_POINTS: Final = ((4, 4), (1, 1), (7, 1), (1, 7), (7, 7))


def _clear_line(x0: int, level0: int, dx: int, dy: int, blocks_fire: Callable[[int, int], bool]) -> bool:
    """Whether some segment from a point of square (x0, level0) to a point of (x0+dx, level0+dy)
    enters no blocking square (other than the two ends). Squares are unit boxes; a segment touching
    only a side or a corner of a square does not enter it. Integer arithmetic, in eighths."""
    lo_x, hi_x = min(0, dx), max(0, dx)
    lo_y, hi_y = min(0, dy), max(0, dy)
    blockers = [(8 * cx, 8 * cy) for cx in range(lo_x, hi_x + 1) for cy in range(lo_y, hi_y + 1)
                if (cx, cy) not in ((0, 0), (dx, dy)) and blocks_fire(x0 + cx, level0 + cy)]
    if not blockers:
        return True
    for px, py in _POINTS:
        for qx, qy in _POINTS:
            q = (8 * dx + qx, 8 * dy + qy)
            if not any(_enters((px, py), q, bx, by) for bx, by in blockers):
                return True
    return False


def _enters(p: tuple[int, int], q: tuple[int, int], bx: int, by: int) -> bool:
    """Whether the segment p-q meets the open box (bx, bx+8) x (by, by+8) (coordinates in eighths)."""
    if max(p[0], q[0]) <= bx or min(p[0], q[0]) >= bx + 8 or max(p[1], q[1]) <= by or min(p[1], q[1]) >= by + 8:
        return False
    # t in [0, 1] as fractions n/d (d > 0); keep the largest lower and the smallest upper bound
    lo_n, lo_d, hi_n, hi_d = 0, 1, 1, 1
    for a, b, c in ((p[0], q[0], bx), (p[1], q[1], by)):
        d = b - a
        if d == 0:
            if not c < a < c + 8:
                return False
            continue
        n1, n2 = c - a, c + 8 - a
        if d < 0:
            n1, n2, d = a - c - 8, a - c, -d
        if n1 * lo_d > lo_n * d:
            lo_n, lo_d = n1, d
        if n2 * hi_d < hi_n * d:
            hi_n, hi_d = n2, d
    return lo_n * hi_d < hi_n * lo_d


# -- the loader --------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, text: str) -> BlocksError:
        return BlocksError(f"{self.source}: {text}")

    def int_(self, value: Any, where: str, lo: int = 1, hi: int | None = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < lo or (hi is not None and value > hi):
            span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise self.error(f"{where}: {value!r} is not an integer {span}")
        return value

    def str_(self, raw: Mapping[str, Any], key: str, where: str, required: bool = True) -> str:
        value = raw.get(key, "")
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.error(f"{where}: '{key}' must be a non-empty string")
        return value

    def bool_(self, raw: Mapping[str, Any], key: str, where: str) -> bool:
        value = raw.get(key, False)
        if not isinstance(value, bool):
            raise self.error(f"{where}: '{key}' must be true or false")
        return value


def _parse_kinds(rd: _Reader, data: Mapping[str, Any]) -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    raw_kinds = data.get("kind")
    if not isinstance(raw_kinds, list) or not raw_kinds:
        raise rd.error("no [[kind]] entries")
    for raw in raw_kinds:
        code = rd.str_(raw, "code", "a [[kind]]")
        where = f"kind {code!r}"
        if not re.fullmatch(r"[A-Z]{2}", code):
            raise rd.error(f"{where}: the code must be two capital letters")
        if code in kinds:
            raise rd.error(f"{where} appears twice")
        types = raw.get("types")
        if not isinstance(types, list) or not types or any(t not in TYPES for t in types):
            raise rd.error(f"{where}: 'types' must list some of {TYPES}")
        colour = rd.str_(raw, "colour", where)
        if colour not in COLOURS:
            raise rd.error(f"{where}: colour {colour!r} is not one of {COLOURS}")
        if (colour == "open") != (types == ["open"]):
            raise rd.error(f"{where}: Open Air kinds have colour 'open' and type 'open' only (1.ii)")
        level = raw.get("level")
        if level is not None and level not in TRANSIT_LEVELS:
            raise rd.error(f"{where}: level {level!r} is not one of {TRANSIT_LEVELS}")
        strength = raw.get("strength")
        if strength is not None:
            strength = rd.int_(strength, f"{where}: strength", 1, 12)
        damage = raw.get("damage")
        if (strength is None) != (damage is None) or (damage is not None and damage not in DAMAGE_TRACKS):
            raise rd.error(f"{where}: 'strength' and 'damage' ({DAMAGE_TRACKS}) go together")
        draw = raw.get("draw")
        if draw is not None and draw not in DRAW_POOLS:
            raise rd.error(f"{where}: draw {draw!r} is not one of {DRAW_POOLS}")
        only = raw.get("only")
        if only is not None and not isinstance(only, str):
            raise rd.error(f"{where}: 'only' must be a weapon name")
        count = raw.get("per_block", [0])
        if (not isinstance(count, list) or not 1 <= len(count) <= 2
                or any(not isinstance(c, int) or c < 0 for c in count)):
            raise rd.error(f"{where}: 'per_block' must be [min] or [min, max]")
        addressed = rd.bool_(raw, "addressed", where)
        if addressed and colour == "open":
            raise rd.error(f"{where}: only Window and Interior squares carry addresses (1.ii)")
        kinds[code] = Kind(
            code=code, name=rd.str_(raw, "name", where), types=frozenset(types), colour=colour,
            level=level, addressed=addressed, walk=rd.bool_(raw, "walk", where),
            land=rd.bool_(raw, "land", where), takeoff=rd.bool_(raw, "takeoff", where),
            free=rd.bool_(raw, "free", where), loot=rd.bool_(raw, "loot", where), draw=draw,
            strength=strength, damage=damage, only=only, min_count=count[0],
            max_count=count[1] if len(count) == 2 else None,
            source=rd.str_(raw, "source", where), note=rd.str_(raw, "note", where, required=False),
        )
    for needed, colour in (("OA", "open"), ("RS", "residential")):
        if needed not in kinds or kinds[needed].colour != colour:
            raise rd.error(f"kind {needed!r} ({colour}) is missing: plain Open Air and Residential squares need it")
    if not kinds["RS"].addressed:
        raise rd.error("kind 'RS': residential squares carry an address (1.ii)")
    return kinds


def _parse_token(rd: _Reader, token: str, kinds: Mapping[str, Kind], where: str) -> tuple[str, Kind, int | None]:
    m = _TOKEN.fullmatch(token)
    if m is None:
        raise rd.error(f"{where}: {token!r} is not a square like 'o', 'oPW', 'w34', 'iBK' or 'wEP11'")
    type_ = TYPE_LETTERS[m.group(1)]
    code, digits = m.group(2), m.group(3)
    address = int(digits) if digits else None
    if code is None:
        code = "RS" if address is not None else "OA" if type_ == "open" else ""
        if not code:
            raise rd.error(f"{where}: a {type_} square must be residential (an address), Civic or special (1.ii)")
    kind = kinds.get(code)
    if kind is None:
        raise rd.error(f"{where}: unknown kind {code!r}")
    if type_ not in kind.types:
        raise rd.error(f"{where}: a {kind.name} square cannot be {type_} (allowed: {sorted(kind.types)})")
    if kind.addressed and address is None:
        raise rd.error(f"{where}: a {kind.name} square needs its address 11-66 (5.ii)")
    if not kind.addressed and address is not None:
        raise rd.error(f"{where}: a {kind.name} square has no address")
    if address is not None and address not in DICE_ADDRESSES:
        raise rd.error(f"{where}: address {address} cannot be read from two dice (11-66, digits 1-6, 5.ii)")
    return type_, kind, address


def _grid(rd: _Reader, raw: Any, levels: int, where: str) -> list[list[str]]:
    if not isinstance(raw, list) or len(raw) != levels:
        raise rd.error(f"{where}: 'grid' must list {levels} levels, top first")
    rows = []
    for i, line in enumerate(raw):
        if not isinstance(line, str):
            raise rd.error(f"{where}: level {levels - i} is not a string")
        rows.append(line.split())
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        bad = next(levels - i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise rd.error(f"{where}: level {bad} has {len(rows[levels - bad])} squares, level {levels} has {len(rows[0])}")
    width = widths.pop()
    if not 3 <= width <= len(COLUMN_LETTERS):
        raise rd.error(f"{where}: a map is 3..{len(COLUMN_LETTERS)} squares wide, not {width}")
    return rows


def _column(rd: _Reader, value: Any, width: int, where: str) -> int:
    if not isinstance(value, str) or len(value) != 1 or value not in COLUMN_LETTERS[:width]:
        raise rd.error(f"{where}: column {value!r} is not one of A..{COLUMN_LETTERS[width - 1]}")
    return COLUMN_LETTERS.index(value)


def _parse_block(rd: _Reader, raw: Mapping[str, Any], levels: int, transit: Mapping[str, int],
                 kinds: Mapping[str, Kind], join: tuple[Kind, ...]) -> Block:
    bid = rd.str_(raw, "id", "a [[block]]")
    if not re.fullmatch(r"[a-z0-9_-]+", bid):
        raise rd.error(f"block {bid!r}: the id must be lower-case letters, digits, '-' or '_'")
    where = f"block {bid!r}"
    name = rd.str_(raw, "name", where)
    tokens = _grid(rd, raw.get("grid"), levels, where)
    width = len(tokens[0])

    def label(col: int, level: int) -> str:
        return f"{COLUMN_LETTERS[col]}{level}"

    cells: dict[tuple[int, int], tuple[str, Kind, int | None]] = {}
    for i, row in enumerate(tokens):
        level = levels - i
        for col, token in enumerate(row):
            cells[col, level] = _parse_token(rd, token, kinds, f"{where} square {label(col, level)}")

    def is_open(col: int, level: int) -> bool:
        if level > levels:
            return True  # the sky above the map
        if level < 1 or not 0 <= col < width:
            return False
        return cells[col, level][0] == "open"

    # 1.ii: the half squares at both edges complete those of the neighbouring maps
    for col in (0, width - 1):
        for level in range(1, levels + 1):
            if cells[col, level][1] is not join[level - 1]:
                raise rd.error(f"{where} square {label(col, level)}: the edge square is "
                               f"{cells[col, level][1].name}, the [join] says {join[level - 1].name} (1.ii)")

    addresses: dict[int, str] = {}
    counts: dict[str, int] = {code: 0 for code in kinds}
    for (col, level), (type_, kind, address) in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        at = f"{where} square {label(col, level)}"
        counts[kind.code] += 1
        if address is not None:
            if address in addresses:
                raise rd.error(f"{at}: address {address} is already on {addresses[address]} "
                               "(5.ii: a roll must find one square)")
            addresses[address] = label(col, level)
        if kind.level is not None and level != transit[kind.level]:
            raise rd.error(f"{at}: a {kind.name} square lies on the {kind.level} level {transit[kind.level]}")
        if type_ == "open" and kind.code == "OA":
            for tname in ("ground", "megaway", "pedway", "skyrail"):
                if level == transit[tname]:
                    raise rd.error(f"{at}: plain Open Air on the {tname} level {level}; it must carry "
                                   f"the {tname} symbol")
        if type_ == "window" and not any(is_open(col + dc, level + dl)
                                         for dc, dl in ((1, 0), (-1, 0), (0, 1), (0, -1))):
            raise rd.error(f"{at}: a Window square must touch Open Air (1.ii: partly outside the block)")
    missing = [a for a in DICE_ADDRESSES if a not in addresses]
    if missing:
        raise rd.error(f"{where}: addresses {missing} are on no square (5.ii: every roll 11-66 finds a square)")
    for code, kind in kinds.items():
        n = counts[code]
        if n < kind.min_count or (kind.max_count is not None and n > kind.max_count):
            want = f"{kind.min_count}" + ("" if kind.max_count == kind.min_count else
                                          f"..{kind.max_count}" if kind.max_count is not None else " or more")
            raise rd.error(f"{where}: {n} {kind.name} squares, the block needs {want} ({kind.source})")

    # the transit levels: the outermost Window/Interior squares are the ways in (6.vi-6.viii)
    for tname, code in (("megaway", "TN"), ("pedway", "PT"), ("skyrail", "TW")):
        level = transit[tname]
        inside = [c for c in range(width) if cells[c, level][0] != "open"]
        if not inside:
            raise rd.error(f"{where}: the block does not reach the {tname} level {level}")
        for c in (inside[0], inside[-1]):
            if cells[c, level][1].code != code:
                raise rd.error(f"{where} square {label(c, level)}: the outermost square of the {tname} "
                               f"level must be a {kinds[code].name}")

    # 6.i: every Window/Interior square, the plaza and the pedways reachable on foot
    walkable = {pos for pos, (type_, kind, _) in cells.items() if type_ != "open" or kind.walk}
    first = min(walkable, key=lambda p: (p[1], p[0]))
    seen, queue = {first}, deque([first])
    while queue:
        c, lv = queue.popleft()
        for nxt in ((c + 1, lv), (c - 1, lv), (c, lv + 1), (c, lv - 1)):
            if nxt in walkable and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    cut = sorted(walkable - seen, key=lambda p: (p[1], p[0]))
    if cut:
        raise rd.error(f"{where} square {label(*cut[0])}: cannot be reached on foot from {label(*first)}")

    lift_squares: dict[tuple[int, int], str] = {}
    lifts = []
    for n, lraw in enumerate(raw.get("lift", []), 1):
        lw = f"{where} lift {n}"
        col = _column(rd, lraw.get("column"), width, lw)
        span = lraw.get("levels")
        if not isinstance(span, list) or len(span) != 2:
            raise rd.error(f"{lw}: 'levels' must be [bottom, top]")
        bottom = rd.int_(span[0], f"{lw}: bottom", 1, levels)
        top = rd.int_(span[1], f"{lw}: top", 1, levels)
        if top <= bottom:
            raise rd.error(f"{lw}: the shaft must serve at least two levels, bottom first")
        for level in range(bottom, top + 1):
            if cells[col, level][0] == "open":
                raise rd.error(f"{lw}: square {label(col, level)} is Open Air (1.ii: lifts are in Window "
                               "and Interior squares)")
            if (col, level) in lift_squares:
                raise rd.error(f"{lw}: square {label(col, level)} is already on {lift_squares[col, level]}")
            lift_squares[col, level] = f"lift {n}"
        lifts.append(Lift(bid, col, bottom, top))

    chute_squares: set[tuple[int, int]] = set()
    chutes = []
    ground = transit["ground"]
    for n, craw in enumerate(raw.get("chute", []), 1):
        cw = f"{where} grav-chute {n}"
        col = _column(rd, craw.get("column"), width, cw)
        entries = craw.get("levels")
        if not isinstance(entries, list) or not entries:
            raise rd.error(f"{cw}: 'levels' must list the levels with the grav-chute symbol")
        levs = tuple(rd.int_(v, f"{cw}: level", 1, levels) for v in entries)
        if list(levs) != sorted(set(levs), reverse=True):
            raise rd.error(f"{cw}: list the levels once each, top first")
        for level in levs:
            if level <= ground:
                raise rd.error(f"{cw}: square {label(col, level)} is on the ground level: nowhere to drop (6.iv)")
            if cells[col, level][0] == "open":
                raise rd.error(f"{cw}: square {label(col, level)} is Open Air (1.ii)")
            if (col, level) in chute_squares:
                raise rd.error(f"{cw}: square {label(col, level)} already has a grav-chute")
            chute_squares.add((col, level))
        if cells[col, ground][0] == "open":
            raise rd.error(f"{cw}: it lands in {label(col, ground)}, which is Open Air (6.iv: the ground square below)")
        chutes.append(Chute(bid, col, levs, ground))

    fire: set[tuple[int, int]] = set()
    raw_fire = raw.get("fire_control")
    if not isinstance(raw_fire, list) or not raw_fire:
        raise rd.error(f"{where}: 'fire_control' must list the squares with the fire-control symbol (8.x)")
    for value in raw_fire:
        pos = parse_label(value) if isinstance(value, str) else None
        if pos is None or pos not in cells:
            raise rd.error(f"{where} fire_control: {value!r} is not a square of the map")
        if cells[pos][0] == "open":
            raise rd.error(f"{where} fire_control: square {value} is Open Air (1.ii)")
        if pos in fire:
            raise rd.error(f"{where} fire_control: square {value} is listed twice")
        fire.add(pos)

    rows = tuple(
        tuple(Square(bid, col, level, *cells[col, level], lift=(col, level) in lift_squares,
                     chute=(col, level) in chute_squares, fire_control=(col, level) in fire)
              for col in range(width))
        for level in range(1, levels + 1)
    )
    return Block(bid, name, width, levels, rows, tuple(lifts), tuple(chutes),
                 rd.str_(raw, "note", where, required=False))


def parse_blocks(data: Mapping[str, Any], source: str = "blocks.toml") -> Blocks:
    """Build and check the blocks from parsed TOML; raises ``BlocksError`` naming the entry."""
    rd = _Reader(source)
    raw_map = data.get("map")
    if not isinstance(raw_map, Mapping):
        raise rd.error("no [map] table")
    levels = rd.int_(raw_map.get("levels"), "[map] levels", 2, 99)
    transit = {t: rd.int_(raw_map.get(t), f"[map] {t}", 1, levels) for t in TRANSIT_LEVELS}
    if transit["ground"] != 1:
        raise rd.error("[map] ground: level 1 is the ground level, the lowest of the block (6.iv)")
    if transit["pedway"] != 6:
        raise rd.error("[map] pedway: the pedways run at the sixth level (6.vii)")
    if len(set(transit.values())) != len(transit):
        raise rd.error("[map]: the ground, megaway, pedway and skyrail levels must differ")
    kinds = _parse_kinds(rd, data)

    raw_join = data.get("join", {}).get("levels")
    if not isinstance(raw_join, list) or len(raw_join) != levels:
        raise rd.error(f"[join] levels must list the edge half square of each of the {levels} levels, top first")
    join_kinds = []
    for i, token in enumerate(raw_join):
        type_, kind, _ = _parse_token(rd, str(token), kinds, f"[join] level {levels - i}")
        if type_ != "open":
            raise rd.error(f"[join] level {levels - i}: the half squares between blocks are Open Air (1.ii)")
        join_kinds.append(kind)
    join = tuple(reversed(join_kinds))  # index level - 1

    raw_spread = data.get("fire_spread")
    if not isinstance(raw_spread, Mapping):
        raise rd.error("no [fire_spread] table (10.i)")
    spread: dict[int, str] = {}
    for key, direction in raw_spread.items():
        if not str(key).isdigit() or not 2 <= int(key) <= 12:
            raise rd.error(f"[fire_spread] {key!r} is not a 2d6 total 2..12")
        if direction not in DIRECTIONS:
            raise rd.error(f"[fire_spread] {key}: {direction!r} is not one of {tuple(DIRECTIONS)}")
        spread[int(key)] = str(direction)
    if sorted(spread) != list(range(2, 13)):
        raise rd.error(f"[fire_spread]: totals {sorted(set(range(2, 13)) - set(spread))} have no direction")
    if set(spread.values()) != set(DIRECTIONS):
        raise rd.error(f"[fire_spread]: directions {sorted(set(DIRECTIONS) - set(spread.values()))} are never rolled")

    raw_blocks = data.get("block")
    if not isinstance(raw_blocks, list) or not raw_blocks:
        raise rd.error("no [[block]] entries")
    blocks: list[Block] = []
    for raw in raw_blocks:
        block = _parse_block(rd, raw, levels, transit, kinds, join)
        if any(b.id == block.id for b in blocks):
            raise rd.error(f"block {block.id!r} appears twice")
        if any(b.name == block.name for b in blocks):
            raise rd.error(f"block {block.id!r}: the name {block.name!r} is already used")
        blocks.append(block)
    return Blocks(levels, transit, kinds, join, tuple(blocks), spread)


def load_blocks(text: str | None = None) -> Blocks:
    """The blocks from ``text`` (TOML) or from the packaged ``data/blocks.toml``."""
    if text is None:
        text = resources.files("pbem.games.blockmania.data").joinpath("blocks.toml").read_text("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BlocksError(f"blocks.toml: {exc}") from exc
    try:
        return parse_blocks(data)
    except (KeyError, TypeError, AttributeError) as exc:
        raise BlocksError(f"blocks.toml: missing or malformed entry {exc}") from exc


@cache
def blocks() -> Blocks:
    """The packaged blocks, loaded once."""
    return load_blocks()
