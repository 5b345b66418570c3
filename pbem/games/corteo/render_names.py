"""The map of Corteo, the City's texts: the marks bound to a hex (metro M, caserma and exit numbers,
objective values and categories, hex labels) and the names (streets, squares, areas, buildings,
stations, gates), placed so that none covers another (issue 19.7).

On the whole map everything is static: the marks are taken first, the names go to the first
free spot near their place (:class:`pbem.games.corteo.render_labels.Placer`). On the detail the
hex labels and objective values are static (they sit at the hex's top and bottom, where no counter
reaches); the other marks and the names are placed on every map around its counters, pieces and
callouts, and a mark a counter stands on is left out (the hex's colour still tells).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from pbem.games.corteo.city import Hex
from pbem.games.corteo.render_labels import Placer, inside, text_box
from pbem.games.corteo.render_style import (
    OBJ_INK, VIEW_H, VIEW_W, VIEW_X, VIEW_Y, WALL, WHOLE, Geo, _city, _fit,
)
from pbem.render import svg

#: The detail's visible rectangle: a text not wholly inside is not drawn.
VIEW_BOX = (VIEW_X, VIEW_Y, VIEW_X + VIEW_W, VIEW_Y + VIEW_H)
STREET_INK = "#3a3630"


class Marks(NamedTuple):
    """One run of marks: same size, weight and ink."""

    size: float
    bold: bool
    fill: str
    labels: list[tuple[float, float, str]]

    def svg(self) -> str:
        return svg.text_run(self.labels, font_size=self.size, bold=self.bold, fill=self.fill)

    def boxes(self) -> Iterator[tuple[float, float, float, float]]:
        for x, y, t in self.labels:
            yield text_box(x, y, t, self.size, bold=self.bold)


def fixed_marks(geo: Geo, hexes: frozenset[Hex]) -> list[Marks]:
    """The marks that never move: every mark on the whole map; on the detail, the hex labels (only
    where a unit may stand: nobody enters caseggiati and the river, C 4c) and objective values."""
    city = _city()
    r = geo.r
    if geo is not WHOLE:
        light, dark = Marks(r * 0.2, False, "#5d574c", []), Marks(r * 0.2, False, "#f2ece0", [])
        for h in sorted(hexes):
            t = city.terrain(h)
            if t not in ("caseggiato", "fiume"):
                x, y = geo.centre(h)
                (dark if t in ("case_popolari", "caserma") else light).labels.append((x, y - r * 0.64, h.label))
        values = Marks(r * 0.34, True, OBJ_INK, [])
        for o in city.objectives:
            for h in o.hexes:
                if h in hexes:
                    cx, cy = geo.centre(h)
                    values.labels.append((cx, cy + r * 0.72, str(o.value)))
        runs = [light, dark, values]
        return [m._replace(labels=[lab for lab, box in zip(m.labels, m.boxes()) if inside(box, VIEW_BOX)])
                for m in runs]
    return [*hex_marks(geo, hexes), Marks(r * 0.8, True, OBJ_INK, [
        (geo.centre(h)[0], geo.centre(h)[1] + r * 0.3, str(o.value)) for o in city.objectives for h in o.hexes
        if h in hexes])]


def hex_marks(geo: Geo, hexes: frozenset[Hex]) -> list[Marks]:
    """Metro stations' M, caserme numbers and their exits' numbers (C 3a, 6c); on the detail the
    objectives' categories too (C 12b)."""
    city = _city()
    r = geo.r
    detail = geo is not WHOLE
    ms = Marks(r * 0.66, True, "#ffffff", [])
    for h in city.hexes_of("metro"):
        if h in hexes:
            cx, cy = geo.centre(h)
            ms.labels.append((cx, cy + r * 0.24, "M"))
    numbers = Marks(r * (0.5 if detail else 0.72), True, "#ffffff", [])
    exits = Marks(r * (0.3 if detail else 0.46), True, "#ffffff", [])
    for c in city.caserme:
        for h in c.hexes:
            if h in hexes:
                cx, cy = geo.centre(h)
                numbers.labels.append((cx, cy - r * 0.2 if detail else cy + r * 0.26, str(c.number)))
        for e in c.exits:
            if e in hexes:
                ex, ey = exit_disc(geo, e)
                exits.labels.append((ex, ey + r * (0.09 if detail else 0.15), str(c.number)))
    out = [ms, numbers, exits]
    if detail:
        cats = Marks(r * 0.17, True, OBJ_INK, [])
        for o in city.objectives:
            for h in o.hexes:
                if h in hexes:
                    cx, cy = geo.centre(h)
                    cats.labels.append((cx, cy - r * 0.38, _fit(o.category, r * 0.17, geo.w * 0.86, bold=True)))
        out.append(cats)
    return out


