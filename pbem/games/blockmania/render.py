"""The map of Block Mania: one view as an SVG document.

:func:`render_svg` reads the view (plain JSON data from :func:`pbem.games.blockmania.view.build_view`)
and the static block maps (``data/blocks.toml``), and returns a complete SVG;
:func:`pbem.render.raster.svg_to_png` turns it into the PNG of the turn mail.

Layout (user units; the width is fixed, the height grows with the rows of blocks):

- a title bar: the game, the turn, the active seat and its Command Points, the phase, whose map it is;
- on the left the ring (1.ii, 3): the blocks' cross-sections side by side in ring order, two blocks a
  row. The half squares where two maps meet make one column (a dashed line marks the maps' edge); a
  row begins and ends with the shared column of its neighbours, so the last column of a row is the
  first of the next (and the ring's last column is its first: arrows say so). Squares in the colours
  of 1.ii: Open Air pale sky (the Tween Block Plaza paved, the Mega Way a road, the Pedway a walkway,
  the Sky Rail an armoured tube), Window squares light and glazed, Interior squares dark; residential
  blue with its address, Civic green, special yellow with its name. Lifts are shafts on the left of
  their squares, grav-chutes dotted drops with a triangle on each entry, fire-control points a red
  sprinkler; the blocks' outer walls are a heavy line;
- on the right a panel: the players (colour and symbol, block, cards in hand, pile, Blockers on the map,
  dead, removed by Justice, defeat points so far, 12.iii; the active seat's Command Points), the deck,
  the viewer's own hand (only in that viewer's view), the result, the notes of the turn;
- below the ring, the legend.

Blockers are counters in their owner's colour with a symbol of the seat in the corner (a circle, a
square, a triangle, a diamond, ...), so colour is never the only cue: the type on top, the number, and
Strength-Move at the bottom; their counters are pips below (Armoury dark, Hardware light, with an
initial). A face-down Blocker (it has acted this turn, 7.ii) is pale with a dashed edge; a locked one
(8.vi) has a red ring. Squares: Structural Damage a hazard triangle with its count (9.ii), Fires a flame
with its count (10.i), a Collapse rubble with a cross (9.iii), a Scrawl a magenta squiggle (8.viii), a
looted square a "$" badge (8.vii); a fallen block is greyed, its word after its name (10.iii). Each
count goes where it covers no other text, and the addresses are drawn with the counters: under the
first of several counters an address is left out (``marks.py``). The turn's moves are arrows in the
owner's colour, shots dashed dark red lines with a cross-hair (7, 8.v).

Speed: everything that depends only on the ring and the language (paper, squares, symbols, names,
the panel's frames, the legend) is one static part built once per process, ring and language
(:func:`_static_sheet`) and written first, so the rasteriser draws it once per width; the dynamic part
is batched (one path per colour, one text run per ink): a mid-game map of four blocks is about 150
elements, 80 of them dynamic (mostly the panel's lines). Render + rasterise at 1600 px takes ~70 ms once
the sheet is cached (~200 ms for the first map of a ring, language and width;
``benchmarks/render_blockmania.py``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbem.core.i18n import Catalog, normalise_language
from pbem.games.blockmania.blocks import COLUMN_LETTERS, Block, Loc, Ring, Square, blocks
from pbem.games.blockmania.mapstyle import (
    ADDRESS_INK,
    ARMOURY_PIP,
    BIG,
    BLOCKS_PER_ROW,
    CELL,
    CHUTE,
    FALLEN_GREY,
    FIRE,
    GLASS,
    GRID_LINE,
    HARDWARE,
    HARDWARE_PIP,
    HAZARD,
    JUDGES,
    LABEL_INK,
    LEGEND_H,
    LIFT,
    LOCKED,
    LOOT,
    MAP_W,
    MAP_X,
    MAP_Y,
    MOVE_NOTES,
    PAD,
    PANEL_W,
    PANEL_X,
    PLAZA,
    PLAZA_LINE,
    RAIL,
    RAIL_LIGHT,
    ROAD,
    ROAD_LINE,
    ROW_FOOT,
    ROW_GAP,
    ROW_HEAD,
    RUBBLE,
    SCRAWL,
    SEAT_INK,
    SEAT_SHAPES,
    SHORT,
    SHOT,
    SHOT_NOTES,
    SKY,
    SKY_GRID,
    SMALL,
    SPRINKLER,
    SQUARE_FILL,
    WALKWAY,
    WALL,
    WIDTH,
    _catalog,
    _flame,
    _hazard,
    seat_colours,
    _shape,
    _squiggle,
    _star,
    _text,
)
from pbem.games.blockmania.marks import (
    ADDRESS_SIZE,
    Room,
    address_box,
    addresses,
    fallen,
    name_size,
    square_label,
    square_marks,
    static_boxes,
    text_box,
)
from pbem.games.blockmania.panel import (
    _hand,
    _notes,
    _Panel,
    _players,
    _result,
    _title,
    _turn_notes,
)
from pbem.render import svg, theme
from pbem.render.cache import static_part
from pbem.render.svg import Path, Point
from pbem.render.viewdata import as_dicts as _dicts, as_int as _int, as_strs as _strs




# -- the ring's layout ------------------------------------------------------------------------------


class Layout:
    """Where every ring column of every row is drawn."""

    def __init__(self, ring_ids: tuple[str, ...]) -> None:
        data = blocks()
        known = tuple(b for b in ring_ids if b in data.ids)
        self.ring: Ring = data.ring(known or data.ids[:2])
        self.blocks: tuple[Block, ...] = self.ring.blocks
        offsets, x = [], 0
        for b in self.blocks:
            offsets.append(x)
            x += b.width - 1
        self.offsets = tuple(offsets)
        self.width = x
        # rows: (first ring x, last ring x, block indexes); x may pass the ring's width (wrap)
        self.rows: list[tuple[int, int, tuple[int, ...]]] = []
        for i in range(0, len(self.blocks), BLOCKS_PER_ROW):
            idx = tuple(range(i, min(i + BLOCKS_PER_ROW, len(self.blocks))))
            last = idx[-1]
            self.rows.append((self.offsets[i], self.offsets[last] + self.blocks[last].width - 1, idx))
        self.levels = self.ring.levels
        self.row_h = ROW_HEAD + self.levels * CELL + ROW_FOOT
        self.map_h = len(self.rows) * self.row_h + (len(self.rows) - 1) * ROW_GAP

    def row_top(self, r: int) -> float:
        return MAP_Y + r * (self.row_h + ROW_GAP)

    def cell(self, r: int, x: int, level: int) -> Point:
        """Top-left corner of ring column ``x`` (as numbered in row ``r``) at ``level``."""
        x0 = self.rows[r][0]
        return MAP_X + (x - x0) * CELL, self.row_top(r) + ROW_HEAD + (self.levels - level) * CELL

    def cells(self) -> Iterable[tuple[int, int, int, Point]]:
        """Every drawn cell: (row, ring x as numbered in the row, level, top-left)."""
        for r, (x0, x1, _) in enumerate(self.rows):
            for x in range(x0, x1 + 1):
                for level in range(1, self.levels + 1):
                    yield r, x, level, self.cell(r, x, level)

    def square_at(self, x: int, level: int) -> tuple[Loc, Square]:
        loc = self.ring.at(x, level)
        assert loc is not None
        return loc, self.ring.square(loc)

    def places(self, loc: Loc) -> list[Point]:
        """The top-left corners of every cell showing ``loc`` (a shared column shows twice)."""
        x = self.ring.x_of(loc)
        out = []
        for r, (x0, x1, _) in enumerate(self.rows):
            for candidate in (x, x + self.width):
                if x0 <= candidate <= x1:
                    out.append(self.cell(r, candidate, loc.level))
        return out

    def parse(self, text: object) -> Loc | None:
        if not isinstance(text, str) or ":" not in text:
            return None
        try:
            return self.ring.loc(text)
        except KeyError:
            return None

    @property
    def height(self) -> float:
        return MAP_Y + self.map_h + 14 + LEGEND_H + PAD

    def transit_labels(self, catalog: Catalog, lang: str) -> list[tuple[float, float, str]]:
        """The names of the transit levels, in each row's first square: a long name takes two lines,
        never the next square's label."""
        data = self.ring.data
        out = []
        for r, (x0, _x1, _idx) in enumerate(self.rows):
            left, _ = self.cell(r, x0, self.levels)
            for code, key in (("MW", data.megaway_level), ("PW", data.pedway_level), ("SR", data.skyrail_level),
                              ("TP", data.ground)):
                _, ly = self.cell(r, x0, key)
                lines = _fit(_text(catalog, lang, f"map-level-{code}"), CELL - 8, 8.5)
                base = ly + (CELL - 3 if code != "SR" else 14) - 10 * (len(lines) - 1 if code != "SR" else 0)
                out += [(left + 4, base + 10 * k, line) for k, line in enumerate(lines)]
        return out


