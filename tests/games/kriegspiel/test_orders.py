"""Order texts: syntax, aliases, diagnostics, deployment checks, and the parser's robustness."""

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.kriegspiel import RULES
from pbem.games.kriegspiel.orders import (
    Attack,
    Deploy,
    Draw,
    Move,
    Pass,
    Resign,
    parse_text,
)

from .helpers import deploy, keys, position, sheet

NEW = RULES.new_game(("north", "south"), {})
OPENING_N = RULES.default_orders(NEW, "north").canonical()
OPENING_S = RULES.default_orders(NEW, "south").canonical()
STARTED = deploy(OPENING_N, OPENING_S, roll=1)


def orders_of(text):
    items, diags = parse_text(text)
    assert not diags, diags
    return [it.order for it in items]


def test_keywords_english_italian_any_case():
    assert orders_of("MOVE G6 G7\nmuovi g6 g7\nG6-G7\nmove G6 -> G7") == [Move("G6", ("G7",))] * 4
    assert orders_of("ATTACK K15\nattacca k15") == [Attack("K15")] * 2
    assert orders_of("DRAW\nPatta\nRESIGN\nabbandona\nPASS\npassa") == \
        [Draw(), Draw(), Resign(), Resign(), Pass(), Pass()]


def test_deployment_keywords():
    text = ("INFANTRY G6\nFANTERIA G7\nCAVALRY G3\ncavalleria G4\nARTILLERY G8\n"
            "HORSE-ARTILLERY H6\nartiglieria-a-cavallo H7\nHorse artillery H8\nRELAY D3\n"
            "STAFFETTA D4\nHORSE-RELAY F5\nSTAFFETTA A CAVALLO F6\nINFANTRY A1 A2, A3")
    kinds = [(o.kind, o.square) for o in orders_of(text)]
    assert kinds[:3] == [("infantry", "G6"), ("infantry", "G7"), ("cavalry", "G3")]
    assert ("horse_artillery", "H7") in kinds and ("horse_artillery", "H8") in kinds
    assert ("relay", "D4") in kinds and ("horse_relay", "F6") in kinds
    assert kinds[-3:] == [("infantry", "A1"), ("infantry", "A2"), ("infantry", "A3")]
    assert Deploy("horse_artillery", "H6").canonical() == "HORSE-ARTILLERY H6"


def test_comments_blank_lines_and_line_numbers():
    text = "# my turn\n\nMOVE G6 F6   # forward\nMOVE G9 G10\n"
    s = sheet(STARTED, text)
    assert [(d.line, d.message.key) for d in s.diagnostics] == [(4, "err-move-mountain")]
    assert s.diagnostics[0].text == "MOVE G9 G10"


def test_unknown_words_get_a_suggestion():
    s = sheet(STARTED, "MOVEE G6 G7")
    assert keys(s) == ["err-unknown-order"]
    assert s.diagnostics[0].suggestion.key == "hint-did-you-mean"
    assert s.diagnostics[0].suggestion.args["word"] == "MOVE"
    s = sheet(STARTED, "ATACK K15")
    assert s.diagnostics[0].suggestion.args["word"] == "ATTACK"


def test_bad_squares_suggest_the_nearest_square():
    s = sheet(STARTED, "MOVE G6 G26")
    assert keys(s) == ["err-not-a-square"]
    assert s.diagnostics[0].suggestion.args["square"] == "G25"
    s = sheet(STARTED, "ATTACK U15")
    assert s.diagnostics[0].suggestion.args["square"] == "T15"
    assert keys(sheet(STARTED, "ATTACK")) == ["err-attack-form"]
    assert keys(sheet(STARTED, "MOVE G6")) == ["err-move-form"]
    assert keys(sheet(STARTED, "G6")) == ["err-square-alone"]
    assert keys(sheet(STARTED, "PASS now")) == ["err-no-arguments"]


def test_pass_and_empty_sheets():
    assert sheet(STARTED, "PASS").canonical() == "PASS"
    assert keys(sheet(STARTED, "PASS\nMOVE G6 G5")) == ["err-pass-with-orders"]
    assert keys(sheet(STARTED, "")) == ["err-empty"]
    assert keys(sheet(STARTED, "# nothing\n")) == ["err-empty"]


def test_not_your_turn_and_deployment_orders_in_a_move_turn():
    assert keys(RULES.parse_orders(STARTED, "south", "PASS")) == ["err-not-your-turn"]
    assert keys(sheet(STARTED, "INFANTRY G5")) == ["err-deploy-over"]
    assert keys(RULES.parse_orders(STARTED, "east", "PASS")) == ["err-unknown-seat"]


