"""The Arditi del Popolo map: one view as an SVG document.

:func:`render_svg` reads only the view (plain JSON data from the engine's ``view()``) and
returns a complete SVG; :func:`pbem.render.raster.svg_to_png` turns it into the PNG.

Layout: a title bar (round, whose turn, the die), the round board on the left (18 rays x 5
rings, numbered squares, the central waiting square) and a side panel with the score and
the legend. Square 1 (the white dot) is at 12 o'clock; rays follow counter-clockwise.

Pieces: each corteo is a snake in its party's colour - a thick band through its squares,
a disc per militant, the committee a larger disc with a dark ring and the party's letter; a
white chevron at the front shows where the corteo marches. Headless parts are pale discs
with a dashed outline. Indifferent numbers are cream tombola chips; police are dark discs
with a chess symbol. The last move is a dashed line with an arrow; a clash is a star, an
arrest a cross. Links across the edge of the "sphere" (ring 1 to the opposite ray, ring 5
to the opposite ray) are drawn as short stubs towards the edge.

The static part (paper, rings, rays, the 90 square numbers, the legend) depends only on
the language: built once per process (:func:`_static_board`). Everything that changes is
batched: one band path per party, one disc path per party and kind, one path and one text
run for all chips, so a busy map is well under 100 elements.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pbem.core.i18n import Catalog, msg, normalise_language
from pbem.render import svg, theme
from pbem.render.cache import static_part
from pbem.render.viewdata import as_int as _int, as_dicts as _dicts
from pbem.render.svg import Path, Point

# -- geometry ---------------------------------------------------------------------------

WIDTH: Final = 1320.0
HEIGHT: Final = 960.0
PAD: Final = 16.0
TITLE_H: Final = 64.0
CX: Final = 475.0  # board centre
CY: Final = TITLE_H + 14.0 + 430.0
R_OUT: Final = 412.0  # outer edge of ring 1
R_IN: Final = 112.0  # edge of the central square
PANEL_X: Final = 946.0
RAYS: Final = 18
RINGS: Final = 5
RING_W: Final = (R_OUT - R_IN) / RINGS
TOKEN_R: Final = 13.0
COMMITTEE_R: Final = 18.0
CHIP_R: Final = 14.5
GUARD_R: Final = 16.0

LETTERS: Final = {"red": "R", "blue": "B", "green": "G", "yellow": "Y", "white": "W", "black": "K"}
SLOTS: Final = {"red": "vermillion", "blue": "blue", "green": "green", "yellow": "yellow"}
EXTRA: Final = {
    "white": theme.SideColours("white", main="#fbfaf6", dark="#4a463e", light="#ffffff", tint="#f4f2ec"),
    "black": theme.SideColours("black", main="#2f2d2a", dark="#000000", light="#8b8780", tint="#dedbd3"),
}
CHIP_FILL: Final = "#fff6dc"
CHIP_INK: Final = "#5a4320"
POLICE: Final = "#1d2b4a"
CLASH: Final = "#c0392b"
BOARD_FILL: Final = ("#f3efe3", "#ece6d6")  # alternate rings
CENTRE_FILL: Final = "#e4ddca"


def colours(seat: object) -> theme.SideColours:
    """The colours of a party (red -> the theme's vermillion, white and black are extra)."""
    s = str(seat)
    if s in EXTRA:
        return EXTRA[s]
    return theme.side_colours(SLOTS.get(s, ""))


def angle(ray: float) -> float:
    """Screen angle (radians, from 12 o'clock, counter-clockwise) of ray position ``ray``
    (0-based, fractional: 0.5 is the middle of ray 1)."""
    return math.radians(ray * 360.0 / RAYS)


def polar(theta: float, rho: float) -> Point:
    return (CX - math.sin(theta) * rho, CY - math.cos(theta) * rho)


def ray_ring(n: int) -> tuple[int, int]:
    return (n - 1) // RINGS + 1, (n - 1) % RINGS + 1


def ring_radius(ring: float) -> float:
    """Radius of the middle of ``ring`` (1 = outer)."""
    return R_OUT - (ring - 0.5) * RING_W


def centre(n: int) -> Point:
    ray, ring = ray_ring(n)
    return polar(angle(ray - 0.5), ring_radius(ring))


def is_square(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= RAYS * RINGS


def wraps(a: int, b: int) -> bool:
    """A link across the edge of the sphere (drawn as stubs, not as a line across the board)."""
    ra, ga = ray_ring(a)
    rb, gb = ray_ring(b)
    return ga == gb and ga in (1, RINGS) and (ra - rb) % RAYS == RAYS // 2


def edge_point(n: int) -> Point:
    """Where a wrap link leaves square ``n``: the outer rim for ring 1, the centre's rim for ring 5."""
    ray, ring = ray_ring(n)
    rho = R_OUT - 1 if ring == 1 else R_IN - 4
    return polar(angle(ray - 0.5), rho)


def heading(a: int, b: int) -> Point:
    """Unit vector of the step from ``a`` to its neighbour ``b`` on the map."""
    pa = centre(a)
    if wraps(a, b):
        pb = edge_point(a)
    else:
        pb = centre(b)
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    d = math.hypot(dx, dy) or 1.0
    return dx / d, dy / d


# -- texts -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _catalog() -> Catalog:
    return Catalog.from_package("pbem.games.arditi.data")


def _text(catalog: Catalog, lang: str, key: str, **args: object) -> str:
    return catalog.text(msg(key, **args), lang)


def _squares(value: object) -> list[int]:
    return [v for v in value if is_square(v)] if isinstance(value, list) else []


# -- the static board -------------------------------------------------------------------------


@static_part(maxsize=8)
def _static_board(lang: str) -> str:
    catalog = _catalog()
    out: list[str] = [svg.rect(0, 0, WIDTH, HEIGHT, fill=theme.PAPER)]
    # Rings, outer first, alternating tones; the central square on top.
    for ring in range(1, RINGS + 1):
        out.append(svg.circle(CX, CY, R_OUT - (ring - 1) * RING_W, fill=BOARD_FILL[(ring - 1) % 2]))
    out.append(svg.circle(CX, CY, R_IN, fill=CENTRE_FILL))
    grid = Path()
    for ring in range(1, RINGS):
        grid.circle(CX, CY, R_OUT - ring * RING_W)
    for ray in range(RAYS):
        a, b = polar(angle(ray), R_IN), polar(angle(ray), R_OUT)
        grid.segment(a, b)
    out.append(svg.path(grid, fill="none", stroke=theme.GRID, stroke_width=1.1))
    out.append(svg.circle(CX, CY, R_OUT, fill="none", stroke=theme.FRAME, stroke_width=2.5))
    out.append(svg.circle(CX, CY, R_IN, fill="none", stroke=theme.FRAME, stroke_width=1.8))
    # The white dot of square 1, on the rim.
    dot = polar(angle(0.5), R_OUT - RING_W * 0.12)
    out.append(svg.circle(dot[0], dot[1], 4.2, fill="#ffffff", stroke=theme.FRAME, stroke_width=1.2))
    # The 90 square numbers: small, in the outer part of each square. ONE text element.
    labels: list[tuple[float, float, str]] = []
    for n in range(1, RAYS * RINGS + 1):
        ray, ring = ray_ring(n)
        x, y = polar(angle(ray - 0.5), ring_radius(ring) + RING_W * 0.36)
        labels.append((x, y + 3.5, str(n)))
    out.append(svg.text_run(labels, font_size=10, fill=theme.INK_SOFT))
    # Ray markers outside the rim: the first square of each ray.
    rim: list[tuple[float, float, str]] = []
    for ray in range(1, RAYS + 1):
        theta = angle(ray - 0.5)
        x, y = polar(theta, R_OUT + 13 + abs(math.sin(theta)) * 16)
        rim.append((x, y + 4, f"{(ray - 1) * RINGS + 1}-{ray * RINGS}"))
    out.append(svg.text_run(rim, font_size=10.5, bold=True, fill=theme.INK_SOFT))
    out.append(_legend(catalog, lang))
    return "".join(out)


LEGEND_Y: Final = 640.0


def _legend(catalog: Catalog, lang: str) -> str:
    x0, y0 = PANEL_X, LEGEND_Y
    w, h = WIDTH - PANEL_X - PAD, HEIGHT - LEGEND_Y - PAD
    out = [svg.rect(x0, y0, w, h, rx=6, fill=theme.PAPER_DARK, stroke="#d6d0c0", stroke_width=1)]
    out.append(svg.text(x0 + 12, y0 + 24, _text(catalog, lang, "map-legend"), font_size=14, font_weight="bold",
                        fill=theme.INK))
    rows = ["map-committee", "map-militant", "map-headless", "map-number", "map-police", "map-path",
            "map-clash", "map-arrest"]
    sample = colours("blue")
    icons: list[str] = []
    texts: list[tuple[float, float, str]] = []
    for i, key in enumerate(rows):
        cy = y0 + 50 + i * 32
        cx = x0 + 30
        if key == "map-committee":
            icons.append(_committee_icon(cx, cy, "blue", (1.0, 0.0)))
        elif key == "map-militant":
            icons.append(svg.circle(cx, cy, TOKEN_R, fill=sample.main, stroke=sample.dark, stroke_width=1.5))
        elif key == "map-headless":
            icons.append(svg.circle(cx, cy, TOKEN_R, fill=sample.light, stroke=sample.main, stroke_width=2,
                                    stroke_dasharray="4 3"))
        elif key == "map-number":
            icons.append(svg.circle(cx, cy, CHIP_R, fill=CHIP_FILL, stroke=CHIP_INK, stroke_width=1.4))
            icons.append(svg.text(cx, cy + 4.5, "23", font_size=12.5, font_weight="bold", fill=CHIP_INK,
                                  text_anchor="middle"))
        elif key == "map-police":
            icons.append(svg.circle(cx, cy, GUARD_R, fill=POLICE))
            icons.append(svg.text(cx, cy + 7, "♟", font_size=21, fill="#ffffff", text_anchor="middle"))
        elif key == "map-path":
            icons.append(svg.line(cx - 18, cy, cx + 12, cy, stroke=theme.INK, stroke_width=2.6,
                                  stroke_dasharray="7 4"))
            icons.append(svg.polygon(svg.arrowhead((cx + 20, cy), (cx, cy), 11, 10), fill=theme.INK))
        elif key == "map-clash":
            icons.append(svg.polygon(_star(cx, cy, 15, 7), fill="none", stroke=CLASH, stroke_width=2.4))
        else:
            icons.append(_cross(cx, cy, 11))
        texts.append((x0 + 64, cy + 4.5, _text(catalog, lang, key)))
    out.extend(icons)
    out.append(svg.text_run(texts, font_size=theme.LEGEND_SIZE, anchor="start", fill=theme.INK))
    return "".join(out)


# -- pieces ----------------------------------------------------------------------------------


def _star(cx: float, cy: float, r_out: float, r_in: float, points: int = 8) -> list[Point]:
    pts = []
    for i in range(points * 2):
        r = r_out if i % 2 == 0 else r_in
        a = math.pi * i / points
        pts.append((cx + math.sin(a) * r, cy - math.cos(a) * r))
    return pts


def _cross(cx: float, cy: float, r: float) -> str:
    p = Path().segment((cx - r, cy - r), (cx + r, cy + r)).segment((cx - r, cy + r), (cx + r, cy - r))
    return svg.path(p, fill="none", stroke=CLASH, stroke_width=4, stroke_linecap="round")


def _chevron(cx: float, cy: float, ux: float, uy: float, reach: float, size: float) -> list[Point]:
    """A chevron-like arrowhead centred ``reach`` from the disc centre, pointing along (ux, uy)."""
    tip = (cx + ux * (reach + size * 0.6), cy + uy * (reach + size * 0.6))
    tail = (cx + ux * reach, cy + uy * reach)
    return svg.arrowhead(tip, (tail[0] - ux, tail[1] - uy), size, size * 1.25)


def _committee_icon(cx: float, cy: float, seat: str, facing: tuple[float, float] | None) -> str:
    c = colours(seat)
    out = [svg.circle(cx, cy, COMMITTEE_R, fill=c.main, stroke=theme.INK, stroke_width=3)]
    ink = "#ffffff" if seat not in ("white", "yellow") else theme.INK
    out.append(svg.text(cx, cy + 5.5, LETTERS.get(seat, "?"), font_size=16, font_weight="bold", fill=ink,
                        text_anchor="middle"))
    if facing is not None:
        out.append(svg.polygon(_chevron(cx, cy, facing[0], facing[1], COMMITTEE_R + 1, 12), fill=theme.INK,
                               stroke="#ffffff", stroke_width=1.2))
    return "".join(out)


def wrap_labels(a: int, b: int) -> list[tuple[float, float, str]]:
    """The labels of a link across the edge, at both ends: each names the square on the other side."""
    out = []
    for here, there in ((a, b), (b, a)):
        ray, ring = ray_ring(here)
        if ring == 1:  # inside the rim, beside the square's own number
            lx, ly = polar(angle(ray - 0.5 + 0.3), R_OUT - 11)
        else:  # inside the central square
            lx, ly = polar(angle(ray - 0.5), R_IN - 20)
        out.append((lx, ly + 3.5, f"↔{there}"))
    return out


class _Snakes:
    """All cortei: bands, discs, committees, fronts."""

    def __init__(self) -> None:
        self.bands: list[str] = []
        self.discs: list[str] = []
        self.marks: list[str] = []
        self.wrap_labels: list[tuple[float, float, str]] = []

    def band(self, squares: Sequence[int], c: theme.SideColours, headless: bool) -> None:
        p = Path()
        run: list[Point] = []
        for i, sq in enumerate(squares):
            if i and wraps(squares[i - 1], sq):
                prev = squares[i - 1]
                if len(run) > 1:
                    p.polyline(run)
                p.segment(centre(prev), edge_point(prev))
                p.segment(edge_point(sq), centre(sq))
                # Where the corteo goes on across the edge: the square on the other side.
                self.wrap_labels += wrap_labels(prev, sq)
                run = [centre(sq)]
            else:
                run.append(centre(sq))
        if len(run) > 1:
            p.polyline(run)
        if p:
            main = "#b9b3a6" if c.name == "white" else c.main  # a white band would vanish on the board
            self.bands.append(svg.path(p, fill="none", stroke=c.light if headless else main,
                                       stroke_width=11 if headless else 15, stroke_linecap="round",
                                       stroke_linejoin="round", stroke_opacity=0.85 if headless else 0.55))

    def party(self, party: Mapping[str, Any]) -> None:
        seat = str(party.get("seat") or "")
        c = colours(seat)
        squares = _squares(party.get("squares"))
        for part in party.get("headless") or []:
            sq = _squares(part)
            if not sq:
                continue
            self.band(sq, c, True)
            dots = Path()
            for n in sq:
                dots.circle(*centre(n), TOKEN_R - 1)
            self.discs.append(svg.path(dots, fill=c.light, stroke=c.main, stroke_width=2.2,
                                       stroke_dasharray="4 3"))
        if not squares:
            return
        self.band(squares, c, False)
        committee = _int(party.get("committee"), 0)
        committee = committee if 0 <= committee < len(squares) else 0
        dots = Path()
        for i, n in enumerate(squares):
            if i != committee:
                dots.circle(*centre(n), TOKEN_R)
        if dots:
            self.discs.append(svg.path(dots, fill=c.main, stroke=c.dark, stroke_width=1.6))
        front = squares[0]
        ahead = party.get("ahead")
        facing = heading(front, ahead) if is_square(ahead) and isinstance(ahead, int) else None
        cx, cy = centre(squares[committee])
        if committee == 0:
            self.marks.append(_committee_icon(cx, cy, seat, facing))
        else:
            self.marks.append(_committee_icon(cx, cy, seat, None))
            if facing is not None:
                fx, fy = centre(front)
                self.marks.append(svg.polygon(_chevron(fx, fy, facing[0], facing[1], TOKEN_R + 1, 11),
                                              fill=theme.INK, stroke="#ffffff", stroke_width=1.2))


def _chips(numbers: Sequence[tuple[Point, int]], size: float = CHIP_R) -> str:
    if not numbers:
        return ""
    discs = Path()
    labels: list[tuple[float, float, str]] = []
    for (x, y), n in numbers:
        discs.circle(x, y, size)
        labels.append((x, y + size * 0.3, str(n)))
    return (svg.path(discs, fill=CHIP_FILL, stroke=CHIP_INK, stroke_width=1.4)
            + svg.text_run(labels, font_size=size * 0.86, bold=True, fill=CHIP_INK))


def _guards(guards: list[dict[str, Any]]) -> str:
    glyphs = {"pawn": "♟", "bishop": "♝", "knight": "♞", "rook": "♜", "queen": "♛", "king": "♚"}
    discs = Path()
    labels: list[tuple[float, float, str]] = []
    for g in guards:
        sq = g.get("square")
        if not is_square(sq) or not isinstance(sq, int):
            continue
        x, y = centre(sq)
        discs.circle(x, y, GUARD_R)
        labels.append((x, y + 7.5, glyphs.get(str(g.get("piece")), "?")))
    if not labels:
        return ""
    return (svg.path(discs, fill=POLICE, stroke="#ffffff", stroke_width=1.5)
            + svg.text_run(labels, font_size=22, fill="#ffffff"))


def _last_move(move: Mapping[str, Any], labels: list[tuple[float, float, str]]) -> str:
    """The move's dashed path; a step across the edge adds its labels at both ends to ``labels``
    (the docs promise them; two bare stubs would not say where the move went)."""
    path = _squares(move.get("path"))
    out: list[str] = []
    if len(path) > 1:
        p = Path()
        run: list[Point] = [centre(path[0])]
        last_dir: tuple[Point, Point] | None = None
        for a, b in itertools.pairwise(path):
            if wraps(a, b):
                p.polyline(run + [edge_point(a)])
                run = [edge_point(b), centre(b)]
                labels += [lab for lab in wrap_labels(a, b) if lab not in labels]
            else:
                run.append(centre(b))
            last_dir = (run[-2], run[-1]) if len(run) > 1 else None
        if len(run) > 1:
            end = svg.shorten(run[-2], run[-1], 0, TOKEN_R + 3)[1]
            p.polyline(run[:-1] + [end])
            last_dir = (run[-2], end)
        out.append(svg.path(p, fill="none", stroke=theme.INK, stroke_width=3, stroke_dasharray="8 5",
                            stroke_linecap="round", stroke_linejoin="round", stroke_opacity=0.9))
        if last_dir is not None:
            out.append(svg.polygon(svg.arrowhead(last_dir[1], last_dir[0], 13, 12), fill=theme.INK))
        sx, sy = centre(path[0])
        out.append(svg.circle(sx, sy, TOKEN_R + 5, fill="none", stroke=theme.INK, stroke_width=2,
                              stroke_dasharray="3 3"))
    for c in _dicts(move.get("clashes")):
        at = c.get("at")
        if is_square(at) and isinstance(at, int):
            x, y = centre(at)
            out.append(svg.polygon(_star(x, y, 22, 10), fill="none", stroke=CLASH, stroke_width=3))
    return "".join(out)


def _arrests(police: Mapping[str, Any]) -> str:
    out = []
    for a in _dicts(police.get("acts")):
        if a.get("result") == "arrest" and is_square(a.get("square")):
            x, y = centre(int(a["square"]))
            out.append(_cross(x + 13, y - 13, 6))
    return "".join(out)


def _setup_note(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    """The start, before the draws: the seats that will draw, in the central square."""
    seats = ", ".join(_text(catalog, lang, f"seat-{s}") for s in view.get("seats") or ())
    lines = [_text(catalog, lang, "map-setup-note"), _text(catalog, lang, "map-setup-note-what"), seats]
    return "".join(svg.text(CX, CY - 18 + 18 * i, line, font_size=12, fill=theme.INK, text_anchor="middle",
                            font_style="italic") for i, line in enumerate(lines))


def _waiting(numbers: list[int], catalog: Catalog, lang: str) -> str:
    out = [svg.text(CX, CY - 62, _text(catalog, lang, "map-waiting"), font_size=12, fill=theme.INK_SOFT,
                    text_anchor="middle", font_style="italic")]
    if not numbers:
        return "".join(out)
    count = len(numbers)
    spots: list[tuple[Point, int]] = []
    per_row = 4
    rows = math.ceil(count / per_row)
    for i, n in enumerate(numbers[:12]):
        row, col = divmod(i, per_row)
        in_row = min(per_row, count - row * per_row)
        x = CX + (col - (in_row - 1) / 2) * 30
        y = CY - 30 + row * 30 - (rows - 1) * 6
        spots.append(((x, y), n))
    out.append(_chips(spots, 12.5))
    return "".join(out)


# -- the panel --------------------------------------------------------------------------------


def _panel(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    x0, y0 = PANEL_X, TITLE_H + 8
    w = WIDTH - PANEL_X - PAD
    parties = _dicts(view.get("parties"))
    h = LEGEND_Y - y0 - 12
    out = [svg.rect(x0, y0, w, h, rx=6, fill="#fbf9f3", stroke="#d6d0c0", stroke_width=1)]
    out.append(svg.text(x0 + 12, y0 + 26, _text(catalog, lang, "map-scores"), font_size=16, font_weight="bold",
                        fill=theme.INK))
    outcome = view.get("outcome") if isinstance(view.get("outcome"), dict) else None
    winners = set(outcome.get("winners") or []) if outcome else set()
    to_move = view.get("to_move")
    row_h = min(80.0, (h - 44) / max(1, len(parties)))
    for i, p in enumerate(parties):
        seat = str(p.get("seat") or "")
        top = y0 + 40 + i * row_h
        if seat == to_move:
            out.append(svg.rect(x0 + 6, top - 2, w - 12, row_h - 6, rx=6, fill=colours(seat).tint,
                                stroke=colours(seat).main, stroke_width=2))
        out.append(_committee_icon(x0 + 32, top + 24, seat, None))
        name = _text(catalog, lang, f"seat-{seat}")
        if seat in winners:
            name += "  ★ " + _text(catalog, lang, "map-winner")
        out.append(svg.text(x0 + 60, top + 18, name, font_size=15, font_weight="bold", fill=theme.INK))
        out.append(svg.text(x0 + 60, top + 37, _text(catalog, lang, "map-score-line",
                                                     militants=_int(p.get("militants")), points=_int(p.get("score"))),
                            font_size=13, fill=theme.INK))
        detail = _text(catalog, lang, "map-score-detail", isolated=_int(p.get("isolated")),
                       arrested=_int(p.get("arrested")))
        out.append(svg.text(x0 + 60, top + 54, detail, font_size=11.5, fill=theme.INK_SOFT))
        # A bar of the corteo's length towards 12.
        length = min(12, _int(p.get("militants")))
        out.append(svg.rect(x0 + w - 24 - 12 * 7, top + 8, 12 * 7, 8, rx=3, fill="#e7e2d5"))
        if length:
            out.append(svg.rect(x0 + w - 24 - 12 * 7, top + 8, 7 * length, 8, rx=3, fill=colours(seat).main,
                                stroke=colours(seat).dark, stroke_width=0.8))
    return "".join(out)


def _die(x: float, y: float, value: int, size: float = 34) -> str:
    out = [svg.rect(x, y, size, size, rx=6, fill="#ffffff", stroke=theme.INK, stroke_width=2)]
    pips = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
            4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
            6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}.get(value, [])
    p = Path()
    for dx, dy in pips:
        p.circle(x + size / 2 + dx * size * 0.27, y + size / 2 + dy * size * 0.27, size * 0.085)
    out.append(svg.path(p, fill=theme.INK))
    return "".join(out)


def _title(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    out = [svg.text(PAD, 36, _text(catalog, lang, "map-title", round=_int(view.get("round"))),
                    font_size=theme.TITLE_SIZE, font_weight="bold", fill=theme.INK)]
    stage = view.get("stage")
    x = PAD + svg.text_width(_text(catalog, lang, "map-title", round=_int(view.get("round"))), theme.TITLE_SIZE,
                             bold=True) + 20
    if stage == "over":
        status = _text(catalog, lang, "map-over")
    elif stage == "setup":
        status = _text(catalog, lang, "map-setup")
    elif stage == "police":
        status = _text(catalog, lang, "map-police-stage")
    else:
        status = _text(catalog, lang, "map-to-move", seat=_text(catalog, lang, f"seat-{view.get('to_move')}"),
                       roll=_int(view.get("roll")))
    out.append(svg.text(x, 36, status, font_size=17, fill=theme.INK))
    x += svg.text_width(status, 17) + 14
    roll = _int(view.get("roll"))
    if stage == "move" and 1 <= roll <= 6:
        out.append(_die(x, 12, roll))
    out.append(svg.text(WIDTH - PAD, 36, _text(catalog, lang, "map-bag", count=_int(view.get("bag"))),
                        font_size=14, fill=theme.INK_SOFT, text_anchor="end"))
    out.append(svg.line(PAD, TITLE_H - 4, WIDTH - PAD, TITLE_H - 4, stroke="#d6d0c0", stroke_width=1))
    return "".join(out)


# -- the document -----------------------------------------------------------------------------


def render_svg(view: Mapping[str, Any], catalog: Catalog | None = None, *, lang: str | None = None) -> str:
    """The map of an Arditi view as a complete SVG document (labels in the view's ``lang``)."""
    catalog = catalog or _catalog()
    code = normalise_language(lang or str(view.get("lang") or "en"))
    canvas = svg.Canvas(WIDTH, HEIGHT, layers=("board", "bands", "chips", "discs", "path", "marks", "panel",
                                               "title"), static=("board",),  # drawn once per process and width
                        title=_text(catalog, code, "map-title", round=_int(view.get("round"))))
    canvas.add(_static_board(code), layer="board")
    snakes = _Snakes()
    for party in _dicts(view.get("parties")):
        snakes.party(party)
    canvas.add(*snakes.bands, layer="bands")
    canvas.add(*snakes.discs, layer="discs")
    canvas.add(*snakes.marks, layer="marks")
    labels = list(dict.fromkeys(snakes.wrap_labels))
    last = view.get("last_move")
    if isinstance(last, dict):
        canvas.add(_last_move(last, labels), layer="path")
    if labels:
        canvas.add(svg.text_run(labels, font_size=10.5, bold=True, fill=theme.INK, halo=theme.HALO),
                   layer="marks")
    chips = [(centre(n), n) for n in _squares(view.get("numbers"))]
    canvas.add(_chips(chips), layer="chips")
    canvas.add(_guards(_dicts(view.get("guards"))), layer="marks")
    if view.get("stage") == "setup":  # the start: nothing drawn yet, say what comes
        canvas.add(_setup_note(view, catalog, code), layer="chips")
    else:
        canvas.add(_waiting(_squares(view.get("waiting")), catalog, code), layer="chips")
    police = view.get("police")
    if isinstance(police, dict):
        canvas.add(_arrests(police), layer="path")
    canvas.add(_panel(view, catalog, code), layer="panel")
    canvas.add(_title(view, catalog, code), layer="title")
    return canvas.to_svg()
