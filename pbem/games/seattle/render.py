"""The map of The Battle of Seattle: one view as an SVG document.

:func:`render_svg` reads only the view (plain JSON data from
:func:`pbem.games.seattle.view.build_view`) and returns a complete SVG;
:func:`pbem.render.raster.svg_to_png` turns it into the PNG of the turn mail.

Layout (user units; the document is :data:`WIDTH` x :data:`HEIGHT`, portrait):

- a title bar: the game, the turn and its date and period, the phase;
- on the left the 11" x 17" sheet (:data:`SCALE` units per tenth of an inch, the areas at
  their ``pos``): downtown Seattle with Elliott Bay and the piers on the West, Lake Union to
  the North of South Lake Union, I-5 between the core and First Hill / Capitol Hill, a faint
  street grid - the downtown core's tilted 32 degrees like Seattle's, North-South elsewhere -;
  the transit lines, the core areas as hexagons shaded by their exposure value (the value in a
  badge on the border), the outer areas as circles, names in the view's language (2.2); the
  Reserve Pool printed on the sheet, in the North-East corner, with its counters (4.2);
- on the right a panel: the turn track as a calendar (a row per day, a column per period,
  night shaded, the current turn ringed, WSP/NGMP waiting on their turn of arrival, 3.0,
  4.22), the Visibility Index track of both sides with the reinforcement bands and their
  reaction limits (2.3, 4.21, 5.1), the escalation phase (7.3), the event of the turn (4.1),
  the combats and barricade attempts since the last orders (6.0, 7.2), the counters by type
  and place (map, Reserve Pool, track, pile, away, out), and the legend.

Counters (2.1) are squares in their faction's colour (Anarchists white with a black border,
Antagonists red, Organised Labour orange, Progressives pink, Environmentalists green,
Opportunists yellow, the Authorities blue) with the id on top and combat-morale-move below;
the middle shows what a counter is, so colour is never the only cue: a flag for a Group, a
row of heads for a Crowd, a shield for SPD, a star for WSP, chevrons for NGMP. A stack is a
small grid (Demonstrators first, the Authorities on a new row) below the area's name.
Barricades are striped bars on the area's left vertex (7.2); areas holding both sides get a
dashed red ring. A night turn darkens the sheet.

The turn's marks come from ``view["log"]``: moves as arrows from area to area in the side's
colour (reactions dashed; several counters on the same path share one arrow, labelled with their
ids or their count), counters arriving from a box (the piles, the Reserve Pool) or leaving for one
as "+N"/"-N" badges in the side's colour, each combat as a card under its area ("attacker's result
/ defender's result"), each barricade attempt as the die and a tick or a cross; the panel lists
the combats with totals and dice.

Speed (``design/performance.md``): everything that does not change between turns (paper,
water, streets, I-5, lines, areas, names, badges, the panel's frames, the tracks' scales and
the legend) is one static part built once per process and language (:func:`_static_sheet`,
keyed by the view's areas and turns) and written first, so the rasteriser draws it once per
width. The dynamic part is batched: one path per counter colour, one text run per ink for
all ids and factors, one path per arrow style: a mid-game map is about 200 elements, 75 of
them dynamic. Render + rasterise at 1600 px takes ~70-90 ms on the 2-core server once the sheet
is cached (~220-240 ms for the first map of a language and width; ``benchmarks/render_seattle.py``);
the street grid's edges make the PNG (~300 KiB) and its encoding a little heavier than Kriegspiel's.

The drawing is split by concern: :mod:`.render_layout` (geometry, colours, shared helpers),
:mod:`.render_sheet` (the static part) and :mod:`.render_marks` (counters and the turn's marks);
their names stay importable from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.i18n import Catalog, normalise_language
from pbem.render import svg, theme
from pbem.render.cache import static_part
from pbem.render.viewdata import as_int as _int, as_dicts as _dicts, as_strs as _strs
from pbem.render.svg import Path, Point
from pbem.games.seattle.render_layout import (  # noqa: F401 - re-exported: the map's names stay importable from here
    _area_keys,
    AreaKey,
    AUTH,
    AUTH_ARROW,
    BADGE,
    BADGE_R,
    _band_keys,
    BandKey,
    BARRICADE_LIGHT,
    _catalog,
    _centres,
    CIRCLE_FILL,
    CIRCLE_R,
    CONTESTED,
    CORE_FILL,
    COUNTER,
    COUNTER_COLOURS,
    DEM,
    DEM_ARROW,
    ESC_BOX_W,
    ESC_Y,
    EVENT_Y,
    FREEWAY,
    HEIGHT,
    HEX_H,
    HEX_R,
    hexagon,
    LOG_Y,
    MAP_H,
    MAP_W,
    MAP_X,
    MAP_Y,
    NIGHT,
    NIGHT_CELL,
    OFF_Y,
    PANEL_W,
    PANEL_X,
    PITCH,
    POOL_COLS,
    _pool_rect,
    _render_texts,
    sheet,
    _text,
    _track_cell,
    _turn_keys,
    TurnKey,
    _unit_keys,
    UnitKey,
    VIS_BAR_H,
    VIS_BAR_Y,
    _vis_x,
    WATER,
    WIDTH,
)
from pbem.games.seattle.render_sheet import (  # noqa: F401 - re-exported: the map's names stay importable from here
    _areas,
    _box,
    _escalation_static,
    _geography,
    _legend,
    _offmap_static,
    _pool_static,
    _turn_track_static,
    _visibility_static,
)
from pbem.games.seattle.render_marks import (  # noqa: F401 - re-exported: the map's names stay importable from here
    _badges,
    _barricades,
    _combat_cards,
    _Counters,
    _escalation_marks,
    _event,
    _log_lines,
    _Marks,
    _offmap_counts,
    _outcome,
    _side_of,
    _stack_origins,
    _title,
    _tries,
    _turn_marks,
    _vis_marks,
)


@static_part(maxsize=8)
def _static_sheet(lang: str, areas: tuple[AreaKey, ...], turns: tuple[TurnKey, ...], bands: tuple[BandKey, ...],
                  types: tuple[UnitKey, ...]) -> str:
    """Everything that never changes in a game: built once per process, language, map, track and tables."""
    catalog = _catalog()
    out = [svg.rect(0, 0, WIDTH, HEIGHT, fill=theme.PAPER), _geography(catalog, lang), _areas(areas, catalog, lang),
           _pool_static(catalog, lang), _turn_track_static(turns, catalog, lang), _visibility_static(bands, catalog, lang),
           _escalation_static(catalog, lang), _box(PANEL_X, EVENT_Y, PANEL_W, LOG_Y - EVENT_Y - 10,
                                                   _text(catalog, lang, "map-event")),
           _box(PANEL_X, LOG_Y, PANEL_W, OFF_Y - LOG_Y - 10, _text(catalog, lang, "map-combats")),
           _offmap_static(types, catalog, lang), _legend(catalog, lang)]
    return "".join(out)


# -- the document -----------------------------------------------------------------------------------------


def render_svg(view: Mapping[str, Any], catalog: Catalog | None = None, *, lang: str | None = None) -> str:
    """The map of a Battle of Seattle view as a complete SVG document (texts in ``lang``, else the
    view's ``lang``, else English)."""
    catalog = catalog.merged(_render_texts()) if catalog is not None else _catalog()
    code = normalise_language(lang or str(view.get("lang") or "en"))
    areas = _area_keys(view)
    turns = _turn_keys(view)
    centres = _centres(areas)
    units: dict[str, dict[str, Any]] = {str(u.get("id")): u for u in _dicts(view.get("units")) if u.get("id")}

    canvas = svg.Canvas(WIDTH, HEIGHT, layers=("sheet", "night", "rings", "counters", "marks", "panel", "title"),
                        static=("sheet",), title=_text(catalog, code, "map-title"))
    types = _unit_keys(view)
    canvas.add(_static_sheet(code, areas, turns, _band_keys(view), types), layer="sheet")
    if view.get("night"):
        canvas.add(svg.rect(MAP_X, MAP_Y, MAP_W, MAP_H, fill=NIGHT, fill_opacity=0.24), layer="night")

    counters = _Counters()
    rings = Path()
    barricades: list[Point] = []
    kinds = {a[0]: a[1] for a in areas}
    edges: dict[str, float] = {}  # an area's left edge or its stack's, whichever is further out
    for area in _dicts(view.get("areas")):
        aid = str(area.get("id"))
        if aid not in centres:
            continue
        cx, cy = centres[aid]
        here = [u for u in _strs(area.get("units")) if u in units]
        dem = [u for u in here if _side_of(units[u], u) == DEM]
        auth = [u for u in here if _side_of(units[u], u) == AUTH]
        for uid, (x, y) in zip(dem + auth, _stack_origins(len(dem) + len(auth), len(dem), cx, cy)):
            counters.add(units[uid], x, y)
        if dem and auth:
            if kinds.get(aid) == "core":
                rings.polygon(hexagon(cx, cy, HEX_R + 7))
            else:
                rings.circle(cx, cy, CIRCLE_R + 7)
        count = len(dem) + len(auth)
        half = (2 if count <= 4 else 3 if count <= 9 else 4) * PITCH / 2 if count else 0
        edges[aid] = max(HEX_R if kinds.get(aid) == "core" else CIRCLE_R, half)
        if area.get("barricade"):
            barricades.append((cx - edges[aid] - 14, cy - 4))
    # The Reserve Pool's counters.
    px, py, pw, _ph = _pool_rect()
    boxes = view.get("boxes") if isinstance(view.get("boxes"), dict) else {}
    assert isinstance(boxes, dict)
    pool = [u for u in _strs(boxes.get("reserve")) if u in units]
    left = px + (pw - POOL_COLS * PITCH) / 2 + (PITCH - COUNTER) / 2
    for i, uid in enumerate(pool[: POOL_COLS * 7]):
        row, col = divmod(i, POOL_COLS)
        counters.add(units[uid], left + col * PITCH, py + 36 + row * PITCH)
    if len(pool) > POOL_COLS * 7:
        canvas.add(svg.text(px + pw - 8, py + 19, f"+{len(pool) - POOL_COLS * 7}", font_size=12, fill="#ffffff",
                            text_anchor="end"), layer="marks")
    if rings:
        canvas.add(svg.path(rings, fill="none", stroke=CONTESTED, stroke_width=3.5, stroke_dasharray="10 6",
                            stroke_linejoin="round"), layer="rings")
    canvas.add(counters.svg(), layer="counters")
    canvas.add(_barricades(barricades), layer="marks")

    # The turn's marks from the log.
    marks = _Marks(centres, units)
    cards: list[tuple[Point, str, str, str, str]] = []
    tries: list[tuple[Point, int, bool]] = []
    card_count: dict[str, int] = {}
    try_count: dict[str, int] = {}
    for entry in _dicts(view.get("log")):
        for move in _dicts(entry.get("moves")):
            marks.move(move)
        for c in _dicts(entry.get("combats")):
            aid = str(c.get("area"))
            if aid not in centres:
                continue
            att = c.get("attack") if isinstance(c.get("attack"), dict) else {}
            dfn = c.get("defence") if isinstance(c.get("defence"), dict) else {}
            assert isinstance(att, dict) and isinstance(dfn, dict)
            n = card_count.get(aid, 0)
            card_count[aid] = n + 1
            cx, cy = centres[aid]
            bottom = HEX_H if kinds.get(aid) == "core" else CIRCLE_R
            cards.append(((cx, cy + bottom + 2 + n * 27), str(att.get("side") or ""), str(att.get("result") or "?"),
                          str(dfn.get("side") or ""), str(dfn.get("result") or "?")))
        for b in _dicts(entry.get("barricades")):
            aid = str(b.get("area"))
            if aid not in centres:
                continue
            n = try_count.get(aid, 0)
            try_count[aid] = n + 1
            cx, cy = centres[aid]
            right = HEX_R if kinds.get(aid) == "core" else CIRCLE_R
            tries.append(((cx + right - 6, cy + 22 + n * 25), _int(b.get("roll")), bool(b.get("built"))))
    canvas.add(marks.svg(), layer="marks")
    badge_items: list[tuple[Point, str, str]] = []
    slots: dict[str, int] = {}
    for (aid, side, sign), n in sorted(marks.badges.items()):
        cx, cy = centres[aid]
        i = slots.get(aid, 0)
        slots[aid] = i + 1
        # On the area's left edge, clear of its stack: a badge never covers a counter's factors (issue 19.7).
        left = edges.get(aid, HEX_R if kinds.get(aid) == "core" else CIRCLE_R)
        badge_items.append(((cx - left - 10, cy + 30 + i * 23), f"{sign}{n}", side))
    canvas.add(_badges(badge_items), layer="marks")
    canvas.add(_combat_cards(cards), layer="marks")
    canvas.add(_tries(tries), layer="marks")

    canvas.add(_turn_marks(view, turns, units, catalog, code), layer="panel")
    canvas.add(_vis_marks(view, catalog, code), layer="panel")
    canvas.add(_escalation_marks(view, catalog, code), layer="panel")
    canvas.add(_event(view, catalog, code), layer="panel")
    canvas.add(_log_lines(view, catalog, code), layer="panel")
    canvas.add(_offmap_counts(view, units, types), layer="panel")
    canvas.add(_outcome(view, catalog, code), layer="panel")
    canvas.add(_title(view, catalog, code), layer="title")
    return canvas.to_svg()
