"""The map (rulebook C 1d map, C 2 ZOC, C 5d barricades, C 10 Head, C 12 objectives, C 13 smoke and jams):
render views built from real states, rasterise them, decode the PNGs and check what a player sees."""

from __future__ import annotations

import functools
import io
import xml.etree.ElementTree as ET

from PIL import Image

from pbem.games.corteo import render as cr
from pbem.games.corteo.city import load_city
from pbem.games.corteo.state import (
    VERSION,
    Barricade,
    Fight,
    PhaseLog,
    Smoke,
    State,
    Step,
    Throw,
    Unit,
)
from pbem.games.corteo.units import roster
from pbem.games.corteo.view import build_view
from pbem.render import cache, svg_to_png, theme

WIDTH = 1600
SCALE = WIDTH / cr.WIDTH
SVG_NS = "{http://www.w3.org/2000/svg}"
CITY = load_city()


def start_units() -> dict[str, Unit]:
    """C 3a: the 33 corteo units on Piazza Mento (2 a hex at most), 10 piantoni on objectives (presidio),
    5 vigili near the Gates, 10 celere and 5 carabinieri in the caserme, the rest in reserve."""
    r = roster(False)
    mento = [h.label for h in CITY.square("Piazza Mento").hexes]
    where: dict[str, str] = {}
    for i, uid in enumerate(u for u in r if r[u].side == "corteo"):
        where[uid] = mento[i % len(mento)]
    for uid, o in zip([u for u in r if u.startswith("PI")], CITY.objectives):
        where[uid] = o.hexes[0].label
    for uid, h in zip([u for u in r if u.startswith("VI")], ["D9", "G6", "D12", "M13", "V12"]):
        where[uid] = h
    slots = [h.label for c in CITY.caserme for h in c.hexes for _ in range(2)]
    police = [u for u in r if u.startswith("CE")] + [f"CA{i}" for i in range(1, 6)]
    where.update(zip(police, slots))
    return {u: Unit(u, where.get(u, "reserve"), presidio=u.startswith("PI")) for u in r}


def start_state() -> State:
    return State(VERSION, "advanced", hand=1, stage="corteo-move", units=tuple(start_units().values()),
                 head_component="MOV", heads=("MOV1", "MOV2"))


BUSY = {"MOV1": "M18", "MOV2": "M18", "MOV3": "M19", "MOV4": "M19", "MOV5": "N18", "AUT1": "L18", "AUT2": "N19",
        "AUT3": "M17", "ML1": "N17", "ML2": "M16", "GRU1": "M15", "GRU2": "M14", "LC1": "prison", "FEM1": "prison",
        "RAD1": "off:S2:6", "CE1": "K20", "CE2": "L20", "CA1": "N20", "LA1": "M22", "BL1": "O20", "CE3": "K19",
        "PI1": "K18"}


def busy_state() -> State:
    """Hand 4: the Corteo on Piazza Fontana, a fight and a throw, an arrest, barricades (C 5d), a jam and
    smoke (C 13a, 13c), a covered objective and one held (C 12a)."""
    units = start_units()
    for uid, loc in BUSY.items():
        units[uid] = Unit(uid, loc, presidio=uid == "PI1")
    units["CA2"] = Unit("CA2", "F9", panicked=True)
    steps = (Step("MOV1", ("M13", "M14", "M15", "M16", "M17", "M18")), Step("AUT1", ("M16", "L17", "L18")),
             Step("CE2", ("L19", "L20"), "retreat"), Step("LC1", ("N19", "prison"), "arrest"),
             Step("RAD1", ("Z13", "off:S2:6"), "offmap"))
    throws = (Throw(("AUT2",), "N19", "N21", "N21", ("LA1",), "6", "6", "1-1", 4, "R1"),
              Throw(("LA1",), "M22", "M19", "M20", (), "6", "8", "1-1", 2, "NE", short=True))
    fights = (Fight(("MOV1", "MOV2"), ("CE2",), "12+22", "4", "5-1", 5, "DR", losers=("CE2",)),
              Fight(("CA1",), ("AUT2", "LC1"), "4", "6", "1-2", 6, "AP", losers=("CA1",), arrested=("LC1",)))
    log = (PhaseLog(4, "corteo-move", steps=steps[:2], throws=throws[:1]),
           PhaseLog(4, "corteo-combat", steps=steps[2:3], fights=fights[:1]),
           PhaseLog(4, "potere-combat", steps=steps[3:], throws=throws[1:], fights=fights[1:]))
    return State(VERSION, "advanced", options=("smoke", "jams"), hand=4, stage="potere-combat",
                 units=tuple(units.values()), barricades=(Barricade("M21", 3), Barricade("L21", 4)),
                 barricades_left=8, jams=("P11",), smoke=(Smoke("M23", "hand"),), covered=("K17",), held=("L16",),
                 points=5, runs_left=3, running=True, head_component="MOV", heads=("MOV1", "MOV2"), log=log)


