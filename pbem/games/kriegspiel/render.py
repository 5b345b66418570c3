"""The Kriegspiel map: one player's view as an SVG document.

:func:`render_svg` reads only the view (plain JSON data from the engine's
``view()``), never the engine's state, and returns a complete SVG document;
:func:`pbem.render.raster.svg_to_png` turns it into the PNG of the turn mail.

Layout: a title bar, the 20 x 25 board (rows A-T from the North edge, columns
1-25 from the left) with coordinates on all four edges, and a legend below.
The board's static parts (paper, territories, grid, terrain, coordinates, the
game's name and the rule under the title bar, the arsenals as built) and the
legend depend only on the terrain, the arsenals' squares and the language, so
they are built once per process (:func:`_static_board`, an LRU cache) and
written as the document's static layer, first and under everything else: the
rasteriser draws that layer once per process and width and reuses its pixels,
so a turn draws only its own marks (ruined arsenals, the hatching of a sealed
side, lines, units, arrows, the attack and the title texts), in one group.

Drawing is batched for speed (``design/performance.md``): the grid is one path,
each terrain kind a couple of paths, all units of one side and state share two
to four paths however many there are (:mod:`pbem.games.kriegspiel.glyphs`, which
also writes each shape in the form cheapest for cairosvg to read; the shapes
drawn every turn are mostly plain ``<path>`` elements, the cheapest kind to
draw), and the 90 coordinates are one text element. A mid-game map is about 118
elements, 44 of them drawn on every turn, where the texts now cost the most
(cairosvg's cost is per letter); ``benchmarks/render_kriegspiel.py`` measures it.

Labels are placed where they hide nothing: the attack result card tries the
places around the target and takes the one covering the fewest units, arrows
and lines (with a leader line when it had to move away). A side hidden by the
sealed deployment is never drawn, even if the view carried its units: its
territory is hatched with a note set on squares free of terrain.

Symbols (NATO-like, in the side's colours; North a square-cornered frame in
blue, South a round-cornered frame in vermillion, so colour is never the only
cue): infantry X, cavalry a diagonal, artillery a dot, horse artillery a dot and
a diagonal, relay a pennant, horse relay a pennant and a diagonal. Units cut
off from their lines are grey with a dashed frame and a "no link" badge; units
that must retreat carry an amber "!" badge.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pbem.games.kriegspiel.callouts import _callout, _free_spot, _Obstacles, _unit_vector
from pbem.games.kriegspiel.geometry import (
    CELL,
    COORD,
    DEFAULT_COLS,
    DEFAULT_ROWS,
    FRAME_H,  # the map's names, for the tests
    FRAME_W,
    LEGEND_GAP,
    LEGEND_H,
    LEGEND_HEAD,
    LEGEND_ROW,
    LEGEND_ROWS,
    PAD,
    SIDE_SLOTS,
    TITLE_H,
    TITLE_Y,
    CUT_FILL,  # the map's names, for the tests
    UNIT_KINDS,
    Layout,
    canvas_size,
    colours,
    image_size,
    layout,
    parse_square,
    square_box,
    square_centre,
    square_name,
)
from pbem.games.kriegspiel.glyphs import _ArrowPainter, _frame_reach, _UnitPainter
from pbem.games.kriegspiel.maptexts import _lang, _side_name, _t
from pbem.games.kriegspiel.terrain_paint import _ArsenalPainter, _TerrainPainter
from pbem.render import svg, theme
from pbem.render.cache import static_part
from pbem.render.svg import Path, Point

log = logging.getLogger(__name__)


# -- static board (cached) -------------------------------------------------------------------

TerrainKey = tuple[tuple[str, str, str], ...]


def _terrain_key(view: Mapping[str, Any], rows: int, cols: int) -> TerrainKey:
    items: list[tuple[str, str, str]] = []
    for entry in _dicts(view.get("terrain")):
        kind, square = entry.get("kind"), entry.get("square")
        if kind in ("mountain", "pass", "fort") and parse_square(square, rows, cols):
            items.append((str(square).upper(), str(kind), str(entry.get("side") or "")))
    return tuple(sorted(set(items)))


ArsenalKey = tuple[tuple[str, str], ...]


def _arsenal_key(view: Mapping[str, Any], rows: int, cols: int) -> ArsenalKey:
    """Where the arsenals stand and whose they are (the same all game long, destroyed or not)."""
    items: list[tuple[str, str]] = []
    for entry in _dicts(view.get("arsenals")):
        square = entry.get("square")
        if parse_square(square, rows, cols):
            items.append((str(square).upper(), str(entry.get("side") or "")))
    return tuple(sorted(set(items)))


def _paint_arsenals(lay: Layout, arsenals: ArsenalKey, rows: int, cols: int, destroyed: bool) -> str:
    painter = _ArsenalPainter()
    for square, side in arsenals:
        rc = parse_square(square, rows, cols)
        if rc is not None:
            painter.add(*lay.origin(*rc), side, destroyed)
    return painter.svg()


@static_part(maxsize=32)
def _static_board(rows: int, cols: int, terrain: TerrainKey, lang: str, arsenals: ArsenalKey = ()) -> str:
    """Paper, territories, terrain, grid, coordinates, legend and the arsenals as built: once per process.

    A destroyed arsenal's ruin is drawn over its square on every turn (it covers the whole square)."""
    lay = layout(rows, cols)
    bx, by, bw, bh = lay.board_x, lay.board_y, lay.board_w, lay.board_h
    out: list[str] = [svg.rect(0, 0, lay.width, lay.height, fill=theme.PAPER)]

    # Territories: the northern half tinted blue-grey, the southern warm.
    half = rows // 2
    north, south = colours("north"), colours("south")
    out.append(svg.rect(bx, by, bw, half * CELL, fill=north.tint))
    out.append(svg.rect(bx, by + half * CELL, bw, (rows - half) * CELL, fill=south.tint))

    terrain_painter = _TerrainPainter()
    for square, kind, _side in terrain:
        rc = parse_square(square, rows, cols)
        if rc is not None:
            terrain_painter.add(kind, *lay.origin(*rc))
    out.append(terrain_painter.svg())

    # The grid: ONE path.
    grid = Path()
    for c in range(1, cols):
        grid.move(bx + c * CELL, by).raw(f"v{svg.num(bh)}")
    for r in range(1, rows):
        grid.move(bx, by + r * CELL).raw(f"h{svg.num(bw)}")
    out.append(svg.path(grid, fill="none", stroke=theme.GRID, stroke_width=0.8))
    out.append(terrain_painter.symbols())

    # The frontier between the territories, and the frame.
    fy = by + half * CELL
    out.append(svg.line(bx, fy, bx + bw, fy, stroke=theme.FRAME, stroke_width=2.2, stroke_dasharray="10 4"))
    out.append(svg.rect(bx, by, bw, bh, fill="none", stroke=theme.FRAME, stroke_width=2))

    # Coordinates on all four edges: letters left and right, numbers top and bottom.
    size = theme.COORD_SIZE
    base = size * 0.36
    coords: list[tuple[float, float, str]] = []
    for r in range(rows):
        y = by + r * CELL + CELL / 2 + base
        letter = chr(ord("A") + r)
        coords.append((bx - COORD / 2, y, letter))
        coords.append((bx + bw + COORD / 2, y, letter))
    for c in range(cols):
        x = bx + c * CELL + CELL / 2
        coords.append((x, by - COORD / 2 + base, str(c + 1)))
        coords.append((x, by + bh + COORD / 2 + base, str(c + 1)))
    # ONE text element for all 90 labels (cairosvg's cost is per element).
    out.append(svg.text_run(coords, font_size=size, bold=True, fill=theme.INK_SOFT))
    out.append(_legend(lay, lang))
    # The fixed part of the title bar: the game's name and the rule under the bar.
    out.append(svg.text(PAD, TITLE_Y, _t(lang, "game"), font_size=theme.TITLE_SIZE, font_weight="bold", fill=theme.INK))
    out.append(svg.line(PAD, TITLE_H - 6, lay.width - PAD, TITLE_H - 6, stroke="#d6d0c0", stroke_width=1))
    out.append(_paint_arsenals(lay, arsenals, rows, cols, destroyed=False))
    return "".join(out)


