"""How long a Block Mania turn map takes: render_svg, svg_to_png, and the total.

Run: ``.venv/bin/python benchmarks/render_blockmania.py [--runs N] [--save DIR]``

Prints median and minimum times (ms) over N runs at 1600 px (the service's ``render.width``) and 800 px
wide, for a mid-game view of four blocks (turn 3: Blockers of every seat, a locked close combat, fires,
damage, a collapse, a fallen block, moves and a shot in the log):

- cold: the first map of a process (and maps drawn right after ``pbem.render.cache.clear()``): the
  static sheet (the four cross-sections, the legend) is built and drawn;
- warm: every later turn, the static sheet's pixels reused from the layer cache;
- the whole document drawn every time (no layer cache), for comparison;

then where a warm render's time goes. The machine is noisy: compare figures of one run, not across runs.
A plain script: no assertions. ``--save DIR`` writes the sample maps there.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _timing import line, time_it, whole_document  # noqa: E402 (the module beside this script)

from pbem.games.blockmania.render import render_svg  # noqa: E402
from pbem.games.blockmania.view import build_view  # noqa: E402
from pbem.render import cache, raster  # noqa: E402
from tests.games.blockmania.test_view import mid_game  # noqa: E402 (the tests' mid-game position)


def mid_game_view(players: int = 4) -> dict[str, Any]:
    view = dict(build_view(mid_game(players), "red"))
    view["lang"] = "en"
    return view


def total(view: dict[str, Any], width: int) -> bytes:
    """What a turn mail costs: the SVG and its PNG."""
    return raster.svg_to_png(render_svg(view), width)


def whole(view: dict[str, Any], width: int) -> bytes:
    """The same map with the whole document drawn every time (no layer cache)."""
    return whole_document(render_svg(view), width)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--save", type=Path, default=None, help="write the sample PNGs here")
    args = parser.parse_args(argv)
    view = mid_game_view()
    runs = max(1, args.runs)
    cold_runs = max(3, runs // 2)

    t0 = time.perf_counter()
    svg_text = render_svg(view)
    t1 = time.perf_counter()
    png = raster.svg_to_png(svg_text, 1600)
    t2 = time.perf_counter()
    print("first map of this process (cold: static sheet built and drawn, fonts loaded), 1600 px:")
    print(f"  render_svg {(t1 - t0) * 1000:.1f} ms + svg_to_png {(t2 - t1) * 1000:.1f} ms"
          f" = {(t2 - t0) * 1000:.1f} ms   PNG {len(png) / 1024:.0f} KiB")
    split = raster.split_static(svg_text)
    dynamic = "".join(part for is_static, part in split.parts if not is_static) if split else svg_text
    print(f"  ({len(svg_text)} chars, {svg_text.count('<') - svg_text.count('</')} elements,"
          f" {dynamic.count('<') - dynamic.count('</')} of them dynamic)")

    for width in (1600, 800):
        print(f"\n{width} px:")
        med, best, _ = time_it(functools.partial(total, view, width), cold_runs, before=cache.clear)
        line("cold total (after cache.clear())", med, best)
        new_t: list[float] = []
        old_t: list[float] = []
        png = b""
        for _ in range(runs):
            a = time.perf_counter()
            png = total(view, width)
            b = time.perf_counter()
            whole(view, width)
            c = time.perf_counter()
            new_t.append((b - a) * 1000)
            old_t.append((c - b) * 1000)
        w, h = raster.png_size(png)
        line("warm total (render_svg + svg_to_png)", statistics.median(new_t), min(new_t),
             f"PNG {len(png) / 1024:.0f} KiB, {w} x {h}")
        line("whole document every time", statistics.median(old_t), min(old_t))
        med, best, svg_text = time_it(lambda: render_svg(view), runs)
        line("  of which render_svg (cached static sheet)", med, best)
        med, best, _ = time_it(functools.partial(raster.svg_to_png, svg_text, width), runs)
        line("  of which svg_to_png", med, best)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"blockmania-{width}.png").write_bytes(png)

    print("\nwhere a warm 1600 px render goes:")
    med, best, _ = time_it(lambda: raster.split_static(svg_text), runs)
    line("split at the static markers", med, best)
    med, best, image = time_it(lambda: raster.rasterise(svg_text, 1600), runs)
    line("draw: cached sheet + dynamic part", med, best, f"({image.width} x {image.height})")
    med, best, _ = time_it(lambda: raster.rasterise(svg_text, 1600, layers=False), runs)
    line("draw: the whole document (no layer cache)", med, best)
    hints = raster.document_colours(svg_text)
    med, best, _ = time_it(lambda: raster.encode_png(image, colours=hints), runs)
    line("encode the PNG", med, best)
    info = raster.STATIC_LAYERS.cache_info()
    print(f"  layer cache: {info.currsize} layers, {raster.STATIC_LAYERS.nbytes / 2**20:.1f} MiB,"
          f" {info.hits} hits, {info.misses} misses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
