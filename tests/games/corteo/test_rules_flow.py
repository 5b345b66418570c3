"""The course of the game: set-up (C 3a, B 5), objectives held and covered (C 12a), the end and the
score (C 14, C 14a, B 15), the national march (C 13d)."""

from __future__ import annotations

from dataclasses import replace

from pbem.games.corteo import RULES
from pbem.games.corteo.board import city
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import PRISON, RESERVE
from pbem.games.corteo.units import counter
from tests.games.corteo.helpers import errors, loc, notes, position, resolve, terrains, unit


# -- set-up (C 3a, B 5) -------------------------------------------------------------------------------


def test_set_up_places_the_corteo_on_piazza_mento_and_the_power_by_its_rules():
    """C 3a: the 33 corteo units on Piazza Mento, 2 a hex; the power's 30: 10 piantoni on objectives,
    5 vigili within 7 hexes of a metro, barracks or objective hex, 10 celere and 5 carabinieri in
    barracks. Sheets that place nobody get the documented placements; the first hand begins."""
    state = RULES.new_game(["corteo", "potere"], {})
    new = resolve(state, None, "", [])
    assert (new.hand, new.stage, new.head_component) == (1, "corteo-movement", "MOV")
    mento = {h.label for h in city().place_hexes(city().start)}
    corteo = [u for u in new.units if counter(u.id).side == "corteo"]
    assert len(corteo) == 33 and all(u.loc in mento for u in corteo)
    assert max(sum(1 for u in corteo if u.loc == h) for h in mento) == 2
    kinds: dict[str, int] = {}
    for u in new.units:
        if counter(u.id).side == "potere" and u.loc != RESERVE:
            kinds[counter(u.id).unit.kind] = kinds.get(counter(u.id).unit.kind, 0) + 1
    assert kinds == {"piantoni": 10, "vigili": 5, "celere": 10, "carabinieri": 5}
    assert all(unit(new, f"PI{i}").presidio for i in range(1, 11))


def test_set_up_errors():
    """C 3a: corteo units only on Piazza Mento, two a hex; piantoni on objectives; celere and
    carabinieri in barracks; no blindati or lacrimogeni at the start."""
    state = RULES.new_game(["corteo", "potere"], {})
    terrains(B2="viale", G4="viale", D14="strada")
    assert "err-setup-start" in errors(state, "corteo", "PLACE MOV1 G4")
    assert "err-stack" in errors(state, "corteo", "PLACE MOV1 B2\nPLACE MOV2 B2\nPLACE MOV3 B2")
    assert "err-setup-objective" in errors(state, "potere", "PLACE PI1 D14")
    assert "err-setup-caserma" in errors(state, "potere", "PLACE CE1 D14")
    assert "err-setup-type" in errors(state, "potere", "PLACE BL1 G10")


# -- objectives (C 12a) -----------------------------------------------------------------------------------

GOVERNO = "K17"  # Piazza Fontana, 5 points a hex


def objective_value(label: str) -> int:
    o = city().objective_at(city().hex(label))
    assert o is not None, label
    return o.value


def test_entering_an_objective_ends_the_move():
    """C 12a: "Gli esa-obiettivi obbligano tutte le unità che passano attraverso essi a FERMARSI"."""
    terrains(L17="viale", K17="obiettivo", J17="strada")
    state = position({"MOV6": "L17"})
    assert "err-must-stop" in errors(state, "corteo", f"MOVE MOV6 {GOVERNO} J17")
    assert loc(resolve(state, "corteo", f"MOVE MOV6 {GOVERNO}", []), "MOV6") == GOVERNO


