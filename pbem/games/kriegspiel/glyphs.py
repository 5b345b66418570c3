"""Unit symbols and move arrows of the Kriegspiel map, batched into few cheap elements.

The map's dynamic part is drawn by cairosvg on every turn, and its cost is per
element, per path command and point read, and per pixel stroked (a circle is
five commands and thirteen points, a round corner a Bezier of three). So shapes
are written in the form cheapest to draw that gives the same pixels
(``tests/games/kriegspiel/test_glyphs.py`` draws both and compares):

- a filled dot is a zero-length segment with round caps (``M x,y h0`` stroked as
  wide as the dot): one point instead of a four-Bezier circle;
- South's round-cornered frame is its inner rectangle stroked with round joins:
  a band ``2r + stroke`` wide in the frame colour, then one ``2r - stroke`` wide
  (and the rectangle filled) in the fill colour, which leaves exactly the frame's
  ring of ``stroke`` width between the radii ``r - stroke/2`` and ``r + stroke/2``;
- the relay's pennant joins the symbol strokes (same colour, one element): it is
  shrunk by half the stroke width and stroked with mitre joins, which gives back
  the pennant's own outline.

Translucent shapes (a captured unit's ghost) and dashed frames (a unit cut off)
keep their plain outlines: overlapping strokes would change their look.
``benchmarks/render_kriegspiel.py`` measures the map.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pbem.games.kriegspiel.geometry import BADGE_RING, CELL, CUT_FILL, CUT_INK, FRAME_H, FRAME_W, colours
from pbem.render import svg, theme
from pbem.render.svg import Path, Point


#: South's round frames are drawn as stroked inner rectangles from this many on: two elements
#: whose rectangles are cheap to parse, against one whose round corners cost ~0.04 ms a frame more.
PADS_FROM = 3


def _frame_radius(side: str, h: float) -> float:
    """North's frames have square corners, South's round ones (a second cue beside colour)."""
    return h * 0.34 if side == "south" else 0.0


def _frame_reach(side: str, ux: float, uy: float, scale: float = 1.0) -> float:
    """Distance from a frame's centre to its edge in direction ``(ux, uy)``."""
    hw, hh = FRAME_W * CELL * scale / 2, FRAME_H * CELL * scale / 2
    tx = hw / abs(ux) if abs(ux) > 1e-9 else math.inf
    ty = hh / abs(uy) if abs(uy) > 1e-9 else math.inf
    return min(tx, ty)


def _dot(path: Path, x: float, y: float) -> None:
    """A dot as a zero-length segment: drawn by a round-capped stroke as wide as the dot."""
    path.raw(f"M{svg.num(x)},{svg.num(y)}h0")


def _inset(points: Sequence[Point], d: float) -> list[Point]:
    """A convex polygon (clockwise on screen) moved ``d`` inwards on every side.

    Stroked ``2 d`` wide with mitre joins (and filled), it covers the polygon itself.
    """
    n = len(points)
    lines: list[tuple[float, float, float, float]] = []
    for i in range(n):
        (x0, y0), (x1, y1) = points[i], points[(i + 1) % n]
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        nx, ny = -(y1 - y0) / length, (x1 - x0) / length  # inward normal of a clockwise polygon
        lines.append((x0 + nx * d, y0 + ny * d, x1 - x0, y1 - y0))
    out: list[Point] = []
    for i in range(n):
        ax, ay, adx, ady = lines[i - 1]
        bx, by, bdx, bdy = lines[i]
        den = adx * bdy - ady * bdx
        if abs(den) < 1e-12:
            out.append((bx, by))
            continue
        t = ((bx - ax) * bdy - (by - ay) * bdx) / den
        out.append((ax + adx * t, ay + ady * t))
    return out


class _Bucket:
    """The shapes of the units of one side in one state."""

    __slots__ = ("frames", "rounded", "marks", "pennants", "dots", "fills")

    def __init__(self) -> None:
        self.frames = Path()  # whole outlines (square corners, or any frame drawn plainly)
        self.rounded: list[tuple[float, float, float, float]] = []  # round-cornered frames: x, y, w, h
        self.marks = Path()  # symbol strokes
        self.pennants = Path()  # relays' pennants, inset for the marks' stroke
        self.dots: dict[float, Path] = {}  # dots by diameter
        self.fills = Path()  # filled symbols as plain outlines (translucent states)


class _Symbols:
    """The symbols of units in one ink: strokes with the pennants (one element), dots by size."""

    def __init__(self, bucket: _Bucket | None = None) -> None:
        self.strokes = Path()
        self.filled = False  # pennants among the strokes: the element fills them too
        self.dots: dict[float, Path] = {}
        if bucket is not None:
            self.add(bucket)

    def add(self, bucket: _Bucket) -> None:
        self.strokes.raw(bucket.marks.d()).raw(bucket.pennants.d())
        self.filled = self.filled or bool(bucket.pennants)
        for width, dots in bucket.dots.items():
            self.dots.setdefault(width, Path()).raw(dots.d())

    def svg(self, ink: str, sw: float) -> str:
        out = [
            svg.path(
                self.strokes, fill=ink if self.filled else "none", stroke=ink, stroke_width=sw * 0.9,
                stroke_linecap="round",
            )
        ]
        for width, dots in self.dots.items():
            out.append(svg.path(dots, fill="none", stroke=ink, stroke_width=width, stroke_linecap="round"))
        return "".join(out)