@functools.lru_cache(maxsize=8)
def _layout(ring_ids: tuple[str, ...]) -> Layout:
    return Layout(ring_ids)


# -- the static sheet -------------------------------------------------------------------------------


def _square_body(sq: Square, x: float, y: float, fills: dict[str, Path], extra: dict[str, Path]) -> None:
    """The fill and symbols of one square (batched by colour)."""
    code = sq.kind.code
    if sq.is_open:
        fills.setdefault(SKY, Path()).rect(x, y, CELL, CELL)
        if code == "TP":
            fills.setdefault(PLAZA, Path()).rect(x, y + CELL * 0.55, CELL, CELL * 0.45)
            extra.setdefault("plaza-line", Path()).segment((x, y + CELL * 0.55), (x + CELL, y + CELL * 0.55))
        elif code == "MW":
            fills.setdefault(ROAD, Path()).rect(x, y + CELL * 0.3, CELL, CELL * 0.55)
            extra.setdefault("road-line", Path()).segment((x + 6, y + CELL * 0.575), (x + CELL - 6, y + CELL * 0.575))
        elif code == "PW":
            fills.setdefault(WALKWAY, Path()).rect(x, y + CELL - 14, CELL, 9)
            extra.setdefault("rail", Path()).segment((x, y + CELL - 24), (x + CELL, y + CELL - 24))
            for k in range(4):
                extra["rail"].segment((x + 7 + k * 15, y + CELL - 24), (x + 7 + k * 15, y + CELL - 14))
        elif code == "SR":
            fills.setdefault(RAIL, Path()).rect(x, y + CELL * 0.32, CELL, CELL * 0.36)
            fills.setdefault(RAIL_LIGHT, Path()).rect(x, y + CELL * 0.42, CELL, 4)
        return
    light, dark = SQUARE_FILL.get(sq.kind.colour, SQUARE_FILL["special"])
    fills.setdefault(light if sq.is_window else dark, Path()).rect(x, y, CELL, CELL)
    if sq.is_window:  # glazing: two panes
        glass = extra.setdefault("glass", Path())
        glass.rect(x + 13, y + 17, 15, 20).rect(x + 32, y + 17, 15, 20)
    if code in ("TW", "SS"):  # the Sky Rail's tube runs through the tubeways and the station
        fills.setdefault(RAIL_LIGHT, Path()).rect(x, y + CELL * 0.38, CELL, CELL * 0.24)
    if code == "TN":  # the Mega Way's tunnel mouth
        extra.setdefault("tunnel", Path()).rect(x + 4, y + CELL * 0.3, CELL - 8, CELL * 0.55)


