"""Movement (rulebook, "UNITA'" and "MOVIMENTO & ATTACCO", "REGOLE SPECIALI")."""

import pytest

from pbem.games.kriegspiel.orders import Move

from .helpers import keys, play, position, sheet, unit_at

# Units on D8's southward line (column 8) or next to it are connected.
ARMY = "INFANTRY G8 H8\nCAVALRY I8\nHORSE-ARTILLERY F8\nARTILLERY E8\nRELAY D3\nHORSE-RELAY C8"
ENEMY = "INFANTRY S20\nRELAY T20"


@pytest.mark.parametrize("dest", ["F7", "F9", "G7", "G9", "H7", "H9"])
def test_infantry_moves_one_square_in_any_direction(dest):
    # Rulebook, "UNITA'": every unit may move in all directions.
    state = position(north="INFANTRY G8", south=ENEMY)
    assert sheet(state, f"MOVE G8 {dest}").ok


def test_foot_units_move_only_one_square():
    state = position(north=ARMY, south=ENEMY)
    s = sheet(state, "MOVE H8 J8")
    assert keys(s) == ["err-move-too-far"]
    assert s.diagnostics[0].suggestion is not None
    assert "err-move-too-far" in keys(sheet(state, "MOVE E8 E6"))


@pytest.mark.parametrize("dest,path", [
    ("K8", ("J8", "K8")),    # straight
    ("K10", ("J9", "K10")),  # diagonal
    ("K9", ("J8", "K9")),    # one straight step, then one diagonal (tried first)
    ("J10", ("I9", "J10")),  # mixed, sideways: the straight (east) step first
    ("I9", ("I9",)),         # fast units may move just one square
])
def test_fast_units_move_two_squares_straight_diagonal_or_mixed(dest, path):
    # Rulebook, "UNITA'": "in linea retta o in diagonale, o anche per una casella in linea retta
    # e successivamente una casella in diagonale -o viceversa-".
    state = position(north=ARMY, south=ENEMY)
    s = sheet(state, f"MOVE I8 {dest}")
    assert s.ok, s.diagnostics
    assert s.orders == (Move("I8", path),)
    assert s.canonical() == " ".join(("MOVE", "I8") + path)


def test_canonical_path_is_the_one_actually_used():
    # Decision: without an intermediate square the straight-first path is taken if free,
    # otherwise the diagonal-first one.
    state = position(north=ARMY + "\nINFANTRY J8", south=ENEMY)
    s = sheet(state, "MOVE I8 K9")
    assert s.orders == (Move("I8", ("J9", "K9")),)
    after = play(state, "MOVE I8 K9")
    assert after.last_turn.moves[0].path == ("J9", "K9")


def test_the_intermediate_square_may_be_given():
    state = position(north=ARMY, south=ENEMY)
    assert sheet(state, "MOVE I8 J9 K9").orders == (Move("I8", ("J9", "K9")),)
    assert sheet(state, "I8-J9-K9").orders == (Move("I8", ("J9", "K9")),)


def test_bad_paths_are_refused():
    state = position(north=ARMY, south=ENEMY)
    # two diagonal steps in different directions are not a straight move of 2
    assert keys(sheet(state, "MOVE I8 J9 K8")) == ["err-move-not-a-path"]
    # a detour to an adjacent square is not a move of 2
    assert keys(sheet(state, "MOVE I8 J8 I9")) == ["err-move-not-a-path"]
    assert keys(sheet(state, "MOVE I8 L8")) == ["err-move-too-far"]


def test_moves_only_through_and_into_empty_squares():
    # Rulebook, "UNITA'": "con l'unica restrizione di non poter muovere se non in caselle vuote".
    state = position(north=ARMY + "\nINFANTRY J8 J9", south=ENEMY + "\nINFANTRY K9")
    assert keys(sheet(state, "MOVE I8 J8 K8")) == ["err-move-blocked"]
    assert keys(sheet(state, "MOVE I8 K8")) == ["err-move-blocked"]
    assert keys(sheet(state, "MOVE I8 J9 K10")) == ["err-move-blocked"]
    assert sheet(state, "MOVE I8 J7 K6").ok
    assert keys(sheet(state, "MOVE J9 K9")) == ["err-move-occupied"]  # enemy
    assert keys(sheet(state, "MOVE H8 I8")) == ["err-move-occupied"]  # own


def test_mountains_cannot_be_entered_or_crossed():
    # Rulebook, "Montagne & Fortificazioni": "non possono essere attraversate".
    state = position(north="CAVALRY E9\nINFANTRY D9", south=ENEMY)
    assert keys(sheet(state, "MOVE D9 D10")) == ["err-move-mountain"]
    assert keys(sheet(state, "MOVE E9 E11")) == ["err-move-blocked"]
    # through the pass F10 it is allowed
    assert sheet(state, "MOVE E9 F10 G11").ok


def test_one_unit_per_square_also_on_forts_passes_and_arsenals():
    # Rulebook, "REGOLE SPECIALI": one unit per arsenal, fort, pass or any other square.
    state = position(north="INFANTRY H13 I13 E9 F10", south=ENEMY)
    assert keys(sheet(state, "MOVE H13 I13")) == ["err-move-occupied"]
    assert keys(sheet(state, "MOVE E9 F10")) == ["err-move-occupied"]


def test_at_most_five_moves_each_unit_once():
    # Rulebook, "MOVIMENTO & ATTACCO": up to five units, none more than once per turn.
    state = position(north=ARMY, south=ENEMY)
    five = "MOVE G8 G7\nMOVE H8 H7\nMOVE I8 I7\nMOVE F8 F7\nMOVE E8 E7"
    assert sheet(state, five).ok
    s = sheet(state, five + "\nMOVE D3 D4")
    assert keys(s) == ["err-too-many-moves"] and s.diagnostics[0].line == 6
    assert keys(sheet(state, "MOVE G8 G7\nMOVE G8 G9")) == ["err-moved-twice"]
    assert keys(sheet(state, "MOVE H8 H7\nMOVE H7 H6")) == ["err-no-unit"]


def test_fewer_moves_and_no_attack_are_legal():
    state = position(north=ARMY, south=ENEMY)
    assert sheet(state, "MOVE G8 G7").ok
    assert sheet(state, "PASS").ok


def test_units_are_named_by_their_square_at_the_start_of_the_turn():
    # Decision: moves are played in order; a later move may enter a square vacated earlier.
    state = position(north=ARMY, south=ENEMY)
    after = play(state, "MOVE H8 H9\nMOVE G8 H8")
    assert unit_at(after, "H9").id == "N-INF-2" and unit_at(after, "H8").id == "N-INF-1"
    assert keys(sheet(state, "MOVE G8 H8\nMOVE H8 H9")) == ["err-move-occupied"]


def test_only_own_units_move():
    state = position(north=ARMY, south=ENEMY)
    s = sheet(state, "MOVE S20 S19")
    assert keys(s) == ["err-enemy-unit"]
    s = sheet(state, "MOVE G9 G10")
    assert keys(s) == ["err-no-unit"]


def test_no_unit_suggests_units_that_could_go_there():
    state = position(north=ARMY, south=ENEMY)
    s = sheet(state, "MOVE G7 F7")
    assert keys(s) == ["err-no-unit"]
    hint = s.diagnostics[0].suggestion
    assert hint is not None and hint.key == "hint-could-move"
    assert "G8" in hint.args["units"] and "E8" in hint.args["units"]


def test_own_arsenal_may_be_occupied():
    # Rulebook, "Arsenale": arsenals "possono essere occupati dalle proprie unita'".
    state = position(north="INFANTRY D7", south=ENEMY)
    after = play(state, "MOVE D7 D8")
    assert unit_at(after, "D8") is not None
    assert not any(a.destroyed for a in after.arsenals)
