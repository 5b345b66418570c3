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
    casa corrispondente viene tolto dal tabellone, il corteo si smembra in due parti"."""
    after, _ = resolve_server(police_state(bag=[21, 70]))
    red = after.party("red")
    assert red.arrested == 1
    assert red.corteo.squares == (6, 11, 16)
    assert red.headless == ((26, 31, 36, 41),)
    assert after.guards[0].square == 21
    assert after.police is not None and after.police.acts[0].seat == "red"


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
    """"Il numero di guardie sul tabellone dev'essere sempre pari al numero dei cortei ... se un corteo
    viene smembrato la guardia più vicina può essere tolta" - decision: at the next police step, the
    highest-ranked guards leave first."""
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
