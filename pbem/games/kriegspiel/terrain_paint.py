"""Painting the Kriegspiel board's terrain (mountains, passes, forts) and arsenals, batched into a
few paths per kind (see the map's module docstring on speed)."""

from __future__ import annotations

from pbem.games.kriegspiel.geometry import CELL, colours
from pbem.render import svg, theme
from pbem.render.svg import Path, Point

class _TerrainPainter:
    """Batches terrain squares and their symbols into a few paths."""

    def __init__(self) -> None:
        self.mountain = Path()
        self.peaks = Path()
        self.snow = Path()
        self.pass_fill = Path()
        self.pass_marks = Path()
        self.fort_fill = Path()
        self.fort_marks = Path()

    def add(self, kind: str, x: float, y: float, c: float = CELL) -> None:
        if kind == "mountain":
            self.mountain.rect(x, y, c, c)
            self.peaks.polygon([(x + 0.08 * c, y + 0.84 * c), (x + 0.42 * c, y + 0.22 * c), (x + 0.76 * c, y + 0.84 * c)])
            self.peaks.polygon([(x + 0.5 * c, y + 0.84 * c), (x + 0.7 * c, y + 0.46 * c), (x + 0.92 * c, y + 0.84 * c)])
            self.snow.polygon(
                [
                    (x + 0.42 * c, y + 0.22 * c),
                    (x + 0.53 * c, y + 0.42 * c),
                    (x + 0.46 * c, y + 0.38 * c),
                    (x + 0.40 * c, y + 0.44 * c),
                    (x + 0.35 * c, y + 0.36 * c),
                    (x + 0.31 * c, y + 0.42 * c),
                ]
            )
        elif kind == "pass":
            self.pass_fill.rect(x, y, c, c)
            self.pass_marks.move(x + 0.1 * c, y + 0.1 * c).quad(x + 0.3 * c, y + 0.5 * c, x + 0.1 * c, y + 0.9 * c)
            self.pass_marks.move(x + 0.9 * c, y + 0.1 * c).quad(x + 0.7 * c, y + 0.5 * c, x + 0.9 * c, y + 0.9 * c)
        elif kind == "fort":
            self.fort_fill.rect(x, y, c, c)
            self.fort_marks.polygon(_star_fort(x + c / 2, y + c / 2, c))

    def svg(self, scale: float = 1.0) -> str:
        return "".join(
            [
                svg.path(self.mountain, fill=theme.MOUNTAIN),
                svg.path(self.pass_fill, fill=theme.PASS),
                svg.path(self.fort_fill, fill=theme.FORT),
            ]
        )

    def symbols(self, scale: float = 1.0) -> str:
        return "".join(
            [
                svg.path(self.peaks, fill=theme.MOUNTAIN_RIDGE, stroke_linejoin="round"),
                svg.path(self.snow, fill=theme.MOUNTAIN_SNOW),
                svg.path(
                    self.pass_marks, fill="none", stroke=theme.PASS_INK, stroke_width=2.6 * scale,
                    stroke_linecap="round",
                ),
                svg.path(
                    self.fort_marks, fill="#b3ab9c", stroke=theme.FORT_INK, stroke_width=1.4 * scale,
                    stroke_linejoin="miter",
                ),
            ]
        )


def _star_fort(cx: float, cy: float, c: float) -> list[Point]:
    """A bastioned fort seen from above: a square with an arrowhead bastion at each corner."""
    a, f, g, sal = 0.2 * c, 0.1 * c, 0.08 * c, 0.13 * c
    # The top-right bastion, in local coordinates (y down), from the top curtain round to the right one.
    corner = [(a - f, -a), (a - f, -a - g), (a + sal, -a - sal), (a + g, -a + f), (a, -a + f)]
    pts: list[Point] = []
    for k in range(4):  # rotate by 90 degrees, clockwise
        cos_k, sin_k = (1, 0, -1, 0)[k], (0, 1, 0, -1)[k]
        pts.extend((cx + px * cos_k - py * sin_k, cy + px * sin_k + py * cos_k) for px, py in corner)
    return pts


class _ArsenalPainter:
    """Arsenals: side-coloured squares with a magazine; ruins greyed and crossed."""

    def __init__(self) -> None:
        self.squares: dict[str, Path] = {}
        self.borders: dict[str, Path] = {}
        self.houses: dict[str, Path] = {}
        self.doors = Path()
        self.ruin_squares = Path()
        self.ruin_houses = Path()
        self.ruin_crosses: dict[str, Path] = {}
        self._sides: list[str] = []

    def _side(self, side: str) -> None:
        if side not in self._sides:
            self._sides.append(side)
            self.squares[side] = Path()
            self.borders[side] = Path()
            self.houses[side] = Path()
            self.ruin_crosses[side] = Path()

    def add(self, x: float, y: float, side: str, destroyed: bool, c: float = CELL) -> None:
        self._side(side)
        house = [
            (x + 0.2 * c, y + 0.46 * c),
            (x + 0.5 * c, y + 0.17 * c),
            (x + 0.8 * c, y + 0.46 * c),
            (x + 0.8 * c, y + 0.82 * c),
            (x + 0.2 * c, y + 0.82 * c),
        ]
        if destroyed:
            self.ruin_squares.rect(x, y, c, c)
            # A broken roof: the house with a notch bitten out of it.
            self.ruin_houses.polygon(
                [
                    (x + 0.2 * c, y + 0.5 * c),
                    (x + 0.42 * c, y + 0.3 * c),
                    (x + 0.5 * c, y + 0.45 * c),
                    (x + 0.6 * c, y + 0.34 * c),
                    (x + 0.8 * c, y + 0.52 * c),
                    (x + 0.8 * c, y + 0.82 * c),
                    (x + 0.2 * c, y + 0.82 * c),
                ]
            )
            i = 0.1 * c
            self.ruin_crosses[side].segment((x + i, y + i), (x + c - i, y + c - i))
            self.ruin_crosses[side].segment((x + i, y + c - i), (x + c - i, y + i))
        else:
            self.squares[side].rect(x, y, c, c)
            b = 0.08 * c
            self.borders[side].rect(x + b, y + b, c - 2 * b, c - 2 * b)
            self.houses[side].polygon(house)
            self.doors.rect(x + 0.42 * c, y + 0.58 * c, 0.16 * c, 0.24 * c)

    def svg(self, scale: float = 1.0) -> str:
        out: list[str] = [svg.path(self.ruin_squares, fill="#d9d5cc")]
        out.append(svg.path(self.ruin_houses, fill=theme.RUIN, fill_opacity=0.8))
        for side in self._sides:
            col = colours(side)
            out.append(svg.path(self.squares[side], fill=col.light))
            out.append(svg.path(self.borders[side], fill="none", stroke=col.main, stroke_width=2.4 * scale))
            out.append(svg.path(self.houses[side], fill=col.main, stroke=col.dark, stroke_width=1 * scale))
        out.append(svg.path(self.doors, fill="#ffffff"))
        for side in self._sides:
            out.append(
                svg.path(
                    self.ruin_crosses[side], fill="none", stroke=colours(side).main,
                    stroke_width=3.2 * scale, stroke_linecap="round",
                )
            )
        return "".join(out)
