"""The committee along its corteo, street clashes, headless parts and rejoining (rulebook: "In
condizioni normali l'ultima pedina del corteo viene spostata in testa, ma quando avviene uno
scontro di piazza ..." and the two paragraphs after it)."""

from pbem.games.arditi import RULES
from pbem.games.arditi.board import BOARD

from .helpers import corteo, keys, play, position, sheet

BLUE_MIDDLE = corteo(33, 28, 23, 18, 13, committee=2)  # ring 3, committee on 23, two on each side


def test_the_committee_moves_along_its_corteo_one_point_a_square():
    """"è possibile impiegare una parte dei punti movimento per far avanzare o arretrare il comitato
    ... se ad esempio voglio muoverlo di 3 case, dovrò usare tanti punti movimento scambiandolo di
    posto con la pedina che si trova alla casa in cui desidero spostarla"."""
    state = position({"red": corteo(22, 17, 12, 7), "blue": corteo(60)}, roll=2)
    after = play(state, "ALONG 2 BACK")
    red = after.party("red").corteo
    assert red.squares == (22, 17, 12, 7) and red.committee_square == 12
    assert sheet(state, "LUNGO 2 INDIETRO").canonical() == "ALONG 2 BACK"
    assert sheet(state, "ALONG TO 12").canonical() == "ALONG 2 BACK"
    assert sheet(state, "LUNGO A 12").canonical() == "ALONG 2 BACK"


def test_moves_along_the_corteo_are_checked():
    state = position({"red": corteo(22, 17, 12, 7), "blue": corteo(60)}, roll=2)
    assert keys(sheet(state, "ALONG 1 FORWARD\nPATH 27")) == ["err-along-end-front"]
    assert keys(sheet(state, "ALONG 4 BACK")) == ["err-along-range"]
    assert keys(sheet(state, "ALONG 1 BACK\nALONG 1 FORWARD")) == ["err-along-direction"]
    assert keys(sheet(position({"red": corteo(22, 17, 12, 7), "blue": corteo(60)}, roll=1),
                      "ALONG 2 BACK")) == ["err-along-points"]
    assert keys(sheet(state, "ALONG TO 50")) == ["err-along-target"]


def test_a_committee_inside_the_corteo_stays_put_only_the_last_piece_moves():
    """"per ogni passo devi togliere l'ultima pedina in coda e disporla sopra una delle tre case
    libere confinanti con la testa"; the committee moves along the line only "quando avviene uno
    scontro di piazza ... scambiandolo di posto con la pedina" - so a committee inside its corteo is
    not carried along: 39 goes to 14, red's committee stays on 29, next to blue's militant on 28
    only, and no clash happens (it used to be carried to 24, next to blue's committee on 23)."""
    state = position({"red": corteo(19, 24, 29, 34, 39, committee=2), "blue": corteo(28, 23, 18, committee=1)},
                     roll=1)
    after = play(state, "PATH 14")
    red = after.party("red").corteo
    assert red.squares == (14, 19, 24, 29, 34) and red.committee_square == 29
    assert after.last_move is not None and after.last_move.clashes == ()
    assert after.party("blue").corteo == corteo(28, 23, 18, committee=1) and after.party("blue").headless == ()


def test_a_committee_that_is_the_last_piece_is_moved_to_the_head():
    """"In condizioni normali l'ultima pedina del corteo viene spostata in testa" - decision: when the
    committee itself is the last piece, it is the piece lifted and put at the head; from there it
    leads (a committee at the head is the head: it moves, and the last militant takes its square)."""
    state = position({"red": corteo(19, 24, 29, committee=2), "blue": corteo(60)}, roll=2)
    after = play(state, "PATH 14 9")
    red = after.party("red").corteo
    assert red.squares == (9, 14, 19) and red.committee_square == 9


def test_a_committee_at_the_head_leads_the_march():
    """"muove il comitato organizzatore, ovvero la sua miniatura, di tante case quant'è il numero
    uscito" - the committee at the head moves; the last piece takes a free square next to it."""
    state = position({"red": corteo(22, 17, 12), "blue": corteo(60)}, roll=1)
    after = play(state, "PATH 27")
    assert after.party("red").corteo.squares == (27, 22, 17)
    assert after.party("red").corteo.committee_square == 27


def test_a_clash_is_brought_about_by_the_committee_moving():
    """"Lo scopo di questi movimenti è fare in modo che il comitato centrale del partito venga a
    trovarsi in corrispondenza con quello di un altro concorrente" - decision: a clash happens when
    the mover's committee comes next to the other (it moved in that action); committees already side
    by side when a step leaves the mover's committee where it is do not clash."""
    state = position({"red": corteo(14, 19, 24, 29, committee=1), "blue": corteo(17, 18, 23, committee=1)},
                     roll=1)
    after = play(state, "PATH 9")  # red's committee stays on 19, next to blue's on 18, as before
    assert after.party("red").corteo.committee_square == 19
    assert after.last_move is not None and after.last_move.clashes == ()
    assert after.party("blue").headless == ()


