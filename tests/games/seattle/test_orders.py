"""The order syntax of docs/games/seattle.md: English and Italian keywords, areas by name, id or
a unique beginning, canonical forms, errors by line with a suggestion (architecture 2.3)."""

from __future__ import annotations

import pytest

from pbem.games.seattle import RULES
from pbem.games.seattle.orders import find_area
from pbem.games.seattle.state import RESERVE
from tests.games.seattle.helpers import orders, position

WHERE = {"AN1": "international-district", "OL1": "westlake", "SPD1": "westlake", "SPD2": RESERVE}


@pytest.mark.parametrize("written,area", [
    (["pike-place-market"], "pike-place-market"),
    (["Pike", "Place", "Market"], "pike-place-market"),
    (["pike"], "pike-place-market"),
    (["Hotel", "Westin"], "westin"),            # the Italian name
    (["Carcere", "della", "contea", "di", "King"], "king-county-jail"),
    (["convention_center"], "convention-center"),
])
def test_areas_are_read_by_name_id_or_beginning(written, area):
    """2.2: the areas of the map, written the way players write them."""
    found, used, _ = find_area([w.upper() for w in written])
    assert found == area and used == len(written)


def test_an_ambiguous_beginning_lists_the_candidates():
    found, _, candidates = find_area(["FIRST"])
    assert found is None and candidates == ["first-avenue", "first-hill"]


@pytest.mark.parametrize("text,canonical", [
    ("move an1 kingdome pioneer square", "MOVE AN1 KINGDOME PIONEER-SQUARE"),
    ("MUOVI AN1 Kingdome > Pioneer Square > Waterfront", "MOVE AN1 KINGDOME PIONEER-SQUARE WATERFRONT"),
    ("AN1 verso waterfront", "MOVE AN1 KINGDOME PIONEER-SQUARE WATERFRONT"),
    ("muovi OL1 sheraton  # commento", "MOVE OL1 SHERATON"),
    ("bersagli spd wsp\npassa", "TARGETS SPD WSP\nPASS"),
])
def test_english_and_italian_give_one_canonical_form(text, canonical):
    """5.0 movement written both ways; # starts a comment."""
    state = position(WHERE)
    assert orders(state, "demonstrators", text).canonical() == canonical


def test_authority_keywords_in_italian():
    state = position(WHERE, stage="authority-movement")
    sheet = orders(state, "authorities", "SCHIERA SPD2 Union Square\nRISERVA SPD1\nPUNTI MANIFESTANTI\n"
                                         "DIFESA MUNIZIONI SI")
    assert sheet.canonical() == ("RESERVE SPD1\nDEPLOY SPD2 UNION-SQUARE\nPOINTS DEMONSTRATORS\n"
                                 "DEFENCE MUNITIONS ON")
    combat = position({"SPD1": "westlake", "SPD2": "westlake", "AN1": "westlake", "AN2": "westlake"},
                      stage="authority-combat", escalation=2)
    sheet = orders(combat, "authorities", "attacca SPD1 SPD2 su AN1 AN2 munizioni tutte verifica AN2")
    assert sheet.canonical() == "ATTACK SPD1 SPD2 ON AN1 AN2 MUNITIONS SPD1 SPD2 CHECK AN2"
    assert orders(combat, "authorities", "ATTACK westlake").canonical() == "ATTACK SPD1 SPD2 ON AN1 AN2"


@pytest.mark.parametrize("text,line,key", [
    ("MOVE AN1 kingdome\nFLY AN1 waterfront", 2, "err-unknown-word"),
    ("MOVE AN1 atlantis", 1, "err-unknown-area"),
    ("MOVE AN1 first", 1, "err-area-ambiguous"),
    ("\n\nMOVE AN9 kingdome", 3, "err-unit-not-here"),
    ("MOVE SPD1 belltown", 1, "err-unit-not-here"),
    ("ATTACK AN1 ON SPD1", 1, "err-not-now"),
    ("MOVE", 1, "err-needs-unit"),
    ("ESCALATE now", 1, "err-no-arguments"),
])
def test_errors_name_the_line(text, line, key):
    """A sheet with an error is refused whole; each finding names its line."""
    sheet = RULES.parse_orders(position(WHERE), "demonstrators", text)
    assert not sheet.ok and sheet.orders == ()
    assert any(d.line == line and d.message.key == key for d in sheet.diagnostics), sheet.diagnostics


def test_a_misspelt_keyword_gets_a_suggestion():
    sheet = RULES.parse_orders(position(WHERE), "demonstrators", "MOOVE AN1 kingdome")
    d = sheet.diagnostics[0]
    assert d.suggestion is not None and d.suggestion.args["word"] == "MOVE"
    it = RULES.catalog.text(d.message, "it")
    assert "MOOVE" in it and "sconosciuta" in it


def test_a_seat_with_nothing_to_do_is_told_so():
    sheet = RULES.parse_orders(position(WHERE), "authorities", "PASS")
    assert [d.message.key for d in sheet.diagnostics] == ["err-not-your-phase"]


def test_the_report_speaks_both_languages():
    state = position(WHERE, stage="authority-combat")
    from tests.games.seattle.helpers import resolve, text

    new = resolve(state, {"authorities": "ATTACK SPD1 ON OL1"}, [2, 6, 1])
    en, it = text(new, "demonstrators", "en"), text(new, None, "it")
    assert "Combat in Westlake Center" in en and "Combattimento in Westlake Center" in it
    assert "Visibility Index: Demonstrators" in en and "Indice di Visibilità: Manifestanti" in it
