"""The police ("la celere"): guards from the first corteo of 7, drawn from the bag at the end of
each round, roadblocks and arrests (rulebook: "Dal momento in cui un corteo raggiunge le 7 unità in
coda interviene la celere ..." and "I militanti arrestati ...")."""

from pbem.games.arditi import RULES
from pbem.games.arditi.tables import NUMBERS, PIECES

from .helpers import corteo, play, position, resolve_server

SEVEN = corteo(6, 11, 16, 21, 26, 31, 36, 41)  # ring 1, committee on 6, 7 militants
SIX = corteo(6, 11, 16, 21, 26, 31, 36)


def police_state(**kw):
    cortei = kw.pop("cortei", None) or {"red": SEVEN, "blue": corteo(60)}
    return position(cortei, stage="police", **kw)


def test_a_guard_for_each_corteo_of_at_least_seven():
    """Decision: the text says "raggiunge le 7 unità", "più di 7 pedine" and "almeno 7 militanti";
    two of three say 7 counts, so a corteo of 7 militants or more brings a guard."""
    assert NUMBERS.police_threshold == 7
    six = position({"red": SIX, "blue": corteo(60)}, to_move="blue", roll=1)
    assert play(six, "STAY").stage == "move"  # end of the round: no police, the next round begins
    seven = position({"red": SEVEN, "blue": corteo(60)}, to_move="blue", roll=1)
    after = play(seven, "STAY")
    assert after.stage == "police"
    phase = RULES.phase(after)
    assert phase.name == "police" and phase.awaiting == ()  # a step of the server's, nobody's turn


def test_the_pawn_enters_first_and_blocks_a_free_square():
    """"Se la guardia viene a trovarsi su casa libera assume la funzione di ostacolo fisico"."""
    after, dice = resolve_server(police_state(bag=[70, 71]))
    assert [(g.piece, g.square) for g in after.guards] == [("pawn", 70)]
    assert after.police is not None and after.police.entered == ("pawn",)
    assert after.police.acts[0].result == "block"
    assert [r.purpose for r in dice.record] == ["draw from the bag (rank among the numbers left): police pawn",
                                                "die for red"]
    assert after.stage == "move" and after.round == 4 and after.to_move == "red"
    assert after.bag == (71,)  # the number drawn for the police is used up


def test_a_guard_on_a_militant_arrests_it_and_cuts_the_corteo():
    """"se invece il gendarme cade sopra ... il corpo di un corteo, allora il token che si trovava sulla
    casa corrispondente viene tolto dal tabellone, il corteo si smembra in due parti" - and since "Il
    numero di guardie sul tabellone dev'essere sempre pari al numero dei cortei ... con più di 7
    pedine", the corteo of 7 cut to 2 takes its guard away at once: the nearest, the one that arrested."""
    after, _ = resolve_server(police_state(bag=[21, 70]))
    red = after.party("red")
    assert red.arrested == 1
    assert red.corteo.squares == (6, 11, 16)
    assert red.headless == ((26, 31, 36, 41),)
    assert after.police is not None and after.police.acts[0].seat == "red"
    assert after.police.acts[0].dismissed == ("pawn",)
    assert after.guards == ()


def test_an_arrest_that_leaves_a_corteo_of_seven_keeps_the_guard():
    """"Il numero di guardie sul tabellone dev'essere sempre pari al numero dei cortei ..." - a
    corteo still of 7 after the arrest keeps its guard, now a roadblock on the square it emptied."""
    eight = corteo(6, 11, 16, 21, 26, 31, 36, 41, 46)  # 8 militants: the tail arrested leaves 7
    after, _ = resolve_server(police_state(cortei={"red": eight, "blue": corteo(60)}, bag=[46, 70]))
    assert after.party("red").corteo.militants == 7 and after.party("red").arrested == 1
    assert [(g.piece, g.square) for g in after.guards] == [("pawn", 46)]
    assert after.police is not None and after.police.acts[0].dismissed == ()


RING_FOUR_RED = corteo(49, 54, 59, 64, 69, 74, 79, 84, 89)  # 8 militants
RING_TWO_BLUE = corteo(42, 37, 32, 27, 22, 17, 12, 7, 2, committee=3)  # 8 militants, committee on 27


def test_the_nearest_guard_leaves_when_a_corteo_is_dismembered():
    """"Il numero di guardie sul tabellone dev'essere sempre pari al numero dei cortei sul campo con
    più di 7 pedine in coda, se un corteo viene smembrato la guardia più vicina può essere tolta dal
    tabellone" - decision: "nearest" in the steps a corteo walks, from the guard to the nearest piece
    of the corteo just cut; and it leaves at once. Green's clash cuts blue to 5 militants: the pawn
    on 26 (2 steps from blue's nearest piece, 1 from the cut) leaves, not the bishop on 60 (4 and 7)."""
    state = position({"red": RING_FOUR_RED, "blue": RING_TWO_BLUE, "green": corteo(33, 38)}, roll=1,
                     to_move="green", guards=[("pawn", 26), ("bishop", 60)])
    after = play(state, "PATH 28")
    assert after.party("blue").corteo.militants == 5
    assert after.last_move is not None and after.last_move.clashes[0].dismissed == ("pawn",)
    assert [(g.piece, g.square) for g in after.guards] == [("bishop", 60)]
    assert "the pawn leaves the board" in RULES.describe(RULES.view(after, None), "en")
    after_police, _ = resolve_server(after, [1])
    assert [g.piece for g in after_police.guards] == ["bishop"]  # one guard for red's corteo of 8
    assert after_police.police is not None and after_police.police.left == ()


