"""The map of Corteo: one view as an SVG document.

:func:`render_svg` reads the position only from the view (plain JSON data from
:func:`pbem.games.corteo.view.build_view`); the City itself (terrain, walls, river, names,
objectives, caserme, metro, prison) is static data read from :mod:`pbem.games.corteo.city`, and the
component colours from ``tables.toml``. :func:`pbem.render.raster.svg_to_png` turns the SVG into the
PNG of the turn mail.

Layout (user units; the document is :data:`WIDTH` x :data:`HEIGHT`, the service draws it 1600 px
wide, about 1:1):

- a title bar: the game, the hand (1-10) and the phase, whom the map is for;
- the whole City, landscape, 40 x 26 pointy-top hexes (rows A-Z from the North, columns 1-40
  from the West, rows B, D, F, ... half a hex East; C 1d): the hexes in the original's colours
  (strade white, viali and piazze grey, luoghi affollati light blue, caseggiati brown, case
  popolari red, obiettivi yellow with their value, caserme violet with their number and
  numbered exit roads, giardini green, metro "M" stations, slopes with their downhill chevron,
  stairs, the Fiume with its bridges), the Mura with their Gates and the Giardini's fence on
  the hex sides, the names of streets, squares, areas and buildings (Italian puns, kept as the
  City names them), the hex coordinates along the four edges; on it the counters as small
  squares in their colours, the pieces, the record's marks and the detail's frame;
- below on the left the DETAIL: the area of action (``view["focus"]``, else the Corteo, else
  Piazza Mento) at a readable scale, every hex with its label, the counters with their id and
  speed-power; on the right a panel: the hand track 1..10, the runs (corsa) and barricades left,
  the score, the Head, the prison, the units off the map, the power's reserve; and along the
  bottom the legend (terrain names in Italian, with English glosses in English).

Counters (C 1a, 1b): the corteo's in their component's colour (two-colour components with a band),
a symbol for gruppo / cordone / spezzone; the power's dark blue-grey by type with a type symbol.
Two per hex are offset like a stack (C 9). The Head (C 10) wears a gold ring and star; the units of
the Corteo aggregate are joined by a soft red band; a panicked power unit is face down (grey); a
presidio piantone (C 6b) carries a "P"; a waiting unit (C 13d) is dashed. Pieces: barricades (C 5d)
are striped bars, jams (C 13c) a queue of cars, smoke (C 13a) a grey cloud, covered objectives
(C 12a) brown tiles with their value, objectives held at the end of the last hand a ringed hex; the
ZOCs (C 2) are hatched only when ``view["show_zoc"]`` is set (corteo's one way, the power's the
other, so shared hexes are cross-hatched). The record (``view["log"]``) draws moves as arrows in
the side's colour (retreats dashed, panics dotted, metro rides as arcs), throws as dashed lines with
their result, fights as a burst with the result code between the sides, arrests as a line to the
prison, exits off the map as arrows to the edge.

Speed (``design/performance.md``): the City, the frames, the hand track's scale and the legend
are one static part built once per process and language (:func:`_static_city`) and drawn first,
so the rasteriser draws them once per width; the hexes are one path per terrain, the mesh one
path, the coordinates and numbers text runs. The detail's terrain is built once per window
(:func:`_detail_terrain`). Counters are batched by colour. ``benchmarks/render_corteo.py`` prints
the figures.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from pbem.core.i18n import Catalog, msg, normalise_language
from pbem.games.corteo.city import DIRECTIONS, ROW_LETTERS, City, Hex, load_city
from pbem.render import svg, theme
from pbem.render.cache import static_part
from pbem.render.svg import wrap as _wrap
from pbem.render.viewdata import as_int as _int, as_dicts as _dicts, as_strs as _strs
from pbem.render.svg import Path, Point

# -- geometry ---------------------------------------------------------------------------------

SQRT3: Final = math.sqrt(3)
SQRT2: Final = math.sqrt(2)
ROWS: Final = 26
COLS: Final = 40
WIDTH: Final = 1600.0
PAD: Final = 14.0
TITLE_H: Final = 54.0
COORD_M: Final = 16.0  # room for the edge coordinates
MAP_X: Final = PAD + COORD_M
MAP_W: Final = WIDTH - 2 * (PAD + COORD_M)
R: Final = MAP_W / ((COLS + 0.5) * SQRT3)  # circumradius of a hex on the whole map
MAP_Y: Final = TITLE_H + COORD_M
MAP_H: Final = (ROWS * 1.5 + 0.5) * R
BAND_Y: Final = MAP_Y + MAP_H + COORD_M + 10
DETAIL_X: Final = PAD
DETAIL_W: Final = 1030.0
DETAIL_H: Final = 690.0
DETAIL_HEAD: Final = 30.0
VIEW_X: Final = DETAIL_X + 6
VIEW_Y: Final = BAND_Y + DETAIL_HEAD
VIEW_W: Final = DETAIL_W - 12
VIEW_H: Final = DETAIL_H - DETAIL_HEAD - 6
PANEL_X: Final = DETAIL_X + DETAIL_W + 12
PANEL_W: Final = WIDTH - PAD - PANEL_X
LEGEND_Y: Final = BAND_Y + DETAIL_H + 12
LEGEND_H: Final = 112.0
HEIGHT: Final = LEGEND_Y + LEGEND_H + PAD
DETAIL_R_MIN: Final = 36.0
DETAIL_R_MAX: Final = 52.0

#: Corner indices (see :meth:`Geo.corners`) of each side of a hex.
SIDE_CORNERS: Final = {"E": (0, 1), "SE": (1, 2), "SW": (2, 3), "W": (3, 4), "NW": (4, 5), "NE": (5, 0)}


class Geo:
    """Where the hexes lie: ``(ox, oy)`` is the top-left of the map's bounding box, ``r`` the
    hexes' circumradius."""

    __slots__ = ("ox", "oy", "r", "w")

    def __init__(self, ox: float, oy: float, r: float) -> None:
        self.ox, self.oy, self.r = ox, oy, r
        self.w = SQRT3 * r

    def centre(self, h: Hex) -> Point:
        return (self.ox + self.w * (h.col + 0.5 + 0.5 * (h.row & 1)), self.oy + self.r * (1 + 1.5 * h.row))

    def corners(self, h: Hex, scale: float = 1.0) -> list[Point]:
        """Upper-right, lower-right, bottom, lower-left, upper-left, top (clockwise on screen)."""
        cx, cy = self.centre(h)
        r = self.r * scale
        return [(cx + r * math.cos(math.radians(60 * k - 30)), cy + r * math.sin(math.radians(60 * k - 30)))
                for k in range(6)]

    def side(self, h: Hex, direction: str) -> tuple[Point, Point]:
        c = self.corners(h)
        a, b = SIDE_CORNERS[direction]
        return c[a], c[b]


WHOLE: Final = Geo(MAP_X, MAP_Y, R)

# -- colours -----------------------------------------------------------------------------------------

#: The original's palette (C 1d): white streets, grey viali, light blue crowded places, brown
#: buildings, red case popolari, yellow objectives, violet barracks, green gardens.
TERRAIN_FILL: Final[dict[str, str]] = {
    "strada": "#ffffff",
    "viale": "#c9c9c4",
    "discesa": "#eadfc4",
    "salita": "#eadfc4",
    "scale": "#e3dccb",
    "giardino": "#86c06c",
    "caseggiato": "#a57a52",
    "fiume": "#5b9bd5",
    "case_popolari": "#d2453b",
    "affollato": "#a9dcf2",
    "obiettivo": "#f6d32d",
    "caserma": "#8a5aa8",
    "metro": "#ffffff",
}
TERRAIN_ORDER: Final = ("strada", "viale", "discesa", "salita", "scale", "giardino", "caseggiato", "fiume",
                        "case_popolari", "affollato", "obiettivo", "caserma", "metro")
MESH: Final = "#8d8577"
DETAIL_MESH: Final = "#aaa394"
WALL: Final = "#4a2e17"
GATE: Final = "#d9b36c"
RIVER_EDGE: Final = "#2f6ea5"
RIVER_WAVE: Final = "#a9cbec"
SLOPE_INK: Final = "#8a6a3a"
METRO_RED: Final = "#d7261e"
CASERMA_INK: Final = "#3e1f55"
OBJ_INK: Final = "#3b2f00"
PRISON_BARS: Final = "#2b1a0e"
CLINIC_RED: Final = "#d7261e"
CORTEO_INK: Final = "#d55e00"  # arrows, hatching: Okabe-Ito vermillion
POTERE_INK: Final = "#0b5fa5"  # Okabe-Ito blue, darkened
HEAD_GOLD: Final = "#f2b700"
HEAD_EDGE: Final = "#6b4e00"
LINK_RED: Final = "#e0584f"
BARRICADE_DARK: Final = "#2b2a27"
BARRICADE_LIGHT: Final = "#f0b429"
SMOKE: Final = "#cfd2d4"
SMOKE_EDGE: Final = "#6f7478"
COVER: Final = "#7a5232"
COVER_EDGE: Final = "#3d2815"
HELD: Final = "#e0590b"
FIGHT: Final = "#b8321a"
DETAIL_FRAME: Final = "#111111"

