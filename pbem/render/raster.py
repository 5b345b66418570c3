"""THE one place that turns SVG into PNG.

cairosvg draws the SVG onto a cairo image surface; Pillow quantises and encodes the pixels.
cairo's own PNG writer uses zlib's default level and is the slowest part of a
map render at mail sizes (``design/performance.md``), so it is never used.

Static layers
-------------
Most of a map is the same on every turn (paper, board, terrain, grid,
coordinates, legend). A document may bracket such parts in static markers
(:data:`pbem.render.svg.STATIC_BEGIN` / ``STATIC_END``, written by
:func:`pbem.render.svg.static_block` or ``Canvas(static=...)``). Then
:func:`rasterise` splits the document into its parts in drawing order; each
static part is drawn once per (its SVG text, output width, background) into a
process-wide LRU of pixels (:data:`STATIC_LAYERS`, bounded by entries and bytes,
thread safe), and every render starts from a copy of those pixels and draws only
the dynamic parts on top. A static part first in the document (the usual case)
gives exactly the pixels of drawing the whole document; a static part above
dynamic ones is composited over them (differences of a level or so on its
anti-aliased edges). Documents without markers, or whose markers are not at the
top level of the document, are drawn whole as before.

Every part is drawn as its own document: the root ``<svg>`` start tag, then the
top-level ``<defs>``/``<style>`` elements found outside the static blocks (so
dynamic and static parts can both use them), then the part. Top-level
``<title>``/``<desc>``/``<metadata>`` are left out (they are not drawn, and a
per-turn title must not change a static layer's key).

Drawing
-------
Plain ``<path>`` elements (what :mod:`pbem.render.svg` writes) and plain
texts (halos included) are drawn by :mod:`pbem.render.plainpath` with the cairo
calls cairosvg would make, without its per-element and per-letter Python work
(same pixels); everything else by cairosvg.

Encoding
--------
A palette PNG is both the fastest and the smallest (maps are flat colours
plus their anti-aliased edges); at 1600 x 1582 px pal-z3 (the default without
isal) is ~10 ms and 116 KiB, pal-z1 ~9 ms and 129 KiB, rgb-z1 ~45 ms and 274 KiB
(``benchmarks/render_kriegspiel.py`` prints them all). Pillow writes palette
rows unfiltered; zlib is most of the time: a smaller window or ``Z_RLE`` is
slower here, and writing the PNG without Pillow saves nothing. ISA-L's deflate
does: with the ``isal`` package installed the default is pal-isal1, ~2.5 ms
for the same size and the same pixels (:data:`HAVE_ISAL`). The palette is
built without looking at every pixel: the document's own ``#rrggbb`` colours
(up to 64, so flat areas keep their exact colour), completed by Pillow's fast
octree over every 4th pixel in each direction (the anti-aliasing blends); then
every pixel takes its nearest palette colour (a cached lookup, ~5 ms), read
from cairo's surface where it lies (:func:`_quantise_surface`). The error
against the true colours: mean under one level per channel, ~0.4 % of pixels
off by more than 8, none by more than ~30.

Warm Kriegspiel turn map at 1600 px (board cached), CPU: svg_to_png ~35 ms,
of which drawing the dynamic part ~16 ms, quantising ~7 ms, zlib ~10 ms
(~29 ms with isal).

The functions are reentrant (each call has its own surface and context; the
layer cache is locked), so callers may run them in worker threads; keeping
them off the event loop is the caller's job (e.g. ``await
asyncio.to_thread(svg_to_png, svg, 1600)``; within `pbem.render.refuse.drawing_refused`
they raise `DrawingRefused` before drawing anything). In a process pool each worker has
its own layer cache: keep the workers alive between renders.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import logging
import re
import struct
import sys
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from PIL import Image

from pbem.errors import RenderError
from pbem.render import plainpath, refuse
from pbem.render.cache import BoundedCache
from pbem.render.svg import STATIC_BEGIN, STATIC_END

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
    """How Pillow writes the pixels.

    ``quantiser`` (palette encodings): ``"sampled"`` builds the palette from the
    document's colours and a sample of the pixels, then maps every pixel to its
    nearest palette colour; ``"octree"`` runs Pillow's fast octree over all
    pixels (the former default, slower, kept for comparison). ``deflate``:
    ``"zlib"`` is Pillow's PNG writer, ``"isal"`` :func:`_write_palette_png` with
    ISA-L's deflate (palette encodings; only when ``isal`` is installed).
    """

    name: str
    palette: bool  # quantise to <= 256 colours first
    compress_level: int
    strategy: int = _Z_DEFAULT
    colours: int = 256
    quantiser: str = "sampled"
    deflate: str = "zlib"


#: ISA-L's deflate (the ``isal`` package), if installed: at 1600 px it writes a map's
#: palette PNG in ~2.5 ms instead of zlib's ~10 ms, the same size as zlib level 3.
HAVE_ISAL: Final = importlib.util.find_spec("isal") is not None


#: The variants :func:`svg_to_png` can use; the benchmark compares them all.
ENCODINGS: Final[dict[str, Encoding]] = {
    e.name: e
    for e in (
        Encoding("rgb-z1", palette=False, compress_level=1),
        Encoding("rgb-z1-rle", palette=False, compress_level=1, strategy=_Z_RLE),
        Encoding("rgb-z6", palette=False, compress_level=6),
        Encoding("pal-octree-z3", palette=True, compress_level=3, quantiser="octree"),
        Encoding("pal-z1", palette=True, compress_level=1),
        Encoding("pal-z3", palette=True, compress_level=3),
        Encoding("pal-z6", palette=True, compress_level=6),
        *([Encoding("pal-isal1", palette=True, compress_level=1, deflate="isal")] if HAVE_ISAL else []),
    )
}

#: The variant used by default (see the module docstring for the numbers).
DEFAULT_ENCODING: Final = "pal-isal1" if HAVE_ISAL else "pal-z3"

#: The "sampled" quantiser: at most this many exact colours taken from the document,
#: and the pixel sample for the rest of the palette is every SAMPLE_STEP-th pixel.
MAX_DOCUMENT_COLOURS: Final = 64
SAMPLE_STEP: Final = 4

#: Freed image memory blocks Pillow keeps for reuse (its default is none: every
#: image's memory goes back to the OS and the next map pays the page faults of
#: ~15 MB of fresh memory, ~9 ms at 1600 px). Process-wide; raised to this on
#: the first render, never lowered (``PILLOW_BLOCKS_MAX`` in the environment or
#: ``PIL.Image.core.set_blocks_max`` may set more). Peak memory is unchanged.
PILLOW_BLOCKS_MAX: Final = 8

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


_pillow_tuned = False


def _tune_pillow() -> None:
    global _pillow_tuned
    if _pillow_tuned:
        return
    core: Any = Image.core
    try:
        if core.get_blocks_max() < PILLOW_BLOCKS_MAX:
            core.set_blocks_max(PILLOW_BLOCKS_MAX)
    except (AttributeError, ValueError):  # a Pillow without the block arena
        pass
    _pillow_tuned = True


def _cairo() -> Any:
    try:
        import cairocffi
    except (ImportError, OSError) as exc:
        raise RenderError(f"cairo is not usable: {exc}") from exc
    return cairocffi


# -- static layers ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layer:
    """The pixels of a drawn static part: cairo ARGB32 (premultiplied), read-only."""

    width: int
    height: int
    stride: int
    data: bytes


def _layer_bytes(layer: Layer) -> int:
    return len(layer.data)


#: Drawn static parts, keyed by ``(part document, output width, background)``.
#: About 10 MB per entry at 1600 px; resize with ``STATIC_LAYERS.resize(...)``.
STATIC_LAYERS: Final[BoundedCache[tuple[str, int | None, str | None], Layer]] = BoundedCache(
    "pbem.render.raster.STATIC_LAYERS",
    max_entries=16,
    max_bytes=128 * 1024 * 1024,
    weigh=_layer_bytes,
)


@dataclass(frozen=True, slots=True)
class Split:
    """A document with static markers, cut into parts to draw in order."""

    head: str  # the root <svg ...> start tag
    shared: str  # top-level <defs>/<style> outside the static blocks
    parts: tuple[tuple[bool, str], ...]  # (static?, content)

    def document(self, content: str) -> str:
        """The part ``content`` as a document of its own."""
        return f"{self.head}{self.shared}{content}</svg>"


_HEAD = re.compile(
    r"""\A\s*(?:<\?xml(?:[^?]|\?(?!>))*\?>\s*)?(?:<!--(?:[^-]|-(?!->))*-->\s*)*"""
    r"""(<svg\b(?:[^>"']|"[^"]*"|'[^']*')*>)"""
)
_TOKEN = re.compile(
    r"""<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<![^>]*>|</[^>]*>|<(?:[^>"']|"[^"]*"|'[^']*')*>""",
    re.DOTALL,
)
_TAG_NAME = re.compile(r"<([A-Za-z_:][-A-Za-z0-9_.:]*)")
_SHARED_TAGS: Final = frozenset({"defs", "style"})
_SILENT_TAGS: Final = frozenset({"title", "desc", "metadata"})


def split_static(svg: str) -> Split | None:
    """Cut a document at its static markers; ``None`` if it has none (or they are unusable).

    Markers count only at the top level of the document, properly paired and
    not nested; anything else makes the document render whole, as if it had
    no markers.
    """
    if STATIC_BEGIN not in svg:
        return None
    head = _HEAD.match(svg)
    if head is None or head.group(1).endswith("/>"):
        return None
    tail = svg.rstrip()
    if not tail.endswith("</svg>"):
        return None
    body = svg[head.end() : len(tail) - len("</svg>")]

    parts: list[tuple[bool, str]] = []
    shared: list[str] = []
    dynamic: list[str] = []  # pieces of the current dynamic part
    pos = 0  # body[pos:] not yet assigned to a part
    depth = 0
    static_from: int | None = None  # inside a static block: where its content starts
    top_name: str | None = None  # the top-level element being read (outside static blocks)
    top_from = 0

    def end_dynamic() -> None:
        text = "".join(dynamic)
        dynamic.clear()
        if text.strip():
            parts.append((False, text))

    for m in _TOKEN.finditer(body):
        tok = m.group()
        if tok.startswith("<!"):
            if tok == STATIC_BEGIN or tok == STATIC_END:
                if depth != 0:
                    return None
                if tok == STATIC_BEGIN:
                    if static_from is not None:
                        return None
                    dynamic.append(body[pos : m.start()])
                    end_dynamic()
                    static_from = m.end()
                else:
                    if static_from is None:
                        return None
                    content = body[static_from : m.start()]
                    if content.strip():
                        parts.append((True, content))
                    static_from = None
                pos = m.end()
            continue  # other comments, CDATA, declarations
        if tok.startswith("<?"):
            continue
        outside = static_from is None
        if tok.startswith("</"):
            depth -= 1
            if depth < 0:
                return None
            closes_top = depth == 0
        else:
            if depth == 0 and outside:
                name = _TAG_NAME.match(tok)
                top_name = name.group(1) if name else ""
                top_from = m.start()
            if tok.endswith("/>"):
                closes_top = depth == 0
            else:
                depth += 1
                closes_top = False
        if closes_top and outside and top_name is not None:
            if top_name in _SHARED_TAGS or top_name in _SILENT_TAGS:
                dynamic.append(body[pos:top_from])
                if top_name in _SHARED_TAGS:
                    shared.append(body[top_from : m.end()])
                pos = m.end()
            top_name = None
    if depth != 0 or static_from is not None:
        return None
    dynamic.append(body[pos:])
    end_dynamic()
    if not any(is_static for is_static, _ in parts):
        return None
    # The XML declaration is left out: the parts are handed to cairosvg as UTF-8.
    return Split(head.group(1), "".join(shared), tuple(parts))


# -- drawing -------------------------------------------------------------------------


def _check_width(width: object) -> None:
    if width is not None and (not isinstance(width, int) or isinstance(width, bool)):
        raise RenderError(f"width must be an int or None, not {width!r}")
    if width is not None and not 1 <= width <= MAX_SIDE:
        raise RenderError(f"width {width} out of range 1..{MAX_SIDE}")


def _parse(data: bytes) -> Any:
    if not data.strip():
        raise RenderError("empty SVG document")
    tree_cls, _ = _load_cairosvg()
    try:
        tree = tree_cls(bytestring=data)
    except Exception as exc:  # ElementTree.ParseError, ValueError, TypeError...
        raise RenderError(f"malformed SVG: {exc}") from exc
    if getattr(tree, "tag", None) != "svg":
        raise RenderError(f"not an SVG document (root element {getattr(tree, 'tag', None)!r})")
    return tree


def _draw(tree: Any, width: int | None, background: str | None, target: Any = None) -> Any:
    """Draw ``tree`` onto ``target`` (a cairo image surface) or onto a new surface; return it."""
    try:
        surface = _Surface(tree, width, background, target)
    except RenderError:
        raise
    except Exception as exc:
        raise RenderError(f"cannot draw SVG: {exc}") from exc
    return surface.cairo


def _draw_layer(document: str, width: int | None, background: str | None) -> Layer:
    """Draw a static part on its own (the cache's cold path)."""
    target = _draw(_parse(document.encode("utf-8")), width, background)
    try:
        target.flush()
        return Layer(
            target.get_width(), target.get_height(), target.get_stride(), bytes(target.get_data())
        )
    finally:
        target.finish()


def _draw_split(split: Split, width: int | None, background: str | None) -> tuple[Any, Any]:
    """Draw a split document part by part; returns the cairo surface and its buffer."""
    cairo = _cairo()
    target: Any = None
    buffer: Any = None
    for index, (is_static, content) in enumerate(split.parts):
        document = split.document(content)
        fill = background if index == 0 else None  # the background goes under the first part only
        if not is_static:
            target = _draw(_parse(document.encode("utf-8")), width, fill, target)
            continue
        layer = STATIC_LAYERS.get_or_build(
            (document, width, fill), functools.partial(_draw_layer, document, width, fill)
        )
        if target is None:  # start from a copy of the cached pixels
            buffer = bytearray(layer.data)
            target = cairo.ImageSurface(cairo.FORMAT_ARGB32, layer.width, layer.height, buffer, layer.stride)
            continue
        if (target.get_width(), target.get_height()) != (layer.width, layer.height):
            raise RenderError("the parts of the document have different sizes")
        target.flush()
        source = cairo.ImageSurface(
            cairo.FORMAT_ARGB32, layer.width, layer.height, bytearray(layer.data), layer.stride
        )
        context = cairo.Context(target)
        context.set_source_surface(source, 0, 0)
        context.paint()  # OVER what is drawn so far
        source.finish()
    return target, buffer


def _draw_document(
    svg: str | bytes, width: int | None, background: str | None, layers: bool
) -> tuple[Any, Any]:
    """Draw ``svg`` (see :func:`rasterise`); returns the cairo surface (flushed) and its pixels.
    Raises `DrawingRefused` where no map may be drawn (`pbem.render.refuse`)."""
    refuse.check()
    _check_width(width)
    _tune_pillow()
    split: Split | None = None
    if layers:
        text: str | None
        if isinstance(svg, str):
            text = svg
        else:
            try:
                text = svg.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        split = split_static(text) if text is not None else None
    if split is None:
        data = svg.encode("utf-8") if isinstance(svg, str) else svg
        target = _draw(_parse(data), width, background)
        pixels = None
    else:
        target, pixels = _draw_split(split, width, background)
    try:
        target.flush()
        if pixels is None:
            pixels = target.get_data()
    except BaseException:
        target.finish()
        raise
    return target, pixels


def _to_image(target: Any, pixels: Any, opaque: bool) -> Image.Image:
    """The surface's pixels as an ``RGB`` (opaque) or ``RGBA`` Pillow image (a copy)."""
    size = (target.get_width(), target.get_height())
    # Into an image made without clearing its memory (``Image.frombytes`` clears it
    # first: ~1 ms at 1600 px, for pixels that are all written over).
    if opaque:
        # Opaque, so premultiplied == straight colour; the alpha byte is dropped.
        image = Image.new("RGB", size, None)
        image.frombytes(pixels, "raw", _RAW_OPAQUE, target.get_stride())
    else:
        image = Image.new("RGBA", size, None)
        image.frombytes(pixels, "raw", _RAW_ALPHA, target.get_stride())
    return image


def rasterise(
    svg: str | bytes,
    width: int | None = None,
    *,
    background: str | None = DEFAULT_BACKGROUND,
    layers: bool = True,
) -> Image.Image:
    """Draw ``svg`` with cairo and return the pixels as a Pillow image.

    ``width`` is the output width in pixels (the height keeps the aspect
    ratio); ``None`` uses the SVG's own size. With a ``background`` colour
    the result is an opaque ``RGB`` image, with ``None`` an ``RGBA`` one.
    Static parts are drawn once and reused (see the module docstring);
    ``layers=False`` draws the whole document every time (the reference the
    tests compare with). Raises :class:`RenderError` on malformed SVG or an
    unusable size.
    """
    target, pixels = _draw_document(svg, width, background, layers)
    try:
        return _to_image(target, pixels, background is not None)
    finally:
        target.finish()


def _make_surface_class() -> Any:
    _, png_surface = _load_cairosvg()
    from cairosvg.surface import SHAPE_ANTIALIAS as antialias

    cairo = _cairo()

    class Surface(png_surface):  # type: ignore[misc, valid-type]
        """cairosvg's PNG surface that never writes cairo's (slow) PNG, and can draw
        onto an existing surface (over what it holds)."""

        def __init__(self, tree: Any, width: int | None, background: str | None, target: Any) -> None:
            self._pbem_target = target
            super().__init__(tree, None, 96, output_width=width, background_color=background)

        def _create_surface(self, width: float, height: float) -> Any:
            w, h = round(width), round(height)
            if w <= 0 or h <= 0:
                raise RenderError("the SVG has no size (width/height/viewBox missing or zero)")
            if w > MAX_SIDE or h > MAX_SIDE or w * h > MAX_PIXELS:
                raise RenderError(f"output of {w} x {h} px is too large")
            target = self._pbem_target
            if target is not None:
                if (target.get_width(), target.get_height()) != (w, h):
                    raise RenderError("the parts of the document have different sizes")
                return target, w, h
            return super()._create_surface(width, height)

        def finish(self) -> None:  # no PNG from cairo, the caller reads the pixels
            return None

        def draw(self, node: Any) -> None:
            if not (FAST_PATHS and self.stroke_and_fill):
                super().draw(node)
            elif node.tag == "path":
                if node.children or not plainpath.draw(self, node, cairo, antialias):
                    super().draw(node)
            elif node.tag != "text" or not plainpath.draw_text(self, node, cairo):
                super().draw(node)

    return Surface


class _LazySurface:
    """Builds the cairosvg subclass on first use (so importing is cheap)."""

    _cls: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _LazySurface._cls is None:
            _LazySurface._cls = _make_surface_class()
        return _LazySurface._cls(*args, **kwargs)


_Surface = _LazySurface()


# -- plain paths ---------------------------------------------------------------------

#: Draw plain paths and texts directly (see "Drawing"); ``False``: all by cairosvg.
FAST_PATHS = True


# -- encoding ------------------------------------------------------------------------

_COLOUR = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})(?![0-9a-zA-Z_-])")