def _static_map(layout: Layout, catalog: Catalog, lang: str) -> str:
    fills: dict[str, Path] = {}
    extra: dict[str, Path] = {}
    grid = Path()
    sky_grid = Path()
    walls = Path()
    names: list[tuple[float, float, str]] = []
    small_names: list[tuple[float, float, str]] = []
    lifts = Path()
    lift_ticks = Path()
    chutes = Path()
    chute_heads = Path()
    sprinklers = Path()
    for r, x, level, (px, py) in layout.cells():
        loc, sq = layout.square_at(x, level)
        _square_body(sq, px, py, fills, extra)
        if sq.is_open:
            sky_grid.rect(px, py, CELL, CELL)
            continue
        grid.rect(px, py, CELL, CELL)
        for dx, dlevel, seg in ((-1, 0, ((px, py), (px, py + CELL))), (1, 0, ((px + CELL, py), (px + CELL, py + CELL))),
                                (0, 1, ((px, py), (px + CELL, py))), (0, -1, ((px, py + CELL), (px + CELL, py + CELL)))):
            other = layout.ring.at(x + dx, level + dlevel)
            if other is None or layout.ring.square(other).is_open:
                walls.segment(*seg)
        _address, name = square_label(sq, catalog, lang)  # the address is drawn with the counters
        if name:
            target = names if name_size(name) == 9.5 else small_names
            target.append((px + CELL / 2, py + CELL - 5, name))
        block = layout.ring.data.block(loc.block)
        label = sq.label
        lift = block.lift_at(label)
        if lift is not None:
            top = level == lift.top
            bottom = level == lift.bottom
            lifts.rect(px + 3, py + (8 if top else 0), 6, CELL - (8 if top else 0) - (8 if bottom else 0))
            lift_ticks.segment((px + 1, py + CELL / 2), (px + 11, py + CELL / 2))
        if block.chute_at(label) is not None:
            chute_heads.polygon([(px + CELL - 13, py + 5), (px + CELL - 3, py + 5), (px + CELL - 8, py + 13)])
        if sq.fire_control:
            sprinklers.circle(px + CELL - 9, py + CELL - 16, 4.5)
    # grav-chute drops: from each chute's top entry to its landing, on the right of the column
    for r, (x0, x1, idx) in enumerate(layout.rows):
        for i in idx:
            block = layout.blocks[i]
            for chute in block.chutes:
                x = layout.offsets[i] + chute.column
                if not x0 <= x <= x1:
                    continue
                _, ty = layout.cell(r, x, max(chute.entries))
                px, by = layout.cell(r, x, chute.ground)
                chutes.segment((px + CELL - 8, ty + 13), (px + CELL - 8, by + CELL - 4))
    out = []
    for colour, p in fills.items():
        out.append(svg.path(p, fill=colour))
    out.append(svg.path(sky_grid, fill="none", stroke=SKY_GRID, stroke_width=0.8))
    out.append(svg.path(extra.get("plaza-line", Path()), stroke=PLAZA_LINE, stroke_width=1.5))
    out.append(svg.path(extra.get("road-line", Path()), stroke=ROAD_LINE, stroke_width=2, stroke_dasharray="8 6"))
    out.append(svg.path(extra.get("rail", Path()), fill="none", stroke=WALKWAY, stroke_width=1.6))
    out.append(svg.path(extra.get("tunnel", Path()), fill=ROAD, fill_opacity=0.55))
    out.append(svg.path(extra.get("glass", Path()), fill=GLASS, fill_opacity=0.55, stroke="#ffffff", stroke_width=1))
    out.append(svg.path(grid, fill="none", stroke=GRID_LINE, stroke_width=0.8, stroke_opacity=0.6))
    out.append(svg.path(walls, fill="none", stroke=WALL, stroke_width=3, stroke_linecap="square"))
    out.append(svg.path(lifts, fill=LIFT))
    out.append(svg.path(lift_ticks, stroke=LIFT, stroke_width=1.6))
    out.append(svg.path(chutes, fill="none", stroke=CHUTE, stroke_width=2, stroke_dasharray="2 4",
                        stroke_linecap="round"))
    out.append(svg.path(chute_heads, fill=CHUTE))
    out.append(svg.path(sprinklers, fill=SPRINKLER, stroke="#ffffff", stroke_width=1.5))
    out.append(svg.text_run(names, font_size=9.5, fill=LABEL_INK))
    out.append(svg.text_run(small_names, font_size=8, fill=LABEL_INK))
    out.append(_frames(layout, catalog, lang))
    return "".join(out)


