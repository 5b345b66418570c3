"""Plain SVG paths and texts drawn with cairo exactly as cairosvg draws them, with less work.

cairosvg's generic per-element work (attribute normalising, markers, vertex
angles, font options) costs more than cairo's own drawing of a map turn's few
dozen dynamic elements. A plain ``<path>`` (no transform, opacity, marker,
gradient, unit or exotic path letter: what :mod:`pbem.render.svg` writes) is
drawn here (:func:`draw`) with the very cairo calls, numbers and order of
cairosvg's ``Surface.draw`` and ``path`` for it, so with the same pixels (the
render tests compare them). A plain ``<text>`` without a stroke
(:func:`draw_text`) skips the glyph outlines cairosvg makes for a stroke that
paints nothing. Both return ``False`` for anything else, which
:mod:`pbem.render.raster` then leaves to cairosvg. cairosvg is imported only
when drawing (this module is imported cheaply).
"""

from __future__ import annotations

import re
from typing import Any, Final


def normalize(value: str) -> str:
    """cairosvg's normaliser of number lists (its dash arrays are read through it)."""
    from cairosvg.helpers import normalize as cairosvg_normalize

    return str(cairosvg_normalize(value))


def quadratic(*points: float) -> tuple[float, ...]:
    """cairosvg's cubic control points of a quadratic curve."""
    from cairosvg.helpers import quadratic_points

    return tuple(quadratic_points(*points))


#: The attributes (own or inherited) of a plain path: read below, or unread by cairosvg.
PLAIN_KEYS: Final = frozenset(
    {"d", "fill", "stroke", "stroke-width", "stroke-opacity", "fill-opacity", "fill-rule",
     "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
     "stroke-miterlimit", "shape-rendering", "version", "id", "class", "font-family",
     "font-size", "font-weight", "font-style", "text-anchor"}
)
# A number as written by pbem.render.svg, or any other single character but cairosvg's separators.
_PATH_TOKEN = re.compile(r"-?[0-9]+(?:\.[0-9]+)?|[^ \n\r\t,]")
_NUMBERS: Final = (("Mm", 2), ("Ll", 2), ("Cc", 6), ("Hh", 1), ("Vv", 1), ("Qq", 4), ("Zz", 0))
_ARITY: Final = {letter: n for letters, n in _NUMBERS for letter in letters}


def commands(d: str) -> list[tuple[str, list[float]]] | None:
    """The commands of a path ``d`` written plainly (``M`` first; M L C Q H V Z, relative
    m l c q h v z; each with exactly its numbers, no exponents); ``None`` for anything else."""
    tokens = _PATH_TOKEN.findall(d)
    found: list[tuple[str, list[float]]] = []
    i, end = 0, len(tokens)
    while i < end:
        letter = tokens[i]
        arity = _ARITY.get(letter)
        if arity is None or i + arity >= end:
            return None
        try:  # a letter where a number belongs (too few numbers) does not convert
            found.append((letter, [float(t) for t in tokens[i + 1 : i + 1 + arity]]))
        except ValueError:
            return None
        i += 1 + arity
    if not found or found[0][0] != "M":
        return None
    return found