def _legend(lay: Layout, lang: str) -> str:
    """The legend panel below the board: three blocks of symbol + explanation."""
    x0, y0 = PAD, lay.legend_y
    w = lay.width - 2 * PAD
    out: list[str] = [
        svg.rect(x0, y0, w, LEGEND_H, rx=6, fill=theme.PAPER_DARK, stroke="#d6d0c0", stroke_width=1)
    ]
    size = theme.LEGEND_SIZE
    units = _UnitPainter()
    terrain = _TerrainPainter()
    arsenals = _ArsenalPainter()
    lines = Path()
    arrows = _ArrowPainter()
    attack = Path()
    attack_def = Path()
    rings = Path()
    labels: list[tuple[float, float, str]] = []
    heads: list[tuple[float, float, str]] = []
    values: list[str] = []
    north, south = colours("north"), colours("south")

    blocks: list[tuple[str, list[str]]] = [
        ("legend.units", ["north", "south", *UNIT_KINDS]),
        ("legend.terrain", ["mountain", "pass", "fort", "arsenal", "ruin", "line"]),
        ("legend.marks", ["move", "forced", "captured", "retreat", "target", "attacker", "defender", "cut"]),
    ]
    # Column widths from the real text widths (2 columns per block); a long
    # language shrinks the type rather than overflow the panel.
    glyph_w = 34.0
    gap = 14.0
    col_widths: list[list[float]] = []
    while True:
        col_widths = []
        for _key, items in blocks:
            per_col = [items[i : i + LEGEND_ROWS] for i in range(0, len(items), LEGEND_ROWS)]
            col_widths.append(
                [glyph_w + max(svg.text_width(_t(lang, k), size) for k in col) + gap for col in per_col]
            )
        total = sum(sum(cw) for cw in col_widths)
        if total <= w - 24 or size <= 9.0:
            break
        size -= 0.5
    spare = max(0.0, w - 24 - total)
    block_gap = spare / max(1, len(blocks) - 1) if len(blocks) > 1 else 0
    x = x0 + 12
    small = 0.62  # glyph scale in the legend
    c = CELL * small
    for (head_key, items), widths in zip(blocks, col_widths):
        heads.append((x, y0 + 15, _t(lang, head_key)))
        for i, key in enumerate(items):
            col, row = divmod(i, LEGEND_ROWS)
            gx = x + sum(widths[:col])
            cy = y0 + LEGEND_HEAD + row * LEGEND_ROW + LEGEND_ROW / 2 + 2
            gcx = gx + glyph_w / 2 - 4
            labels.append((gx + glyph_w - 2, cy + size * 0.36, _t(lang, key)))
            if key in ("north", "south"):
                units.unit(gcx, cy, key, "frame", scale=small)
            elif key in UNIT_KINDS:
                units.unit(gcx, cy, "neutral", key, scale=small)
            elif key in ("mountain", "pass", "fort"):
                terrain.add(key, gcx - c / 2, cy - c / 2, c)
            elif key in ("arsenal", "ruin"):
                arsenals.add(gcx - c / 2, cy - c / 2, "north", key == "ruin", c)
            elif key == "line":
                lines.segment((gcx - 14, cy + 4), (gcx + 14, cy - 4))
            elif key in ("move", "forced"):
                arrows.arrow([(gcx - 15, cy + 3), (gcx + 15, cy - 3)], "north", forced=key == "forced", scale=small)
            elif key == "target":
                rings.circle(gcx, cy, 9)
            elif key == "attacker":
                attack.segment((gcx - 15, cy), (gcx + 15, cy))
                values.append(svg.halo_text(gcx, cy + 4, "4", fill=north.dark, font_weight="bold",
                                            text_anchor="middle", font_size=11))
            elif key == "defender":
                attack_def.segment((gcx - 15, cy), (gcx + 15, cy))
                values.append(svg.halo_text(gcx, cy + 4, "6", fill=south.dark, font_weight="bold",
                                            text_anchor="middle", font_size=11))
            elif key == "captured":
                units.unit(gcx, cy, "south", "infantry", state="gone", scale=small)
                units.cross(gcx, cy, c * 0.62)
            elif key == "cut":
                units.unit(gcx, cy, "north", "cavalry", state="cut", scale=small)
            elif key == "retreat":
                units.unit(gcx, cy, "south", "artillery", retreat=True, scale=small)
        x += sum(widths) + block_gap
    out.append(terrain.svg(small))
    out.append(terrain.symbols(small))
    out.append(arsenals.svg(small))
    out.append(
        svg.path(lines, fill="none", stroke=north.main, stroke_opacity=theme.LINE_OPACITY,
                 stroke_width=theme.LINE_WIDTH, stroke_linecap="round")
    )
    out.append(svg.path(attack, fill="none", stroke=north.main, stroke_width=2))
    out.append(svg.path(attack_def, fill="none", stroke=south.main, stroke_width=2, stroke_dasharray="3 2"))
    out.append(svg.path(rings, fill="none", stroke=theme.ATTACK, stroke_width=2.4))
    out.append("".join(values))
    out.append(units.svg(small))
    out.append(arrows.svg(small))
    out.append(svg.text_run(heads, font_size=size, bold=True, anchor="start", fill=theme.INK))
    out.append(svg.text_run(labels, font_size=size, anchor="start", fill=theme.INK))
    return "".join(out)


