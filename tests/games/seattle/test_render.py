"""The map (rulebook 2.1 counters, 2.2 map, 2.3 visibility, 3.0 turns, 7.2 barricades, 7.3 escalation):
render views built from real states, rasterise them, decode the PNGs and check what a player sees."""

from __future__ import annotations

import functools
import io
import xml.etree.ElementTree as ET
from dataclasses import replace

from PIL import Image

from pbem.games.seattle import render as sr
from pbem.games.seattle.board import all_counters
from pbem.games.seattle.map import MAP
from pbem.games.seattle.state import (
    VERSION,
    BarricadeTry,
    Combat,
    EventInForce,
    MoraleCheck,
    Move,
    PhaseLog,
    Result,
    SideRoll,
    State,
    track,
)
from pbem.games.seattle.view import build_view
from pbem.render import cache, svg_to_png, theme

WIDTH = 1600
SCALE = WIDTH / sr.WIDTH
SVG_NS = "{http://www.w3.org/2000/svg}"

CROWDED = ["AN1", "AN2", "AT1", "AT2", "OL3", "PR3", "OP1", "OP2", "SPD1", "SPD2", "SPD3", "SPD4"]


def placed(where: dict[str, str]) -> tuple:
    return tuple(replace(u, loc=where[u.id]) if u.id in where else u for u in all_counters())


def start_state() -> State:
    """Set-up done: one SPD in the Convention Center, five Crowds in the core (set-up rules)."""
    units = placed({"SPD1": "convention-center", "OL1": "westlake", "OL2": "sheraton", "PR1": "pike-place-market",
                    "EN1": "union-square", "PR2": "westin"})
    return State(VERSION, 11, turn=1, stage="demonstrator-movement", units=units, vis_auth=30, vis_dem=0,
                 event=EventInForce(1, 63, "clinton-concedes"))


def busy_state() -> State:
    """Turn 5: twelve counters in the Sheraton, a combat in the Convention Center, moves, barricades."""
    where = {uid: "sheraton" for uid in CROWDED}
    where.update({"SPD5": "convention-center", "SPD6": "convention-center", "AT3": "convention-center",
                  "OL1": "convention-center", "EN1": "westlake", "EN2": "westlake", "AN3": "roosevelt",
                  "SPD7": "reserve", "SPD8": "reserve", "SPD9": "reserve", "WSP1": track(7), "WSP2": track(7),
                  "NG1": track(8), "PR1": "away", "AT4": "out", "AT5": "capitol-hill", "OP3": "capitol-hill",
                  "AN4": "pioneer-square", "AN5": "kingdome"})
    moves = (Move("AT3", ("union-square", "convention-center")),
             Move("OL1", ("union-square", "convention-center")),
             Move("AN3", ("belltown", "westin", "roosevelt")),
             Move("SPD6", ("paramount", "convention-center"), "react"),
             Move("AT5", ("pile", "capitol-hill"), "place"),
             Move("AT4", ("convention-center", "out"), "removed"))
    combat = Combat("convention-center",
                    SideRoll("demonstrators", ("AT3", "OL1"), (("AT3", 2, 0), ("OL1", 1, 0)), (), 3, 5, "MC", "MC"),
                    SideRoll("authorities", ("SPD5", "SPD6"), (("SPD5", 4, 0), ("SPD6", 4, 0)), (), 8, 6, "X", "X"),
                    checks=(MoraleCheck("SPD5", 3, 4, True),), removed=("AT4",))
    log = (PhaseLog(5, "demonstrator-movement", moves=moves),
           PhaseLog(5, "demonstrator-combat", combats=(combat,),
                    barricades=(BarricadeTry("AN4", "pioneer-square", 1, True),
                                BarricadeTry("AN5", "kingdome", 4, False))))
    return State(VERSION, 15, turn=5, stage="authority-combat", units=placed(where),
                 barricades=("pioneer-square", "sheraton"), vis_dem=47, vis_auth=26, escalation=3,
                 event=EventInForce(5, 22, "angry-feminists"), log=log)


