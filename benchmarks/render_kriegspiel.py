"""How long a Kriegspiel turn map takes: render_svg, svg_to_png, and the total.

Run: ``.venv/bin/python benchmarks/render_kriegspiel.py [--runs N] [--save DIR]``

Prints median and minimum times (ms) over N runs at 1600 px and 800 px wide:

- cold: the first map of a process (and maps drawn right after
  ``pbem.render.cache.clear()``): the static board is built and drawn;
- warm: every later turn, the static board's pixels reused from the layer cache;
- the former pipeline in the same run, for comparison: the whole document
  drawn every time and the palette from Pillow's octree over all pixels;

then where a warm render's time goes, and the PNG encodings of
``pbem.render.raster.ENCODINGS`` on the same pixels. The machine is noisy:
compare figures of one run, not across runs. A plain script: no assertions.
``--save DIR`` writes the sample maps there.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.games.kriegspiel.render import render_svg
from pbem.render import cache, plainpath, raster

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import first_map, line, time_cpu, time_it, whole_document  # noqa: E402 (the module beside this script)

NORTH_TERRAIN = {
    "mountain": ["C10", "C11", "C12", "C13", "D10", "E10", "G10", "H10", "I10"],
    "pass": ["F10"],
    "fort": ["B8", "I13", "H21"],
}
SOUTH_TERRAIN = {
    "mountain": ["N11", "N12", "N13", "N14", "N15", "N16", "P16", "Q16", "R16"],
    "pass": ["O16"],
    "fort": ["M3", "L15", "O23"],
}


def terrain() -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for side, table in (("north", NORTH_TERRAIN), ("south", SOUTH_TERRAIN)):
        for kind, squares in table.items():
            out.extend({"square": sq, "kind": kind, "side": side} for sq in squares)
    return out


def unit(uid: str, side: str, kind: str, square: str, connected: bool = True, retreat: bool = False) -> dict[str, Any]:
    return {"id": uid, "side": side, "kind": kind, "square": square, "connected": connected, "retreat": retreat}


def mid_game_view() -> dict[str, Any]:
    """Turn 7, North has just moved and captured K15 (34 : 28); South to move."""
    n, s = "north", "south"
    units = [
        unit("N-REL-1", n, "relay", "D3"),
        unit("N-REL-2", n, "horse_relay", "F7"),
        unit("N-CAV-1", n, "cavalry", "J3", connected=False),
        unit("N-CAV-2", n, "cavalry", "H4"),
        unit("N-CAV-3", n, "cavalry", "I18"),
        unit("N-CAV-4", n, "cavalry", "H17"),
        unit("N-ART-1", n, "artillery", "H15"),
        unit("N-HART-1", n, "horse_artillery", "H12"),
        unit("N-INF-1", n, "infantry", "F10"),
        unit("N-INF-2", n, "infantry", "J14"),
        unit("N-INF-3", n, "infantry", "J15"),
        unit("N-INF-4", n, "infantry", "J16"),
        unit("N-INF-5", n, "infantry", "K14"),
        unit("N-INF-6", n, "infantry", "K13"),
        unit("N-INF-7", n, "infantry", "I15"),
        unit("N-INF-8", n, "infantry", "I11"),
        unit("N-INF-9", n, "infantry", "I13"),
        unit("S-INF-2", s, "infantry", "K16"),
        unit("S-INF-3", s, "infantry", "K17"),
        unit("S-INF-4", s, "infantry", "L15"),
        unit("S-INF-5", s, "infantry", "L16", retreat=True),
        unit("S-INF-6", s, "infantry", "L17"),
        unit("S-INF-7", s, "infantry", "M15"),
        unit("S-INF-8", s, "infantry", "M16"),
        unit("S-INF-9", s, "infantry", "L12"),
        unit("S-ART-1", s, "artillery", "K18"),
        unit("S-CAV-1", s, "cavalry", "K19"),
        unit("S-CAV-2", s, "cavalry", "L19"),
        unit("S-CAV-3", s, "cavalry", "M18"),
        unit("S-CAV-4", s, "cavalry", "P5", connected=False),
        unit("S-REL-2", s, "horse_relay", "N17"),
        unit("S-HART-1", s, "horse_artillery", "M17"),
        unit("S-REL-1", s, "relay", "O23"),
    ]
    lines = [
        # North: arsenal B15, arsenal D8, relay D3, horse relay F7.
        ("north", "B15", "B1"), ("north", "B15", "B25"), ("north", "B15", "A15"), ("north", "B15", "A14"),
        ("north", "B15", "A16"), ("north", "B15", "J15"), ("north", "B15", "F11"), ("north", "B15", "J23"),
        ("north", "D8", "D1"), ("north", "D8", "D9"), ("north", "D8", "A8"), ("north", "D8", "J8"),
        ("north", "D8", "A5"), ("north", "D8", "A11"), ("north", "D8", "J2"), ("north", "D8", "J14"),
        ("north", "D3", "A3"), ("north", "D3", "I3"), ("north", "D3", "A6"), ("north", "D3", "C2"),
        ("north", "D3", "F1"), ("north", "F7", "F1"), ("north", "F7", "F9"), ("north", "F7", "A2"),
        # South: arsenals T3 and T23, relays O23 and N17.
        ("south", "T3", "T1"), ("south", "T3", "T22"), ("south", "T3", "M3"), ("south", "T3", "L11"),
        ("south", "T3", "R1"), ("south", "T23", "T25"), ("south", "T23", "L23"), ("south", "T23", "R25"),
        ("south", "T23", "O18"), ("south", "O23", "O17"), ("south", "O23", "O25"), ("south", "O23", "K19"),
        ("south", "O23", "L20"), ("south", "N17", "N25"), ("south", "N17", "L19"),
    ]
    return {
        "game": "kriegspiel",
        "turn": 8,
        "phase": "move",
        "to_move": s,
        "viewer": s,
        "rows": 20,
        "cols": 25,
        "terrain": terrain(),
        "arsenals": [
            {"square": "B15", "side": n, "destroyed": False},
            {"square": "D8", "side": n, "destroyed": False},
            {"square": "T3", "side": s, "destroyed": False},
            {"square": "T23", "side": s, "destroyed": False},
        ],
        "units": units,
        "hidden_sides": [],
        "lines": [{"side": a, "from": b, "to": c} for a, b, c in lines],
        "last_turn": {
            "side": n,
            "turn": 7,
            "moves": [
                {"unit": "N-INF-8", "kind": "infantry", "side": n, "from": "J11", "to": "I11",
                 "path": ["J11", "I11"], "forced": True},
                {"unit": "N-INF-2", "kind": "infantry", "side": n, "from": "I14", "to": "J14",
                 "path": ["I14", "J14"], "forced": False},
                {"unit": "N-CAV-3", "kind": "cavalry", "side": n, "from": "G17", "to": "I18",
                 "path": ["G17", "H18", "I18"], "forced": False},
                {"unit": "N-HART-1", "kind": "horse_artillery", "side": n, "from": "F12", "to": "H12",
                 "path": ["F12", "G12", "H12"], "forced": False},
                {"unit": "N-INF-5", "kind": "infantry", "side": n, "from": "J13", "to": "K14",
                 "path": ["J13", "K14"], "forced": False},
            ],
            "attack": {
                "side": n, "target": "K15", "target_kind": "infantry", "attack": 34, "defence": 28,
                "result": "captured",
                "attackers": [
                    {"square": "J14", "kind": "infantry", "value": 4, "charge": False},
                    {"square": "J15", "kind": "infantry", "value": 4, "charge": False},
                    {"square": "J16", "kind": "infantry", "value": 4, "charge": False},
                    {"square": "K14", "kind": "infantry", "value": 4, "charge": False},
                    {"square": "K13", "kind": "infantry", "value": 4, "charge": False},
                    {"square": "I15", "kind": "infantry", "value": 4, "charge": False},
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
            "captured": [{"square": "K15", "kind": "infantry", "side": s}],
        },
        "draw_offered_by": None,
        "outcome": None,
    }



def total(view: dict[str, Any], width: int) -> bytes:
    """What a turn mail costs: the SVG and its PNG."""
    return raster.svg_to_png(render_svg(view), width)


def former(view: dict[str, Any], width: int) -> bytes:
    """The former pipeline: the whole document drawn every time, octree palette over all pixels."""
    return raster.encode_png(raster.rasterise(render_svg(view), width, layers=False), "pal-octree-z3")



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--save", type=Path, default=None, help="write the sample PNGs here")
    args = parser.parse_args(argv)
    view = mid_game_view()
    runs = max(1, args.runs)
    cold_runs = max(3, runs // 2)

    svg_text = first_map(render_svg, view)

    for width in (1600, 800):
        print(f"\n{width} px:")
        med, best, _ = time_it(functools.partial(total, view, width), cold_runs, before=cache.clear)
        line("cold total (after cache.clear())", med, best)
        # Warm: alternate the new and the former pipeline, so both see the same machine.
        new_t: list[float] = []
        old_t: list[float] = []
        png = old_png = b""
        for _ in range(runs):
            a = time.perf_counter()
            png = total(view, width)
            b = time.perf_counter()
            old_png = former(view, width)
            c = time.perf_counter()
            new_t.append((b - a) * 1000)
            old_t.append((c - b) * 1000)
        w, h = raster.png_size(png)
        line("warm total (render_svg + svg_to_png)", statistics.median(new_t), min(new_t),
             f"PNG {len(png) / 1024:.0f} KiB, {w} x {h}")
        line("former pipeline (whole draw, octree)", statistics.median(old_t), min(old_t),
             f"PNG {len(old_png) / 1024:.0f} KiB")
        med, best, svg_text = time_it(lambda: render_svg(view), runs)
        line("  of which render_svg (cached static board)", med, best)
        med, best, _ = time_it(functools.partial(raster.svg_to_png, svg_text, width), runs)
        line("  of which svg_to_png", med, best)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"kriegspiel-{width}.png").write_bytes(png)

    print("\nwhere a warm 1600 px render goes:")
    split = raster.split_static(svg_text)
    assert split is not None
    med, best, _ = time_it(lambda: raster.split_static(svg_text), runs)
    line("split at the static markers", med, best)
    med, best, image = time_it(lambda: raster.rasterise(svg_text, 1600), runs)
    line("draw: cached board + dynamic part", med, best, f"({image.width} x {image.height})")
    med, best, _ = time_it(lambda: raster.rasterise(svg_text, 1600, layers=False), runs)
    line("draw: the whole document (no layer cache)", med, best)
    hints = raster.document_colours(svg_text)
    spec = raster.ENCODINGS[raster.DEFAULT_ENCODING]
    med, best, _ = time_it(lambda: raster._quantise(image, spec, hints), runs)
    line(f"quantise ({spec.quantiser})", med, best)
    med, best, _ = time_it(lambda: raster._quantise(image, raster.ENCODINGS["pal-octree-z3"], hints), runs)
    line("quantise (octree over all pixels, former)", med, best)
    info = raster.STATIC_LAYERS.cache_info()
    print(f"  layer cache: {info.currsize} layers, {raster.STATIC_LAYERS.nbytes / 2**20:.1f} MiB,"
          f" {info.hits} hits, {info.misses} misses")

    print("\nCPU time (time.process_time) of a warm 1600 px svg_to_png and its steps:")
    cpu_runs = max(runs, 15)
    med, best, _ = time_cpu(lambda: raster.svg_to_png(svg_text, 1600), cpu_runs)
    line("svg_to_png", med, best)

    def draw() -> None:
        target, _pixels = raster._draw_document(svg_text, 1600, raster.DEFAULT_BACKGROUND, True)
        target.finish()

    med, best, _ = time_cpu(draw, cpu_runs)
    line("  draw: cached board + dynamic part", med, best)
    plainpath.SHOW_TEXT = False
    try:
        med, best, _ = time_cpu(draw, cpu_runs)
        line("  draw, texts' letters laid out by cairosvg", med, best)
    finally:
        plainpath.SHOW_TEXT = True
    raster.FAST_PATHS = False
    try:
        med, best, _ = time_cpu(draw, cpu_runs)
        line("  draw, every element by cairosvg", med, best)
    finally:
        raster.FAST_PATHS = True
    target, pixels = raster._draw_document(svg_text, 1600, raster.DEFAULT_BACKGROUND, True)
    try:
        med, best, quantised = time_cpu(lambda: raster._quantise_surface(target, pixels, spec, hints), cpu_runs)
        line("  quantise the surface's pixels", med, best)
        med, best, _ = time_cpu(lambda: raster._quantise(raster._to_image(target, pixels, True), spec, hints), cpu_runs)
        line("  copy into an RGB image, then quantise", med, best)
    finally:
        target.finish()
    med, best, _ = time_cpu(lambda: raster._save(quantised, spec), cpu_runs)
    line(f"  write the PNG ({raster.DEFAULT_ENCODING})", med, best)

    print("\nPNG encodings on the same pixels (1600 px), quantising included:")
    try:
        import cairosvg

        med, best, png = time_it(lambda: cairosvg.svg2png(bytestring=svg_text.encode(), output_width=1600), runs)
        line("svg2png (cairosvg's draw + cairo's PNG writer)", med, best, f"{len(png) / 1024:6.0f} KiB")
    except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
        print(f"  svg2png baseline failed: {exc}")
    for name in raster.ENCODINGS:
        med, best, png = time_it(functools.partial(raster.encode_png, image, name, colours=hints), runs)
        marker = "  <- default" if name == raster.DEFAULT_ENCODING else ""
        line(name, med, best, f"{len(png) / 1024:6.0f} KiB{marker}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
