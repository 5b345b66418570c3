"""The squares of Block Mania's maps and the names of places on the ring (rulebook 1.ii).

A block's map is cut into levels (rows, level 1 = ground) and Squares (columns A, B, C, ... from the
left edge); a Square is Open Air, Window or Interior, and a Window or Interior square is residential,
Civic or special. ``Block`` is one map; ``Loc`` names a square of the ring of maps (``curie:D6``) and
``Route`` a ride along a transit level. The geometry across maps is ``ring.Ring``; the data file is
read by ``blocks``, which also re-exports these names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Mapping

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

_LABEL = re.compile(r"([A-Z])([0-9]{1,2})")


class BlocksError(ValueError):
    """The blocks data is inconsistent; the message names the file and the entry."""




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


def parse_label(label: str) -> tuple[int, int] | None:
    """(column, level) of a square label like ``D6`` (column letter, level number), or None."""
    m = _LABEL.fullmatch(label.strip().upper())
    if m is None:
        return None
    return COLUMN_LETTERS.index(m.group(1)), int(m.group(2))


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