def _frames(layout: Layout, catalog: Catalog, lang: str) -> str:
    """Block names, maps' edges, level numbers, column letters, the ring's wrap arrows."""
    out: list[str] = []
    edges = Path()
    frame = Path()
    heads: list[tuple[float, float, str]] = []
    levels: list[tuple[float, float, str]] = []
    letters: list[tuple[float, float, str]] = []
    arrows = Path()
    for r, (x0, x1, idx) in enumerate(layout.rows):
        left, top = layout.cell(r, x0, layout.levels)
        right = left + (x1 - x0 + 1) * CELL
        bottom = top + layout.levels * CELL
        frame.rect(left, top, right - left, bottom - top)
        for i in idx:
            block = layout.blocks[i]
            a = layout.offsets[i]
            bx0, _ = layout.cell(r, a, 1)
            bx1, _ = layout.cell(r, a + block.width - 1, 1)
            heads.append(((bx0 + bx1 + CELL) / 2, top - 11, block.name))
            for bx in (bx0, bx1):
                edges.segment((bx + CELL / 2, top - 6), (bx + CELL / 2, bottom + 4))
            for c in range(block.width):
                lx, _ = layout.cell(r, a + c, 1)
                if c == 0 and i != idx[0]:
                    continue
                letters.append((lx + CELL / 2, bottom + 15, COLUMN_LETTERS[c]))
        for level in range(1, layout.levels + 1):
            _, ly = layout.cell(r, x0, level)
            levels.append((left - 6, ly + CELL / 2 + 4, str(level)))
        # wrap arrows at the row's ends: the ring goes on
        mid = top - 11
        arrows.polygon([(left - 2, mid), (left + 8, mid - 5), (left + 8, mid + 5)])
        arrows.polygon([(right + 2, mid), (right - 8, mid - 5), (right - 8, mid + 5)])
    out.append(svg.path(frame, fill="none", stroke=theme.FRAME, stroke_width=1.5))
    out.append(svg.path(edges, fill="none", stroke=theme.INK_SOFT, stroke_width=1.3, stroke_dasharray="5 4"))
    out.append(svg.path(arrows, fill=theme.INK_SOFT))
    out.append(svg.text_run(heads, font_size=15, bold=True, fill=theme.INK))
    out.append(svg.text_run(levels, font_size=theme.COORD_SIZE, anchor="end", fill=theme.INK_SOFT))
    out.append(svg.text_run(letters, font_size=theme.COORD_SIZE, fill=theme.INK_SOFT))
    transit = layout.transit_labels(catalog, lang)
    out.append(svg.text_run(transit, font_size=8.5, anchor="start", fill=theme.INK, halo=theme.HALO, halo_width=2.5))
    return "".join(out)


