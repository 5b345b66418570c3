"""The map of Corteo, the City's drawing: terrain, walls, river, coordinates, the panel's and the
detail's frames (static parts, put together once per language by
:func:`pbem.games.corteo.render_pieces._static_city`); its texts are placed by
:mod:`pbem.games.corteo.render_names`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from pbem.core.i18n import Catalog
from pbem.games.corteo.city import DIRECTIONS, ROW_LETTERS, Hex
from pbem.render import svg, theme
from pbem.render.svg import Path
from pbem.games.corteo.render_names import detail_static_texts, exit_disc, whole_texts
from pbem.games.corteo.render_style import (
    BAND_Y, CLINIC_RED, COLS, DETAIL_H, DETAIL_MESH, DETAIL_W, DETAIL_X, GATE, Geo, MAP_H, MAP_W, MAP_X, MAP_Y,
    MESH, METRO_RED, PANEL_W, PANEL_X, PRISON_BARS, RIVER_WAVE, ROWS, SLOPE_INK, TERRAIN_FILL,
    TERRAIN_ORDER, VIEW_H, VIEW_W, VIEW_X, VIEW_Y, WALL, WHOLE, _city, _text,
)


# -- the City (static) --------------------------------------------------------------------------------


def _hexagon_path(geo: Geo, hexes: Iterable[Hex], scale: float = 1.0) -> Path:
    p = Path()
    for h in hexes:
        p.polygon(geo.corners(h, scale))
    return p


def _mesh(geo: Geo, hexes: Iterable[Hex]) -> Path:
    """Every side once: the E, SE, SW sides of each hex, plus the W/NW/NE sides on the border."""
    p = Path()
    hexset = set(hexes)
    for h in hexset:
        for d in DIRECTIONS:
            n = h.step(d)
            if d in ("E", "SE", "SW") or n not in hexset:
                p.segment(*geo.side(h, d))
    return p


def _terrain(geo: Geo, hexes: frozenset[Hex], lang: str, detail: bool) -> str:
    """The hexes ``hexes`` of the City at ``geo``: fills, marks, walls, names."""
    city = _city()
    r = geo.r
    out: list[str] = []
    by_terrain: dict[str, list[Hex]] = {}
    for h in sorted(hexes):
        by_terrain.setdefault(city.terrain(h), []).append(h)
    # The whole map strokes a mesh; the detail insets its hexes over a mesh-coloured ground,
    # which draws the same grid without a stroke (much cheaper to rasterise).
    if detail:
        out.append(svg.rect(VIEW_X, VIEW_Y, VIEW_W, VIEW_H, fill=DETAIL_MESH))
    for t in TERRAIN_ORDER:
        if t in by_terrain:
            out.append(svg.path(_hexagon_path(geo, by_terrain[t], 0.975 if detail else 1.0), fill=TERRAIN_FILL[t]))
    # River: waves.
    waves = Path()
    for h in by_terrain.get("fiume", []):
        cx, cy = geo.centre(h)
        for dy in (-0.3, 0.25):
            y = cy + dy * r
            waves.move(cx - 0.5 * r, y).quad(cx - 0.25 * r, y - 0.16 * r, cx, y).quad(cx + 0.25 * r, y + 0.16 * r,
                                                                                      cx + 0.5 * r, y)
    out.append(svg.path(waves, fill="none", stroke=RIVER_WAVE, stroke_width=max(1.0, r * 0.06),
                        stroke_linecap="round"))
    # Slopes: a chevron pointing downhill; stairs: steps.
    chevrons = Path()
    for h in by_terrain.get("discesa", []) + by_terrain.get("salita", []):
        down = city.slope_down.get(h)
        if down is None:
            continue
        cx, cy = geo.centre(h)
        n = h.step(down)
        nx, ny = geo.centre(n)
        ux, uy = (nx - cx) / geo.w, (ny - cy) / geo.w
        px, py = -uy, ux
        for off in (-0.22, 0.18):
            tx, ty = cx + ux * (off + 0.2) * r, cy + uy * (off + 0.2) * r
            chevrons.polyline([(tx - ux * 0.28 * r + px * 0.3 * r, ty - uy * 0.28 * r + py * 0.3 * r), (tx, ty),
                               (tx - ux * 0.28 * r - px * 0.3 * r, ty - uy * 0.28 * r - py * 0.3 * r)])
    out.append(svg.path(chevrons, fill="none", stroke=SLOPE_INK, stroke_width=max(1.2, r * 0.08),
                        stroke_linecap="round", stroke_linejoin="round"))
    steps = Path()
    for h in by_terrain.get("scale", []):
        cx, cy = geo.centre(h)
        for k in range(-2, 3):
            y = cy + k * 0.17 * r
            half = 0.45 * r
            steps.segment((cx - half, y), (cx + half, y))
    out.append(svg.path(steps, fill="none", stroke=SLOPE_INK, stroke_width=max(0.9, r * 0.05)))
    # Buildings: a darker inner edge, the prison's bars, the clinics' crosses.
    bars = Path()
    crosses = Path()
    for b in city.buildings:
        for h in b.hexes:
            if h not in hexes:
                continue
            cx, cy = geo.centre(h)
            if b.role == "carcere":
                for k in range(-2, 3):
                    bars.segment((cx + k * 0.17 * r, cy - 0.5 * r), (cx + k * 0.17 * r, cy + 0.5 * r))
            elif b.role == "clinica":
                arm, thick = 0.36 * r, 0.12 * r
                crosses.rect(cx - arm, cy - thick, 2 * arm, 2 * thick).rect(cx - thick, cy - arm, 2 * thick, 2 * arm)
    out.append(svg.path(bars, fill="none", stroke=PRISON_BARS, stroke_width=max(1.0, r * 0.07)))
    out.append(svg.path(crosses, fill="#ffffff", stroke=CLINIC_RED, stroke_width=max(0.8, r * 0.05)))
    if not detail:
        out.append(svg.path(_mesh(geo, hexes), fill="none", stroke=MESH, stroke_width=0.6, stroke_opacity=0.55))
    # Bridges: parapets on their sides along the river.
    parapets = Path()
    for br in city.bridges:
        for h in br.hexes:
            if h not in hexes:
                continue
            for d in DIRECTIONS:
                n = h.step(d)
                if city.on_map(n) and city.terrain(n) == "fiume":
                    parapets.segment(*geo.side(h, d))
    out.append(svg.path(parapets, fill="none", stroke="#3a3630", stroke_width=max(1.6, r * 0.12),
                        stroke_linecap="round"))
    # Walls: the Mura, the fences; gates as gaps with towers.
    mura, fences = Path(), Path()
    for wall, target in [(city.mura, mura)] + [(w, fences) for w in city.walls]:
        for side in wall.sides:
            h1, h2 = side.hexes
            if h1 in hexes or h2 in hexes:
                target.segment(*geo.side(side.hex, side.direction))
    out.append(svg.path(mura, fill="none", stroke=WALL, stroke_width=max(3.0, r * 0.2), stroke_linecap="round"))
    out.append(svg.path(fences, fill="none", stroke=WALL, stroke_width=max(1.6, r * 0.09),
                        stroke_dasharray=f"{svg.num(r * 0.25)} {svg.num(r * 0.12)}"))
    towers = Path()
    for g in city.gates:
        h1, h2 = g.side.hexes
        if h1 not in hexes and h2 not in hexes:
            continue
        p, q = geo.side(g.side.hex, g.side.direction)
        tw = max(2.6, r * 0.15)
        towers.rect(p[0] - tw, p[1] - tw, 2 * tw, 2 * tw).rect(q[0] - tw, q[1] - tw, 2 * tw, 2 * tw)
    out.append(svg.path(towers, fill=GATE, stroke=WALL, stroke_width=max(1.0, r * 0.06)))
    # Metro stations: a red disc (its M is a mark, see render_names).
    discs = Path()
    for h in by_terrain.get("metro", []):
        cx, cy = geo.centre(h)
        discs.circle(cx, cy, r * 0.5)
    out.append(svg.path(discs, fill=METRO_RED, stroke="#ffffff", stroke_width=max(1.0, r * 0.06)))
    # Caserme exit roads: a violet disc for the number (C 3a, 6c).
    exit_discs = Path()
    for c in city.caserme:
        for e in c.exits:
            if e in hexes:
                exit_discs.circle(*exit_disc(geo, e), r * (0.22 if detail else 0.36))
    out.append(svg.path(exit_discs, fill=TERRAIN_FILL["caserma"], stroke="#ffffff", stroke_width=max(0.8, r * 0.05)))
    # The texts: on the whole map all of them, placed once; on the detail those that never move
    # (the rest go around the counters on every map: render_names.detail_texts).
    out.append(whole_texts(hexes) if not detail else detail_static_texts(geo, hexes))
    return "".join(out)


def _river_labels(geo: Geo) -> str:
    city = _city()
    out = []
    for row in (4, 17):
        fiume = [h for h in city.hexes_of("fiume") if h.row == row]
        if not fiume:
            continue
        xs = [geo.centre(h)[0] for h in fiume]
        x = (min(xs) + max(xs)) / 2
        y = geo.centre(fiume[0])[1]
        out.append(svg.text(x + 3, y, city.river, font_size=11, font_style="italic", font_weight="bold",
                            fill="#eaf3fb", text_anchor="middle",
                            transform=f"rotate(90 {svg.num(x)} {svg.num(y)})", letter_spacing=2))
    return "".join(out)


def _coordinates() -> str:
    top: list[tuple[float, float, str]] = []
    bottom: list[tuple[float, float, str]] = []
    sides: list[tuple[float, float, str]] = []
    for col in range(COLS):
        x0, _ = WHOLE.centre(Hex(0, col))
        top.append((x0, MAP_Y - 4, str(col + 1)))
        xb, _ = WHOLE.centre(Hex(ROWS - 1, col))
        bottom.append((xb, MAP_Y + MAP_H + 12, str(col + 1)))
    for row in range(ROWS):
        _, y = WHOLE.centre(Hex(row, 0))
        sides.append((MAP_X - 8, y + 4, ROW_LETTERS[row]))
        sides.append((MAP_X + MAP_W + 8, y + 4, ROW_LETTERS[row]))
    return (svg.text_run(top + bottom, font_size=9, fill=theme.INK_SOFT)
            + svg.text_run(sides, font_size=10.5, bold=True, fill=theme.INK_SOFT))


def _box(x: float, y: float, w: float, h: float, heading: str) -> str:
    return (svg.rect(x, y, w, h, rx=6, fill="#fbf9f3", stroke="#cfc8b6", stroke_width=1.2)
            + svg.text(x + 12, y + 20, heading, font_size=14, font_weight="bold", fill=theme.INK))


# Panel sections (top y of each).
HAND_Y: Final = BAND_Y
SCORE_Y: Final = HAND_Y + 128.0
HEAD_Y: Final = SCORE_Y + 86.0
PRISON_Y: Final = HEAD_Y + 84.0
OFF_Y: Final = PRISON_Y + 150.0
RESERVE_Y: Final = OFF_Y + 138.0
PANEL_END: Final = BAND_Y + DETAIL_H
HAND_CELL: Final = (PANEL_W - 24) / 10


def _hand_cell(n: int) -> tuple[float, float, float, float]:
    return PANEL_X + 12 + (n - 1) * HAND_CELL, HAND_Y + 30, HAND_CELL - 4, 34


def _panel_static(catalog: Catalog, lang: str) -> str:
    out = [_box(PANEL_X, HAND_Y, PANEL_W, SCORE_Y - HAND_Y - 8, _text(catalog, lang, "map-hand-track")),
           _box(PANEL_X, SCORE_Y, PANEL_W, HEAD_Y - SCORE_Y - 8, _text(catalog, lang, "map-score")),
           _box(PANEL_X, HEAD_Y, PANEL_W, PRISON_Y - HEAD_Y - 8, _text(catalog, lang, "map-head")),
           _box(PANEL_X, PRISON_Y, PANEL_W, OFF_Y - PRISON_Y - 8, _text(catalog, lang, "map-prison")),
           _box(PANEL_X, OFF_Y, PANEL_W, RESERVE_Y - OFF_Y - 8, _text(catalog, lang, "map-offmap")),
           _box(PANEL_X, RESERVE_Y, PANEL_W, PANEL_END - RESERVE_Y, _text(catalog, lang, "map-reserve"))]
    cells = Path()
    numbers: list[tuple[float, float, str]] = []
    for n in range(1, 11):
        x, y, w, h = _hand_cell(n)
        cells.round_rect(x, y, w, h, 4)
        numbers.append((x + w / 2, y + 23, str(n)))
    out.append(svg.path(cells, fill="#f1ece0", stroke="#cfc8b6", stroke_width=1))
    out.append(svg.text_run(numbers, font_size=16, bold=True, fill=theme.INK_SOFT))
    out.append(svg.text(PANEL_X + 12, HAND_Y + 86, _text(catalog, lang, "map-runs"), font_size=11.5,
                        fill=theme.INK))
    out.append(svg.text(PANEL_X + 12, HAND_Y + 110, _text(catalog, lang, "map-barricades"), font_size=11.5,
                        fill=theme.INK))
    return "".join(out)


def _detail_static(catalog: Catalog, lang: str) -> str:
    return (svg.rect(DETAIL_X, BAND_Y, DETAIL_W, DETAIL_H, rx=6, fill="#fbf9f3", stroke="#cfc8b6", stroke_width=1.2)
            + svg.rect(VIEW_X, VIEW_Y, VIEW_W, VIEW_H, fill="#e9e4d8"))
