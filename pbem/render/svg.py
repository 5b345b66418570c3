"""Small helpers that build SVG text safely.

Every game's renderer writes its map as an SVG string with these helpers and
hands it to :func:`pbem.render.raster.svg_to_png`. They are deliberately plain:
functions that return strings, a :class:`Path` builder for batching many shapes
into one element, and a :class:`Canvas` that orders named layers and writes the
document.

Rules that keep maps fast and safe (see ``design/performance.md``):

- Everything that comes from game data goes through :func:`escape_text` or
  :func:`escape_attr` (the helpers do this for you); characters XML forbids are
  dropped, so a player's name can never break the document.
- Batch: draw a grid, a mesh or all squares of one terrain as ONE path
  (:class:`Path`), not one element per cell. Each element costs cairosvg time.
- Prefer ``fill-opacity``/``stroke-opacity`` on single elements to ``opacity``
  on a group: group opacity makes cairo composite an off-screen copy of the
  whole canvas.
- cairosvg fills an element black unless told otherwise: the helpers that draw
  outlines (:func:`line`, :func:`polyline`) default to ``fill="none"``.
- Mark what never changes between turns as static (:func:`static_block`, or
  ``Canvas(static=...)``): the rasteriser draws it once per process and size and
  reuses the pixels, so only the turn's own marks cost drawing time.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, TypeAlias

from pbem.render import theme

Point: TypeAlias = tuple[float, float]
AttrValue: TypeAlias = str | int | float | bool | None

SVG_NS: Final = "http://www.w3.org/2000/svg"

# XML 1.0 forbids most C0 controls (and lone surrogates); drop them.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


#: Comments that bracket a static block: SVG the rasteriser may draw once and
#: reuse (see :func:`static_block` and :func:`pbem.render.raster.svg_to_png`).
STATIC_BEGIN: Final = "<!--pbem:static-->"
STATIC_END: Final = "<!--/pbem:static-->"


# -- escaping ------------------------------------------------------------------


def _clean(value: str) -> str:
    return _XML_INVALID.sub("", value)


def escape_text(value: object) -> str:
    """Text content: ``&``, ``<`` and ``>`` escaped, invalid XML characters dropped."""
    s = _clean(str(value))
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(value: object) -> str:
    """An attribute value for a double-quoted attribute."""
    s = escape_text(value)
    return s.replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")


def num(value: float) -> str:
    """A number in compact SVG form: at most 2 decimals, no trailing zeros."""
    if isinstance(value, bool):  # bool is an int; never meant as a number here
        raise TypeError("bool is not a coordinate")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


_NAME_OK = re.compile(r"^[A-Za-z_:][A-Za-z0-9_.:-]*$")


def attr_name(name: str) -> str:
    """A Python keyword argument as an SVG attribute name.

    ``stroke_width`` -> ``stroke-width``; a trailing underscore is dropped
    (``class_`` -> ``class``); ``xlink_href`` -> ``xlink:href``.
    """
    name = name.removesuffix("_")
    if name.startswith("xlink_"):
        name = "xlink:" + name[len("xlink_") :]
    elif name.startswith("xml_"):
        name = "xml:" + name[len("xml_") :]
    name = name.replace("_", "-")
    if not _NAME_OK.match(name):
        raise ValueError(f"not an attribute name: {name!r}")
    return name


def attrs(mapping: Mapping[str, AttrValue] | None = None, /, **kwargs: AttrValue) -> str:
    """Attributes as ``' a="1" b="x"'`` (leading space), skipping ``None``/``False``.

    Names given as keywords are converted with :func:`attr_name`; names in
    ``mapping`` are used as written (but still validated). Numbers are
    formatted with :func:`num`; ``True`` writes the name as its own value.
    """
    parts: list[str] = []
    items: list[tuple[str, AttrValue]] = []
    if mapping:
        for key, value in mapping.items():
            if not _NAME_OK.match(key):
                raise ValueError(f"not an attribute name: {key!r}")
            items.append((key, value))
    items.extend((attr_name(k), v) for k, v in kwargs.items())
    for key, value in items:
        if value is None or value is False:
            continue
        if value is True:
            text = key
        elif isinstance(value, (int, float)):
            text = num(value)
        else:
            text = escape_attr(value)
        parts.append(f' {key}="{text}"')
    return "".join(parts)


# -- elements ------------------------------------------------------------------


def element(tag: str, content: str | None = None, /, **kwargs: AttrValue) -> str:
    """``<tag attrs/>`` or ``<tag attrs>content</tag>``; ``content`` is raw SVG."""
    if not _NAME_OK.match(tag):
        raise ValueError(f"not a tag name: {tag!r}")
    if content is None:
        return f"<{tag}{attrs(**kwargs)}/>"
    return f"<{tag}{attrs(**kwargs)}>{content}</{tag}>"


def group(children: Iterable[str], /, **kwargs: AttrValue) -> str:
    """``<g>`` around already-built children (empty string when there are none)."""
    body = "".join(children)
    if not body:
        return ""
    return f"<g{attrs(**kwargs)}>{body}</g>"


def rect(x: float, y: float, width: float, height: float, /, **kwargs: AttrValue) -> str:
    return element("rect", x=x, y=y, width=width, height=height, **kwargs)


def circle(cx: float, cy: float, r: float, /, **kwargs: AttrValue) -> str:
    return element("circle", cx=cx, cy=cy, r=r, **kwargs)


def line(x1: float, y1: float, x2: float, y2: float, /, **kwargs: AttrValue) -> str:
    kwargs.setdefault("fill", "none")
    return element("line", x1=x1, y1=y1, x2=x2, y2=y2, **kwargs)


def points_attr(points: Iterable[Point]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in points)


def polyline(points: Iterable[Point], /, **kwargs: AttrValue) -> str:
    kwargs.setdefault("fill", "none")
    return element("polyline", points=points_attr(points), **kwargs)


def polygon(points: Iterable[Point], /, **kwargs: AttrValue) -> str:
    return element("polygon", points=points_attr(points), **kwargs)


def path(d: str | Path, /, **kwargs: AttrValue) -> str:
    """A ``<path>``; empty string when the path has no drawing commands."""
    data = d.d() if isinstance(d, Path) else d
    if not data:
        return ""
    return element("path", d=data, **kwargs)


def text(x: float, y: float, content: object, /, **kwargs: AttrValue) -> str:
    """A ``<text>``; ``content`` is escaped."""
    return element("text", escape_text(content), x=x, y=y, **kwargs)


def halo_text(
    x: float,
    y: float,
    content: object,
    /,
    *,
    halo: str = theme.HALO,
    halo_width: float = theme.HALO_WIDTH,
    halo_opacity: float = 0.9,
    **kwargs: AttrValue,
) -> str:
    """Text with a halo (an outline in ``halo`` colour drawn underneath).

    The halo keeps labels legible over lines, units and terrain. It is two
    elements, because cairosvg strokes text after filling it (so a single
    element's stroke would cover its own letters).
    """
    under = dict(kwargs)
    under.update(
        fill=halo,
        stroke=halo,
        stroke_width=halo_width,
        stroke_linejoin="round",
        stroke_opacity=halo_opacity,
        fill_opacity=halo_opacity,
    )
    return text(x, y, content, **under) + text(x, y, content, **kwargs)


def text_run(
    labels: Iterable[tuple[float, float, str]],
    /,
    *,
    font_size: float,
    bold: bool = False,
    anchor: str = "middle",
    halo: str | None = None,
    halo_width: float = theme.HALO_WIDTH,
    **kwargs: AttrValue,
) -> str:
    """Many short labels as ONE ``<text>`` element, each character placed by ``x``/``y`` lists.

    ``labels`` are ``(x, y, text)`` with ``x`` the anchor point (``start``,
    ``middle`` or ``end``) and ``y`` the baseline. One element instead of one
    per label saves cairosvg's per-element cost: use it for coordinates along
    a board's edges, numbers on a hex grid, and the like. Positions come from
    :func:`text_width`, so they match DejaVu Sans. With ``halo`` a second run
    in that colour is drawn underneath as an outline (see :func:`halo_text`).
    """
    xs: list[str] = []
    ys: list[str] = []
    chars: list[str] = []
    for x, y, label in labels:
        label = _clean(str(label)).replace("\n", " ")
        if not label:
            continue
        # cairosvg draws letter by letter without kerning: sum the advances the same way.
        advances = [text_width(ch, font_size, bold=bold) for ch in label]
        width = sum(advances)
        left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        for ch, advance in zip(label, advances):
            xs.append(num(left))
            ys.append(num(y))
            chars.append(ch)
            left += advance
    if not chars:
        return ""
    content = escape_text("".join(chars))
    placed: dict[str, AttrValue] = {
        "x": " ".join(xs),
        "y": " ".join(ys),
        "font_size": font_size,
        "font_weight": "bold" if bold else None,
        "text_anchor": "start",
    }
    run = element("text", content, **placed, **kwargs)
    if halo is None:
        return run
    under = element(
        "text", content, **placed, fill=halo, stroke=halo, stroke_width=halo_width,
        stroke_linejoin="round",
    )
    return under + run


def static_block(*fragments: str) -> str:
    """Mark ``fragments`` as static: the same on every turn of a game.

    The rasteriser draws a document's static blocks once per (block text,
    output width), caches the pixels and draws only the rest on top, so a turn
    costs only its own marks. Rules for a static block:

    - put it at the top level of the document (not inside a ``<g>``), ideally
      first, so everything dynamic is drawn above it (a static block above
      dynamic content works too, composited in order, at a small extra cost);
    - it must not depend on the turn, the viewer or anything that changes often
      (each different text is a different cache entry);
    - ids it uses must be defined inside it or in a ``<defs>`` at the top level
      outside every static block; dynamic content must not use ids defined
      inside a static block.

    Browsers and other renderers ignore the markers (they are comments).
    """
    body = "".join(fragments)
    if not body:
        return ""
    return f"{STATIC_BEGIN}{body}{STATIC_END}"


def title(content: object) -> str:
    """A ``<title>`` (accessible name of the document or a group)."""
    return element("title", escape_text(content))


# -- text metrics -----------------------------------------------------------------

_FONT_FILES: Final = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
_MEASURE_SIZE: Final = 100


@functools.lru_cache(maxsize=4)
def _measuring_font(bold: bool) -> Any:
    try:
        from PIL import ImageFont

        return ImageFont.truetype(_FONT_FILES[bold], _MEASURE_SIZE)
    except (ImportError, OSError):  # font not installed: estimate instead
        return None


_MEASURE_LOCK: Final = threading.Lock()  # a FreeType face is not safe to share between threads


@functools.lru_cache(maxsize=2048)
def _advance(content: str, bold: bool) -> float:
    """Advance of ``content`` at :data:`_MEASURE_SIZE`, measured once per process."""
    font = _measuring_font(bold)
    if font is None:
        return len(content) * _MEASURE_SIZE * (0.66 if bold else 0.6)
    with _MEASURE_LOCK:
        return float(font.getlength(content))


def text_width(content: str, size: float, *, bold: bool = False) -> float:
    """Advance width of ``content`` in DejaVu Sans at ``size`` user units.

    cairosvg draws text letter by letter without kerning, so this is the sum
    of the letters' advances, measured with the real font through Pillow when
    it is installed (otherwise estimated). Use it to place text next to text,
    size a label's backing box or choose column widths. Thread safe.
    """
    return sum(_advance(ch, bold) for ch in content) * size / _MEASURE_SIZE


# -- geometry helpers -----------------------------------------------------------


def shorten(a: Point, b: Point, start: float = 0.0, end: float = 0.0) -> tuple[Point, Point]:
    """The segment ``a``-``b`` cut by ``start`` at ``a`` and ``end`` at ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length == 0 or start + end >= length:
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        return mid, mid
    ux, uy = dx / length, dy / length
    return (a[0] + ux * start, a[1] + uy * start), (b[0] - ux * end, b[1] - uy * end)


