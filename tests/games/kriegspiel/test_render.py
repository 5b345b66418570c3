"""The Kriegspiel map: render views, rasterise them, decode the PNGs and check pixels.

The views are built by hand from the real terrain and a common opening (the
engine is not imported: the renderer must work from view data alone).
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image, ImageChops

from pbem.games.kriegspiel import render as kr
from pbem.render import png_size, svg_to_png, theme
from pbem.render.raster import STATIC_LAYERS, encode_png, rasterise, split_static

WIDTH = 1600
NORTH, SOUTH = kr.colours("north"), kr.colours("south")

# -- fixture views --------------------------------------------------------------

TERRAIN = {
    "north": {
        "mountain": ["C10", "C11", "C12", "C13", "D10", "E10", "G10", "H10", "I10"],
        "pass": ["F10"],
        "fort": ["B8", "I13", "H21"],
    },
    "south": {
        "mountain": ["N11", "N12", "N13", "N14", "N15", "N16", "P16", "Q16", "R16"],
        "pass": ["O16"],
        "fort": ["M3", "L15", "O23"],
    },
}
ARSENALS = {"north": ["B15", "D8"], "south": ["T3", "T23"]}

NORTH_OPENING = [
    ("relay", "D3"), ("horse_relay", "F5"),
    ("cavalry", "G3"), ("cavalry", "G4"), ("cavalry", "H3"), ("cavalry", "H4"),
    ("artillery", "G8"), ("horse_artillery", "H6"),
    *[("infantry", sq) for sq in ("F10", "G6", "G7", "G9", "H5", "H7", "H8", "H9", "I6")],
]
SOUTH_OPENING = [
    *[("infantry", sq) for sq in ("K15", "K16", "K17", "L15", "L16", "L17", "M15", "M16", "M17")],
    ("artillery", "K18"),
    ("cavalry", "K19"), ("cavalry", "L18"), ("cavalry", "L19"), ("cavalry", "M18"),
    ("horse_relay", "N17"), ("horse_artillery", "O16"), ("relay", "O23"),
]


def terrain() -> list[dict[str, str]]:
    return [
        {"square": sq, "kind": kind, "side": side}
        for side, table in TERRAIN.items()
        for kind, squares in table.items()
        for sq in squares
    ]


def arsenals(destroyed: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    return [
        {"square": sq, "side": side, "destroyed": sq in destroyed}
        for side, squares in ARSENALS.items()
        for sq in squares
    ]


def units(side: str, placement: list[tuple[str, str]], **overrides: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for i, (kind, square) in enumerate(placement, 1):
        entry: dict[str, Any] = {
            "id": f"{side[0].upper()}-{kind.upper()}-{i}", "side": side, "kind": kind, "square": square,
            "connected": True, "retreat": False,
        }
        entry.update(overrides.get(square, {}))
        out.append(entry)
    return out


def base_view(**changes: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "game": "kriegspiel", "turn": 1, "phase": "move", "to_move": "north", "viewer": "north",
        "rows": 20, "cols": 25, "terrain": terrain(), "arsenals": arsenals(), "units": [],
        "hidden_sides": [], "lines": [], "last_turn": None, "draw_offered_by": None, "outcome": None,
    }
    view.update(changes)
    return view


def deployment_view() -> dict[str, Any]:
    """North has deployed the common opening; South's deployment is still sealed."""
    return base_view(
        turn=0, phase="deploy", to_move=None, viewer="north", hidden_sides=["south"],
        units=units("north", NORTH_OPENING),
        lines=[
            {"side": "north", "from": "B15", "to": "B1"}, {"side": "north", "from": "B15", "to": "B25"},
            {"side": "north", "from": "D8", "to": "D1"}, {"side": "north", "from": "D8", "to": "J8"},
            {"side": "north", "from": "D3", "to": "J3"},
        ],
    )


