"""Moving a corteo: the snake, its facing, orthogonal steps, no square twice, the coil rule,
the exact roll (rulebook: "Il corteo ha dunque inizio ..." and "Le pedine saltate ...")."""

from pbem.games.arditi import RULES

from .helpers import corteo, keys, play, position, sheet, squares


def red(*sq: int, **kw) -> dict:
    return {"red": corteo(*sq, **kw), "blue": corteo(60)}


def test_the_tail_follows_the_head_like_a_snake():
    """"per ogni passo devi togliere l'ultima pedina in coda e disporla sopra una delle tre case
    libere confinanti con la testa del corteo stesso"."""
    state = position(red(22, 17, 12), roll=2)
    after = play(state, "PATH 27 32")
    assert squares(after, "red") == (32, 27, 22)
    assert after.last_move is not None and after.last_move.front_path == (22, 27, 32)


def test_the_roll_is_the_number_of_squares_and_steps_may_turn():
    """"muove il comitato organizzatore ... di tante case quant'è il numero uscito ... è possibile
    cambiare direzione anche più volte nel corso di una stessa mossa"."""
    state = position(red(22, 17), roll=3)
    after = play(state, "PATH 23 28 29")
    assert squares(after, "red") == (29, 28)
    assert keys(sheet(state, "PATH 23 28")) == ["err-short"]  # 2 of the 3 points


def test_no_diagonal_steps():
    """"non può spostarsi in diagonale ma soltanto sullo stesso anello oppure sullo stesso raggio"."""
    s = sheet(position(red(23, behind=22), roll=1), "PATH 29")
    assert keys(s) == ["err-not-adjacent"]
    assert s.diagnostics[0].suggestion is not None and s.diagnostics[0].suggestion.key == "hint-next"


def test_no_reversing():
    """"a un corteo non è consentito ritornare sui propri passi" - also a lone committee keeps its facing."""
    assert keys(sheet(position(red(23, behind=22), roll=1), "PATH 22")) == ["err-reverse"]
    assert keys(sheet(position(red(22, 17), roll=1), "PATH 17")) == ["err-reverse"]


def test_no_square_twice_in_one_turn():
    """"non si può toccare due volte la stessa casa nello stesso turno" (the start square counts)."""
    state = position(red(23, behind=22), roll=4)
    assert keys(sheet(state, "PATH 24 29 28 23")) == ["err-touched"]


def test_the_corteo_cannot_coil_up():
    """"Nessuna pedina può trovarsi su casa confinante nello stesso momento con più di altre 2
    pedine dello stesso colore, il corteo non si può arrotolare su sé stesso"."""
    # Five in a row on ring 2; turning inward and back along ring 3 would make 17 touch three.
    long = position(red(22, 17, 12, 7, 2), roll=2)
    assert keys(sheet(long, "PATH 23 18")) == ["err-coil"]
    # Four in a row: the tight turn closes a 2x2 block, where every piece touches only two.
    short = position(red(22, 17, 12, 7), roll=2)
    assert squares(play(short, "PATH 23 18"), "red") == (18, 23, 22, 17)


def test_the_coil_rule_counts_headless_parts_of_the_same_colour_only():
    own = position({"red": corteo(22, 17), "blue": corteo(60)}, roll=1, headless={"red": [[19, 24, 29]]})
    assert keys(sheet(own, "PATH 23")) == ["err-coil"]
    other = position({"red": corteo(22, 17), "blue": corteo(19, 24, 29)}, roll=1)
    assert sheet(other, "PATH 23").ok


def test_only_free_squares():
    state = position({"red": corteo(22, 17), "blue": corteo(27, 32)}, roll=1, numbers=[23],
                     guards=[("pawn", 21)])
    assert keys(sheet(state, "PATH 27")) == ["err-step-occupied"]
    assert keys(sheet(state, "PATH 23")) == ["err-step-number"]
    assert keys(sheet(state, "PATH 21")) == ["err-step-guard"]


def test_a_hemmed_in_corteo_uses_what_it_can():
    """Decision: the whole roll must be used when a legal move can use it; otherwise the most
    points a legal move can use (here 1 of 4), with a warning."""
    state = position({"red": corteo(23, behind=22), "blue": corteo(18, 19)}, roll=4,
                     guards=[("pawn", 28), ("bishop", 25), ("knight", 29)])
    s = sheet(state, "PATH 24")
    assert s.ok and keys(s) == ["warn-blocked"]
    assert keys(sheet(state, "STAY")) == []


def test_stay_is_always_allowed_and_is_the_default():
    """Decision: STAY is what a missed deadline does, so a player may also write it."""
    state = position(red(22, 17), roll=5)
    assert RULES.default_orders(state, "red").canonical() == "STAY"
    after = play(state, "FERMO")
    assert squares(after, "red") == (22, 17)
    assert after.last_move is not None and after.last_move.mode == "stayed"
    assert keys(sheet(state, "STAY\nPATH 27")) == ["err-alone"]


def test_relative_directions_follow_the_facing():
    state = position(red(22, 17), roll=2)  # marching counter-clockwise on ring 2
    assert sheet(state, "F L").canonical() == "PATH 27 28"  # left of counter-clockwise is inward
    assert sheet(state, "R F").canonical() == "PATH 21 66"  # outward off the board, in on ray 14
    assert sheet(state, "AD").canonical() == "PATH 27 26"  # Italian letters, written together
    assert keys(sheet(position(red(22), roll=1), "F")) == ["err-no-facing"]


def test_a_lone_committee_without_facing_goes_anywhere_first():
    state = position(red(22), roll=1)
    for n in (21, 23, 17, 27):
        assert sheet(state, f"PATH {n}").ok


def test_only_the_awaited_seat_orders():
    state = position(red(22, 17), roll=2)
    assert keys(sheet(state, "PATH 61 62", seat="blue")) == ["err-not-your-turn"]


def test_the_front_may_enter_the_square_the_tail_leaves():
    """Decision: "togliere l'ultima pedina in coda e disporla ..." - the tail is lifted first, so in a
    tight 2x2 turn the front may step where the tail was."""
    state = position(red(22, 17, 18, 23), roll=1)  # a 2x2 block; the tail 23 touches the front 22
    assert squares(play(state, "PATH 23"), "red") == (23, 22, 17, 18)
