"""Recruiting the indifferent: frontal jumps, growth of the corteo, replacement from the bag and
the waiting area (rulebook: "L'obiettivo del movimento è coinvolgere gli indifferenti ...",
"Al posto dell'ultimo numero catturato ...", "Dopo aver esaurito il movimento ...")."""

from pbem.games.arditi import RULES
from pbem.games.arditi.tables import NUMBERS

from .helpers import LoopDice, corteo, keys, play, position, random_game, sheet, squares


def base(**kw):
    cortei = kw.pop("cortei", None) or {"red": corteo(22, 17), "blue": corteo(60)}
    return position(cortei, **kw)


def test_a_frontal_jump_recruits_and_the_corteo_grows():
    """"quando la testa del corteo si trova davanti un numero ... può saltarlo sostituendo il numero
    con un token del proprio colore" - the token stands where the number was."""
    state = base(numbers=[27], roll=2)
    s = sheet(state, "PATH 32")  # two squares on, over a number: a jump, JUMP may be left out
    assert s.ok and s.canonical() == "PATH JUMP 32"
    after = play(state, "PATH 32")
    assert squares(after, "red") == (32, 27, 22)
    assert after.party("red").captured == (27,)
    assert after.party("red").corteo.militants == 2
    assert sheet(state, "SALTA 32").canonical() == "PATH JUMP 32"
    assert sheet(state, "JUMP 32").canonical() == "PATH JUMP 32"


def test_a_jump_uses_two_points():
    """Decision: the roll counts squares ("di tante case"), and a jump moves the head two squares."""
    assert NUMBERS.jump_cost == 2
    assert keys(sheet(base(numbers=[27], roll=1), "JUMP 32")) == ["err-jump-points"]
    assert sheet(base(numbers=[27], roll=3), "PATH 32 37").ok


def test_jumps_are_frontal_only():
    """"Si possono saltare i numeri solo frontalmente, non è possibile svoltare a destra o sinistra
    durante un salto" - the number must be straight ahead of the head."""
    state = base(numbers=[23], roll=2)  # 23 is to the left of a head marching counter-clockwise
    assert keys(sheet(state, "JUMP 24")) == ["err-jump-frontal"]
    assert keys(sheet(state, "PATH 23")) == ["err-step-number"]


def test_two_numbers_in_line_cannot_be_jumped():
    """"non si possono saltare due numeri allineati su case contigue, la casa di arrivo dopo il salto
    dev'essere libera"."""
    assert keys(sheet(base(numbers=[27, 32], roll=2), "JUMP 32")) == ["err-jump-two"]


def test_the_landing_square_must_be_free():
    blocked = base(cortei={"red": corteo(22, 17), "blue": corteo(32, 37)}, numbers=[27], roll=2)
    assert keys(sheet(blocked, "JUMP 32")) == ["err-jump-landing"]
    police = base(numbers=[27], roll=2, guards=[("pawn", 32)])
    assert keys(sheet(police, "JUMP 32")) == ["err-jump-guard"]
    nothing = base(roll=2)
    assert keys(sheet(nothing, "JUMP 32")) == ["err-jump-nothing"]


def test_a_jump_across_the_edge_of_the_sphere():
    state = base(cortei={"red": corteo(2, 3), "blue": corteo(60)}, numbers=[1], roll=2)  # marching outward
    after = play(state, "PATH 46")  # over 1, out of the board, in on ray 10
    assert squares(after, "red") == (46, 1, 2)


def test_several_recruits_in_one_turn():
    """"In uno stesso turno puoi catturare anche più d'un numero, ciascuno dei quali aumenterà di
    un'unità la lunghezza del 'serpente'"."""
    state = base(numbers=[27, 37], roll=4)
    after = play(state, "PATH 32 42")
    assert after.party("red").captured == (27, 37)
    assert squares(after, "red") == (42, 37, 32, 27)
    assert after.last_move is not None and len(after.last_move.refills) == 2


def test_each_recruit_is_replaced_from_the_bag():
    """"dovrà pescare dal sacchetto tanti nuovi numeri ... quanti sono quelli appena guadagnati"; a
    draw is a roll over the numbers left in the bag."""
    state = base(numbers=[27, 70], roll=2, bag=[5, 10, 15])
    dice = LoopDice([2, 4])
    s = sheet(state, "PATH 32")
    after = RULES.resolve(state, {"red": s}, dice).state
    assert after.numbers == (10, 70)
    assert after.bag == (5, 15)
    assert [(r.sides, r.purpose) for r in dice.record] == [
        (3, "draw from the bag (rank among the numbers left): a new indifferent after red's recruit"), (6, "die for blue")]


def test_a_covered_square_sends_the_number_to_the_centre_until_it_is_free():
    """"se la casa del nuovo numero pescato è già occupata dal corpo di un corteo ... quel numero viene
    calato momentaneamente sulla casa centrale ... non appena il corteo che le occupava si allontana
    dalle rispettive case quei numeri si possono mettere in gioco regolarmente"."""
    state = base(numbers=[27], roll=2, bag=[22, 80])
    after = play(state, "PATH 32")  # draws 22: under red's tail
    assert after.waiting == (22,) and 22 not in after.numbers
    assert after.to_move == "blue" and after.placed == ()
    after = play(after, "STAY")  # red's turn begins: 22 still covered
    assert after.to_move == "red" and after.waiting == (22,)
    after = play(after, "PATH 37")  # the tail leaves 22; blue's turn begins
    assert after.placed == (22,) and after.waiting == () and 22 in after.numbers


def test_an_arrested_militant_comes_back_with_a_recruit():
    """"I militanti arrestati possono tornare in gioco a partire dal turno successivo, con la recluta
    d'un nuovo indifferente" - the tail stays where it is, so the corteo grows by two."""
    state = base(numbers=[27], roll=2, arrested={"red": 1})
    after = play(state, "PATH 32")
    assert squares(after, "red") == (32, 27, 22, 17)
    assert after.party("red").arrested == 0
    assert after.last_move is not None and after.last_move.returned == 1


def test_twelve_indifferent_at_the_start_of_every_turn():
    """"in modo tale che il numero totale degli indifferenti sul tabellone all'inizio d'ogni turno sia
    sempre 12" (counting those waiting in the centre)."""
    for state in random_game(seed=3, seats=("red", "blue", "green"), phases=120):
        if state.stage == "move" and state.bag:
            assert len(state.numbers) + len(state.waiting) == NUMBERS.indifferent