def mid_game_view() -> dict[str, Any]:
    """North's turn 7 just resolved: five moves (one forced, one L-shaped) and K15 captured 34 : 28."""
    north = units(
        "north",
        [
            ("relay", "D3"), ("horse_relay", "F7"), ("cavalry", "J3"), ("cavalry", "H4"), ("cavalry", "I18"),
            ("cavalry", "H17"), ("artillery", "H15"), ("horse_artillery", "H12"),
            *[("infantry", sq) for sq in ("F10", "J14", "J15", "J16", "K14", "K13", "I15", "I11", "I13")],
        ],
        J3={"connected": False},
    )
    south = units(
        "south",
        [
            *[("infantry", sq) for sq in ("K16", "K17", "L15", "L16", "L17", "M15", "M16", "L12")],
            ("artillery", "K18"), ("cavalry", "K19"), ("cavalry", "L19"), ("cavalry", "M18"),
            ("cavalry", "P5"), ("horse_relay", "N17"), ("horse_artillery", "M17"), ("relay", "O23"),
        ],
        L16={"retreat": True},
        P5={"connected": False},
    )
    lines = [
        ("north", "B15", "B1"), ("north", "B15", "B25"), ("north", "B15", "J15"), ("north", "B15", "J23"),
        ("north", "D8", "D1"), ("north", "D8", "J8"), ("north", "D8", "J14"), ("north", "D3", "I3"),
        ("south", "T3", "T1"), ("south", "T3", "T22"), ("south", "T3", "M3"), ("south", "T23", "L23"),
        ("south", "O23", "O17"), ("south", "O23", "K19"),
    ]
    move = lambda uid, kind, path, forced=False: {
        "unit": uid, "kind": kind, "side": "north", "from": path[0], "to": path[-1], "path": path,
        "forced": forced,
    }
    return base_view(
        turn=8, to_move="south", viewer="south", units=north + south,
        lines=[{"side": s, "from": a, "to": b} for s, a, b in lines],
        last_turn={
            "side": "north", "turn": 7,
            "moves": [
                move("N-INF-8", "infantry", ["J11", "I11"], forced=True),
                move("N-INF-2", "infantry", ["I14", "J14"]),
                move("N-CAV-3", "cavalry", ["G17", "H18", "I18"]),
                move("N-HART-1", "horse_artillery", ["F12", "G12", "H12"]),
                move("N-INF-5", "infantry", ["J13", "K14"]),
            ],
            "attack": {
                "side": "north", "target": "K15", "target_kind": "infantry", "attack": 34, "defence": 28,
                "result": "captured",
                "attackers": [
                    *[{"square": sq, "kind": "infantry", "value": 4, "charge": False}
                      for sq in ("J14", "J15", "J16", "K14", "K13", "I15")],
                    {"square": "H15", "kind": "artillery", "value": 5, "charge": False},
                    {"square": "H12", "kind": "horse_artillery", "value": 5, "charge": False},
                ],
                "defenders": [
                    {"square": "K15", "kind": "infantry", "value": 6, "terrain_bonus": 0},
                    {"square": "K16", "kind": "infantry", "value": 6, "terrain_bonus": 0},
                    {"square": "K18", "kind": "artillery", "value": 8, "terrain_bonus": 0},
                    {"square": "M17", "kind": "horse_artillery", "value": 8, "terrain_bonus": 0},
                ],
            },
            "arsenal_destroyed": None,
            "captured": [{"square": "K15", "kind": "infantry", "side": "south"}],
        },
    )


def game_over_view() -> dict[str, Any]:
    """North's cavalry rode into T23, the second South arsenal: North wins."""
    return base_view(
        turn=31, phase="over", to_move=None, viewer=None, arsenals=arsenals(destroyed=("T3", "T23")),
        units=units("north", [("cavalry", "T23"), ("cavalry", "S3"), ("infantry", "K10"), ("relay", "F9")])
        + units("south", [("infantry", "M5"), ("relay", "P20")], M5={"connected": False}),
        last_turn={
            "side": "north", "turn": 31,
            "moves": [{"unit": "N-CAV-1", "kind": "cavalry", "side": "north", "from": "R21", "to": "T23",
                       "path": ["R21", "S22", "T23"], "forced": False}],
            "attack": None,
            "arsenal_destroyed": {"square": "T23", "side": "south"},
            "captured": [],
        },
        outcome={"result": "win", "winners": ["north"], "reason": "arsenals"},
    )