def exit_disc(geo: Geo, h: Hex) -> tuple[float, float]:
    """The centre of a caserma exit's numbered disc: the hex's centre on the whole map, its upper
    right on the detail (clear of the counters)."""
    cx, cy = geo.centre(h)
    return (cx + geo.r * 0.42, cy - geo.r * 0.38) if geo is not WHOLE else (cx, cy)


def _free_marks(marks: Sequence[Marks], placer: Placer) -> str:
    """The marks whose spot is free (a counter or a callout may stand on it), each then taken."""
    out = []
    for m in marks:
        shown = [lab for lab in m.labels if placer.label(*lab, m.size, bold=m.bold)]
        out.append(m._replace(labels=shown).svg())
    return "".join(out)


def _spots(geo: Geo, centre: tuple[float, float], hexes: Sequence[Hex], size: float,
           below: float) -> list[tuple[float, float]]:
    """Anchor points (baselines) for a name: its place's centre, a little above and below it, then
    on each of its hexes from the middle out (``below`` of the hex, then its centre)."""
    x, y = centre
    r = geo.r
    base = size * 0.35
    out = [(x, y + base), (x, y + base + 0.45 * r), (x, y + base - 0.45 * r)]
    for dx in (0.5, -0.5, 1.0, -1.0):
        out.append((x + dx * geo.w, y + base))
    ordered = sorted(hexes, key=lambda h: math.dist(geo.centre(h), centre))
    for h in ordered:
        cx, cy = geo.centre(h)
        out += [(cx, cy + base + below), (cx, cy + base), (cx, cy + base - 0.3 * r)]
    for dy in (0.0, 0.45, -0.45, 0.9, -0.9):  # farther around, beside its neighbours
        for dx in (1.5, -1.5, 2.0, -2.0):
            out.append((x + dx * geo.w, y + base + dy * r))
    if hexes:  # a place full of counters: named just above or below it
        ys = [geo.centre(h)[1] for h in hexes]
        for edge in (min(ys) - 0.95 * r, max(ys) + 0.95 * r):
            out += [(x + dx * geo.w, edge + base) for dx in (0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5)]
    return out


