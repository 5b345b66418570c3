"""The map of Corteo, its style: the layout's geometry, the colours, the texts' helpers.

Shared by the static City (:mod:`pbem.games.corteo.render_city`), the pieces and counters
(:mod:`pbem.games.corteo.render_pieces`) and the document (:mod:`pbem.games.corteo.render`).
"""

from __future__ import annotations

import functools
import math
from typing import Final

from pbem.core.i18n import Catalog, msg
from pbem.games.corteo.city import City, Hex, load_city
from pbem.render import svg
from pbem.render.svg import Point


# -- geometry ---------------------------------------------------------------------------------

SQRT3: Final = math.sqrt(3)
SQRT2: Final = math.sqrt(2)
ROWS: Final = 26
COLS: Final = 40
WIDTH: Final = 1600.0
PAD: Final = 14.0
TITLE_H: Final = 54.0
COORD_M: Final = 16.0  # room for the edge coordinates
MAP_X: Final = PAD + COORD_M
MAP_W: Final = WIDTH - 2 * (PAD + COORD_M)
R: Final = MAP_W / ((COLS + 0.5) * SQRT3)  # circumradius of a hex on the whole map
MAP_Y: Final = TITLE_H + COORD_M
MAP_H: Final = (ROWS * 1.5 + 0.5) * R
BAND_Y: Final = MAP_Y + MAP_H + COORD_M + 10
DETAIL_X: Final = PAD
DETAIL_W: Final = 1030.0
DETAIL_H: Final = 690.0
DETAIL_HEAD: Final = 30.0
VIEW_X: Final = DETAIL_X + 6
VIEW_Y: Final = BAND_Y + DETAIL_HEAD
VIEW_W: Final = DETAIL_W - 12
VIEW_H: Final = DETAIL_H - DETAIL_HEAD - 6
PANEL_X: Final = DETAIL_X + DETAIL_W + 12
PANEL_W: Final = WIDTH - PAD - PANEL_X
LEGEND_Y: Final = BAND_Y + DETAIL_H + 12
LEGEND_H: Final = 112.0
HEIGHT: Final = LEGEND_Y + LEGEND_H + PAD
DETAIL_R_MIN: Final = 36.0
DETAIL_R_MAX: Final = 52.0

#: Corner indices (see :meth:`Geo.corners`) of each side of a hex.
SIDE_CORNERS: Final = {"E": (0, 1), "SE": (1, 2), "SW": (2, 3), "W": (3, 4), "NW": (4, 5), "NE": (5, 0)}


class Geo:
    """Where the hexes lie: ``(ox, oy)`` is the top-left of the map's bounding box, ``r`` the
    hexes' circumradius."""

    __slots__ = ("ox", "oy", "r", "w")

    def __init__(self, ox: float, oy: float, r: float) -> None:
        self.ox, self.oy, self.r = ox, oy, r
        self.w = SQRT3 * r

    def centre(self, h: Hex) -> Point:
        return (self.ox + self.w * (h.col + 0.5 + 0.5 * (h.row & 1)), self.oy + self.r * (1 + 1.5 * h.row))

    def corners(self, h: Hex, scale: float = 1.0) -> list[Point]:
        """Upper-right, lower-right, bottom, lower-left, upper-left, top (clockwise on screen)."""
        cx, cy = self.centre(h)
        r = self.r * scale
        return [(cx + r * math.cos(math.radians(60 * k - 30)), cy + r * math.sin(math.radians(60 * k - 30)))
                for k in range(6)]

    def side(self, h: Hex, direction: str) -> tuple[Point, Point]:
        c = self.corners(h)
        a, b = SIDE_CORNERS[direction]
        return c[a], c[b]


WHOLE: Final = Geo(MAP_X, MAP_Y, R)

# -- colours -----------------------------------------------------------------------------------------

#: The original's palette (C 1d): white streets, grey viali, light blue crowded places, brown
#: buildings, red case popolari, yellow objectives, violet barracks, green gardens.
TERRAIN_FILL: Final[dict[str, str]] = {
    "strada": "#ffffff",
    "viale": "#c9c9c4",
    "discesa": "#eadfc4",
    "salita": "#eadfc4",
    "scale": "#e3dccb",
    "giardino": "#86c06c",
    "caseggiato": "#a57a52",
    "fiume": "#5b9bd5",
    "case_popolari": "#d2453b",
    "affollato": "#a9dcf2",
    "obiettivo": "#f6d32d",
    "caserma": "#8a5aa8",
    "metro": "#ffffff",
}
TERRAIN_ORDER: Final = ("strada", "viale", "discesa", "salita", "scale", "giardino", "caseggiato", "fiume",
                        "case_popolari", "affollato", "obiettivo", "caserma", "metro")