def draw(surface: Any, node: Any, cairo: Any, antialias: dict[str, int]) -> bool:
    """Draw a plain ``<path>`` with the cairo calls of cairosvg's ``Surface.draw`` and
    ``path``, same numbers, same order; ``False`` (nothing done) if it is not plain."""
    if not node.keys() <= PLAIN_KEYS:
        return False
    fill, stroke = node.get("fill", "black"), node.get("stroke")
    if "url(" in fill or (stroke is not None and "url(" in stroke):
        return False
    path = commands(node.get("d", ""))
    if path is None:
        return False
    try:
        line_width = float(node.get("stroke-width", "1"))
        fill_opacity = float(node.get("fill-opacity", 1))
        stroke_opacity = float(node.get("stroke-opacity", 1))
        miter_limit = float(node.get("stroke-miterlimit", 4))
        dashes = [float(v) for v in normalize(node.get("stroke-dasharray", "")).split()]
        offset = float(node.get("stroke-dashoffset") or 0)
    except ValueError:
        return False
    if not (0 <= fill_opacity <= 1 and 0 <= stroke_opacity <= 1):
        return False
    ctx = surface.context
    ctx.save()
    ctx.move_to(0, 0)  # cairosvg moves to the element's (x, y) first
    cap, join = node.get("stroke-linecap"), node.get("stroke-linejoin")
    if cap == "square":
        ctx.set_line_cap(cairo.LINE_CAP_SQUARE)
    elif cap == "round":
        ctx.set_line_cap(cairo.LINE_CAP_ROUND)
    if join == "round":
        ctx.set_line_join(cairo.LINE_JOIN_ROUND)
    elif join == "bevel":
        ctx.set_line_join(cairo.LINE_JOIN_BEVEL)
    if dashes and sum(dashes):
        ctx.set_dash(dashes, offset)
    ctx.set_miter_limit(miter_limit)
    x, y = 0.0, 0.0  # cairosvg's own current point (cairo's is rounded)
    first: tuple[float, float] | None = None  # where a closed subpath returns to
    last = ""
    for letter, v in path:
        if last in ("", "m", "M", "z", "Z"):
            first = None
        if letter not in "mMzZ" and first is None:
            first = (x, y)
        if letter == "M":
            ctx.move_to(v[0], v[1])
            x, y = v[0], v[1]
        elif letter == "L":
            ctx.line_to(v[0], v[1])
            x, y = v[0], v[1]
        elif letter == "C":
            ctx.curve_to(*v)
            x, y = v[4], v[5]
        elif letter == "H":
            ctx.line_to(v[0], y)
            x = v[0]
        elif letter == "V":
            ctx.line_to(x, v[0])
            y = v[0]
        elif letter == "Q":
            ctx.curve_to(*quadratic(x, y, *v))
            x, y = v[2], v[3]
        elif letter == "q":
            ctx.rel_curve_to(*quadratic(0, 0, *v))
            x, y = x + v[2], y + v[3]
        elif letter == "m":
            ctx.rel_move_to(v[0], v[1])
            x, y = x + v[0], y + v[1]
        elif letter == "l":
            ctx.rel_line_to(v[0], v[1])
            x, y = x + v[0], y + v[1]
        elif letter == "c":
            ctx.rel_curve_to(*v)
            x, y = x + v[4], y + v[5]
        elif letter == "h":
            ctx.rel_line_to(v[0], 0)
            x = x + v[0]
        elif letter == "v":
            ctx.rel_line_to(0, v[0])
            y = y + v[0]
        elif first:  # z, Z
            ctx.close_path()
            x, y = first
        last = letter
    ctx.set_antialias(antialias.get(node.get("shape-rendering"), cairo.ANTIALIAS_DEFAULT))
    rgba = surface.map_color(fill, fill_opacity)
    if rgba[3] > 0:  # a transparent fill changes no pixel
        ctx.save()
        if node.get("fill-rule") == "evenodd":
            ctx.set_fill_rule(cairo.FILL_RULE_EVEN_ODD)
        ctx.set_source_rgba(*rgba)
        ctx.fill_preserve()
        ctx.restore()
    rgba = surface.map_color(stroke, stroke_opacity)
    if rgba[3] > 0:
        ctx.save()
        ctx.set_line_width(line_width)
        ctx.set_source_rgba(*rgba)
        ctx.stroke()
        ctx.restore()
    else:
        ctx.new_path()  # as the stroke would
    ctx.restore()
    return True