def arrowhead(tip: Point, tail: Point, length: float, width: float) -> list[Point]:
    """The three corners of a filled arrowhead at ``tip``, pointing away from ``tail``."""
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    px, py = -uy * width / 2, ux * width / 2
    return [tip, (bx + px, by + py), (bx - px, by - py)]


def arrow_marker(
    marker_id: str,
    colour: str,
    *,
    size: float = 4.0,
    opacity: float = 1.0,
) -> str:
    """A ``<marker>`` definition for ``marker-end="url(#id)"`` (put it in defs).

    Sized in stroke widths (``markerUnits="strokeWidth"``) and oriented along
    the path's last segment. For many arrows on one map it is usually cheaper
    to draw heads with :func:`arrowhead` into one batched path.
    """
    body = path(
        "M0,0 L10,5 L0,10 z",
        fill=colour,
        fill_opacity=opacity if opacity < 1 else None,
    )
    return element(
        "marker",
        body,
        id=marker_id,
        viewBox="0 0 10 10",
        refX=9,
        refY=5,
        markerWidth=size,
        markerHeight=size,
        markerUnits="strokeWidth",
        orient="auto",
    )


#: Control-point distance of a cubic Bezier quarter circle, per unit radius.
KAPPA: Final = 4 * (math.sqrt(2) - 1) / 3