def _fit(text: str, width: float, size: float) -> list[str]:
    """``text`` in lines no wider than ``width`` where a space allows (a word longer stays whole)."""
    lines: list[str] = []
    for word in text.split():
        if lines and svg.text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [text]


def _legend(layout: Layout, catalog: Catalog, lang: str) -> str:
    x0 = MAP_X
    y0 = MAP_Y + layout.map_h + 14
    out = [svg.rect(x0 - 26, y0, MAP_W + 26, LEGEND_H, fill=theme.PAPER_DARK, rx=6),
           svg.text(x0 - 14, y0 + 20, _text(catalog, lang, "map-legend"), font_size=13, font_weight="bold",
                    fill=theme.INK)]
    fills: dict[str, Path] = {}
    extra: dict[str, Path] = {}
    labels: list[tuple[float, float, str]] = []
    col_w = (MAP_W + 26) / 4
    sw = 22.0
    items = ("open", "window", "interior", "residential", "civic", "special", "lift", "chute", "fire-control",
             "blocker", "face-down", "locked", "fire", "damage", "collapse", "scrawl", "looted", "counter", "move",
             "shot", "fallen", "judges")
    per_col = math.ceil(len(items) / 4)
    marks = Path()
    strokes: dict[tuple[str, float, str], Path] = {}
    for i, key in enumerate(items):
        col, row = divmod(i, per_col)
        x = x0 - 14 + col * col_w
        y = y0 + 32 + row * 19.5
        labels.append((x + sw + 8, y + 11, _text(catalog, lang, f"map-legend-{key}")))
        if key == "open":
            fills.setdefault(SKY, Path()).rect(x, y, sw, 15)
        elif key in ("window", "interior"):
            fills.setdefault(SQUARE_FILL["residential"][key == "interior"], Path()).rect(x, y, sw, 15)
        elif key in ("residential", "civic", "special"):
            fills.setdefault(SQUARE_FILL[key][1], Path()).rect(x, y, sw, 15)
        elif key == "lift":
            fills.setdefault(LIFT, Path()).rect(x + 8, y - 2, 6, 19)
        elif key == "chute":
            fills.setdefault(CHUTE, Path()).polygon([(x + 5, y), (x + 17, y), (x + 11, y + 10)])
        elif key == "fire-control":
            fills.setdefault(SPRINKLER, Path()).circle(x + 11, y + 7.5, 5)
        elif key in ("blocker", "face-down", "locked"):
            c = seat_colours("blue")
            if key == "face-down":
                strokes.setdefault((c.main, 1.5, "3 2"), Path()).round_rect(x + 1, y - 2, 20, 19, 3)
                fills.setdefault(c.light, Path()).round_rect(x + 1, y - 2, 20, 19, 3)
            else:
                fills.setdefault(c.main, Path()).round_rect(x + 1, y - 2, 20, 19, 3)
            if key == "locked":
                strokes.setdefault((LOCKED, 2.5, ""), Path()).round_rect(x - 1, y - 4, 24, 23, 4)
        elif key == "fire":
            _flame(fills.setdefault(FIRE, Path()), x + 11, y + 16, 17)
        elif key == "damage":
            _hazard(fills.setdefault(HAZARD, Path()), x + 11, y + 8, 8)
        elif key == "collapse":
            fills.setdefault(RUBBLE, Path()).rect(x, y, sw, 15)
            marks.segment((x + 3, y + 2), (x + sw - 3, y + 13)).segment((x + sw - 3, y + 2), (x + 3, y + 13))
        elif key == "scrawl":
            _squiggle(strokes.setdefault((SCRAWL, 2.2, ""), Path()), x + 1, y + 8, 20)
        elif key == "looted":
            fills.setdefault(LOOT, Path()).circle(x + 11, y + 7.5, 7.5)
        elif key == "counter":
            fills.setdefault(ARMOURY_PIP[0], Path()).polygon([(x + 11, y), (x + 18, y + 7.5), (x + 11, y + 15),
                                                               (x + 4, y + 7.5)])
        elif key == "move":
            strokes.setdefault((seat_colours("red").main, 3, ""), Path()).segment((x, y + 8), (x + 16, y + 8))
            fills.setdefault(seat_colours("red").main, Path()).polygon(svg.arrowhead((x + sw, y + 8), (x, y + 8), 8, 8))
        elif key == "shot":
            strokes.setdefault((SHOT, 2, "5 3"), Path()).segment((x, y + 8), (x + sw, y + 8))
        elif key == "fallen":
            fills.setdefault(FALLEN_GREY, Path()).rect(x, y, sw, 15)
        elif key == "judges":
            strokes.setdefault((JUDGES, 3, ""), Path()).rect(x + 1.5, y + 0.5, sw - 3, 14)
    for colour, p in fills.items():
        out.append(svg.path(p, fill=colour, stroke=theme.INK_SOFT if colour in (SKY,) else None, stroke_width=0.6))
    for (colour, width, dash), p in strokes.items():
        out.append(svg.path(p, fill="none", stroke=colour, stroke_width=width, stroke_dasharray=dash or None))
    out.append(svg.path(marks, stroke="#ffffff", stroke_width=1.6))
    out.append(svg.text_run(labels, font_size=11.5, anchor="start", fill=theme.INK))
    return "".join(out)