STATES = {"start": start_state, "busy": busy_state}


@functools.lru_cache(maxsize=None)
def view_of(name: str, lang: str = "en", zoc: bool = False) -> dict:
    view = {**build_view(STATES[name](), "corteo"), "lang": lang}
    if zoc:
        view["show_zoc"] = True
    return view


@functools.lru_cache(maxsize=None)
def document(name: str, lang: str = "en", zoc: bool = False) -> str:
    return cr.render_svg(view_of(name, lang, zoc))


@functools.lru_cache(maxsize=None)
def picture(name: str, lang: str = "en", zoc: bool = False) -> Image.Image:
    image = Image.open(io.BytesIO(svg_to_png(document(name, lang, zoc), width=WIDTH)))
    image.load()
    assert image.format == "PNG"
    return image.convert("RGB")


def px(point: tuple[float, float]) -> tuple[int, int]:
    return round(point[0] * SCALE), round(point[1] * SCALE)


def colours(img: Image.Image, box: tuple[int, int, int, int]) -> list[tuple[int, tuple[int, ...]]]:
    """The (count, rgb) pairs of a crop of an RGB image (PIL types a pixel as an int, a float or a tuple)."""
    return [(n, c) for n, c in img.crop(box).getcolors(1 << 20) or [] if isinstance(c, tuple)]


def count_near(img: Image.Image, centre: tuple[float, float], reach: float, colour: str, tolerance: int = 24) -> int:
    """Pixels of ``colour`` within ``reach`` user units of ``centre``."""
    x0, y0 = px((centre[0] - reach, centre[1] - reach))
    x1, y1 = px((centre[0] + reach, centre[1] + reach))
    target = theme.rgb(colour)
    return sum(n for n, c in colours(img, (x0, y0, x1, y1)) if all(abs(a - b) <= tolerance for a, b in zip(c, target)))


def share_near(img: Image.Image, centre: tuple[float, float], reach: float, colour: str) -> float:
    x0, y0 = px((centre[0] - reach, centre[1] - reach))
    x1, y1 = px((centre[0] + reach, centre[1] + reach))
    return count_near(img, centre, reach, colour) / max(1, (x1 - x0) * (y1 - y0))


def detail_centre(view: dict, label: str) -> tuple[float, float]:
    geo, hexes = cr.detail_geometry(view)
    h = CITY.hex(label)
    assert h in hexes, f"{label} is not in the detail"
    return geo.centre(h)


def texts(doc: str) -> str:
    """All text content of the document (the well-formedness check on the way)."""
    root = ET.fromstring(doc)
    assert root.tag == f"{SVG_NS}svg"
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG_NS}text"))


# -- the City -------------------------------------------------------------------------------------------


def test_the_png_is_the_whole_city_over_a_detail_and_a_panel():
    """C 1d: the 40 x 26 hex City, landscape, on top; the detail and the panel below; service width."""
    img = picture("start")
    assert img.size == (WIDTH, round(cr.HEIGHT * SCALE))
    assert cr.MAP_W > 1.7 * cr.MAP_H  # landscape
    assert cr.VIEW_Y > cr.MAP_Y + cr.MAP_H
    a1, z40 = cr.whole_map_point("A1"), cr.whole_map_point("Z40")
    assert cr.MAP_X < a1[0] < z40[0] < cr.MAP_X + cr.MAP_W and cr.MAP_Y < a1[1] < z40[1] < cr.MAP_Y + cr.MAP_H


