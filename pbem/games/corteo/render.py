"""The map of Corteo: one view as an SVG document.

:func:`render_svg` reads the position only from the view (plain JSON data from
:func:`pbem.games.corteo.view.build_view`); the City itself (terrain, walls, river, names,
objectives, caserme, metro, prison) is static data read from :mod:`pbem.games.corteo.city`, and the
component colours from ``tables.toml``. :func:`pbem.render.raster.svg_to_png` turns the SVG into the
PNG of the turn mail.

Layout (user units; the document is :data:`WIDTH` x :data:`HEIGHT`, the service draws it 1600 px
wide, about 1:1):

- a title bar: the game, the hand (1-10) and the phase, whom the map is for;
- the whole City, landscape, 40 x 26 pointy-top hexes (rows A-Z from the North, columns 1-40
  from the West, rows B, D, F, ... half a hex East; C 1d): the hexes in the original's colours
  (strade white, viali and piazze grey, luoghi affollati light blue, caseggiati brown, case
  popolari red, obiettivi yellow with their value, caserme violet with their number and
  numbered exit roads, giardini green, metro "M" stations, slopes with their downhill chevron,
  stairs, the Fiume with its bridges), the Mura with their Gates and the Giardini's fence on
  the hex sides, the names of streets, squares, areas and buildings (Italian puns, kept as the
  City names them), the hex coordinates along the four edges; on it the counters as small
  squares in their colours, the pieces, the record's marks and the detail's frame;
- below on the left the DETAIL: the area of action (``view["focus"]``, else the Corteo, else
  Piazza Mento) at a readable scale, every hex with its label, the counters with their id and
  speed-power; on the right a panel: the hand track 1..10, the runs (corsa) and barricades left,
  the score (at the end framed, with the outcome, C 14), the Head, the prison, the units off the
  map, the power's reserve; and along the bottom the legend (terrain names in Italian, with
  English glosses in English).

No text covers another (issue 19.7; :mod:`pbem.games.corteo.render_names`): numbers bound to a
spot stay, names go to the first free spot near their place; on the detail the names, the
results' plates and the arrests' notes go around the counters, pieces and the record's lines, a
mark a counter stands on is left out, and nothing is drawn half cut by the detail's frame.

Counters (C 1a, 1b): the corteo's in their component's colour (two-colour components with a band),
a symbol for gruppo / cordone / spezzone; the power's dark blue-grey by type with a type symbol.
Two per hex are offset like a stack (C 9). The Head (C 10) wears a gold ring and star; the units of
the Corteo aggregate are joined by a soft red band; a panicked power unit is face down (grey); a
presidio piantone (C 6b) carries a "P"; a waiting unit (C 13d) is dashed. Pieces: barricades (C 5d)
are striped bars, jams (C 13c) a queue of cars, smoke (C 13a) a grey cloud, covered objectives
(C 12a) brown tiles with their value, objectives held at the end of the last hand a ringed hex; the
ZOCs (C 2) are hatched only when ``view["show_zoc"]`` is set (corteo's one way, the power's the
other, so shared hexes are cross-hatched). The record (``view["log"]``) draws moves as arrows in
the side's colour (retreats dashed, panics dotted, metro rides as arcs), throws as dashed lines with
their result, fights as a burst with the result code between the sides, arrests as a line to the
prison, exits off the map as arrows to the edge.

Speed (``design/performance.md``): the City, the frames, the hand track's scale and the legend
are one static part built once per process and language (:func:`_static_city`) and drawn first,
so the rasteriser draws them once per width; the hexes are one path per terrain, the mesh one
path, the coordinates and numbers text runs. The detail's terrain is built once per window
(:func:`_detail_terrain`). Counters are batched by colour. ``benchmarks/render_corteo.py`` prints
the figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.i18n import Catalog, normalise_language
from pbem.games.corteo import render_scenario
from pbem.games.corteo.city import ROW_LETTERS, Hex
from pbem.render import svg, theme
from pbem.render.svg import wrap as _wrap, Path, Point
from pbem.render.viewdata import as_int as _int, as_dicts as _dicts, as_strs as _strs
from pbem.games.corteo.render_style import (
    BAND_Y, BARRICADE_LIGHT, COMPONENT_COLOURS, CORTEO, CORTEO_INK, COVER, DETAIL_FRAME, DETAIL_R_MIN, DETAIL_W,
    DETAIL_X, FIGHT, Geo, HEAD_EDGE, HEAD_GOLD, HEIGHT, HELD, MAP_H, MAP_W, MAP_X, MAP_Y, OBJ_INK, PAD, PANEL_W,
    PANEL_X, POTERE, POTERE_INK, POWER_TYPES, R, SIDE_INK, SMOKE, TERRAIN_FILL, UNKNOWN_COLOURS, VIEW_H, VIEW_W,
    VIEW_X, VIEW_Y, WALL, WHOLE, WIDTH, _catalog, _city, _component_colour, _fit, _maybe, _render_texts, _text,
)
from pbem.games.corteo.render_names import detail_placer, detail_texts
from pbem.games.corteo.render_city import (
    HAND_Y, HEAD_Y, OFF_Y, PRISON_Y, RESERVE_Y, SCORE_Y, _hand_cell,
)
from pbem.games.corteo.render_pieces import (
    _Counters, _Pieces, _detail_terrain, _draw_pieces, _draw_record, _draw_units, _draw_zoc, _focus_hexes,
    _star, _static_city, _window, _window_hexes,
)


# -- the panel's dynamic parts ------------------------------------------------------------------------------


def _title(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    name = _text(catalog, lang, "map-title")
    out = [svg.text(PAD, 38, name, font_size=theme.TITLE_SIZE + 4, font_weight="bold", fill=theme.INK)]
    x = PAD + svg.text_width(name, theme.TITLE_SIZE + 4, bold=True) + 20
    hand = _int(view.get("hand"))
    parts = [_text(catalog, lang, "map-hand", hand=hand, last=_int(view.get("last_hand"), 10)) if hand
             else _text(catalog, lang, "map-setup")]
    stage = str(view.get("stage") or "")
    if stage:
        parts.append(_maybe(catalog, lang, f"phase-{stage}", stage.replace("-", " ")))
    mode = str(view.get("mode") or "")
    if mode:
        parts.append(_maybe(catalog, lang, f"map-mode-{mode}", mode))
    out.append(svg.text(x, 38, " · ".join(parts), font_size=17, fill=theme.INK))
    viewer = view.get("viewer")
    right = WIDTH - PAD
    if viewer in (CORTEO, POTERE):
        label = _text(catalog, lang, "map-for", side=_text(catalog, lang, f"map-side-{viewer}"))
        out.append(svg.text(WIDTH - PAD, 38, label, font_size=13, fill=theme.INK_SOFT, text_anchor="end"))
        right -= svg.text_width(label, 13) + 24
    out.append(render_scenario.title(view, catalog, lang, right))  # D: the scenario's running tally
    return "".join(out)


def _detail_title(view: Mapping[str, Any], catalog: Catalog, lang: str, hexes: frozenset[Hex]) -> str:
    key = "map-detail-focus" if _strs(view.get("focus")) else "map-detail-corteo"
    rows = sorted({h.row for h in hexes})
    cols = sorted({h.col for h in hexes})
    span = f"{ROW_LETTERS[rows[0]]}-{ROW_LETTERS[rows[-1]]}, {cols[0] + 1}-{cols[-1] + 1}" if rows else ""
    return (svg.text(DETAIL_X + 12, BAND_Y + 20, _text(catalog, lang, key), font_size=14, font_weight="bold",
                     fill=theme.INK)
            + svg.text(DETAIL_X + DETAIL_W - 12, BAND_Y + 20, span, font_size=12, fill=theme.INK_SOFT,
                       text_anchor="end"))


def _panel(view: Mapping[str, Any], units: Sequence[Mapping[str, Any]], catalog: Catalog, lang: str) -> str:
    out: list[str] = []
    by_id = {str(u.get("id")): u for u in units}
    # Hand track (C 3): the current hand.
    hand = _int(view.get("hand"))
    if 1 <= hand <= 10:
        x, y, w, h = _hand_cell(hand)
        out.append(svg.rect(x, y, w, h, rx=4, fill=CORTEO_INK, stroke="#6e2a00", stroke_width=1.5))
        # the track's number again, in white, exactly over the static one (one label, not two)
        out.append(svg.text_run([(x + w / 2, y + 23, str(hand))], font_size=16, bold=True, fill="#ffffff"))
    # Runs (C 5c) and barricades (C 5d) left.
    runs = max(0, min(5, _int(view.get("runs_left"), 5)))
    rx0 = PANEL_X + 12 + svg.text_width(_text(catalog, lang, "map-runs"), 11.5) + 12
    left_p, used_p = Path(), Path()
    for i in range(5):
        (left_p if i < runs else used_p).circle(rx0 + i * 22, HAND_Y + 82, 8)
    out.append(svg.path(left_p, fill="#1f9a4c", stroke="#0c4a22", stroke_width=1.2))
    out.append(svg.path(used_p, fill="none", stroke="#b4ad9c", stroke_width=1.2, stroke_dasharray="3 2"))
    out.append(svg.text_run([(rx0 + i * 22, HAND_Y + 86, "C") for i in range(runs)], font_size=10, bold=True,
                            fill="#ffffff"))
    note = f"{runs}/5"
    if view.get("running"):
        note += " · " + _text(catalog, lang, "map-running")
    out.append(svg.text(rx0 + 5 * 22, HAND_Y + 86, note, font_size=11.5, font_weight="bold",
                        fill="#1f7a40" if view.get("running") else theme.INK_SOFT))
    bleft = max(0, min(10, _int(view.get("barricades_left"), 10)))
    bx0 = PANEL_X + 12 + svg.text_width(_text(catalog, lang, "map-barricades"), 11.5) + 14
    bars, faded = _Pieces(0.6), Path()
    for i in range(10):
        if i < bleft:
            bars.barricade(bx0 + i * 22, HAND_Y + 106, 11)
        else:
            faded.rect(bx0 + i * 22 - 8, HAND_Y + 103, 16, 5)
    out.append(bars.svg())
    out.append(svg.path(faded, fill="none", stroke="#b4ad9c", stroke_width=1, stroke_dasharray="2 2"))
    out.append(svg.text(bx0 + 10 * 22 - 4, HAND_Y + 110, f"{bleft}/10", font_size=11.5, font_weight="bold",
                        fill=theme.INK_SOFT))
    # Score (C 12, C 14).
    score = view.get("score") if isinstance(view.get("score"), dict) else {}
    assert isinstance(score, dict)
    half = (PANEL_W - 24) / 2
    for i, side in enumerate((CORTEO, POTERE)):
        x = PANEL_X + 12 + i * half
        out.append(svg.text(x, SCORE_Y + 42, _text(catalog, lang, f"map-side-{side}"), font_size=12,
                            fill=SIDE_INK[side], font_weight="bold"))
        out.append(svg.text(x, SCORE_Y + 70, str(_int(score.get(side))), font_size=26, font_weight="bold",
                            fill=SIDE_INK[side]))
        out.append(svg.text(x + 52, SCORE_Y + 70, _text(catalog, lang, f"map-points-{side}"), font_size=10.5,
                            fill=theme.INK_SOFT))
    # The Head (C 10).
    component = view.get("head_component")
    if component:
        colour = _component_colour().get(str(component), "")
        fill, band, edge, _ink = COMPONENT_COLOURS.get(colour, UNKNOWN_COLOURS)
        out.append(svg.rect(PANEL_X + 12, HEAD_Y + 32, 22, 22, rx=3, fill=fill, stroke=edge, stroke_width=1.2))
        if band != fill:
            out.append(svg.rect(PANEL_X + 12.5, HEAD_Y + 47, 21, 6.5, fill=band))
        heads = _strs(view.get("heads"))
        line = f"{component}: " + (", ".join(heads) if heads else _text(catalog, lang, "map-heads-none"))
        out.append(svg.text(PANEL_X + 44, HEAD_Y + 48, line, font_size=13, font_weight="bold", fill=theme.INK))
        n = sum(1 for u in units if u.get("in_corteo"))
        out.append(svg.text(PANEL_X + 44, HEAD_Y + 66, _text(catalog, lang, "map-corteo-size", count=n),
                            font_size=11, fill=theme.INK_SOFT))
        out.append(svg.path(Path().polygon(_star(PANEL_X + PANEL_W - 28, HEAD_Y + 44, 11, 4.6, 5)), fill=HEAD_GOLD,
                            stroke=HEAD_EDGE, stroke_width=1))
    else:
        out.append(svg.text(PANEL_X + 12, HEAD_Y + 48, _text(catalog, lang, "map-head-none"), font_size=12,
                            font_style="italic", fill=theme.INK_SOFT))
    # The prison (C 8f).
    prison = [by_id[u] for u in _strs(view.get("prison")) if u in by_id]
    if prison:
        counters = _Counters(detail=True)
        per_row = int((PANEL_W - 24) // 34)
        shown = prison[: per_row * 3 - (1 if len(prison) > per_row * 3 else 0)]
        for i, u in enumerate(shown):
            row, col = divmod(i, per_row)
            counters.add(u, PANEL_X + 12 + col * 34, PRISON_Y + 30 + row * 36, 30)
        out.append(counters.svg())
        if len(shown) < len(prison):
            out.append(svg.text(PANEL_X + PANEL_W - 14, PRISON_Y + 30 + 2 * 36 + 20, f"+{len(prison) - len(shown)}",
                                font_size=13, font_weight="bold", fill=theme.INK, text_anchor="end"))
        power = sum(_int(u.get("power")) for u in prison)
        out.append(svg.text(PANEL_X + PANEL_W - 12, PRISON_Y + 20, _text(catalog, lang, "map-prison-count",
                                                                           count=len(prison), power=power),
                            font_size=11, fill=theme.INK_SOFT, text_anchor="end"))
    else:
        out.append(svg.text(PANEL_X + 12, PRISON_Y + 46, _text(catalog, lang, "map-nobody"), font_size=12,
                            font_style="italic", fill=theme.INK_SOFT))
    # Off the map (C 8h).
    off = [(u, u["off"]) for u in units if isinstance(u.get("off"), dict)]
    if off:
        lines = []
        for u, o in off:
            lines.append(_text(catalog, lang, "map-off-line", unit=str(u.get("id")), edge=str(o.get("edge")),
                               part=_int(o.get("part")), back=_int(o.get("back"))))
        text = " · ".join(lines)
        wrapped = _wrap(text, 11.5, PANEL_W - 24)
        if len(wrapped) > 6:
            wrapped = wrapped[:5] + ["…"]
        out.append(svg.text_run([(PANEL_X + 12, OFF_Y + 42 + i * 16, t) for i, t in enumerate(wrapped)],
                                font_size=11.5, anchor="start", fill=theme.INK))
    else:
        out.append(svg.text(PANEL_X + 12, OFF_Y + 46, _text(catalog, lang, "map-nobody"), font_size=12,
                            font_style="italic", fill=theme.INK_SOFT))
    # The power's reserve (C 3a, 6c).
    reserve = _strs(view.get("reserve"))
    counts: dict[str, int] = {}
    for uid in reserve:
        u = by_id.get(uid) or {}
        if u.get("side") == CORTEO:
            continue
        kind = str(u.get("kind") or uid.rstrip("0123456789"))
        counts[kind] = counts.get(kind, 0) + 1
    total = sum(counts.values())
    out.append(svg.text(PANEL_X + PANEL_W - 12, RESERVE_Y + 20, _text(catalog, lang, "map-reserve-count", count=total),
                        font_size=12, font_weight="bold", fill=POTERE_INK, text_anchor="end"))
    counters = _Counters(detail=True)
    labels: list[tuple[float, float, str]] = []
    x = PANEL_X + 12
    for kind in POWER_TYPES:
        count = counts.get(kind, 0)
        if not count:
            continue
        sample = next(by_id[u] for u in reserve if (by_id.get(u) or {}).get("kind") == kind)
        counters.add({**sample, "head": False, "presidio": False, "panicked": False, "waiting": False}, x,
                     RESERVE_Y + 30, 30)
        labels.append((x + 34, RESERVE_Y + 50, f"×{count}"))
        x += 70
    out.append(counters.svg())
    out.append(svg.text_run(labels, font_size=12, bold=True, anchor="start", fill=theme.INK))
    return "".join(out)


def _outcome(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    """The outcome (C 14) in the score's box, framed in the corteo's colour: the level on the
    heading's line, the points under it, right of the sides' names (on the map it would hide the
    City's names and the last moves)."""
    outcome = view.get("outcome")
    if not isinstance(outcome, dict):
        return ""
    level = str(outcome.get("level") or "")
    line = _maybe(catalog, lang, f"map-level-{level}", level)
    head = f"{_text(catalog, lang, 'map-outcome')}: {line.rstrip('.')}"
    score = _text(catalog, lang, "map-outcome-score", corteo=_int(outcome.get("corteo")),
                  potere=_int(outcome.get("potere")), final=_int(outcome.get("final")))
    right = PANEL_X + PANEL_W - 12
    room = PANEL_W - 24 - svg.text_width(_text(catalog, lang, "map-score"), 14, bold=True) - 18
    column = PANEL_X + 12 + (PANEL_W - 24) / 2 + svg.text_width(_text(catalog, lang, f"map-side-{POTERE}"), 12,
                                                                  bold=True) + 14
    return (svg.rect(PANEL_X, SCORE_Y, PANEL_W, HEAD_Y - SCORE_Y - 8, rx=6, fill="none", stroke=CORTEO_INK,
                     stroke_width=3)
            + svg.text(right, SCORE_Y + 20, _fit(head, 14, room, bold=True), font_size=14, font_weight="bold",
                       fill=CORTEO_INK, text_anchor="end")
            + svg.text(right, SCORE_Y + 42, _fit(score, 11.5, right - column), font_size=11.5, fill=theme.INK,
                       text_anchor="end"))


# -- the document ---------------------------------------------------------------------------------------------


def render_svg(view: Mapping[str, Any], catalog: Catalog | None = None, *, lang: str | None = None) -> str:
    """The map of a Corteo view as a complete SVG document (texts in ``lang``, else the view's
    ``lang``, else English)."""
    catalog = catalog.merged(_render_texts()) if catalog is not None else _catalog()
    code = normalise_language(lang or str(view.get("lang") or "en"))
    units = _dicts(view.get("units"))

    canvas = svg.Canvas(WIDTH, HEIGHT, layers=("city", "ground", "whole", "detail", "panel", "title"),
                        static=("city",), title=_text(catalog, code, "map-title"))
    canvas.defs(svg.element("clipPath", svg.rect(VIEW_X, VIEW_Y, VIEW_W, VIEW_H), id="detail-clip"))
    canvas.add(_static_city(code), layer="city")

    # The detail's window.
    ox, oy, r = _window(_focus_hexes(view, units))
    dgeo = Geo(ox, oy, r)
    window = _window_hexes(dgeo)

    # The whole map.
    places, mobiles = render_scenario.draw(WHOLE, view, None, False)
    whole = [_draw_zoc(WHOLE, view, None), _draw_pieces(WHOLE, view, None, 0.5), places,
             _draw_units(WHOLE, units, False, None), mobiles,
             _draw_record(WHOLE, view, False).svg()]
    # The detail's frame on the whole map.
    x0 = (VIEW_X - ox) / r * R + MAP_X
    y0 = (VIEW_Y - oy) / r * R + MAP_Y
    fw, fh = VIEW_W / r * R, VIEW_H / r * R
    fx0, fy0 = max(MAP_X - 2, x0), max(MAP_Y - 2, y0)
    fx1, fy1 = min(MAP_X + MAP_W + 2, x0 + fw), min(MAP_Y + MAP_H + 2, y0 + fh)
    whole.append(svg.rect(fx0, fy0, fx1 - fx0, fy1 - fy0, fill="none", stroke="#ffffff", stroke_width=5,
                          stroke_opacity=0.8))
    whole.append(svg.rect(fx0, fy0, fx1 - fx0, fy1 - fy0, fill="none", stroke=DETAIL_FRAME, stroke_width=2.2,
                          stroke_dasharray="9 5"))
    canvas.add(*whole, layer="whole")

    # The detail.
    # Its terrain is a static block of its own (not merged with the City's, so the City's pixels
    # stay one cache entry): the rasteriser draws it once per window and width, and the maps of
    # one phase (each seat's, the archive's) share it.
    canvas.add(svg.static_block(svg.group([_detail_terrain(code, ox, oy, r)], clip_path="url(#detail-clip)")),
               layer="ground")
    # What stays where it is is taken first (hex labels, counters, pieces), then the callouts, then
    # the marks and names go where they cover nothing (issue 19.7).
    placer = detail_placer(dgeo, window)
    counters = _draw_units(dgeo, units, True, window, placer)
    places, mobiles = render_scenario.draw(dgeo, view, window, True, placer)
    pieces = _draw_pieces(dgeo, view, window, 1.0, placer)
    record = _draw_record(dgeo, view, True, _text(catalog, code, "map-arrested").replace("[unit]", "{unit}"))
    record.settle(placer)
    names = detail_texts(dgeo, window, placer)
    body = [_draw_zoc(dgeo, view, window), pieces, places, names, record.under(), counters, mobiles, record.over()]
    canvas.add(svg.group(body, clip_path="url(#detail-clip)"), layer="detail")
    canvas.add(svg.rect(VIEW_X, VIEW_Y, VIEW_W, VIEW_H, fill="none", stroke=DETAIL_FRAME, stroke_width=2,
                        stroke_dasharray="9 5"), layer="detail")
    canvas.add(_detail_title(view, catalog, code, window), layer="detail")

    canvas.add(_panel(view, units, catalog, code), _outcome(view, catalog, code), layer="panel")
    canvas.add(_title(view, catalog, code), layer="title")
    return canvas.to_svg()


def whole_map_point(label: str) -> Point:
    """The centre of hex ``label`` on the whole map (user units), for tests and tools."""
    h = _city().hex(label)
    return WHOLE.centre(h)


def detail_geometry(view: Mapping[str, Any]) -> tuple[Geo, frozenset[Hex]]:
    """The detail's geometry and the hexes it shows for ``view`` (what :func:`render_svg` draws)."""
    ox, oy, r = _window(_focus_hexes(view, _dicts(view.get("units"))))
    geo = Geo(ox, oy, r)
    return geo, _window_hexes(geo)


__all__ = ["render_svg", "whole_map_point", "detail_geometry", "Geo", "WIDTH", "HEIGHT"]
