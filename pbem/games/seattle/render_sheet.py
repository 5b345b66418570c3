"""The static part of the Seattle map (`pbem.games.seattle.render`): the sheet's geography, the areas,
the Reserve Pool, the panel's frames, the tracks' scales and the legend - everything that never changes
between turns and is built once per process and language."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pbem.core.i18n import Catalog
from pbem.render import svg, theme
from pbem.render.svg import wrap as _wrap
from pbem.render.svg import Path
from pbem.games.seattle.render_layout import (
    _area_name,
    AreaKey,
    AUTH,
    AUTH_ARROW,
    BADGE,
    BADGE_R,
    BandKey,
    _centres,
    CIRCLE_EDGE,
    CIRCLE_FILL,
    CIRCLE_R,
    CONTESTED,
    CORE_EDGE,
    CORE_FILL,
    COUNTER_COLOURS,
    _date,
    DAY_CELL,
    DEM,
    DEM_ARROW,
    DOWNTOWN,
    ESC_BOX_W,
    ESC_CELL_H,
    ESC_Y,
    EVENT_Y,
    FREEWAY,
    FREEWAY_EDGE,
    _grid,
    GRID_TILT,
    HEX_H,
    HEX_R,
    hexagon,
    I5,
    LAKE,
    LAND,
    LEGEND_Y,
    LINK,
    LINK_INNER,
    MAP_H,
    MAP_W,
    MAP_X,
    MAP_Y,
    NIGHT_CELL,
    OFF_COL_W,
    _off_col_x,
    OFF_COLUMNS,
    OFF_ROW_H,
    OFF_Y,
    PANEL_W,
    PANEL_X,
    PERIODS,
    PIERS,
    _pool_rect,
    sheet,
    SHEET_H,
    SHEET_W,
    SHORE,
    _smooth,
    STREET,
    _text,
    _track_cell,
    TRACK_HEAD_W,
    TRACK_Y,
    TurnKey,
    UnitKey,
    UNKNOWN_COLOURS,
    VIS_BAR_H,
    VIS_BAR_Y,
    VIS_MAX,
    _vis_x,
    VIS_X0,
    VIS_X1,
    VIS_Y,
    WATER,
    WATER_EDGE,
    WATER_INK,
)
from pbem.games.seattle.render_marks import (
    _badges,
    _barricades,
    _combat_cards,
    _Counters,
    _tries,
)

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