def test_terrain_colours_follow_the_original():
    """C 1d: white streets, grey viali, light blue crowded places, brown buildings, red case popolari,
    yellow objectives, violet caserme, green gardens, the blue river - at hex centres of the whole map."""
    img = picture("start")
    reach = cr.R * 0.45
    samples = {"A12": "caseggiato", "H28": "fiume", "U5": "giardino", "N1": "case_popolari", "E22": "affollato",
               "K14": "obiettivo", "D10": "viale", "J13": "strada", "W3": "caserma"}
    for label, terrain in samples.items():
        assert CITY.terrain(CITY.hex(label)) == terrain
        share = share_near(img, cr.whole_map_point(label), reach, cr.TERRAIN_FILL[terrain])
        assert share > 0.3, (label, terrain, share)


def test_names_walls_coordinates_and_objective_values_are_on_the_map():
    """C 1d, C 12b: street and square names (the City's own puns), the Gates, the edge coordinates
    and every objective hex's value."""
    words = texts(document("start"))
    prison = next(b.name for b in CITY.buildings if b.role == "carcere")
    for name in ("Piazza Mento", "Viale Billikid", "Piazza Fontana", "Lungozombi degli Accavallati", "Porta Voce",
                 "Giardini dei Fumatori", prison):
        assert name in words, name
    assert all(str(n) in words for n in range(1, 41))
    # Walls: the Mura's ink appears along Viale Billikid's East side.
    img = picture("start")
    x, y = cr.whole_map_point("K12")
    assert count_near(img, (x + cr.R * 0.87, y), cr.R * 0.3, cr.WALL, 30) > 5
    # Objective values: the yellow hexes carry a dark digit.
    x, y = cr.whole_map_point("K14")
    assert count_near(img, (x, y), cr.R * 0.4, cr.OBJ_INK, 40) > 10


# -- counters and the detail -------------------------------------------------------------------------------


def test_the_detail_shows_the_corteo_at_start_with_readable_counters():
    """C 3a, C 10: without a record the detail shows the Corteo on Piazza Mento; counters in their
    component's colour, with id and speed-power, the Heads marked in gold."""
    view = view_of("start")
    assert view["focus"] is None
    geo, hexes = cr.detail_geometry(view)
    assert geo.r >= cr.DETAIL_R_MIN
    assert all(h in hexes for h in CITY.square("Piazza Mento").hexes)
    img = picture("start")
    units = {u["id"]: u for u in view["units"]}
    for uid, colour in (("MOV3", "#d62a20"), ("RAD1", "#1f9a4c"), ("FEM1", "#f5a3c7"), ("GRU1", "#f08a24")):
        centre = detail_centre(view, units[uid]["loc"])
        assert count_near(img, centre, geo.r * 0.8, colour) > 80, uid
    head = detail_centre(view, units["MOV1"]["loc"])
    assert count_near(img, head, geo.r, cr.HEAD_GOLD) > 30
    words = texts(document("start"))
    assert "MOV1" in words and "6-6" in words and "4-1" in words and "CE1" in words


def test_the_detail_covers_the_focus_of_the_record():
    """The area of action: the hexes of the record's moves, throws and fights are in the detail, marked
    on the whole map by its frame."""
    view = view_of("busy")
    geo, hexes = cr.detail_geometry(view)
    for label in ("M18", "L20", "N19", "N20", "M22", "L17"):
        assert label in view["focus"]
        x, y = geo.centre(CITY.hex(label))
        assert cr.VIEW_X < x < cr.VIEW_X + cr.VIEW_W and cr.VIEW_Y < y < cr.VIEW_Y + cr.VIEW_H, label
    words = texts(document("busy"))
    assert "M18" in words and "N20" in words  # hex labels in the detail


def test_barricades_jams_smoke_and_objectives():
    """C 5d barricades, C 13c jams, C 13a smoke, C 12a covered objectives (a brown tile with the value)
    and the objective held at the end of the hand."""
    view = view_of("busy")
    img = picture("busy")
    r = cr.detail_geometry(view)[0].r
    assert count_near(img, detail_centre(view, "M21"), r * 0.6, cr.BARRICADE_LIGHT) > 60
    assert count_near(img, detail_centre(view, "M23"), r * 0.6, cr.SMOKE, 10) > 150
    assert count_near(img, detail_centre(view, "P11"), r * 0.6, "#1f6fb2") > 20  # a car of the jam
    assert count_near(img, cr.whole_map_point("K17"), cr.R * 0.6, cr.COVER) > 40
    assert count_near(img, detail_centre(view, "L16"), r, cr.HELD) > 40
    # Nothing of the kind on the starting map.
    start = picture("start")
    assert count_near(start, cr.whole_map_point("K17"), cr.R * 0.6, cr.COVER) < 20  # (antialiasing: a few)


