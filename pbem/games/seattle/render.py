"""The map of The Battle of Seattle: one view as an SVG document.

:func:`render_svg` reads only the view (plain JSON data from
:func:`pbem.games.seattle.view.build_view`) and returns a complete SVG;
:func:`pbem.render.raster.svg_to_png` turns it into the PNG of the turn mail.

Layout (user units; the document is :data:`WIDTH` x :data:`HEIGHT`, portrait):

- a title bar: the game, the turn and its date and period, the phase;
- on the left the 11" x 17" sheet (:data:`SCALE` units per tenth of an inch, the areas at
  their ``pos``): downtown Seattle with Elliott Bay and the piers on the West, Lake Union to
  the North of South Lake Union, I-5 between the core and First Hill / Capitol Hill, a faint
  street grid - the downtown core's tilted 32 degrees like Seattle's, North-South elsewhere -;
  the transit lines, the core areas as hexagons shaded by their exposure value (the value in a
  badge on the border), the outer areas as circles, names in the view's language (2.2); the
  Reserve Pool printed on the sheet, in the North-East corner, with its counters (4.2);
- on the right a panel: the turn track as a calendar (a row per day, a column per period,
  night shaded, the current turn ringed, WSP/NGMP waiting on their turn of arrival, 3.0,
  4.22), the Visibility Index track of both sides with the reinforcement bands and their
  reaction limits (2.3, 4.21, 5.1), the escalation phase (7.3), the event of the turn (4.1),
  the combats and barricade attempts since the last orders (6.0, 7.2), the counters by type
  and place (map, Reserve Pool, track, pile, away, out), and the legend.

Counters (2.1) are squares in their faction's colour (Anarchists white with a black border,
Antagonists red, Organised Labour orange, Progressives pink, Environmentalists green,
Opportunists yellow, the Authorities blue) with the id on top and combat-morale-move below;
the middle shows what a counter is, so colour is never the only cue: a flag for a Group, a
row of heads for a Crowd, a shield for SPD, a star for WSP, chevrons for NGMP. A stack is a
small grid (Demonstrators first, the Authorities on a new row) below the area's name.
Barricades are striped bars on the area's left vertex (7.2); areas holding both sides get a
dashed red ring. A night turn darkens the sheet.

The turn's marks come from ``view["log"]``: moves as arrows from area to area in the side's
colour (reactions dashed; several counters on the same path share one arrow, labelled with their
ids or their count), counters arriving from a box (the piles, the Reserve Pool) or leaving for one
as "+N"/"-N" badges in the side's colour, each combat as a card under its area ("attacker's result
/ defender's result"), each barricade attempt as the die and a tick or a cross; the panel lists
the combats with totals and dice.

Speed (``design/performance.md``): everything that does not change between turns (paper,
water, streets, I-5, lines, areas, names, badges, the panel's frames, the tracks' scales and
the legend) is one static part built once per process and language (:func:`_static_sheet`,
keyed by the view's areas and turns) and written first, so the rasteriser draws it once per
width. The dynamic part is batched: one path per counter colour, one text run per ink for
all ids and factors, one path per arrow style: a mid-game map is about 200 elements, 75 of
them dynamic. Render + rasterise at 1600 px takes ~70-90 ms on the 2-core server once the sheet
is cached (~220-240 ms for the first map of a language and width; ``benchmarks/render_seattle.py``);
the street grid's edges make the PNG (~300 KiB) and its encoding a little heavier than Kriegspiel's.
"""

from __future__ import annotations

import datetime
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from pbem.core.i18n import Catalog, msg, normalise_language
from pbem.render import svg, theme
from pbem.render.cache import static_part
from pbem.render.svg import wrap as _wrap
from pbem.render.viewdata import as_int as _int, as_dicts as _dicts, as_strs as _strs
from pbem.render.svg import Path, Point

# -- geometry ---------------------------------------------------------------------------------

SHEET_W: Final = 110  # tenths of an inch (map.toml [sheet])
SHEET_H: Final = 170
SCALE: Final = 10.0  # user units per tenth of an inch
PAD: Final = 14.0
TITLE_H: Final = 62.0
MAP_X: Final = PAD
MAP_Y: Final = TITLE_H
MAP_W: Final = SHEET_W * SCALE
MAP_H: Final = SHEET_H * SCALE
PANEL_X: Final = MAP_X + MAP_W + 14.0
PANEL_W: Final = 430.0
WIDTH: Final = PANEL_X + PANEL_W + PAD
HEIGHT: Final = MAP_Y + MAP_H + PAD

HEX_R: Final = 66.0  # circumradius of a core hexagon (flat top)
HEX_H: Final = HEX_R * math.sqrt(3) / 2  # centre to the flat top
CIRCLE_R: Final = 50.0
COUNTER: Final = 40.0  # side of a counter
PITCH: Final = 44.0  # counter spacing in a stack
STACK_TOP: Final = -44.0  # a stack's top edge, from the area's centre
BADGE_R: Final = 13.0

#: The Reserve Pool printed on the sheet (tenths of an inch): the empty North-East corner.
POOL: Final = (87.5, 1.5, 108.5, 34.0)
POOL_COLS: Final = 4

# Panel sections (top y of each).
TRACK_Y: Final = MAP_Y
VIS_Y: Final = MAP_Y + 300.0
ESC_Y: Final = VIS_Y + 168.0
EVENT_Y: Final = ESC_Y + 118.0
LOG_Y: Final = EVENT_Y + 168.0
OFF_Y: Final = LOG_Y + 166.0
LEGEND_Y: Final = OFF_Y + 250.0

# -- colours -----------------------------------------------------------------------------------

LAND: Final = "#efeade"
STREET: Final = "#fbf9f4"
WATER: Final = "#b7d4ea"
WATER_EDGE: Final = "#7fa9c9"
WATER_INK: Final = "#3f6f94"
FREEWAY: Final = "#f3d9a4"
FREEWAY_EDGE: Final = "#c39a55"
LINK: Final = "#6d6455"
LINK_INNER: Final = "#e9e2d2"
CORE_FILL: Final = {1: "#fbf4de", 2: "#f6e5b8", 3: "#f0d28a"}
CORE_EDGE: Final = "#5b5040"
CIRCLE_FILL: Final = "#e3ebe6"
CIRCLE_EDGE: Final = "#5e6a62"
BADGE: Final = "#6f5314"
NIGHT: Final = "#102a5c"
NIGHT_CELL: Final = "#2d3e5c"
DAY_CELL: Final = "#fbf6e6"
CONTESTED: Final = "#b8321a"
DEM_ARROW: Final = "#b8321a"
AUTH_ARROW: Final = "#0b5fa5"
BARRICADE_DARK: Final = "#2b2a27"
BARRICADE_LIGHT: Final = "#f0b429"
OK_INK: Final = "#00704f"
FAIL_INK: Final = "#b8321a"

DEM: Final = "demonstrators"
AUTH: Final = "authorities"
SIDE_INK: Final = {DEM: DEM_ARROW, AUTH: AUTH_ARROW}

#: Counter colours by the unit colour of tables.toml: (fill, border, ink).
COUNTER_COLOURS: Final[dict[str, tuple[str, str, str]]] = {
    "white-black": ("#ffffff", "#111111", "#111111"),
    "red": ("#c62828", "#6d1010", "#ffffff"),
    "orange": ("#e69f00", "#7a5200", "#1f1a10"),
    "pink": ("#f5a9cb", "#a0507a", "#2a1520"),
    "green": ("#009e73", "#00503a", "#ffffff"),
    "yellow": ("#f0e442", "#7d7500", "#1f1a10"),
    "blue": ("#0b5fa5", "#052f55", "#ffffff"),
}
UNKNOWN_COLOURS: Final = ("#d9d4c7", "#6b675e", "#2b2a27")

#: A unit type as the view gives it: (type key, code, colour, kind, side), in the view's order.
UnitKey = tuple[str, str, str, str, str]
#: A band of the reinforcement table (4.21) as the view gives it: (first value, reaction moves).
BandKey = tuple[int, int]
VIS_MAX: Final = 120  # the track's right end; higher values sit at the end, with their number

PERIODS: Final = ("morning", "midday", "afternoon", "night")


def sheet(x: float, y: float) -> Point:
    """A point of the sheet (tenths of an inch) in user units."""
    return MAP_X + x * SCALE, MAP_Y + y * SCALE


def hexagon(cx: float, cy: float, r: float = HEX_R) -> list[Point]:
    """A flat-topped hexagon, from the right vertex clockwise (on screen)."""
    return [(cx + r * math.cos(math.radians(60 * i)), cy + r * math.sin(math.radians(60 * i))) for i in range(6)]


# -- texts ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _render_texts() -> Catalog:
    return Catalog.from_package("pbem.games.seattle.data", "render.toml")


@functools.lru_cache(maxsize=1)
def _catalog() -> Catalog:
    return Catalog.from_package("pbem.games.seattle.data").merged(_render_texts())


def _text(catalog: Catalog, lang: str, key: str, **args: object) -> str:
    return catalog.text(msg(key, **args), lang)


def _area_name(catalog: Catalog, lang: str, area: str) -> str:
    return _text(catalog, lang, f"area-{area}")


def _date(catalog: Catalog, lang: str, iso: object) -> str:
    try:
        day = datetime.date.fromisoformat(str(iso))
    except ValueError:
        return str(iso or "")
    return _text(catalog, lang, "map-date", weekday=_text(catalog, lang, f"map-weekday-{day.weekday()}"),
                 day=day.day, month=_text(catalog, lang, f"map-month-{day.month}"))


# -- the view's areas as hashable data (the static part's key) --------------------------------

AreaKey = tuple[str, str, int, float, float, tuple[str, ...]]  # id, kind, exposure, x, y, links
TurnKey = tuple[int, str, str, bool, bool]  # number, date, period, night, optional