@static_part(maxsize=8)
def _static_sheet(lang: str, ring_ids: tuple[str, ...], height: float) -> str:
    """Everything that never changes in a game: built once per process, ring and language."""
    catalog = _catalog()
    layout = _layout(ring_ids)
    out = [svg.rect(0, 0, WIDTH, height, fill=theme.PAPER), _static_map(layout, catalog, lang),
           _legend(layout, catalog, lang),
           svg.rect(PANEL_X - 10, MAP_Y - 4, PANEL_W + 10, height - MAP_Y - PAD + 4, fill=theme.PAPER_DARK, rx=6)]
    return "".join(out)


# -- Blockers ---------------------------------------------------------------------------------------


class _Counters:
    """All Blocker counters of a map, batched: a path per colour, a text run per ink and size."""

    def __init__(self) -> None:
        self.shadow = Path()
        self.faces: dict[tuple[str, str, float, str], Path] = {}
        self.symbols: dict[str, Path] = {}
        self.rings = Path()
        self.texts: dict[tuple[str, float], list[tuple[float, float, str]]] = {}
        self.pips: dict[tuple[str, str], Path] = {}
        self.pip_texts: dict[str, list[tuple[float, float, str]]] = {}
        self.boxes: list[tuple[float, float, float, float]] = []  # every text's, for the marks' placing

    def add(self, b: Mapping[str, Any], x: float, y: float, size: float) -> None:
        owner = str(b.get("owner") or "")
        c = seat_colours(owner)
        down = bool(b.get("face_down"))
        k = size / BIG
        if down:
            fill, edge, ink, dash = c.light, c.main, c.dark, "4 2.5"
        else:
            fill, edge, ink, dash = c.main, c.dark, SEAT_INK.get(owner, "#ffffff"), ""
            self.shadow.round_rect(x + 1.8 * k, y + 2.2 * k, size, size, 5 * k)
        self.faces.setdefault((fill, edge, 1.6 if not down else 1.8, dash), Path()).round_rect(x, y, size, size, 5 * k)
        if b.get("locked"):
            self.rings.round_rect(x - 3, y - 3, size + 6, size + 6, 6 * k)
        _shape(self.symbols.setdefault(ink, Path()), SEAT_SHAPES.get(owner, "circle"), x + 6.5 * k, y + 6.5 * k, 3.6 * k)
        btype = str(b.get("type") or "?")
        short = SHORT.get(btype, btype[:3].upper())
        bid = str(b.get("id") or "")
        number = bid.rsplit("-", 1)[-1] if "-" in bid else bid
        sm = f"{_int(b.get('strength'))}-{_int(b.get('move'))}"
        if size >= BIG * 0.9:
            labels = [(11.0, x + size / 2 + 3, y + 14.5, short), (10.0, x + size / 2, y + 27.5, number),
                      (11.5, x + size / 2, y + size - 4.5, sm)]
        else:
            labels = [(8.0, x + size / 2 + 2, y + 10.5, short), (8.5, x + size / 2, y + size - 3.5, sm)]
        for fs, tx, ty, text in labels:
            self.texts.setdefault((ink, fs), []).append((tx, ty, text))
            self.boxes.append(text_box(tx, ty, text, fs, bold=True))
        carried = _strs(b.get("carried"))
        if carried:
            # a column on the counter's right edge: below it they covered the square's name
            pip = 7.5 if size >= BIG * 0.9 else 5.0
            for i, ctype in enumerate(carried[:5]):
                colours = HARDWARE_PIP if ctype in HARDWARE else ARMOURY_PIP
                px = x + size + 0.5
                py = y + i * (pip + 1.2)
                self.pips.setdefault(colours, Path()).rect(px, py, pip, pip)
                if pip >= 7:
                    self.pip_texts.setdefault(colours[1], []).append((px + pip / 2, py + pip - 1.5, ctype[:1].upper()))
                    self.boxes.append(text_box(px + pip / 2, py + pip - 1.5, ctype[:1].upper(), 6.5, bold=True))

    def svg(self) -> str:
        out = [svg.path(self.shadow, fill="#000000", fill_opacity=0.25)]
        for (fill, edge, width, dash), p in self.faces.items():
            out.append(svg.path(p, fill=fill, stroke=edge, stroke_width=width, stroke_dasharray=dash or None))
        out.append(svg.path(self.rings, fill="none", stroke=LOCKED, stroke_width=2.5))
        for ink, p in self.symbols.items():
            out.append(svg.path(p, fill=ink))
        for (ink, fs), labels in self.texts.items():
            out.append(svg.text_run(labels, font_size=fs, bold=True, fill=ink))
        for (fill, _ink), p in self.pips.items():
            out.append(svg.path(p, fill=fill, stroke="#2b2a27", stroke_width=0.6))
        for ink, labels in self.pip_texts.items():
            out.append(svg.text_run(labels, font_size=6.5, bold=True, fill=ink))
        return "".join(out)


