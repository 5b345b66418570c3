"""Kriegspiel in both languages (issue 19.5): the seats by their names in each language, the die's
purpose in Italian, and accepted orders echoed in the words the player wrote (rulebook
"MOVIMENTO & ATTACCO": MUOVI / ATTACCA are the Italian orders)."""

from __future__ import annotations

from pbem.core.purposes import purpose_text
from pbem.core.rules import echo_orders, seat_label
from pbem.games.kriegspiel import RULES


def test_seats_read_in_each_language() -> None:
    assert seat_label(RULES, "south", "it") == "Sud (south)"
    assert seat_label(RULES, "south", "en") == "South"
    assert seat_label(RULES, "nobody", "it") == "nobody"


def test_the_die_for_the_first_move_in_italian() -> None:
    assert purpose_text(RULES.catalog, "who moves first", "it") == "chi muove per primo"
    assert purpose_text(RULES.catalog, "who moves first", "en") == "who moves first"
    assert purpose_text(RULES.catalog, "something new", "it") == "something new"


def test_orders_are_echoed_in_the_words_written() -> None:
    state_text = "MOVE G6 G7\nATTACK K15"
    assert echo_orders(RULES, state_text, "muovi G6 G7\nAttacca K15") == "MUOVI G6 G7\nATTACCA K15"
    assert echo_orders(RULES, state_text, "MOVE G6 G7\nATTACK K15") == state_text
    deploy = "INFANTRY A1 A2\nHORSE-ARTILLERY A14"
    assert echo_orders(RULES, deploy, "FANTERIA A1 A2\nARTIGLIERIA-A-CAVALLO A14") == \
        "FANTERIA A1 A2\nARTIGLIERIA-A-CAVALLO A14"
