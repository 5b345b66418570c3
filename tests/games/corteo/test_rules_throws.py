"""Throws (C 7a-7f, B 9, C 9 for stacks) and the special rules that hang on them: tear-gas smoke
(C 13a), short throws (C 13b); traffic jams (C 13c).  The hexes are real hexes of the City."""

from __future__ import annotations

from dataclasses import replace

from pbem.games.corteo import RULES
from pbem.games.corteo.board import city
from pbem.games.corteo.city import axis_direction, distance
from tests.games.corteo.helpers import errors, loc, notes, phase_log, position, resolve, terrains

CORRIDOR = {f"D{i}": "strada" for i in range(12, 20)}


def corridor(stage: str = "corteo-movement", **where: str):
    terrains(**CORRIDOR, C15="caseggiato", C16="caseggiato", C17="caseggiato", E15="caseggiato",
             E16="caseggiato", E17="metro")
    return position(where, stage=stage, hand=3)


def dist(a: str, b: str) -> int:
    return distance(city().hex(a), city().hex(b))


def test_a_spezzone_throws_three_hexes_counting_the_target():
    """C 7d: "La distanza fra uno spezzone ... e il bersaglio deve essere al massimo di 3 esa, compreso
    l'esa dove c'è il bersaglio": D14 reaches D17, not D18."""
    state = corridor(AUT1="D14", CE1="D17")
    new = resolve(state, "corteo", "THROW AUT1 AT D17", [1])
    throw = phase_log(new).throws[0]
    assert (throw.origin, throw.target, throw.roll, throw.result) == ("D14", "D17", 1, "NE")
    far = corridor(AUT1="D14", CE1="D18")
    assert "err-throw-range" in errors(far, "corteo", "THROW AUT1 AT D18")


def test_lacrimogeni_throw_four_hexes():
    """C 7e: "La distanza fra un'unità lacrimogena che lancia e il bersaglio deve essere al massimo di
    4 esa, compreso l'esa dove c'è il bersaglio"."""
    state = corridor("potere-movement", LA1="D13", MOV6="D17")
    assert resolve(state, "potere", "THROW LA1 AT D17", [1]) is not None
    far = corridor("potere-movement", LA1="D12", MOV6="D17")
    assert "err-throw-range" in errors(far, "potere", "THROW LA1 AT D17")


def test_only_spezzoni_and_lacrimogeni_throw():
    """C 7a, 7d, 7e: "Soltanto le unità abilitate a farlo possono lanciare": spezzoni (speed 6) and
    lacrimogeni; a cordone or a celere may not."""
    assert "err-no-throw" in errors(corridor(MOV6="D15", CE1="D17"), "corteo", "THROW MOV6 AT D17")
    assert "err-no-throw" in errors(corridor("potere-movement", CE1="D15", MOV6="D17"), "potere",
                                    "THROW CE1 AT D17")


def test_a_throw_goes_along_a_straight_hex_line():
    """C 7a: "soltanto se l'unità che lancia e il bersaglio sono su una LINEA RETTA di esa": in Piazza
    Fontana, L19 is two hexes from M17 but on none of the six rows through it."""
    terrains(M17="viale", L19="viale", L18="viale", M18="viale")
    assert axis_direction(city().hex("M17"), city().hex("L19")) is None
    state = position({"AUT1": "M17", "CE1": "L19"}, hand=3)
    assert "err-throw-line" in errors(state, "corteo", "THROW AUT1 AT L19")


def test_blocking_terrain_between_stops_a_throw_units_between_do_not():
    """C 7f: objectives (and gardens, buildings, ...) between thrower and target interrupt the throw;
    C 7c: "Se fra l'unità che lancia e il bersaglio c'è una unità ... ciò non impedisce il lancio"."""
    terrains(I23="viale", I24="viale", I25="obiettivo", I26="viale")
    assert "err-throw-blocked" in errors(position({"AUT1": "I23", "CE1": "I26"}, hand=3), "corteo",
                                         "THROW AUT1 AT I26")
    state = corridor(AUT1="D14", MOV6="D15", CE2="D16", CE1="D17")
    assert resolve(state, "corteo", "THROW AUT1 AT D17", [1]) is not None