def test_deployment_must_be_the_whole_army_in_own_territory():
    # Rulebook, "REGOLAMENTO" and "UNITA'": each player places its army in its own territory.
    ok = RULES.parse_orders(NEW, "north", OPENING_N)
    assert ok.ok and len(ok.orders) == 17
    wrong = OPENING_N.replace("INFANTRY I6", "INFANTRY K6")
    s = RULES.parse_orders(NEW, "north", wrong)
    assert keys(s) == ["err-deploy-missing", "err-deploy-territory"] or \
        sorted(keys(s)) == ["err-deploy-missing", "err-deploy-territory"]
    s = RULES.parse_orders(NEW, "north", OPENING_N.replace("INFANTRY I6", "INFANTRY G10"))
    assert "err-deploy-mountain" in keys(s)
    s = RULES.parse_orders(NEW, "north", OPENING_N.replace("INFANTRY I6", "INFANTRY G6"))
    assert "err-deploy-taken" in keys(s)
    s = RULES.parse_orders(NEW, "north", OPENING_N + "\nINFANTRY A1")
    assert keys(s) == ["err-deploy-too-many"]
    s = RULES.parse_orders(NEW, "north", "INFANTRY A1")
    assert keys(s) == ["err-deploy-missing"]
    assert "MOVE" not in str(s.diagnostics[0].message.args)
    assert keys(RULES.parse_orders(NEW, "north", OPENING_N + "\nMOVE G6 G7")) == ["err-deploy-only"]


def test_deployment_on_own_arsenal_fort_and_pass_is_allowed():
    # Decision: own arsenals may hold a unit from the start ("possono essere occupati dalle
    # proprie unita'"); forts and passes too.
    text = OPENING_N.replace("INFANTRY I6", "INFANTRY D8").replace("INFANTRY H5", "INFANTRY B8")
    assert RULES.parse_orders(NEW, "north", text).ok


def test_deployment_canonical_form_is_sorted():
    shuffled = "\n".join(reversed(OPENING_N.splitlines()))
    s = RULES.parse_orders(NEW, "north", shuffled)
    assert s.ok and s.canonical() == OPENING_N


def test_deployment_resolution_rolls_one_die_for_the_first_player():
    # Rulebook, "MOVIMENTO & ATTACCO": "Un lancio di dadi determinera' chi debba essere il primo".
    from pbem.core.dice import ScriptedDice

    sheets = {"north": RULES.parse_orders(NEW, "north", OPENING_N),
              "south": RULES.parse_orders(NEW, "south", OPENING_S)}
    for roll, first in ((1, "north"), (2, "south")):
        dice = ScriptedDice([roll])
        state = RULES.resolve(NEW, sheets, dice).state
        assert state.to_move == first and RULES.phase(state).awaiting == (first,)
        assert [(r.sides, r.purpose) for r in dice.record] == [(2, "who moves first")]
    assert len(state.units) == 34
    assert {u.id for u in state.units} >= {"N-INF-1", "N-INF-9", "S-CAV-4", "N-HART-1", "S-HREL-1"}


def test_phases():
    assert RULES.phase(NEW).name == "deploy" and RULES.phase(NEW).sealed
    assert RULES.phase(NEW).awaiting == ("north", "south") and RULES.phase(NEW).turn == 0
    p = RULES.phase(STARTED)
    assert (p.turn, p.name, p.awaiting, p.sealed) == (1, "move", ("north",), False)


def test_orders_codec_round_trip():
    s = sheet(STARTED, "MOVE G3 E3\nMOVE G6 F6\nDRAW")
    assert s.ok, s.diagnostics
    data = RULES.encode_orders(s.orders)
    assert RULES.decode_orders(data) == s.orders
    again = sheet(STARTED, s.canonical())
    assert again.orders == s.orders and again.ok


TEXT = st.text(alphabet=string.printable + "àèéìòù→–—\u2028\x0b\x00", max_size=200)


@settings(max_examples=150, deadline=None)
@given(TEXT)
def test_parser_never_raises(text):
    for state, seat in ((NEW, "north"), (STARTED, "north"), (STARTED, "south")):
        s = RULES.parse_orders(state, seat, text)
        assert all(d.message.key != "err-internal" for d in s.diagnostics)


WORDS = st.sampled_from(["MOVE", "ATTACK", "G6", "G7", "K15", "H4", "I5", "T25", "A1", "PASS",
                         "DRAW", "RESIGN", "-", "INFANTRY", "CAVALLERIA", "#", "\n", " ", "Z99"])


@settings(max_examples=150, deadline=None)
@given(st.lists(WORDS, max_size=30))
def test_parser_never_raises_on_order_like_words(words):
    text = " ".join(words)
    for state in (NEW, STARTED):
        s = RULES.parse_orders(state, "north", text)
        assert all(d.message.key != "err-internal" for d in s.diagnostics)


def test_line_errors_in_a_partly_wrong_sheet_report_each_line():
    s = sheet(STARTED, "MOVE G6 F6\nMOVE Z1 Z2\nMOVE G7 G9\nATTACK K15")
    assert [(d.line, d.message.key) for d in s.diagnostics if d.is_error] == \
        [(2, "err-not-a-square"), (2, "err-not-a-square"), (3, "err-move-too-far"),
         (4, "err-attack-no-reach")]


def test_positions_helper_sanity():
    state = position(north="INFANTRY G8")  # on D8's column
    assert sheet(state, "MOVE G8 G7").ok