def night_state() -> State:
    """Turn 4, the night of 30 November (3.0, 7.1)."""
    return replace(busy_state(), turn=4, stage="demonstrator-movement", escalation=2, log=(),
                   event=EventInForce(4, 24, "folk-festival"))


def view_of(state: State, lang: str = "en") -> dict:
    return {**build_view(state, "demonstrators"), "lang": lang}


@functools.lru_cache(maxsize=None)
def document(name: str, lang: str = "en") -> str:
    state = {"start": start_state, "busy": busy_state, "night": night_state}[name]()
    return sr.render_svg(view_of(state, lang))


@functools.lru_cache(maxsize=None)
def picture(name: str, lang: str = "en") -> Image.Image:
    image = Image.open(io.BytesIO(svg_to_png(document(name, lang), width=WIDTH)))
    image.load()
    assert image.format == "PNG"
    return image.convert("RGB")


def px(point: tuple[float, float]) -> tuple[int, int]:
    return round(point[0] * SCALE), round(point[1] * SCALE)


def near(a: tuple[int, int, int], colour: str, tolerance: int = 30) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, theme.rgb(colour)))


def count_near(img: Image.Image, box: tuple[float, float, float, float], colour: str, tolerance: int = 30) -> int:
    """Pixels of ``colour`` in ``box`` (user units: x0, y0, x1, y1)."""
    x0, y0 = px(box[:2])
    x1, y1 = px(box[2:])
    crop = img.crop((x0, y0, x1, y1))
    target = theme.rgb(colour)
    return sum(n for n, c in crop.getcolors(1 << 20) or []
               if all(abs(a - b) <= tolerance for a, b in zip(c, target)))


def around(area: str, reach: float = 95) -> tuple[float, float, float, float]:
    x, y = sr.sheet(*MAP.area(area).pos)
    return x - reach, y - reach, x + reach, y + reach


def texts(doc: str) -> str:
    """All text content of the document (the well-formedness check on the way)."""
    root = ET.fromstring(doc)
    assert root.tag == f"{SVG_NS}svg"
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG_NS}text"))


# -- the sheet ----------------------------------------------------------------------------------------------


def test_the_png_is_a_portrait_sheet_with_a_panel():
    """2.2: an 11" x 17" portrait map; the PNG has the service's width and the document's aspect ratio."""
    img = picture("start")
    assert img.size == (WIDTH, round(sr.HEIGHT * SCALE))
    assert img.height > img.width
    assert sr.MAP_W / sr.MAP_H == 110 / 170
    # Elliott Bay on the West edge, Lake Union in the North, I-5 between the core and First Hill.
    assert near(img.getpixel(px(sr.sheet(2, 120))), sr.WATER, 12)
    assert near(img.getpixel(px(sr.sheet(67, 2))), sr.WATER, 12)
    assert near(img.getpixel(px(sr.sheet(97.2, 70))), sr.FREEWAY, 12)


def test_every_area_name_and_exposure_value_is_on_the_map():
    """2.2: core areas are hexagons carrying their exposure value, outer areas circles; all named."""
    doc = document("start")
    words = texts(doc)
    for area in MAP.areas:
        for word in sr._text(sr._catalog(), "en", f"area-{area.id}").split():
            assert word in words, area.id
    assert words.count("Convention Center") >= 1 and "International" in words and "District" in words
    img = picture("start")
    for area in MAP.core:
        x, y = sr.sheet(*area.pos)
        bx, by = x + sr.HEX_R / 2 + 4, y - sr.HEX_H
        assert near(img.getpixel(px((bx - sr.BADGE_R + 3, by))), sr.BADGE, 25), area.id  # the badge's disc
        assert near(img.getpixel(px((x - sr.HEX_R + 8, y))), sr.CORE_FILL[area.exposure], 12), area.id
    # The badges carry the values, in map order, in one text run.
    exposures = "".join(str(a.exposure) for a in MAP.core)
    assert exposures in words.replace(" ", "")
    for area in MAP.circles:
        x, y = sr.sheet(*area.pos)
        assert near(img.getpixel(px((x - sr.CIRCLE_R + 6, y + 14))), sr.CIRCLE_FILL, 25), area.id