def _slots(n: int, x: float, y: float) -> list[tuple[float, float, float]]:
    """Top-left corners and sizes of ``n`` counters in the cell at (x, y)."""
    if n <= 1:
        return [(x + (CELL - BIG) / 2, y + (CELL - BIG) / 2 - 4, BIG)]
    gap = (CELL - 2 * SMALL) / 3
    spots = [(x + gap, y + gap), (x + 2 * gap + SMALL, y + gap), (x + gap, y + 2 * gap + SMALL),
             (x + 2 * gap + SMALL, y + 2 * gap + SMALL)]
    return [(sx, sy, SMALL) for sx, sy in spots[:n]]


# -- the map's marks --------------------------------------------------------------------------------


def _nearest(a: Sequence[Point], b: Sequence[Point]) -> tuple[Point, Point] | None:
    pairs = [(p, q) for p in a for q in b]
    if not pairs:
        return None
    return min(pairs, key=lambda pq: math.hypot(pq[0][0] - pq[1][0], pq[0][1] - pq[1][1]))


def _lying(view: Mapping[str, Any], layout: Layout) -> str:
    chips: dict[tuple[str, str], Path] = {}
    labels: dict[str, list[tuple[float, float, str]]] = {}
    per: dict[str, int] = {}
    for c in _dicts(view.get("counters")):
        loc = layout.parse(c.get("loc"))
        if loc is None:
            continue
        n = per.get(str(loc), 0)
        per[str(loc)] = n + 1
        ctype = str(c.get("type") or "?")
        colours = HARDWARE_PIP if ctype in HARDWARE else ARMOURY_PIP
        for x, y in layout.places(loc):
            # in the square's top right corner: the address is top left, the square's name at the foot
            cx, cy = x + CELL - 9 - n * 12, y + 9
            chips.setdefault(colours, Path()).polygon([(cx, cy - 7), (cx + 7, cy), (cx, cy + 7), (cx - 7, cy)])
            labels.setdefault(colours[1], []).append((cx, cy + 3, ctype[:1].upper()))
    out = [svg.path(p, fill=fill, stroke="#2b2a27", stroke_width=0.8) for (fill, _), p in chips.items()]
    out.extend(svg.text_run(lb, font_size=7.5, bold=True, fill=ink) for ink, lb in labels.items())
    return "".join(out)


