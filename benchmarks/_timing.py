"""What the render benchmarks share: timing a call and printing a row of figures."""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

from pbem.render import raster


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


def whole_document(svg_text: str, width: int) -> bytes:
    """The map drawn as a whole document every time (no layer cache), for comparison."""
    image = raster.rasterise(svg_text, width, layers=False)
    return raster.encode_png(image, colours=raster.document_colours(svg_text))


def line(label: str, med: float, best: float, extra: str = "") -> None:
    print(f"  {label:44s} median {med:7.1f} ms   min {best:7.1f} ms   {extra}".rstrip())