def _area_keys(view: Mapping[str, Any]) -> tuple[AreaKey, ...]:
    out: list[AreaKey] = []
    for a in _dicts(view.get("areas")):
        pos = a.get("pos")
        if not (isinstance(a.get("id"), str) and isinstance(pos, (list, tuple)) and len(pos) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pos)):
            continue
        x = min(max(float(pos[0]), 0.0), SHEET_W)
        y = min(max(float(pos[1]), 0.0), SHEET_H)
        out.append((a["id"], str(a.get("kind") or "circle"), _int(a.get("exposure")), x, y,
                    tuple(_strs(a.get("links")))))
    return tuple(out)


def _turn_keys(view: Mapping[str, Any]) -> tuple[TurnKey, ...]:
    return tuple((_int(t.get("number")), str(t.get("date") or ""), str(t.get("period") or ""),
                  bool(t.get("night")), bool(t.get("optional"))) for t in _dicts(view.get("turns")))


def _centres(areas: Sequence[AreaKey]) -> dict[str, Point]:
    return {a[0]: sheet(a[3], a[4]) for a in areas}


def _pool_rect() -> tuple[float, float, float, float]:
    x0, y0 = sheet(POOL[0], POOL[1])
    x1, y1 = sheet(POOL[2], POOL[3])
    return x0, y0, x1 - x0, y1 - y0


# -- geography (static) ---------------------------------------------------------------------------

#: Elliott Bay: the land's edge from the North-West down to the South (tenths of an inch).
SHORE: Final = ((5, 0), (8.5, 20), (11.5, 40), (13.5, 58), (14.5, 72), (12.5, 86), (11.5, 98), (13, 112),
                (17, 128), (22, 145), (27, 160), (30, 170))
#: Lake Union, its southern tip above South Lake Union.
LAKE: Final = ((52, 0), (55, 4), (60, 7.5), (66, 9.5), (73, 9), (78, 6), (81, 2.5), (82, 0))
#: I-5, North to South, between the core and Capitol Hill / First Hill.
I5: Final = ((77, 0), (81, 22), (87, 44), (96, 60), (97, 74), (88, 94), (83, 114), (85, 134), (90, 152),
             (93, 170))
#: Piers along the waterfront: (y of the pier on the shore, length) - they jut into the bay.
PIERS: Final = ((66, 4.0), (80, 5.0), (86, 5.0), (104, 5.0), (110, 5.0), (117, 4.5), (124, 4.0), (132, 3.5))
#: The downtown grid (tilted like Seattle's) covers this convex region; outside it runs North-South.
DOWNTOWN: Final = ((2, 28), (30, 26), (80, 29), (91, 58), (91, 80), (81, 110), (75, 127), (0, 127))
GRID_TILT: Final = 32.0  # degrees: the downtown avenues run from North-North-West