# -- pixel helpers ----------------------------------------------------------------


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image.convert("RGB")


def count_near(image: Image.Image, box: tuple[float, float, float, float], colour: str, tol: int = 14) -> int:
    """How many pixels in ``box`` are within ``tol`` of ``colour`` on every channel."""
    x0, y0, x1, y1 = (round(v) for v in box)
    region = image.crop((x0, y0, x1, y1))
    masks = [
        band.point(lambda v, c=c: 255 if abs(v - c) <= tol else 0)
        for band, c in zip(region.split(), theme.rgb(colour))
    ]
    both = ImageChops.multiply(ImageChops.multiply(masks[0], masks[1]), masks[2])
    return both.histogram()[255]


def compare(a: Image.Image, b: Image.Image) -> tuple[float, float]:
    """Mean absolute difference per channel (levels) and the share of pixels off by more than 16."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    bands = diff.split()
    mean = sum(i * n for band in bands for i, n in enumerate(band.histogram())) / (3 * a.width * a.height)
    worst = ImageChops.lighter(ImageChops.lighter(bands[0], bands[1]), bands[2])
    return mean, sum(worst.histogram()[17:]) / (a.width * a.height)


def box(square: str, width: int = WIDTH, inset: float = 0.0) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = kr.square_box(square, width)
    d = (x1 - x0) * inset
    return x0 + d, y0 + d, x1 - d, y1 - d


def between(a: str, b: str, width: int = WIDTH, thickness: float = 0.1) -> tuple[float, float, float, float]:
    """A thin box around the straight line from the centre of ``a`` to the centre of ``b``."""
    (ax, ay), (bx, by) = kr.square_centre(a, width), kr.square_centre(b, width)
    pad = kr.CELL * width / kr.canvas_size()[0] * thickness
    return min(ax, bx) - pad, min(ay, by) - pad, max(ax, bx) + pad, max(ay, by) + pad


def frame_corner(square: str, width: int = WIDTH) -> tuple[float, float, float, float]:
    """A small box inside a unit's frame, above-left of its symbol."""
    cx, cy = kr.square_centre(square, width)
    k = width / kr.canvas_size()[0]
    return cx - 11 * k, cy - 7 * k, cx - 5 * k, cy - 3 * k


def blend(under: str, over: str, alpha: float) -> str:
    u, o = theme.rgb(under), theme.rgb(over)
    r, g, b = (round(x * (1 - alpha) + y * alpha) for x, y in zip(u, o))
    return f"#{r:02x}{g:02x}{b:02x}"


def territory(side: str, width: int = WIDTH) -> tuple[float, float, float, float]:
    first, last = ("A1", "J25") if side == "north" else ("K1", "T25")
    return kr.square_box(first, width)[:2] + kr.square_box(last, width)[2:]  # type: ignore[return-value]


@pytest.fixture(scope="module")
def mid_game() -> tuple[str, Image.Image]:
    svg = kr.render_svg(mid_game_view())
    return svg, decode(svg_to_png(svg, WIDTH))


@pytest.fixture(scope="module")
def deployment() -> tuple[str, Image.Image]:
    svg = kr.render_svg(deployment_view())
    return svg, decode(svg_to_png(svg, WIDTH))


@pytest.fixture(scope="module")
def game_over() -> tuple[str, Image.Image]:
    svg = kr.render_svg(game_over_view())
    return svg, decode(svg_to_png(svg, WIDTH))


# -- geometry ------------------------------------------------------------------------


