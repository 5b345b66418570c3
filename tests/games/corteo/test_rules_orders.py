"""The order syntax: Italian and English keywords, any case, the canonical form echoed back, errors
naming the line (docs/games/corteo.md; the moves they stand for are C 4-10's)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.games.corteo import RULES
from tests.games.corteo.helpers import canonical, position, terrains


def movement():
    terrains(D14="strada", D15="strada", D16="strada", D17="strada", D18="strada")
    return position({"AUT1": "D15", "LC1": "D13", "CE1": "D18"}, hand=3, head_component=None)


@pytest.mark.parametrize("text, expected", [
    ("MUOVI LC1 D14 D15", ["MOVE LC1 D14 D15"]),
    ("muovi lc1 a d15", ["MOVE LC1 D14 D15"]),  # TO: the shortest legal path
    ("LC1 D14 D15", ["MOVE LC1 D14 D15"]),  # a line starting with a unit is a move
    ("LANCIA AUT1 SU D18", ["THROW AUT1 AT D18"]),
    ("throw aut1 at d18", ["THROW AUT1 AT D18"]),
    ("BARRICATA LC1 D12", ["BARRICADE LC1 D12"]),
    ("CORSA\nVAI LC1 D14 D15", ["RUN", "MOVE LC1 D14 D15"]),
    ("MOVE LC1 D14\nCORRI", ["RUN", "MOVE LC1 D14"]),  # the run is declared before any move (5c)
    ("TESTA AUT1", ["HEAD AUT1"]),
    ("VERSO D12\nCASERME 3 1", ["TOWARD D12", "BARRACKS 3 1"]),
    ("NIENTE", ["PASS"]),
])
def test_italian_and_english_words_give_one_canonical_order(text, expected):
    """The orders of C 4-10 (MUOVI/MOVE, LANCIA/THROW, BARRICATA, CORSA/RUN, TESTA/HEAD, VERSO/TOWARD,
    CASERME/BARRACKS, NIENTE/PASS), any case; the canonical English form is what is kept."""
    state = movement()
    if text.startswith("TESTA"):
        state = replace(state, head_component="AUTOP")
    assert canonical(state, "corteo", text) == expected


def test_attack_in_italian():
    """C 8a: ATTACCA ... SU ... AVANZA is ATTACK ... ON ... ADVANCE."""
    terrains(D17="strada", D18="strada")
    state = position({"MOV1": "D17", "MOV2": "D17", "CE1": "D18"}, hand=3, stage="corteo-combat")
    assert canonical(state, "corteo", "attacca mov1 mov2 su ce1 avanza") == ["ATTACK MOV1 MOV2 ON CE1 ADVANCE"]


def test_a_syntax_error_names_its_line_and_suggests_the_word():
    """Errors name the line they are on; an unknown word gets the closest keyword."""
    sheet = RULES.parse_orders(movement(), "corteo", "MOVE LC1 D14\nMUOVE LC1 D15\n")
    assert not sheet.ok
    (d,) = sheet.diagnostics
    assert d.line == 2 and d.message.key == "err-unknown-word"
    assert d.suggestion is not None and d.suggestion.key == "hint-did-you-mean"


def test_a_rules_error_names_its_line():
    """A legal-looking line that breaks a rule (C 4b: stop in an enemy ZOC) is reported on its line."""
    sheet = RULES.parse_orders(movement(), "corteo", "# first a comment\nMOVE AUT1 D16\nMOVE LC1 D14 D15 D16 D17 D18")
    assert not sheet.ok
    keys = [(d.line, d.message.key) for d in sheet.diagnostics]
    assert keys == [(3, "err-zoc-stop")]


@pytest.mark.parametrize("text, key", [
    ("MOVE LC1", "err-needs-hex"),
    ("MOVE LC1 AUT1 D14", "err-one-unit"),
    ("RUN NOW", "err-no-arguments"),
    ("THROW AUT1", "err-throw-form"),
    ("ATTACK MOV1 CE1", "err-attack-form"),
    ("JAM D14 D15", "err-one-hex"),
    ("BARRACKS X", "err-barracks-form"),
    ("MOVE LC1 D14 ADESSO", "err-extra-words"),
])
def test_malformed_lines(text, key):
    """Each malformed line is refused with its own message, on line 1."""
    sheet = RULES.parse_orders(movement(), "corteo", text)
    assert [(d.line, d.message.key) for d in sheet.diagnostics] == [(1, key)]


def test_orders_out_of_phase_are_refused():
    """C 3: each side orders only in its own phases; a power order in the corteo's movement is refused."""
    sheet = RULES.parse_orders(movement(), "potere", "MOVE CE1 D19")
    assert [d.message.key for d in sheet.diagnostics] == ["err-not-your-phase"]
    sheet = RULES.parse_orders(movement(), "corteo", "ATTACK AUT1 ON CE1")
    assert [d.message.key for d in sheet.diagnostics] == ["err-not-now"]