def document_colours(svg: str, limit: int = MAX_DOCUMENT_COLOURS) -> list[tuple[int, int, int]]:
    """The ``#rrggbb``/``#rgb`` colours written in ``svg``, most used first, at most ``limit``."""
    counts = Counter(
        (m if len(m) == 6 else "".join(ch * 2 for ch in m)).lower() for m in _COLOUR.findall(svg)
    )
    return [(int(v[0:2], 16), int(v[2:4], 16), int(v[4:6], 16)) for v, _n in counts.most_common(limit)]


def _sample(image: Image.Image) -> Image.Image:
    """Every :data:`SAMPLE_STEP`-th pixel in each direction (the image itself when small)."""
    if image.width * image.height <= 256 * 256:
        return image
    size = (-(-image.width // SAMPLE_STEP), -(-image.height // SAMPLE_STEP))
    return image.resize(size, Image.Resampling.NEAREST)


def _sampled_palette(sample: Image.Image, spec: Encoding, hints: Sequence[tuple[int, int, int]]) -> list[int]:
    """The "sampled" quantiser's palette (768 values): ``hints`` exactly, then the octree's
    colours of the ``RGB`` ``sample``, padded with a used colour."""
    octree, no_dither = Image.Quantize.FASTOCTREE, Image.Dither.NONE
    exact = list(dict.fromkeys(hints))[: max(0, spec.colours - 16)]
    rest = spec.colours - len(exact)
    found = sample.quantize(rest, method=octree, dither=no_dither)
    used = sorted(i for _count, i in found.getcolors(rest) or [] if isinstance(i, int))  # P: indices
    table = found.getpalette() or []
    colours = exact + [(table[3 * i], table[3 * i + 1], table[3 * i + 2]) for i in used]
    flat = [v for rgb in colours[: spec.colours] for v in rgb]
    return flat + flat[:3] * (256 - len(flat) // 3)


def _quantise(image: Image.Image, spec: Encoding, hints: Sequence[tuple[int, int, int]]) -> Image.Image:
    octree, no_dither = Image.Quantize.FASTOCTREE, Image.Dither.NONE
    if spec.quantiser == "octree" or image.mode != "RGB":
        return image.quantize(spec.colours, method=octree, dither=no_dither)
    palette = Image.new("P", (1, 1))
    palette.putpalette(_sampled_palette(_sample(image), spec, hints))
    return image.quantize(palette=palette, dither=no_dither)


def _quantise_surface(target: Any, pixels: Any, spec: Encoding, hints: Sequence[tuple[int, int, int]]) -> Image.Image:
    """:func:`_quantise` of an opaque surface's pixels read where they lie.

    The same palette and indices as ``_quantise(_to_image(...))`` without the
    copy into an ``RGB`` image (~2 ms at 1600 px): the surface's memory is
    mapped as an ``RGBX`` image whose channels are B, G, R (little-endian
    ARGB32), only the small sample is turned into true ``RGB`` for the octree,
    and the pixels are mapped to the palette with its red and blue swapped
    (the nearest colour does not depend on the order of the channels). Uses
    Pillow's core ``convert`` as ``Image.quantize`` does (which refuses ``RGBX``).
    """
    size, stride = (target.get_width(), target.get_height()), target.get_stride()
    mapped = Image.frombuffer("RGBX", size, pixels, "raw", "RGBX", stride, 1)
    sample = _sample(mapped)
    rgb = Image.frombytes("RGB", sample.size, sample.tobytes(), "raw", "BGRX")
    flat = _sampled_palette(rgb, spec, hints)
    swapped = Image.new("P", (1, 1))
    swapped.putpalette([flat[i + j] for i in range(0, len(flat), 3) for j in (2, 1, 0)])
    swapped.load()
    out = mapped._new(mapped.im.convert("P", Image.Dither.NONE, swapped.im))
    out.putpalette(flat)
    return out


def _encoding(encoding: str) -> Encoding:
    spec = ENCODINGS.get(encoding)
    if spec is None:
        raise RenderError(f"unknown PNG encoding {encoding!r}; known: {', '.join(ENCODINGS)}")
    return spec


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def _write_palette_png(image: Image.Image, compress: Callable[[bytes], bytes]) -> bytes:
    """A ``P`` image as PNG, its rows unfiltered (as Pillow writes palette rows) and
    deflated in one call of ``compress`` (a zlib stream, e.g. ``isal_zlib.compress``)."""
    width, height = image.size
    rows = Image.new("P", (width + 1, height), 0)  # each row starts with its filter byte, 0: none
    rows.paste(image, (1, 0))
    palette = bytes((image.getpalette() or [0, 0, 0])[: 3 * 256])
    return b"".join((
        _PNG_MAGIC,
        _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
        _png_chunk(b"PLTE", palette),
        _png_chunk(b"IDAT", compress(rows.tobytes())),
        _png_chunk(b"IEND", b""),
    ))


def _isal_compress(level: int) -> Callable[[bytes], bytes]:
    try:
        from isal import isal_zlib
    except ImportError as exc:
        raise RenderError(f"isal is not usable: {exc}") from exc
    return functools.partial(isal_zlib.compress, level=level)


def _save(image: Image.Image, spec: Encoding) -> bytes:
    if spec.deflate == "isal" and image.mode == "P":
        return _write_palette_png(image, _isal_compress(spec.compress_level))
    out = io.BytesIO()
    image.save(
        out,
        format="PNG",
        compress_level=spec.compress_level,
        compress_type=spec.strategy,
        optimize=False,
    )
    return out.getvalue()


def encode_png(
    image: Image.Image,
    encoding: str = DEFAULT_ENCODING,
    *,
    colours: Sequence[tuple[int, int, int]] = (),
) -> bytes:
    """Encode a Pillow image as PNG with one of :data:`ENCODINGS`.

    ``colours`` (e.g. :func:`document_colours`) are kept exactly in the
    palette of a ``"sampled"`` palette encoding.
    """
    spec = _encoding(encoding)
    return _save(_quantise(image, spec, colours) if spec.palette else image, spec)


def svg_to_png(svg: str, width: int | None = None, *, encoding: str = DEFAULT_ENCODING) -> bytes:
    """Rasterise an SVG document to PNG bytes, ``width`` pixels wide.

    The height follows the SVG's aspect ratio. Transparent areas are painted
    white. Static parts (see the module docstring) are drawn once per process
    and width. Raises :class:`RenderError` with a clear message on malformed
    SVG, a document without a size, or an unreasonable output size. The same
    bytes as ``encode_png(rasterise(svg, width), encoding, colours=document_colours(svg))``.
    """
    spec = _encoding(encoding)
    target, pixels = _draw_document(svg, width, DEFAULT_BACKGROUND, True)
    try:
        hints = document_colours(svg) if isinstance(svg, str) else []
        if spec.palette and spec.quantiser == "sampled" and _RAW_OPAQUE == "BGRX":
            image = _quantise_surface(target, pixels, spec, hints)
        else:
            image = _to_image(target, pixels, True)
            if spec.palette:
                image = _quantise(image, spec, hints)
    finally:
        target.finish()
    png = _save(image, spec)
    log.debug("rasterised %d x %d px -> %d bytes (%s)", image.width, image.height, len(png), encoding)
    return png


def png_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` of a PNG, read from its header (no decoding)."""
    if len(png) < 24 or not png.startswith(_PNG_MAGIC) or png[12:16] != b"IHDR":
        raise RenderError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)
