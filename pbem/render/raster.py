"""THE one place that turns SVG into PNG.

cairosvg draws the SVG onto a cairo image surface; Pillow encodes the pixels.
cairo's own PNG writer uses zlib's default level and is the slowest part of a
map render at mail sizes (``design/performance.md``), so it is never used.

The encoding was chosen by measuring the variants of :data:`ENCODINGS` in one
run on the same pixels (a mid-game Kriegspiel map at 1600 x 1582 px, medians
of 10 runs on the 2-core server; ``benchmarks/render_kriegspiel.py`` prints
the comparison). Drawing the map with cairo takes ~36 ms; then:

==============================  =======  =======
encoding                        time     size
==============================  =======  =======
cairosvg.svg2png (draw + cairo) ~100 ms  231 KiB  (for comparison: draw included)
rgb-z1                           ~42 ms  274 KiB
rgb-z1-rle                       ~41 ms  322 KiB
rgb-z6                           ~57 ms  230 KiB
pal-z1                           ~21 ms  126 KiB
pal-z3                           ~22 ms  113 KiB  <- default
pal-z6                           ~29 ms   96 KiB
==============================  =======  =======

A palette image (Pillow's fast octree quantiser to 256 colours, no dithering;
quantising is most of the ~22 ms) is both the fastest and the smallest: maps are
flat colours plus their anti-aliased edges, so the quantisation is visually
lossless (mean error about one level per channel, 0.03 % of pixels off by more
than 8; a flat colour used on very few pixels may shift by up to ~10 levels).
zlib level 3 costs the same as level 1 on palette data and saves another 10 %;
level 6 saves 15 % more for +7 ms. Whole map at 1600 px: ~60-75 ms with the
default, against ~100 ms for ``cairosvg.svg2png``.

The function is reentrant (no module state is written; every call has its own
surface and context), so callers may run it in worker threads; keeping it off
the event loop is the caller's job (e.g. ``await asyncio.to_thread(svg_to_png,
svg, 1600)``).
"""

from __future__ import annotations

import io
import logging
import struct
import sys
import zlib
from dataclasses import dataclass
from typing import Any, Final

from PIL import Image

from pbem.errors import RenderError

log = logging.getLogger(__name__)

#: Refuse absurd output sizes (a typo in a config, a hostile option).
MAX_PIXELS: Final = 40_000_000
MAX_SIDE: Final = 16_384
DEFAULT_BACKGROUND: Final = "#ffffff"

_PNG_MAGIC: Final = b"\x89PNG\r\n\x1a\n"

# zlib strategies Pillow passes through as ``compress_type``.
_Z_DEFAULT = zlib.Z_DEFAULT_STRATEGY
_Z_RLE = zlib.Z_RLE


@dataclass(frozen=True, slots=True)
class Encoding:
    """How Pillow writes the pixels."""

    name: str
    palette: bool  # quantise to <= 256 colours first
    compress_level: int
    strategy: int = _Z_DEFAULT
    colours: int = 256


#: The variants :func:`svg_to_png` can use; the benchmark compares them all.
ENCODINGS: Final[dict[str, Encoding]] = {
    e.name: e
    for e in (
        Encoding("rgb-z1", palette=False, compress_level=1),
        Encoding("rgb-z1-rle", palette=False, compress_level=1, strategy=_Z_RLE),
        Encoding("rgb-z6", palette=False, compress_level=6),
        Encoding("pal-z1", palette=True, compress_level=1),
        Encoding("pal-z3", palette=True, compress_level=3),
        Encoding("pal-z6", palette=True, compress_level=6),
    )
}

#: The variant used by default (see the module docstring for the numbers).
DEFAULT_ENCODING: Final = "pal-z3"

# cairo's ARGB32 is a native-endian 32-bit word: B,G,R,A bytes on little-endian machines.
_RAW_OPAQUE: Final = "BGRX" if sys.byteorder == "little" else "XRGB"
_RAW_ALPHA: Final = "BGRa" if sys.byteorder == "little" else "aRGB"


def _load_cairosvg() -> tuple[Any, Any]:
    try:
        from cairosvg.parser import Tree
        from cairosvg.surface import PNGSurface
    except (ImportError, OSError) as exc:  # OSError: libcairo missing
        raise RenderError(f"cairosvg/cairo is not usable: {exc}") from exc
    return Tree, PNGSurface