def test_square_names_and_centres() -> None:
    assert kr.parse_square("A1") == (0, 0)
    assert kr.parse_square("t25") == (19, 24)
    assert kr.parse_square("C10") == (2, 9)
    for bad in ("U1", "A0", "A26", "", "10C", None, 7, "A-1"):
        assert kr.parse_square(bad) is None
    assert kr.square_name(2, 9) == "C10"
    (x1, y1), (x2, y2) = kr.square_centre("A1", 1000), kr.square_centre("A2", 1000)
    assert x2 > x1 and y2 == y1
    (_, y3) = kr.square_centre("B1", 1000)
    assert y3 > y1
    # Scales linearly with the output width.
    assert kr.square_centre("K15", 800) == pytest.approx(tuple(v / 2 for v in kr.square_centre("K15", 1600)))
    with pytest.raises(ValueError):
        kr.square_centre("Z99", 800)


# -- documents ------------------------------------------------------------------------


@pytest.mark.parametrize("make", [deployment_view, mid_game_view, game_over_view])
def test_render_svg_is_a_well_formed_compact_document(make: Any) -> None:
    svg = kr.render_svg(make())
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    w, h = kr.canvas_size()
    assert root.get("viewBox") == f"0 0 {kr.svg.num(w)} {kr.svg.num(h)}"
    # Batched drawing: far fewer elements than squares (500) or a per-unit group.
    assert sum(1 for _ in root.iter()) < 330


def test_static_board_is_built_once() -> None:
    kr.render_svg(mid_game_view())
    before = kr._static_board.cache_info()
    kr.render_svg(mid_game_view())
    kr.render_svg(deployment_view())
    after = kr._static_board.cache_info()
    assert after.hits == before.hits + 2 and after.misses == before.misses


VIEWS = [deployment_view, mid_game_view, game_over_view]


def test_the_board_is_one_static_layer_shared_by_every_turn() -> None:
    splits = [split_static(kr.render_svg(make())) for make in VIEWS]
    statics = {split.document(part) for split in splits if split for is_static, part in split.parts if is_static}
    assert len(statics) == 1 and all(split and split.parts[0][0] for split in splits)  # first, under the rest
    board = statics.pop()
    for fixed in ("Kriegspiel", "Infantry", "Mountain (impassable)"):
        assert fixed in board
    # What depends on the turn or the viewer is drawn every time.
    for changing in ("turn 8", "South to move", "deployment sealed", "34 : 28", "map of", "spectator"):
        assert changing not in board, changing
    assert split_static(kr.render_svg(mid_game_view(), lang="it")) != splits[1]  # another language, another board


def test_the_static_layer_is_drawn_once_for_all_turns() -> None:
    STATIC_LAYERS.cache_clear()
    for make in VIEWS:
        svg_to_png(kr.render_svg(make()), 400)
    info = STATIC_LAYERS.cache_info()
    assert (info.misses, info.hits) == (1, 2)


@pytest.mark.parametrize("width", [800, WIDTH])
@pytest.mark.parametrize("make", VIEWS)
def test_png_matches_the_exact_drawing_of_the_whole_map(make: Any, width: int) -> None:
    svg = kr.render_svg(make())
    exact = rasterise(svg, width, layers=False)  # no layer cache: every element drawn now
    assert rasterise(svg, width).tobytes() == exact.tobytes()  # the cached board gives the same pixels
    mean, far = compare(decode(svg_to_png(svg, width)), exact)  # only the palette differs
    assert mean < 1.5 and far < 0.002, (mean, far)


@pytest.mark.parametrize("make", VIEWS)
def test_png_matches_the_former_pipeline(make: Any) -> None:
    """Old: the whole document drawn every time, the octree over all pixels. New: cached board, sampled palette."""
    svg = kr.render_svg(make())
    old = decode(encode_png(rasterise(svg, WIDTH, layers=False), "pal-octree-z3"))
    new = decode(svg_to_png(svg, WIDTH))
    mean, far = compare(old, new)
    assert mean < 0.6 and far < 0.003, (mean, far)


def test_titles_and_notes(deployment: tuple[str, Image.Image], mid_game: tuple[str, Image.Image],
                          game_over: tuple[str, Image.Image]) -> None:
    assert "South: deployment sealed" in deployment[0]
    assert "South&apos;s deployment" in deployment[0] or "South's deployment" in deployment[0]
    assert "turn 8 · South to move" in mid_game[0]
    assert "34 : 28  captured" in mid_game[0]
    assert "game over · North wins (both arsenals destroyed)" in game_over[0]
    assert "arsenal T23 destroyed" in game_over[0]
    assert "spectator" in game_over[0]


