"""Rendering shared by every game: SVG helpers, the one rasteriser, the theme.

- :mod:`pbem.render.svg` — build SVG text safely (escaping, paths, canvas).
- :mod:`pbem.render.raster` — :func:`svg_to_png`, the only rasteriser; it draws
  a document's static blocks (:func:`pbem.render.svg.static_block`) once and
  reuses their pixels.
- :mod:`pbem.render.plainpath` — plain ``<path>`` elements and unstroked texts drawn
  with the cairo calls cairosvg makes for them, without its generic per-element work.
- :mod:`pbem.render.theme` — colours and fonts, so all maps look of one family.
- :mod:`pbem.render.cache` — per-process caches for static board parts (SVG text
  and drawn pixels), with :func:`~pbem.render.cache.stats` and
  :func:`~pbem.render.cache.clear`.
"""

from __future__ import annotations

from pbem.render.raster import png_size, svg_to_png

__all__ = ["png_size", "svg_to_png"]