def test_an_objective_held_at_the_end_of_a_hand_is_covered_and_scored_when_left():
    """C 12a: held "per una MANO di gioco", "dovrà lasciarlo nel turno di gioco seguente"; once left it
    is covered ("va immediatamente ricoperto"), its points are the corteo's, and the hex "si
    considera come un esa-caseggiato, cioè VIETATO a qualsiasi giocatore"."""
    terrains(K17="obiettivo", L17="viale")
    value = objective_value(GOVERNO)
    state = position({"MOV6": GOVERNO}, stage="potere-movement")
    held = resolve(state, "potere", "PASS", [])
    assert (held.hand, held.held) == (3, (GOVERNO,))
    left = resolve(held, "corteo", "MOVE MOV6 L17", [])
    assert left.covered == (GOVERNO,) and left.points == value
    again = replace(left, stage="corteo-movement", hand=4)
    assert "err-terrain" in errors(again, "corteo", f"MOVE MOV6 {GOVERNO}")


def test_a_unit_that_does_not_leave_a_held_objective_is_moved_off_by_default():
    """C 12a: "dovrà lasciarlo nel turno di gioco seguente": a sheet that leaves it there gets the move."""
    state = position({"MOV6": GOVERNO}, hand=3, held=(GOVERNO,))
    new = resolve(state, "corteo", "PASS", [])
    assert loc(new, "MOV6") != GOVERNO and new.covered == (GOVERNO,)


def test_an_objective_cleared_by_the_power_before_the_hand_ends_scores_nothing():
    """C 12a: "Un esa-obiettivo occupato da unità del corteo per una fase o un turno di gioco, ma
    sgomberato dal potere prima della fine della MANO di gioco non si considera occupato"."""
    terrains(J17="strada", K17="obiettivo")
    state = position({"MOV6": GOVERNO, "CA1": "J17", "CA2": "J17", "CA3": "J16"}, stage="potere-combat")
    new = resolve(state, "potere", "PASS", [3])  # 12 v 4: 3-1, die 3: DR
    assert loc(new, "MOV6") != GOVERNO
    assert GOVERNO not in new.held and new.points == 0 and new.covered == ()


def test_two_units_on_an_objective_score_it_once():
    """C 12a: "I punti non variano se ad occupare l'obiettivo sono due unità cumulate"."""
    state = position({"MOV6": GOVERNO, "MOV7": GOVERNO}, hand=3, held=(GOVERNO,))
    new = resolve(state, "corteo", "PASS", [])
    assert new.points == objective_value(GOVERNO)


# -- the end (C 14, 14a, B 15) ------------------------------------------------------------------------------


def ending(mode: str = "advanced", points: int = 55):
    terrains(D14="strada", O19="metro", N2="case_popolari", J6="affollato")
    return position({"MOV1": "D14", "MOV2": "O19", "AUT1": "N2", "AUT2": "J6", "MOV6": PRISON, "MOV7": "D16"},
                    hand=10, stage="potere-movement", mode=mode, points=points)


def test_after_the_tenth_hand_spezzoni_on_the_map_outside_safe_hexes_score_for_the_power():
    """C 14 (and C 3a, hand 10): the power adds to the arrested units' strength that of "TUTTI gli
    spezzoni ... che stanno sulla mappa": those in QP, metro and crowded hexes are safe. MOV1 (6) on a
    street counts, MOV2 in the metro, AUT1 in QP, AUT2 in the market do not; the cordone MOV7 never
    does; the arrested MOV6 (4) does. 55 - 10 = 45: a draw."""
    new = resolve(ending(), "potere", "PASS", [])
    assert new.stage == "over"
    r = new.result
    assert r is not None and (r.corteo, r.potere, r.final, r.level, r.verdict) == (55, 10, 45, "draw", 40)
    outcome = RULES.outcome(new)
    assert outcome is not None and outcome.result == "draw"