#: Component colours of tables.toml: (fill, band, border, ink). The band is the second colour of
#: a two-colour counter (biancorosso, giallorosso, rossogrigio).
COMPONENT_COLOURS: Final[dict[str, tuple[str, str, str, str]]] = {
    "rosso": ("#d62a20", "#d62a20", "#6e1510", "#ffffff"),
    "biancorosso": ("#ffffff", "#d62a20", "#8a1a14", "#8a1a14"),
    "verde": ("#1f9a4c", "#1f9a4c", "#0c4a22", "#ffffff"),
    "rosa": ("#f5a3c7", "#f5a3c7", "#a3506f", "#3a1024"),
    "giallorosso": ("#f7d33a", "#d62a20", "#7a1a10", "#5a1008"),
    "rossogrigio": ("#d62a20", "#8f8f8f", "#5a1410", "#ffffff"),
    "arancio": ("#f08a24", "#f08a24", "#7a4000", "#2a1500"),
    "bianco": ("#ffffff", "#ffffff", "#555555", "#222222"),
}
UNKNOWN_COLOURS: Final = ("#e0dccf", "#e0dccf", "#6b675e", "#2b2a27")
#: The power's counters by type: (fill, ink); dark blue and grey, a symbol for each type.
POWER_COLOURS: Final[dict[str, tuple[str, str]]] = {
    "blindati": ("#26313f", "#ffffff"),
    "celere": ("#1d4f91", "#ffffff"),
    "lacrimogeni": ("#3d6480", "#ffffff"),
    "carabinieri": ("#14213d", "#ffffff"),
    "piantoni": ("#5f6f80", "#ffffff"),
    "vigili": ("#8595a6", "#10161c"),
    "finanza": ("#4f5b46", "#ffffff"),
}
POWER_EDGE: Final = "#0a0f18"
PANICKED: Final = ("#a7a7a2", "#3b3b38")
POWER_TYPES: Final = ("blindati", "celere", "lacrimogeni", "carabinieri", "piantoni", "vigili", "finanza")

CORTEO: Final = "corteo"
POTERE: Final = "potere"
SIDE_INK: Final = {CORTEO: CORTEO_INK, POTERE: POTERE_INK}


# -- texts -----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _render_texts() -> Catalog:
    return Catalog.from_package("pbem.games.corteo.data", "render.toml")


@functools.lru_cache(maxsize=1)
def _catalog() -> Catalog:
    try:
        base = Catalog.from_package("pbem.games.corteo.data")
    except (FileNotFoundError, OSError):
        base = Catalog()
    return base.merged(_render_texts())


def _text(catalog: Catalog, lang: str, key: str, **args: object) -> str:
    return catalog.text(msg(key, **args), lang)


def _maybe(catalog: Catalog, lang: str, key: str, default: str, **args: object) -> str:
    if catalog.has(key, lang) or catalog.has(key):
        return _text(catalog, lang, key, **args)
    return default