def test_a_clash_cuts_the_attacked_corteo():
    """"Lo scopo di questi movimenti è fare in modo che il comitato centrale del partito venga a
    trovarsi in corrispondenza con quello di un altro concorrente. In tali condizioni il corteo
    aggredito si smembra in due parti" - decision: a clash is the mover's committee ending a step or a
    move along its corteo next to (orthogonally) another party's committee that is inside its corteo."""
    state = position({"red": corteo(26, 21, 22, 17), "blue": BLUE_MIDDLE}, roll=2)
    after = play(state, "ALONG 2 BACK")  # red's committee to 22, next to blue's on 23
    move = after.last_move
    assert move is not None and len(move.clashes) == 1
    clash = move.clashes[0]
    assert (clash.attacked, clash.at, clash.attacker_at) == ("blue", 23, 22)
    blue = after.party("blue")
    # Two militants each side: a tie goes to the back part; the committee goes past its tail (13),
    # straight on to 8, and leads it the other way.
    assert blue.corteo.squares == (8, 13, 18) and blue.corteo.committee == 0
    assert blue.headless == ((33, 28),)
    assert 23 not in {sq for sq in blue.corteo.squares}
    assert BOARD.beyond(blue.corteo.back, blue.corteo.front) == 3  # marching towards the edge, reversed


def test_the_committee_takes_the_larger_part_and_reverses_it():
    """"potrà scegliere di portarsi all'estremità opposta di una delle due parti ..., scegliendo se
    possibile la più numerosa, quella parte del corteo invertirà il senso di marcia" - decision: the
    committee goes past the rear end of the larger part (the end at the cut for the front part), onto
    the square straight on if free, else the free neighbour with the lowest number."""
    blue = corteo(38, 33, 28, 23, 18, committee=3)  # three in front of the committee, one behind
    state = position({"red": corteo(25, behind=20), "blue": blue}, roll=1)
    after = play(state, "PATH 24")  # a step puts red's committee next to blue's
    b = after.party("blue")
    assert b.corteo.squares == (27, 28, 33, 38)  # past 28 (23 is the cut): 27; front part reversed
    assert b.headless == ((18,),)
    assert after.last_move is not None and after.last_move.clashes[0].committee_to == 27


COILED_BLUE = corteo(12, 11, 16, 21, 22, 23, 24, committee=5)  # five in front of the committee on 23, one behind


def test_the_attacked_committee_goes_only_where_the_coil_rule_holds():
    """"Nessuna pedina può trovarsi su casa confinante nello stesso momento con più di altre 2 pedine
    dello stesso colore, il corteo non si può arrotolare su sé stesso" - the attacked committee's new
    square keeps the rule too. Past the front part's rear end (22) straight on is the cut (23); the
    lowest free neighbour, 17, touches 12, 16 and 22: three of blue's pieces. It goes to 27."""
    state = position({"red": corteo(33, behind=38), "blue": COILED_BLUE}, roll=1)
    after = play(state, "PATH 28")  # red's committee next to blue's on 23
    blue = after.party("blue")
    assert after.last_move is not None and after.last_move.clashes[0].committee_to == 27
    assert blue.corteo.squares == (27, 22, 21, 16, 11, 12) and blue.corteo.committee == 0
    assert blue.headless == ((24,),)
    pieces = set(blue.corteo.squares) | {sq for h in blue.headless for sq in h}
    assert all(sum(1 for n in BOARD.neighbours(q) if n in pieces) <= 2 for q in pieces)


def test_no_square_keeping_the_coil_rule_means_the_corteo_holds():
    """Decision: when no free square past the rear end of either part keeps the coil rule ("Nessuna
    pedina può trovarsi su casa confinante ... con più di altre 2 pedine dello stesso colore"), the
    clash changes nothing and the report says the corteo holds. Here 17 is free but would touch
    three of blue's pieces; 27, 25, 19 and 29 hold numbers."""
    state = position({"red": corteo(33, behind=38), "blue": COILED_BLUE}, roll=1, numbers=[19, 25, 27, 29])
    after = play(state, "PATH 28")
    assert after.last_move is not None and after.last_move.clashes[0].committee_to is None
    assert after.party("blue").corteo == COILED_BLUE and after.party("blue").headless == ()


def test_the_attacked_committee_does_not_land_next_to_the_part_it_leaves():
    """"il corteo aggredito si smembra in due parti" and a part is rejoined once the head is "su casa
    confinante con una delle due estremità del gruppo rimasto isolato, da quel momento" - decision: the
    committee's new square touches no end of a headless part of its colour, or the split would be
    undone at once. Past 18 (the larger part's rear end), 17 holds a number and 19 touches 24, the
    other part's end: the committee leads the smaller part, from 25."""
    state = position({"red": corteo(27, behind=32), "blue": corteo(8, 13, 18, 23, 24, committee=3)}, roll=1,
                     numbers=[17])
    after = play(state, "PATH 22")
    blue = after.party("blue")
    assert blue.corteo.squares == (25, 24) and blue.headless == ((8, 13, 18),)


