"""Forced retreat (rulebook, "Cattura e Ritirata forzata")."""

from pbem.games.kriegspiel import RULES

from .helpers import connected, keys, play, position, sheet, unit_at

# North's horse relay K8 stands on D8's column and relays along K8-L7-M6-N5-O4-P3-Q2-R1,
# so the North cavalry O4 is connected.  South's O3 is on T3's northward line, Q6 on its
# NE line, the row T on its eastward line.
NORTH = "HORSE-RELAY K8\nCAVALRY O4\nINFANTRY A1"
SOUTH = "INFANTRY O3 Q6 T10 T11 T12 T25\nRELAY T20"


def pushed():
    """North's cavalry charges O3: 7 against 6, a forced retreat; South to move."""
    state = position(north=NORTH, south=SOUTH)
    after = play(state, "ATTACK O3")
    assert after.last_turn.attack.attack == 7 and after.last_turn.attack.defence == 6
    return after


def test_attack_one_above_defence_forces_a_retreat():
    # "Se la potenza offensiva e' maggiore di un solo punto, l'unita' colpita resiste ma deve
    # essere messa in ritirata forzata."
    after = pushed()
    assert after.last_turn.attack.result == "retreat"
    assert unit_at(after, "O3").id == after.retreat
    view = RULES.view(after, "south")
    assert [u["square"] for u in view["units"] if u["retreat"]] == ["O3"]


def test_the_retreat_is_the_first_move_of_the_next_turn():
    # "il difensore e' obbligato a muovere l'unita' all'inizio del proprio prossimo turno".
    state = pushed()
    assert keys(sheet(state, "PASS")) == ["err-retreat-missing"]
    s = sheet(state, "MOVE T25 S25\nMOVE O3 P3")
    assert keys(s)[0] == "err-retreat-first"
    assert s.diagnostics[0].suggestion.key == "hint-retreat"
    after = play(state, "MOVE O3 P3")
    assert after.last_turn.moves[0].forced and after.retreat is None


def test_the_retreat_counts_as_one_of_the_five_moves():
    state = pushed()
    five = "MOVE O3 P3\nMOVE Q6 Q7\nMOVE T25 S25\nMOVE T10 S10\nMOVE T11 S11"
    assert sheet(state, five).ok
    assert keys(sheet(state, five + "\nMOVE T12 S12")) == ["err-too-many-moves"]


def test_the_retreating_unit_adds_no_attack_that_turn():
    # "Il pezzo che si sta ritirando e' inoltre escluso dal conteggio del punteggio offensivo
    # di un eventuale attacco nel turno corrente."  P3 is next to O4 but adds nothing; Q6 fires.
    state = pushed()
    after = play(state, "MOVE O3 P3\nATTACK O4")
    assert connected(after, "P3")
    rec = after.last_turn.attack
    assert [c.square for c in rec.attackers] == ["Q6"] and rec.attack == 4
    assert rec.result == "none"


def test_no_square_to_retreat_to_means_capture_at_once():
    # "Se non ci sono caselle disponibili per la ritirata, l'unita' e' automaticamente catturata."
    # T1 is boxed in by S1, S2 (North) and T2 (South); defence 6 + 6 + 1 (relay on T3) = 13,
    # attack 7 + 7 (two adjacent cavalry, each a charge) = 14.
    state = position(north="HORSE-RELAY K8\nRELAY R1\nCAVALRY S1 S2\nINFANTRY A1",
                     south="INFANTRY T1 T2 T25\nRELAY T3")
    after = play(state, "ATTACK T1")
    rec = after.last_turn.attack
    assert (rec.attack, rec.defence, rec.result, rec.retreat_blocked) == (14, 13, "retreat", True)
    assert unit_at(after, "T1") is None and after.retreat is None
    assert [c.square for c in after.last_turn.captured] == ["T1"]


def test_a_disconnected_unit_cannot_retreat_and_is_captured():
    # Decision: a disconnected unit cannot move, so it cannot retreat.  O5 is cut off; O3 lends
    # it 6; the cavalry O4 charges with 7.
    state = position(north=NORTH, south="INFANTRY O5 O3 T25\nRELAY T20")
    assert not connected(state, "O5")
    after = play(state, "ATTACK O5")
    rec = after.last_turn.attack
    assert (rec.attack, rec.defence, rec.retreat_blocked) == (7, 6, True)
    assert unit_at(after, "O5") is None


def test_default_orders_make_the_pending_retreat():
    # Decision: squares keeping the connection first, then away from the attackers, then
    # towards the own edge (row T for South): P3 rather than N3.
    state = pushed()
    default = RULES.default_orders(state, "south")
    assert default.ok and default.canonical() == "MOVE O3 P3"
    after = RULES.resolve(state, {"south": default}, None).state  # no dice needed
    assert after.last_turn.moves[0].forced


def test_default_orders_without_retreat_pass():
    state = position(north=NORTH, south=SOUTH, to_move="south")
    assert RULES.default_orders(state, "south").canonical() == "PASS"