def bluish(img: Image.Image, centre: tuple[float, float], reach: float) -> int:
    """Pixels of the power's hatching blue (drawn at 70 % over the terrain) near ``centre``."""
    x0, y0 = px((centre[0] - reach, centre[1] - reach))
    x1, y1 = px((centre[0] + reach, centre[1] + reach))
    return sum(n for n, (r, g, b) in colours(img, (x0, y0, x1, y1)) if b - r > 70 and b > 140)


def test_zoc_is_hatched_only_on_request():
    """C 2: ZOCs are drawn when a player asks for them (view["show_zoc"]); the power's in blue."""
    view = view_of("busy", zoc=True)
    geo, shown = cr.detail_geometry(view)
    occupied = {u["loc"] for u in view["units"]}
    hexes = []
    for label in view["zoc"]["potere"]:
        h = CITY.hex(label)
        x, y = geo.centre(h)
        if (label not in view["zoc"]["corteo"] and label not in occupied and h in shown
                and cr.VIEW_X + geo.r < x < cr.VIEW_X + cr.VIEW_W - geo.r
                and cr.VIEW_Y + geo.r < y < cr.VIEW_Y + cr.VIEW_H - geo.r):
            hexes.append(label)
    assert hexes
    centre = detail_centre(view, hexes[0])
    assert bluish(picture("busy", zoc=True), centre, 20) > 20
    assert bluish(picture("busy"), centre, 20) < 5


def test_the_record_fights_throws_and_arrests():
    """C 7 throws with their result, C 8 fights with the result code, C 8f arrests: a line to the prison."""
    words = texts(document("busy"))
    for code in ("DR", "AP", "R1", "NE"):
        assert code in words, code
    assert "LC1 arrested" in words
    img = picture("busy")
    view = view_of("busy")
    assert count_near(img, detail_centre(view, "M18"), 90, cr.FIGHT) > 40


def test_the_panel():
    """C 3 hands, C 5c runs, C 5d barricades left, C 12 the score, C 10 the Head, C 8f the prison,
    C 8h units off the map, the power's reserve."""
    words = texts(document("busy"))
    assert "MOV: MOV1, MOV2" in words
    assert "2 arrested, strength 7" in words
    assert "RAD1 S2, back in hand 6" in words
    assert "3/5" in words and "8/10" in words
    assert "18 units" in words


def test_italian_map():
    """Italian texts from render.toml; the City's names stay as they are."""
    words = texts(document("busy", "it"))
    for text in ("Mano 4 di 10", "Dettaglio", "Carcere", "Testa del Corteo", "LC1 arrestato", "Piazza Fontana",
                 "caseggiato"):
        assert text in words, text
    assert "Hand 4" not in words and "buildings" not in words
    assert "buildings" in texts(document("busy"))  # the English gloss of caseggiato


def test_the_outcome_and_odd_data():
    """C 14: the outcome is shown; a view with odd or missing data still renders."""
    view = {**view_of("busy"), "outcome": {"corteo": 40, "potere": 20, "final": 20, "level": "vittoria",
                                          "verdict": 20}}
    assert "vittoria" in texts(cr.render_svg(view))
    odd = {"units": [{"id": "X", "loc": "Q99"}, "junk", {"id": "MOV1", "loc": "B2", "side": "corteo"}],
           "focus": ["ZZ9", 3], "barricades": [{"hex": None}], "log": [{"steps": [{"path": ["A1", "nowhere"]}]}],
           "score": None, "zoc": "x", "show_zoc": True, "prison": ["nobody"]}
    doc = cr.render_svg(odd)
    assert texts(doc)
    assert svg_to_png(doc, width=400).startswith(b"\x89PNG")


def test_the_city_is_a_static_part_built_once_per_language():
    """The static City is cached (pbem.render.cache.static_part): no timing, just the cache counts."""
    cache.clear()
    cr.render_svg(view_of("start"))
    cr.render_svg(view_of("busy"))
    info = cr._static_city.cache_info()
    assert info.misses == 1 and info.hits == 1
    assert document("start").count("<!--pbem:static-->") == 2  # the City, the detail's ground