class _UnitPainter:
    """Batches unit glyphs: a few paths per (side, state), whatever the number of units."""

    def __init__(self) -> None:
        self._buckets: dict[tuple[str, str, float], _Bucket] = {}
        self._cut_badges = Path()
        self._cut_slashes = Path()
        self._retreat_badges = Path()
        self._retreat_marks = Path()
        self._crosses = Path()

    def _bucket(self, side: str, state: str, radius: float) -> _Bucket:
        key = (side, state, radius)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket()
        return bucket

    def unit(
        self,
        cx: float,
        cy: float,
        side: str,
        kind: str,
        *,
        state: str = "ok",
        scale: float = 1.0,
        retreat: bool = False,
    ) -> None:
        """A unit glyph centred at ``(cx, cy)``.

        ``state`` is ``ok``, ``cut`` (disconnected) or ``gone`` (captured ghost);
        the pseudo-kind ``frame`` draws the side's empty frame (legend, title chip).
        """
        w, h = FRAME_W * CELL * scale, FRAME_H * CELL * scale
        x0, y0, x1, y1 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
        r = _frame_radius(side, h)
        bucket = self._bucket(side, state, r)
        if not r:
            bucket.frames.rect(x0, y0, w, h)
        elif state != "ok":  # dashed or translucent: the outline drawn as it is
            bucket.frames.round_rect(x0, y0, w, h, r)
        else:
            bucket.rounded.append((x0, y0, w, h))
        # The diagonals reach the frame's corners (the 45-degree point of a round corner).
        k = r * (1 - math.sqrt(0.5))
        bl, tr = (x0 + k, y1 - k), (x1 - k, y0 + k)
        tl, br = (x0 + k, y0 + k), (x1 - k, y1 - k)
        if kind == "infantry":
            bucket.marks.segment(tl, br).segment(bl, tr)
        elif kind in ("cavalry", "horse_artillery", "horse_relay"):
            bucket.marks.segment(bl, tr)
        dot = 0.0
        if kind in ("artillery", "horse_artillery"):
            dot = h * 0.2
        elif kind in ("relay", "horse_relay"):
            sx = cx - w * 0.1
            top, bottom = cy - h * 0.32, cy + h * 0.32
            bucket.marks.segment((sx, bottom), (sx, top))
            pennant = [(sx, top), (sx + w * 0.3, top + h * 0.18), (sx, top + h * 0.36)]
            if state == "gone":
                bucket.fills.polygon(pennant)
            else:
                bucket.pennants.polygon(_inset(pennant, 0.9 * scale))
        elif kind not in ("infantry", "cavalry", "frame"):  # unknown kind: a small dot
            dot = h * 0.12
        if dot:
            if state == "gone":
                bucket.fills.circle(cx, cy, dot)
            else:
                _dot(bucket.dots.setdefault(round(2 * dot, 2), Path()), cx, cy)
        if state == "cut":
            bx, by, br_ = x1 - 1.5 * scale, y0 + 1.5 * scale, CELL * 0.13 * scale
            self._cut_badges.circle(bx, by, br_)
            d = br_ * math.sqrt(0.5)
            self._cut_slashes.segment((bx - d, by + d), (bx + d, by - d))
        if retreat:
            bx, by, br_ = x0 + 1.5 * scale, y0 + 1.5 * scale, CELL * 0.14 * scale
            self._retreat_badges.circle(bx, by, br_)
            self._retreat_marks.rect(bx - 0.9 * scale, by - br_ * 0.62, 1.8 * scale, br_ * 0.8)
            self._retreat_marks.circle(bx, by + br_ * 0.5, 1.05 * scale)

    def cross(self, cx: float, cy: float, size: float) -> None:
        """The big X over a captured unit."""
        d = size / 2
        self._crosses.segment((cx - d, cy - d), (cx + d, cy + d))
        self._crosses.segment((cx - d, cy + d), (cx + d, cy - d))

    def svg(self, stroke_scale: float = 1.0) -> str:
        out: list[str] = []
        sw = 2.0 * stroke_scale
        cut_ink = _Symbols()
        for (side, state, r), b in self._buckets.items():
            col = colours(side)
            if state == "gone":  # a faded ghost
                out.append(
                    svg.path(
                        b.frames, fill=col.light, fill_opacity=0.45, stroke=col.main,
                        stroke_opacity=0.5, stroke_width=sw,
                    )
                )
                out.append(
                    svg.path(
                        b.marks, fill="none", stroke=col.dark, stroke_opacity=0.4,
                        stroke_width=sw * 0.9,
                    )
                )
                out.append(svg.path(b.fills, fill=col.dark, fill_opacity=0.4))
                continue
            cut = state == "cut"
            fill, ink = (CUT_FILL, CUT_INK) if cut else (col.light, col.dark)
            dash = f"{svg.num(4 * stroke_scale)} {svg.num(2.5 * stroke_scale)}" if cut else None
            if r > sw / 2 and len(b.rounded) >= PADS_FROM:
                pads = Path()
                for x, y, w, h in b.rounded:
                    pads.rect(x + r, y + r, w - 2 * r, h - 2 * r)
                out.append(
                    svg.path(pads, fill="none", stroke=col.main, stroke_width=2 * r + sw, stroke_linejoin="round")
                )
                out.append(svg.path(pads, fill=fill, stroke=fill, stroke_width=2 * r - sw, stroke_linejoin="round"))
            else:  # a few frames, or a ring wider than the corner: the outlines as they are
                for x, y, w, h in b.rounded:
                    b.frames.round_rect(x, y, w, h, r)
            out.append(svg.path(b.frames, fill=fill, stroke=col.main, stroke_width=sw, stroke_dasharray=dash))
            if cut:  # one grey ink for both sides: their symbols are drawn together after the frames
                cut_ink.add(b)
            else:
                out.append(_Symbols(b).svg(ink, sw))
        out.append(cut_ink.svg(CUT_INK, sw))
        out.append(
            svg.path(
                self._crosses, fill="none", stroke=theme.INK, stroke_opacity=0.75,
                stroke_width=3.2 * stroke_scale, stroke_linecap="round",
            )
        )
        out.append(
            svg.path(self._cut_badges, fill="#ffffff", stroke=BADGE_RING, stroke_width=1.3 * stroke_scale)
        )
        out.append(
            svg.path(
                self._cut_slashes, fill="none", stroke=BADGE_RING, stroke_width=1.5 * stroke_scale,
            )
        )
        out.append(
            svg.path(
                self._retreat_badges, fill=theme.RETREAT_BADGE, stroke=BADGE_RING,
                stroke_width=1.1 * stroke_scale,
            )
        )
        out.append(svg.path(self._retreat_marks, fill=BADGE_RING))
        return "".join(out)


