"""The marks on Block Mania's squares, each count placed where it covers no other text (issue 19.7).

A square carries its address and name (the static sheet), up to four Blocker counters with their
type, number and Strength-Move, and the marks of the game: Structural Damage (a hazard triangle with
its count, 9.ii), Fires (a flame with its count, 10.i), a Collapse (rubble, 9.iii), a Scrawl (8.viii),
loot (8.vii), a transit status and the Judges (12). The counts go to the first of their spots in the
square whose text box meets no text already there (`Room`), the symbol beside its count; a fallen
block's word goes beside its name above the row (10.iii), where it hides no address.

The boxes are measured as the map is laid out: `pbem.render.svg.text_width` and a line from 0.78 of
the font size above the baseline to 0.22 below it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pbem.core.i18n import Catalog
from pbem.games.blockmania.blocks import Loc, Square
from pbem.games.blockmania.mapstyle import (
    CELL,
    FALLEN_GREY,
    FIRE,
    FIRE_CORE,
    HAZARD,
    JUDGES,
    LOOT,
    RUBBLE,
    RUBBLE_LINE,
    SCRAWL,
    SHOT,
    _catalog,
    _flame,
    _hazard,
    _maybe,
    _squiggle,
    _text,
)
from pbem.render import svg
from pbem.render.svg import Path
from pbem.render.viewdata import as_dicts as _dicts, as_int as _int, as_strs as _strs

if TYPE_CHECKING:
    from pbem.games.blockmania.render import Layout

Box = tuple[float, float, float, float]  # left, top, right, bottom

#: Where each count may go in its square, best first: (dx, dy) of the text's anchor from the top-left
#: corner. Damage keeps the top left (under the address when it must), fire the top right, loot the
#: bottom right; the side margins beside a lone counter come next.
DAMAGE_SPOTS = ((11, 17.5), (5, 36), (11, 33), (11, 50), (30, 57))
FIRE_SPOTS = ((49, 22), (55.5, 36), (49, 36), (49, 50), (30, 22))
LOOT_SPOTS = ((49, 53), (55.5, 22), (11, 53))
TRANSIT_SPOTS = ((30, 57), (30, 12), (30, 34))
ADDRESS_SIZE = 11.0
HEAD_SIZE = 15.0  # the block names above a row (render._frames)


def text_box(x: float, y: float, text: str, size: float, *, bold: bool = False, anchor: str = "middle") -> Box:
    width = svg.text_width(text, size, bold=bold)
    left = x - (width / 2 if anchor == "middle" else width if anchor == "end" else 0)
    return left, y - 0.78 * size, left + width, y + 0.22 * size


def _meets(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


class Room:
    """The texts already on the map, bucketed by square, and free spots for more."""

    def __init__(self, boxes: Iterable[Box] = ()) -> None:
        self._cells: dict[tuple[int, int], list[Box]] = {}
        for box in boxes:
            self.take(box)

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        for i in range(int(box[0] // CELL), int(box[2] // CELL) + 1):
            for j in range(int(box[1] // CELL), int(box[3] // CELL) + 1):
                yield i, j

    def free(self, box: Box) -> bool:
        return not any(_meets(box, other) for key in self._keys(box) for other in self._cells.get(key, ()))

    def take(self, box: Box) -> None:
        for key in self._keys(box):
            self._cells.setdefault(key, []).append(box)

    def place(self, x: float, y: float, spots: Iterable[tuple[float, float]], text: str, size: float,
              bold: bool = True) -> tuple[float, float]:
        """The first spot (from the square's corner at x, y) where ``text`` meets no text, taken; the
        first spot when none is free."""
        chosen = None
        for dx, dy in spots:
            if chosen is None:
                chosen = (x + dx, y + dy)
            if self.free(text_box(x + dx, y + dy, text, size, bold=bold)):
                chosen = (x + dx, y + dy)
                break
        assert chosen is not None
        self.take(text_box(*chosen, text, size, bold=bold))
        return chosen


def square_label(sq: Square, catalog: Catalog, lang: str) -> tuple[str, str]:
    """(address, name) printed in a Window or Interior square."""
    code = sq.kind.code
    address = f"{sq.address:02d}" if sq.address is not None else ""
    name = "" if code == "RS" else _maybe(catalog, lang, f"map-kind-{code}", sq.kind.name)
    return address, name


def name_size(name: str) -> float:
    """A square's name in one line: 9.5, or 8 when it is wider than the square."""
    return 9.5 if svg.text_width(name, 9.5) <= CELL - 6 else 8.0


def addresses(layout: Layout) -> tuple[tuple[Loc, float, float, str], ...]:
    """Every address of the map (5.ii) and where it is printed, in each cell showing its square. The
    map draws them with the counters, not on the sheet: a square with two or more Blockers has its
    first counter over the address, and its address is left out."""
    return _addresses(layout, tuple(b.id for b in layout.blocks))


@functools.lru_cache(maxsize=8)
def _addresses(layout: Layout, _ring: tuple[str, ...]) -> tuple[tuple[Loc, float, float, str], ...]:
    out = []
    for _r, x, level, (px, py) in layout.cells():
        loc, sq = layout.square_at(x, level)
        if not sq.is_open and sq.address is not None:
            out.append((loc, px + 4, py + 13, square_label(sq, _catalog(), "en")[0]))
    return tuple(out)


def address_box(x: float, y: float, text: str) -> Box:
    return text_box(x, y, text, ADDRESS_SIZE, bold=True, anchor="start")


def static_boxes(layout: Layout, lang: str) -> tuple[Box, ...]:
    """The boxes of the sheet's texts inside the map: the squares' names and the transit levels'
    names (the sheet's own texts, `_catalog`; once per ring and language)."""
    return _static_boxes(layout, tuple(b.id for b in layout.blocks), lang)


@functools.lru_cache(maxsize=8)
def _static_boxes(layout: Layout, _ring: tuple[str, ...], lang: str) -> tuple[Box, ...]:
    catalog = _catalog()
    out: list[Box] = []
    for _r, x, level, (px, py) in layout.cells():
        _loc, sq = layout.square_at(x, level)
        if sq.is_open:
            continue
        _address, name = square_label(sq, catalog, lang)
        if name:
            out.append(text_box(px + CELL / 2, py + CELL - 5, name, name_size(name)))
    for left, base, line in layout.transit_labels(catalog, lang):
        out.append(text_box(left, base, line, 8.5, anchor="start"))
    return tuple(out)


def square_marks(view: Mapping[str, Any], layout: Layout, catalog: Catalog, lang: str,
                 room: Room) -> tuple[str, str]:
    """(under the counters, over the counters): collapses; and damage, fires, scrawls, loot, transit."""
    rubble, rubble_x = Path(), Path()
    hazards, flames, cores, scrawls, loot = Path(), Path(), Path(), Path(), Path()
    counts: dict[str, list[tuple[float, float, str]]] = {}
    transit: list[tuple[float, float, str]] = []
    fire_counts: list[tuple[float, float, str]] = []
    judges = Path()
    judge_labels: list[tuple[float, float, str]] = []
    for name in _strs(view.get("judges")):
        loc = layout.parse(name)
        for x, y in layout.places(loc) if loc is not None else ():
            judges.rect(x + 2.5, y + 2.5, CELL - 5, CELL - 5)
            word = _text(catalog, lang, "map-judges")
            judge_labels.append(room.place(x, y, ((CELL / 2, CELL / 2 + 5), (CELL / 2, CELL - 6)), word, 12)
                                + (word,))
    for q in _dicts(view.get("squares")):
        loc = layout.parse(q.get("loc"))
        if loc is None:
            continue
        for x, y in layout.places(loc):
            if q.get("collapsed"):
                rubble.rect(x + 1, y + 1, CELL - 2, CELL - 2)
                for k in range(0, 5):
                    rubble_x.segment((x + 1 + k * 14, y + CELL - 1), (x + 1 + k * 14 + 12, y + CELL - 13))
                rubble_x.segment((x + 6, y + 6), (x + CELL - 6, y + CELL - 6))
                rubble_x.segment((x + CELL - 6, y + 6), (x + 6, y + CELL - 6))
            damage = _int(q.get("damage"))
            if damage:
                cx, cy = room.place(x, y, DAMAGE_SPOTS, str(damage), 10)
                _hazard(hazards, cx, cy - 6.5, 10)
                counts.setdefault("#1f1a10", []).append((cx, cy, str(damage)))
            fires = _int(q.get("fires"))
            if fires:
                cx, cy = room.place(x, y, FIRE_SPOTS, str(fires), 11)
                _flame(flames, cx, cy + 2, 24)
                _flame(cores, cx, cy + 1, 11)
                fire_counts.append((cx, cy, str(fires)))
            if q.get("scrawled"):
                _squiggle(scrawls, x + 6, y + CELL - 8, 22)
            if q.get("looted"):
                cx, cy = room.place(x, y, LOOT_SPOTS, "$", 10)
                loot.circle(cx, cy - 4, 8)
                counts.setdefault("#ffffff", []).append((cx, cy, "$"))
            status = str(q.get("transit") or "")
            if status:
                word = _maybe(catalog, lang, f"map-transit-{status}", status)
                transit.append(room.place(x, y, TRANSIT_SPOTS, word, 9) + (word,))
    under = [svg.path(rubble, fill=RUBBLE), svg.path(rubble_x, stroke=RUBBLE_LINE, stroke_width=2)]
    over = [svg.path(hazards, fill=HAZARD, stroke="#1f1a10", stroke_width=1.3, stroke_linejoin="round"),
            svg.path(flames, fill=FIRE, stroke="#7a2600", stroke_width=1),
            svg.path(cores, fill=FIRE_CORE),
            svg.path(scrawls, fill="none", stroke=SCRAWL, stroke_width=2.6, stroke_linecap="round"),
            svg.path(loot, fill=LOOT, stroke="#ffffff", stroke_width=1.2)]
    for ink, labels in counts.items():
        over.append(svg.text_run(labels, font_size=10, bold=True, fill=ink))
    over.append(svg.text_run(fire_counts, font_size=11, bold=True, fill="#3a1200", halo="#ffffff", halo_width=2.5))
    over.append(svg.path(judges, fill="none", stroke=JUDGES, stroke_width=4))
    over.append(svg.text_run(judge_labels, font_size=12, bold=True, fill=JUDGES, halo="#ffffff", halo_width=2.5))
    over += [svg.halo_text(x, y, s, font_size=9, font_weight="bold", fill=SHOT, text_anchor="middle")
             for x, y, s in transit]
    return "".join(under), "".join(over)


def fallen(view: Mapping[str, Any], layout: Layout, catalog: Catalog, lang: str) -> str:
    """A fallen block (10.iii): its squares greyed, its word after its name above the row."""
    grey = Path()
    labels: list[tuple[float, float, str]] = []
    gone = set(_strs(view.get("fallen")))
    for r, (_x0, _x1, idx) in enumerate(layout.rows):
        for i in idx:
            block = layout.blocks[i]
            if block.id not in gone:
                continue
            a = layout.offsets[i]
            left, top = layout.cell(r, a + 1, layout.levels)
            right, _ = layout.cell(r, a + block.width - 1, 1)
            grey.rect(left, top, right - left, layout.levels * CELL)
            bx0, _ = layout.cell(r, a, 1)
            bx1, _ = layout.cell(r, a + block.width - 1, 1)
            centre = (bx0 + bx1 + CELL) / 2
            labels.append((centre + svg.text_width(block.name, HEAD_SIZE, bold=True) / 2 + 10, top - 11,
                           "- " + _text(catalog, lang, "map-fallen")))
    if not grey:
        return ""
    return (svg.path(grey, fill=FALLEN_GREY, fill_opacity=0.72)
            + svg.text_run(labels, font_size=13, bold=True, anchor="start", fill=FALLEN_GREY))
