"""Where the map's texts go (issue 19.7: a label hides nothing): no text covers another, names go
around the counters, the results' plates around counters and hex labels, nothing is drawn half cut
by the detail's frame, and the outcome (C 14) reads in words in the score's box. The texts' boxes
are read back from the SVG document (`tests.render.labels`)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pbem.games.corteo import render as cr
from pbem.games.corteo.render_pieces import _stack_offsets
from pbem.games.corteo.city import load_city
from tests.games.corteo.test_render import document, view_of
from tests.render.labels import Label, collisions, labels

CITY = load_city()
SVG_NS = "{http://www.w3.org/2000/svg}"


def detail_labels(doc: str) -> list[Label]:
    """The texts drawn inside the detail's clipped groups (its static ground, its pieces and names)."""
    root = ET.fromstring(doc)
    groups = [g for g in root.iter(f"{SVG_NS}g") if g.get("clip-path") == "url(#detail-clip)"]
    assert len(groups) == 2
    inner = "".join(ET.tostring(g, encoding="unicode") for g in groups)
    return labels(f'<svg xmlns="http://www.w3.org/2000/svg">{inner}</svg>')


def counter_squares(view: dict) -> list[tuple[float, float, float, float]]:
    """The detail's counters as (x0, y0, x1, y1), laid out as the map lays them (C 9: two a hex)."""
    geo, hexes = cr.detail_geometry(view)
    by_hex: dict[str, int] = {}
    for u in view["units"]:
        if isinstance(u.get("loc"), str) and CITY.parse(u["loc"]) in hexes:
            by_hex[u["loc"]] = by_hex.get(u["loc"], 0) + 1
    out = []
    for loc, count in by_hex.items():
        cx, cy = geo.centre(CITY.hex(loc))
        offsets, scale = _stack_offsets(count, geo.r)
        size = geo.r * scale
        out += [(cx + dx - size / 2, cy + dy - size / 2, cx + dx + size / 2, cy + dy + size / 2) for dx, dy in offsets]
    return out


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("name", ["start", "busy"])
def test_no_text_covers_another(name: str, lang: str) -> None:
    """The start (the Corteo packed on Piazza Mento) and hand 4 (fights, throws, an arrest, pieces):
    no name under a counter's id, no result over a hex label, one number per hand on the track."""
    found = [f"{a.text!r} over {b.text!r}" for a, b in collisions(document(name, lang))]
    assert not found, found


@pytest.mark.parametrize("name", ["start", "busy"])
def test_names_go_around_the_counters(name: str) -> None:
    """A square's or a street's name on the detail covers no counter: Piazza Mento is named beside
    the Corteo that fills it."""
    doc = document(name)
    squares = counter_squares(view_of(name))
    assert squares
    names = {n for n in [s.name for s in CITY.squares] + [s.name for s in CITY.streets]}
    shown = [lab for lab in detail_labels(doc) if lab.text in names]
    assert shown
    for lab in shown:
        for x0, y0, x1, y1 in squares:
            assert min(lab.x1, x1) - max(lab.x0, x0) <= 0.5 or min(lab.y1, y1) - max(lab.y0, y0) <= 0.5, lab
    if name == "start":
        assert "Piazza Mento" in {lab.text for lab in shown}


@pytest.mark.parametrize("name", ["start", "busy"])
def test_nothing_is_drawn_half_cut_by_the_detail_frame(name: str) -> None:
    """A text of the detail is wholly inside its frame, or not drawn: a cut name or a hex label of
    the next hex would stand over the panel's and the title's texts in the document."""
    for lab in detail_labels(document(name)):
        assert cr.VIEW_X <= lab.x0 and lab.x1 <= cr.VIEW_X + cr.VIEW_W, lab
        assert cr.VIEW_Y <= lab.y0 and lab.y1 <= cr.VIEW_Y + cr.VIEW_H, lab


@pytest.mark.parametrize(("lang", "words"), [("en", "Rout of the Corteo"), ("it", "Disfatta del Corteo")])
def test_the_outcome_reads_in_words_in_the_score_box(lang: str, words: str) -> None:
    """C 14: the level in words (not its key), in the score's box of the panel, covering no name
    of the City."""
    view = {**view_of("busy", lang), "outcome": {"corteo": 0, "potere": 58, "final": -58, "level": "corteo-rout"}}
    doc = cr.render_svg(view)
    found = [lab for lab in labels(doc) if words in lab.text]
    assert found and all(lab.x0 >= cr.PANEL_X for lab in found), found
    assert not any("corteo-rout" in lab.text for lab in labels(doc))
    assert not collisions(doc)