def test_a_throw_costs_half_the_points_and_each_unit_throws_once():
    """C 7a: "Ogni unità da lancio può lanciare soltanto per una volta ... pagano la METÀ dei
    punti/velocità": a 6-point spezzone has 3 points left after throwing, before or after moving."""
    terrains(D11="viale", C11="viale", B11="viale", A11="viale")
    state = corridor(AUT1="D14", CE1="D17")
    new = resolve(state, "corteo", "THROW AUT1 AT D17\nMOVE AUT1 D13 D12 D11 C11", [1])  # 3 + 3
    assert loc(new, "AUT1") == "C11"
    assert "err-too-far" in errors(state, "corteo", "THROW AUT1 AT D17\nMOVE AUT1 D13 D12 D11 C11 B11")
    assert "err-thrown" in errors(state, "corteo", "THROW AUT1 AT D17\nTHROW AUT1 AT D17")
    assert "err-throw-points" in errors(corridor(AUT1="D11", CE1="D17"), "corteo",
                                        "MOVE AUT1 D12 D13 D14 D15\nTHROW AUT1 AT D18")


def test_throw_odds_are_rounded_for_the_target():
    """C 7b: "Rapporti non perfetti si arrotondano sempre in favore del bersaglio": 6 on 4 is 1-1,
    4 on 6 is 1-2 (the thrower reaches half the target)."""
    new = resolve(corridor(AUT1="D14", CE1="D17"), "corteo", "THROW AUT1 AT D17", [1])
    assert phase_log(new).throws[0].odds == "1-1"
    new = resolve(corridor(AUT3="D14", LA1="D17"), "corteo", "THROW AUT3 AT D17", [1])
    assert phase_log(new).throws[0].odds == "1-2"


def test_r1_the_target_steps_back_one_hex_away_from_the_thrower():
    """C 7c and its example: "6/6 lancia su 4/4: il rapporto è 1 a 1, il risultato del dado è 4. L'unità
    4/4 ... deve ritirarsi di 1" into a hex farther from the thrower."""
    new = resolve(corridor(AUT1="D14", CE1="D17"), "corteo", "THROW AUT1 AT D17", [4])
    assert phase_log(new).throws[0].result == "R1"
    assert loc(new, "CE1") == "D18"


def test_r2_two_hexes_away():
    """C 7c: "R2 = ritirata: l'unità bersaglio si ritira di 2 esa"."""
    new = resolve(corridor(AUT1="D14", CE1="D17"), "corteo", "THROW AUT1 AT D17", [6])
    assert phase_log(new).throws[0].result == "R2"
    assert dist("D14", loc(new, "CE1")) == 5


def test_a_stack_throws_once_with_its_strengths_added_and_p2_panics_the_target():
    """C 9: "Due unità cumulate possono fare 2 lanci differenziati oppure ... un lancio solo
    (aumentando la potenza di lancio)": 6 + 6 on 4 is 3-1; die 6: P2, two hexes away chosen by the
    thrower (C 7c). Both throwers pay half their points."""
    state = corridor(AUT1="D14", AUT2="D14", CE1="D17")
    new = resolve(state, "corteo", "THROW AUT1 AUT2 AT D17", [6])
    throw = phase_log(new).throws[0]
    assert (throw.strength, throw.odds, throw.result) == ("12", "3-1", "P2")
    assert dist("D14", loc(new, "CE1")) == 5
    assert "err-thrown" in errors(state, "corteo", "THROW AUT1 AUT2 AT D17\nTHROW AUT2 AT D17")
    assert "err-throw-stack" in errors(corridor(AUT1="D14", AUT2="D13", CE1="D17"), "corteo",
                                       "THROW AUT1 AUT2 AT D17")


def test_no_arrest_from_a_throw_a_target_that_cannot_step_back_stays():
    """C 7e: "Durante il lancio del potere, non possono effettuarsi arresti" (8f: arrests only in
    combat): a corteo target with no hex farther from the thrower stays where it is."""
    state = corridor("potere-movement", LA1="D13", MOV6="D16", CE1="D17", CE2="D18")
    new = resolve(state, "potere", "THROW LA1 AT D16", [4])
    assert phase_log(new).throws[0].result == "R1"
    assert loc(new, "MOV6") in ("D16", "E17")  # E17 (the metro) is the only hex farther from D13
    assert loc(new, "MOV6") != "prison"


