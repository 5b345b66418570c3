"""One visual family for every game's map: paper, ink, fonts and side colours.

Every renderer takes its colours from here, so a Kriegspiel board, a hex city
map and a round board look as if the same hand drew them. Colours are plain
``#rrggbb`` strings (cairosvg and every browser read them), opacities are
floats in ``0..1`` and sizes are SVG user units.

The side palette follows Okabe & Ito's colour-blind-safe set: the pairs stay
distinct under protanopia, deuteranopia and tritanopia, and each side also
gets its own outline shape in the renderers, so colour is never the only cue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: Font stack: DejaVu Sans is installed on the servers (fonts-dejavu-core) and
#: is the only family cairo is asked for; the rest is for browsers.
FONT_FAMILY: Final = "DejaVu Sans, Verdana, sans-serif"
FONT_FAMILY_CONDENSED: Final = "DejaVu Sans Condensed, DejaVu Sans, Arial Narrow, sans-serif"
FONT_FAMILY_MONO: Final = "DejaVu Sans Mono, monospace"

# Paper and ink -------------------------------------------------------------
PAPER: Final = "#f7f4ec"  # the page around the board
PAPER_DARK: Final = "#ebe6d8"  # panels, legend background
INK: Final = "#2b2a27"  # titles, coordinates, labels
INK_SOFT: Final = "#6b675e"  # secondary text
HALO: Final = "#ffffff"  # halo behind text drawn over the map
GRID: Final = "#bdb6a4"  # the square grid
FRAME: Final = "#4a463e"  # the board's outer frame

# Terrain -------------------------------------------------------------------
MOUNTAIN: Final = "#8c7a66"  # impassable squares
MOUNTAIN_RIDGE: Final = "#5a4b3c"  # the peaks drawn on them
MOUNTAIN_SNOW: Final = "#efe9df"  # snow caps
PASS: Final = "#e6d39a"  # a pass through the mountains
PASS_INK: Final = "#7a6440"
FORT: Final = "#d4cfc3"  # fortress squares
FORT_INK: Final = "#55504a"
WATER: Final = "#9cc3de"  # rivers, bays (later maps)
ROAD: Final = "#c9b99a"  # roads, transit lines (later maps)
RUIN: Final = "#77736b"  # destroyed objectives

# Map annotations -------------------------------------------------------------
ATTACK: Final = "#1a1a1a"  # the ring around an attacked square
FORCED: Final = "#b8860b"  # forced moves (retreats) and retreat badges
RETREAT_BADGE: Final = "#f0b429"
DISCONNECTED: Final = "#9a9a9a"  # units cut off from their lines
CAPTURED_OPACITY: Final = 0.55
LINE_OPACITY: Final = 0.38  # lines of communication
LINE_WIDTH: Final = 3.0


@dataclass(frozen=True, slots=True)
class SideColours:
    """The colours of one side (seat, faction) on every map."""

    name: str
    main: str  # strong colour: unit frames, arrows, lines
    dark: str  # symbols inside frames, text in the side's colour
    light: str  # frame fill, territory highlights
    tint: str  # very pale wash for the side's territory


#: Side colours keyed by a neutral slot name; games map their seats onto these
#: slots (Kriegspiel: north -> blue, south -> vermillion).
SIDES: Final[dict[str, SideColours]] = {
    "blue": SideColours("blue", main="#0b6fb8", dark="#083a63", light="#b9dcf4", tint="#e6eef4"),
    "vermillion": SideColours(
        "vermillion", main="#d55e00", dark="#6e2a00", light="#f8cfae", tint="#f5ebe0"
    ),
    "green": SideColours("green", main="#009e73", dark="#00503a", light="#b3e6d6", tint="#e6f2ec"),
    "purple": SideColours("purple", main="#8a4f9e", dark="#43204f", light="#e1c9ea", tint="#f0e9f2"),
    "yellow": SideColours("yellow", main="#c79a00", dark="#5c4700", light="#f6e6a6", tint="#f6f1de"),
    "sky": SideColours("sky", main="#3a9ad9", dark="#154b70", light="#cbe6f6", tint="#eaf3f8"),
}

#: A neutral colour set, for things that belong to no side.
NEUTRAL: Final = SideColours("neutral", main="#6b675e", dark="#2b2a27", light="#dcd8cf", tint="#f1efe9")


def side_colours(slot: str) -> SideColours:
    """The colours of a side slot; unknown slots fall back to :data:`NEUTRAL`."""
    return SIDES.get(slot, NEUTRAL)


# Type scale (user units at the reference board scale) -----------------------
TITLE_SIZE: Final = 22.0
SUBTITLE_SIZE: Final = 14.0
LABEL_SIZE: Final = 13.0
COORD_SIZE: Final = 12.0
LEGEND_SIZE: Final = 12.0
HALO_WIDTH: Final = 3.5


def rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` (or ``"#rgb"``) as an ``(r, g, b)`` tuple of 0..255 ints."""
    value = colour.lstrip("#")
    if len(value) == 3:
        value = "".join(ch * 2 for ch in value)
    if len(value) != 6:
        raise ValueError(f"not a #rrggbb colour: {colour!r}")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
