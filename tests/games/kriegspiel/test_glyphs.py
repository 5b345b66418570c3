"""The unit symbols and arrows written in the shapes cheapest for cairosvg (glyphs.py) draw the same
pixels as their plain outlines: each is drawn both ways at the mail's scale and compared."""

from __future__ import annotations

import math
import re

import pytest
from PIL import Image, ImageChops

from pbem.games.kriegspiel.geometry import CELL, FRAME_H, FRAME_W, colours
from pbem.games.kriegspiel.glyphs import _ArrowPainter, _inset, _UnitPainter
from pbem.render import svg
from pbem.render.raster import rasterise
from pbem.render.svg import Path

W, H = 240.0, 60.0
CENTRES = [(40.0, 30.0), (120.0, 30.0), (200.0, 30.0)]
SOUTH, NORTH = colours("south"), colours("north")


def draw(body: str) -> Image.Image:
    """``body`` over white paper, 1600 / 1072 px per unit as on a 1600 px map (and 3x that)."""
    doc = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{svg.num(W)}" height="{svg.num(H)}" '
        f'viewBox="0 0 {svg.num(W)} {svg.num(H)}"><rect width="{svg.num(W)}" height="{svg.num(H)}" fill="#fff"/>'
        f"{body}</svg>"
    )
    return rasterise(doc, 1072)


def same(a: str, b: str) -> None:
    """Only anti-aliased edges may differ, a little: no pixel by more than 40 levels, few by more than 16."""
    diff = ImageChops.difference(draw(a), draw(b))
    red, green, blue = diff.split()
    counts = ImageChops.lighter(ImageChops.lighter(red, green), blue).histogram()
    assert sum(counts[41:]) == 0 and sum(counts[17:]) <= 40, (sum(counts[41:]), sum(counts[17:]))


def path_data(doc: str) -> str:
    return " ".join(re.findall(r' d="([^"]*)"', doc))


def frame_box(cx: float, cy: float) -> tuple[float, float, float, float]:
    w, h = FRAME_W * CELL, FRAME_H * CELL
    return cx - w / 2, cy - h / 2, w, h


def test_round_frames_as_stroked_rectangles_draw_their_outlines() -> None:
    painter = _UnitPainter()
    for cx, cy in CENTRES:
        painter.unit(cx, cy, "south", "frame")
    drawn = painter.svg()
    assert "c" not in path_data(drawn)  # no Bezier corners: the stroked rectangles
    outline = Path()
    for cx, cy in CENTRES:
        x, y, w, h = frame_box(cx, cy)
        outline.round_rect(x, y, w, h, h * 0.34)
    same(drawn, svg.path(outline, fill=SOUTH.light, stroke=SOUTH.main, stroke_width=2))


def test_one_round_frame_is_drawn_as_its_outline() -> None:
    painter = _UnitPainter()
    painter.unit(*CENTRES[0], "south", "frame")
    assert painter.svg().count("<path") == 1


@pytest.mark.parametrize("kind", ["artillery", "horse_artillery", "relay", "horse_relay", "infantry", "cavalry"])
def test_dots_and_pennants_draw_their_outlines(kind: str) -> None:
    painter = _UnitPainter()
    strokes, fills = Path(), Path()
    for cx, cy in CENTRES:
        painter.unit(cx, cy, "north", kind)
        x0, y0, w, h = frame_box(cx, cy)
        x1, y1 = x0 + w, y0 + h
        if kind == "infantry":
            strokes.segment((x0, y0), (x1, y1)).segment((x0, y1), (x1, y0))
        elif kind in ("cavalry", "horse_artillery", "horse_relay"):
            strokes.segment((x0, y1), (x1, y0))
        if kind in ("artillery", "horse_artillery"):
            fills.circle(cx, cy, h * 0.2)
        elif kind in ("relay", "horse_relay"):
            sx, top, bottom = cx - w * 0.1, cy - h * 0.32, cy + h * 0.32
            strokes.segment((sx, bottom), (sx, top))
            fills.polygon([(sx, top), (sx + w * 0.3, top + h * 0.18), (sx, top + h * 0.36)])
    plain = _UnitPainter()
    for cx, cy in CENTRES:
        plain.unit(cx, cy, "north", "frame")
    reference = (
        plain.svg()
        + svg.path(strokes, fill="none", stroke=NORTH.dark, stroke_width=1.8, stroke_linecap="round")
        + svg.path(fills, fill=NORTH.dark)
    )
    drawn = painter.svg()
    assert "C" not in path_data(drawn)  # no dot drawn as Beziers
    same(drawn, reference)


def test_an_inset_polygon_stroked_half_the_inset_wide_covers_the_polygon() -> None:
    pennant = [(10.0, 10.0), (30.0, 16.0), (10.0, 22.0)]
    inner = _inset(pennant, 0.9)
    # Every inner side is 0.9 from its outer side, inside.
    for (ax, ay), (bx, by), (px, py) in zip(pennant, pennant[1:] + pennant[:1], inner):
        d = abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / math.hypot(bx - ax, by - ay)
        assert d == pytest.approx(0.9)
    same(
        svg.path(Path().polygon(inner), fill="#000", stroke="#000", stroke_width=1.8),
        svg.path(Path().polygon(pennant), fill="#000"),
    )


def test_arrow_origin_dots_draw_a_ringed_white_dot() -> None:
    arrows, plain = _ArrowPainter(), _ArrowPainter()
    rings = Path()
    for cx, cy in CENTRES:
        arrows.arrow([(cx, cy), (cx + 30, cy)], "north", origin_dot=True)
        plain.arrow([(cx, cy), (cx + 30, cy)], "north")
        rings.circle(cx, cy, 3.2)
    drawn = arrows.svg()
    assert "C" not in path_data(drawn)
    # The plain drawing: the casings, the ringed white dots, then the bodies and heads.
    casing, head_casing, *bodies = re.findall(r"<path [^>]*/>", plain.svg())
    ring = svg.path(rings, fill="#ffffff", stroke=NORTH.main, stroke_width=1.8)
    same(drawn, casing + head_casing + ring + "".join(bodies))