def test_the_documents_are_well_formed_and_light():
    """Every view renders to well-formed XML; a busy map stays around 200 elements (speed is measured
    by benchmarks/render_seattle.py), the static sheet is built once per language."""
    for name in ("start", "busy", "night"):
        texts(document(name))
        texts(document(name, "it"))
    busy = view_of(busy_state())
    sr.render_svg(busy)
    doc = sr.render_svg(busy)
    assert doc.count("<") - doc.count("</") < 260
    name = next(k for k in cache.stats() if k.endswith("seattle.render._static_sheet"))
    assert cache.stats()[name].hits >= 1


def test_odd_or_missing_data_still_renders():
    assert "<svg" in sr.render_svg({})
    odd = {"areas": [{"id": "westlake", "pos": [42, 70], "units": ["XX1", 5], "kind": "core"}, {"id": 3}],
           "units": [{"id": "XX1", "colour": "mauve"}], "log": [{"moves": [{"unit": "XX1", "path": ["a"]}],
                                                                  "combats": [{"area": "nowhere"}]}],
           "event": {"key": "no-such-event", "roll": 99}, "visibility": {"demonstrators": 500}, "lang": "xx",
           "track": [{"turn": 99, "units": ["WSP1"]}], "escalation": 7, "outcome": {"level": "?"}}
    texts(sr.render_svg(odd))


# -- counters (2.1) -------------------------------------------------------------------------------------------


def test_counters_show_their_faction_colour_in_their_area():
    """2.1: counters in faction colours: Environmentalists green in Westlake, the SPD blue in the Convention
    Center, Antagonists red and Opportunists yellow on Capitol Hill."""
    img = picture("busy")
    assert count_near(img, around("westlake"), sr.COUNTER_COLOURS["green"][0]) > 400
    assert count_near(img, around("convention-center"), sr.COUNTER_COLOURS["blue"][0]) > 400
    assert count_near(img, around("capitol-hill"), sr.COUNTER_COLOURS["red"][0]) > 200
    assert count_near(img, around("capitol-hill"), sr.COUNTER_COLOURS["yellow"][0]) > 200
    # ... and not where there is none of that faction.
    assert count_near(img, around("first-avenue", 50), sr.COUNTER_COLOURS["green"][0]) == 0
    assert count_near(img, around("westlake", 60), sr.COUNTER_COLOURS["blue"][0]) == 0


def test_a_crowded_area_shows_all_twelve_counters():
    """2.1, 5.2: twelve counters in the Sheraton are a 4 x 3 grid, every id and factor readable, each
    faction's colour there, Crowds marked with a row of heads."""
    view = view_of(busy_state())
    sheraton = next(a for a in view["areas"] if a["id"] == "sheraton")
    assert sorted(sheraton["units"]) == sorted(CROWDED)
    words = texts(document("busy")).replace(" ", "")
    for uid in CROWDED:
        assert uid in words
    assert "2-5-3" in words and "1-3-1" in words and "4-4-3" in words
    img = picture("busy")
    box = around("sheraton", 100)
    for colour in ("white-black", "red", "orange", "pink", "yellow", "blue"):
        assert count_near(img, box, sr.COUNTER_COLOURS[colour][0], 20) > 150, colour
    x, y = sr.sheet(*MAP.area("sheraton").pos)
    origins = sr._stack_origins(12, 8, x, y)
    assert len({o[1] for o in origins}) == 3 and len({o[0] for o in origins}) == 4
    ox, oy = origins[0]  # AN1, top-left: white with a black border
    assert near(img.getpixel(px((ox + 4, oy + 30))), "#ffffff", 8)
    assert count_near(img, (ox - 2, oy + 16, ox + 2, oy + 24), "#111111", 60) >= 4


