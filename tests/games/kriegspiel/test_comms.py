"""Lines of communication (rulebook, "Arsenali & Staffette" and "REGOLE SPECIALI")."""

from .helpers import connected, covered, keys, play, position, sheet


def test_arsenal_rays_run_in_8_directions_until_blocked():
    # Rulebook, "REGOLAMENTO": arsenals radiate vertically, horizontally and diagonally.
    lines = covered(position(), "north")
    assert {"D7", "D1", "C8", "E8", "T8", "C9", "A11", "C7", "A5", "E7", "K1"} <= lines
    assert "T8" in lines  # unbounded: down to the board's edge, through South's territory
    # the mountain D10 stops D8's eastward ray
    assert "D9" in lines and "D11" not in lines


def test_enemy_units_block_lines_but_enemy_relays_do_not():
    # Rulebook, "Arsenali & Staffette": lines are blocked by every enemy unit; not by enemy relays.
    blocked = covered(position(south="INFANTRY H8"), "north")
    assert "G8" in blocked and "H8" not in blocked and "I8" not in blocked
    open_ = covered(position(south="RELAY H8"), "north")
    assert {"H8", "I8", "T8"} <= open_


def test_own_units_do_not_block_own_lines():
    lines = covered(position(north="INFANTRY H8"), "north")
    assert {"I8", "T8"} <= lines


def test_lines_pass_through_passes_and_stop_at_forts():
    # Rulebook: "il segnale passa liberamente attraverso i passi montani";
    # "Le fortezze non propagano linee di comunicazione" (decision: the fort square is
    # reached, nothing beyond it).  D8's SE ray: E9, F10 (pass), G11, H12, I13 (fort).
    lines = covered(position(), "north")
    assert {"E9", "F10", "G11", "H12", "I13"} <= lines
    assert "J14" not in lines
    # B15's southward ray stops at the South fort L15
    assert "K15" in lines and "L15" in lines and "M15" not in lines


def test_unit_in_a_fort_on_a_line_is_connected():
    state = position(north="INFANTRY I13")
    assert connected(state, "I13")


def test_relay_on_an_arsenal_line_relays_in_8_directions():
    # Rulebook, "Arsenali & Staffette": relays amplify every line crossing their square.
    # H4 is on D8's SW ray (E7 F6 G5 H4).
    lines = covered(position(north="RELAY H4"), "north")
    assert {"H1", "H3", "I4", "T4", "I5", "L8", "H5", "H9", "G4"} <= lines
    assert "T4" not in covered(position(), "north")


def test_relay_off_the_lines_relays_nothing():
    # "possono trasmettere il segnale ... solo se la casella ... e' attraversata da una delle
    # linee irradiate dagli arsenali".
    state = position(north="RELAY H2")
    assert "H1" not in covered(state, "north")
    assert not connected(state, "H2")


def test_no_relay_to_relay_chaining():
    # Decision: a relay on another relay's line (not on an arsenal's) does not relay.
    # L4 is on H4's southward line only.
    state = position(north="RELAY H4\nHORSE-RELAY L4")
    lines = covered(state, "north")
    assert "L4" in lines and connected(state, "L4")
    assert "L6" not in lines and "M5" not in lines


def test_relay_in_a_fort_does_not_relay():
    # Decision from "Le fortezze non propagano linee di comunicazione": I13 is reached by
    # D8's line but a relay standing there relays nothing.
    state = position(north="HORSE-RELAY I13")
    assert connected(state, "I13")
    assert "I14" not in covered(state, "north") and "J13" not in covered(state, "north")


def test_enemy_cutting_an_arsenal_line_silences_the_relay_on_it():
    state = position(north="RELAY H4", south="INFANTRY F6")
    lines = covered(state, "north")
    assert "G5" not in lines and "H4" not in lines and "T4" not in lines
    assert not connected(state, "H4")


def test_adjacent_chains_are_connected_transitively():
    # Rulebook, "Arsenale": a unit must be on a line or adjacent to a connected friendly unit.
    state = position(north="INFANTRY I3 J3 K3 M3")  # I3 is on D8's SW ray
    assert connected(state, "I3") and connected(state, "J3") and connected(state, "K3")
    assert not connected(state, "M3")  # L3 is empty: the chain is broken


def test_destroyed_arsenals_radiate_nothing():
    # Rulebook, "Arsenale": occupation destroys the arsenal.
    lines = covered(position(destroyed=["D8"]), "north")
    assert "D7" not in lines and "T8" not in lines
    assert "K15" in lines  # B15 still radiates


def test_disconnected_units_cannot_move_but_relays_can():
    # Rulebook, "Arsenale": disconnected units cannot move; relays move freely.
    state = position(north="INFANTRY M1\nRELAY H2\nINFANTRY I3")
    assert "err-cut-off" in keys(sheet(state, "MOVE M1 M2"))
    assert sheet(state, "MOVE H2 H1").ok
    assert sheet(state, "MOVE I3 I4").ok


def test_connection_is_checked_at_the_moment_of_each_move():
    # Decision: a relay moved earlier in the turn can reconnect a unit that moves after it.
    state = position(north="RELAY H2\nINFANTRY I2\nINFANTRY A1", south="INFANTRY T20\nRELAY T21")
    assert not connected(state, "I2")
    assert sheet(state, "MOVE H2 I3\nMOVE I2 J1").ok
    assert "err-cut-off" in keys(sheet(state, "MOVE I2 J1\nMOVE H2 I3"))
    after = play(state, "MOVE H2 I3")
    assert connected(after, "I2")


def test_an_intact_enemy_arsenal_stops_a_line():
    # Rulebook, "UNITA'": each army "e' composta da: - 2 arsenali; ..."; "Arsenali & Staffette":
    # "Le linee di comunicazione sono bloccate dalle montagne e da ogni unità nemica".
    # The relay T8 (on D8's column) relays West along row T: T7 T6 T5 T4, then South's
    # arsenal T3 stops the line, so T2 and T1 are not on it and the infantry in T1 is cut off.
    state = position(north="RELAY T8\nINFANTRY T1\nINFANTRY A1")
    lines = covered(state, "north")
    assert {"T7", "T4"} <= lines and not {"T3", "T2", "T1"} & lines
    assert not connected(state, "T1")
    assert "err-cut-off" in keys(sheet(state, "MOVE T1 S1"))
    # Destroyed, the arsenal is gone: the line runs on to the edge.
    open_ = position(north="RELAY T8\nINFANTRY T1\nINFANTRY A1", destroyed=["T3"])
    assert {"T2", "T1"} <= covered(open_, "north") and connected(open_, "T1")