def test_no_attack_on_a_committee_at_the_head_or_the_tail():
    """"Non è consentito attaccare un avversario quando la sua leadership si trova in testa o in coda
    a un corteo"."""
    for committee in (0, 2):
        blue = corteo(28, 23, 18, committee=committee) if committee == 0 else corteo(33, 28, 23, committee=2)
        state = position({"red": corteo(25, behind=20), "blue": blue}, roll=1)
        after = play(state, "PATH 24")
        assert after.last_move is not None and after.last_move.clashes == ()
        assert after.party("blue").headless == ()


def test_a_headless_part_stays_put_and_cannot_be_recruited():
    """"L'altra parte dell'assembramento, quella senza testa, deve rimanere ferma dov'è fino a quando
    non viene ricongiunta al resto del corteo. Non potrà essere reclutata da nessuno degli altri
    giocatori"."""
    state = position({"red": corteo(22, 17), "blue": corteo(8, 13)}, roll=2, headless={"blue": [[27, 32]]})
    assert keys(sheet(state, "JUMP 32")) == ["err-jump-nothing"]
    after = play(state, "PATH 23 24")
    assert after.party("blue").headless == ((27, 32),)


def test_rejoining_by_bringing_the_head_next_to_an_end():
    """"Per ricongiungersi a una parte di corteo rimasta senza guida bisogna portare la testa del
    'serpente' su casa confinante con una delle due estremità del gruppo rimasto isolato, da quel
    momento può tornare a muoversi come un corpo unico" - decision: the part is taken up in front of
    the head, whose march now runs through it: its far end becomes the new front."""
    state = position({"red": corteo(19, 14), "blue": corteo(60)}, roll=1, headless={"red": [[34, 29]]})
    after = play(state, "PATH 24")
    red = after.party("red")
    assert red.headless == ()
    assert red.corteo.squares == (34, 29, 24, 19) and red.corteo.committee_square == 24
    assert after.last_move is not None and after.last_move.rejoins[0].part == (34, 29)


def test_every_part_the_head_touches_is_rejoined():
    """"bisogna portare la testa del 'serpente' su casa confinante con una delle due estremità del
    gruppo rimasto isolato, da quel momento può tornare a muoversi come un corpo unico" - every part
    the head touches comes back, not only the first: red's lone committee steps to 28, touching 27 and
    29, and takes up both (27 26) and (29 30). The larger part leads; on a tie the one left headless
    first, and the other becomes the tail."""
    state = position({"red": corteo(33, behind=38), "blue": corteo(60)}, roll=1,
                     headless={"red": [[27, 26], [29, 30]]})
    after = play(state, "PATH 28")
    red = after.party("red")
    assert red.headless == ()
    assert red.corteo.squares == (26, 27, 28, 29, 30) and red.corteo.committee_square == 28
    assert red.corteo.militants == 4
    assert after.last_move is not None and [r.part for r in after.last_move.rejoins] == [(27, 26), (29, 30)]
    view = RULES.view(after, None)
    assert next(p for p in view["parties"] if p["seat"] == "red")["score"] == 8


def test_a_part_touching_the_head_at_the_start_of_the_turn_is_taken_up():
    state = position({"red": corteo(24, 19), "blue": corteo(60)}, roll=1, headless={"red": [[29, 34]]})
    after = play(state, "STAY")
    assert after.party("red").headless == ()
    assert after.party("red").corteo.squares == (34, 29, 24, 19)


def test_several_clashes_can_break_a_corteo_into_several_parts():
    """"E' possibile che più scontri successivi smembrino lo stesso corteo in diverse parti"."""
    state = position({"red": corteo(26, 21, 22, 17), "blue": BLUE_MIDDLE}, roll=2,
                     headless={"blue": [[50, 55]]})
    after = play(state, "ALONG 2 BACK")
    assert after.party("blue").headless == ((50, 55), (33, 28))
    assert after.party("blue").isolated == 4


def test_a_committee_with_nowhere_to_go_holds_its_corteo():
    """Decision: if no free square lies past the rear end of either part, the clash changes nothing."""
    state = position({"red": corteo(25, behind=20), "blue": BLUE_MIDDLE}, roll=1,
                     guards=[("pawn", 8), ("bishop", 12), ("knight", 14), ("rook", 27), ("queen", 29)])
    after = play(state, "PATH 24")
    assert after.last_move is not None and after.last_move.clashes[0].committee_to is None
    assert after.party("blue").corteo == BLUE_MIDDLE and after.party("blue").headless == ()