def test_crowds_and_groups_look_different():
    """2.1: a Crowd (row of heads) and a Group (a flag) differ in the middle of the counter, not only in colour."""
    group = sr._Counters()
    group.add({"id": "OP1", "colour": "yellow", "kind": "group", "combat": 1, "morale": 2, "move": 3}, 0, 0)
    crowd = sr._Counters()
    crowd.add({"id": "OP1", "colour": "yellow", "kind": "crowd", "combat": 1, "morale": 2, "move": 3}, 0, 0)
    assert group.svg() != crowd.svg()
    assert "fill=\"none\"" in group.svg()  # the flag's pole is a stroke


# -- boxes and tracks ---------------------------------------------------------------------------------------


def test_the_reserve_pool_holds_its_counters():
    """4.2: the Reserve Pool is printed on the map; the Authority units in it are drawn there."""
    img = picture("busy")
    x, y, w, h = sr._pool_rect()
    assert count_near(img, (x, y + 30, x + w, y + 80), sr.COUNTER_COLOURS["blue"][0]) > 600
    assert "Reserve Pool" in texts(document("busy"))


def test_visibility_track_shows_both_indexes_and_reaction_limits():
    """2.3, 5.1: both Visibility Indexes on the track (Demonstrators above, Authorities below), with the
    reaction moves of each side's band."""
    img = picture("busy")
    words = texts(document("busy"))
    assert "Demonstrators: 47" in words and "Authorities: 26" in words
    assert "reaction moves: 2" in words and "reaction moves: 1" in words
    dx = sr._vis_x(47)
    assert near(img.getpixel(px((dx, sr.VIS_BAR_Y - 20))), sr.DEM_ARROW, 20)
    ax = sr._vis_x(26)
    assert near(img.getpixel(px((ax - 12, sr.VIS_BAR_Y + sr.VIS_BAR_H + 28))), sr.AUTH_ARROW, 20)  # under the numbers


def test_turn_track_marks_the_turn_the_night_and_the_waiting_police():
    """3.0, 4.22: the turn track has a cell per turn (nights shaded), the current turn ringed, WSP/NGMP
    waiting in the cell of their turn of arrival."""
    img = picture("busy")
    turns = sr._turn_keys(view_of(busy_state()))
    assert len(turns) == 15
    x, y, w, h = sr._track_cell(5, turns)  # type: ignore[misc]
    assert near(img.getpixel(px((x + w / 2, y + 2))), "#d55e00", 30)
    nx, ny, nw, nh = sr._track_cell(4, turns)  # type: ignore[misc]
    assert near(img.getpixel(px((nx + nw / 2, ny + nh - 8))), sr.NIGHT_CELL, 12)
    words = texts(document("busy"))
    assert "2 WSP" in words and "1 NG" in words
    wx, wy, ww, wh = sr._track_cell(7, turns)  # type: ignore[misc]
    assert count_near(img, (wx, wy, wx + ww, wy + wh), sr.AUTH_ARROW, 20) > 60


def test_a_night_turn_darkens_the_sheet():
    """3.0, 7.1: the night turn is shaded on the map and named in the title."""
    day, night = picture("busy"), picture("night")
    point = px(sr.sheet(100, 100))  # open land East of I-5
    assert sum(night.getpixel(point)) < sum(day.getpixel(point)) - 60
    assert "night" in texts(document("night"))
    x, y, w, h = sr._track_cell(4, sr._turn_keys(view_of(night_state())))  # type: ignore[misc]
    assert near(night.getpixel(px((x + w / 2, y + 2))), "#d55e00", 30)


