"""The layout of the Seattle map (`pbem.games.seattle.render`): the document's geometry, the panel's
sections, the colours, and the small helpers every part of the drawing shares (texts, the view's keys,
the sheet's coordinates)."""

from __future__ import annotations

import datetime
import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pbem.core.i18n import Catalog, msg
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


# -- the panel's grid (shared by the static scales and the turn's marks) ---------------------

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


ESC_BOX_W: Final = (PANEL_W - 24 - 16) / 3
ESC_CELL_H: Final = 68.0
OFF_COLUMNS: Final = ("map", "pool", "track", "pile", "away", "out")
OFF_COL_W: Final = 43.0
OFF_ROW_H: Final = 20.0


def _off_col_x(i: int) -> float:
    return PANEL_X + PANEL_W - 12 - (len(OFF_COLUMNS) - i - 0.5) * OFF_COL_W
