"""Block Mania's map style: the sheet's geometry, its colours, the seats' colours and symbols, the
map's words (the game's whole catalog with the map's own texts) and the small shapes every layer
draws (shared by the map, its panel and the tests)."""

from __future__ import annotations

import functools
import math
from typing import Final

from pbem.core.i18n import Catalog, msg
from pbem.render import svg, theme
from pbem.render.svg import Path, Point

# -- geometry ---------------------------------------------------------------------------------------

CELL: Final = 60.0
PAD: Final = 16.0
TITLE_H: Final = 64.0
MAP_X: Final = PAD + 26.0  # room for the level numbers
MAP_Y: Final = TITLE_H + 8.0
BLOCKS_PER_ROW: Final = 2
ROW_HEAD: Final = 34.0  # block names above a row
ROW_FOOT: Final = 22.0  # column letters below a row
ROW_GAP: Final = 18.0
ROW_COLS: Final = 19  # two maps of 10 columns joined: 9 + 9 + 1
MAP_W: Final = ROW_COLS * CELL
PANEL_X: Final = MAP_X + MAP_W + 30.0
PANEL_W: Final = 410.0
WIDTH: Final = PANEL_X + PANEL_W + PAD
LEGEND_H: Final = 150.0

BIG: Final = 44.0  # a lone Blocker
SMALL: Final = 26.0  # up to four in a square

# -- colours ----------------------------------------------------------------------------------------

SKY: Final = "#e8f0f6"
SKY_GRID: Final = "#d3dee8"
PLAZA: Final = "#d8d0bf"
PLAZA_LINE: Final = "#bfb5a0"
ROAD: Final = "#6f6d6a"
ROAD_LINE: Final = "#f0d36a"
WALKWAY: Final = "#a99f8c"
RAIL: Final = "#7b8594"
RAIL_LIGHT: Final = "#b9c2cf"
WALL: Final = "#2f3a46"
GRID_LINE: Final = "#6c7886"
#: 1.ii: residential blue, Civic green, special yellow; (Window, Interior).
SQUARE_FILL: Final = {
    "residential": ("#cfe3f5", "#93bfe6"),
    "civic": ("#cdeee0", "#8fd3b6"),
    "special": ("#fbeeb6", "#f1d267"),
}
GLASS: Final = "#ffffff"
ADDRESS_INK: Final = "#1d3f60"
LABEL_INK: Final = "#2b2a27"
LIFT: Final = "#4a5563"
CHUTE: Final = "#3f4b8c"
SPRINKLER: Final = "#c62828"
FIRE: Final = "#e8601c"
FIRE_CORE: Final = "#ffd23f"
HAZARD: Final = "#f0b429"
RUBBLE: Final = "#5d5852"
RUBBLE_LINE: Final = "#8e887f"
SCRAWL: Final = "#cc3399"
LOOT: Final = "#2e7d32"
SHOT: Final = "#8b1a1a"
FALLEN_GREY: Final = "#8a8a8a"
JUDGES: Final = "#1b2a6b"  # a Judges marker (12.ii): the Justice Department's dark blue
LOCKED: Final = "#c62828"
ARMOURY_PIP: Final = ("#5a2a1a", "#ffffff")
HARDWARE_PIP: Final = ("#d9d4c7", "#2b2a27")

#: Seats onto the theme's colour-blind-safe slots, with a symbol each (never colour alone).
SEAT_SLOTS: Final = {"red": "vermillion", "blue": "blue", "green": "green", "yellow": "yellow", "white": "sky",
                     "black": "purple"}
SEAT_SHAPES: Final = {"red": "circle", "blue": "square", "green": "triangle", "yellow": "diamond", "white": "star",
                      "black": "hexagon"}
#: Ink on a counter of the seat's colour.
SEAT_INK: Final = {"yellow": "#1f1a10"}

#: Short names of the Blocker types on their counters (the roster's keys).
SHORT: Final = {"spugs": "SPU", "juves": "JUV", "crocks": "CRK", "futsie": "FUT", "citi-def": "CDF",
                "fatty": "FAT", "mob": "MOB", "superhero": "SUP", "klegg": "KLG", "jaeger": "JAG"}