def test_in_the_basic_game_only_the_arrested_count():
    """B 15: "Il giocatore-potere somma tutti i punti/potenza delle unità ... che è riuscito ad
    arrestare" (no spezzoni rule): 55 - 4 = 51, a narrow victory of the corteo."""
    new = resolve(ending("basic"), "potere", "PASS", [])
    r = new.result
    assert r is not None and (r.potere, r.final, r.level, r.verdict) == (4, 51, "corteo-narrow", 50)
    outcome = RULES.outcome(new)
    assert outcome is not None and outcome.winners == ("corteo",)


def test_objectives_held_at_the_end_of_the_tenth_hand_count():
    """C 12a, 14 (engine's reading): an objective held for the whole last hand is occupied "per una MANO
    di gioco": it is covered and scored at the end."""
    terrains(K17="obiettivo")
    state = position({"MOV6": GOVERNO}, hand=10, stage="potere-movement", points=0)
    new = resolve(state, "potere", "PASS", [])
    assert new.result is not None and new.result.corteo == objective_value(GOVERNO)


def test_victory_levels_and_the_comments_of_14a():
    """B "Tabella livelli di vittoria": 70 and over crushing corteo, 50-69 narrow corteo, 20-49 draw,
    0-19 narrow power, below 0 crushing power; C 14a: a comment for every ten points, "Meno di 20
    punti sottozero" to "+70 e oltre"."""
    levels = {70: "corteo-crushing", 69: "corteo-narrow", 50: "corteo-narrow", 49: "draw", 20: "draw",
              19: "potere-narrow", 0: "potere-narrow", -1: "potere-crushing", -21: "potere-crushing",
              -200: "potere-crushing"}
    assert {v: NUMBERS.victory_level(v, "basic") for v in levels} == levels
    verdicts = {-25: -21, -20: -20, -11: -20, -10: -10, -1: -10, 0: 0, 9: 0, 10: 10, 45: 40, 69: 60, 70: 70, 200: 70}
    assert {v: NUMBERS.verdict(v) for v in verdicts} == verdicts


def test_the_advanced_table_adds_the_rout_of_the_corteo_below_20_under_zero():
    """The advanced game's "Tabella livelli di vittoria" (after the "Schema del gioco avanzato") has a
    sixth row the basic one lacks: "meno di 0 Vittoria schiacciante del Potere / oltre 20 sottozero
    Disfatta del Corteo". -1 to -20 stay a crushing Power win, -21 and below are a rout of the Corteo,
    which the Power wins."""
    levels = {70: "corteo-crushing", 50: "corteo-narrow", 20: "draw", 0: "potere-narrow", -1: "potere-crushing",
              -20: "potere-crushing", -21: "corteo-rout", -200: "corteo-rout"}
    assert {v: NUMBERS.victory_level(v, "advanced") for v in levels} == levels
    assert NUMBERS.winner("corteo-rout") == "potere" and NUMBERS.winner("draw") is None
    # A game ending at -21: 22 points of corteo units in prison (C 8f), 1 point of objectives.
    where = {"AUT1": PRISON, "AUT2": PRISON, "AUT3": PRISON, "AUT4": PRISON, "MOV8": PRISON}
    assert sum(counter(u).unit.power for u in where) == 22
    state = position(where, hand=10, stage="potere-movement", points=1)
    new = resolve(state, "potere", "PASS", [])
    assert new.result is not None and (new.result.final, new.result.level) == (-21, "corteo-rout")
    outcome = RULES.outcome(new)
    assert outcome is not None and outcome.winners == ("potere",) and outcome.reason == "corteo-rout"
    basic = resolve(replace(state, mode="basic"), "potere", "PASS", [])
    assert basic.result is not None and (basic.result.final, basic.result.level) == (-21, "potere-crushing")  # B 15: five rows only


# -- 13d the national march -----------------------------------------------------------------------------------


def national(stage: str, hand: int = 4, **where: str):
    return position(where, hand=hand, stage=stage, options=("national",))


