"""Hex geometry of the City's map (rulebook B 1, C 4c): hex and side names, distances, rings and lines.

Hexes are pointy-topped, in rows running West-East. A hex is named by its row letter (A-Z from the
North edge) and its column number (1-40 from the West edge), e.g. ``K12``; odd rows counted from 0
(B, D, F, ...) sit half a hex to the East ("odd-r" offset). Inside, distances and lines use axial
coordinates. A hex side is named by a hex and a direction (E, NE, NW, W, SW, SE): ``K12/E`` is
``K13/W``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Iterable

ROW_LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: The six directions of a pointy-top hex, counter-clockwise from East, with their axial steps.
DIRECTIONS: Final = ("E", "NE", "NW", "W", "SW", "SE")
_STEP: Final = {"E": (1, 0), "NE": (1, -1), "NW": (0, -1), "W": (-1, 0), "SW": (-1, 1), "SE": (0, 1)}
OPPOSITE: Final = {"E": "W", "W": "E", "NE": "SW", "SW": "NE", "NW": "SE", "SE": "NW"}
_FORWARD: Final = ("E", "SE", "SW")  # a side is named from the hex it lies E, SE or SW of

_HEX = re.compile(r"([A-Z])([0-9]{1,2})")
_SIDE = re.compile(r"([A-Z][0-9]{1,2})/(E|NE|NW|W|SW|SE)")

# -- hex geometry --------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Hex:
    """A hex by offset row and column, both 0-based (``Hex(10, 11)`` is ``K12``)."""

    row: int
    col: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.row, self.col)))

    def __hash__(self) -> int:
        """The hash a dataclass gives (of the fields' tuple), computed once: hexes key the hot tables."""
        return self._hash  # type: ignore[attr-defined,no-any-return]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is self.__class__:
            return self.row == other.row and self.col == other.col  # type: ignore[attr-defined,no-any-return]
        return NotImplemented

    @property
    def label(self) -> str:
        return f"{ROW_LETTERS[self.row]}{self.col + 1}"

    @property
    def axial(self) -> tuple[int, int]:
        return self.col - (self.row - (self.row & 1)) // 2, self.row

    @classmethod
    def from_axial(cls, q: int, r: int) -> Hex:
        return cls(r, q + (r - (r & 1)) // 2)

    def step(self, direction: str) -> Hex:
        """The neighbour in ``direction`` (it may lie off the map)."""
        dq, dr = _STEP[direction]
        q, r = self.axial
        return Hex.from_axial(q + dq, r + dr)

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, order=True)
class Side:
    """A hex side, kept as the hex it belongs to and one of E, SE, SW (``K12/W`` is ``K11/E``)."""

    hex: Hex
    direction: str

    @property
    def label(self) -> str:
        return f"{self.hex.label}/{self.direction}"

    @property
    def hexes(self) -> tuple[Hex, Hex]:
        return self.hex, self.hex.step(self.direction)

    def __str__(self) -> str:
        return self.label


def parse_hex(text: str) -> Hex | None:
    """The hex named by ``text`` (``k12``, ``K12``), or None; the map bounds are not checked."""
    m = _HEX.fullmatch(text.strip().upper())
    if not m or int(m.group(2)) < 1:
        return None
    return Hex(ROW_LETTERS.index(m.group(1)), int(m.group(2)) - 1)


def side_of(h: Hex, direction: str) -> Side:
    """The side of ``h`` facing ``direction``, in canonical form."""
    if direction in _FORWARD:
        return Side(h, direction)
    return Side(h.step(direction), OPPOSITE[direction])


def parse_side(text: str) -> Side | None:
    """The side named by ``text`` (``K12/E``), or None."""
    m = _SIDE.fullmatch(text.strip().upper())
    h = parse_hex(m.group(1)) if m else None
    if m is None or h is None:
        return None
    return side_of(h, m.group(2))


def distance(a: Hex, b: Hex) -> int:
    """Number of hex steps from ``a`` to ``b``."""
    (aq, ar), (bq, br) = a.axial, b.axial
    dq, dr = aq - bq, ar - br
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def direction(a: Hex, b: Hex) -> str | None:
    """The direction of the step from ``a`` to its neighbour ``b`` (None if not adjacent)."""
    for d in DIRECTIONS:
        if a.step(d) == b:
            return d
    return None


def side_between(a: Hex, b: Hex) -> Side:
    """The side shared by two adjacent hexes."""
    d = direction(a, b)
    if d is None:
        raise ValueError(f"{a} and {b} are not adjacent")
    return side_of(a, d)


def ring(h: Hex, radius: int) -> tuple[Hex, ...]:
    """Hexes at exactly ``radius`` steps (on or off the map), counter-clockwise from the East."""
    if radius == 0:
        return (h,)
    out = []
    cur = h
    for _ in range(radius):
        cur = cur.step("E")
    for d in ("NW", "W", "SW", "SE", "E", "NE"):
        for _ in range(radius):
            out.append(cur)
            cur = cur.step(d)
    return tuple(out)


def axis_direction(a: Hex, b: Hex) -> str | None:
    """The direction in which ``b`` lies on one of the six hex rows through ``a`` (else None)."""
    if a == b:
        return None
    (aq, ar), (bq, br) = a.axial, b.axial
    dq, dr = bq - aq, br - ar
    n = distance(a, b)
    for d in DIRECTIONS:
        sq, sr = _STEP[d]
        if (sq * n, sr * n) == (dq, dr):
            return d
    return None


def hex_line(a: Hex, b: Hex, nudge: int = 1) -> tuple[Hex, ...]:
    """The hexes a straight line from the centre of ``a`` to the centre of ``b`` passes, both ends
    included, in order (7a, 7d, 7e: throws go along a "LINEA RETTA di esa").

    Where the line runs exactly along a hex side, ``nudge`` (+1 or -1) picks the hexes on one side
    of it; ``hex_lines`` gives both readings.
    """
    n = distance(a, b)
    if n == 0:
        return (a,)
    (aq, ar), (bq, br) = a.axial, b.axial
    ax, az = aq, ar
    bx, bz = bq, br
    ay, by = -ax - az, -bx - bz
    eps = 1e-6 * nudge
    out = []
    for i in range(n + 1):
        t = i / n
        x = ax + (bx - ax) * t + eps
        z = az + (bz - az) * t + eps
        y = ay + (by - ay) * t - 2 * eps
        rx, ry, rz = round(x), round(y), round(z)
        ex, ey, ez = abs(rx - x), abs(ry - y), abs(rz - z)
        if ex > ey and ex > ez:
            rx = -ry - rz
        elif ey > ez:
            ry = -rx - rz
        else:
            rz = -rx - ry
        out.append(Hex.from_axial(rx, rz))
    return tuple(out)


def hex_lines(a: Hex, b: Hex) -> tuple[tuple[Hex, ...], ...]:
    """One line of hexes from ``a`` to ``b``, or two where the line runs along hex sides."""
    first, second = hex_line(a, b, 1), hex_line(a, b, -1)
    return (first,) if first == second else (first, second)


def is_hex_line(hexes: Iterable[Hex]) -> bool:
    """Whether consecutive hexes are adjacent and none repeats (a walkable sequence)."""
    seq = list(hexes)
    return len(set(seq)) == len(seq) and all(distance(a, b) == 1 for a, b in zip(seq, seq[1:]))

