"""Whole scripted games, from the sealed deployment to the end (rulebook, "VITTORIA")."""

from pbem.core.dice import ScriptedDice
from pbem.games.kriegspiel import RULES

from .helpers import deploy, keys, play, position, sheet

FAR_NORTH = "INFANTRY A1 A2 A3 A4 A5 A6 A7 A8 A9\nARTILLERY A13\nHORSE-ARTILLERY A14"


def run(state, north_turns, south="PASS"):
    """Alternate North's scripted turns with South's (PASS by default) until the end."""
    for text in north_turns:
        assert state.to_move == "north", state.result
        state = play(state, text)
        if state.result is not None:
            return state
        state = play(state, south)
    return state


def test_victory_a_both_arsenals_destroyed():
    # "(A) Distruggere i due arsenali nemici."  The horse relay marches down D8's column and
    # relays westwards along row R; the relay J15 (on B15's column) relays along the diagonal
    # K16-T25.  Two cavalry ride along those lines to T3 and T23.
    north = (FAR_NORTH + "\nCAVALRY I8 J16 A10 A11\nHORSE-RELAY J8\nRELAY J15")
    south = ("INFANTRY O10 O11 O12 O13 O14 O15 P10 P11 P12\nCAVALRY P13 P14 P15 Q10\n"
             "ARTILLERY Q11\nHORSE-ARTILLERY Q12\nRELAY Q13\nHORSE-RELAY Q14")
    state = deploy(north, south, roll=1)
    assert state.first_player == "north" and state.to_move == "north"
    turns = [
        "MOVE J8 L8\nMOVE I8 K8\nMOVE J16 L17",
        "MOVE L8 N8\nMOVE K8 M8\nMOVE L17 N19",
        "MOVE N8 P8\nMOVE M8 O8\nMOVE N19 P21",
        "MOVE P8 R8\nMOVE O8 Q8\nMOVE P21 R23",
        "MOVE Q8 R6\nMOVE R23 T23",
        "MOVE R6 R4",
        "MOVE R4 T3",
    ]
    state = run(state, turns)
    assert state.result is not None
    assert (state.result.result, state.result.winners, state.result.reason) == \
        ("win", ("north",), "arsenals")
    outcome = RULES.outcome(state)
    assert outcome.winners == ("north",) and outcome.summary.key == "outcome-arsenals-north"
    assert RULES.phase(state).awaiting == () and RULES.view(state, None)["phase"] == "over"


def test_victory_b_all_combat_units_destroyed():
    # "(B) Distruggere tutte le unita' da combattimento nemiche" (infantry, cavalry, artillery;
    # relays and arsenals are not combat units).  North's row J is connected through J8;
    # South's row K is off its lines, so every unit there is disconnected and undefended.
    north = ("INFANTRY J4 J5 J6 J7 J8 J9 J10 J11 J12\nCAVALRY J13 J14 J15 J16\nARTILLERY J17\n"
             "HORSE-ARTILLERY J18\nRELAY J19\nHORSE-RELAY J20")
    south = ("INFANTRY K4 K5 K6 K7 K8 K9 K10 K11 K13\nCAVALRY K14 K15 K16 K17\nARTILLERY K18\n"
             "HORSE-ARTILLERY K19\nRELAY K20\nHORSE-RELAY K21")
    state = deploy(north, south, roll=2)
    assert state.to_move == "south"
    state = play(state, "PASS")
    targets = ["K4", "K5", "K6", "K7", "K8", "K9", "K10", "K11", "K13", "K14", "K15", "K16",
               "K17", "K18", "K19"]
    state = run(state, [f"ATTACK {t}" for t in targets])
    assert state.result is not None and state.last_turn.turn == 2 * len(targets)
    assert (state.result.winners, state.result.reason) == (("north",), "annihilation")
    assert {u.kind for u in state.units if u.side == "south"} == {"relay", "horse_relay"}