def test_italian_labels() -> None:
    svg = kr.render_svg(mid_game_view(), lang="it")
    assert "Fanteria" in svg and "muove Sud" in svg and "catturata" in svg
    assert "Fanteria" in kr.render_svg({**mid_game_view(), "lang": "it-IT"})


# -- pixels: the image ------------------------------------------------------------------


@pytest.mark.parametrize("width", [800, 1600])
def test_png_has_the_requested_width(width: int) -> None:
    png = svg_to_png(kr.render_svg(mid_game_view()), width)
    assert png_size(png) == kr.image_size(width)
    assert decode(png).size == kr.image_size(width)


def test_terrain_colours(mid_game: tuple[str, Image.Image]) -> None:
    _, image = mid_game
    for square in ("C10", "I10", "N11", "R16"):  # mountains: the square's top-left area
        assert count_near(image, box(square, inset=0.05)[:2] + box(square, inset=0.75)[:2], theme.MOUNTAIN, 6) > 50
        assert count_near(image, box(square, inset=0.1), theme.MOUNTAIN_RIDGE, 10) > 100  # the peaks
    # An empty plain square has its territory's tint; a pass its sand colour.
    assert count_near(image, box("E5", inset=0.2), NORTH.tint, 4) > 300
    assert count_near(image, box("S10", inset=0.2), SOUTH.tint, 4) > 300
    assert count_near(image, box("O16", inset=0.05), theme.PASS, 6) > 100
    assert count_near(image, box("H21", inset=0.05), theme.FORT, 6) > 100
    # Intact arsenals in their side's colour.
    assert count_near(image, box("B15"), NORTH.main, 14) > 300
    assert count_near(image, box("T3"), SOUTH.main, 14) > 300


def test_units_in_side_colours(mid_game: tuple[str, Image.Image]) -> None:
    _, image = mid_game
    for square in ("D3", "H15", "J14", "I18"):
        assert count_near(image, box(square), NORTH.main) > 40
        assert count_near(image, box(square), NORTH.light) > 100
        assert count_near(image, box(square, inset=0.1), SOUTH.main) == 0
    for square in ("K16", "K18", "O23", "N17"):
        assert count_near(image, box(square), SOUTH.main) > 40
        assert count_near(image, box(square), SOUTH.light) > 100
        assert count_near(image, box(square, inset=0.1), NORTH.main) == 0
    # An empty square has neither.
    assert count_near(image, box("Q8"), NORTH.main) == count_near(image, box("Q8"), SOUTH.main) == 0


def test_disconnected_and_retreating_units_are_marked(mid_game: tuple[str, Image.Image]) -> None:
    _, image = mid_game
    # Cut off: grey fill instead of the side's light colour. (The palette
    # quantiser may shift a colour this rare by up to ~10 levels.)
    for square in ("J3", "P5"):
        inside = frame_corner(square)
        area = (inside[2] - inside[0]) * (inside[3] - inside[1])
        assert count_near(image, inside, kr.CUT_FILL, 12) > area * 0.6
        assert count_near(image, box(square), NORTH.light, 6) < 10
        assert count_near(image, box(square), SOUTH.light, 6) < 10
    inside = frame_corner("H4")  # a connected one is not
    assert count_near(image, inside, kr.CUT_FILL, 12) == 0
    assert count_near(image, inside, NORTH.light, 6) > 0
    assert count_near(image, box("L16"), theme.RETREAT_BADGE, 10) > 20
    assert count_near(image, box("L17"), theme.RETREAT_BADGE, 10) == 0


