"""The dynamic part of the Seattle map (`pbem.games.seattle.render`): the counters, the turn's marks
(arrows, badges, combat cards, barricade tries) and the panel's entries that change every turn."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbem.core.i18n import Catalog
from pbem.render import svg, theme
from pbem.render.svg import wrap as _wrap
from pbem.render.viewdata import as_int as _int, as_dicts as _dicts, as_strs as _strs
from pbem.render.svg import Path, Point
from pbem.games.seattle.render_layout import (
    _area_name,
    AUTH,
    AUTH_ARROW,
    BARRICADE_DARK,
    BARRICADE_LIGHT,
    CONTESTED,
    COUNTER,
    COUNTER_COLOURS,
    _date,
    DEM,
    ESC_BOX_W,
    ESC_CELL_H,
    ESC_Y,
    EVENT_Y,
    FAIL_INK,
    HEX_R,
    LOG_Y,
    MAP_W,
    MAP_X,
    MAP_Y,
    _off_col_x,
    OFF_COLUMNS,
    OFF_ROW_H,
    OFF_Y,
    OK_INK,
    PAD,
    PANEL_W,
    PANEL_X,
    PITCH,
    SIDE_INK,
    STACK_TOP,
    _text,
    TITLE_H,
    _track_cell,
    TurnKey,
    UnitKey,
    UNKNOWN_COLOURS,
    VIS_BAR_H,
    VIS_BAR_Y,
    VIS_MAX,
    _vis_x,
    VIS_X1,
    VIS_Y,
    WIDTH,
)

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
        if up:  # below the bar, pointing up; the value's badge under the scale's numbers, not over them
            tip_y = VIS_BAR_Y + VIS_BAR_H + 1
            pins[side].polygon([(x, tip_y), (x + 7, tip_y + 9), (x - 7, tip_y + 9)])
            pins[side].round_rect(x - 17, tip_y + 19, 34, 18, 4)
            labels.append((x, tip_y + 32, str(value)))
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
    # On the empty stretch of the sheet between Belltown and South Lake Union (x 3.1"-7.1", y 2.8"): the card
    # hides no area, name or counter there (issue 19.7), only the transit lines crossing it.
    x = MAP_X + min(max(510 - w / 2, 40), MAP_W - 40 - w)
    y = MAP_Y + 280
    colour = SIDE_INK.get(winner, theme.INK)
    lines = _wrap(line, 17, w - 40, bold=True)[:2]
    h = 86 + 22 * len(lines)
    return (svg.rect(x, y, w, h, rx=10, fill="#ffffff", fill_opacity=0.95, stroke=colour, stroke_width=4)
            + svg.text(x + w / 2, y + 38, head, font_size=24, font_weight="bold", fill=colour, text_anchor="middle")
            + svg.text_run([(x + w / 2, y + 66 + 22 * i, t) for i, t in enumerate(lines)], font_size=17, bold=True,
                           fill=theme.INK)
            + svg.text(x + w / 2, y + h - 16, score, font_size=14, fill=theme.INK_SOFT, text_anchor="middle"))