def test_forestieri_come_by_metro_from_the_fourth_hand_and_enter_on_an_even_roll():
    """C 13d: at the fourth hand the corteo places the 4 forestieri in metro hexes, alone or stacked
    among themselves; "A questo punto il giocatore-corteo tira il dado": even, the unit enters the
    game; odd, it waits in the metro (and tries again next hand)."""
    terrains(I3="metro", T10="metro")
    state = national("corteo-movement", MOV6="T10")
    assert "err-place-now" in errors(national("corteo-movement", hand=3), "corteo", "PLACE FOR1 I3")
    assert "err-forestieri-metro" in errors(state, "corteo", "PLACE FOR1 D14")
    assert "err-forestieri-alone" in errors(state, "corteo", "PLACE FOR1 T10")
    new = resolve(state, "corteo", "PLACE FOR1 I3\nPLACE FOR2 I3", [2, 3])
    assert loc(new, "FOR1") == loc(new, "FOR2") == "I3"
    assert not unit(new, "FOR1").waiting and unit(new, "FOR2").waiting
    nxt = replace(new, hand=5, stage="corteo-movement")
    later = resolve(nxt, "corteo", "PASS", [4])  # FOR2 rolls again: 4, in the game
    assert not unit(later, "FOR2").waiting


def test_the_finanza_wait_in_barracks_for_an_even_roll():
    """C 13d: in the same hand the power places the Finanza in barracks, alone or stacked among
    themselves, and rolls: even, in the game; odd, they stay in the barracks."""
    terrains(G10="caserma", W3="caserma")
    state = national("potere-movement")
    assert "err-finanza" in errors(national("potere-movement", hand=3), "potere", "PLACE FI1 G10")
    new = resolve(state, "potere", "PLACE FI1 W3\nPLACE FI2 W3\nPLACE BL1 G10\nPLACE BL2 F9\nPLACE BL3 F10\n"
                                   "PLACE BL4 H18\nPLACE BL5 I18", [6, 1])
    assert not unit(new, "FI1").waiting and unit(new, "FI2").waiting


def test_the_finanza_stack_only_among_themselves():
    """C 13d: the Finanza "possono stare da sole o cumulate fra loro, ma non possono cumularsi con
    altre unità del potere"."""
    terrains(W3="caserma")
    state = national("potere-movement")
    assert "err-finanza-alone" in errors(state, "potere", "PLACE CE1 W3\nPLACE FI1 W3")
    # In either order: a unit placed on the Finanza's hex is refused too.
    assert "err-finanza-alone" in errors(state, "potere", "PLACE FI1 W3\nPLACE CE1 W3")
    # A Finanza waiting there from an earlier hand holds its hex the same way.
    waiting = position({"FI1": "W3"}, hand=5, stage="potere-movement", options=("national",),
                       flags={"FI1": {"waiting": True}})
    assert "err-finanza-alone" in errors(waiting, "potere", "PLACE CE1 W3")


def test_the_finanza_takes_nothing_from_the_hands_reinforcements():
    """C 3a: the power's forces are counted "esclusa la finanza"; C 13d brings it in apart: "il
    giocatore-potere colloca in esa-caserma a sua scelta le unità della Finanza"; 6c: the hand's
    reinforcements are "Unità per 20 punti/potenza" in the fourth hand. The Finanza enters (die 2)
    and the five blindati (20) are all placed; BL5 used to be refused at resolution (18 + 4 > 20)."""
    terrains(B39="caserma", C39="caserma", T40="caserma", U40="caserma")
    state = national("potere-movement")
    text = "PLACE FI1 B39\nPLACE BL1 C39\nPLACE BL2 C39\nPLACE BL3 T40\nPLACE BL4 T40\nPLACE BL5 U40"
    new = resolve(state, "potere", text, [2])
    assert not unit(new, "FI1").waiting and loc(new, "FI1") == "B39"
    assert [loc(new, f"BL{i}") for i in range(1, 6)] == ["C39", "C39", "T40", "T40", "U40"]
    assert "note-skipped" not in notes(new)
