"""The board: squares, terrain and straight lines, read from ``data/board.toml``.

Squares are named by row letter (A-T from the North edge) and column number (1-25),
e.g. ``G6``.  Inside the engine a square is an index ``row * cols + col`` (0-based);
states and orders keep the names.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources

#: The 8 directions (row step, column step): N, NE, E, SE, S, SW, W, NW.
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1),
)
SIDES = ("north", "south")
_SQUARE = re.compile(r"([A-Z])([0-9]{1,2})")


@dataclass(frozen=True)
class Board:
    rows: int
    cols: int
    row_letters: str
    terrain: dict[int, str]  # square -> "mountain" | "pass" | "fort"
    terrain_side: dict[int, str]  # square -> territory the feature belongs to
    arsenals: tuple[tuple[int, str], ...]  # (square, side), in data order
    territory_rows: dict[str, tuple[int, int]]  # side -> (first row, last row)
    rays: tuple[tuple[tuple[int, ...], ...], ...]  # square -> direction -> squares outward
    neighbours: tuple[tuple[int, ...], ...]  # square -> the (up to 8) adjacent squares
    _names: tuple[str, ...] = field(init=False, repr=False, compare=False)  # square -> its name
    _squares: dict[str, int] = field(init=False, repr=False, compare=False)  # name -> square
    #: square -> its 8 rays as far as the terrain lets a line of communication go: before the first
    #: mountain, up to and including the first fort (`comms`)
    line_rays: tuple[tuple[tuple[int, ...], ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = tuple(f"{self.row_letters[sq // self.cols]}{sq % self.cols + 1}" for sq in range(self.size))
        object.__setattr__(self, "_names", names)
        object.__setattr__(self, "_squares", {n: sq for sq, n in enumerate(names)})
        object.__setattr__(self, "line_rays", tuple(tuple(self._line_ray(ray) for ray in rays) for rays in self.rays))

    def _line_ray(self, ray: tuple[int, ...]) -> tuple[int, ...]:
        out = []
        for sq in ray:
            if self.terrain.get(sq) == "mountain":
                break
            out.append(sq)
            if self.terrain.get(sq) == "fort":
                break
        return tuple(out)

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def name(self, sq: int) -> str:
        if 0 <= sq < len(self._names):
            return self._names[sq]
        return f"{self.row_letters[sq // self.cols]}{sq % self.cols + 1}"

    def index(self, name: str) -> int:
        """The index of a well-formed square name (raises ``ValueError`` otherwise)."""
        sq = self.parse(name)
        if sq is None:
            raise ValueError(f"not a square: {name!r}")
        return sq

    def parse(self, text: str) -> int | None:
        """The square named by ``text`` (``g6``, ``G06``), or None."""
        sq = self._squares.get(text)
        if sq is not None:
            return sq  # a square's own name, as states and canonical orders write it
        m = _SQUARE.fullmatch(text.strip().upper())
        if not m:
            return None
        row = self.row_letters.find(m.group(1))
        col = int(m.group(2)) - 1
        if row < 0 or not 0 <= col < self.cols:
            return None
        return row * self.cols + col

    def row(self, sq: int) -> int:
        return sq // self.cols

    def col(self, sq: int) -> int:
        return sq % self.cols

    def territory(self, sq: int) -> str:
        """The side whose territory holds ``sq``."""
        r = self.row(sq)
        for side, (first, last) in self.territory_rows.items():
            if first <= r <= last:
                return side
        raise ValueError(f"square {sq} is in no territory")

    def is_mountain(self, sq: int) -> bool:
        return self.terrain.get(sq) == "mountain"

    def is_fort(self, sq: int) -> bool:
        return self.terrain.get(sq) == "fort"

    def is_pass(self, sq: int) -> bool:
        return self.terrain.get(sq) == "pass"

    def distance(self, a: int, b: int) -> int:
        """Chebyshev distance: the number of king steps from ``a`` to ``b``."""
        return max(abs(self.row(a) - self.row(b)), abs(self.col(a) - self.col(b)))

    def step(self, a: int, b: int) -> tuple[int, int]:
        """The displacement (rows, columns) from ``a`` to ``b``."""
        return self.row(b) - self.row(a), self.col(b) - self.col(a)

    def offset(self, sq: int, dr: int, dc: int) -> int | None:
        r, c = self.row(sq) + dr, self.col(sq) + dc
        if 0 <= r < self.rows and 0 <= c < self.cols:
            return r * self.cols + c
        return None

    def squares_of(self, side: str) -> range:
        first, last = self.territory_rows[side]
        return range(first * self.cols, (last + 1) * self.cols)


def _load() -> Board:
    text = resources.files("pbem.games.kriegspiel.data").joinpath("board.toml").read_text("utf-8")
    data = tomllib.loads(text)
    rows, cols, letters = int(data["rows"]), int(data["cols"]), str(data["row_letters"])

    def index(name: str) -> int:
        m = _SQUARE.fullmatch(name)
        if not m or m.group(1) not in letters or not 1 <= int(m.group(2)) <= cols:
            raise ValueError(f"board.toml: bad square {name!r}")
        return letters.index(m.group(1)) * cols + int(m.group(2)) - 1

    terrain: dict[int, str] = {}
    terrain_side: dict[int, str] = {}
    arsenals: list[tuple[int, str]] = []
    for side in SIDES:
        table = data[side]
        for key, kind in (("mountains", "mountain"), ("passes", "pass"), ("forts", "fort")):
            for name in table[key]:
                terrain[index(name)] = kind
                terrain_side[index(name)] = side
        arsenals.extend((index(name), side) for name in table["arsenals"])
    territory_rows = {side: (letters.index(first), letters.index(last))
                      for side, (first, last) in data["territories"].items()}

    def ray(sq: int, dr: int, dc: int) -> tuple[int, ...]:
        out = []
        r, c = sq // cols + dr, sq % cols + dc
        while 0 <= r < rows and 0 <= c < cols:
            out.append(r * cols + c)
            r, c = r + dr, c + dc
        return tuple(out)

    all_rays = tuple(tuple(ray(sq, dr, dc) for dr, dc in DIRECTIONS) for sq in range(rows * cols))
    neighbours = tuple(tuple(r[0] for r in all_rays[sq] if r) for sq in range(rows * cols))
    return Board(rows, cols, letters, terrain, terrain_side, tuple(arsenals), territory_rows,
                 all_rays, neighbours)


BOARD = _load()