def _free_along(placer: Placer, centre: tuple[float, float], angle: float, name: str, size: float) -> bool:
    """Whether a name turned by ``angle`` about ``centre`` covers nothing taken (its band is
    measured as small boxes along its line), then taken."""
    width = svg.text_width(name, size)
    ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    half = size * 0.5
    n = max(1, int(width // size))
    boxes = []
    for i in range(n + 1):
        d = -width / 2 + width * i / n
        x, y = centre[0] + ux * d, centre[1] + uy * d
        boxes.append((x - half, y - half, x + half, y + half))
    if not all(placer.free(b) for b in boxes):
        return False
    placer.take_all(boxes)
    return True


def _street_names(geo: Geo, hexes: frozenset[Hex], size: float, placer: Placer) -> list[str]:
    """Street and bridge names along their hexes shown: slanted along a slanted street, else level
    at the first free spot near the street's middle."""
    city = _city()
    out: list[str] = []
    detail = geo is not WHOLE
    for street in city.streets + city.bridges:
        shown = [h for h in street.hexes if h in hexes]
        if len(shown) < (1 if detail else 3):
            continue
        a, b = geo.centre(shown[0]), geo.centre(shown[-1])
        angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) if len(shown) >= 2 else 0.0
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
        if svg.text_width(name, fs) > length and not detail:
            fs = max(size * 0.8, fs * length / svg.text_width(name, fs))
        halo = not detail or svg.text_width(name, fs) > length - geo.w * 0.5
        if abs(angle) >= 1:  # along the street: on the detail at the first stretch free of counters
            if detail:
                pts = [geo.centre(h) for h in shown]
                pts += [((p[0] + q[0]) / 2, (p[1] + q[1]) / 2) for p, q in zip(pts, pts[1:])]
                centres = [(mx, my)] + sorted(pts, key=lambda c: math.dist(c, (mx, my)))
                found = next((c for c in centres if _free_along(placer, c, angle, name, fs)), None)
                if found is None:
                    continue
                mx, my = found
            dy = fs * 0.35
            transform = f"rotate({svg.num(angle)} {svg.num(mx)} {svg.num(my)})"
            if halo:
                out.append(svg.halo_text(mx, my + dy, name, font_size=fs, fill=STREET_INK, text_anchor="middle",
                                         transform=transform, halo_width=2.6, halo_opacity=0.85))
            else:
                out.append(svg.text(mx, my + dy, name, font_size=fs, fill=STREET_INK, text_anchor="middle",
                                    transform=transform))
            continue
        # level: under the hexes' middle on the detail (the counters stand in the middle)
        below = 0.62 * geo.r if detail else 0.45 * geo.r
        spot = placer.place(_spots(geo, (mx, my + (below if detail else 0.0)), shown, fs, below), name, fs)
        if detail and spot is None:
            continue
        if spot is None:  # the whole map names every street: where it always was
            spot = (mx, my + fs * 0.35)
        if halo:
            out.append(svg.halo_text(*spot, name, font_size=fs, fill=STREET_INK, text_anchor="middle",
                                     halo_width=2.6, halo_opacity=0.85))
        else:  # on its own street: no halo needed (and half the text to draw)
            out.append(svg.text(*spot, name, font_size=fs, fill=STREET_INK, text_anchor="middle"))
    return out


def names(geo: Geo, hexes: frozenset[Hex], placer: Placer) -> str:
    """The names of the City shown on ``geo``: squares first (the places the game speaks of),
    then gates, areas, buildings and stations, then streets; each where it covers nothing
    ``placer`` has taken."""
    city = _city()
    detail = geo is not WHOLE
    r = geo.r
    size = max(9.5, r * 0.22) if detail else 8.6
    squares: list[tuple[float, float, str]] = []
    others: list[tuple[float, float, str]] = []
    gates: list[tuple[float, float, str]] = []

    def place(name: str, shown: Sequence[Hex], fs: float, bold: bool, into: list[tuple[float, float, str]],
              drop: float = 0.0) -> None:
        pts = [geo.centre(h) for h in shown]
        centre = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts) + drop)
        spot = placer.place(_spots(geo, centre, shown, fs, 0.62 * r), name, fs, bold=bold)
        if spot is None and not detail:
            spot = (centre[0], centre[1] + fs * 0.35)
        if spot is not None:
            into.append((*spot, name))

    for s in city.squares:
        shown = [h for h in s.hexes if h in hexes]
        if shown:
            place(s.name, shown, size + 1, True, squares)
    for g in city.gates:
        h1, h2 = g.side.hexes
        if h1 not in hexes and h2 not in hexes:
            continue
        p, q = geo.side(g.side.hex, g.side.direction)
        gx, gy = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
        # beside the gate, right or left, above or below the wall's line; then over or under it
        w = svg.text_width(g.name, size, bold=True)
        lefts = [(gx + r * 0.2, gy - r * 0.15), (gx + r * 0.2, gy + r * 0.15 + size * 0.7),
                 (gx - r * 0.2 - w, gy - r * 0.15), (gx - r * 0.2 - w, gy + r * 0.15 + size * 0.7),
                 (gx - w / 2, gy - r * 0.45), (gx - w / 2, gy + r * 0.45 + size * 0.7)]
        spot = placer.place(lefts, g.name, size, bold=True, anchor="start")
        if spot is None and not detail:
            spot = lefts[0]
        if spot is not None:
            gates.append((*spot, g.name))
    for name, place_hexes in ([(a.name, a.hexes) for a in city.areas] + [(b.name, b.hexes) for b in city.buildings]):
        shown = [h for h in place_hexes if h in hexes]
        if shown:
            place(name, shown, size, False, others)
    if detail:
        for st in city.stations:
            shown = [h for h in st.hexes if h in hexes]
            if shown:
                place(f"Metro {st.name}", shown, size, False, others, drop=r * 0.78)
    streets = _street_names(geo, hexes, size, placer)
    return "".join([
        *streets,
        svg.text_run(squares, font_size=size + 1, bold=True, fill="#2b2a27", halo="#ffffff", halo_width=3),
        svg.text_run(others, font_size=size, fill="#1e1b16", halo="#f4efe4", halo_width=2.6, font_style="italic"),
        svg.text_run(gates, font_size=size, bold=True, anchor="start", fill=WALL, halo="#ffffff", halo_width=2.6),
    ])


def whole_texts(hexes: frozenset[Hex]) -> str:
    """Every text of the City on the whole map (static): the marks, then the names around them."""
    placer = Placer()
    marks = fixed_marks(WHOLE, hexes)
    for m in marks:
        placer.take_all(m.boxes())
    return "".join(m.svg() for m in marks) + names(WHOLE, hexes, placer)


def detail_static_texts(geo: Geo, hexes: frozenset[Hex]) -> str:
    """The detail's texts that never move (hex labels, objective values), for its static ground."""
    return "".join(m.svg() for m in fixed_marks(geo, hexes))


def detail_placer(geo: Geo, hexes: frozenset[Hex]) -> Placer:
    """The detail's placer: its frame, and the marks that never move taken."""
    placer = Placer(VIEW_BOX)
    for m in fixed_marks(geo, hexes):
        placer.take_all(m.boxes())
    return placer


def detail_texts(geo: Geo, hexes: frozenset[Hex], placer: Placer) -> str:
    """The detail's marks and names, around what ``placer`` has taken (counters, pieces, callouts)."""
    return _free_marks(hex_marks(geo, hexes), placer) + names(geo, hexes, placer)


__all__ = ["VIEW_BOX", "Marks", "detail_static_texts", "detail_texts", "exit_disc", "fixed_marks", "hex_marks",
           "names", "whole_texts", "detail_placer"]