def _arrows(view: Mapping[str, Any], layout: Layout, where: Mapping[str, Loc], owners: Mapping[str, str]) -> str:
    """The turn's moves (arrows in the owner's colour) and shots (dashed lines with a cross-hair)."""
    moves: dict[str, Path] = {}
    heads: dict[str, Path] = {}
    shots = Path()
    hairs = Path()
    centre = CELL / 2
    for note in _turn_notes(view):
        key = note.get("key")
        args = note.get("args") if isinstance(note.get("args"), dict) else {}
        assert isinstance(args, dict)
        if key in MOVE_NOTES:
            a, b = layout.parse(args.get("start")), layout.parse(args.get("square"))
            if a is None or b is None or a == b:
                continue
            pair = _nearest(layout.places(a), layout.places(b))
            if pair is None:
                continue
            p = (pair[0][0] + centre, pair[0][1] + centre)
            q = (pair[1][0] + centre, pair[1][1] + centre)
            p, q = svg.shorten(p, q, 8, 22)
            colour = seat_colours(owners.get(str(args.get("blocker")), "")).main
            moves.setdefault(colour, Path()).segment(p, q)
            heads.setdefault(colour, Path()).polygon(svg.arrowhead(q, p, 13, 12))
        elif key in SHOT_NOTES:
            shooter = where.get(str(args.get("blocker")))
            target_name = str(args.get("target"))
            target = where.get(target_name) or layout.parse(target_name)
            if shooter is None or target is None or shooter == target:
                continue
            pair = _nearest(layout.places(shooter), layout.places(target))
            if pair is None:
                continue
            p = (pair[0][0] + centre, pair[0][1] + centre)
            q = (pair[1][0] + centre, pair[1][1] + centre)
            s0, s1 = svg.shorten(p, q, 12, 25)
            shots.segment(s0, s1)
            hairs.polygon(_star(s1[0], s1[1], 9, 3.5, 8))
    out = []
    for colour, lines in moves.items():
        out.append(svg.path(lines, fill="none", stroke="#ffffff", stroke_width=7, stroke_opacity=0.8,
                            stroke_linecap="round"))
        out.append(svg.path(lines, fill="none", stroke=colour, stroke_width=3.5, stroke_linecap="round"))
        out.append(svg.path(heads[colour], fill=colour, stroke="#ffffff", stroke_width=1.2))
    out.append(svg.path(shots, fill="none", stroke="#ffffff", stroke_width=5, stroke_opacity=0.7))
    out.append(svg.path(shots, fill="none", stroke=SHOT, stroke_width=2.5, stroke_dasharray="8 5"))
    out.append(svg.path(hairs, fill=SHOT, stroke="#ffffff", stroke_width=1))
    return "".join(out)


# -- the document ------------------------------------------------------------------------------------


def render_svg(view: Mapping[str, Any], catalog: Catalog | None = None, *, lang: str | None = None) -> str:
    """The map of a Block Mania view as a complete SVG document (texts in ``lang``, else the view's
    ``lang``, else English)."""
    catalog = catalog.merged(_catalog()) if catalog is not None else _catalog()
    code = normalise_language(lang or str(view.get("lang") or "en"))
    ring_ids = tuple(_strs(view.get("ring"))) or tuple(str(s.get("block")) for s in _dicts(view.get("seats")))
    layout = _layout(ring_ids)
    height = layout.height
    # the panel may need more room than the map with many notes: never less than the map
    canvas = svg.Canvas(WIDTH, height, layers=("sheet", "under", "marks", "arrows", "counters", "over", "panel",
                                                "title"),
                        static=("sheet",), title=_text(catalog, code, "map-title"))
    canvas.add(_static_sheet(code, tuple(b.id for b in layout.blocks), height), layer="sheet")

    canvas.add(_lying(view, layout), layer="marks")
    counters = _Counters()
    where: dict[str, Loc] = {}
    owners: dict[str, str] = {}
    by_square: dict[Loc, list[Mapping[str, Any]]] = {}
    for b in _dicts(view.get("blockers")):
        loc = layout.parse(b.get("loc"))
        bid = str(b.get("id") or "")
        owners[bid] = str(b.get("owner") or "")
        if loc is None:
            continue
        where[bid] = loc
        by_square.setdefault(loc, []).append(b)
    for loc, here in by_square.items():
        ordered = sorted(here, key=lambda piece: (str(piece.get("owner")), str(piece.get("id"))))
        for x, y in layout.places(loc):
            for piece, (sx, sy, size) in zip(ordered, _slots(len(ordered), x, y)):
                counters.add(piece, sx, sy, size)
    canvas.add(counters.svg(), layer="counters")
    # the addresses a counter leaves in sight; the marks' counts where they cover no other text
    shown = [(x, y, text) for loc, x, y, text in addresses(layout) if len(by_square.get(loc, ())) < 2]
    canvas.add(svg.text_run(shown, font_size=ADDRESS_SIZE, bold=True, anchor="start", fill=ADDRESS_INK), layer="under")
    room = Room(static_boxes(layout, code) + tuple(counters.boxes) + tuple(address_box(*a) for a in shown))
    under, over = square_marks(view, layout, catalog, code, room)
    canvas.add(under, layer="under")
    canvas.add(fallen(view, layout, catalog, code), layer="under")
    canvas.add(over, layer="over")
    canvas.add(_arrows(view, layout, where, owners), layer="arrows")

    panel = _Panel(PANEL_X, MAP_Y, height - PAD - 8)
    _players(view, panel, catalog, code)
    _result(view, panel, catalog, code)
    _hand(view, panel, catalog, code)
    _notes(view, panel, catalog, code)
    canvas.add("".join(panel.parts), layer="panel")
    canvas.add(_title(view, catalog, code), layer="title")
    return canvas.to_svg()


__all__ = ["render_svg", "WIDTH", "CELL", "Layout", "seat_colours"]