def test_a_tie_in_distance_goes_to_the_guard_nearer_the_cut_then_to_the_higher_rank():
    """"la guardia più vicina" - decision for ties: the guard nearer the square where the corteo was
    cut leaves; still tied, the higher-ranked (pieces enter lowest rank first, and leave the other way)."""
    def dismissed(guards):
        state = position({"red": RING_FOUR_RED, "blue": RING_TWO_BLUE, "green": corteo(33, 38)}, roll=1,
                         to_move="green", guards=guards)
        after = play(state, "PATH 28")
        assert after.last_move is not None
        return after.last_move.clashes[0].dismissed
    # 21 and 31: one step from blue (22, 32), two from the cut on 27: the bishop leaves.
    assert dismissed([("pawn", 21), ("bishop", 31)]) == ("bishop",)
    # 16: one step from 17 but three from the cut; 21 is two from it: the pawn on 21 leaves.
    assert dismissed([("pawn", 21), ("bishop", 16)]) == ("pawn",)


def test_the_leadership_is_not_arrested():
    """Decision: only militants (tokens) are arrested; a guard that draws a committee's square stays
    where it was (a guard entering now stays off the board until the next round)."""
    after, _ = resolve_server(police_state(bag=[6, 70]))
    assert after.party("red").arrested == 0
    assert after.guards[0].square is None
    assert after.police is not None and after.police.acts[0].result == "committee"


def test_pieces_enter_and_move_from_the_lowest_rank():
    """"Il movimento della celere va effettuato iniziando dalla figura di grado inferiore ... Le figure
    vanno messe in gioco in ordine crescente d'importanza, prima il pedone poi le altre"."""
    assert [p.name for p in PIECES] == ["pawn", "bishop", "knight", "rook", "queen", "king"]
    blue = corteo(63, 68, 73, 78, 83, 88, 3, 8)  # ring 3, 7 militants
    after, dice = resolve_server(police_state(cortei={"red": SEVEN, "blue": blue}, bag=[70, 71, 72]))
    assert [g.piece for g in after.guards] == ["pawn", "bishop"]
    assert [r.purpose for r in dice.record][:2] == ["draw from the bag (rank among the numbers left): police pawn",
                                                    "draw from the bag (rank among the numbers left): police bishop"]


def test_guards_leave_when_there_are_fewer_cortei_of_seven():
    """"Il numero di guardie sul tabellone dev'essere sempre pari al numero dei cortei" - guards leave
    as soon as a corteo is dismembered; a position with guards to spare at the police step (a game
    saved before they did) loses them there, the highest-ranked first."""
    state = police_state(guards=[("pawn", 70), ("bishop", 71)], bag=[72, 73])
    after, _ = resolve_server(state)
    assert [(g.piece, g.square) for g in after.guards] == [("pawn", 72)]
    assert after.police is not None and after.police.left == ("bishop",)
    none = police_state(cortei={"red": SIX, "blue": corteo(60)}, guards=[("pawn", 70)], bag=[72, 73])
    after, _ = resolve_server(none)
    assert after.guards == ()


def test_arrested_militants_cost_two_points():
    """"Ogni militante che alla fine della partita è rimasto fuori dal tabellone, rappresenta un
    militante arrestato e si paga con 2 punti di penalità"."""
    after, _ = resolve_server(police_state(bag=[21, 70]))
    view = RULES.view(after, None)
    red = next(p for p in view["parties"] if p["seat"] == "red")
    assert red["score"] == 2 * 2 - 4 - 2  # 2 militants with the committee, 4 headless, 1 arrested


def test_the_police_phase_happens_only_when_needed():
    state = position({"red": corteo(22, 17), "blue": corteo(60)}, to_move="blue", roll=1)
    assert play(state, "STAY").stage == "move"
    with_guard = position({"red": corteo(22, 17), "blue": corteo(60)}, to_move="blue", roll=1,
                          guards=[("pawn", 70)])
    assert play(with_guard, "STAY").stage == "police"  # a guard must still leave the board


def test_a_head_left_next_to_a_headless_part_by_an_arrest_takes_it_up_at_once():
    """"bisogna portare la testa del 'serpente' su casa confinante con una delle due estremità del
    gruppo rimasto isolato, da quel momento può tornare a muoversi come un corpo unico" - the arrest on
    22 leaves red's committee (23) alone at the head, next to the end (28) of an older headless part:
    it is taken up at once, not at red's next turn - which never comes here: the draw empties the bag
    and the game ends, with the part scored as led."""
    red = corteo(21, 22, 23, committee=2)
    blue = corteo(46, 51, 56, 61, 66, 71, 76, 81)  # 7 militants: the pawn's corteo
    state = police_state(cortei={"red": red, "blue": blue}, headless={"red": [[28, 33]]}, guards=[("pawn", 70)],
                         bag=[22])
    after, _ = resolve_server(state)
    red_after = after.party("red")
    assert red_after.corteo.squares == (33, 28, 23) and red_after.corteo.committee_square == 23
    assert red_after.headless == ((21,),) and red_after.arrested == 1
    assert after.police is not None and after.police.acts[0].rejoined == ((28, 33),)
    assert after.result is not None and after.result.reason == "bag"
    score = next(s for s in after.result.scores if s.seat == "red")
    assert (score.active, score.isolated, score.points) == (2, 1, 2 * 2 - 1 - 2)
    assert "takes up again its headless part of 2 militants: 28, 33" in RULES.describe(RULES.view(after, None), "en")
