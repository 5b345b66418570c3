"""Labels placed where they hide nothing: the boxes already drawn on the map (`_Obstacles`),
the free band for a sealed side's note, and the attack's result card with its leader line."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Final

from pbem.games.kriegspiel.geometry import CELL, FRAME_H, FRAME_W, Layout
from pbem.render import svg, theme
from pbem.render.svg import Point

def _free_spot(lay: Layout, r0: int, r1: int, text_w: float, busy: set[tuple[int, int]]) -> Point:
    """Centre of a two-row band of rows ``r0..r1`` wide enough for ``text_w`` and free of ``busy`` squares.

    Tries the middle of the territory first, then spreads out; falls back to the middle.
    """
    span = min(lay.cols, math.ceil(text_w / CELL) + 1)
    mid_row = (r0 + r1) / 2 - 1
    rows = sorted(range(r0, max(r0, r1 - 1)), key=lambda r: (abs(r - mid_row), r))
    mid_col = (lay.cols - span) / 2
    starts = sorted(range(lay.cols - span + 1), key=lambda c: (abs(c - mid_col), c))
    for top in rows:
        for left in starts:
            if not any((r, c) in busy for r in (top, top + 1) for c in range(left, left + span)):
                x = lay.board_x + (left + span / 2) * CELL
                return x, lay.board_y + (top + 1) * CELL - 6
    return lay.board_x + lay.board_w / 2, lay.board_y + (r0 + r1) / 2 * CELL


class _Obstacles:
    """Boxes already drawn on the map, so labels can be put where they hide nothing."""

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []
        self.units: list[tuple[float, float, float, float]] = []  # the unit frames alone

    def box(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.boxes.append((x0, y0, x1, y1))

    def frame(self, cx: float, cy: float) -> None:
        w, h = FRAME_W * CELL / 2 + 2, FRAME_H * CELL / 2 + 2
        self.box(cx - w, cy - h, cx + w, cy + h)
        self.units.append((cx - w, cy - h, cx + w, cy + h))

    def hides_unit(self, x0: float, y0: float, x1: float, y1: float) -> bool:
        return any(not (a1 <= x0 or a0 >= x1 or b1 <= y0 or b0 >= y1) for a0, b0, a1, b1 in self.units)

    def polyline(self, points: Sequence[Point], pad: float = 3.0, step: float = 6.0) -> None:
        for a, b in itertools.pairwise(points):
            n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / step))
            for i in range(n + 1):
                x, y = a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n
                self.box(x - pad, y - pad, x + pad, y + pad)

    def overlap(self, x0: float, y0: float, x1: float, y1: float) -> float:
        total = 0.0
        for a0, b0, a1, b1 in self.boxes:
            if a1 <= x0 or a0 >= x1 or b1 <= y0 or b0 >= y1:
                continue
            total += (min(x1, a1) - max(x0, a0)) * (min(y1, b1) - max(y0, b0))
        return total


def _unit_vector(a: Point, b: Point) -> Point:
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    return dx / d, dy / d


CALLOUT_SIZE: Final = 14.0
#: The cost of a card over a unit: more than any other overlap, so only a place with none wins.
HIDES_UNIT: Final = 1e9


def _leader(at: Point, clearance: float, x: float, y: float, w: float, h: float) -> tuple[Point, Point]:
    """The leader line from the ring round ``at`` to the nearest point of the card."""
    bx, by = min(max(at[0], x), x + w), min(max(at[1], y), y + h)
    ux, uy = _unit_vector(at, (bx, by))
    return (at[0] + ux * clearance, at[1] + uy * clearance), (bx, by)


def _leader_cost(at: Point, clearance: float, x: float, y: float, w: float, h: float, obstacles: _Obstacles) -> float:
    a, b = _leader(at, clearance, x, y, w, h)
    n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / 8))
    cost = 0.0
    for i in range(1, n):
        px, py = a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n
        cost += obstacles.overlap(px - 4, py - 4, px + 4, py + 4) * 2
    return cost


def _callout(lay: Layout, at: Point, label: str, clearance: float, obstacles: _Obstacles) -> str:
    """A label on a white card near ``at``, where it covers the least of what is drawn.

    Candidate places around the point (above, below, beside, diagonally, then
    one to five squares further out) are scored by how much they cover; the
    first best wins. A card away from the point gets a leader line to it. A card
    never hides a unit: where every place would, there is no card (the title bar
    says the same in words).
    """
    size = CALLOUT_SIZE
    w = svg.text_width(label, size, bold=True) + 16
    h = size + 11
    ax, ay = at
    xmin, xmax = lay.board_x + 2, lay.board_x + lay.board_w - w - 2
    ymin, ymax = lay.board_y + 2, lay.board_y + lay.board_h - h - 2
    best: tuple[float, float, float, int] | None = None
    rank = 0
    for extra in (0.0, CELL, 2 * CELL, 3 * CELL, 4 * CELL, 5 * CELL):
        near = clearance + extra
        diag = clearance * 0.72 + extra * 0.72
        for dx, dy in (
            (0.0, -(near + h / 2)),
            (0.0, near + h / 2),
            (near + w / 2, 0.0),
            (-(near + w / 2), 0.0),
            (diag + w / 2 - 6, -(diag + h / 2)),
            (-(diag + w / 2 - 6), -(diag + h / 2)),
            (diag + w / 2 - 6, diag + h / 2),
            (-(diag + w / 2 - 6), diag + h / 2),
        ):
            x = min(max(ax + dx - w / 2, xmin), xmax)
            y = min(max(ay + dy - h / 2, ymin), ymax)
            score = obstacles.overlap(x, y, x + w, y + h) + rank * 4.0
            if obstacles.hides_unit(x, y, x + w, y + h):
                score += HIDES_UNIT
            if rank >= 8 and (best is None or score < best[0]):
                # The leader line must not cross units either.
                score += _leader_cost(at, clearance, x, y, w, h, obstacles)
            if best is None or score < best[0]:
                best = (score, x, y, rank)
            rank += 1
    assert best is not None
    score, x, y, chosen = best
    if score >= HIDES_UNIT:
        return ""
    obstacles.box(x, y, x + w, y + h)
    out: list[str] = []
    if chosen >= 8:  # away from the point: a leader line from the ring to the card
        start, (bx, by) = _leader(at, clearance, x, y, w, h)
        out.append(svg.line(*start, bx, by, stroke="#ffffff", stroke_width=4, stroke_opacity=0.85))
        out.append(svg.line(*start, bx, by, stroke=theme.ATTACK, stroke_width=1.6))
    out.append(
        svg.rect(x, y, w, h, rx=4, fill="#ffffff", fill_opacity=0.94, stroke=theme.ATTACK, stroke_width=1.3)
    )
    out.append(
        svg.text(
            x + w / 2, y + h / 2 + size * 0.36, label, font_size=size, font_weight="bold", fill=theme.INK,
            text_anchor="middle",
        )
    )
    return "".join(out)


# -- title bar ----------------------------------------------------------------------------------