# -- path builder ----------------------------------------------------------------


class Path:
    """Accumulates drawing commands so many shapes become ONE ``<path>``.

    >>> p = Path().rect(0, 0, 10, 10).move(20, 0).line(30, 10)
    >>> p.d()
    'M0,0h10v10h-10z M20,0L30,10'
    """

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def __bool__(self) -> bool:
        return bool(self._parts)

    def __len__(self) -> int:
        return len(self._parts)

    def raw(self, commands: str) -> Path:
        """Append already-formatted path data."""
        if commands:
            self._parts.append(commands)
        return self

    def move(self, x: float, y: float) -> Path:
        self._parts.append(f"M{num(x)},{num(y)}")
        return self

    def line(self, x: float, y: float) -> Path:
        self._parts.append(f"L{num(x)},{num(y)}")
        return self

    def close(self) -> Path:
        self._parts.append("z")
        return self

    def segment(self, a: Point, b: Point) -> Path:
        self._parts.append(f"M{num(a[0])},{num(a[1])}L{num(b[0])},{num(b[1])}")
        return self

    def polyline(self, points: Sequence[Point], closed: bool = False) -> Path:
        if not points:
            return self
        (x0, y0), rest = points[0], points[1:]
        out = [f"M{num(x0)},{num(y0)}"]
        out.extend(f"L{num(x)},{num(y)}" for x, y in rest)
        if closed:
            out.append("z")
        self._parts.append("".join(out))
        return self

    def polygon(self, points: Sequence[Point]) -> Path:
        return self.polyline(points, closed=True)

    def rect(self, x: float, y: float, width: float, height: float) -> Path:
        self._parts.append(
            f"M{num(x)},{num(y)}h{num(width)}v{num(height)}h{num(-width)}z"
        )
        return self

    def round_rect(self, x: float, y: float, width: float, height: float, r: float) -> Path:
        """A rectangle with corners rounded by ``r`` (clamped to half a side).

        The corners are cubic Beziers, not SVG arcs: cairosvg draws an arc with
        a near-zero curve tolerance, which makes filling and stroking the path
        several times slower; the Bezier differs from the circle by 0.03 %.
        """
        r = max(0.0, min(r, width / 2, height / 2))
        if r == 0:
            return self.rect(x, y, width, height)
        w, h = width - 2 * r, height - 2 * r
        rr, k, rk = num(r), num(r * KAPPA), num(r - r * KAPPA)
        self._parts.append(
            f"M{num(x + r)},{num(y)}h{num(w)}"
            f"c{k},0 {rr},{rk} {rr},{rr}v{num(h)}"
            f"c0,{k} -{rk},{rr} -{rr},{rr}h{num(-w)}"
            f"c-{k},0 -{rr},-{rk} -{rr},-{rr}v{num(-h)}"
            f"c0,-{k} {rk},-{rr} {rr},-{rr}z"
        )
        return self

    def circle(self, cx: float, cy: float, r: float) -> Path:
        """A full circle as four cubic Beziers (see :meth:`round_rect` for why not arcs).

        Drawn counter-clockwise on screen, from the leftmost point downwards.
        """
        k = r * KAPPA
        x0, x1, x2, x3, x4 = num(cx - r), num(cx - k), num(cx), num(cx + k), num(cx + r)
        y0, y1, y2, y3, y4 = num(cy - r), num(cy - k), num(cy), num(cy + k), num(cy + r)
        self._parts.append(
            f"M{x0},{y2}"
            f"C{x0},{y3} {x1},{y4} {x2},{y4}"
            f"C{x3},{y4} {x4},{y3} {x4},{y2}"
            f"C{x4},{y1} {x3},{y0} {x2},{y0}"
            f"C{x1},{y0} {x0},{y1} {x0},{y2}z"
        )
        return self

    def arc(self, x: float, y: float, r: float, large: bool = False, sweep: bool = True) -> Path:
        """A circular arc from the current point to ``(x, y)``.

        An SVG arc: slow in cairosvg (see :meth:`round_rect`); prefer Beziers in
        paths drawn on every turn.
        """
        self._parts.append(
            f"A{num(r)},{num(r)} 0 {int(large)},{int(sweep)} {num(x)},{num(y)}"
        )
        return self

    def quad(self, cx: float, cy: float, x: float, y: float) -> Path:
        self._parts.append(f"Q{num(cx)},{num(cy)} {num(x)},{num(y)}")
        return self

    def d(self) -> str:
        return " ".join(self._parts)


