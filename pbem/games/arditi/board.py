"""The round board: 18 rays x 5 rings = squares 1-90, and the central waiting square.

Built from ``data/board.toml``. Square ``n`` is on ray ``ceil(n/5)`` and ring
``((n-1) mod 5) + 1`` (ring 1 outer, ring 5 inner); rays are numbered counter-clockwise.
Movement is orthogonal: along the ring (``n±5``, wrapping around the board) or along the
ray (``n±1`` inside the ray). The board is "a sphere where the ends touch": outward from
ring 1 and inward from ring 5 lead to the same ring on the opposite ray (``n±45``).
Every square has exactly four neighbours, named by the direction of the step:
``out``, ``in``, ``ccw`` (to the next ray) and ``cw`` (to the previous ray).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Final

DIRECTIONS: Final = ("out", "in", "ccw", "cw")
OPPOSITE_DIRECTION: Final = {"out": "in", "in": "out", "ccw": "cw", "cw": "ccw"}


@dataclass(frozen=True)
class Board:
    rays: int
    rings: int
    first_ray_angle: float = 0.0

    @property
    def size(self) -> int:
        return self.rays * self.rings

    def is_square(self, n: int) -> bool:
        return 1 <= n <= self.size

    def ray(self, n: int) -> int:
        """1-based ray of square ``n``."""
        return (n - 1) // self.rings + 1

    def ring(self, n: int) -> int:
        """1-based ring of square ``n`` (1 = outer)."""
        return (n - 1) % self.rings + 1

    def square(self, ray: int, ring: int) -> int:
        """The square on ``ray`` (wrapping) and ``ring`` (1..rings)."""
        return ((ray - 1) % self.rays) * self.rings + ring

    def opposite(self, n: int) -> int:
        """The square on the same ring of the opposite ray (n±45 on the standard board)."""
        return self.square(self.ray(n) + self.rays // 2, self.ring(n))

    def step(self, n: int, direction: str) -> int:
        """The neighbour of ``n`` in ``direction`` (out, in, ccw, cw)."""
        ray, ring = self.ray(n), self.ring(n)
        if direction == "ccw":
            return self.square(ray + 1, ring)
        if direction == "cw":
            return self.square(ray - 1, ring)
        if direction == "out":
            return self.opposite(n) if ring == 1 else n - 1
        if direction == "in":
            return self.opposite(n) if ring == self.rings else n + 1
        raise ValueError(f"not a direction: {direction!r}")

    @cached_property
    def _links(self) -> dict[int, dict[str, int]]:
        return {n: {d: self.step(n, d) for d in DIRECTIONS} for n in range(1, self.size + 1)}

    @cached_property
    def _neighbours(self) -> dict[int, frozenset[int]]:
        return {n: frozenset(links.values()) for n, links in self._links.items()}

    def neighbours(self, n: int) -> frozenset[int]:
        return self._neighbours[n]

    def adjacent(self, a: int, b: int) -> bool:
        return b in self._neighbours.get(a, frozenset())

    @cached_property
    def _distances(self) -> dict[int, dict[int, int]]:
        out: dict[int, dict[int, int]] = {}
        for start in range(1, self.size + 1):
            dist = {start: 0}
            frontier = [start]
            while frontier:
                nxt = []
                for sq in frontier:
                    for n in self._neighbours[sq]:
                        if n not in dist:
                            dist[n] = dist[sq] + 1
                            nxt.append(n)
                frontier = nxt
            out[start] = dist
        return out

    def distance(self, a: int, b: int) -> int:
        """Steps from ``a`` to ``b`` on the empty board (the steps a corteo walks, across the
        edges of the sphere too): the measure of "la guardia più vicina"."""
        return self._distances[a][b]

    def direction(self, a: int, b: int) -> str | None:
        """The direction of the step from ``a`` to its neighbour ``b`` (None if not adjacent)."""
        for d, n in self._links[a].items():
            if n == b:
                return d
        return None

    def beyond(self, a: int, b: int) -> int | None:
        """Straight on: the neighbour of ``b`` on the far side from ``a`` (``a`` next to ``b``).

        Coming out of ring 1 onto the opposite ray the step continues inward, and the
        other way round: "straight on" follows the line across the edge of the sphere.
        """
        d = self.direction(b, a)
        if d is None:
            return None
        return self._links[b][OPPOSITE_DIRECTION[d]]

    def turn(self, behind: int, at: int, side: str) -> int | None:
        """The neighbour of ``at`` to the ``side`` ("left"/"right") of one coming from ``behind``.

        Left and right are as seen on the printed map (rays numbered counter-clockwise):
        walking outward, left is counter-clockwise; walking counter-clockwise, left is inward.
        A step across the edge keeps the walker's heading on the map, so this holds there too.
        """
        d = self.direction(at, behind)
        if d is None:
            return None
        heading = OPPOSITE_DIRECTION[d]  # the way one moves when arriving from behind
        left = {"out": "ccw", "ccw": "in", "in": "cw", "cw": "out"}[heading]
        chosen = left if side == "left" else OPPOSITE_DIRECTION[left]
        return self._links[at][chosen]


def _load() -> Board:
    text = resources.files("pbem.games.arditi.data").joinpath("board.toml").read_text("utf-8")
    data = tomllib.loads(text)
    board = Board(int(data["rays"]), int(data["rings"]), float(data.get("first_ray_angle", 0)))
    if board.rays % 2:
        raise ValueError("the board needs an even number of rays (opposite squares)")
    for a, b in data.get("touching", []):
        if not board.adjacent(int(a), int(b)):
            raise ValueError(f"board.toml: squares {a} and {b} must touch")
    return board


BOARD: Final = _load()