def test_victory_c_relays_destroyed_and_all_units_cut_off():
    # "(C) Distruggere le due staffette nemiche e far restare tutte le unita' nemiche rimanenti
    # disconnesse."  South deploys off its own lines, its relays on K7 and K8.
    north = FAR_NORTH.replace("A8 A9", "I8 J7") + "\nCAVALRY A10 A11 A12 J8\nRELAY A15\nHORSE-RELAY A16"
    south = ("INFANTRY K18 K19 K20 K21 K22 K23 K24 K25 L18\nCAVALRY L19 L20 L21 L22\n"
             "ARTILLERY L23\nHORSE-ARTILLERY L24\nRELAY K8\nHORSE-RELAY K7")
    state = deploy(north, south, roll=1)
    state = run(state, ["ATTACK K8"])
    assert state.result is None  # one relay left
    state = run(state, ["ATTACK K7"])
    assert (state.result.winners, state.result.reason) == (("north",), "communications")
    # South's arsenals, intact and always on their own lines, do not count among the units
    # that must be cut off (docs/games/kriegspiel.md, Victory).
    assert not any(a.destroyed for a in state.arsenals if a.side == "south")


def test_relays_destroyed_but_a_unit_connected_is_no_victory():
    state = position(north="INFANTRY J8 I8", south="INFANTRY K8 T20\nRELAY K9")
    after = play(state, "ATTACK K9")
    assert after.result is None  # T20 stands on South's row T line


def test_draw_by_agreement():
    # "se entrambi i giocatori decidono ...": a DRAW offered in one turn and answered with DRAW
    # in the opponent's next orders ends the game; the offer otherwise lapses.
    state = deploy(RULES.default_orders(RULES.new_game(("north", "south"), {}), "north").canonical(),
                   RULES.default_orders(RULES.new_game(("north", "south"), {}), "south").canonical())
    state = play(state, "MOVE G6 F6\nDRAW")
    assert state.draw_offered_by == "north" and state.result is None
    assert RULES.view(state, "south")["draw_offered_by"] == "north"
    lapsed = play(state, "PASS")
    assert lapsed.draw_offered_by is None
    s = sheet(state, "DRAW\nMOVE K15 J15")
    assert s.ok and keys(s, "warning") == ["warn-ignored-draw"] and s.canonical() == "DRAW"
    over = play(state, "DRAW\nMOVE K15 J15")
    assert (over.result.result, over.result.winners, over.result.reason) == ("draw", (), "agreement")
    assert RULES.outcome(over).summary.key == "outcome-agreement-draw"
    assert RULES.phase(over).awaiting == ()


def test_resignation():
    state = position(north="INFANTRY J8", south="INFANTRY K15 T20\nRELAY T21")
    over = play(state, "RESIGN")
    assert (over.result.winners, over.result.reason) == (("south",), "resignation")
    assert "err-game-over" in keys(sheet(over, "PASS"))


def test_resignation_and_double_resignation_at_deployment():
    state = RULES.new_game(("north", "south"), {})
    opening = RULES.default_orders(state, "south")
    resign = RULES.parse_orders(state, "north", "ABBANDONA")
    assert resign.ok
    over = RULES.resolve(state, {"north": resign, "south": opening}, ScriptedDice([])).state
    assert (over.result.winners, over.result.reason) == (("south",), "resignation")
    both = {"north": resign, "south": RULES.parse_orders(state, "south", "RESIGN")}
    over = RULES.resolve(state, both, ScriptedDice([])).state
    assert (over.result.result, over.result.reason) == ("draw", "agreement")


def test_victory_is_checked_for_both_sides_after_every_turn():
    # Decision: after each turn both sides are checked (the mover first).  North has no relay
    # left; moving its only connected unit off the line leaves every North unit cut off, so
    # South wins by (C) at the end of North's own turn.
    state = position(north="INFANTRY J8 M1", south="INFANTRY T20\nRELAY T21")
    after = play(state, "MOVE J8 J9")
    assert (after.result.winners, after.result.reason) == (("south",), "communications")