def test_tear_gas_panic_moves_the_whole_connected_corteo():
    """C 7c: "Se una unità del corteo va in panico per un lancio di lacrimogeni, qualsiasi altra unità
    del corteo, direttamente o indirettamente collegata al bersaglio, si ritira di un esa dove vuole
    il giocatore-potere": two lacrimogeni (12) on a 4-4 (3-1), die 6: P2."""
    terrains(M13="viale", M14="viale", M15="viale", M16="viale", M17="viale", N17="viale", N18="viale")
    state = position({"LA1": "M13", "LA2": "M13", "MOV6": "M16", "MOV7": "M17", "MOV8": "N17"},
                     stage="potere-movement", hand=3)
    new = resolve(state, "potere", "THROW LA1 LA2 AT M16", [6])
    throw = phase_log(new).throws[0]
    assert (throw.odds, throw.result) == ("3-1", "P2")
    assert dist("M13", loc(new, "MOV6")) == 5  # the target: two hexes
    assert dist("M13", loc(new, "MOV7")) == dist("M13", "M17") + 1  # the others: one hex
    assert dist("M13", loc(new, "MOV8")) == dist("M13", "N17") + 1
    assert "M16" not in [loc(new, u) for u in ("MOV6", "MOV7", "MOV8")]


def test_no_throw_at_the_power_in_a_barracks_nor_at_the_corteo_in_the_metro():
    """C 7f: "Unità di lancio del corteo non possono lanciare su unità del potere che occupano
    esa-caserme. Unità di lancio del potere non possono lanciare su unità del corteo che occupano
    esa-metro"."""
    terrains(I20="viale", I19="strada", I18="caserma")
    assert "err-throw-shelter" in errors(position({"AUT1": "I20", "CE1": "I18"}, hand=3), "corteo",
                                         "THROW AUT1 AT I18")
    assert "err-throw-shelter" in errors(corridor("potere-movement", LA1="D17", MOV6="E17"), "potere",
                                         "THROW LA1 AT E17")


def test_a_throw_at_the_head_carries_the_whole_corteo():
    """C 10b, 7c: "esiti di ritirata o panico da lancio per la Testa del corteo si applicano a tutte le
    unità del corteo": R1 on the Head moves every unit joined to it."""
    state = corridor("potere-movement", LA1="D13", MOV1="D16", MOV6="D17", MOV7="D18")
    state = replace(state, heads=("MOV1",))
    # The Head: 6 + 2 x 2 = 10; the lacrimogeni 6 reach half of it: 1-2, die 5: R1.
    new = resolve(state, "potere", "THROW LA1 AT D16", [5])
    throw = phase_log(new).throws[0]
    assert (throw.odds, throw.result) == ("1-2", "R1")
    assert set(throw.targets) == {"MOV1", "MOV6", "MOV7"}
    assert loc(new, "MOV7") != "D18" and loc(new, "MOV1") != "D16"


def test_the_throw_record_gives_the_strengths_compared_before_the_result():
    """C 7b: "Le unità che lanciano confrontano i propri punti/potenza con quelli del bersaglio"; 7c:
    the result is applied after. LA1 (6) at the Head MOV8 on D14 (2 + 2 x 2 joined: 6): 1-1, die 4:
    R1, and the Head carries MOV9 and RAD1 back (10b). The record and the report give 6 against 6,
    the target compared, not the whole Corteo summed after the retreat (13)."""
    state = replace(corridor("potere-movement", LA1="D17", MOV8="D14", MOV9="D13", RAD1="D12"), heads=("MOV8",))
    new = resolve(state, "potere", "THROW LA1 AT D14", [4])
    throw = phase_log(new).throws[0]
    assert (throw.strength, throw.against, throw.odds, throw.result) == ("6", "6", "1-1", "R1")
    assert set(throw.targets) == {"MOV8", "MOV9", "RAD1"}
    assert all(dist(loc(new, u), "D17") == dist(was, "D17") + 1
               for u, was in (("MOV8", "D14"), ("MOV9", "D13"), ("RAD1", "D12")))
    report = RULES.describe(RULES.view(new, "potere"), "en")
    assert "Throw by LA1 from D17 at D14: 6 against 6, 1-1, die 4" in report


def test_a_throw_at_the_head_moves_the_rear_first_so_that_every_unit_steps_back():
    """C 7c: "R1 = ritirata: l'unità bersaglio si ritira di 1 esa"; 10b: "esiti di ritirata o panico
    da lancio per la Testa del corteo si applicano a tutte le unità del corteo". The Head MOV8 on D14,
    MOV6 and MOV7 stacked on D13, RAD1 on D12; LA1 from D17 at 1-2, die 5: R1. Each unit steps one
    hex farther from the thrower; moved in the order of their names, MOV7 found D12 full (MOV6 and
    RAD1, who had not yet moved on) and stayed; the rear moves first now."""
    state = replace(corridor("potere-movement", LA1="D17", MOV8="D14", MOV6="D13", MOV7="D13", RAD1="D12"),
                    heads=("MOV8",))
    new = resolve(state, "potere", "THROW LA1 AT D14", [5])
    throw = phase_log(new).throws[0]
    assert (throw.odds, throw.result) == ("1-2", "R1")
    assert {u: loc(new, u) for u in ("MOV8", "MOV6", "MOV7", "RAD1")} == \
        {"MOV8": "D13", "MOV6": "D12", "MOV7": "D12", "RAD1": "D11"}


