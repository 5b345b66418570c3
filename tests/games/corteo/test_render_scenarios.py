"""The map of a scenario (D): the mobile objectives drawn where they are, the rally's pieces in
hospital, the stop in front of the embassy, the running tally in the title bar, in both languages.
Real PNGs, decoded and checked."""

from __future__ import annotations

import io
import re
from dataclasses import replace

from PIL import Image

from pbem.games.corteo import RULES
from pbem.games.corteo import render as cr
from pbem.games.corteo.render_scenario import PRESIDENTIAL, RALLY, STOP_EDGE
from pbem.games.corteo.state import Mobile, Tally
from pbem.render import svg_to_png
from tests.games.corteo.test_render import count_near
from tests.games.corteo.test_scenarios import scene


def picture(doc: str) -> Image.Image:
    return Image.open(io.BytesIO(svg_to_png(doc, 1600))).convert("RGB")


def test_the_motorcade_and_the_stop_on_the_map():
    """D Internazionalista: the five pieces of the Corteo Presidenziale are drawn on their hexes (black
    cars with a gold rim), the five hexes in front of the embassy are marked, the tally is in the title."""
    state = scene("internazionalista", {"MOV1": "B3", "MOV2": "B4"}, pieces={"PRE1": "M18", "PRE2": "M35"},
                  heads=("MOV1", "MOV2"), hand=4,
                  tally=(Tally(3, "corteo", "cross", 20), Tally(4, "potere", "stop", 10)))
    view = dict(RULES.view(state, "corteo"))
    doc = RULES.render(view)
    img = picture(doc)
    on = count_near(img, cr.whole_map_point("M18"), cr.R * 0.5, PRESIDENTIAL[0], tolerance=20)
    off = count_near(img, cr.whole_map_point("M20"), cr.R * 0.5, PRESIDENTIAL[0], tolerance=20)
    assert on > 30 and off < on / 4, (on, off)
    assert count_near(img, cr.whole_map_point("M35"), cr.R * 0.7, PRESIDENTIAL[1], tolerance=30) > 10
    assert count_near(img, cr.whole_map_point("M33"), cr.R * 0.6, STOP_EDGE, tolerance=40) > 10
    text = " ".join(re.findall(r">([^<]+)<", doc))
    assert "Scenario Internazionalista" in text and "3:+20C" in text and "4:+10P" in text


def test_the_rally_in_hospital_and_in_italian():
    """D Antifascista: a rally piece sent to hospital is drawn on the clinic; the report and map speak
    Italian when asked."""
    state = scene("antifascista", {"MOV1": "B3"}, pieces={"COM1": "G22"}, hand=3)
    hospital = replace(state, mobiles=tuple(m if m.id != "COM1" else Mobile("COM1", "W23", "clinic", 3)
                                            for m in state.mobiles))
    view = dict(RULES.view(hospital, None))
    view["lang"] = "it"
    doc = RULES.render(view)
    img = picture(doc)
    assert count_near(img, cr.whole_map_point("W23"), cr.R * 0.5, RALLY[0], tolerance=24) > 20
    assert count_near(img, cr.whole_map_point("G22"), cr.R * 0.5, RALLY[0], tolerance=24) < 5
    assert "Scenario Antifascista" in doc and "Punti dello scenario" in doc
    report = RULES.describe(RULES.view(hospital, None), "it")
    assert "COM1 all'ospedale (W23)" in report and "Dissidenti del POC" not in report
    assert "COM1 in hospital (W23)" in RULES.describe(RULES.view(hospital, None), "en")


def test_the_secret_place_on_the_corteo_map_only():
    """D Sociale: the corteo's map tints its secret place of formation; the power's map of the same
    position has nothing there ("Il foglio non si scopre e rimane segreto per tutto il gioco se il
    giocatore-corteo non è riuscito a raggiungere il luogo prescelto"). Sociale has no square."""
    from pbem.games.corteo.render_scenario import SECRET_EDGE
    from tests.games.corteo.test_scenarios import SECRET

    state = scene("sociale", {"MOV1": "K20"}, hand=3, secret=SECRET)
    mine = picture(RULES.render(dict(RULES.view(state, "corteo"))))
    theirs = picture(RULES.render(dict(RULES.view(state, "potere"))))
    on = count_near(mine, cr.whole_map_point("D6"), cr.R * 0.6, SECRET_EDGE, tolerance=40)
    assert on > 10 and count_near(theirs, cr.whole_map_point("D6"), cr.R * 0.6, SECRET_EDGE, tolerance=40) < on / 5
    assert count_near(mine, cr.whole_map_point("K20"), cr.R * 0.6, SECRET_EDGE, tolerance=40) < on / 5
    assert RULES.view(state, "corteo")["scenario"]["square_hexes"] == []