def _fit(text: str, size: float, width: float, bold: bool = False) -> str:
    if svg.text_width(text, size, bold=bold) <= width:
        return text
    while len(text) > 2 and svg.text_width(text + "…", size, bold=bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


@functools.lru_cache(maxsize=1)
def _city() -> City:
    return load_city()


@functools.lru_cache(maxsize=1)
def _component_colour() -> dict[str, str]:
    from pbem.games.corteo.tables import TABLES

    return {c.key: c.colour for c in TABLES.components}


def _hex(label: object) -> Hex | None:
    if not isinstance(label, str):
        return None
    return _city().parse(label)


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


def _streets_labels(city: City, geo: Geo, hexes: frozenset[Hex], size: float, lang: str,
                    catalog: Catalog) -> list[str]:
    """Street, square, area and building names, each at the middle of its hexes shown."""
    out: list[str] = []
    for street in city.streets + city.bridges:
        shown = [h for h in street.hexes if h in hexes]
        if len(shown) < (3 if geo is WHOLE else 1):
            continue
        a, b = geo.centre(shown[0]), geo.centre(shown[-1])
        if len(shown) >= 2:
            angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        else:
            angle = 0.0
        if angle > 90:
            angle -= 180
        elif angle <= -90:
            angle += 180
        if abs(abs(angle) - 90) < 12:
            angle = -90.0
        mid = shown[len(shown) // 2] if len(shown) % 2 else None
        if mid is not None:
            mx, my = geo.centre(mid)
        else:
            p, q = geo.centre(shown[len(shown) // 2 - 1]), geo.centre(shown[len(shown) // 2])
            mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
        name = street.name
        length = math.hypot(b[0] - a[0], b[1] - a[1]) + geo.w * 0.9
        fs = size
        if svg.text_width(name, fs) > length and geo is WHOLE:
            fs = max(size * 0.8, fs * length / svg.text_width(name, fs))
        dy = fs * 0.35
        if abs(angle) < 1:
            my += geo.r * (0.62 if geo is not WHOLE else 0.0)
        transform = f"rotate({svg.num(angle)} {svg.num(mx)} {svg.num(my)})" if abs(angle) >= 1 else None
        if geo is WHOLE or svg.text_width(name, fs) > length - geo.w * 0.5:
            out.append(svg.halo_text(mx, my + dy, name, font_size=fs, fill="#3a3630", text_anchor="middle",
                                     transform=transform, halo_width=2.6, halo_opacity=0.85))
        else:  # on its own street: no halo needed (and half the text to draw)
            out.append(svg.text(mx, my + dy, name, font_size=fs, fill="#3a3630", text_anchor="middle",
                                transform=transform))
    return out


def _place_labels(city: City, geo: Geo, hexes: frozenset[Hex], size: float) -> list[tuple[float, float, str, str]]:
    """(x, y, name, kind) of squares, areas and buildings whose hexes are shown."""
    out: list[tuple[float, float, str, str]] = []
    groups: list[tuple[str, str, Sequence[Hex]]] = []
    groups += [(s.name, "square", s.hexes) for s in city.squares]
    groups += [(a.name, a.kind, a.hexes) for a in city.areas]
    groups += [(b.name, "building", b.hexes) for b in city.buildings]
    groups += [(f"Metro {s.name}", "station", s.hexes) for s in city.stations] if geo is not WHOLE else []
    for name, kind, place in groups:
        shown = [h for h in place if h in hexes]
        if not shown:
            continue
        pts = [geo.centre(h) for h in shown]
        x = sum(p[0] for p in pts) / len(pts)
        y = sum(p[1] for p in pts) / len(pts)
        if kind == "station":
            y += geo.r * 0.78
        out.append((x, y, name, kind))
    return out


def _terrain(geo: Geo, hexes: frozenset[Hex], lang: str, detail: bool) -> str:
    """The hexes ``hexes`` of the City at ``geo``: fills, marks, walls, names."""
    city = _city()
    catalog = _catalog()
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
    gate_labels: list[tuple[float, float, str]] = []
    for g in city.gates:
        h1, h2 = g.side.hexes
        if h1 not in hexes and h2 not in hexes:
            continue
        p, q = geo.side(g.side.hex, g.side.direction)
        tw = max(2.6, r * 0.15)
        towers.rect(p[0] - tw, p[1] - tw, 2 * tw, 2 * tw).rect(q[0] - tw, q[1] - tw, 2 * tw, 2 * tw)
        gate_labels.append(((p[0] + q[0]) / 2 + r * 0.2, (p[1] + q[1]) / 2 - r * 0.15, g.name))
    out.append(svg.path(towers, fill=GATE, stroke=WALL, stroke_width=max(1.0, r * 0.06)))
    # Metro stations: a red disc with an M.
    discs = Path()
    ms: list[tuple[float, float, str]] = []
    for h in by_terrain.get("metro", []):
        cx, cy = geo.centre(h)
        discs.circle(cx, cy, r * 0.5)
        ms.append((cx, cy + r * 0.24, "M"))
    out.append(svg.path(discs, fill=METRO_RED, stroke="#ffffff", stroke_width=max(1.0, r * 0.06)))
    out.append(svg.text_run(ms, font_size=r * 0.66, bold=True, fill="#ffffff"))
    # Caserme: the number on each hex, and on the exit road hexes (C 3a, 6c).
    numbers: list[tuple[float, float, str]] = []
    exit_discs = Path()
    exit_numbers: list[tuple[float, float, str]] = []
    for c in city.caserme:
        for h in c.hexes:
            if h in hexes:
                cx, cy = geo.centre(h)
                numbers.append((cx, cy + r * 0.26 if not detail else cy - r * 0.2, str(c.number)))
        for e in c.exits:
            if e in hexes:
                cx, cy = geo.centre(e)
                ex, ey = (cx + r * 0.42, cy - r * 0.38) if detail else (cx, cy)
                exit_discs.circle(ex, ey, r * (0.22 if detail else 0.36))
                exit_numbers.append((ex, ey + r * (0.09 if detail else 0.15), str(c.number)))
    out.append(svg.text_run(numbers, font_size=r * (0.72 if not detail else 0.5), bold=True, fill="#ffffff"))
    out.append(svg.path(exit_discs, fill=TERRAIN_FILL["caserma"], stroke="#ffffff", stroke_width=max(0.8, r * 0.05)))
    out.append(svg.text_run(exit_numbers, font_size=r * (0.3 if detail else 0.46), bold=True, fill="#ffffff"))
    # Objectives: the value of each hex (C 12a), the category in the detail.
    values: list[tuple[float, float, str]] = []
    cats: list[tuple[float, float, str]] = []
    for o in city.objectives:
        for h in o.hexes:
            if h in hexes:
                cx, cy = geo.centre(h)
                if detail:
                    values.append((cx, cy + r * 0.72, str(o.value)))
                    cats.append((cx, cy - r * 0.38, _fit(o.category, r * 0.17, geo.w * 0.86, bold=True)))
                else:
                    values.append((cx, cy + r * 0.3, str(o.value)))
    out.append(svg.text_run(values, font_size=r * (0.34 if detail else 0.8), bold=True, fill=OBJ_INK))
    out.append(svg.text_run(cats, font_size=r * 0.17, bold=True, fill=OBJ_INK))
    # Hex labels in the detail (whole map: along the edges).
    if detail:
        # Only where a unit may stand: nobody enters caseggiati and the river (C 4c).
        light: list[tuple[float, float, str]] = []
        dark: list[tuple[float, float, str]] = []
        for h in sorted(hexes):
            t = city.terrain(h)
            if t in ("caseggiato", "fiume"):
                continue
            x, y = geo.centre(h)
            (dark if t in ("case_popolari", "caserma") else light).append((x, y - r * 0.64, h.label))
        out.append(svg.text_run(light, font_size=r * 0.2, fill="#5d574c"))
        out.append(svg.text_run(dark, font_size=r * 0.2, fill="#f2ece0"))
    # Names.
    size = 8.6 if not detail else max(9.5, r * 0.22)
    out.extend(_streets_labels(city, geo, hexes, size, lang, catalog))
    places = _place_labels(city, geo, hexes, size)
    squares = [(x, y + size * 0.35, n) for x, y, n, k in places if k == "square"]
    others = [(x, y + size * 0.35, n) for x, y, n, k in places if k != "square"]
    out.append(svg.text_run(squares, font_size=size + 1, bold=True, fill="#2b2a27", halo="#ffffff",
                            halo_width=3))
    out.append(svg.text_run(others, font_size=size, fill="#1e1b16", halo="#f4efe4", halo_width=2.6,
                            font_style="italic"))
    out.append(svg.text_run(gate_labels, font_size=size, bold=True, anchor="start", fill=WALL, halo="#ffffff",
                            halo_width=2.6))
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


LEGEND_TERRAINS: Final = ("strada", "viale", "affollato", "caseggiato", "case_popolari", "obiettivo", "caserma",
                          "giardino", "metro", "discesa", "scale", "fiume")


def _legend(catalog: Catalog, lang: str) -> str:
    x0, y0 = PAD, LEGEND_Y
    w = WIDTH - 2 * PAD
    out = [svg.rect(x0, y0, w, LEGEND_H, rx=6, fill="#fbf9f3", stroke="#cfc8b6", stroke_width=1.2)]
    geo = Geo(0, 0, 11)
    fills: dict[str, Path] = {}
    names: list[tuple[float, float, str]] = []
    glosses: list[tuple[float, float, str]] = []
    col_w = (w - 20) / len(LEGEND_TERRAINS)
    extras: list[str] = []
    for i, t in enumerate(LEGEND_TERRAINS):
        cx = x0 + 22 + i * col_w
        cy = y0 + 24
        pts = [(cx + px - geo.centre(Hex(0, 0))[0], cy + py - geo.centre(Hex(0, 0))[1])
               for px, py in geo.corners(Hex(0, 0))]
        fills.setdefault(t, Path()).polygon(pts)
        if t == "metro":
            extras.append(svg.circle(cx, cy, 5.5, fill=METRO_RED))
            extras.append(svg.text(cx, cy + 3, "M", font_size=7.5, font_weight="bold", fill="#ffffff",
                                   text_anchor="middle"))
        elif t == "discesa":
            extras.append(svg.polyline([(cx - 5, cy - 3), (cx, cy + 3), (cx + 5, cy - 3)], stroke=SLOPE_INK,
                                       stroke_width=1.6))
        elif t == "scale":
            extras.append(svg.path(Path().segment((cx - 5, cy - 3), (cx + 5, cy - 3)).segment((cx - 5, cy),
                                   (cx + 5, cy)).segment((cx - 5, cy + 3), (cx + 5, cy + 3)), stroke=SLOPE_INK,
                                   stroke_width=1))
        elif t == "obiettivo":
            extras.append(svg.text(cx, cy + 4, "4", font_size=10, font_weight="bold", fill=OBJ_INK,
                                   text_anchor="middle"))
        elif t == "caserma":
            extras.append(svg.text(cx, cy + 4, "3", font_size=10, font_weight="bold", fill="#ffffff",
                                   text_anchor="middle"))
        label = _text(catalog, lang, f"map-terrain-{t}")
        names.append((cx + 15, cy + 4, _fit(label, 10.5, col_w - 22, bold=True)))
        gloss = _maybe(catalog, lang, f"map-gloss-{t}", "")
        if gloss:
            glosses.append((cx + 15, cy + 17, _fit(gloss, 9.5, col_w - 22)))
    for t, p in fills.items():
        out.append(svg.path(p, fill=TERRAIN_FILL[t], stroke=MESH, stroke_width=0.8))
    out.extend(extras)
    out.append(svg.text_run(names, font_size=10.5, bold=True, anchor="start", fill=theme.INK))
    out.append(svg.text_run(glosses, font_size=9.5, anchor="start", fill=theme.INK_SOFT))
    # Second row: walls, counters and pieces.
    row_y = y0 + 72
    items = ("mura", "corteo", "potere", "head", "panicked", "barricade", "jam", "smoke", "covered", "held", "zoc",
             "record")
    item_w = (w - 20) / len(items)
    texts: list[tuple[float, float, str]] = []
    counters = _Counters(detail=True)
    marks = _Pieces(1.0)
    for i, key in enumerate(items):
        cx = x0 + 24 + i * item_w
        cy = row_y
        label = _text(catalog, lang, f"map-legend-{key}")
        lines = _wrap(label, 9.5, item_w - 40)[:3]
        for j, line in enumerate(lines):
            texts.append((cx + 20, cy - (len(lines) - 1) * 5.5 + j * 11 + 3, line))
        if key == "mura":
            extras2 = [svg.line(cx - 12, cy + 10, cx + 8, cy - 12, stroke=WALL, stroke_width=4, stroke_linecap="round")]
            out.extend(extras2)
        elif key == "corteo":
            counters.add(_sample("MOV1", CORTEO, "MOV", "spezzone", 6, 6), cx - 15, cy - 15, 30)
        elif key == "potere":
            counters.add(_sample("CE1", POTERE, None, "celere", 4, 4), cx - 15, cy - 15, 30)
        elif key == "head":
            counters.add(_sample("MOV2", CORTEO, "MOV", "spezzone", 6, 6, head=True), cx - 15, cy - 15, 30)
        elif key == "panicked":
            counters.add(_sample("CA3", POTERE, None, "carabinieri", 6, 4, panicked=True), cx - 15, cy - 15, 30)
        elif key == "barricade":
            marks.barricade(cx, cy, 11)
        elif key == "jam":
            marks.jam(cx, cy, 11)
        elif key == "smoke":
            marks.smoke(cx, cy, 11)
        elif key == "covered":
            marks.cover(Geo(cx - SQRT3 * 14 / 2, cy - 14, 14), Hex(0, 0), "4")
        elif key == "held":
            out.append(svg.polygon(Geo(0, 0, 13).corners(Hex(0, 0)), fill=TERRAIN_FILL["obiettivo"],
                                   transform=f"translate({svg.num(cx - SQRT3 * 13 / 2)} {svg.num(cy - 13)})"))
            marks.held(Geo(cx - SQRT3 * 13 / 2, cy - 13, 13), Hex(0, 0))
        elif key == "zoc":
            g = Geo(cx - SQRT3 * 14 / 2, cy - 14, 14)
            out.append(svg.path(_hexagon_path(g, [Hex(0, 0)]), fill="#ffffff", stroke=MESH, stroke_width=0.8))
            out.append(_draw_zoc(g, {"show_zoc": True, "zoc": {CORTEO: ["A1"], POTERE: ["A1"]}}, None))
        elif key == "record":
            out.append(svg.line(cx - 14, cy - 5, cx + 6, cy - 5, stroke=CORTEO_INK, stroke_width=3))
            out.append(svg.polygon(svg.arrowhead((cx + 14, cy - 5), (cx, cy - 5), 9, 9), fill=CORTEO_INK))
            out.append(svg.line(cx - 14, cy + 6, cx + 14, cy + 6, stroke=POTERE_INK, stroke_width=2,
                                stroke_dasharray="5 3"))
    out.append(marks.svg())
    out.append(counters.svg())
    out.append(svg.text_run(texts, font_size=9.5, anchor="start", fill=theme.INK))
    return "".join(out)


def _sample(uid: str, side: str, component: str | None, kind: str, speed: int, power: int,
            head: bool = False, panicked: bool = False) -> dict[str, Any]:
    return {"id": uid, "side": side, "component": component, "kind": kind, "type": kind, "speed": speed,
            "power": power, "head": head, "panicked": panicked}


@static_part(maxsize=4)
def _static_city(lang: str) -> str:
    """Everything that never changes in a game: built once per process and language."""
    catalog = _catalog()
    city = _city()
    whole = frozenset(city.hexes)
    return "".join([
        svg.rect(0, 0, WIDTH, HEIGHT, fill=theme.PAPER),
        svg.rect(MAP_X - 3, MAP_Y - 3, MAP_W + 6, MAP_H + 6, fill="#e9e4d8", stroke=theme.FRAME, stroke_width=1.5),
        _terrain(WHOLE, whole, lang, detail=False),
        _river_labels(WHOLE),
        _coordinates(),
        _detail_static(catalog, lang),
        _panel_static(catalog, lang),
        _legend(catalog, lang),
    ])


# -- the detail's window -------------------------------------------------------------------------------------

UNIT_W: Final = (COLS + 0.5) * SQRT3  # the map's size with r = 1
UNIT_H: Final = ROWS * 1.5 + 0.5


def _unit_centre(h: Hex) -> Point:
    return SQRT3 * (h.col + 0.5 + 0.5 * (h.row & 1)), 1 + 1.5 * h.row


DETAIL_R_READABLE: Final = 42.0  # a spread-out action is cut to its busiest part at this scale


def _busiest(hexes: Sequence[Hex]) -> list[Hex]:
    """``hexes``, or when they do not fit the detail at a readable scale, the most of them a
    window of that scale can hold (a move far away or an arrest across the City does not shrink
    the fight to unreadable counters: the whole map shows the rest)."""
    pts = [_unit_centre(h) for h in hexes]
    hw = VIEW_W / 2 / DETAIL_R_READABLE - SQRT3 * 1.2
    hh = VIEW_H / 2 / DETAIL_R_READABLE - 1.5
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    if max(xs) - min(xs) <= 2 * hw and max(ys) - min(ys) <= 2 * hh:
        return list(hexes)
    best: list[Hex] = []
    for cx, cy in pts:
        inside = [h for h, (x, y) in zip(hexes, pts) if abs(x - cx) <= hw and abs(y - cy) <= hh]
        if len(inside) > len(best):
            best = inside
    return best


def _window(hexes: Sequence[Hex]) -> tuple[float, float, float]:
    """The detail's (ox, oy, r): ``hexes`` and a margin, at the largest scale that fits them."""
    pts = [_unit_centre(h) for h in _busiest(hexes)]
    x0 = min(p[0] for p in pts) - SQRT3 * 1.7
    x1 = max(p[0] for p in pts) + SQRT3 * 1.7
    y0 = min(p[1] for p in pts) - 2.0
    y1 = max(p[1] for p in pts) + 2.0
    r = min(VIEW_W / (x1 - x0), VIEW_H / (y1 - y0))
    r = max(DETAIL_R_MIN, min(DETAIL_R_MAX, r))
    r = round(r * 2) / 2  # a few distinct scales: cached windows get reused
    hw, hh = VIEW_W / 2 / r, VIEW_H / 2 / r
    ux, uy = (x0 + x1) / 2, (y0 + y1) / 2
    ux = min(max(ux, hw - 0.3), UNIT_W - hw + 0.3) if UNIT_W > 2 * hw else UNIT_W / 2
    uy = min(max(uy, hh - 0.3), UNIT_H - hh + 0.3) if UNIT_H > 2 * hh else UNIT_H / 2
    cx, cy = VIEW_X + VIEW_W / 2, VIEW_Y + VIEW_H / 2
    return round(cx - r * ux, 1), round(cy - r * uy, 1), r


def _window_hexes(geo: Geo) -> frozenset[Hex]:
    out = []
    for h in _city().hexes:
        x, y = geo.centre(h)
        if VIEW_X - geo.w <= x <= VIEW_X + VIEW_W + geo.w and VIEW_Y - geo.r * 1.2 <= y <= VIEW_Y + VIEW_H + geo.r * 1.2:
            out.append(h)
    return frozenset(out)


@static_part(maxsize=16)
def _detail_terrain(lang: str, ox: float, oy: float, r: float) -> str:
    geo = Geo(ox, oy, r)
    return _terrain(geo, _window_hexes(geo), lang, detail=True)


def _focus_hexes(view: Mapping[str, Any], units: Sequence[Mapping[str, Any]]) -> list[Hex]:
    focus = [h for h in (_hex(x) for x in _strs(view.get("focus"))) if h is not None]
    if focus:
        return focus
    corteo = [h for h in (_hex(u.get("loc")) for u in units if u.get("in_corteo")) if h is not None]
    if corteo:
        return corteo
    mine = [h for h in (_hex(u.get("loc")) for u in units if u.get("side") == CORTEO) if h is not None]
    if mine:
        return mine
    city = _city()
    return list(city.square(city.start).hexes)


# -- counters -----------------------------------------------------------------------------------------------


class _Counters:
    """All counters of a map, batched: a path per colour, a text run per ink and size."""

    def __init__(self, detail: bool) -> None:
        self.detail = detail
        self.shadow = Path()
        self.faces: dict[tuple[str, str, bool], Path] = {}  # (fill, edge, dashed)
        self.bands: dict[str, Path] = {}
        self.icons: dict[str, Path] = {}
        self.strokes: dict[str, Path] = {}
        self.texts: dict[tuple[str, float], list[tuple[float, float, str]]] = {}
        self.rings = Path()
        self.stars = Path()
        self.badges = Path()
        self.badge_texts: list[tuple[float, float, str]] = []
        self.waiting = Path()

    def add(self, unit: Mapping[str, Any], x: float, y: float, size: float) -> None:
        """A counter with its top-left corner at (x, y)."""
        side = unit.get("side")
        panicked = bool(unit.get("panicked"))
        kind = str(unit.get("kind") or unit.get("type") or "")
        k = size / 40
        rr = 3.5 * k
        if side == POTERE:
            fill, ink = PANICKED if panicked else POWER_COLOURS.get(kind, ("#3a4656", "#ffffff"))
            band, edge = fill, POWER_EDGE
        else:
            colour = _component_colour().get(str(unit.get("component") or ""), "")
            fill, band, edge, ink = COMPONENT_COLOURS.get(colour, UNKNOWN_COLOURS)
        dashed = bool(unit.get("waiting"))
        if self.detail:
            self.shadow.round_rect(x + 1.6 * k, y + 2 * k, size, size, rr)
            self.faces.setdefault((fill, edge, dashed), Path()).round_rect(x, y, size, size, rr)
        else:  # tiny: plain squares, no shadow
            self.faces.setdefault((fill, edge, dashed), Path()).rect(x, y, size, size)
        if band != fill:
            self.bands.setdefault(band, Path()).rect(x + 0.6 * k, y + size * 0.7, size - 1.2 * k, size * 0.3 - 0.8 * k)
        if unit.get("head"):
            ring = 3.5 * k if self.detail else 2.5
            self.rings.round_rect(x - ring, y - ring, size + 2 * ring, size + 2 * ring, rr + ring)
            if self.detail:
                self.stars.polygon(_star(x + size, y, 8.5 * k, 3.6 * k, 5))
        if not self.detail:
            if side == POTERE and unit.get("presidio"):
                self.badges.circle(x + size, y + size, 3.5 * k)
            return
        if unit.get("presidio"):
            self.badges.circle(x + size - 1 * k, y + size - 1 * k, 7 * k)
            self.badge_texts.append((x + size - 1 * k, y + size + 3 * k, "P"))
        uid = str(unit.get("id") or "?")
        fs = (10.5 if len(uid) <= 4 else 9.2) * k
        self.texts.setdefault((ink, round(fs, 2)), []).append((x + size / 2, y + 11 * k, uid))
        if panicked:
            self.texts.setdefault((ink, round(9 * k, 2)), []).append((x + size / 2, y + size - 5 * k, "—"))
            return
        factors = f"{_int(unit.get('speed'))}-{_int(unit.get('power'))}"
        fink = ink if band == fill else COMPONENT_COLOURS["rosso"][3] if band in ("#d62a20",) else "#ffffff"
        self.texts.setdefault((fink, round(11 * k, 2)), []).append((x + size / 2, y + size - 3.6 * k, factors))
        self._icon(kind, side, ink, x + size / 2, y + 19 * k, k)

    def _icon(self, kind: str, side: object, ink: str, mx: float, my: float, k: float) -> None:
        icons = self.icons.setdefault(ink, Path())
        strokes = self.strokes.setdefault(ink, Path())
        n = svg.num
        if kind == "gruppo":  # a leaflet
            icons.rect(mx - 5 * k, my - 5 * k, 10 * k, 8 * k)
        elif kind == "cordone":  # a banner between two poles
            strokes.segment((mx - 8 * k, my - 6 * k), (mx - 8 * k, my + 5 * k))
            strokes.segment((mx + 8 * k, my - 6 * k), (mx + 8 * k, my + 5 * k))
            icons.rect(mx - 8 * k, my - 6 * k, 16 * k, 5.5 * k)
        elif kind == "spezzone":  # a flag
            strokes.segment((mx - 5 * k, my - 6 * k), (mx - 5 * k, my + 6 * k))
            icons.polygon([(mx - 5 * k, my - 6 * k), (mx + 7 * k, my - 3 * k), (mx - 5 * k, my + 0.5 * k)])
        elif kind == "blindati":  # an armoured car
            icons.round_rect(mx - 8 * k, my - 4.5 * k, 16 * k, 6.5 * k, 1.5 * k)
            icons.rect(mx - 3 * k, my - 7.5 * k, 6 * k, 3.5 * k)
            icons.circle(mx - 5 * k, my + 3.5 * k, 2 * k).circle(mx + 5 * k, my + 3.5 * k, 2 * k)
        elif kind == "celere":  # a riot shield
            icons.raw(f"M{n(mx - 5.5 * k)},{n(my - 6 * k)}h{n(11 * k)}v{n(5 * k)}"
                      f"c0,{n(4 * k)} {n(-3 * k)},{n(6 * k)} {n(-5.5 * k)},{n(7 * k)}"
                      f"c{n(-2.5 * k)},{n(-1 * k)} {n(-5.5 * k)},{n(-3 * k)} {n(-5.5 * k)},{n(-7 * k)}z")
        elif kind == "lacrimogeni":  # a gas cloud
            icons.circle(mx - 4 * k, my + 1 * k, 3.6 * k).circle(mx + 1 * k, my - 2.5 * k, 4.2 * k)
            icons.circle(mx + 4.5 * k, my + 1.5 * k, 3.4 * k)
        elif kind == "carabinieri":  # the grenade and its flame
            icons.circle(mx, my + 2.5 * k, 4 * k)
            icons.polygon([(mx - 3 * k, my - 1 * k), (mx, my - 8 * k), (mx + 3 * k, my - 1 * k)])
        elif kind == "piantoni":  # a sentry box
            icons.polygon([(mx - 5 * k, my - 1 * k), (mx, my - 7 * k), (mx + 5 * k, my - 1 * k)])
            icons.rect(mx - 4 * k, my - 1 * k, 8 * k, 7 * k)
        elif kind == "vigili":  # a traffic cone
            icons.polygon([(mx - 5 * k, my + 5 * k), (mx, my - 7 * k), (mx + 5 * k, my + 5 * k)])
        elif kind == "finanza":  # a diamond
            icons.polygon([(mx, my - 6 * k), (mx + 5 * k, my), (mx, my + 6 * k), (mx - 5 * k, my)])

    def svg(self) -> str:
        out = []
        if self.rings:
            out.append(svg.path(self.rings, fill=HEAD_GOLD, stroke=HEAD_EDGE, stroke_width=1))
        out.append(svg.path(self.shadow, fill="#000000", fill_opacity=0.3))
        for (fill, edge, dashed), p in self.faces.items():
            out.append(svg.path(p, fill=fill, stroke=edge, stroke_width=1.3 if self.detail else 0.9,
                                fill_opacity=0.6 if dashed else None,
                                stroke_dasharray="4 2.5" if dashed else None))
        for band, p in self.bands.items():
            out.append(svg.path(p, fill=band))
        for ink, p in self.icons.items():
            out.append(svg.path(p, fill=ink))
        for ink, p in self.strokes.items():
            out.append(svg.path(p, fill="none", stroke=ink, stroke_width=1.7, stroke_linecap="round"))
        for (ink, fs), labels in self.texts.items():
            out.append(svg.text_run(labels, font_size=fs, bold=True, fill=ink))
        out.append(svg.path(self.stars, fill=HEAD_GOLD, stroke=HEAD_EDGE, stroke_width=1))
        out.append(svg.path(self.badges, fill=HEAD_GOLD, stroke="#3b2f00", stroke_width=0.8))
        out.append(svg.text_run(self.badge_texts, font_size=9, bold=True, fill="#3b2f00"))
        return "".join(out)


def _star(cx: float, cy: float, r_out: float, r_in: float, points: int) -> list[Point]:
    pts = []
    for i in range(points * 2):
        rad = r_out if i % 2 == 0 else r_in
        a = math.pi * i / points
        pts.append((cx + math.sin(a) * rad, cy - math.cos(a) * rad))
    return pts


# -- pieces -----------------------------------------------------------------------------------------------


class _Pieces:
    """Barricades, jams, smoke, covers and held rings, batched."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.bar, self.stripes, self.legs = Path(), Path(), Path()
        self.cars: dict[str, Path] = {}
        self.clouds = Path()
        self.covers = Path()
        self.cover_texts: list[tuple[float, float, str, float]] = []
        self.rings = Path()

    def barricade(self, x: float, y: float, r: float) -> None:
        w, h = 1.5 * r, 0.42 * r
        self.legs.segment((x - 0.5 * r, y), (x - 0.7 * r, y + 0.5 * r)).segment((x - 0.5 * r, y),
                                                                                 (x - 0.3 * r, y + 0.5 * r))
        self.legs.segment((x + 0.5 * r, y), (x + 0.3 * r, y + 0.5 * r)).segment((x + 0.5 * r, y),
                                                                                 (x + 0.7 * r, y + 0.5 * r))
        self.bar.rect(x - w / 2, y - h / 2, w, h)
        step = w / 5
        for i in range(5):
            sx = x - w / 2 + i * step
            self.stripes.polygon([(sx, y + h / 2), (sx + step / 2, y + h / 2), (sx + step, y - h / 2),
                                  (sx + step / 2, y - h / 2)])

    def jam(self, x: float, y: float, r: float) -> None:
        for i, colour in enumerate(("#d62a20", "#1f6fb2", "#e0a800", "#2d8a3e")):
            cx = x - 0.66 * r + i * 0.44 * r
            cy = y - 0.3 * r + (i % 2) * 0.5 * r
            self.cars.setdefault(colour, Path()).round_rect(cx - 0.28 * r, cy - 0.17 * r, 0.56 * r, 0.34 * r,
                                                            0.08 * r)

    def smoke(self, x: float, y: float, r: float) -> None:
        for dx, dy, rr in ((-0.38, 0.12, 0.38), (0.0, -0.18, 0.46), (0.4, 0.1, 0.38), (0.05, 0.3, 0.34)):
            self.clouds.circle(x + dx * r, y + dy * r, rr * r)

    def cover(self, geo: Geo, h: Hex, value: str) -> None:
        self.covers.polygon(geo.corners(h, 0.86))
        cx, cy = geo.centre(h)
        self.cover_texts.append((cx, cy + geo.r * 0.28, value, geo.r * 0.8))

    def held(self, geo: Geo, h: Hex) -> None:
        self.rings.polygon(geo.corners(h, 0.9))

    def svg(self) -> str:
        out = [svg.path(self.covers, fill=COVER, stroke=COVER_EDGE, stroke_width=1.2)]
        by_size: dict[float, list[tuple[float, float, str]]] = {}
        for x, y, value, fs in self.cover_texts:
            by_size.setdefault(round(fs, 1), []).append((x, y, value))
        for fs, labels in by_size.items():
            out.append(svg.text_run(labels, font_size=fs, bold=True, fill="#f6e7c8"))
        out.append(svg.path(self.rings, fill="none", stroke=HELD, stroke_width=2.6 * self.scale,
                            stroke_dasharray=f"{svg.num(5 * self.scale)} {svg.num(2.5 * self.scale)}"))
        out.append(svg.path(self.clouds, fill=SMOKE, fill_opacity=0.92, stroke=SMOKE_EDGE, stroke_width=1))
        out.append(svg.path(self.legs, fill="none", stroke=BARRICADE_DARK, stroke_width=1.6 * self.scale,
                            stroke_linecap="round"))
        out.append(svg.path(self.bar, fill=BARRICADE_LIGHT, stroke=BARRICADE_DARK, stroke_width=1.2))
        out.append(svg.path(self.stripes, fill=BARRICADE_DARK))
        for colour, p in self.cars.items():
            out.append(svg.path(p, fill=colour, stroke="#1a1a1a", stroke_width=0.9))
        return "".join(out)


# -- one map (whole or detail) ---------------------------------------------------------------------------


def _stack_offsets(count: int, r: float) -> tuple[list[Point], float]:
    """Centres of ``count`` counters in a hex and their size (in units of ``r``): one in the
    middle; two side by side, a little staggered like a stack, both readable (C 9)."""
    if count <= 1:
        return [(0.0, 0.0)], 0.84
    if count == 2:
        return [(-0.37 * r, -0.1 * r), (0.37 * r, 0.1 * r)], 0.76
    step = 0.74 * r / (count - 1)
    return [(-0.37 * r + i * step, -0.1 * r + i * 0.2 * r / (count - 1)) for i in range(count)], 0.7


def _draw_units(geo: Geo, units: Sequence[Mapping[str, Any]], detail: bool, only: frozenset[Hex] | None) -> str:
    by_hex: dict[Hex, list[Mapping[str, Any]]] = {}
    for u in units:
        h = _hex(u.get("loc"))
        if h is None or (only is not None and h not in only):
            continue
        by_hex.setdefault(h, []).append(u)
    city = _city()
    links = Path()
    corteo_hexes = {h for h, us in by_hex.items() if any(u.get("in_corteo") for u in us)}
    for h in corteo_hexes:
        for d in ("E", "SE", "SW"):
            n = h.step(d)
            if n in corteo_hexes and not city.wall_between(h, n):
                links.segment(geo.centre(h), geo.centre(n))
    counters = _Counters(detail)
    for h, here in sorted(by_hex.items()):
        here.sort(key=lambda u: (not u.get("head"), str(u.get("id"))))
        cx, cy = geo.centre(h)
        offsets, scale = _stack_offsets(len(here), geo.r)
        size = geo.r * scale
        for u, (dx, dy) in zip(here, offsets):
            counters.add(u, cx + dx - size / 2, cy + dy - size / 2, size)
    out = []
    if links:
        out.append(svg.path(links, fill="none", stroke=LINK_RED, stroke_width=geo.r * 0.42, stroke_opacity=0.45,
                            stroke_linecap="round"))
    out.append(counters.svg())
    return "".join(out)


def _draw_pieces(geo: Geo, view: Mapping[str, Any], only: frozenset[Hex] | None, scale: float) -> str:
    city = _city()
    pieces = _Pieces(scale)

    def ok(h: Hex | None) -> bool:
        return h is not None and (only is None or h in only)

    for label in _strs(view.get("covered")):
        h = _hex(label)
        if ok(h):
            assert h is not None
            o = city.objective_at(h)
            pieces.cover(geo, h, str(o.value) if o else "")
    for label in _strs(view.get("held")):
        h = _hex(label)
        if ok(h):
            assert h is not None
            pieces.held(geo, h)
    for b in _dicts(view.get("barricades")):
        h = _hex(b.get("hex"))
        if ok(h):
            assert h is not None
            pieces.barricade(*geo.centre(h), geo.r)
    for label in _strs(view.get("jams")):
        h = _hex(label)
        if ok(h):
            assert h is not None
            pieces.jam(*geo.centre(h), geo.r)
    for s in _dicts(view.get("smoke")):
        h = _hex(s.get("hex"))
        if ok(h):
            assert h is not None
            pieces.smoke(*geo.centre(h), geo.r)
    return pieces.svg()


def _hatch(geo: Geo, hexes: Iterable[Hex], slope: float, path: Path) -> None:
    """Parallel strokes at ``slope`` (+1 or -1: 45 degrees one way or the other) inside each hex."""
    r = geo.r
    ri = r * 0.8
    gap = max(4.0, r * 0.26)
    for h in hexes:
        cx, cy = geo.centre(h)
        k = -int(ri // gap)
        while k * gap < ri:
            d = k * gap
            half = math.sqrt(max(0.0, ri * ri - d * d))
            # direction (1, slope)/sqrt2, offset perpendicular (-slope, 1)/sqrt2
            ux, uy = 1 / SQRT2, slope / SQRT2
            px, py = -slope / SQRT2, 1 / SQRT2
            ox, oy = cx + px * d, cy + py * d
            path.segment((ox - ux * half, oy - uy * half), (ox + ux * half, oy + uy * half))
            k += 1


def _draw_zoc(geo: Geo, view: Mapping[str, Any], only: frozenset[Hex] | None) -> str:
    """ZOCs (C 2) on request: the corteo's hatched one way, the power's the other."""
    if not view.get("show_zoc"):
        return ""
    zoc = view.get("zoc") if isinstance(view.get("zoc"), dict) else {}
    assert isinstance(zoc, dict)
    out = []
    for side, slope in ((CORTEO, -1.0), (POTERE, 1.0)):
        hexes = [h for h in (_hex(x) for x in _strs(zoc.get(side))) if h is not None and (only is None or h in only)]
        hatch = Path()
        _hatch(geo, hexes, slope, hatch)
        out.append(svg.path(hatch, fill="none", stroke=SIDE_INK[side], stroke_width=max(1.2, geo.r * 0.06),
                            stroke_opacity=0.7))
    return "".join(out)


class _Record:
    """The marks of the record: moves, throws, fights, arrests."""

    def __init__(self, geo: Geo, view: Mapping[str, Any], detail: bool, arrested: str = "{unit}") -> None:
        self.geo = geo
        self.arrested = arrested
        self.detail = detail
        self.units = {str(u.get("id")): u for u in _dicts(view.get("units"))}
        self.view = view
        k = 1.0 if detail else 0.5
        self.k = k
        self.casing = Path()
        self.lines: dict[tuple[str, str], Path] = {}
        self.heads: dict[str, Path] = {}
        self.labels: list[tuple[float, float, str]] = []
        self.results: list[tuple[float, float, str]] = []
        self.bursts = Path()
        self.plates = Path()

    def side(self, uid: str) -> str:
        u = self.units.get(uid)
        if u is not None and u.get("side") in (CORTEO, POTERE):
            return str(u["side"])
        code = uid.rstrip("0123456789")
        return POTERE if code in ("BL", "CE", "LA", "CA", "PI", "VI", "FI") else CORTEO

    def prison_point(self) -> Point:
        hexes = _city().prison_hexes
        pts = [self.geo.centre(h) for h in hexes]
        return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)

    def edge_point(self, start: Point, edge: str) -> Point:
        g = self.geo
        x, y = start
        top, bottom = g.oy, g.oy + UNIT_H * g.r
        left, right = g.ox, g.ox + UNIT_W * g.r
        return {"N": (x, top - 0.6 * g.r), "S": (x, bottom + 0.6 * g.r), "W": (left - 0.6 * g.r, y),
                "E": (right + 0.6 * g.r, y)}.get(edge, (x, top))

    def step(self, step: Mapping[str, Any]) -> None:
        uid = str(step.get("unit") or "")
        kind = str(step.get("kind") or "move")
        side = self.side(uid)
        path = _strs(step.get("path"))
        pts: list[Point] = [self.geo.centre(h) for h in (_hex(x) for x in path) if h is not None]
        last = path[-1] if path else ""
        if kind == "arrest" or last == "prison":
            if pts:
                self._arrow(side, "arrest", [pts[0], self.prison_point()], uid)
            return
        if last.startswith("off:") and pts:
            self._arrow(side, "offmap", [*pts, self.edge_point(pts[-1], last[4:5])], uid)
            return
        if len(pts) < 2:
            return
        self._arrow(side, kind, pts, uid)

    def _arrow(self, side: str, kind: str, pts: list[Point], uid: str) -> None:
        g, k = self.geo, self.k
        if kind == "metro" and len(pts) >= 2:  # a hop: a curve from station to station
            a, b = pts[0], pts[-1]
            mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - max(g.r, math.hypot(b[0] - a[0], b[1] - a[1]) * 0.25)
            curve = [a]
            for i in range(1, 13):
                t = i / 12
                curve.append(((1 - t) ** 2 * a[0] + 2 * (1 - t) * t * mx + t * t * b[0],
                              (1 - t) ** 2 * a[1] + 2 * (1 - t) * t * my + t * t * b[1]))
            pts = curve
        first = svg.shorten(pts[0], pts[1], g.r * 0.25, 0)[0]
        end = svg.shorten(pts[-2], pts[-1], 0, g.r * 0.3)[1] if kind not in ("arrest", "offmap") else pts[-1]
        run = [first, *pts[1:-1], end]
        head_len = 12 * k + 2
        body = run[:-1] + [svg.shorten(run[-2], run[-1], 0, head_len * 0.7)[1]]
        ink = "#2b2a27" if kind == "arrest" else side
        self.casing.polyline(run)
        style = {"retreat": "retreat", "panic": "panic", "metro": "metro", "arrest": "arrest", "offmap": "retreat"}
        self.lines.setdefault((ink, style.get(kind, "move")), Path()).polyline(body)
        self.heads.setdefault(ink, Path()).polygon(svg.arrowhead(end, run[-2], head_len, head_len * 0.9))
        if self.detail and kind == "arrest":
            self.labels.append((pts[0][0], pts[0][1] + g.r * 0.95, self.arrested.format(unit=uid)))

    def throw(self, t: Mapping[str, Any]) -> None:
        origin, hit, target = _hex(t.get("origin")), _hex(t.get("hit")), _hex(t.get("target"))
        if origin is None or hit is None:
            return
        units = _strs(t.get("units"))
        side = self.side(units[0]) if units else CORTEO
        a, b = self.geo.centre(origin), self.geo.centre(hit)
        a2, b2 = svg.shorten(a, b, self.geo.r * 0.3, self.geo.r * 0.15)
        self.lines.setdefault((side, "throw"), Path()).segment(a2, b2)
        self.bursts.polygon(_star(b[0], b[1] - self.geo.r * 0.1, self.geo.r * 0.3, self.geo.r * 0.14, 7))
        if target is not None and target != hit:
            c = self.geo.centre(target)
            self.lines.setdefault((side, "throw"), Path()).segment(b, c)
        if self.detail:
            label = str(t.get("result") or "?")
            if t.get("short"):
                label += " ↓"
            self._plate(b[0], b[1] - self.geo.r * 0.55, label)

    def fight(self, f: Mapping[str, Any], before: Mapping[str, str]) -> None:
        att = self._where(_strs(f.get("attackers")), before)
        dfn = self._where(_strs(f.get("defenders")), before)
        if not att or not dfn:
            return
        ax = sum(p[0] for p in att) / len(att)
        ay = sum(p[1] for p in att) / len(att)
        dx = sum(p[0] for p in dfn) / len(dfn)
        dy = sum(p[1] for p in dfn) / len(dfn)
        mx, my = (ax + dx) / 2, (ay + dy) / 2
        if (mx, my) == (ax, ay):
            my -= self.geo.r * 0.5
        self.bursts.polygon(_star(mx, my, self.geo.r * (0.42 if self.detail else 0.55), self.geo.r * 0.2, 8))
        if self.detail:
            self._plate(mx, my + self.geo.r * 0.5, str(f.get("result") or "?"))

    def _plate(self, x: float, y: float, label: str) -> None:
        fs = 12.0
        w = svg.text_width(label, fs, bold=True) + 10
        self.plates.round_rect(x - w / 2, y - 9, w, 18, 4)
        self.results.append((x, y + 4.5, label))

    def _where(self, uids: Sequence[str], before: Mapping[str, str]) -> list[Point]:
        out = []
        for uid in uids:
            loc = before.get(uid) or str((self.units.get(uid) or {}).get("loc") or "")
            h = _hex(loc)
            if h is not None:
                out.append(self.geo.centre(h))
        return out

    def svg(self) -> str:
        return self.under() + self.over()

    def under(self) -> str:
        """The arrows and lines (drawn under the detail's counters, so they never hide an id)."""
        k = self.k
        out = []
        if self.casing:
            out.append(svg.path(self.casing, fill="none", stroke="#ffffff", stroke_width=7 * k + 1.5,
                                stroke_opacity=0.8, stroke_linejoin="round", stroke_linecap="round"))
        dashes = {"move": None, "retreat": f"{svg.num(8 * k + 2)} {svg.num(4 * k + 1)}",
                  "panic": f"{svg.num(2 * k + 1)} {svg.num(3 * k + 1.5)}", "metro": f"{svg.num(10 * k + 2)} {svg.num(5 * k + 1)}",
                  "arrest": f"{svg.num(3 * k + 2)} {svg.num(3 * k + 2)}", "throw": f"{svg.num(6 * k + 2)} {svg.num(4 * k + 1.5)}"}
        for (ink, style), p in self.lines.items():
            colour = SIDE_INK.get(ink, ink)
            out.append(svg.path(p, fill="none", stroke=colour, stroke_width=(3.6 if style != "throw" else 2.6) * k + 0.6,
                                stroke_linejoin="round", stroke_linecap="round" if style == "panic" else None,
                                stroke_dasharray=dashes.get(style)))
        for ink, p in self.heads.items():
            out.append(svg.path(p, fill=SIDE_INK.get(ink, ink), stroke="#ffffff", stroke_width=1))
        return "".join(out)

    def over(self) -> str:
        """Bursts, results and notes (on top)."""
        out = []
        out.append(svg.path(self.bursts, fill=FIGHT, stroke="#ffffff", stroke_width=1.2, fill_opacity=0.92))
        out.append(svg.path(self.plates, fill="#ffffff", stroke=FIGHT, stroke_width=1.6))
        out.append(svg.text_run(self.results, font_size=12, bold=True, fill=FIGHT))
        out.append(svg.text_run(self.labels, font_size=10.5, bold=True, fill=theme.INK, halo=theme.HALO))
        return "".join(out)


def _draw_record(geo: Geo, view: Mapping[str, Any], detail: bool, arrested: str = "{unit}") -> _Record:
    rec = _Record(geo, view, detail, arrested)
    for entry in _dicts(view.get("log")):
        before: dict[str, str] = {}
        for s in _dicts(entry.get("steps")):
            uid = str(s.get("unit") or "")
            path = _strs(s.get("path"))
            if path and str(s.get("kind")) in ("retreat", "panic", "arrest", "offmap", "barracks", "advance"):
                before.setdefault(uid, path[0])
            rec.step(s)
        for t in _dicts(entry.get("throws")):
            rec.throw(t)
        for f in _dicts(entry.get("fights")):
            rec.fight(f, before)
    return rec


# -- the panel's dynamic parts ------------------------------------------------------------------------------


def _title(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    name = _text(catalog, lang, "map-title")
    out = [svg.text(PAD, 38, name, font_size=theme.TITLE_SIZE + 4, font_weight="bold", fill=theme.INK)]
    x = PAD + svg.text_width(name, theme.TITLE_SIZE + 4, bold=True) + 20
    hand = _int(view.get("hand"))
    parts = [_text(catalog, lang, "map-hand", hand=hand, last=_int(view.get("last_hand"), 10)) if hand
             else _text(catalog, lang, "map-setup")]
    stage = str(view.get("stage") or "")
    if stage:
        parts.append(_maybe(catalog, lang, f"phase-{stage}", stage.replace("-", " ")))
    mode = str(view.get("mode") or "")
    if mode:
        parts.append(_maybe(catalog, lang, f"map-mode-{mode}", mode))
    out.append(svg.text(x, 38, " · ".join(parts), font_size=17, fill=theme.INK))
    viewer = view.get("viewer")
    if viewer in (CORTEO, POTERE):
        out.append(svg.text(WIDTH - PAD, 38, _text(catalog, lang, "map-for",
                                                   side=_text(catalog, lang, f"map-side-{viewer}")),
                            font_size=13, fill=theme.INK_SOFT, text_anchor="end"))
    return "".join(out)


def _detail_title(view: Mapping[str, Any], catalog: Catalog, lang: str, hexes: frozenset[Hex]) -> str:
    key = "map-detail-focus" if _strs(view.get("focus")) else "map-detail-corteo"
    rows = sorted({h.row for h in hexes})
    cols = sorted({h.col for h in hexes})
    span = f"{ROW_LETTERS[rows[0]]}-{ROW_LETTERS[rows[-1]]}, {cols[0] + 1}-{cols[-1] + 1}" if rows else ""
    return (svg.text(DETAIL_X + 12, BAND_Y + 20, _text(catalog, lang, key), font_size=14, font_weight="bold",
                     fill=theme.INK)
            + svg.text(DETAIL_X + DETAIL_W - 12, BAND_Y + 20, span, font_size=12, fill=theme.INK_SOFT,
                       text_anchor="end"))


def _panel(view: Mapping[str, Any], units: Sequence[Mapping[str, Any]], catalog: Catalog, lang: str) -> str:
    out: list[str] = []
    by_id = {str(u.get("id")): u for u in units}
    # Hand track (C 3): the current hand.
    hand = _int(view.get("hand"))
    if 1 <= hand <= 10:
        x, y, w, h = _hand_cell(hand)
        out.append(svg.rect(x, y, w, h, rx=4, fill=CORTEO_INK, stroke="#6e2a00", stroke_width=1.5))
        out.append(svg.text(x + w / 2, y + 23, str(hand), font_size=16, font_weight="bold", fill="#ffffff",
                            text_anchor="middle"))
    # Runs (C 5c) and barricades (C 5d) left.
    runs = max(0, min(5, _int(view.get("runs_left"), 5)))
    rx0 = PANEL_X + 12 + svg.text_width(_text(catalog, lang, "map-runs"), 11.5) + 12
    left_p, used_p = Path(), Path()
    for i in range(5):
        (left_p if i < runs else used_p).circle(rx0 + i * 22, HAND_Y + 82, 8)
    out.append(svg.path(left_p, fill="#1f9a4c", stroke="#0c4a22", stroke_width=1.2))
    out.append(svg.path(used_p, fill="none", stroke="#b4ad9c", stroke_width=1.2, stroke_dasharray="3 2"))
    out.append(svg.text_run([(rx0 + i * 22, HAND_Y + 86, "C") for i in range(runs)], font_size=10, bold=True,
                            fill="#ffffff"))
    note = f"{runs}/5"
    if view.get("running"):
        note += " · " + _text(catalog, lang, "map-running")
    out.append(svg.text(rx0 + 5 * 22, HAND_Y + 86, note, font_size=11.5, font_weight="bold",
                        fill="#1f7a40" if view.get("running") else theme.INK_SOFT))
    bleft = max(0, min(10, _int(view.get("barricades_left"), 10)))
    bx0 = PANEL_X + 12 + svg.text_width(_text(catalog, lang, "map-barricades"), 11.5) + 14
    bars, faded = _Pieces(0.6), Path()
    for i in range(10):
        if i < bleft:
            bars.barricade(bx0 + i * 22, HAND_Y + 106, 11)
        else:
            faded.rect(bx0 + i * 22 - 8, HAND_Y + 103, 16, 5)
    out.append(bars.svg())
    out.append(svg.path(faded, fill="none", stroke="#b4ad9c", stroke_width=1, stroke_dasharray="2 2"))
    out.append(svg.text(bx0 + 10 * 22 - 4, HAND_Y + 110, f"{bleft}/10", font_size=11.5, font_weight="bold",
                        fill=theme.INK_SOFT))
    # Score (C 12, C 14).
    score = view.get("score") if isinstance(view.get("score"), dict) else {}
    assert isinstance(score, dict)
    half = (PANEL_W - 24) / 2
    for i, side in enumerate((CORTEO, POTERE)):
        x = PANEL_X + 12 + i * half
        out.append(svg.text(x, SCORE_Y + 42, _text(catalog, lang, f"map-side-{side}"), font_size=12,
                            fill=SIDE_INK[side], font_weight="bold"))
        out.append(svg.text(x, SCORE_Y + 70, str(_int(score.get(side))), font_size=26, font_weight="bold",
                            fill=SIDE_INK[side]))
        out.append(svg.text(x + 52, SCORE_Y + 70, _text(catalog, lang, f"map-points-{side}"), font_size=10.5,
                            fill=theme.INK_SOFT))
    # The Head (C 10).
    component = view.get("head_component")
    if component:
        colour = _component_colour().get(str(component), "")
        fill, band, edge, _ink = COMPONENT_COLOURS.get(colour, UNKNOWN_COLOURS)
        out.append(svg.rect(PANEL_X + 12, HEAD_Y + 32, 22, 22, rx=3, fill=fill, stroke=edge, stroke_width=1.2))
        if band != fill:
            out.append(svg.rect(PANEL_X + 12.5, HEAD_Y + 47, 21, 6.5, fill=band))
        heads = _strs(view.get("heads"))
        line = f"{component}: " + (", ".join(heads) if heads else _text(catalog, lang, "map-heads-none"))
        out.append(svg.text(PANEL_X + 44, HEAD_Y + 48, line, font_size=13, font_weight="bold", fill=theme.INK))
        n = sum(1 for u in units if u.get("in_corteo"))
        out.append(svg.text(PANEL_X + 44, HEAD_Y + 66, _text(catalog, lang, "map-corteo-size", count=n),
                            font_size=11, fill=theme.INK_SOFT))
        out.append(svg.path(Path().polygon(_star(PANEL_X + PANEL_W - 28, HEAD_Y + 44, 11, 4.6, 5)), fill=HEAD_GOLD,
                            stroke=HEAD_EDGE, stroke_width=1))
    else:
        out.append(svg.text(PANEL_X + 12, HEAD_Y + 48, _text(catalog, lang, "map-head-none"), font_size=12,
                            font_style="italic", fill=theme.INK_SOFT))
    # The prison (C 8f).
    prison = [by_id[u] for u in _strs(view.get("prison")) if u in by_id]
    if prison:
        counters = _Counters(detail=True)
        per_row = int((PANEL_W - 24) // 34)
        shown = prison[: per_row * 3 - (1 if len(prison) > per_row * 3 else 0)]
        for i, u in enumerate(shown):
            row, col = divmod(i, per_row)
            counters.add(u, PANEL_X + 12 + col * 34, PRISON_Y + 30 + row * 36, 30)
        out.append(counters.svg())
        if len(shown) < len(prison):
            out.append(svg.text(PANEL_X + PANEL_W - 14, PRISON_Y + 30 + 2 * 36 + 20, f"+{len(prison) - len(shown)}",
                                font_size=13, font_weight="bold", fill=theme.INK, text_anchor="end"))
        power = sum(_int(u.get("power")) for u in prison)
        out.append(svg.text(PANEL_X + PANEL_W - 12, PRISON_Y + 20, _text(catalog, lang, "map-prison-count",
                                                                           count=len(prison), power=power),
                            font_size=11, fill=theme.INK_SOFT, text_anchor="end"))
    else:
        out.append(svg.text(PANEL_X + 12, PRISON_Y + 46, _text(catalog, lang, "map-nobody"), font_size=12,
                            font_style="italic", fill=theme.INK_SOFT))
    # Off the map (C 8h).
    off = [(u, u["off"]) for u in units if isinstance(u.get("off"), dict)]
    if off:
        lines = []
        for u, o in off:
            lines.append(_text(catalog, lang, "map-off-line", unit=str(u.get("id")), edge=str(o.get("edge")),
                               part=_int(o.get("part")), back=_int(o.get("back"))))
        text = " · ".join(lines)
        wrapped = _wrap(text, 11.5, PANEL_W - 24)
        if len(wrapped) > 6:
            wrapped = wrapped[:5] + ["…"]
        out.append(svg.text_run([(PANEL_X + 12, OFF_Y + 42 + i * 16, t) for i, t in enumerate(wrapped)],
                                font_size=11.5, anchor="start", fill=theme.INK))
    else:
        out.append(svg.text(PANEL_X + 12, OFF_Y + 46, _text(catalog, lang, "map-nobody"), font_size=12,
                            font_style="italic", fill=theme.INK_SOFT))
    # The power's reserve (C 3a, 6c).
    reserve = _strs(view.get("reserve"))
    counts: dict[str, int] = {}
    for uid in reserve:
        u = by_id.get(uid) or {}
        if u.get("side") == CORTEO:
            continue
        kind = str(u.get("kind") or uid.rstrip("0123456789"))
        counts[kind] = counts.get(kind, 0) + 1
    total = sum(counts.values())
    out.append(svg.text(PANEL_X + PANEL_W - 12, RESERVE_Y + 20, _text(catalog, lang, "map-reserve-count", count=total),
                        font_size=12, font_weight="bold", fill=POTERE_INK, text_anchor="end"))
    counters = _Counters(detail=True)
    labels: list[tuple[float, float, str]] = []
    x = PANEL_X + 12
    for kind in POWER_TYPES:
        count = counts.get(kind, 0)
        if not count:
            continue
        sample = next(by_id[u] for u in reserve if (by_id.get(u) or {}).get("kind") == kind)
        counters.add({**sample, "head": False, "presidio": False, "panicked": False, "waiting": False}, x,
                     RESERVE_Y + 30, 30)
        labels.append((x + 34, RESERVE_Y + 50, f"×{count}"))
        x += 70
    out.append(counters.svg())
    out.append(svg.text_run(labels, font_size=12, bold=True, anchor="start", fill=theme.INK))
    return "".join(out)


def _outcome(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    outcome = view.get("outcome")
    if not isinstance(outcome, dict):
        return ""
    level = str(outcome.get("level") or "")
    head = _text(catalog, lang, "map-outcome")
    line = _maybe(catalog, lang, f"map-level-{level}", level)
    score = _text(catalog, lang, "map-outcome-score", corteo=_int(outcome.get("corteo")),
                  potere=_int(outcome.get("potere")), final=_int(outcome.get("final")))
    w = max(svg.text_width(score, 15), svg.text_width(line, 20, bold=True), svg.text_width(head, 24, bold=True)) + 60
    x = MAP_X + (MAP_W - w) / 2
    y = MAP_Y + MAP_H / 2 - 70
    return (svg.rect(x, y, w, 132, rx=10, fill="#ffffff", fill_opacity=0.95, stroke=CORTEO_INK, stroke_width=4)
            + svg.text(x + w / 2, y + 38, head, font_size=24, font_weight="bold", fill=CORTEO_INK, text_anchor="middle")
            + svg.text(x + w / 2, y + 72, line, font_size=20, font_weight="bold", fill=theme.INK, text_anchor="middle")
            + svg.text(x + w / 2, y + 106, score, font_size=15, fill=theme.INK_SOFT, text_anchor="middle"))


# -- the document ---------------------------------------------------------------------------------------------


def render_svg(view: Mapping[str, Any], catalog: Catalog | None = None, *, lang: str | None = None) -> str:
    """The map of a Corteo view as a complete SVG document (texts in ``lang``, else the view's
    ``lang``, else English)."""
    catalog = catalog.merged(_render_texts()) if catalog is not None else _catalog()
    code = normalise_language(lang or str(view.get("lang") or "en"))
    units = _dicts(view.get("units"))

    canvas = svg.Canvas(WIDTH, HEIGHT, layers=("city", "ground", "whole", "detail", "panel", "title"),
                        static=("city",), title=_text(catalog, code, "map-title"))
    canvas.defs(svg.element("clipPath", svg.rect(VIEW_X, VIEW_Y, VIEW_W, VIEW_H), id="detail-clip"))
    canvas.add(_static_city(code), layer="city")

    # The detail's window.
    ox, oy, r = _window(_focus_hexes(view, units))
    dgeo = Geo(ox, oy, r)
    window = _window_hexes(dgeo)

    # The whole map.
    whole = [_draw_zoc(WHOLE, view, None), _draw_pieces(WHOLE, view, None, 0.5), _draw_units(WHOLE, units, False, None),
             _draw_record(WHOLE, view, False).svg()]
    # The detail's frame on the whole map.
    x0 = (VIEW_X - ox) / r * R + MAP_X
    y0 = (VIEW_Y - oy) / r * R + MAP_Y
    fw, fh = VIEW_W / r * R, VIEW_H / r * R
    fx0, fy0 = max(MAP_X - 2, x0), max(MAP_Y - 2, y0)
    fx1, fy1 = min(MAP_X + MAP_W + 2, x0 + fw), min(MAP_Y + MAP_H + 2, y0 + fh)
    whole.append(svg.rect(fx0, fy0, fx1 - fx0, fy1 - fy0, fill="none", stroke="#ffffff", stroke_width=5,
                          stroke_opacity=0.8))
    whole.append(svg.rect(fx0, fy0, fx1 - fx0, fy1 - fy0, fill="none", stroke=DETAIL_FRAME, stroke_width=2.2,
                          stroke_dasharray="9 5"))
    whole.append(_outcome(view, catalog, code))
    canvas.add(*whole, layer="whole")

    # The detail.
    # Its terrain is a static block of its own (not merged with the City's, so the City's pixels
    # stay one cache entry): the rasteriser draws it once per window and width, and the maps of
    # one phase (each seat's, the archive's) share it.
    canvas.add(svg.static_block(svg.group([_detail_terrain(code, ox, oy, r)], clip_path="url(#detail-clip)")),
               layer="ground")
    record = _draw_record(dgeo, view, True, _text(catalog, code, "map-arrested").replace("[unit]", "{unit}"))
    body = [_draw_zoc(dgeo, view, window), _draw_pieces(dgeo, view, window, 1.0), record.under(),
            _draw_units(dgeo, units, True, window), record.over()]
    canvas.add(svg.group(body, clip_path="url(#detail-clip)"), layer="detail")
    canvas.add(svg.rect(VIEW_X, VIEW_Y, VIEW_W, VIEW_H, fill="none", stroke=DETAIL_FRAME, stroke_width=2,
                        stroke_dasharray="9 5"), layer="detail")
    canvas.add(_detail_title(view, catalog, code, window), layer="detail")

    canvas.add(_panel(view, units, catalog, code), layer="panel")
    canvas.add(_title(view, catalog, code), layer="title")
    return canvas.to_svg()


def whole_map_point(label: str) -> Point:
    """The centre of hex ``label`` on the whole map (user units), for tests and tools."""
    h = _city().hex(label)
    return WHOLE.centre(h)


def detail_geometry(view: Mapping[str, Any]) -> tuple[Geo, frozenset[Hex]]:
    """The detail's geometry and the hexes it shows for ``view`` (what :func:`render_svg` draws)."""
    ox, oy, r = _window(_focus_hexes(view, _dicts(view.get("units"))))
    geo = Geo(ox, oy, r)
    return geo, _window_hexes(geo)


__all__ = ["render_svg", "whole_map_point", "detail_geometry", "Geo", "WIDTH", "HEIGHT"]
