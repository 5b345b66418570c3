"""The map of Corteo, what moves: the detail's window, the counters, the pieces (barricades, jams,
smoke, covered objectives), the ZOCs and the record of the last phases, on the whole map or the
detail; and the legend and the static City that draw samples of them."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from pbem.core.i18n import Catalog
from pbem.games.corteo.city import Hex
from pbem.render import svg, theme
from pbem.render.cache import static_part
from pbem.render.svg import wrap as _wrap, Path, Point
from pbem.render.viewdata import as_int as _int, as_dicts as _dicts, as_strs as _strs
from pbem.games.corteo.render_style import (
    BARRICADE_DARK, BARRICADE_LIGHT, COLS, COMPONENT_COLOURS, CORTEO, CORTEO_INK, COVER, COVER_EDGE,
    DETAIL_R_MAX, DETAIL_R_MIN, FIGHT, Geo, HEAD_EDGE, HEAD_GOLD, HEIGHT, HELD, LEGEND_H, LEGEND_Y, LINK_RED,
    MAP_H, MAP_W, MAP_X, MAP_Y, MESH, METRO_RED, OBJ_INK, PAD, PANICKED, POTERE, POTERE_INK, POWER_COLOURS,
    POWER_EDGE, ROWS, SIDE_INK, SLOPE_INK, SMOKE, SMOKE_EDGE, SQRT2, SQRT3, TERRAIN_FILL, UNKNOWN_COLOURS,
    VIEW_H, VIEW_W, VIEW_X, VIEW_Y, WALL, WHOLE, WIDTH, _catalog, _city, _component_colour, _fit, _hex, _maybe,
    _text,
)
from pbem.games.corteo.render_labels import Box, Placer, text_box
from pbem.games.corteo.render_city import (
    _coordinates, _detail_static, _hexagon_path, _panel_static, _river_labels, _terrain,
)


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

    def __init__(self, detail: bool, placer: Placer | None = None) -> None:
        self.detail = detail
        self.placer = placer  # takes each counter's box; a text half out of its bounds is left out
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
        if self.placer is not None:
            ring = 3.5 * k if unit.get("head") else 0.0
            self.placer.take((x - ring, y - ring - (8.5 * k if unit.get("head") else 0), x + size + ring + 2 * k,
                              y + size + ring + 5 * k))
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
            if self.placer is not None:
                shows = self.placer.shows
                labels = [lab for lab in labels if shows(text_box(*lab, fs, bold=True))]
            out.append(svg.text_run(labels, font_size=fs, bold=True, fill=ink))
        out.append(svg.path(self.stars, fill=HEAD_GOLD, stroke=HEAD_EDGE, stroke_width=1))
        out.append(svg.path(self.badges, fill=HEAD_GOLD, stroke="#3b2f00", stroke_width=0.8))
        badges = self.badge_texts
        if self.placer is not None:
            badges = [lab for lab in badges if self.placer.shows(text_box(*lab, 9, bold=True))]
        out.append(svg.text_run(badges, font_size=9, bold=True, fill="#3b2f00"))
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
        # on the whole map exactly over the objective's value (one label); on the detail clear of
        # the value at the hex's foot (hidden by the tile)
        whole = geo is WHOLE
        self.cover_texts.append((cx, cy + geo.r * (0.3 if whole else 0.2), value, geo.r * (0.8 if whole else 0.7)))

    def held(self, geo: Geo, h: Hex) -> None:
        self.rings.polygon(geo.corners(h, 0.9))

    def svg(self) -> str:
        out = [svg.path(self.covers, fill=COVER, stroke=COVER_EDGE, stroke_width=1.2)]
        by_size: dict[float, list[tuple[float, float, str]]] = {}
        for x, y, value, fs in self.cover_texts:
            by_size.setdefault(fs, []).append((x, y, value))
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


def _draw_units(geo: Geo, units: Sequence[Mapping[str, Any]], detail: bool, only: frozenset[Hex] | None,
                placer: Placer | None = None) -> str:
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
    counters = _Counters(detail, placer)
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


def _draw_pieces(geo: Geo, view: Mapping[str, Any], only: frozenset[Hex] | None, scale: float,
                 placer: Placer | None = None) -> str:
    """The pieces on ``geo``; with ``placer`` (the detail, its counters taken) each piece's box is
    taken, and a covered objective's value a counter stands on is left out (the tile shows it)."""
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
            _take_around(placer, geo.centre(h), geo.r * 0.75, geo.r * 0.5)
    for label in _strs(view.get("jams")):
        h = _hex(label)
        if ok(h):
            assert h is not None
            pieces.jam(*geo.centre(h), geo.r)
            _take_around(placer, geo.centre(h), geo.r * 0.95, geo.r * 0.5)
    for s in _dicts(view.get("smoke")):
        h = _hex(s.get("hex"))
        if ok(h):
            assert h is not None
            pieces.smoke(*geo.centre(h), geo.r)
            _take_around(placer, geo.centre(h), geo.r * 0.8, geo.r * 0.65)
    if placer is not None:
        pieces.cover_texts = [c for c in pieces.cover_texts if placer.label(*c[:3], c[3], bold=True)]
    return pieces.svg()