class _ArrowPainter:
    """Move arrows, batched: a white casing, bodies and heads per style."""

    def __init__(self) -> None:
        self.casing = Path()
        self.head_casing = Path()
        self.bodies: dict[tuple[str, bool], Path] = {}
        self.heads: dict[tuple[str, bool], Path] = {}
        self.origins: dict[str, Path] = {}
        self._keys: list[tuple[str, bool]] = []

    def arrow(
        self,
        points: Sequence[Point],
        side: str,
        *,
        forced: bool = False,
        scale: float = 1.0,
        origin_dot: bool = False,
    ) -> None:
        if len(points) < 2:
            return
        key = (side, forced)
        if key not in self.bodies:
            self.bodies[key] = Path()
            self.heads[key] = Path()
            self._keys.append(key)
        head_len, head_w = 13.0 * scale, 12.0 * scale
        tip, before = points[-1], points[-2]
        # The body stops inside the head so its square end never shows.
        _, body_end = svg.shorten(before, tip, 0.0, head_len * 0.7)
        body = [*points[:-1], body_end]
        self.casing.polyline(body)
        self.bodies[key].polyline(body)
        head = svg.arrowhead(tip, before, head_len, head_w)
        self.heads[key].polygon(head)
        self.head_casing.polygon(head)
        if origin_dot:
            _dot(self.origins.setdefault(side, Path()), points[0][0], points[0][1])

    def svg(self, scale: float = 1.0) -> str:
        out: list[str] = [
            svg.path(
                self.casing, fill="none", stroke="#ffffff", stroke_opacity=0.85,
                stroke_width=6.5 * scale, stroke_linejoin="round", stroke_linecap="round",
            ),
            svg.path(
                self.head_casing, fill="#ffffff", fill_opacity=0.85, stroke="#ffffff",
                stroke_opacity=0.85, stroke_width=3.5 * scale, stroke_linejoin="round",
            ),
        ]
        # Origin dots: a white dot of radius 3.2 ringed 1.8 wide in the side's colour,
        # as a wide dot in the colour under a narrower white one.
        radius, ring = 3.2 * scale, 1.8 * scale
        for side, path in self.origins.items():
            out.append(
                svg.path(
                    path, fill="none", stroke=colours(side).main, stroke_width=2 * radius + ring,
                    stroke_linecap="round",
                )
            )
        if self.origins:
            whites = Path()
            for path in self.origins.values():
                whites.raw(path.d())
            out.append(
                svg.path(whites, fill="none", stroke="#ffffff", stroke_width=2 * radius - ring, stroke_linecap="round")
            )
        for key in self._keys:
            side, forced = key
            colour = theme.FORCED if forced else colours(side).main
            out.append(
                svg.path(
                    self.bodies[key], fill="none", stroke=colour, stroke_width=3.2 * scale,
                    stroke_linejoin="round", stroke_linecap="butt" if forced else "round",
                    stroke_dasharray=f"{svg.num(7 * scale)} {svg.num(4 * scale)}" if forced else None,
                )
            )
            out.append(svg.path(self.heads[key], fill=colour))
        return "".join(out)