HARDWARE: Final = frozenset({"spray-can", "bat-suit", "power-board", "sucker-gun", "vibro-drill", "nail-gun",
                             "power-saw"})
MOVE_NOTES: Final = frozenset({"note-walk", "note-lift", "note-chute", "note-fly", "note-pedway", "note-skyrail",
                               "note-megaway"})
SHOT_NOTES: Final = frozenset({"note-combat-shoots", "note-defensive-fire"})


def seat_colours(seat: str) -> theme.SideColours:
    return theme.side_colours(SEAT_SLOTS.get(seat, ""))


# -- texts ------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _render_texts() -> Catalog:
    return Catalog.from_package("pbem.games.blockmania.data", "render.toml")


@functools.lru_cache(maxsize=1)
def _catalog() -> Catalog:
    """The game's whole catalog (the turn's notes come from every rule module) and the map's own texts."""
    from pbem.games.blockmania.engine import catalog

    return catalog().merged(_render_texts())


def _text(catalog: Catalog, lang: str, key: str, **args: object) -> str:
    return catalog.text(msg(key, **args), lang)


def _maybe(catalog: Catalog, lang: str, key: str, fallback: str) -> str:
    return _text(catalog, lang, key) if catalog.has(key) or catalog.has(key, lang) else fallback


def _seat_name(catalog: Catalog, lang: str, seat: str) -> str:
    return _maybe(catalog, lang, f"map-seat-{seat}", seat)


# -- shapes -----------------------------------------------------------------------------------------


def _shape(p: Path, shape: str, cx: float, cy: float, r: float) -> None:
    if shape == "square":
        p.rect(cx - r * 0.85, cy - r * 0.85, r * 1.7, r * 1.7)
    elif shape == "triangle":
        p.polygon([(cx, cy - r), (cx + r, cy + r * 0.8), (cx - r, cy + r * 0.8)])
    elif shape == "diamond":
        p.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)])
    elif shape == "star":
        p.polygon(_star(cx, cy, r * 1.1, r * 0.45, 5))
    elif shape == "hexagon":
        p.polygon([(cx + r * math.cos(math.pi / 3 * i), cy + r * math.sin(math.pi / 3 * i)) for i in range(6)])
    else:
        p.circle(cx, cy, r)


def _star(cx: float, cy: float, r_out: float, r_in: float, points: int) -> list[Point]:
    pts = []
    for i in range(points * 2):
        r = r_out if i % 2 == 0 else r_in
        a = math.pi * i / points
        pts.append((cx + math.sin(a) * r, cy - math.cos(a) * r))
    return pts


def _flame(p: Path, cx: float, cy: float, s: float) -> None:
    """A flame ``s`` tall with its base centred at (cx, cy)."""
    n = svg.num
    p.raw(f"M{n(cx)},{n(cy)}c{n(-s * 0.42)},0 {n(-s * 0.5)},{n(-s * 0.42)} {n(-s * 0.28)},{n(-s * 0.7)}"
          f"c{n(s * 0.05)},{n(s * 0.18)} {n(s * 0.14)},{n(s * 0.2)} {n(s * 0.18)},{n(s * 0.1)}"
          f"c{n(-s * 0.02)},{n(-s * 0.2)} {n(s * 0.06)},{n(-s * 0.32)} {n(s * 0.1)},{n(-s * 0.4)}"
          f"c{n(s * 0.06)},{n(s * 0.2)} {n(s * 0.4)},{n(s * 0.36)} {n(s * 0.4)},{n(s * 0.62)}"
          f"c0,{n(s * 0.24)} {n(-s * 0.12)},{n(s * 0.38)} {n(-s * 0.4)},{n(s * 0.38)}z")


def _hazard(p: Path, cx: float, cy: float, r: float) -> None:
    p.polygon([(cx, cy - r), (cx + r * 1.05, cy + r * 0.8), (cx - r * 1.05, cy + r * 0.8)])


def _squiggle(p: Path, x: float, y: float, w: float) -> None:
    n = svg.num
    step = w / 4
    p.move(x, y)
    for i in range(4):
        dy = -5 if i % 2 == 0 else 5
        p.raw(f"q{n(step / 2)},{n(dy * 1.6)} {n(step)},0")
