"""What the render benchmarks share: timing a call and printing a row of figures."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any, Callable

from pbem.render import cache, raster


def time_it(fn: Callable[[], Any], runs: int, before: Callable[[], Any] | None = None) -> tuple[float, float, Any]:
    """Median and minimum ms of ``fn()`` over ``runs`` calls (``before()`` runs untimed before each)."""
    times: list[float] = []
    result: Any = None
    for _ in range(runs):
        if before is not None:
            before()
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times), result


def time_cpu(fn: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    """Median and minimum CPU ms (``time.process_time``) of ``fn()`` over ``runs`` calls: steadier
    than wall time on a shared machine."""
    times: list[float] = []
    result: Any = None
    for _ in range(runs):
        t0 = time.process_time()
        result = fn()
        times.append((time.process_time() - t0) * 1000)
    return statistics.median(times), min(times), result


def whole_document(svg_text: str, width: int) -> bytes:
    """The map drawn as a whole document every time (no layer cache), for comparison."""
    image = raster.rasterise(svg_text, width, layers=False)
    return raster.encode_png(image, colours=raster.document_colours(svg_text))


def line(label: str, med: float, best: float, extra: str = "") -> None:
    print(f"  {label:44s} median {med:7.1f} ms   min {best:7.1f} ms   {extra}".rstrip())


def first_map(render_svg: Callable[[dict[str, Any]], str], view: dict[str, Any]) -> str:
    """The first map of the process at 1600 px (static layers built, fonts loaded), and its size."""
    t0 = time.perf_counter()
    svg_text = render_svg(view)
    t1 = time.perf_counter()
    png = raster.svg_to_png(svg_text, 1600)
    t2 = time.perf_counter()
    print("first map of this process (cold: static layer built and drawn, fonts loaded), 1600 px:")
    print(f"  render_svg {(t1 - t0) * 1000:.1f} ms + svg_to_png {(t2 - t1) * 1000:.1f} ms"
          f" = {(t2 - t0) * 1000:.1f} ms   PNG {len(png) / 1024:.0f} KiB")
    split = raster.split_static(svg_text)
    dynamic = "".join(part for is_static, part in split.parts if not is_static) if split else svg_text
    print(f"  ({len(svg_text)} chars, {svg_text.count('<') - svg_text.count('</')} elements,"
          f" {dynamic.count('<') - dynamic.count('</')} of them dynamic)")
    return svg_text


def render_report(render_svg: Callable[[dict[str, Any]], str], view: dict[str, Any], runs: int,
                  save: Path | None, name: str) -> str:
    """The figures every render benchmark prints: the first map of the process, then at 1600 and
    800 px the cold and warm totals against drawing the whole document, and where a warm 1600 px
    render goes. Returns the SVG (for a benchmark's own extra figures)."""
    runs = max(1, runs)
    cold_runs = max(3, runs // 2)
    svg_text = first_map(render_svg, view)
    for width in (1600, 800):
        print(f"\n{width} px:")
        med, best, _ = time_it(lambda: raster.svg_to_png(render_svg(view), width), cold_runs, before=cache.clear)
        line("cold total (after cache.clear())", med, best)
        new_t: list[float] = []
        old_t: list[float] = []
        for _ in range(runs):
            a = time.perf_counter()
            png = raster.svg_to_png(render_svg(view), width)
            b = time.perf_counter()
            whole_document(render_svg(view), width)
            c = time.perf_counter()
            new_t.append((b - a) * 1000)
            old_t.append((c - b) * 1000)
        w, h = raster.png_size(png)
        line("warm total (render_svg + svg_to_png)", statistics.median(new_t), min(new_t),
             f"PNG {len(png) / 1024:.0f} KiB, {w} x {h}")
        line("whole document every time", statistics.median(old_t), min(old_t))
        med, best, svg_text = time_it(lambda: render_svg(view), runs)
        line("  of which render_svg (cached static layer)", med, best)
        med, best, _ = time_it(lambda: raster.svg_to_png(svg_text, width), runs)
        line("  of which svg_to_png", med, best)
        if save:
            save.mkdir(parents=True, exist_ok=True)
            (save / f"{name}-{width}.png").write_bytes(png)
    print("\nwhere a warm 1600 px render goes:")
    med, best, _ = time_it(lambda: raster.split_static(svg_text), runs)
    line("split at the static markers", med, best)
    med, best, image = time_it(lambda: raster.rasterise(svg_text, 1600), runs)
    line("draw: cached layer + dynamic part", med, best, f"({image.width} x {image.height})")
    med, best, _ = time_it(lambda: raster.rasterise(svg_text, 1600, layers=False), runs)
    line("draw: the whole document (no layer cache)", med, best)
    hints = raster.document_colours(svg_text)
    med, best, _ = time_it(lambda: raster.encode_png(image, colours=hints), runs)
    line("encode the PNG", med, best)
    info = raster.STATIC_LAYERS.cache_info()
    print(f"  layer cache: {info.currsize} layers, {raster.STATIC_LAYERS.nbytes / 2**20:.1f} MiB,"
          f" {info.hits} hits, {info.misses} misses")
    return svg_text