# -- document ----------------------------------------------------------------------


class Layer:
    """An ordered bag of SVG fragments inside a :class:`Canvas`."""

    __slots__ = ("_items", "attributes", "name", "static")

    def __init__(
        self, name: str, attributes: Mapping[str, AttrValue] | None = None, *, static: bool = False
    ) -> None:
        self.name = name
        self.attributes: dict[str, AttrValue] = dict(attributes or {})
        self.static = static  # the same on every turn: see :func:`static_block`
        self._items: list[str] = []

    def add(self, *fragments: str) -> Layer:
        self._items.extend(f for f in fragments if f)
        return self

    def extend(self, fragments: Iterable[str]) -> Layer:
        self._items.extend(f for f in fragments if f)
        return self

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def svg(self) -> str:
        if not self._items:
            return ""
        if not self.attributes:
            return "".join(self._items)
        return f"<g{attrs(self.attributes)}>{''.join(self._items)}</g>"


class Canvas:
    """An SVG document: a view box, ``<defs>`` and named layers drawn in order.

    ``width``/``height`` are the view box in user units; the document's
    intrinsic size equals it, and the rasteriser scales it to the requested
    pixel width.

    Layers named in ``static`` (with the background, if any) are written as static
    blocks (:func:`static_block`): the rasteriser draws them once and reuses
    the pixels. Keep static layers first, under the dynamic ones.

    >>> c = Canvas(100, 50, layers=("board", "units"), background="#fff")
    >>> _ = c.layer("units").add(circle(10, 10, 5, fill="red"))
    >>> _ = c.layer("board").add(rect(0, 0, 100, 50, fill="none", stroke="#000"))
    >>> c.to_svg().index("<rect x=\\"0\\"") < c.to_svg().index("<circle")
    True
    """

    def __init__(
        self,
        width: float,
        height: float,
        *,
        layers: Sequence[str] = ("main",),
        background: str | None = None,
        title: str | None = None,
        font_family: str = theme.FONT_FAMILY,
        static: Sequence[str] = (),
    ) -> None:
        if width <= 0 or height <= 0:
            raise ValueError("a canvas needs a positive size")
        self.width = width
        self.height = height
        self.background = background
        self.title = title
        self.font_family = font_family
        self._defs: list[str] = []
        unknown = set(static) - set(layers)
        if unknown:
            raise ValueError(f"static layers not among the layers: {sorted(unknown)}")
        self._layers: dict[str, Layer] = {name: Layer(name, static=name in static) for name in layers}

    def layer(self, name: str, *, static: bool | None = None, **kwargs: AttrValue) -> Layer:
        """The layer ``name`` (created at the top if new); keywords set its ``<g>`` attributes.

        ``static`` marks (``True``) or unmarks (``False``) the layer as static.
        """
        layer = self._layers.get(name)
        if layer is None:
            layer = self._layers[name] = Layer(name)
        if static is not None:
            layer.static = static
        for key, value in kwargs.items():
            layer.attributes[attr_name(key)] = value
        return layer

    def add(self, *fragments: str, layer: str | None = None) -> Canvas:
        """Add fragments to ``layer`` (default: the last layer)."""
        name = layer if layer is not None else next(reversed(self._layers))
        self.layer(name).add(*fragments)
        return self

    def defs(self, *fragments: str) -> Canvas:
        self._defs.extend(f for f in fragments if f)
        return self

    def to_svg(self) -> str:
        w, h = num(self.width), num(self.height)
        head = (
            f'<svg xmlns="{SVG_NS}" version="1.1" width="{w}" height="{h}" '
            f'viewBox="0 0 {w} {h}" font-family="{escape_attr(self.font_family)}">'
        )
        parts = [head]
        if self.title:
            parts.append(title(self.title))
        if self._defs:
            parts.append("<defs>" + "".join(self._defs) + "</defs>")
        # Runs of static layers become one static block each; the background
        # joins the first block when there are static layers at all.
        run: list[str] = []
        run_static = False
        drawn: list[tuple[bool, str]] = []
        if self.background:
            any_static = any(layer.static for layer in self._layers.values())
            drawn.append((any_static, rect(0, 0, self.width, self.height, fill=self.background)))
        drawn.extend((layer.static, layer.svg()) for layer in self._layers.values())
        for is_static, body in drawn:
            if not body:
                continue
            if is_static != run_static and run:
                parts.append(static_block(*run) if run_static else "".join(run))
                run = []
            run_static = is_static
            run.append(body)
        if run:
            parts.append(static_block(*run) if run_static else "".join(run))
        parts.append("</svg>")
        return "".join(parts)

    __str__ = to_svg


def wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """``text`` cut into lines no wider than ``width`` at the given font size (at word boundaries)."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}" if current else word
        if current and text_width(trial, size, bold=bold) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines
