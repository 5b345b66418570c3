"""Attack, defence and the cavalry charge (rulebook, "Attacco", "Cattura e Ritirata forzata",
"Cavalleria", "Montagne & Fortificazioni", "REGOLE SPECIALI")."""

from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.combat import assess, result_of
from pbem.games.kriegspiel.position import Position

from .helpers import keys, play, position, sheet, unit_at


def sums(state, target, side="north"):
    a = assess(Position.of(state), BOARD.index(target), side)
    return a.attack, a.defence, {c.square: c.value for c in a.attackers}, \
        {c.square: c.value for c in a.defenders}


# The published example, set on the real board.  North's relay H4 stands on D8's SW line and
# relays southwards along column 4; South's relay R5 stands on T3's NE line and relays
# northwards along column 5.
EXAMPLE_NORTH = ("RELAY H4\nCAVALRY L4 L3 L2\nINFANTRY K4 M4\nARTILLERY L8\nINFANTRY D7")
EXAMPLE_SOUTH = ("INFANTRY L5 K5\nARTILLERY N5\nHORSE-ARTILLERY O5\nRELAY R5\nINFANTRY T25")


def test_published_example_28_against_34_is_a_capture():
    # Rulebook, "Attacco" and "Cattura e Ritirata forzata"; Debord's figure 4: a defence of
    # 6+6+8+8 = 28 against an attack of 34: the unit is captured.
    state = position(north=EXAMPLE_NORTH, south=EXAMPLE_SOUTH)
    attack, defence, att, dfn = sums(state, "L5")
    assert dfn == {"L5": 6, "K5": 6, "N5": 8, "O5": 8} and defence == 28
    assert att == {"L4": 7, "L3": 7, "L2": 7, "K4": 4, "M4": 4, "L8": 5} and attack == 34
    after = play(state, "ATTACK L5")
    rec = after.last_turn.attack
    assert (rec.attack, rec.defence, rec.result) == (34, 28, "captured")
    assert unit_at(after, "L5") is None
    assert [c.square for c in after.last_turn.captured] == ["L5"]


def test_thresholds():
    # Rulebook, "Cattura e Ritirata forzata": <= nothing, +1 forced retreat, +2 or more captured.
    assert result_of(28, 28) == "none" and result_of(20, 28) == "none"
    assert result_of(29, 28) == "retreat"
    assert result_of(30, 28) == "captured" and result_of(34, 28) == "captured"


def test_range_is_counted_in_squares_along_straight_lines():
    # Rulebook, "UNITA'": range along a straight line of squares in the 8 directions.
    # North units on column 8 (D8's line); South target at M8... blocks D8's ray below it.
    state = position(north="INFANTRY K8 J8 I8\nARTILLERY J6 I5 N11",
                     south="INFANTRY M8 T20\nRELAY T21")
    _, _, att, _ = sums(state, "M8")
    # K8 at 2 (infantry range 2), J8 at 3 (out of infantry range), J6? not on a line;
    assert "K8" in att and "J8" not in att and "I8" not in att
    assert "J6" not in att  # (3, 2) away: not on a straight line
    # artillery has range 3: J5 would be at 3 on the diagonal, I5 at 4


def test_artillery_reaches_three_squares():
    # I8 artillery on column 8, target L8 three squares below.
    state = position(north="ARTILLERY I8", south="INFANTRY L8 T20\nRELAY T21")
    assert sums(state, "L8")[2] == {"I8": 5}
    state = position(north="ARTILLERY H8", south="INFANTRY L8 T20\nRELAY T21")
    assert sums(state, "L8")[0] == 0


def test_units_do_not_block_fire_only_mountains_do():
    # Decision (reconstruction.md, the common reading): only mountains block lines of fire.
    state = position(north="INFANTRY I8", south="INFANTRY J8 K8 T20\nRELAY T21")
    assert sums(state, "K8")[2] == {"I8": 4}
    # M10 -> N11 (mountain) -> O12: blocked.  M8 is on column 8, M9 and M10 chain to it.
    state = position(north="INFANTRY M8 M9\nARTILLERY M10", south="INFANTRY O12 T20\nRELAY T21")
    assert sums(state, "O12")[0] == 0
    assert "err-attack-no-reach" in keys(sheet(state, "ATTACK O12"))


def test_fort_and_pass_bonuses_for_infantry_and_artillery_not_cavalry():
    # Rulebook, "Montagne & Fortificazioni": pass +2, fort +4 to infantry and artillery.
    # L15 is reached by T23's NW line, so a South unit there is connected.
    for kind, value in (("INFANTRY", 10), ("ARTILLERY", 12), ("HORSE-ARTILLERY", 12),
                        ("CAVALRY", 5)):
        state = position(north="INFANTRY K15", south=f"{kind} L15\nINFANTRY T20\nRELAY T21")
        assert sums(state, "L15")[3] == {"L15": value}, kind
    # O16 (pass): connected through O18 (on T23's NW line) and O17.
    for kind, value in (("INFANTRY", 8), ("ARTILLERY", 10), ("CAVALRY", 5)):
        state = position(north="INFANTRY A1", south=f"{kind} O16\nRELAY O18\nRELAY O17")
        assert sums(state, "O16")[3]["O16"] == value, kind


def test_terrain_bonus_counts_when_lending_defence():
    # Decision: the bonus is part of the unit's defence wherever it is counted.
    state = position(north="INFANTRY K15", south="ARTILLERY L15\nINFANTRY L16 T20\nRELAY T21")
    # L16 is next to L15 (connected through it)
    assert sums(state, "L16")[3] == {"L16": 6, "L15": 12}


def test_disconnected_units_neither_attack_nor_defend_themselves():
    # Rulebook, "Arsenale": a disconnected unit cannot attack or defend itself, but friendly
    # connected units in range still lend it their defence.
    # South O5 is off South's lines and alone: disconnected.  O3 is on T3's northward line.
    lone = position(north="ARTILLERY O8", south="INFANTRY O5 T20\nRELAY T21")
    assert sums(lone, "O5")[:2] == (5, 0)
    helped = position(north="ARTILLERY O8", south="INFANTRY O5 O3 T20\nRELAY T21")
    assert sums(helped, "O5")[3] == {"O3": 6}
    # a disconnected North unit in range adds nothing (M6 is off North's lines)
    state = position(north="ARTILLERY O8\nINFANTRY M6 A1", south="INFANTRY O5 T20\nRELAY T21")
    assert sums(state, "O5")[2] == {"O8": 5}


def test_cavalry_charge_column():
    # Rulebook, "Cavalleria": 7 when adjacent, +7 for each cavalry in the same column.
    # Column 8 is D8's line: the North cavalry on it are connected.
    state = position(north="CAVALRY L8 K8 J8 I8", south="INFANTRY M8 T20\nRELAY T21")
    att = sums(state, "M8")[2]
    assert att == {"L8": 7, "K8": 7, "J8": 7, "I8": 7}  # the charge ignores range
    gap = position(north="CAVALRY L8 J8\nINFANTRY A1", south="INFANTRY M8 T20\nRELAY T21")
    assert sums(gap, "M8")[2] == {"L8": 7}  # J8 is 3 away, not contiguous: nothing
    two = position(north="CAVALRY K8\nINFANTRY A1", south="INFANTRY M8 T20\nRELAY T21")
    assert sums(two, "M8")[2] == {"K8": 4}  # not adjacent: no charge, fires at range 2


def test_charge_is_not_a_defence():
    # "Si tratta di un'abilita' esclusivamente offensiva": cavalry defends with 5.
    state = position(north="CAVALRY L8 K8", south="CAVALRY M8 M9 T20\nRELAY T21")
    assert sums(state, "L8", side="south")[3]["L8"] == 5


def test_no_charge_against_forts_or_passes():
    # Rulebook, "REGOLE SPECIALI": the cavalry cannot charge a fort or a pass.
    state = position(north="CAVALRY K15 J15", south="INFANTRY L15 T20\nRELAY T21")
    assert sums(state, "L15")[2] == {"K15": 4, "J15": 4}
    state = position(north="CAVALRY E9", south="INFANTRY F10 T20\nRELAY T21")
    assert sums(state, "F10")[2] == {"E9": 4}


def test_cavalry_in_a_fort_does_not_charge_and_breaks_the_column():
    # Rulebook, "REGOLE SPECIALI": cavalry occupying a fort cannot take part in a charge.
    # I13 (fort) and H12 are both on D8's SE line; the target J14 is behind them.
    state = position(north="CAVALRY I13 H12", south="INFANTRY J14 T20\nRELAY T21")
    assert sums(state, "J14")[2] == {"I13": 4, "H12": 4}


def test_charging_out_of_a_pass_is_allowed():
    # Rulebook, "REGOLE SPECIALI": "sebbene la carica da un passo montano sia permessa".
    state = position(north="CAVALRY F10", south="INFANTRY G11 T20\nRELAY T21")
    assert sums(state, "G11")[2] == {"F10": 7}


def test_attack_orders():
    # Rulebook, "MOVIMENTO & ATTACCO": a single attack, after the moves.
    state = position(north="INFANTRY K8 J8", south="INFANTRY L8 M8 T20\nRELAY T21")
    assert keys(sheet(state, "ATTACK L8\nATTACK M8")) == ["err-second-attack"]
    assert keys(sheet(state, "ATTACK K8")) == ["err-attack-own"]
    assert keys(sheet(state, "ATTACK L9")) == ["err-attack-empty"]
    s = sheet(state, "ATTACK T20")
    assert keys(s) == ["err-attack-no-reach"]
    assert s.diagnostics[0].suggestion.key == "hint-targets"
    assert "L8" in s.diagnostics[0].suggestion.args["targets"]
    # the attack comes after all moves, wherever it is written
    s = sheet(state, "ATTACK M8\nMOVE J8 K7")
    assert s.ok and s.canonical() == "MOVE J8 K7\nATTACK M8"


def test_useless_attack_is_a_warning():
    # O8 is on South's T3 NE line (connected, defence 6); M8 is on North's column 8.
    state = position(north="INFANTRY M8", south="INFANTRY O8 T20\nRELAY T21")
    s = sheet(state, "ATTACK O8")
    assert s.ok and keys(s, "warning") == ["warn-attack-useless"]
    after = play(state, "ATTACK O8")
    assert after.last_turn.attack.result == "none" and unit_at(after, "O8") is not None


def test_charges_from_several_directions_add_up():
    # Each adjacent cavalry charges ("quando e' adiacente ad un'unita' nemica").  L8 is on D8's
    # column; M9 is next to it (connected by the chain).
    state = position(north="CAVALRY L8 M9", south="INFANTRY M8 T20\nRELAY T21")
    assert sums(state, "M8")[2] == {"L8": 7, "M9": 7}
