"""Random legal games under the game's options (the conformance suite plays the defaults): the basic
game (B), the advanced game with every special rule (C 13a-13d) and the scenarios (D) reach the end of
the tenth hand, every sheet reads back from its canonical text, every report is written in both languages."""

from __future__ import annotations

import hashlib

import pytest

from pbem.core.dice import VerifiableDice, orders_digest
from pbem.games.corteo import RULES


@pytest.mark.parametrize("options", [{"mode": "basic"},
                                     {"smoke": "yes", "short": "yes", "jams": "yes", "national": "yes"},
                                     {"scenario": "internazionalista"},  # D
                                     {"scenario": "antifascista", "jams": "yes"},
                                     {"scenario": "antirepressivo", "smoke": "yes"},
                                     {"scenario": "sociale", "jams": "yes"}])
def test_random_games_under_the_options_finish(options):  # type: ignore[no-untyped-def]
    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        return int.from_bytes(hashlib.sha256(f"{sorted(options.items())}:{counter[0]}".encode()).digest()[:8],
                              "big") % n

    state = RULES.new_game(RULES.info.seats, options)
    rolls = 0
    for number in range(120):
        phase = RULES.phase(state)
        if RULES.outcome(state) is not None:
            break
        sheets = {}
        for seat in phase.awaiting:
            sheet = RULES.parse_orders(state, seat, RULES.random_orders(state, seat, pick))
            assert sheet.ok, [(d.line, d.message) for d in sheet.diagnostics]
            assert RULES.parse_orders(state, seat, sheet.canonical()).orders == sheet.orders
            sheets[seat] = sheet
        dice = VerifiableDice(b"seed", "g", number, orders_digest({s: x.canonical() for s, x in sheets.items()}), rolls)
        state = RULES.resolve(state, sheets, dice).state
        rolls = dice.next_counter
        for lang in ("en", "it"):
            assert RULES.describe(RULES.view(state, None), lang).strip()
    outcome = RULES.outcome(state)
    assert outcome is not None and state.hand == 10
    assert rolls > 0