def rasterise(
    svg: str | bytes,
    width: int | None = None,
    *,
    background: str | None = DEFAULT_BACKGROUND,
) -> Image.Image:
    """Draw ``svg`` with cairo and return the pixels as a Pillow image.

    ``width`` is the output width in pixels (the height keeps the aspect
    ratio); ``None`` uses the SVG's own size. With a ``background`` colour
    the result is an opaque ``RGB`` image, with ``None`` an ``RGBA`` one.
    Raises :class:`RenderError` on malformed SVG or an unusable size.
    """
    if width is not None and (not isinstance(width, int) or isinstance(width, bool)):
        raise RenderError(f"width must be an int or None, not {width!r}")
    if width is not None and not 1 <= width <= MAX_SIDE:
        raise RenderError(f"width {width} out of range 1..{MAX_SIDE}")
    data = svg.encode("utf-8") if isinstance(svg, str) else svg
    if not data.strip():
        raise RenderError("empty SVG document")
    tree_cls, _ = _load_cairosvg()
    try:
        tree = tree_cls(bytestring=data)
    except Exception as exc:  # ElementTree.ParseError, ValueError, TypeError...
        raise RenderError(f"malformed SVG: {exc}") from exc
    if getattr(tree, "tag", None) != "svg":
        raise RenderError(f"not an SVG document (root element {getattr(tree, 'tag', None)!r})")
    try:
        surface = _Surface(
            tree,
            None,
            96,
            output_width=width,
            background_color=background,
        )
    except RenderError:
        raise
    except Exception as exc:
        raise RenderError(f"cannot draw SVG: {exc}") from exc
    target = surface.cairo
    try:
        target.flush()
        size = (target.get_width(), target.get_height())
        stride = target.get_stride()
        if background is not None:
            # Opaque, so premultiplied == straight colour; the alpha byte is dropped.
            return Image.frombytes("RGB", size, target.get_data(), "raw", _RAW_OPAQUE, stride)
        return Image.frombytes("RGBA", size, target.get_data(), "raw", _RAW_ALPHA, stride)
    finally:
        target.finish()


def _make_surface_class() -> Any:
    _, png_surface = _load_cairosvg()

    class Surface(png_surface):  # type: ignore[misc, valid-type]
        """cairosvg's PNG surface that never writes cairo's (slow) PNG."""

        def _create_surface(self, width: float, height: float) -> Any:
            w, h = round(width), round(height)
            if w <= 0 or h <= 0:
                raise RenderError("the SVG has no size (width/height/viewBox missing or zero)")
            if w > MAX_SIDE or h > MAX_SIDE or w * h > MAX_PIXELS:
                raise RenderError(f"output of {w} x {h} px is too large")
            return super()._create_surface(width, height)

        def finish(self) -> None:  # no PNG from cairo, the caller reads the pixels
            return None

    return Surface


class _LazySurface:
    """Builds the cairosvg subclass on first use (so importing is cheap)."""

    _cls: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _LazySurface._cls is None:
            _LazySurface._cls = _make_surface_class()
        return _LazySurface._cls(*args, **kwargs)


_Surface = _LazySurface()


def encode_png(image: Image.Image, encoding: str = DEFAULT_ENCODING) -> bytes:
    """Encode a Pillow image as PNG with one of :data:`ENCODINGS`."""
    spec = ENCODINGS.get(encoding)
    if spec is None:
        raise RenderError(f"unknown PNG encoding {encoding!r}; known: {', '.join(ENCODINGS)}")
    img = image
    if spec.palette:
        img = img.quantize(
            spec.colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    out = io.BytesIO()
    img.save(
        out,
        format="PNG",
        compress_level=spec.compress_level,
        compress_type=spec.strategy,
        optimize=False,
    )
    return out.getvalue()


def svg_to_png(svg: str, width: int | None = None, *, encoding: str = DEFAULT_ENCODING) -> bytes:
    """Rasterise an SVG document to PNG bytes, ``width`` pixels wide.

    The height follows the SVG's aspect ratio. Transparent areas are painted
    white. Raises :class:`RenderError` with a clear message on malformed SVG,
    a document without a size, or an unreasonable output size.
    """
    image = rasterise(svg, width)
    png = encode_png(image, encoding)
    log.debug("rasterised %d x %d px -> %d bytes (%s)", image.width, image.height, len(png), encoding)
    return png


def png_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` of a PNG, read from its header (no decoding)."""
    if len(png) < 24 or not png.startswith(_PNG_MAGIC) or png[12:16] != b"IHDR":
        raise RenderError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)