def _clip(a: Point, b: Point, poly: Sequence[Point]) -> tuple[Point, Point] | None:
    """The part of segment a-b inside the convex polygon ``poly`` (Cyrus-Beck)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = len(poly)
    # Orientation: inside is on the same side of every edge as the polygon's centroid.
    gx = sum(p[0] for p in poly) / n
    gy = sum(p[1] for p in poly) / n
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        ex, ey = q[0] - p[0], q[1] - p[1]
        nx, ny = -ey, ex  # a normal of the edge
        if nx * (gx - p[0]) + ny * (gy - p[1]) < 0:
            nx, ny = -nx, -ny  # point it inside
        num = nx * (a[0] - p[0]) + ny * (a[1] - p[1])
        den = nx * dx + ny * dy
        if den == 0:
            if num < 0:
                return None
            continue
        t = -num / den
        if den > 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return (a[0] + dx * t0, a[1] + dy * t0), (a[0] + dx * t1, a[1] + dy * t1)


def _grid(poly_tenths: Sequence[tuple[float, float]], tilt: float, step: float, path: Path,
          major: Path | None = None, every: int = 0) -> None:
    """Streets every ``step`` units in two perpendicular directions (``tilt`` degrees from North),
    clipped to a convex polygon; every ``every``-th line goes to ``major``."""
    poly = [sheet(x, y) for x, y in poly_tenths]
    gx = sum(p[0] for p in poly) / len(poly)
    gy = sum(p[1] for p in poly) / len(poly)
    reach = MAP_W + MAP_H
    theta = math.radians(tilt)
    for ux, uy in ((-math.sin(theta), -math.cos(theta)), (math.cos(theta), -math.sin(theta))):
        px, py = -uy, ux  # across the lines
        k_max = int(reach / step)
        for k in range(-k_max, k_max + 1):
            ox, oy = gx + px * k * step, gy + py * k * step
            seg = _clip((ox - ux * reach, oy - uy * reach), (ox + ux * reach, oy + uy * reach), poly)
            if seg is None:
                continue
            target = major if major is not None and every and k % every == 0 else path
            target.segment(*seg)


def _smooth(points: Sequence[Point]) -> Path:
    """A smooth curve through ``points`` (quadratic Beziers through the midpoints)."""
    p = Path().move(*points[0])
    for i in range(1, len(points) - 1):
        mx = (points[i][0] + points[i + 1][0]) / 2
        my = (points[i][1] + points[i + 1][1]) / 2
        p.quad(points[i][0], points[i][1], mx, my)
    p.line(*points[-1])
    return p


def _geography(catalog: Catalog, lang: str) -> str:
    out: list[str] = [svg.rect(MAP_X, MAP_Y, MAP_W, MAP_H, fill=LAND)]
    streets = Path()
    _grid(((0, 0), (SHEET_W, 0), (SHEET_W, SHEET_H), (0, SHEET_H)), 0.0, 26.0, streets)
    out.append(svg.path(streets, fill="none", stroke=STREET, stroke_width=4.5, stroke_linecap="butt"))
    # The downtown core: its own grid, tilted like Seattle's, every fourth avenue wider.
    out.append(svg.polygon([sheet(x, y) for x, y in DOWNTOWN], fill=LAND))
    streets, avenues = Path(), Path()
    _grid(DOWNTOWN, GRID_TILT, 24.0, streets, avenues, 4)
    out.append(svg.path(streets, fill="none", stroke=STREET, stroke_width=4.5, stroke_linecap="butt"))
    out.append(svg.path(avenues, fill="none", stroke=STREET, stroke_width=8))
    # Elliott Bay: everything West of the shore.
    shore = [sheet(x, y) for x, y in _shore()]
    out.append(svg.polygon([*shore, (MAP_X, MAP_Y + MAP_H), (MAP_X, MAP_Y)], fill=WATER))
    piers = Path()
    for y, length in PIERS:
        x = _shore_x(y)
        a, b = sheet(x + 0.3, y - 0.9), sheet(x - length, y + 0.9)
        piers.rect(b[0], a[1], a[0] - b[0], b[1] - a[1])
    out.append(svg.path(piers, fill=LAND, stroke=WATER_EDGE, stroke_width=1.2))
    out.append(svg.polyline(shore, stroke=WATER_EDGE, stroke_width=2))
    # Lake Union.
    lake = _smooth([sheet(x, y) for x, y in LAKE]).close()
    out.append(svg.path(lake, fill=WATER, stroke=WATER_EDGE, stroke_width=2))
    # I-5: a casing and a pale band.
    freeway = _smooth([sheet(x, y) for x, y in I5])
    out.append(svg.path(freeway, fill="none", stroke=FREEWAY_EDGE, stroke_width=30, stroke_linecap="butt",
                        stroke_linejoin="round"))
    out.append(svg.path(freeway, fill="none", stroke=FREEWAY, stroke_width=24, stroke_linecap="butt",
                        stroke_linejoin="round"))
    out.append(svg.path(freeway, fill="none", stroke=FREEWAY_EDGE, stroke_width=1.2, stroke_dasharray="10 8"))
    # Labels of the water and the freeway.
    bx, by = sheet(5.2, 150)
    out.append(svg.text(bx, by, _text(catalog, lang, "map-water-bay"), font_size=22, font_style="italic",
                        fill=WATER_INK, text_anchor="middle", transform=f"rotate(-78 {svg.num(bx)} {svg.num(by)})",
                        letter_spacing=2))
    lx, ly = sheet(67, 5.2)
    out.append(svg.text(lx, ly, _text(catalog, lang, "map-water-lake"), font_size=15, font_style="italic",
                        fill=WATER_INK, text_anchor="middle", letter_spacing=1))
    shields = Path()
    labels: list[tuple[float, float, str]] = []
    for tx, ty in ((82.4, 26), (86.5, 102), (88.5, 146)):
        sx, sy = sheet(tx, ty)
        shields.raw(f"M{svg.num(sx - 15)},{svg.num(sy - 11)}h30v10c0,9 -8,14 -15,17c-7,-3 -15,-8 -15,-17z")
        labels.append((sx, sy + 4, _text(catalog, lang, "map-freeway")))
    out.append(svg.path(shields, fill="#1f4e8c", stroke="#ffffff", stroke_width=2))
    out.append(svg.text_run(labels, font_size=10.5, bold=True, fill="#ffffff"))
    # North arrow, in the South-East corner of the sheet.
    nx, ny = sheet(104, 160)
    arrow = Path().polygon([(nx, ny - 26), (nx + 9, ny + 6), (nx, ny), (nx - 9, ny + 6)])
    out.append(svg.path(arrow, fill=theme.INK))
    out.append(svg.text(nx, ny + 24, _text(catalog, lang, "map-north"), font_size=15, font_weight="bold",
                        fill=theme.INK, text_anchor="middle"))
    out.append(svg.rect(MAP_X, MAP_Y, MAP_W, MAP_H, fill="none", stroke=theme.FRAME, stroke_width=2.5))
    return "".join(out)


@functools.lru_cache(maxsize=1)
def _shore() -> tuple[tuple[float, float], ...]:
    """The shore as a smooth polyline (tenths): quadratic curves through the midpoints of SHORE."""
    pts: list[tuple[float, float]] = [SHORE[0]]
    for i in range(1, len(SHORE) - 1):
        a = pts[-1]
        c = SHORE[i]
        b = ((SHORE[i][0] + SHORE[i + 1][0]) / 2, (SHORE[i][1] + SHORE[i + 1][1]) / 2)
        for k in range(1, 9):
            t = k / 8
            pts.append(((1 - t) ** 2 * a[0] + 2 * (1 - t) * t * c[0] + t * t * b[0],
                        (1 - t) ** 2 * a[1] + 2 * (1 - t) * t * c[1] + t * t * b[1]))
    pts.append(SHORE[-1])
    return tuple(pts)


def _shore_x(y: float) -> float:
    """x of the shore at ``y`` (tenths)."""
    pts = _shore()
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if y0 <= y <= y1:
            return x0 + (x1 - x0) * (y - y0) / ((y1 - y0) or 1)
    return pts[-1][0]


# -- the static sheet and panel ------------------------------------------------------------------------


def _name_lines(name: str) -> list[str]:
    return _wrap(name, 13, 150, bold=True) if svg.text_width(name, 13, bold=True) > 150 else [name]


def _name_top(kind: str) -> float:
    """Baseline offset (from the area's centre) of the last line of its name, above the shape."""
    return -(HEX_H if kind == "core" else CIRCLE_R) - 8


def _areas(areas: Sequence[AreaKey], catalog: Catalog, lang: str) -> str:
    centres = _centres(areas)
    out: list[str] = []
    # Transit lines, under the areas: a dark casing and a pale core, like a railway on a road map.
    lines = Path()
    seen: set[tuple[str, str]] = set()
    for aid, _kind, _exp, _x, _y, links in areas:
        for other in links:
            key = (min(aid, other), max(aid, other))
            if other in centres and key not in seen:
                seen.add(key)
                lines.segment(centres[aid], centres[other])
    out.append(svg.path(lines, fill="none", stroke=LINK, stroke_width=8, stroke_linecap="round"))
    out.append(svg.path(lines, fill="none", stroke=LINK_INNER, stroke_width=3, stroke_dasharray="9 7"))
    hexes: dict[int, Path] = {}
    circles = Path()
    badges = Path()
    badge_labels: list[tuple[float, float, str]] = []
    names: list[tuple[float, float, str]] = []
    for aid, kind, exposure, _x, _y, _links in areas:
        cx, cy = centres[aid]
        if kind == "core":
            hexes.setdefault(exposure, Path()).polygon(hexagon(cx, cy))
            bx, by = cx + HEX_R / 2 + 4, cy - HEX_H  # on the border, at the upper-right vertex
            badges.circle(bx, by, BADGE_R)
            badge_labels.append((bx, by + 5, str(exposure)))
        else:
            circles.circle(cx, cy, CIRCLE_R)
        lines_of_name = _name_lines(_area_name(catalog, lang, aid))
        base = cy + _name_top(kind)
        for i, label in enumerate(reversed(lines_of_name)):
            names.append((cx - (12 if kind == "core" else 0), base - i * 15, label))
    for exposure in sorted(hexes):
        out.append(svg.path(hexes[exposure], fill=CORE_FILL.get(exposure, CORE_FILL[1]), stroke=CORE_EDGE,
                            stroke_width=2.6, stroke_linejoin="round"))
    out.append(svg.path(circles, fill=CIRCLE_FILL, stroke=CIRCLE_EDGE, stroke_width=2.2))
    out.append(svg.path(badges, fill=BADGE, stroke="#ffffff", stroke_width=2))
    out.append(svg.text_run(badge_labels, font_size=14, bold=True, fill="#ffffff"))
    out.append(svg.text_run(names, font_size=13, bold=True, fill=theme.INK, halo=theme.HALO, halo_width=4))
    return "".join(out)


def _box(x: float, y: float, w: float, h: float, heading: str) -> str:
    return (svg.rect(x, y, w, h, rx=6, fill="#fbf9f3", stroke="#cfc8b6", stroke_width=1.2)
            + svg.text(x + 12, y + 22, heading, font_size=15, font_weight="bold", fill=theme.INK))


def _pool_static(catalog: Catalog, lang: str) -> str:
    x, y, w, h = _pool_rect()
    return (svg.rect(x, y, w, h, rx=6, fill="#f4f7fb", fill_opacity=0.96, stroke=AUTH_ARROW, stroke_width=2.2)
            + svg.rect(x, y, w, 28, rx=6, fill=AUTH_ARROW)
            + svg.text(x + w / 2, y + 19, _text(catalog, lang, "map-reserve"), font_size=14, font_weight="bold",
                       fill="#ffffff", text_anchor="middle"))


TRACK_ROW_H: Final = 52.0
TRACK_HEAD_W: Final = 82.0


def _track_cell(number: int, turns: Sequence[TurnKey]) -> tuple[float, float, float, float] | None:
    """The turn track cell of turn ``number``: a row per date, a column per period."""
    dates = list(dict.fromkeys(t[1] for t in turns))
    for t in turns:
        if t[0] == number:
            row = dates.index(t[1])
            col = PERIODS.index(t[2]) if t[2] in PERIODS else 0
            cw = (PANEL_W - 24 - TRACK_HEAD_W) / len(PERIODS)
            x = PANEL_X + 12 + TRACK_HEAD_W + col * cw
            y = TRACK_Y + 58 + row * TRACK_ROW_H
            return x, y, cw, TRACK_ROW_H
    return None


def _turn_track_static(turns: Sequence[TurnKey], catalog: Catalog, lang: str) -> str:
    out = [_box(PANEL_X, TRACK_Y, PANEL_W, VIS_Y - TRACK_Y - 10, _text(catalog, lang, "map-turn-track"))]
    cw = (PANEL_W - 24 - TRACK_HEAD_W) / len(PERIODS)
    heads = [(PANEL_X + 12 + TRACK_HEAD_W + (i + 0.5) * cw, TRACK_Y + 50, _text(catalog, lang, f"period-{p}"))
             for i, p in enumerate(PERIODS)]
    out.append(svg.text_run(heads, font_size=11, fill=theme.INK_SOFT))
    day, night, optional = Path(), Path(), Path()
    numbers_day: list[tuple[float, float, str]] = []
    numbers_night: list[tuple[float, float, str]] = []
    dates: list[tuple[float, float, str]] = []
    seen_dates: set[str] = set()
    for t in turns:
        cell = _track_cell(t[0], turns)
        if cell is None:
            continue
        x, y, w, h = cell
        (night if t[3] else day).rect(x + 2, y + 2, w - 4, h - 4)
        if t[4]:
            optional.rect(x + 2, y + 2, w - 4, h - 4)
        (numbers_night if t[3] else numbers_day).append((x + 12, y + 19, str(t[0])))
        if t[1] not in seen_dates:
            seen_dates.add(t[1])
            dates.append((PANEL_X + 14, y + h / 2 + 4, _date(catalog, lang, t[1])))  # fits TRACK_HEAD_W
    out.append(svg.path(day, fill=DAY_CELL, stroke="#cfc8b6", stroke_width=1))
    out.append(svg.path(night, fill=NIGHT_CELL, stroke="#1b2a44", stroke_width=1))
    out.append(svg.path(optional, fill="none", stroke=theme.INK_SOFT, stroke_width=1.4, stroke_dasharray="4 3"))
    out.append(svg.text_run(numbers_day, font_size=13, bold=True, fill=theme.INK))
    out.append(svg.text_run(numbers_night, font_size=13, bold=True, fill="#f2ead2"))
    out.append(svg.text_run(dates, font_size=12, bold=True, anchor="start", fill=theme.INK))
    # A crescent moon on each night cell.
    moons = Path()
    for t in turns:
        cell = _track_cell(t[0], turns)
        if cell is not None and t[3]:
            x, y, w, _h = cell
            mx, my = x + w - 15, y + 14
            moons.raw(f"M{svg.num(mx + 3)},{svg.num(my - 7)}a7.5,7.5 0 1,0 4,12.5a6,6 0 1,1 -4,-12.5z")
    out.append(svg.path(moons, fill="#f2d98a"))
    if any(t[4] for t in turns):
        last = max(t[0] for t in turns)
        cell = _track_cell(last, turns)
        if cell is not None:
            out.append(svg.text(PANEL_X + PANEL_W - 12, TRACK_Y + 22, "- - " + _text(catalog, lang, "map-optional"),
                                font_size=10.5, fill=theme.INK_SOFT, text_anchor="end"))
    return "".join(out)


VIS_X0: Final = PANEL_X + 22.0
VIS_X1: Final = PANEL_X + PANEL_W - 34.0
VIS_BAR_Y: Final = VIS_Y + 80.0
VIS_BAR_H: Final = 22.0


def _vis_x(value: int) -> float:
    v = min(max(value, 0), VIS_MAX)
    return VIS_X0 + (VIS_X1 - VIS_X0) * v / VIS_MAX


def _unit_keys(view: Mapping[str, Any]) -> tuple[UnitKey, ...]:
    """The unit types of the view, Groups, Crowds, then the Authorities (the table's order)."""
    rows = [(str(u.get("key")), str(u.get("code")), str(u.get("colour")), str(u.get("kind")), str(u.get("side")))
            for u in _dicts(view.get("unit_types"))]
    order = {"group": 0, "crowd": 1}
    return tuple(sorted(rows, key=lambda r: (r[4] != DEM, order.get(r[3], 2))))


def _band_keys(view: Mapping[str, Any]) -> tuple[BandKey, ...]:
    rows = [(_int(b.get("min")), _int(b.get("reaction"))) for b in _dicts(view.get("vis_bands"))]
    return tuple(rows) or ((0, 0),)


def _visibility_static(bands: Sequence[BandKey], catalog: Catalog, lang: str) -> str:
    out = [_box(PANEL_X, VIS_Y, PANEL_W, ESC_Y - VIS_Y - 10, _text(catalog, lang, "map-visibility"))]
    shades = (Path(), Path())
    reach: list[tuple[float, float, str]] = []
    ticks = Path()
    tick_labels: list[tuple[float, float, str]] = []
    for i, (start, reaction) in enumerate(bands):
        end = bands[i + 1][0] if i + 1 < len(bands) else VIS_MAX + 1
        x0 = _vis_x(start) if start else VIS_X0
        x1 = _vis_x(end - 1) if i + 1 < len(bands) else VIS_X1 + 14
        if i + 1 < len(bands):
            x1 = (_vis_x(end - 1) + _vis_x(end)) / 2
        if i:
            x0 = (_vis_x(start - 1) + _vis_x(start)) / 2
        shades[i % 2].rect(x0, VIS_BAR_Y, x1 - x0, VIS_BAR_H)
        reach.append(((x0 + x1) / 2, VIS_BAR_Y + 16, str(reaction)))
    for v in range(0, VIS_MAX + 1, 10):
        x = _vis_x(v)
        ticks.segment((x, VIS_BAR_Y + VIS_BAR_H), (x, VIS_BAR_Y + VIS_BAR_H + (7 if v % 20 == 0 else 4)))
        if v % 20 == 0:
            tick_labels.append((x, VIS_BAR_Y + VIS_BAR_H + 18, str(v)))
    out.append(svg.path(shades[0], fill="#e8e1cf"))
    out.append(svg.path(shades[1], fill="#d7ccb0"))
    out.append(svg.rect(VIS_X0, VIS_BAR_Y, VIS_X1 + 14 - VIS_X0, VIS_BAR_H, fill="none", stroke=theme.FRAME,
                        stroke_width=1.2))
    out.append(svg.path(ticks, fill="none", stroke=theme.FRAME, stroke_width=1.2))
    out.append(svg.text_run(tick_labels, font_size=10, fill=theme.INK_SOFT))
    out.append(svg.text_run(reach, font_size=12, bold=True, fill=theme.INK))
    out.append(svg.text(VIS_X1 + 14, VIS_BAR_Y - 5, "+", font_size=11, fill=theme.INK_SOFT, text_anchor="end"))
    return "".join(out)


ESC_BOX_W: Final = (PANEL_W - 24 - 16) / 3
ESC_CELL_H: Final = 68.0


def _escalation_static(catalog: Catalog, lang: str) -> str:
    out = [_box(PANEL_X, ESC_Y, PANEL_W, EVENT_Y - ESC_Y - 10, _text(catalog, lang, "map-escalation"))]
    cells = Path()
    notes: list[tuple[float, float, str]] = []
    for phase in (1, 2, 3):
        x = PANEL_X + 12 + (phase - 1) * (ESC_BOX_W + 8)
        y = ESC_Y + 32
        cells.round_rect(x, y, ESC_BOX_W, ESC_CELL_H, 5)
        for i, line in enumerate(_wrap(_text(catalog, lang, f"map-escalation-{phase}"), 9.2, ESC_BOX_W - 36)[:5]):
            notes.append((x + 32, y + 13 + i * 11.5, line))
    out.append(svg.path(cells, fill="#f1ece0", stroke="#cfc8b6", stroke_width=1))
    out.append(svg.text_run(notes, font_size=9.2, anchor="start", fill=theme.INK_SOFT))
    return "".join(out)


OFF_COLUMNS: Final = ("map", "pool", "track", "pile", "away", "out")
OFF_COL_W: Final = 43.0
OFF_ROW_H: Final = 20.0


def _offmap_static(types: Sequence[UnitKey], catalog: Catalog, lang: str) -> str:
    out = [_box(PANEL_X, OFF_Y, PANEL_W, LEGEND_Y - OFF_Y - 10, _text(catalog, lang, "map-offmap"))]
    heads = [(_off_col_x(i), OFF_Y + 44, _text(catalog, lang, f"map-col-{c}")) for i, c in enumerate(OFF_COLUMNS)]
    out.append(svg.text_run(heads, font_size=10, fill=theme.INK_SOFT))
    stripes = Path()
    names: list[tuple[float, float, str]] = []
    codes: list[tuple[float, float, str]] = []
    swatches: dict[str, Path] = {}
    for i, (key, code, colour, _kind, _side) in enumerate(types):
        y = OFF_Y + 52 + i * OFF_ROW_H
        if i % 2 == 0:
            stripes.rect(PANEL_X + 8, y, PANEL_W - 16, OFF_ROW_H)
        swatches.setdefault(colour, Path()).rect(PANEL_X + 14, y + 4, 13, 13)
        codes.append((PANEL_X + 33, y + 15, code))
        names.append((PANEL_X + 66, y + 15, _text(catalog, lang, f"unit-{key}")))
    out.append(svg.path(stripes, fill="#f1ece0"))
    for colour, p in swatches.items():
        fill, edge, _ink = COUNTER_COLOURS.get(colour, UNKNOWN_COLOURS)
        out.append(svg.path(p, fill=fill, stroke=edge, stroke_width=1.2))
    out.append(svg.text_run(codes, font_size=10.5, bold=True, anchor="start", fill=theme.INK))
    out.append(svg.text_run(_fit_names(names), font_size=10.5, anchor="start", fill=theme.INK))
    return "".join(out)


def _fit_names(names: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """Cut unit names so they end before the first number column."""
    limit = _off_col_x(0) - OFF_COL_W / 2 - PANEL_X - 66 - 2
    out = []
    for x, y, label in names:
        if svg.text_width(label, 10.5) > limit:
            while svg.text_width(label + "…", 10.5) > limit and len(label) > 3:
                label = label[:-1]
            label = label.rstrip(" (") + "…"
        out.append((x, y, label))
    return out


def _off_col_x(i: int) -> float:
    return PANEL_X + PANEL_W - 12 - (len(OFF_COLUMNS) - i - 0.5) * OFF_COL_W


def _legend(catalog: Catalog, lang: str) -> str:
    y0 = LEGEND_Y
    h = MAP_Y + MAP_H - y0
    out = [_box(PANEL_X, y0, PANEL_W, h, _text(catalog, lang, "map-legend"))]
    rows = ("core", "circle", "line", "group", "crowd", "police", "barricade", "contested", "move", "arrival",
            "combat", "try")
    row_h = min(44.0, (h - 56) / len(rows))
    texts: list[tuple[float, float, str]] = []
    icons: list[str] = []
    counters = _Counters()
    for i, key in enumerate(rows):
        cy = y0 + 44 + i * row_h + row_h / 2 - 6
        cx = PANEL_X + 50
        label = _text(catalog, lang, f"map-legend-{key}")
        lines = _wrap(label, 11, PANEL_W - 118)
        for j, line in enumerate(lines[:2]):
            texts.append((PANEL_X + 106, cy + 4 - (len(lines[:2]) - 1) * 6.5 + j * 13, line))
        if key == "core":
            icons.append(svg.polygon(hexagon(cx, cy, 17), fill=CORE_FILL[2], stroke=CORE_EDGE, stroke_width=1.8))
            icons.append(svg.circle(cx + 12, cy - 13, 8, fill=BADGE, stroke="#ffffff", stroke_width=1.4))
            icons.append(svg.text(cx + 12, cy - 9.5, "2", font_size=10, font_weight="bold", fill="#ffffff",
                                  text_anchor="middle"))
        elif key == "circle":
            icons.append(svg.circle(cx, cy, 14, fill=CIRCLE_FILL, stroke=CIRCLE_EDGE, stroke_width=1.8))
        elif key == "line":
            icons.append(svg.line(cx - 26, cy, cx + 26, cy, stroke=LINK, stroke_width=8, stroke_linecap="round"))
            icons.append(svg.line(cx - 26, cy, cx + 26, cy, stroke=LINK_INNER, stroke_width=3,
                                  stroke_dasharray="9 7"))
        elif key in ("group", "crowd", "police"):
            samples = {"group": [("AN3", "anarchists", "AN", "white-black", "group", 2, 5, 3),
                                 ("AT7", "antagonists", "AT", "red", "group", 2, 4, 3)],
                       "crowd": [("OL2", "organised-labour", "OL", "orange", "crowd", 1, 3, 1),
                                 ("EN5", "environmentalists", "EN", "green", "crowd", 2, 3, 1)],
                       "police": [("SPD4", "spd", "SPD", "blue", "police", 4, 4, 3),
                                  ("WSP1", "wsp", "WSP", "blue", "police", 3, 5, 3),
                                  ("NG2", "ngmp", "NG", "blue", "police", 2, 6, 3)]}[key]
            size = 29.0
            for j, (uid, tkey, code, colour, kind, c, m, mv) in enumerate(samples):
                unit = {"id": uid, "type": tkey, "code": code, "colour": colour, "kind": kind, "combat": c,
                        "morale": m, "move": mv}
                left = cx - (len(samples) * (size + 2) - 2) / 2
                counters.add(unit, left + j * (size + 2), cy - size / 2, size=size)
        elif key == "barricade":
            icons.append(_barricades([(cx, cy)]))
        elif key == "contested":
            icons.append(svg.polygon(hexagon(cx, cy, 17), fill=CORE_FILL[1], stroke=CONTESTED, stroke_width=3,
                                     stroke_dasharray="6 4"))
        elif key == "move":
            icons.append(svg.line(cx - 28, cy - 5, cx + 14, cy - 5, stroke=DEM_ARROW, stroke_width=3.5))
            icons.append(svg.polygon(svg.arrowhead((cx + 28, cy - 5), (cx, cy - 5), 14, 12), fill=DEM_ARROW))
            icons.append(svg.line(cx - 28, cy + 8, cx + 14, cy + 8, stroke=AUTH_ARROW, stroke_width=3.5,
                                  stroke_dasharray="7 4"))
            icons.append(svg.polygon(svg.arrowhead((cx + 28, cy + 8), (cx, cy + 8), 14, 12), fill=AUTH_ARROW))
        elif key == "arrival":
            icons.append(_badges([((cx - 14, cy), "+2", DEM), ((cx + 16, cy), "-1", AUTH)]))
        elif key == "combat":
            icons.append(_combat_cards([((cx, cy), DEM, "X", AUTH, "MC")], compact=True))
        elif key == "try":
            icons.append(_tries([((cx, cy), 1, True)]))
    out.extend(icons)
    out.append(counters.svg())
    out.append(svg.text_run(texts, font_size=11, anchor="start", fill=theme.INK))
    return "".join(out)


@static_part(maxsize=8)
def _static_sheet(lang: str, areas: tuple[AreaKey, ...], turns: tuple[TurnKey, ...], bands: tuple[BandKey, ...],
                  types: tuple[UnitKey, ...]) -> str:
    """Everything that never changes in a game: built once per process, language, map, track and tables."""
    catalog = _catalog()
    out = [svg.rect(0, 0, WIDTH, HEIGHT, fill=theme.PAPER), _geography(catalog, lang), _areas(areas, catalog, lang),
           _pool_static(catalog, lang), _turn_track_static(turns, catalog, lang), _visibility_static(bands, catalog, lang),
           _escalation_static(catalog, lang), _box(PANEL_X, EVENT_Y, PANEL_W, LOG_Y - EVENT_Y - 10,
                                                   _text(catalog, lang, "map-event")),
           _box(PANEL_X, LOG_Y, PANEL_W, OFF_Y - LOG_Y - 10, _text(catalog, lang, "map-combats")),
           _offmap_static(types, catalog, lang), _legend(catalog, lang)]
    return "".join(out)


# -- counters -----------------------------------------------------------------------------------------


class _Counters:
    """All counters of a map, batched: a path per colour, a text run per ink."""

    def __init__(self) -> None:
        self.shadow = Path()
        self.faces: dict[tuple[str, str, float], Path] = {}
        self.icons: dict[str, Path] = {}  # ink -> filled icons
        self.strokes: dict[str, Path] = {}  # ink -> stroked icons
        self.ids: dict[tuple[str, float], list[tuple[float, float, str]]] = {}
        self.factors: dict[tuple[str, float], list[tuple[float, float, str]]] = {}

    def add(self, unit: Mapping[str, Any], x: float, y: float, size: float = COUNTER) -> None:
        """A counter with its top-left corner at (x, y)."""
        fill, edge, ink = COUNTER_COLOURS.get(str(unit.get("colour") or ""), UNKNOWN_COLOURS)
        k = size / COUNTER
        width = 2.4 if unit.get("colour") == "white-black" else 1.4
        self.shadow.round_rect(x + 2 * k, y + 2.5 * k, size, size, 4 * k)
        self.faces.setdefault((fill, edge, width), Path()).round_rect(x, y, size, size, 4 * k)
        uid = str(unit.get("id") or "?")
        fs = (10.5 if len(uid) <= 4 else 9.2) * k
        self.ids.setdefault((ink, round(fs, 2)), []).append((x + size / 2, y + 12 * k, uid))
        factors = f"{_int(unit.get('combat'))}-{_int(unit.get('morale'))}-{_int(unit.get('move'))}"
        self.factors.setdefault((ink, round(11 * k, 2)), []).append((x + size / 2, y + size - 4.5 * k, factors))
        mx, my = x + size / 2, y + 21 * k
        kind = unit.get("kind")
        icons = self.icons.setdefault(ink, Path())
        if kind == "crowd":
            for dx in (-10, 0, 10):  # a row of heads and shoulders
                hx = mx + dx * k
                icons.circle(hx, my - 2.2 * k, 2.6 * k)
                icons.raw(f"M{svg.num(hx - 4.2 * k)},{svg.num(my + 5 * k)}"
                          f"c0,-5 {svg.num(8.4 * k)},-5 {svg.num(8.4 * k)},0z")
        elif kind == "group":
            self.strokes.setdefault(ink, Path()).segment((mx - 5 * k, my - 6 * k), (mx - 5 * k, my + 6 * k))
            icons.polygon([(mx - 5 * k, my - 6 * k), (mx + 8 * k, my - 3 * k), (mx - 5 * k, my + 1 * k)])
        else:
            code = str(unit.get("code") or unit.get("type") or "")
            if code == "WSP" or unit.get("type") == "wsp":
                icons.polygon(_star(mx, my, 7 * k, 3 * k, 5))
            elif code == "NG" or unit.get("type") == "ngmp":
                chev = self.strokes.setdefault(ink, Path())
                for dy in (-3.5, 1.5):
                    chev.polyline([(mx - 6 * k, my + (dy - 3) * k), (mx, my + dy * k), (mx + 6 * k, my + (dy - 3) * k)])
            else:  # SPD: a shield
                icons.raw(f"M{svg.num(mx - 5.5 * k)},{svg.num(my - 6 * k)}h{svg.num(11 * k)}v{svg.num(5 * k)}"
                          f"c0,{svg.num(4 * k)} {svg.num(-3 * k)},{svg.num(6 * k)} {svg.num(-5.5 * k)},{svg.num(7 * k)}"
                          f"c{svg.num(-2.5 * k)},{svg.num(-1 * k)} {svg.num(-5.5 * k)},{svg.num(-3 * k)} "
                          f"{svg.num(-5.5 * k)},{svg.num(-7 * k)}z")

    def svg(self) -> str:
        out = [svg.path(self.shadow, fill="#000000", fill_opacity=0.28)]
        for (fill, edge, width), p in self.faces.items():
            out.append(svg.path(p, fill=fill, stroke=edge, stroke_width=width))
        for ink, p in self.icons.items():
            out.append(svg.path(p, fill=ink))
        for ink, p in self.strokes.items():
            out.append(svg.path(p, fill="none", stroke=ink, stroke_width=1.7, stroke_linecap="round",
                                stroke_linejoin="round"))
        for (ink, fs), labels in self.ids.items():
            out.append(svg.text_run(labels, font_size=fs, bold=True, fill=ink))
        for (ink, fs), labels in self.factors.items():
            out.append(svg.text_run(labels, font_size=fs, bold=True, fill=ink))
        return "".join(out)


def _star(cx: float, cy: float, r_out: float, r_in: float, points: int) -> list[Point]:
    pts = []
    for i in range(points * 2):
        r = r_out if i % 2 == 0 else r_in
        a = math.pi * i / points
        pts.append((cx + math.sin(a) * r, cy - math.cos(a) * r))
    return pts


def _stack_origins(count: int, dem: int, cx: float, cy: float) -> list[Point]:
    """Top-left corners of ``count`` counters (the first ``dem`` Demonstrators) around (cx, cy).

    A small grid: up to 2 counters a row for 4, 3 for 9, 4 beyond; the Authorities start a new
    row when both sides are there."""
    cols = 2 if count <= 4 else 3 if count <= 9 else 4
    rows_dem = -(-dem // cols) if dem else 0
    auth = count - dem
    slots: list[tuple[int, int, int]] = []  # (row, col, cols in the row)
    for i in range(dem):
        row, col = divmod(i, cols)
        slots.append((row, col, min(cols, dem - row * cols)))
    for i in range(auth):
        row, col = divmod(i, cols)
        slots.append((rows_dem + row, col, min(cols, auth - row * cols)))
    out = []
    for row, col, in_row in slots:
        x = cx + (col - in_row / 2) * PITCH + (PITCH - COUNTER) / 2
        y = cy + STACK_TOP + row * PITCH + (0 if count > 2 else 10)
        out.append((x, y))
    return out


# -- the turn's marks -----------------------------------------------------------------------------------


def _barricades(points: Iterable[Point]) -> str:
    """Striped bars with legs (7.2) centred on ``points``."""
    body, stripes, legs = Path(), Path(), Path()
    for x, y in points:
        w, h = 40.0, 13.0
        legs.segment((x - 14, y), (x - 19, y + 14)).segment((x - 14, y), (x - 9, y + 14))
        legs.segment((x + 14, y), (x + 9, y + 14)).segment((x + 14, y), (x + 19, y + 14))
        body.rect(x - w / 2, y - h / 2, w, h)
        for i in range(4):
            sx = x - w / 2 + 3 + i * 10
            stripes.polygon([(sx, y + h / 2), (sx + 5, y + h / 2), (sx + 10, y - h / 2), (sx + 5, y - h / 2)])
    if not body:
        return ""
    return (svg.path(legs, fill="none", stroke=BARRICADE_DARK, stroke_width=2.6, stroke_linecap="round")
            + svg.path(body, fill=BARRICADE_LIGHT, stroke=BARRICADE_DARK, stroke_width=1.8)
            + svg.path(stripes, fill=BARRICADE_DARK))


def _badges(items: Sequence[tuple[Point, str, str]]) -> str:
    """Small round-cornered tags ("+2", "-1") in a side's colour."""
    boxes: dict[str, Path] = {}
    labels: list[tuple[float, float, str]] = []
    for (x, y), label, side in items:
        w = svg.text_width(label, 12, bold=True) + 10
        boxes.setdefault(side, Path()).round_rect(x - w / 2, y - 10, w, 20, 9)
        labels.append((x, y + 4.5, label))
    out = [svg.path(p, fill=SIDE_INK.get(side, theme.INK), stroke="#ffffff", stroke_width=1.8)
           for side, p in boxes.items()]
    out.append(svg.text_run(labels, font_size=12, bold=True, fill="#ffffff"))
    return "".join(out)


def _combat_cards(items: Sequence[tuple[Point, str, str, str, str]], compact: bool = False) -> str:
    """A card per combat centred at a point: a burst, then attacker's / defender's result."""
    cards, bursts = Path(), Path()
    by_side: dict[str, list[tuple[float, float, str]]] = {}
    slashes: list[tuple[float, float, str]] = []
    fs = 12.5 if compact else 14.0
    for (x, y), att_side, att, def_side, dfn in items:
        wa, wd, ws = (svg.text_width(att, fs, bold=True), svg.text_width(dfn, fs, bold=True),
                      svg.text_width("/", fs, bold=True) + 10)
        w = 26 + wa + ws + wd + 8
        left = x - w / 2
        cards.round_rect(left, y - 12, w, 24, 5)
        bursts.polygon(_star(left + 12, y, 9, 4, 8))
        tx = left + 24
        by_side.setdefault(att_side, []).append((tx, y + 5, att))
        slashes.append((tx + wa + 5, y + 5, "/"))
        by_side.setdefault(def_side, []).append((tx + wa + ws, y + 5, dfn))
    out = [svg.path(cards, fill="#ffffff", stroke=CONTESTED, stroke_width=2),
           svg.path(bursts, fill=CONTESTED)]
    for side, labels in by_side.items():
        out.append(svg.text_run(labels, font_size=fs, bold=True, anchor="start", fill=SIDE_INK.get(side, theme.INK)))
    out.append(svg.text_run(slashes, font_size=fs, bold=True, anchor="start", fill=theme.INK_SOFT))
    return "".join(out)


def _tries(items: Sequence[tuple[Point, int, bool]]) -> str:
    """Barricade attempts: a mini barricade, the die and a tick or a cross."""
    plates = Path()
    ok: list[tuple[float, float, str]] = []
    bad: list[tuple[float, float, str]] = []
    dice: list[tuple[float, float, str]] = []
    stripes = Path()
    for (x, y), roll, built in items:
        plates.round_rect(x - 26, y - 11, 52, 22, 5)
        stripes.rect(x - 22, y - 4, 16, 8)
        dice.append((x + 6, y + 5, str(roll)))
        (ok if built else bad).append((x + 19, y + 5.5, "✓" if built else "✗"))
    if not plates:
        return ""
    return (svg.path(plates, fill="#ffffff", stroke=BARRICADE_DARK, stroke_width=1.4)
            + svg.path(stripes, fill=BARRICADE_LIGHT, stroke=BARRICADE_DARK, stroke_width=1.2)
            + svg.text_run(dice, font_size=13, bold=True, fill=theme.INK)
            + svg.text_run(ok, font_size=15, bold=True, fill=OK_INK)
            + svg.text_run(bad, font_size=15, bold=True, fill=FAIL_INK))


def _side_of(unit: Mapping[str, Any] | None, uid: str) -> str:
    if unit is not None and unit.get("side") in (DEM, AUTH):
        return str(unit["side"])
    code = uid.rstrip("0123456789")
    return AUTH if code in ("SPD", "WSP", "NG") else DEM


class _Marks:
    """Moves, arrivals, combats and barricade attempts of the log."""

    def __init__(self, centres: Mapping[str, Point], units: Mapping[str, Mapping[str, Any]]) -> None:
        self.centres = centres
        self.units = units
        self.arrows: dict[tuple[str, bool, tuple[Point, ...]], list[str]] = {}
        self.badges: dict[tuple[str, str, str], int] = {}  # (area, side, "+"/"-") -> count
        self.combats: list[dict[str, Any]] = []
        self.tries: list[dict[str, Any]] = []

    def point(self, loc: str) -> Point | None:
        return self.centres.get(loc)

    def move(self, move: Mapping[str, Any]) -> None:
        path = _strs(move.get("path"))
        uid = str(move.get("unit") or "")
        side = _side_of(self.units.get(uid), uid)
        kind = str(move.get("kind") or "move")
        if len(path) < 2:
            return
        points = [self.point(loc) for loc in path]
        if all(p is not None for p in points) and path[0] != path[-1]:
            pts = tuple(p for p in points if p is not None)
            self.arrows.setdefault((side, kind == "react", pts), []).append(uid)
            return
        start, end = path[0], path[-1]
        if start in self.centres and end not in self.centres:
            self.badges[(start, side, "-")] = self.badges.get((start, side, "-"), 0) + 1
        elif end in self.centres and start not in self.centres:
            self.badges[(end, side, "+")] = self.badges.get((end, side, "+"), 0) + 1

    def svg(self) -> str:
        out: list[str] = []
        casing = Path()
        lines: dict[tuple[str, bool], Path] = {}
        heads: dict[str, Path] = {}
        labels: list[tuple[float, float, str]] = []
        for (side, react, pts), uids in self.arrows.items():
            off = 5.0 if side == DEM else -5.0
            shifted = _offset(pts, off)
            if len(shifted) < 2:
                continue
            a_in = HEX_R * 0.55
            first = svg.shorten(shifted[0], shifted[1], a_in, 0)[0]
            end = svg.shorten(shifted[-2], shifted[-1], 0, HEX_R * 0.72)[1]
            run = [first, *shifted[1:-1], end]
            casing.polyline(run)
            lines.setdefault((side, react), Path()).polyline(run[:-1] + [svg.shorten(run[-2], run[-1], 0, 10)[1]])
            heads.setdefault(side, Path()).polygon(svg.arrowhead(end, run[-2], 16, 14))
            mid_a, mid_b = run[-2], run[-1]
            mx, my = (mid_a[0] + mid_b[0]) / 2, (mid_a[1] + mid_b[1]) / 2
            label = " ".join(uids) if len(uids) <= 2 else f"×{len(uids)}"
            labels.append((mx, my - 6 if side == DEM else my + 14, label))
        if casing:
            out.append(svg.path(casing, fill="none", stroke="#ffffff", stroke_width=8, stroke_opacity=0.85,
                                stroke_linejoin="round", stroke_linecap="round"))
            for (side, react), p in lines.items():
                out.append(svg.path(p, fill="none", stroke=SIDE_INK[side], stroke_width=3.6, stroke_linejoin="round",
                                    stroke_dasharray="9 5" if react else None))
            for side, p in heads.items():
                out.append(svg.path(p, fill=SIDE_INK[side], stroke="#ffffff", stroke_width=1.2))
            out.append(svg.text_run(labels, font_size=10.5, bold=True, fill=theme.INK, halo=theme.HALO))
        return "".join(out)


def _offset(pts: Sequence[Point], off: float) -> list[Point]:
    """Shift a polyline sideways by ``off`` (relative to a fixed orientation of each segment, so the
    two sides' arrows on the same line lie apart whichever way they run)."""
    out: list[Point] = []
    for i, (x, y) in enumerate(pts):
        a = pts[max(0, i - 1)] if i else pts[0]
        b = pts[i + 1] if i + 1 < len(pts) else pts[i]
        if i == 0:
            a, b = pts[0], pts[1] if len(pts) > 1 else pts[0]
        dx, dy = b[0] - a[0], b[1] - a[1]
        if (dx, dy) < (0, 0):
            dx, dy = -dx, -dy
        d = math.hypot(dx, dy) or 1.0
        out.append((x - dy / d * off, y + dx / d * off))
    return out


# -- the panel's dynamic parts ----------------------------------------------------------------------------


def _title(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    name = _text(catalog, lang, "map-title")
    out = [svg.text(PAD, 40, name, font_size=theme.TITLE_SIZE + 4, font_weight="bold", fill=theme.INK)]
    x = PAD + svg.text_width(name, theme.TITLE_SIZE + 4, bold=True) + 22
    turn = _int(view.get("turn"))
    parts: list[str] = []
    if turn:
        parts.append(_text(catalog, lang, "map-turn", turn=turn, last=_int(view.get("last_turn"), 11)))
        when = _date(catalog, lang, view.get("date")) if view.get("date") else ""
        period = view.get("period")
        if period:
            when = f"{when}, {_text(catalog, lang, f'period-{period}')}" if when else _text(catalog, lang,
                                                                                          f"period-{period}")
        if when:
            parts.append(when)
    stage = str(view.get("stage") or "")
    if stage:
        parts.append(_stage(catalog, lang, stage))
    if not turn and not stage.startswith("setup"):
        parts.insert(0, _text(catalog, lang, "map-setup"))
    status = " · ".join(parts)
    out.append(svg.text(x, 40, status, font_size=18, fill=theme.INK))
    if view.get("night"):
        mx = x + svg.text_width(status, 18) + 20
        out.append(svg.path(f"M{svg.num(mx + 4)},21a11,11 0 1,0 6,19a9,9 0 1,1 -6,-19z", fill="#c9a227"))
    viewer = view.get("viewer")
    if viewer in (DEM, AUTH):
        side = _text(catalog, lang, f"side-{viewer}")
        out.append(svg.text(WIDTH - PAD, 40, _text(catalog, lang, "map-for", side=side), font_size=14,
                            fill=theme.INK_SOFT, text_anchor="end"))
    out.append(svg.line(PAD, TITLE_H - 8, WIDTH - PAD, TITLE_H - 8, stroke="#d6d0c0", stroke_width=1))
    return "".join(out)


def _stage(catalog: Catalog, lang: str, stage: str) -> str:
    for key in (f"phase-{stage}", f"map-stage-{stage}"):
        if catalog.has(key, lang) or catalog.has(key):
            return _text(catalog, lang, key)
    return stage.replace("-", " ")


def _turn_marks(view: Mapping[str, Any], turns: Sequence[TurnKey], units: Mapping[str, Mapping[str, Any]],
                catalog: Catalog, lang: str) -> str:
    out: list[str] = []
    current = _int(view.get("turn"))
    cell = _track_cell(current, turns) if current else None
    if cell is not None:
        x, y, w, h = cell
        out.append(svg.rect(x + 1, y + 1, w - 2, h - 2, rx=3, fill="none", stroke="#d55e00", stroke_width=4))
    # Units waiting on the track: "2 WSP" chips in their turn's cell.
    chips = Path()
    labels: list[tuple[float, float, str]] = []
    for entry in _dicts(view.get("track")):
        cell = _track_cell(_int(entry.get("number", entry.get("turn"))), turns)
        if cell is None:
            continue
        counts: dict[str, int] = {}
        for uid in _strs(entry.get("units")):
            code = str((units.get(uid) or {}).get("code") or uid.rstrip("0123456789"))
            counts[code] = counts.get(code, 0) + 1
        x, y, w, h = cell
        for i, (code, n) in enumerate(sorted(counts.items())):
            label = f"{n} {code}"
            cw = svg.text_width(label, 10, bold=True) + 8
            cx = x + w - 4 - cw  # one chip per code, right-aligned, upwards from the bottom
            cy = y + h - 20 - i * 17
            chips.round_rect(cx, cy, cw, 15, 3)
            labels.append((cx + cw / 2, cy + 11, label))
    if chips:
        out.append(svg.path(chips, fill=AUTH_ARROW, stroke="#ffffff", stroke_width=1))
        out.append(svg.text_run(labels, font_size=10, bold=True, fill="#ffffff"))
    return "".join(out)


def _vis_marks(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    vis = view.get("visibility") if isinstance(view.get("visibility"), dict) else {}
    reaction = view.get("reaction") if isinstance(view.get("reaction"), dict) else {}
    assert isinstance(vis, dict) and isinstance(reaction, dict)
    dem, auth = _int(vis.get(DEM)), _int(vis.get(AUTH))
    out: list[str] = []
    pins = {DEM: Path(), AUTH: Path()}
    labels: list[tuple[float, float, str]] = []
    for side, value, up in ((DEM, dem, False), (AUTH, auth, True)):
        x = _vis_x(value) if value <= VIS_MAX else VIS_X1 + 7
        if up:  # below the bar, pointing up
            tip_y = VIS_BAR_Y + VIS_BAR_H + 1
            pins[side].polygon([(x, tip_y), (x + 7, tip_y + 9), (x - 7, tip_y + 9)])
            pins[side].round_rect(x - 17, tip_y + 9, 34, 20, 4)
            labels.append((x, tip_y + 24, str(value)))
        else:
            tip_y = VIS_BAR_Y - 1
            pins[side].polygon([(x, tip_y), (x + 7, tip_y - 9), (x - 7, tip_y - 9)])
            pins[side].round_rect(x - 17, tip_y - 29, 34, 20, 4)
            labels.append((x, tip_y - 14, str(value)))
    for side, p in pins.items():
        out.append(svg.path(p, fill=SIDE_INK[side], stroke="#ffffff", stroke_width=1.2))
    out.append(svg.text_run(labels, font_size=12.5, bold=True, fill="#ffffff"))
    for side, value, y in ((DEM, dem, VIS_Y + 44), (AUTH, auth, VIS_Y + 150)):
        name = _text(catalog, lang, "map-vis-dem" if side == DEM else "map-vis-auth")
        reach = f"{_text(catalog, lang, 'map-vis-reaction')}: {_int(reaction.get(side))}"
        out.append(svg.text_run([(PANEL_X + 14, y, f"{name}: {value}")], font_size=12.5, bold=True, anchor="start",
                                fill=SIDE_INK[side]))
        out.append(svg.text_run([(PANEL_X + PANEL_W - 12, y, reach)], font_size=11.5, anchor="end",
                                fill=SIDE_INK[side]))
    out.append(svg.text(PANEL_X + PANEL_W - 12, VIS_Y + 22,
                        _text(catalog, lang, "map-vis-lead", lead=f"{dem - auth:+d}"), font_size=11.5,
                        fill=theme.INK_SOFT, text_anchor="end"))
    return "".join(out)


def _escalation_marks(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    phase = min(max(_int(view.get("escalation"), 1), 1), 3)
    out: list[str] = []
    numbers_on: list[tuple[float, float, str]] = []
    numbers_off: list[tuple[float, float, str]] = []
    x = PANEL_X + 12 + (phase - 1) * (ESC_BOX_W + 8)
    out.append(svg.rect(x, ESC_Y + 32, ESC_BOX_W, ESC_CELL_H, rx=5, fill="none", stroke="#d55e00", stroke_width=3.5))
    discs = Path()
    on = Path()
    for p in (1, 2, 3):
        bx = PANEL_X + 12 + (p - 1) * (ESC_BOX_W + 8) + 16
        by = ESC_Y + 32 + 20
        (on if p == phase else discs).circle(bx, by, 12)
        (numbers_on if p == phase else numbers_off).append((bx, by + 6, str(p)))
    out.append(svg.path(discs, fill="#e0d9c8"))
    out.append(svg.path(on, fill="#d55e00"))
    out.append(svg.text_run(numbers_off, font_size=16, bold=True, fill=theme.INK_SOFT))
    out.append(svg.text_run(numbers_on, font_size=16, bold=True, fill="#ffffff"))
    if view.get("escalation_possible") and phase < 3:
        out.append(svg.text(PANEL_X + PANEL_W - 12, ESC_Y + 22, "↑ " + _text(catalog, lang, "map-escalation-may-rise"),
                            font_size=11, font_weight="bold", fill="#d55e00", text_anchor="end"))
    return "".join(out)


def _die(x: float, y: float, value: int, size: float = 30) -> tuple[str, str]:
    """A die face: (frame, pips path data)."""
    frame = Path().round_rect(x, y, size, size, 5).d()
    pips = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
            4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
            6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}.get(value, [])
    p = Path()
    for dx, dy in pips:
        p.circle(x + size / 2 + dx * size * 0.27, y + size / 2 + dy * size * 0.27, size * 0.085)
    return frame, p.d()


def _event(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    ev = view.get("event")
    x0, y0 = PANEL_X + 12, EVENT_Y + 34
    if not isinstance(ev, dict) or not ev.get("key"):
        return svg.text(x0, y0 + 20, _text(catalog, lang, "map-event-none"), font_size=12, font_style="italic",
                        fill=theme.INK_SOFT)
    roll = _int(ev.get("roll"))
    frames = Path()
    pips = Path()
    for i, value in enumerate((roll // 10, roll % 10)):
        frame, dots = _die(x0 + i * 36, y0, value)
        frames.raw(frame)
        pips.raw(dots)
    out = [svg.path(frames, fill="#ffffff", stroke=theme.INK, stroke_width=1.8), svg.path(pips, fill=theme.INK)]
    key = str(ev["key"])
    tx = x0 + 82
    name = _text(catalog, lang, f"event-{key}")
    head = _wrap(name, 14, PANEL_X + PANEL_W - 12 - tx, bold=True)[:2]
    out.append(svg.text_run([(tx, y0 + 13 + i * 17, line) for i, line in enumerate(head)], font_size=14, bold=True,
                            anchor="start", fill=theme.INK))
    notes: list[str] = []
    if _int(ev.get("amount")):
        notes.append(_text(catalog, lang, "map-event-amount", amount=_int(ev.get("amount"))))
    if _int(ev.get("turn")) and _int(ev.get("turn")) != _int(view.get("turn")):
        notes.append(_text(catalog, lang, "map-event-from", turn=_int(ev.get("turn"))))
    yy = y0 + 13 + len(head) * 17
    if notes:
        out.append(svg.text(tx, yy, " ".join(notes), font_size=11.5, font_weight="bold", fill="#d55e00"))
        yy += 15
    body = _wrap(_text(catalog, lang, f"event-{key}-text"), 11, PANEL_W - 28)
    yy = max(yy, y0 + 46) + 4
    room = int((LOG_Y - 16 - yy) // 14) + 1
    if len(body) > room:
        body = body[:room]
        body[-1] = body[-1].rstrip(".,;") + " …"
    out.append(svg.text_run([(x0, yy + i * 14, line) for i, line in enumerate(body)], font_size=11,
                            anchor="start", fill=theme.INK))
    return "".join(out)


def _log_lines(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    lines: list[tuple[str, str]] = []  # (text, colour)
    for entry in _dicts(view.get("log")):
        for c in _dicts(entry.get("combats")):
            att = c.get("attack") if isinstance(c.get("attack"), dict) else {}
            dfn = c.get("defence") if isinstance(c.get("defence"), dict) else {}
            assert isinstance(att, dict) and isinstance(dfn, dict)
            side_a = str(att.get("side") or "")
            text = _text(catalog, lang, "map-combat-line", area=_area_name(catalog, lang, str(c.get("area"))),
                         att=_side_short(catalog, lang, side_a), atotal=_int(att.get("total")),
                         aroll=_int(att.get("roll")), ares=str(att.get("result") or "?"),
                         **{"def": _side_short(catalog, lang, str(dfn.get("side") or ""))},
                         dtotal=_int(dfn.get("total")), droll=_int(dfn.get("roll")),
                         dres=str(dfn.get("result") or "?"))
            lines.append((text, SIDE_INK.get(side_a, theme.INK)))
        for b in _dicts(entry.get("barricades")):
            result = _text(catalog, lang, "map-barricade-built" if b.get("built") else "map-barricade-failed")
            lines.append((_text(catalog, lang, "map-barricade-line",
                                area=_area_name(catalog, lang, str(b.get("area"))), unit=str(b.get("unit") or "?"),
                                roll=_int(b.get("roll")), result=result), OK_INK if b.get("built") else FAIL_INK))
    x0, y0 = PANEL_X + 14, LOG_Y + 44
    if not lines:
        return svg.text(x0, y0, _text(catalog, lang, "map-no-combats"), font_size=12, font_style="italic",
                        fill=theme.INK_SOFT)
    room = int((OFF_Y - 16 - y0) // 15) + 1
    wrapped: list[tuple[str, str, bool]] = []  # (text, colour, first line of an entry)
    for text, colour in lines:
        for i, part in enumerate(_wrap(text, 11, PANEL_W - 44)):
            wrapped.append((part, colour, i == 0))
    if len(wrapped) > room:
        rest = len(lines) - sum(1 for _t, _c, first in wrapped[: room - 1] if first)
        wrapped = wrapped[: room - 1] + [(_text(catalog, lang, "map-more", count=rest), theme.INK_SOFT, True)]
    by_colour: dict[str, list[tuple[float, float, str]]] = {}
    for i, (text, colour, first) in enumerate(wrapped):
        by_colour.setdefault(colour, []).append((x0 if first else x0 + 14, y0 + i * 15, text))
    return "".join(svg.text_run(v, font_size=11, anchor="start", fill=k) for k, v in by_colour.items())


def _side_short(catalog: Catalog, lang: str, side: str) -> str:
    return _text(catalog, lang, f"side-{side}") if side in (DEM, AUTH) else side


def _offmap_counts(view: Mapping[str, Any], units: Mapping[str, Mapping[str, Any]], types: Sequence[UnitKey]) -> str:
    counts: dict[tuple[str, str], int] = {}
    column = {"reserve": "pool", "pile": "pile", "away": "away", "festival": "away", "out": "out", "desk": "out"}
    area_ids = {str(a.get("id")) for a in _dicts(view.get("areas"))}
    for uid, u in units.items():
        loc = str(u.get("loc") or "")
        col = "map" if loc in area_ids else "track" if loc.startswith("track:") else column.get(loc)
        if col is None:
            continue
        key = str(u.get("type") or "")
        counts[(key, col)] = counts.get((key, col), 0) + 1
    labels: list[tuple[float, float, str]] = []
    zeros: list[tuple[float, float, str]] = []
    for i, (key, _code, _colour, _kind, _side) in enumerate(types):
        y = OFF_Y + 52 + i * OFF_ROW_H + 15
        for j, col in enumerate(OFF_COLUMNS):
            n = counts.get((key, col), 0)
            (labels if n else zeros).append((_off_col_x(j), y, str(n) if n else "·"))
    return (svg.text_run(labels, font_size=12, bold=True, fill=theme.INK)
            + svg.text_run(zeros, font_size=12, fill="#b4ad9c"))


def _outcome(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    outcome = view.get("outcome")
    if not isinstance(outcome, dict):
        return ""
    level = str(outcome.get("level") or "")
    winner = str(outcome.get("winner") or "")
    head = _text(catalog, lang, "map-winner")
    line = _text(catalog, lang, f"victory-{level}")
    score = _text(catalog, lang, "map-final-score", dem=_int(outcome.get("demonstrators")),
                  auth=_int(outcome.get("authorities")))
    w = min(MAP_W - 140, max(svg.text_width(line, 17, bold=True), svg.text_width(head, 24, bold=True)) + 60)
    x = MAP_X + (MAP_W - w) / 2
    y = MAP_Y + 440
    colour = SIDE_INK.get(winner, theme.INK)
    lines = _wrap(line, 17, w - 40, bold=True)[:2]
    h = 86 + 22 * len(lines)
    return (svg.rect(x, y, w, h, rx=10, fill="#ffffff", fill_opacity=0.95, stroke=colour, stroke_width=4)
            + svg.text(x + w / 2, y + 38, head, font_size=24, font_weight="bold", fill=colour, text_anchor="middle")
            + svg.text_run([(x + w / 2, y + 66 + 22 * i, t) for i, t in enumerate(lines)], font_size=17, bold=True,
                           fill=theme.INK)
            + svg.text(x + w / 2, y + h - 16, score, font_size=14, fill=theme.INK_SOFT, text_anchor="middle"))


# -- the document -----------------------------------------------------------------------------------------


def render_svg(view: Mapping[str, Any], catalog: Catalog | None = None, *, lang: str | None = None) -> str:
    """The map of a Battle of Seattle view as a complete SVG document (texts in ``lang``, else the
    view's ``lang``, else English)."""
    catalog = catalog.merged(_render_texts()) if catalog is not None else _catalog()
    code = normalise_language(lang or str(view.get("lang") or "en"))
    areas = _area_keys(view)
    turns = _turn_keys(view)
    centres = _centres(areas)
    units: dict[str, dict[str, Any]] = {str(u.get("id")): u for u in _dicts(view.get("units")) if u.get("id")}

    canvas = svg.Canvas(WIDTH, HEIGHT, layers=("sheet", "night", "rings", "counters", "marks", "panel", "title"),
                        static=("sheet",), title=_text(catalog, code, "map-title"))
    types = _unit_keys(view)
    canvas.add(_static_sheet(code, areas, turns, _band_keys(view), types), layer="sheet")
    if view.get("night"):
        canvas.add(svg.rect(MAP_X, MAP_Y, MAP_W, MAP_H, fill=NIGHT, fill_opacity=0.24), layer="night")

    counters = _Counters()
    rings = Path()
    barricades: list[Point] = []
    kinds = {a[0]: a[1] for a in areas}
    for area in _dicts(view.get("areas")):
        aid = str(area.get("id"))
        if aid not in centres:
            continue
        cx, cy = centres[aid]
        here = [u for u in _strs(area.get("units")) if u in units]
        dem = [u for u in here if _side_of(units[u], u) == DEM]
        auth = [u for u in here if _side_of(units[u], u) == AUTH]
        for uid, (x, y) in zip(dem + auth, _stack_origins(len(dem) + len(auth), len(dem), cx, cy)):
            counters.add(units[uid], x, y)
        if dem and auth:
            if kinds.get(aid) == "core":
                rings.polygon(hexagon(cx, cy, HEX_R + 7))
            else:
                rings.circle(cx, cy, CIRCLE_R + 7)
        if area.get("barricade"):
            count = len(dem) + len(auth)
            half = (2 if count <= 4 else 3 if count <= 9 else 4) * PITCH / 2 if count else 0
            left = max(HEX_R if kinds.get(aid) == "core" else CIRCLE_R, half)
            barricades.append((cx - left - 14, cy - 4))
    # The Reserve Pool's counters.
    px, py, pw, _ph = _pool_rect()
    boxes = view.get("boxes") if isinstance(view.get("boxes"), dict) else {}
    assert isinstance(boxes, dict)
    pool = [u for u in _strs(boxes.get("reserve")) if u in units]
    left = px + (pw - POOL_COLS * PITCH) / 2 + (PITCH - COUNTER) / 2
    for i, uid in enumerate(pool[: POOL_COLS * 7]):
        row, col = divmod(i, POOL_COLS)
        counters.add(units[uid], left + col * PITCH, py + 36 + row * PITCH)
    if len(pool) > POOL_COLS * 7:
        canvas.add(svg.text(px + pw - 8, py + 19, f"+{len(pool) - POOL_COLS * 7}", font_size=12, fill="#ffffff",
                            text_anchor="end"), layer="marks")
    if rings:
        canvas.add(svg.path(rings, fill="none", stroke=CONTESTED, stroke_width=3.5, stroke_dasharray="10 6",
                            stroke_linejoin="round"), layer="rings")
    canvas.add(counters.svg(), layer="counters")
    canvas.add(_barricades(barricades), layer="marks")

    # The turn's marks from the log.
    marks = _Marks(centres, units)
    cards: list[tuple[Point, str, str, str, str]] = []
    tries: list[tuple[Point, int, bool]] = []
    card_count: dict[str, int] = {}
    try_count: dict[str, int] = {}
    for entry in _dicts(view.get("log")):
        for move in _dicts(entry.get("moves")):
            marks.move(move)
        for c in _dicts(entry.get("combats")):
            aid = str(c.get("area"))
            if aid not in centres:
                continue
            att = c.get("attack") if isinstance(c.get("attack"), dict) else {}
            dfn = c.get("defence") if isinstance(c.get("defence"), dict) else {}
            assert isinstance(att, dict) and isinstance(dfn, dict)
            n = card_count.get(aid, 0)
            card_count[aid] = n + 1
            cx, cy = centres[aid]
            bottom = HEX_H if kinds.get(aid) == "core" else CIRCLE_R
            cards.append(((cx, cy + bottom + 2 + n * 27), str(att.get("side") or ""), str(att.get("result") or "?"),
                          str(dfn.get("side") or ""), str(dfn.get("result") or "?")))
        for b in _dicts(entry.get("barricades")):
            aid = str(b.get("area"))
            if aid not in centres:
                continue
            n = try_count.get(aid, 0)
            try_count[aid] = n + 1
            cx, cy = centres[aid]
            right = HEX_R if kinds.get(aid) == "core" else CIRCLE_R
            tries.append(((cx + right - 6, cy + 22 + n * 25), _int(b.get("roll")), bool(b.get("built"))))
    canvas.add(marks.svg(), layer="marks")
    badge_items: list[tuple[Point, str, str]] = []
    slots: dict[str, int] = {}
    for (aid, side, sign), n in sorted(marks.badges.items()):
        cx, cy = centres[aid]
        i = slots.get(aid, 0)
        slots[aid] = i + 1
        left = HEX_R if kinds.get(aid) == "core" else CIRCLE_R
        badge_items.append(((cx - left + 6, cy + 30 + i * 23), f"{sign}{n}", side))
    canvas.add(_badges(badge_items), layer="marks")
    canvas.add(_combat_cards(cards), layer="marks")
    canvas.add(_tries(tries), layer="marks")

    canvas.add(_turn_marks(view, turns, units, catalog, code), layer="panel")
    canvas.add(_vis_marks(view, catalog, code), layer="panel")
    canvas.add(_escalation_marks(view, catalog, code), layer="panel")
    canvas.add(_event(view, catalog, code), layer="panel")
    canvas.add(_log_lines(view, catalog, code), layer="panel")
    canvas.add(_offmap_counts(view, units, types), layer="panel")
    canvas.add(_outcome(view, catalog, code), layer="panel")
    canvas.add(_title(view, catalog, code), layer="title")
    return canvas.to_svg()