def test_a_throw_retreat_passes_through_a_full_stack():
    """C 9: "Unità in ritirata possono passare, senza fermarsi, in esa occupati da unità cumulate: le
    unità in ritirata devono proseguire la ritirata finché non occupano un esa libero o non si cumulano
    con un'altra unità" - a throw's R1 is a "ritirata" too (7c). MOV8 on D14, hit at 3-1 (6 v 2),
    die 3: R1; D13 holds MOV6 and MOV7: MOV8 goes through to D12 (it used to stay on D14)."""
    state = corridor("potere-movement", LA1="D17", MOV8="D14", MOV6="D13", MOV7="D13")
    new = resolve(state, "potere", "THROW LA1 AT D14", [3])
    throw = phase_log(new).throws[0]
    assert (throw.odds, throw.result) == ("3-1", "R1")
    assert (loc(new, "MOV8"), loc(new, "MOV6"), loc(new, "MOV7")) == ("D12", "D13", "D13")
    (step,) = [s for s in phase_log(new).steps if s.unit == "MOV8"]
    assert step.path == ("D14", "D13", "D12")


# -- 13a tear-gas smoke ---------------------------------------------------------------------------------


def smoky(**where: str):
    return replace(corridor("potere-movement", **where), options=("smoke",))


def test_smoke_in_a_calm_stays_on_the_target_hex_until_the_corteos_next_turn_ends():
    """C 13a: after a throw with an effect the power rolls the wind; 5 "bonaccia": the smoke stays on
    the target hex; nobody may enter or cross it; "non verrà rimosso dalla mappa fino alla fine del
    successivo turno di gioco del giocatore-corteo"."""
    state = smoky(LA1="D12", MOV6="D16")
    new = resolve(state, "potere", "THROW LA1 AT D16", [4, 5])  # 1-1 die 4: R1; wind 5
    assert new.hand == 4 and new.stage == "corteo-movement"
    assert [s.hex for s in new.smoke] == ["D16"]
    moved = loc(new, "MOV6")
    assert moved != "D16"
    blocked = replace(new, units=tuple(replace(u, loc="D14") if u.id == "MOV7" else u for u in new.units))
    assert "err-blocked" in errors(blocked, "corteo", "MOVE MOV7 D15 D16 D17")
    after = resolve(new, "corteo", "PASS", [])
    assert after.stage == "potere-movement" and after.smoke == ()


def test_smoke_drifts_with_the_wind_along_the_streets_and_clears_at_the_end_of_the_hand():
    """C 13a: wind 4 "vento forte": two hexes in the direction of the second die (ours: face 4 is
    West), only along viale or strada hexes; the unit in the hex where the smoke lands steps out; the
    piece is removed at the end of the hand."""
    state = smoky(LA1="D12", MOV6="D16", MOV8="D14")
    new = resolve(state, "potere", "THROW LA1 AT D16", [4, 4, 4])  # 1-1 die 4: R1; wind 4; face 4: West
    assert any(n.key == "note-smoke" and ("hex", "D14") in n.args for x in new.log for n in x.notes)
    assert loc(new, "MOV8") != "D14"
    assert new.smoke == ()  # the hand is over


def test_strong_wind_blows_the_smoke_away():
    """C 13a: "6 vento fortissimo: il fumo si dissolve"."""
    new = resolve(smoky(LA1="D12", MOV6="D16"), "potere", "THROW LA1 AT D16", [4, 6])
    assert "note-smoke-gone" in notes(new)


def test_no_smoke_after_a_throw_without_effect():
    """C 13a: the wind is rolled only "purché non sia uscito un risultato di NE"."""
    resolve(smoky(LA1="D12", MOV6="D16"), "potere", "THROW LA1 AT D16", [1])  # one die only


# -- 13b short throws -------------------------------------------------------------------------------------


def test_the_last_ne_before_the_results_is_a_short_throw_on_the_hex_before():
    """C 13b: "il risultato NE ... che sta per ultimo prima dei risultati positivi significa «lancio
    corto» ... l'esa colpito è quello immediatamente precedente"; a unit there, friend or foe, is
    thrown at with a new roll at the new odds."""
    state = corridor(AUT1="D14", CE2="D16", CE1="D17")
    state = replace(state, options=("short",))
    new = resolve(state, "corteo", "THROW AUT1 AT D17", [3, 4])  # 1-1: 3 is the last NE; then 4: R1
    throw = phase_log(new).throws[0]
    assert throw.short and throw.hit == "D16" and throw.targets == ("CE2",)
    assert (throw.roll, throw.result) == (4, "R1")
    assert loc(new, "CE1") == "D17" and dist("D14", loc(new, "CE2")) == 3


