"""Plain SVG paths and texts drawn with cairo exactly as cairosvg draws them, with less work.

cairosvg's generic per-element work (attribute normalising, markers, vertex
angles, font options) costs more than cairo's own drawing of a map turn's few
dozen dynamic elements. A plain ``<path>`` (no transform, opacity, marker,
gradient, unit or exotic path letter: what :mod:`pbem.render.svg` writes) is
drawn here (:func:`draw`) with the very cairo calls, numbers and order of
cairosvg's ``Surface.draw`` and ``path`` for it, so with the same pixels (the
render tests compare them). A plain ``<text>`` (:func:`draw_text`) is laid
out letter by letter with cairosvg's calls but none of its Python per letter
(:func:`lay_out`), and without the glyph outlines cairosvg makes for a stroke
that paints nothing. Both return ``False`` for anything else, which
:mod:`pbem.render.raster` then leaves to cairosvg. cairosvg is imported only
when drawing (this module is imported cheaply).
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
    _line_ends(ctx, node, cairo)
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
    """Draw a plain ``<text>`` as cairosvg's ``Surface.draw`` does, or return ``False``
    (nothing done).

    cairosvg lays a text out twice: once as glyph outlines for the stroke
    (before the text's font options are set), once with ``show_text`` for the
    fill, from the same cursor. Both are laid out here by :func:`lay_out`
    (same calls, no per-letter Python of cairosvg's). Without a visible stroke
    the outlines are dropped unpainted (the path is not part of cairo's saved
    state, the font is set again for the fill), so they are not made.
    """
    if node.children or not node.text or not node.keys() <= TEXT_KEYS or node.get_href():
        return False
    parent = node.parent
    if parent is not None and parent.get_href():
        return False
    fill = node.get("fill", "black")
    stroke = node.get("stroke")
    if "url(" in fill or (stroke is not None and "url(" in stroke):
        return False
    from cairosvg.helpers import size

    try:
        fill_opacity = float(node.get("fill-opacity", 1))
        stroke_opacity = float(node.get("stroke-opacity", 1))
        miter_limit = float(node.get("stroke-miterlimit", 4))
    except ValueError:
        return False
    if not (0 <= fill_opacity <= 1 and 0 <= stroke_opacity <= 1):
        return False
    stroke_rgba = surface.map_color(stroke, stroke_opacity)
    stroked = stroke_rgba[3] > 0
    if stroked and not SHOW_TEXT:
        return False
    from cairosvg.surface import SHAPE_ANTIALIAS, TEXT_ANTIALIAS, TEXT_HINT_METRICS, TEXT_HINT_STYLE
    from cairosvg.text import text

    old_font_size = surface.font_size
    surface.font_size = size(surface, node.get("font-size", "12pt"))
    try:  # as cairosvg's text reads them (em units: of this font size)
        xs, ys = _positions(surface, node, "x"), _positions(surface, node, "y")
        line_width = size(surface, node.get("stroke-width", "1")) if stroked else 1
    except ValueError:
        surface.font_size = old_font_size
        return False
    ctx = surface.context
    ctx.save()
    ctx.move_to(size(surface, node.get("x"), "x"), size(surface, node.get("y"), "y"))
    _line_ends(ctx, node, cairo)
    ctx.set_miter_limit(miter_limit)
    if stroked:  # the outlines, with the font options in force before this text's
        lay_out(surface, node, cairo, xs, ys, ctx.glyph_path)
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
    if SHOW_TEXT:
        lay_out(surface, node, cairo, xs, ys, ctx.show_glyphs)
    else:
        text(surface, node, draw_as_text=True)
    ctx.restore()
    if stroked:
        ctx.save()
        ctx.set_line_width(line_width)
        ctx.set_source_rgba(*stroke_rgba)
        ctx.stroke()
        ctx.restore()
    else:
        ctx.new_path()  # as the (invisible) stroke would
    surface.cursor_position = [0, 0]
    surface.cursor_d_position = [0, 0]
    surface.text_path_width = 0
    ctx.restore()
    surface.font_size = old_font_size
    return True


#: Lay plain texts' letters out with :func:`lay_out`; ``False``: unstroked texts' letters
#: by cairosvg's ``text`` (stroked ones then all by cairosvg).
SHOW_TEXT = True


def _line_ends(ctx: Any, node: Any, cairo: Any) -> None:
    """The stroke's caps and joins, set as cairosvg sets them (butt and miter are cairo's own)."""
    cap, join = node.get("stroke-linecap"), node.get("stroke-linejoin")
    if cap == "square":
        ctx.set_line_cap(cairo.LINE_CAP_SQUARE)
    elif cap == "round":
        ctx.set_line_cap(cairo.LINE_CAP_ROUND)
    if join == "round":
        ctx.set_line_join(cairo.LINE_JOIN_ROUND)
    elif join == "bevel":
        ctx.set_line_join(cairo.LINE_JOIN_BEVEL)


def _positions(surface: Any, node: Any, axis: str) -> list[float]:
    """cairosvg's list of a text's ``x`` or ``y`` positions (empty if absent)."""
    from cairosvg.helpers import normalize as cairosvg_normalize
    from cairosvg.helpers import size

    if axis not in node:
        return []
    return [size(surface, i, axis) for i in cairosvg_normalize(node[axis]).strip().split(" ")]


def lay_out(
    surface: Any, node: Any, cairo: Any, xs: list[float], ys: list[float], put: Callable[[Any], None]
) -> None:
    """Lay a plain text's letters out as cairosvg's ``text`` does, ``put`` (cairo's
    ``show_glyphs`` or ``glyph_path``) taking each letter's glyph where cairosvg's
    ``show_text`` or ``text_path`` of the letter puts it.

    cairosvg selects the font, finds the anchor's shift from the whole text's
    extents, then for each letter moves to its position (its own ``x``/``y`` or
    the previous letter's plus its advance), moves by the shift and shows the
    letter (blanks not shown). The same calls are made here; the glyph goes to
    the very point cairo's ``show_text`` takes (the current point, read back).
    One glyph a call, as cairosvg: glyphs shown together are composited through
    one mask, which differs where letters' edges share a pixel. cairo's toy
    fonts give one glyph a character. No text path, letter spacing, dx/dy,
    rotation or baseline shift (:data:`TEXT_KEYS` leaves them to cairosvg).
    """
    letters: str = node.text
    ctx = surface.context
    family = (node.get("font-family") or "sans-serif").split(",")[0].strip("\"' ")
    slant = getattr(cairo, f"font_slant_{node.get('font-style')}".upper(), cairo.FONT_SLANT_NORMAL)
    weight_name = node.get("font-weight")
    if weight_name and weight_name.isdigit() and int(weight_name) >= 550:
        weight_name = "bold"
    weight = getattr(cairo, f"font_weight_{weight_name}".upper(), cairo.FONT_WEIGHT_NORMAL)
    ctx.select_font_face(family, slant, weight)
    ctx.set_font_size(surface.font_size)
    glyphs = ctx.get_scaled_font().text_to_glyphs(0, 0, letters, False)
    x_bearing, _, width = ctx.text_extents(letters)[:3]
    anchor = node.get("text-anchor")
    x_align = -(width / 2 + x_bearing) if anchor == "middle" else -(width + x_bearing) if anchor == "end" else 0
    x, y = surface.cursor_position
    advances: dict[str, float] = {}
    for i, letter in enumerate(letters):
        if i < len(xs):
            x = xs[i]
        if i < len(ys):
            y = ys[i]
        advance = advances.get(letter)
        if advance is None:
            advance = advances[letter] = ctx.text_extents(letter)[4]
        if not letter.isspace():
            ctx.move_to(x, y)
            ctx.rel_move_to(x_align, 0)
            px, py = ctx.get_current_point()
            put([(glyphs[i][0], px, py)])
        x += advance