def test_lines_of_communication_are_translucent_side_colours(mid_game: tuple[str, Image.Image]) -> None:
    _, image = mid_game
    north_line = blend(NORTH.tint, NORTH.main, theme.LINE_OPACITY)
    south_line = blend(SOUTH.tint, SOUTH.main, theme.LINE_OPACITY)
    assert count_near(image, box("B20", inset=0.3), north_line, 8) > 20
    assert count_near(image, box("T10", inset=0.3), south_line, 8) > 20
    assert count_near(image, box("E20", inset=0.3), north_line, 8) == 0


def test_move_arrows_follow_their_paths(mid_game: tuple[str, Image.Image]) -> None:
    _, image = mid_game
    # The L-shaped cavalry move G17 -> H18 -> I18: both legs are drawn in North's colour.
    assert count_near(image, between("G17", "H18"), NORTH.main, 12) > 40
    assert count_near(image, between("H18", "I18", thickness=0.05), NORTH.main, 12) > 10
    # ... and not straight from G17 to I18 (no arrow through H17's left side).
    assert count_near(image, between("G17", "G17"), NORTH.main, 12) > 0  # the origin dot
    # A forced move is drawn in the forced colour, a normal one is not.
    assert count_near(image, between("J11", "I11"), theme.FORCED, 12) > 20
    assert count_near(image, between("F12", "G12"), theme.FORCED, 12) == 0
    assert count_near(image, between("F12", "G12"), NORTH.main, 12) > 20


def test_attack_ring_and_capture(mid_game: tuple[str, Image.Image]) -> None:
    _, image = mid_game
    assert count_near(image, box("K15"), theme.ATTACK, 30) > 150  # the ring and the cross
    cx, cy = kr.square_centre("K15", WIDTH)
    assert count_near(image, (cx - 4, cy - 4, cx + 4, cy + 4), "#5a564f", 60) > 10  # the X over the ghost
    # The attackers' lines reach towards the target in North's colour.
    assert count_near(image, between("H12", "K15"), NORTH.main, 12) > 30


def test_hidden_side_is_not_drawn(deployment: tuple[str, Image.Image]) -> None:
    _, image = deployment
    south = territory("south")
    # Units of the sealed side are absent: no South colour anywhere in South's
    # territory except on its (public) arsenals.
    total = count_near(image, south, SOUTH.main, 30) + count_near(image, south, SOUTH.light, 10)
    arsenals_ = sum(
        count_near(image, box(sq), SOUTH.main, 30) + count_near(image, box(sq), SOUTH.light, 10) for sq in ("T3", "T23")
    )
    assert total == arsenals_
    assert arsenals_ > 300
    # North's own units are there.
    for _kind, square in NORTH_OPENING:
        assert count_near(image, box(square), NORTH.main) > 30, square


def test_hidden_side_is_not_drawn_even_if_the_view_leaks_it() -> None:
    view = deployment_view()
    view["units"] += units("south", SOUTH_OPENING)
    view["lines"] += [{"side": "south", "from": "T3", "to": "K3"}]
    image = decode(svg_to_png(kr.render_svg(view), 800))
    for _kind, square in SOUTH_OPENING:
        assert count_near(image, box(square, 800), SOUTH.main, 30) == 0, square
    assert count_near(image, box("N3", 800), blend(SOUTH.tint, SOUTH.main, theme.LINE_OPACITY), 10) == 0


def test_game_over_shows_ruins_and_the_last_move(game_over: tuple[str, Image.Image],
                                                 mid_game: tuple[str, Image.Image]) -> None:
    _, image = game_over
    _, before = mid_game
    # T3 was intact mid-game and is a ruin now: much less South colour, ruin grey.
    assert count_near(image, box("T3"), "#d9d5cc", 6) > 100
    assert count_near(before, box("T3"), "#d9d5cc", 6) == 0
    assert 0 < count_near(image, box("T3"), SOUTH.main, 14) < count_near(before, box("T3"), SOUTH.main, 14) / 2
    # The cavalry stands on the ruin of T23 and its arrow came along R21 -> S22.
    assert count_near(image, box("T23"), NORTH.main, 14) > 40
    assert count_near(image, between("R21", "S22"), NORTH.main, 12) > 20
    assert count_near(image, box("T23", inset=-0.1), theme.ATTACK, 30) > 40  # the "destroyed" frame