def test_a_short_throw_on_an_empty_hex_and_a_second_ne_do_nothing():
    """C 13b: no unit in the hex before: nothing; "Se l'esito di lancio è di nuovo NE significa che i
    materiali lanciati ... non si sono accesi"."""
    state = corridor(AUT1="D14", CE1="D17")
    state = replace(state, options=("short",))
    new = resolve(state, "corteo", "THROW AUT1 AT D17", [3])
    assert phase_log(new).throws[0].short and loc(new, "CE1") == "D17"
    state = corridor(AUT1="D14", CE2="D16", CE1="D17")
    state = replace(state, options=("short",))
    new = resolve(state, "corteo", "THROW AUT1 AT D17", [3, 1])
    assert phase_log(new).throws[0].result == "NE" and loc(new, "CE2") == "D16"


# -- 13c traffic jams -------------------------------------------------------------------------------------

JAM = "I22"  # Piazza della Robba, joined by Via 'Ndante (J-row streets) to a crossing


def jammed(**changes):
    terrains(I21="viale", I22="viale", I23="viale", J22="strada", J23="strada")
    return position(changes.pop("where", {"MOV6": "D14"}), hand=3, options=("jams",), **changes)


def test_a_jam_is_made_on_1_3_5():
    """C 13c: a viale hex outside every ZOC, linked by streets to a clear crossing; "1-3-5 ingorgo
    fatto, 2-4-6 ingorgo non fatto"; no point is paid."""
    assert resolve(jammed(), "corteo", f"JAM {JAM}", [3]).jams == (JAM,)
    assert resolve(jammed(), "corteo", f"JAM {JAM}", [4]).jams == ()
    assert "err-option" in errors(position({"MOV6": "D14"}, hand=3), "corteo", f"JAM {JAM}")


def test_one_jam_try_a_turn_never_next_to_another_never_in_a_zoc():
    """C 13c: "i giocatori possono tentare di creare un ingorgo soltanto per turno di gioco"; "non si
    possono collocare due pezzi ingorgo su esa adiacenti"; the hex "deve trovarsi fuori ZOC"."""
    assert "err-jam-once" in errors(jammed(), "corteo", f"JAM {JAM}\nJAM I24")
    assert "err-jam-next" in errors(jammed(jams=("I21",)), "corteo", f"JAM {JAM}")
    assert "err-jam-zoc" in errors(jammed(where={"MOV6": "D14", "CE1": "J22"}), "corteo", f"JAM {JAM}")


def test_a_jam_blocks_like_a_barricade_and_only_vigili_clear_it():
    """C 13c: "Ai fini dello spostamento, dei lanci, dello scontro gli ingorghi seguono le stesse regole
    delle barricate"; "possono essere rimossi solo dai vigili del potere"."""
    state = jammed(where={"MOV6": "I21"}, jams=(JAM,))
    assert "err-blocked" in errors(state, "corteo", f"MOVE MOV6 {JAM} I23")
    power = jammed(where={"VI1": "J22", "CE1": "J21"}, jams=(JAM,), stage="potere-movement")
    assert resolve(power, "potere", f"CLEAR VI1 {JAM}", []).jams == ()
    assert "err-jam-vigili" in errors(power, "potere", f"CLEAR CE1 {JAM}")


def test_a_tear_gas_target_leaves_its_hex_even_when_it_cannot_go_farther():
    """C 7c: "Se queste unità non possono spostarsi, stanno ferme: l'esa che era occupato dal
    bersaglio deve comunque essere lasciato libero": cornered against barracks 5, the 4-4 hit by
    a tear-gas panic (12 against 4, 3-1, die 6: P2) still leaves its hex, to one the power picks."""
    terrains(B36=city().terrain(city().hex("B36")), B38=city().terrain(city().hex("B38")), B39="caserma")
    state = position({"LA1": "B36", "LA2": "B36", "MOV6": "B38"}, stage="potere-movement", hand=3)
    new = resolve(state, "potere", "THROW LA1 LA2 AT B38", [6])
    assert phase_log(new).throws[0].result == "P2"
    assert loc(new, "MOV6") in ("A38", "C38")