MESH: Final = "#8d8577"
DETAIL_MESH: Final = "#aaa394"
WALL: Final = "#4a2e17"
GATE: Final = "#d9b36c"
RIVER_EDGE: Final = "#2f6ea5"
RIVER_WAVE: Final = "#a9cbec"
SLOPE_INK: Final = "#8a6a3a"
METRO_RED: Final = "#d7261e"
CASERMA_INK: Final = "#3e1f55"
OBJ_INK: Final = "#3b2f00"
PRISON_BARS: Final = "#2b1a0e"
CLINIC_RED: Final = "#d7261e"
CORTEO_INK: Final = "#d55e00"  # arrows, hatching: Okabe-Ito vermillion
POTERE_INK: Final = "#0b5fa5"  # Okabe-Ito blue, darkened
HEAD_GOLD: Final = "#f2b700"
HEAD_EDGE: Final = "#6b4e00"
LINK_RED: Final = "#e0584f"
BARRICADE_DARK: Final = "#2b2a27"
BARRICADE_LIGHT: Final = "#f0b429"
SMOKE: Final = "#cfd2d4"
SMOKE_EDGE: Final = "#6f7478"
COVER: Final = "#7a5232"
COVER_EDGE: Final = "#3d2815"
HELD: Final = "#e0590b"
FIGHT: Final = "#b8321a"
DETAIL_FRAME: Final = "#111111"

#: Component colours of tables.toml: (fill, band, border, ink). The band is the second colour of
#: a two-colour counter (biancorosso, giallorosso, rossogrigio).
COMPONENT_COLOURS: Final[dict[str, tuple[str, str, str, str]]] = {
    "rosso": ("#d62a20", "#d62a20", "#6e1510", "#ffffff"),
    "biancorosso": ("#ffffff", "#d62a20", "#8a1a14", "#8a1a14"),
    "verde": ("#1f9a4c", "#1f9a4c", "#0c4a22", "#ffffff"),
    "rosa": ("#f5a3c7", "#f5a3c7", "#a3506f", "#3a1024"),
    "giallorosso": ("#f7d33a", "#d62a20", "#7a1a10", "#5a1008"),
    "rossogrigio": ("#d62a20", "#8f8f8f", "#5a1410", "#ffffff"),
    "arancio": ("#f08a24", "#f08a24", "#7a4000", "#2a1500"),
    "bianco": ("#ffffff", "#ffffff", "#555555", "#222222"),
}
UNKNOWN_COLOURS: Final = ("#e0dccf", "#e0dccf", "#6b675e", "#2b2a27")
#: The power's counters by type: (fill, ink); dark blue and grey, a symbol for each type.
POWER_COLOURS: Final[dict[str, tuple[str, str]]] = {
    "blindati": ("#26313f", "#ffffff"),
    "celere": ("#1d4f91", "#ffffff"),
    "lacrimogeni": ("#3d6480", "#ffffff"),
    "carabinieri": ("#14213d", "#ffffff"),
    "piantoni": ("#5f6f80", "#ffffff"),
    "vigili": ("#8595a6", "#10161c"),
    "finanza": ("#4f5b46", "#ffffff"),
}
POWER_EDGE: Final = "#0a0f18"
PANICKED: Final = ("#a7a7a2", "#3b3b38")
POWER_TYPES: Final = ("blindati", "celere", "lacrimogeni", "carabinieri", "piantoni", "vigili", "finanza")

CORTEO: Final = "corteo"
POTERE: Final = "potere"
SIDE_INK: Final = {CORTEO: CORTEO_INK, POTERE: POTERE_INK}


# -- texts -----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _render_texts() -> Catalog:
    return Catalog.from_package("pbem.games.corteo.data", "render.toml")


@functools.lru_cache(maxsize=1)
def _catalog() -> Catalog:
    try:
        base = Catalog.from_package("pbem.games.corteo.data")
    except (FileNotFoundError, OSError):
        base = Catalog()
    return base.merged(_render_texts()).merged(Catalog.from_package("pbem.games.corteo.data", "scenario_texts.toml"))


def _text(catalog: Catalog, lang: str, key: str, **args: object) -> str:
    return catalog.text(msg(key, **args), lang)


def _maybe(catalog: Catalog, lang: str, key: str, default: str, **args: object) -> str:
    if catalog.has(key, lang) or catalog.has(key):
        return _text(catalog, lang, key, **args)
    return default


def _fit(text: str, size: float, width: float, bold: bool = False) -> str:
    if svg.text_width(text, size, bold=bold) <= width:
        return text
    while len(text) > 2 and svg.text_width(text + "…", size, bold=bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


@functools.lru_cache(maxsize=1)
def _city() -> City:
    return load_city()


@functools.lru_cache(maxsize=1)
def _component_colour() -> dict[str, str]:
    from pbem.games.corteo.tables import TABLES

    return {c.key: c.colour for c in TABLES.components}


def _hex(label: object) -> Hex | None:
    if not isinstance(label, str):
        return None
    return _city().parse(label)