# -- robustness ------------------------------------------------------------------------------


def junk_views() -> Iterator[dict[str, Any]]:
    yield {}
    yield {"rows": "x", "cols": None, "units": "nope", "terrain": [1, 2, None]}
    yield base_view(
        units=[{"side": "north", "kind": "infantry", "square": "Z99"}, {"kind": "dragon", "square": "C3"}, "junk"],
        lines=[{"side": "north", "from": None, "to": "B2"}, {}],
        last_turn={"moves": [{"path": ["A1"]}, {"path": "A1-A2"}, {"from": "A1", "to": "Q99"}],
                   "attack": {"target": "K15", "attackers": [{"square": None}], "defenders": "x"},
                   "captured": [None, {"square": "B2"}], "arsenal_destroyed": {"square": 5}},
        outcome={"result": "draw", "reason": "agreement"},
        phase="over",
        viewer="<script>&",
        draw_offered_by="south",
    )


@pytest.mark.parametrize("view", list(junk_views()))
def test_missing_or_malformed_data_is_tolerated(view: dict[str, Any]) -> None:
    svg = kr.render_svg(view)
    ET.fromstring(svg)
    assert decode(svg_to_png(svg, 400)).width == 400


CARD = re.compile(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" rx="4" fill="#ffffff"')


def _cards(doc: str) -> list[tuple[float, float, float, float]]:
    return [(float(x), float(y), float(x) + float(w), float(y) + float(h)) for x, y, w, h in CARD.findall(doc)]


def _hidden_units(doc: str, view: dict[str, Any]) -> list[str]:
    """Units whose frame a result card covers (issue 19.7: callouts hide nothing)."""
    out = []
    for u in view["units"]:
        cx, cy = kr.square_centre(u["square"], kr.canvas_size()[0])
        w, h = kr.FRAME_W * kr.CELL / 2, kr.FRAME_H * kr.CELL / 2
        for x0, y0, x1, y1 in _cards(doc):
            if not (x1 <= cx - w or x0 >= cx + w or y1 <= cy - h or y0 >= cy + h):
                out.append(u["square"])
    return out


def _melee(north: list[str], south: list[str], target: str) -> dict[str, Any]:
    return base_view(
        turn=9, phase="move", to_move="south",
        units=units("north", [("infantry", sq) for sq in north]) + units("south", [("infantry", sq) for sq in south]),
        last_turn={"side": "north", "turn": 8, "moves": [], "captured": [], "arsenal_destroyed": None,
                   "attack": {"side": "north", "target": target, "target_kind": "infantry", "attack": 15,
                              "defence": 15, "result": "none",
                              "attackers": [{"square": sq, "kind": "infantry", "value": 4, "charge": False}
                                            for sq in north[:3]],
                              "defenders": [{"square": target, "kind": "infantry", "value": 6, "terrain_bonus": 0}]}},
    )


def test_the_attack_card_hides_no_unit() -> None:
    # rulebook "MOVIMENTO & ATTACCO": the attack sums every unit in range; the card saying the result
    # must leave all of them, and the target, in sight
    view = _melee(["J14", "J15", "J16", "I15", "K14"], ["K15", "K16", "L15", "L14", "L16"], "K15")
    doc = kr.render_svg({**view, "lang": "it"})
    assert len(_cards(doc)) == 1 and "15 : 15" in doc
    assert _hidden_units(doc, view) == []


def test_a_card_with_no_free_place_is_left_out_not_drawn_over_units() -> None:
    # a board full of units round the target: no place for the card hides nothing, so the title bar
    # alone says the result
    squares = [kr.square_name(r, c) for r in range(4, 17) for c in range(4, 22)]
    north = [sq for sq in squares if sq[0] < "K"]
    south = [sq for sq in squares if sq[0] >= "K"]
    view = _melee(north, south, "K12")
    doc = kr.render_svg({**view, "lang": "en"})
    assert _hidden_units(doc, view) == []
    assert "15 : 15" in doc  # in the title bar's summary of the last turn