#: The attributes (own or inherited) of a plain text: read below or by cairosvg's ``text``,
#: or unread by cairosvg (no dx, dy, rotate, letter spacing, baseline, transform, opacity).
TEXT_KEYS: Final = frozenset(
    {"x", "y", "fill", "stroke", "stroke-width", "stroke-opacity", "fill-opacity", "fill-rule",
     "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "shape-rendering", "text-rendering",
     "version", "id", "class", "font-family", "font-size", "font-weight", "font-style", "text-anchor"}
)


def draw_text(surface: Any, node: Any, cairo: Any) -> bool:
    """Draw a plain ``<text>`` without a stroke as cairosvg's ``Surface.draw`` does, or
    return ``False`` (nothing done).

    cairosvg lays a text out twice: once as glyph outlines for the stroke, once
    with ``show_text`` for the fill (its own ``text`` does both, and does the
    second here). Without a visible stroke the outlines are dropped unpainted
    (the path is not part of cairo's saved state, the font is set again for
    the fill, cairosvg's cursor is restored between the two), so they are not
    made: the same calls otherwise, the same pixels.
    """
    if node.children or not node.text or not node.keys() <= TEXT_KEYS or node.get_href():
        return False
    parent = node.parent
    if parent is not None and parent.get_href():
        return False
    fill = node.get("fill", "black")
    if "url(" in fill:
        return False
    try:
        fill_opacity = float(node.get("fill-opacity", 1))
        stroke_opacity = float(node.get("stroke-opacity", 1))
        miter_limit = float(node.get("stroke-miterlimit", 4))
    except ValueError:
        return False
    if not (0 <= fill_opacity <= 1 and 0 <= stroke_opacity <= 1):
        return False
    stroke = node.get("stroke")
    if stroke is not None and ("url(" in stroke or surface.map_color(stroke, stroke_opacity)[3] > 0):
        return False
    from cairosvg.helpers import size
    from cairosvg.surface import SHAPE_ANTIALIAS, TEXT_ANTIALIAS, TEXT_HINT_METRICS, TEXT_HINT_STYLE
    from cairosvg.text import text

    old_font_size = surface.font_size
    surface.font_size = size(surface, node.get("font-size", "12pt"))
    ctx = surface.context
    ctx.save()
    ctx.move_to(size(surface, node.get("x"), "x"), size(surface, node.get("y"), "y"))
    cap, join = node.get("stroke-linecap"), node.get("stroke-linejoin")
    if cap == "square":
        ctx.set_line_cap(cairo.LINE_CAP_SQUARE)
    elif cap == "round":
        ctx.set_line_cap(cairo.LINE_CAP_ROUND)
    if join == "round":
        ctx.set_line_join(cairo.LINE_JOIN_ROUND)
    elif join == "bevel":
        ctx.set_line_join(cairo.LINE_JOIN_BEVEL)
    ctx.set_miter_limit(miter_limit)
    ctx.set_antialias(SHAPE_ANTIALIAS.get(node.get("shape-rendering"), cairo.ANTIALIAS_DEFAULT))
    rendering = node.get("text-rendering")
    options = ctx.get_font_options()
    options.set_antialias(TEXT_ANTIALIAS.get(rendering, cairo.ANTIALIAS_DEFAULT))
    options.set_hint_style(TEXT_HINT_STYLE.get(rendering, cairo.HINT_STYLE_DEFAULT))
    options.set_hint_metrics(TEXT_HINT_METRICS.get(rendering, cairo.HINT_METRICS_DEFAULT))
    ctx.set_font_options(options)
    ctx.save()
    if node.get("fill-rule") == "evenodd":
        ctx.set_fill_rule(cairo.FILL_RULE_EVEN_ODD)
    ctx.set_source_rgba(*surface.map_color(fill, fill_opacity))
    text(surface, node, draw_as_text=True)
    ctx.restore()
    ctx.new_path()  # as the (invisible) stroke would
    surface.cursor_position = [0, 0]
    surface.cursor_d_position = [0, 0]
    surface.text_path_width = 0
    ctx.restore()
    surface.font_size = old_font_size
    return True
