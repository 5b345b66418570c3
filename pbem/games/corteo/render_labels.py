"""The map of Corteo, where its texts go (issue 19.7: a label hides nothing).

Numbers that belong to a spot (a counter's id, an objective's value, a hex's label) stay where they
are and are *taken* first; names (streets, squares, buildings, gates) then go to the first of their
candidate spots that covers nothing taken, and are left out when none is free (the whole map
still names what the detail leaves out). Boxes are measured like the maps are laid out
(:func:`pbem.render.svg.text_width`): from 0.78 of the font size above the baseline to 0.22 below.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from pbem.render import svg

#: (x0, y0, x1, y1) in user units.
Box = tuple[float, float, float, float]


def text_box(x: float, y: float, text: str, size: float, *, bold: bool = False, anchor: str = "middle") -> Box:
    """The box of ``text`` drawn at (x, y) (baseline) with ``anchor``."""
    width = _width(text, size, bold)
    left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
    return left, y - 0.78 * size, left + width, y + 0.22 * size


@functools.lru_cache(maxsize=4096)
def _width(text: str, size: float, bold: bool) -> float:
    """As :func:`pbem.render.svg.text_run` lays it out: letter by letter."""
    return sum(svg.text_width(ch, size, bold=bold) for ch in text)


def overlaps(a: Box, b: Box, gap: float = 0.0) -> bool:
    """Whether ``a`` and ``b`` share more than a hairline (``gap`` widens ``a`` on every side)."""
    return (min(a[2] + gap, b[2]) - max(a[0] - gap, b[0]) > 0.5
            and min(a[3] + gap, b[3]) - max(a[1] - gap, b[1]) > 0.5)


def inside(box: Box, bounds: Box) -> bool:
    return box[0] >= bounds[0] and box[1] >= bounds[1] and box[2] <= bounds[2] and box[3] <= bounds[3]


CELL = 48.0  # the placer's grid: a box is looked for only among those in the cells it touches


class Placer:
    """The boxes taken so far on one map (or one part of it, within ``bounds``)."""

    def __init__(self, bounds: Box | None = None, gap: float = 1.0) -> None:
        self.bounds = bounds
        self.gap = gap
        self.cells: dict[tuple[int, int], list[Box]] = {}

    @staticmethod
    def _cells(box: Box, gap: float = 0.0) -> Iterable[tuple[int, int]]:
        for i in range(int((box[0] - gap) // CELL), int((box[2] + gap) // CELL) + 1):
            for j in range(int((box[1] - gap) // CELL), int((box[3] + gap) // CELL) + 1):
                yield i, j

    def take(self, box: Box) -> None:
        for cell in self._cells(box):
            self.cells.setdefault(cell, []).append(box)

    def take_all(self, boxes: Iterable[Box]) -> None:
        for box in boxes:
            self.take(box)

    def shows(self, box: Box) -> bool:
        """Whether ``box`` lies within the bounds (a text half cut by the detail's frame is left out)."""
        return self.bounds is None or inside(box, self.bounds)

    def free(self, box: Box) -> bool:
        if not self.shows(box):
            return False
        cells = self.cells
        return not any(overlaps(box, t, self.gap) for c in self._cells(box, self.gap) for t in cells.get(c, ()))

    def first_free(self, boxes: Sequence[Box]) -> int | None:
        """The index of the first free box of ``boxes``, now taken; None when all are covered."""
        for i, box in enumerate(boxes):
            if self.free(box):
                self.take(box)
                return i
        return None

    def label(self, x: float, y: float, text: str, size: float, *, bold: bool = False,
              anchor: str = "middle") -> bool:
        """Take the box of a text that stays where it is, when free; whether it was."""
        return self.first_free([text_box(x, y, text, size, bold=bold, anchor=anchor)]) is not None

    def place(self, spots: Sequence[tuple[float, float]], text: str, size: float, *, bold: bool = False,
              anchor: str = "middle") -> tuple[float, float] | None:
        """The first of ``spots`` (anchor points) where ``text`` covers nothing, taken; else None."""
        i = self.first_free([text_box(x, y, text, size, bold=bold, anchor=anchor) for x, y in spots])
        return None if i is None else spots[i]


__all__ = ["Box", "Placer", "inside", "overlaps", "text_box"]