def _take_around(placer: Placer | None, centre: Point, half_w: float, half_h: float) -> None:
    if placer is not None:
        placer.take((centre[0] - half_w, centre[1] - half_h, centre[0] + half_w, centre[1] + half_h))


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
        self.callouts: list[tuple[float, float, str]] = []  # plates asked for, placed by settle()
        self.notes: list[tuple[Point, Point, str]] = []  # (from, to, note) of arrests, placed by settle()
        self.taken: list[Box] = []  # the bursts: no name goes over them
        self.lines_taken: list[Box] = []  # the lines, likewise
        self.settled = False

    def side(self, uid: str) -> str:
        u = self.units.get(uid)
        if u is not None and u.get("side") in (CORTEO, POTERE):
            return str(u["side"])
        code = uid.rstrip("0123456789")
        return POTERE if code in ("BL", "CE", "LA", "CA", "PI", "VI", "FI", "PRE", "COM") else CORTEO

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
        self._trace(run)
        style = {"retreat": "retreat", "panic": "panic", "metro": "metro", "arrest": "arrest", "offmap": "retreat"}
        self.lines.setdefault((ink, style.get(kind, "move")), Path()).polyline(body)
        self.heads.setdefault(ink, Path()).polygon(svg.arrowhead(end, run[-2], head_len, head_len * 0.9))
        if self.detail and kind == "arrest":
            self.notes.append((pts[0], pts[-1], self.arrested.format(unit=uid)))

    def throw(self, t: Mapping[str, Any]) -> None:
        origin, hit, target = _hex(t.get("origin")), _hex(t.get("hit")), _hex(t.get("target"))
        if origin is None or hit is None:
            return
        units = _strs(t.get("units"))
        side = self.side(units[0]) if units else CORTEO
        a, b = self.geo.centre(origin), self.geo.centre(hit)
        a2, b2 = svg.shorten(a, b, self.geo.r * 0.3, self.geo.r * 0.15)
        self.lines.setdefault((side, "throw"), Path()).segment(a2, b2)
        self._trace([a2, b2])
        self.bursts.polygon(_star(b[0], b[1] - self.geo.r * 0.1, self.geo.r * 0.3, self.geo.r * 0.14, 7))
        self._burst(b[0], b[1] - self.geo.r * 0.1, self.geo.r * 0.3)
        if target is not None and target != hit:
            c = self.geo.centre(target)
            self.lines.setdefault((side, "throw"), Path()).segment(b, c)
            self._trace([b, c])
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
        self._burst(mx, my, self.geo.r * 0.42)
        if self.detail:
            self._plate(mx, my + self.geo.r * 0.5, str(f.get("result") or "?"))

    def _trace(self, run: Sequence[Point]) -> None:
        """Small boxes along a line of the detail: names keep off the record's lines."""
        if not self.detail:
            return
        half = 3.6 * self.k + 2
        for (x0, y0), (x1, y1) in zip(run, run[1:]):
            n = max(1, int(math.hypot(x1 - x0, y1 - y0) // (half * 1.5)))
            for i in range(n + 1):
                x, y = x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n
                self.lines_taken.append((x - half, y - half, x + half, y + half))

    def _burst(self, x: float, y: float, radius: float) -> None:
        if self.detail:
            self.taken.append((x - radius, y - radius, x + radius, y + radius))

    def _plate(self, x: float, y: float, label: str) -> None:
        self.callouts.append((x, y, label))

    def settle(self, placer: Placer | None = None) -> None:
        """Place the callouts (the results' plates, the arrests' notes) after what stays where it
        is (counters, hex labels): each at the first free spot near its fight, throw or arrest
        (issue 19.7), else where it was asked for; then the bursts and lines are taken too."""
        if self.settled:
            return
        self.settled = True
        r = self.geo.r
        for x, y, label in self.callouts:
            w = svg.text_width(label, 12, bold=True) + 10
            spots = [(x, y), (x, y + 0.3 * r), (x, y - 0.3 * r), (x + w / 2 + 0.3 * r, y), (x - w / 2 - 0.3 * r, y),
                     (x, y + 0.55 * r), (x, y - 0.55 * r)]
            for d in (0.8, 1.1):  # farther out, all round
                spots += [(x + d * r * math.cos(a), y + d * r * math.sin(a))
                          for a in (math.pi / 2, -math.pi / 2, 0, math.pi, 1, 2.14, -1, -2.14)]
            boxes = [(sx - w / 2, sy - 9, sx + w / 2, sy + 9) for sx, sy in spots]
            i = placer.first_free(boxes) if placer is not None else 0
            if i is None:
                if placer is not None and not placer.shows(boxes[0]):
                    continue  # out of the detail's frame
                i = 0
                placer.take(boxes[0]) if placer is not None else None
            sx, sy = spots[i]
            self.plates.round_rect(sx - w / 2, sy - 9, w, 18, 4)
            self.results.append((sx, sy + 4.5, label))
        for (x, y), (tx, ty), note in self.notes:
            # under the arrested unit's hex, else along its line to the prison, else beside the hex
            spots = [(x, y + r * 0.95)]
            length = math.hypot(tx - x, ty - y) or 1.0
            for d in (1.1, 1.7, 2.3, 2.9, 3.5):
                if d * r < length:
                    spots.append((x + (tx - x) * d * r / length, y + (ty - y) * d * r / length + 3.5))
            w = svg.text_width(note, 10.5, bold=True)
            spots += [(x + w / 2 + 0.55 * r, y + 3.5), (x - w / 2 - 0.55 * r, y + 3.5)]
            spot = placer.place(spots, note, 10.5, bold=True) if placer is not None else spots[0]
            if spot is not None:
                self.labels.append((*spot, note))
        if placer is not None:
            placer.take_all(self.taken)
            placer.take_all(self.lines_taken)

    def _where(self, uids: Sequence[str], before: Mapping[str, str]) -> list[Point]:
        out = []
        for uid in uids:
            loc = before.get(uid) or str((self.units.get(uid) or {}).get("loc") or "")
            h = _hex(loc)
            if h is not None:
                out.append(self.geo.centre(h))
        return out

    def svg(self) -> str:
        self.settle()
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