# -- the dynamic layers ------------------------------------------------------------------------


def _dicts(value: object) -> list[dict[str, Any]]:
    """The dict entries of a list (anything else is skipped)."""
    if not isinstance(value, (list, tuple)):
        return []
    return [v for v in value if isinstance(v, dict)]


def _int(value: object, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default


class _Board:
    """Square lookups for one render."""

    def __init__(self, lay: Layout) -> None:
        self.lay = lay

    def centre(self, square: object) -> Point | None:
        rc = parse_square(square, self.lay.rows, self.lay.cols)
        return self.lay.centre(*rc) if rc else None

    def origin(self, square: object) -> Point | None:
        rc = parse_square(square, self.lay.rows, self.lay.cols)
        return self.lay.origin(*rc) if rc else None


#: The layers drawn on every turn, bottom to top (over the static board).
_TURN_LAYERS = ("hidden", "arsenals", "lines", "attack", "units", "arrows", "marks", "labels", "title")


def render_svg(view: Mapping[str, Any], *, lang: str | None = None) -> str:
    """The map of a Kriegspiel view as a complete SVG document.

    ``view`` is the engine's per-player view (JSON data); missing optional keys
    are tolerated, malformed entries are skipped (and logged at debug level).
    ``lang`` (or the view's ``"lang"``) picks English or Italian labels.
    """
    rows = min(26, max(2, _int(view.get("rows"), DEFAULT_ROWS)))
    cols = min(99, max(2, _int(view.get("cols"), DEFAULT_COLS)))
    lang = _lang(view, lang)
    lay = layout(rows, cols)
    board = _Board(lay)
    hidden = {str(s) for s in (view.get("hidden_sides") or []) if isinstance(s, str)}
    last = view.get("last_turn") if isinstance(view.get("last_turn"), dict) else None

    canvas = svg.Canvas(lay.width, lay.height, layers=("board", *_TURN_LAYERS))  # the parts, in drawing order
    terrain_key = _terrain_key(view, rows, cols)
    arsenal_key = _arsenal_key(view, rows, cols)
    canvas.add(_static_board(rows, cols, terrain_key, lang, arsenal_key), layer="board")

    # Arsenals: the board has them as built; a ruin covers a destroyed one's square.
    ruins = {str(e.get("square")).upper() for e in _dicts(view.get("arsenals")) if e.get("destroyed")}
    canvas.add(
        _paint_arsenals(lay, tuple(a for a in arsenal_key if a[0] in ruins), rows, cols, destroyed=True),
        layer="arsenals",
    )

    # A hidden side's territory: hatched, with a note; its intact arsenals drawn again above.
    if hidden:
        busy = {rc for rc in (parse_square(sq, rows, cols) for sq, _k, _s in terrain_key) if rc}
        busy.update(rc for rc in (parse_square(sq, rows, cols) for sq, _s in arsenal_key) if rc)
        covered: set[int] = set()
        for side in sorted(hidden):
            canvas.add(_hidden_overlay(lay, side, lang, busy), layer="hidden")
            covered.update(_hidden_rows(lay, side))
        again = tuple(
            a for a in arsenal_key
            if a[0] not in ruins and (rc := parse_square(a[0], rows, cols)) is not None and rc[0] in covered
        )
        canvas.add(_paint_arsenals(lay, again, rows, cols, destroyed=False), layer="arsenals")

    # Lines of communication, one path per side, under everything else.
    line_paths: dict[str, Path] = {}
    for entry in _dicts(view.get("lines")):
        side = str(entry.get("side") or "")
        if side in hidden:
            continue
        a, b = board.centre(entry.get("from")), board.centre(entry.get("to"))
        if a is None or b is None:
            continue
        line_paths.setdefault(side, Path()).segment(a, b)
    for side in sorted(line_paths):
        canvas.add(
            svg.path(
                line_paths[side], fill="none", stroke=colours(side).main, stroke_opacity=theme.LINE_OPACITY,
                stroke_width=theme.LINE_WIDTH, stroke_linecap="round",
            ),
            layer="lines",
        )

    # Units.
    painter = _UnitPainter()
    occupied: dict[str, str] = {}
    obstacles = _Obstacles()
    for entry in _dicts(view.get("units")):
        side = str(entry.get("side") or "")
        if side in hidden:
            continue
        square = entry.get("square")
        centre = board.centre(square)
        if centre is None:
            log.debug("unit %r off the board, not drawn", entry.get("id"))
            continue
        occupied[str(square).upper()] = side
        obstacles.frame(*centre)
        state = "ok" if entry.get("connected", True) is not False else "cut"
        painter.unit(
            centre[0], centre[1], side, str(entry.get("kind") or ""), state=state,
            retreat=bool(entry.get("retreat")),
        )

    if last is not None:
        _last_turn(canvas, board, last, occupied, painter, obstacles, hidden, lang)

    canvas.add(painter.svg(), layer="units")
    canvas.add(_title_bar(lay, view, last, hidden, lang), layer="title")
    # The turn's marks in one group with a numeric font size, which every element inherits:
    # cairosvg reads an unset one (its default, "12pt") through its unit parser for every element.
    doc = svg.Canvas(
        lay.width,
        lay.height,
        layers=("board", "turn"),
        title=_document_title(view, lang),
        static=("board",),  # drawn once per process and width by the rasteriser
    )
    doc.add(canvas.layer("board").svg(), layer="board")
    doc.layer("turn", font_size=16).extend(canvas.layer(name).svg() for name in _TURN_LAYERS)
    return doc.to_svg()


def _hidden_rows(lay: Layout, side: str) -> range:
    """The rows of a side's territory (what its sealed overlay covers)."""
    half = lay.rows // 2
    return range(0, half) if side == "north" else range(half, lay.rows)


def _hidden_overlay(lay: Layout, side: str, lang: str, busy: set[tuple[int, int]]) -> str:
    """Hatch a sealed side's territory and say why it is empty, on squares without terrain."""
    rows = _hidden_rows(lay, side)
    r0, r1 = rows.start, rows.stop
    x, y = lay.board_x, lay.board_y + r0 * CELL
    w, h = lay.board_w, (r1 - r0) * CELL
    hatch = Path()
    step = CELL * 0.5
    # Diagonal hatch lines clipped to the rectangle by hand (no clip paths: cheaper).
    k = 0.0
    while k < w + h:
        x1, y1 = x + k, y
        x2, y2 = x + k - h, y + h
        if x1 > x + w:
            y1 = y + (x1 - (x + w))
            x1 = x + w
        if x2 < x:
            y2 = y + h - (x - x2)
            x2 = x
        hatch.segment((x1, y1), (x2, y2))
        k += step
    name = _side_name(lang, side)
    line1, line2 = _t(lang, "hidden_board", side=name), _t(lang, "hidden_board2")
    text_w = max(svg.text_width(line1, 24, bold=True), svg.text_width(line2, 16)) + 16
    cx, cy = _free_spot(lay, r0, r1, text_w, busy)
    return "".join(
        [
            svg.path(Path().rect(x, y, w, h), fill=theme.PAPER, fill_opacity=0.35),
            svg.path(hatch, fill="none", stroke=theme.INK_SOFT, stroke_opacity=0.16, stroke_width=1.2),
            svg.halo_text(
                cx, cy - 4, line1, font_size=24, font_weight="bold",
                fill=theme.INK_SOFT, text_anchor="middle", halo=theme.PAPER, halo_width=8,
            ),
            svg.halo_text(
                cx, cy + 24, line2, font_size=16, fill=theme.INK_SOFT,
                text_anchor="middle", halo=theme.PAPER, halo_width=7,
            ),
        ]
    )



def _last_turn(
    canvas: svg.Canvas,
    board: _Board,
    last: Mapping[str, Any],
    occupied: Mapping[str, str],
    painter: _UnitPainter,
    obstacles: _Obstacles,
    hidden: set[str],
    lang: str,
) -> None:
    """Arrows of last turn's moves, the attack, captures and a destroyed arsenal."""
    mover = str(last.get("side") or "")
    arrows = _ArrowPainter()
    for move in _dicts(last.get("moves")):
        side = str(move.get("side") or mover)
        if side in hidden:
            continue
        squares = move.get("path")
        if not isinstance(squares, list) or len(squares) < 2:
            squares = [move.get("from"), move.get("to")]
        pts = [p for p in (board.centre(s) for s in squares) if p is not None]
        # Drop repeats (a path that lists a square twice).
        pts = [p for i, p in enumerate(pts) if i == 0 or p != pts[i - 1]]
        if len(pts) < 2:
            continue
        # Stop the head at the moved unit's frame; start at the frame if the origin is occupied.
        ux, uy = _unit_vector(pts[-2], pts[-1])
        dest_side = occupied.get(str(squares[-1]).upper(), side)
        end = _frame_reach(dest_side, ux, uy) + 2.0
        tip = (pts[-1][0] - ux * end, pts[-1][1] - uy * end)
        start_occupied = str(squares[0]).upper() in occupied
        first = pts[0]
        if start_occupied:
            vx, vy = _unit_vector(pts[0], pts[1])
            s = _frame_reach(occupied[str(squares[0]).upper()], vx, vy) + 2.0
            first = (pts[0][0] + vx * s, pts[0][1] + vy * s)
        points = [first, *pts[1:-1], tip]
        arrows.arrow(points, side, forced=bool(move.get("forced")), origin_dot=not start_occupied)
        obstacles.polyline(points)
    canvas.add(arrows.svg(), layer="arrows")

    for cap in _dicts(last.get("captured")):
        p = board.centre(cap.get("square"))
        if p is None:
            continue
        side = str(cap.get("side") or "")
        painter.unit(p[0], p[1], side, str(cap.get("kind") or ""), state="gone")
        painter.cross(p[0], p[1], CELL * 0.7)
        obstacles.frame(*p)

    attack = last.get("attack") if isinstance(last.get("attack"), dict) else None
    marks: list[str] = []
    labels: list[str] = []
    callouts: list[tuple[Point, str, float]] = []
    ring: tuple[float, float, float] | None = None
    if attack is not None:
        target = board.centre(attack.get("target"))
        if target is not None:
            a_side = str(attack.get("side") or mover)
            d_side = "south" if a_side == "north" else "north" if a_side == "south" else ""
            ring_r = CELL * 0.56
            att_lines, def_lines = Path(), Path()
            value_labels: list[tuple[Point, str, str]] = []
            for role, entries, path_ in (
                ("a", _dicts(attack.get("attackers")), att_lines),
                ("d", _dicts(attack.get("defenders")), def_lines),
            ):
                if (a_side if role == "a" else d_side) in hidden:
                    continue  # never give away where a sealed side's units stand
                for e in entries:
                    p = board.centre(e.get("square"))
                    if p is None or p == target:
                        continue
                    ux, uy = _unit_vector(p, target)
                    start = _frame_reach(a_side if role == "a" else d_side, ux, uy) + 1.5
                    a, b = svg.shorten(p, target, start, ring_r + 1)
                    path_.segment(a, b)
                    obstacles.polyline([a, b], pad=2.0)
                    value = _int(e.get("value"), 0) + _int(e.get("terrain_bonus"), 0)
                    text = str(value)  # a charging cavalry's 7 speaks for itself
                    # The value sits just outside the unit's frame, on its line of fire.
                    lx, ly = p[0] + ux * (start + 6), p[1] + uy * (start + 6)
                    value_labels.append(((lx, ly), text, role))
                    obstacles.box(lx - 6, ly - 7, lx + 6, ly + 7)
            ac, dc = colours(a_side), colours(d_side)
            canvas.add(
                svg.path(
                    att_lines, fill="none", stroke="#ffffff", stroke_opacity=0.8, stroke_width=5,
                    stroke_linecap="round",
                ),
                svg.path(def_lines, fill="none", stroke="#ffffff", stroke_opacity=0.8, stroke_width=5),
                svg.path(att_lines, fill="none", stroke=ac.main, stroke_width=2.4, stroke_linecap="round"),
                svg.path(def_lines, fill="none", stroke=dc.main, stroke_width=2.2, stroke_dasharray="5 3"),
                layer="attack",
            )
            ring = (target[0], target[1], ring_r)
            obstacles.box(target[0] - ring_r - 3, target[1] - ring_r - 3, target[0] + ring_r + 3, target[1] + ring_r + 3)
            # Three text elements in all: the halos, then the values (one colour per side). The halo
            # is an opaque outline only: the values cover their own insides, and an unfilled halo
            # spares cairo drawing the glyphs once more.
            value_size = 11.5
            labels.append(
                svg.text_run(
                    [(px, py + 4, text) for (px, py), text, _ in value_labels], font_size=value_size, bold=True,
                    fill="none", stroke=theme.HALO, stroke_width=theme.HALO_WIDTH, stroke_linejoin="round",
                )
            )
            for role, col in (("a", ac), ("d", dc)):
                labels.append(
                    svg.text_run(
                        [(px, py + 4, text) for (px, py), text, r in value_labels if r == role],
                        font_size=value_size, bold=True, fill=col.dark,
                    )
                )
            result = str(attack.get("result") or "none")
            label = (
                f"{_int(attack.get('attack'), 0)} : {_int(attack.get('defence'), 0)}  "
                f"{_t(lang, 'result.' + result)}"
            )
            callouts.append((target, label, ring_r + 3))

    destroyed = last.get("arsenal_destroyed") if isinstance(last.get("arsenal_destroyed"), dict) else None
    if destroyed is not None:
        p = board.centre(destroyed.get("square"))
        if p is not None:
            half = CELL * 0.56
            for stroke, width, dash, opacity in (
                ("#ffffff", 5.5, None, 0.85),
                (theme.ATTACK, 2.6, "6 3", None),
            ):
                marks.append(
                    svg.rect(
                        p[0] - half, p[1] - half, 2 * half, 2 * half, rx=4, fill="none", stroke=stroke,
                        stroke_width=width, stroke_dasharray=dash, stroke_opacity=opacity,
                    )
                )
            obstacles.box(p[0] - half - 3, p[1] - half - 3, p[0] + half + 3, p[1] + half + 3)
            callouts.append((p, _t(lang, "arsenal_destroyed", square=destroyed.get("square")), half + 3))

    if ring is not None:
        circle = Path().circle(*ring)
        marks.append(svg.path(circle, fill="none", stroke="#ffffff", stroke_opacity=0.9, stroke_width=6.5))
        marks.append(svg.path(circle, fill="none", stroke=theme.ATTACK, stroke_width=3))
    canvas.add(*marks, layer="marks")
    for at, text, clearance in callouts:
        labels.append(_callout(board.lay, at, text, clearance, obstacles))
    canvas.add(*labels, layer="labels")



def _document_title(view: Mapping[str, Any], lang: str) -> str:
    return f"{_t(lang, 'game')} — {_t(lang, 'turn', turn=_int(view.get('turn'), 0))}"


def _title_bar(
    lay: Layout,
    view: Mapping[str, Any],
    last: Mapping[str, Any] | None,
    hidden: set[str],
    lang: str,
) -> str:
    out: list[str] = []
    y1 = TITLE_Y
    # The game's name (and the rule under the bar) are in the static board.
    x = PAD + svg.text_width(_t(lang, "game"), theme.TITLE_SIZE, bold=True) + 12
    phase = str(view.get("phase") or "")
    turn = _int(view.get("turn"), 0)
    status: str
    chip_side: str | None = None
    outcome = view.get("outcome") if isinstance(view.get("outcome"), dict) else None
    if phase == "over" or outcome is not None:
        status = _t(lang, "over")
        if outcome is not None:
            reason = str(outcome.get("reason") or "")
            why = _t(lang, "reason." + reason) if reason else ""
            if outcome.get("result") == "win":
                winners = [str(w) for w in outcome.get("winners") or [] if isinstance(w, str)]
                names = ", ".join(_side_name(lang, w) for w in winners)
                status += " · " + _t(lang, "win", sides=names, s="s" if len(winners) == 1 else "")
                chip_side = winners[0] if len(winners) == 1 else None
            else:
                status += " · " + _t(lang, "draw")
            if why:
                status += f" ({why})"
    elif phase == "deploy":
        status = f"{_t(lang, 'deploy')} · {_t(lang, 'to_deploy')}"
    else:
        to_move = view.get("to_move")
        status = _t(lang, "turn", turn=turn)
        if isinstance(to_move, str):
            status += " · " + _t(lang, "to_move", side=_side_name(lang, to_move))
            chip_side = to_move
    sub_size = 16.0
    out.append(svg.text(x, y1, status, font_size=sub_size, fill=theme.INK))
    x += svg.text_width(status, sub_size) + 10
    chips = _UnitPainter()
    if chip_side in SIDE_SLOTS:
        chips.unit(x + 13, y1 - 5.5, chip_side, "frame", scale=0.55)

    # Right-hand side: whose map it is, sealed sides, draw offers.
    right: list[str] = []
    viewer = view.get("viewer")
    right.append(
        _t(lang, "view_of", side=_side_name(lang, viewer)) if isinstance(viewer, str) else _t(lang, "spectator")
    )
    offer = view.get("draw_offered_by")
    if isinstance(offer, str):
        right.append(_t(lang, "draw_offer", side=_side_name(lang, offer)))
    out.append(
        svg.text(
            lay.width - PAD, y1, " · ".join(right), font_size=13, fill=theme.INK_SOFT, text_anchor="end"
        )
    )
    if hidden:
        names = ", ".join(_side_name(lang, s) for s in sorted(hidden))
        out.append(
            svg.text(
                lay.width - PAD, y1 + 20, _t(lang, "hidden", sides=names), font_size=13,
                font_weight="bold", fill=theme.FORCED, text_anchor="end",
            )
        )

    # Second line: what happened last turn.
    if last is not None:
        out.append(
            svg.text(PAD, y1 + 21, _last_turn_summary(last, lang), font_size=13, fill=theme.INK_SOFT)
        )
    out.append(chips.svg(0.6))
    return "".join(out)


def _last_turn_summary(last: Mapping[str, Any], lang: str) -> str:
    side = _side_name(lang, last.get("side"))
    parts = [_t(lang, "last_turn", side=side, turn=_int(last.get("turn"), 0))]
    n = len(_dicts(last.get("moves")))
    parts.append(_t(lang, "no_moves") if n == 0 else _t(lang, "move1") if n == 1 else _t(lang, "moves", n=n))
    attack = last.get("attack") if isinstance(last.get("attack"), dict) else None
    destroyed = last.get("arsenal_destroyed") if isinstance(last.get("arsenal_destroyed"), dict) else None
    if attack is not None:
        parts.append(
            _t(
                lang, "attack_on", square=attack.get("target", "?"), a=_int(attack.get("attack"), 0),
                d=_int(attack.get("defence"), 0), result=_t(lang, "result." + str(attack.get("result") or "none")),
            )
        )
    elif destroyed is not None:
        parts.append(_t(lang, "arsenal_destroyed", square=destroyed.get("square", "?")))
    else:
        parts.append(_t(lang, "no_attack"))
    return parts[0] + " " + " · ".join(parts[1:])


__all__ = [
    "CELL",
    "Layout",
    "canvas_size",
    "colours",
    "image_size",
    "layout",
    "parse_square",
    "render_svg",
    "square_box",
    "square_centre",
    "square_name",
]

