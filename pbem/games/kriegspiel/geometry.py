"""The Kriegspiel map's geometry and colours: the board's layout, squares and their places on the
canvas, the sides' colours (shared by the map, its labels and the tests that find a square's pixels)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from pbem.render import theme
from pbem.render.svg import Point


CELL: Final = 40.0  # one square, in user units
PAD: Final = 14.0  # paper around everything
COORD: Final = 22.0  # the coordinate band on each edge of the board
TITLE_H: Final = 62.0  # title bar height
TITLE_Y: Final = 30.0  # baseline of the title line
LEGEND_GAP: Final = 10.0
LEGEND_ROW: Final = 25.0
LEGEND_ROWS: Final = 4
LEGEND_HEAD: Final = 20.0
LEGEND_H: Final = LEGEND_HEAD + LEGEND_ROWS * LEGEND_ROW + 10.0

DEFAULT_ROWS: Final = 20
DEFAULT_COLS: Final = 25

# Unit frame, as fractions of a square (NATO frames are 3:2).
FRAME_W: Final = 0.74
FRAME_H: Final = 0.5

SIDE_SLOTS: Final = {"north": "blue", "south": "vermillion"}
UNIT_KINDS: Final = ("infantry", "cavalry", "artillery", "horse_artillery", "relay", "horse_relay")


@dataclass(frozen=True, slots=True)
class Layout:
    """Where everything sits, in user units, for a board of ``rows`` x ``cols``."""

    rows: int
    cols: int

    @property
    def board_x(self) -> float:
        return PAD + COORD

    @property
    def board_y(self) -> float:
        return TITLE_H + COORD

    @property
    def board_w(self) -> float:
        return self.cols * CELL

    @property
    def board_h(self) -> float:
        return self.rows * CELL

    @property
    def width(self) -> float:
        return 2 * (PAD + COORD) + self.board_w

    @property
    def legend_y(self) -> float:
        return self.board_y + self.board_h + COORD + LEGEND_GAP

    @property
    def height(self) -> float:
        return self.legend_y + LEGEND_H + PAD

    def origin(self, row: int, col: int) -> Point:
        """Top-left corner of the square at 0-based ``row``, ``col``."""
        return self.board_x + col * CELL, self.board_y + row * CELL

    def centre(self, row: int, col: int) -> Point:
        x, y = self.origin(row, col)
        return x + CELL / 2, y + CELL / 2


@functools.lru_cache(maxsize=16)
def layout(rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> Layout:
    return Layout(rows, cols)


def parse_square(name: object, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> tuple[int, int] | None:
    """``"C10"`` -> ``(2, 9)`` (0-based row, column); ``None`` if not on the board."""
    if not isinstance(name, str) or len(name) < 2:
        return None
    letter, digits = name[0].upper(), name[1:].strip()
    if not ("A" <= letter <= "Z") or not digits.isdigit():
        return None
    row, col = ord(letter) - ord("A"), int(digits) - 1
    if 0 <= row < rows and 0 <= col < cols:
        return row, col
    return None


def square_name(row: int, col: int) -> str:
    return f"{chr(ord('A') + row)}{col + 1}"


def canvas_size(rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> tuple[float, float]:
    """The SVG's view box size in user units."""
    lay = layout(rows, cols)
    return lay.width, lay.height


def image_size(width: int, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> tuple[int, int]:
    """Pixel size of the PNG that ``svg_to_png(render_svg(view), width)`` makes."""
    w, h = canvas_size(rows, cols)
    return width, round(h * width / w)


def square_centre(
    square: str, width: float, *, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS
) -> tuple[float, float]:
    """Pixel position of the centre of ``square`` in a PNG ``width`` pixels wide."""
    rc = parse_square(square, rows, cols)
    if rc is None:
        raise ValueError(f"not a square of a {rows} x {cols} board: {square!r}")
    lay = layout(rows, cols)
    scale = width / lay.width
    x, y = lay.centre(*rc)
    return x * scale, y * scale


def square_box(
    square: str, width: float, *, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS
) -> tuple[float, float, float, float]:
    """Pixel box ``(left, top, right, bottom)`` of ``square`` in a PNG ``width`` wide."""
    cx, cy = square_centre(square, width, rows=rows, cols=cols)
    half = CELL / 2 * width / layout(rows, cols).width
    return cx - half, cy - half, cx + half, cy + half


# -- colours -------------------------------------------------------------------------


def colours(side: object) -> theme.SideColours:
    """The theme colours of a Kriegspiel side (``"north"``/``"south"``)."""
    return theme.side_colours(SIDE_SLOTS.get(str(side), ""))


CUT_FILL: Final = "#e2e0db"
CUT_INK: Final = "#8f8b84"
BADGE_RING: Final = "#3a3833"