def test_escalation_three_and_barricades():
    """7.2, 7.3: barricade markers in the barricaded areas; the escalation phase is the one marked."""
    img = picture("busy")
    for area in ("pioneer-square", "sheraton"):
        x, y = sr.sheet(*MAP.area(area).pos)
        assert count_near(img, (x - 190, y - 20, x - 40, y + 20), sr.BARRICADE_LIGHT, 25) > 40, area
    x, y = sr.sheet(*MAP.area("westlake").pos)
    assert count_near(img, (x - 130, y - 20, x - 40, y + 20), sr.BARRICADE_LIGHT, 25) == 0
    third = sr.PANEL_X + 12 + 2 * (sr.ESC_BOX_W + 8) + 16
    assert near(img.getpixel(px((third - 9, sr.ESC_Y + 52))), "#d55e00", 30)
    first = sr.PANEL_X + 12 + 16
    assert not near(img.getpixel(px((first - 9, sr.ESC_Y + 52))), "#d55e00", 60)
    assert "Escalation" in texts(document("busy"))


def test_the_event_of_the_turn():
    """4.1: the event's dice and name, and what it does."""
    words = texts(document("busy"))
    assert "Angry Feminists Unite!" in words and "double their combat factor" in words
    assert "Solidarietà" not in words
    start = texts(document("start"))
    assert "Bill Clinton concedes" in start and "+10 to the Demonstrators' Visibility Index." in start


# -- the turn's marks ----------------------------------------------------------------------------------------


def test_moves_and_the_combat_of_the_log():
    """5.0, 6.1: this turn's moves are arrows between areas in the side's colour, the combat a card
    under its area with the attacker's and the defender's result, barricade tries with their die."""
    doc = document("busy")
    words = texts(doc)
    assert "MC" in words and "X" in words
    assert "AT3 OL1" in words  # the two counters that moved together share an arrow
    img = picture("busy")
    # AN3: Belltown -> Westin -> Roosevelt; the arrow is drawn between Belltown and Westin.
    b, w = sr.sheet(*MAP.area("belltown").pos), sr.sheet(*MAP.area("westin").pos)
    mid = ((b[0] + w[0]) / 2, (b[1] + w[1]) / 2)
    assert count_near(img, (mid[0] - 14, mid[1] - 14, mid[0] + 14, mid[1] + 14), sr.DEM_ARROW, 25) > 20
    # The combat card under the Convention Center: a white card with a red-brown border.
    x, y = sr.sheet(*MAP.area("convention-center").pos)
    assert count_near(img, (x - 60, y + sr.HEX_H - 12, x + 60, y + sr.HEX_H + 16), sr.CONTESTED, 25) > 60
    # Barricade attempts: a tick for the one built, a cross for the failed one.
    assert "✓" in words and "✗" in words
    assert "Pioneer Square: barricade by AN4, die 1: built" in words
    assert "+1" in words and "-1" in words  # AT5 placed from the pile, AT4 removed
    # Nothing of the kind on a map without a log.
    assert "✗" not in texts(document("night"))


def test_italian_map():
    """The map speaks the view's language: Italian area names, boxes and tracks."""
    words = texts(document("busy", "it"))
    for expected in ("Teatro Paramount", "Palazzo Federale", "Linea Conta Turni", "Indice di Visibilità",
                     "Zona di Riserva", "Femministe arrabbiate unite!", "Legenda", "mer 1 dic"):
        assert expected in words, expected
    assert "Reserve Pool" not in words and "Turn track" not in words
    assert "La Battaglia di Seattle" in words
    img = picture("busy", "it")
    assert img.size == picture("busy").size


def test_the_outcome_is_shown():
    """8.0: at the end the map says who won and by how much."""
    state = replace(busy_state(), stage="over", result=Result("demonstrators", "substantive", 80, 40))
    words = texts(sr.render_svg(view_of(state)))
    assert "Game over" in words and "substantive victory" in words and "Demonstrators 80 - Authorities 40" in words
