"""Combat (C 8a-8h, B 10), stacks (C 9), the Head (C 10, 10a, 10b), armoured columns (C 11).
Positions are built directly on real hexes of the City; every die is scripted."""

from __future__ import annotations

from dataclasses import replace

from pbem.games.corteo.board import city
from pbem.games.corteo.city import distance
from pbem.games.corteo.state import PRISON, Standing
from tests.games.corteo.helpers import board, errors, loc, phase_log, position, resolve, terrains, unit

CORRIDOR = {f"D{i}": "strada" for i in range(12, 20)}


def fight_state(where: dict[str, str], stage: str = "potere-combat", **changes):
    return position(where, stage=stage, hand=3, **changes)


def corridor(where: dict[str, str], stage: str = "potere-combat", **changes):
    terrains(**CORRIDOR, C17="caseggiato", E18="caseggiato", C14="caseggiato", E14="caseggiato")
    return fight_state(where, stage, **changes)


def fights(state):
    return phase_log(state).fights


def test_every_unit_in_contact_fights_the_combats_are_added_by_default():
    """C 8a: "Ogni unità che ha unità avversarie nella sua ZOC deve sostenere lo scontro con esse": a
    sheet that orders no combat still fights it."""
    state = corridor({"MOV6": "D17", "CE1": "D18"})
    new = resolve(state, "potere", "PASS", [1])
    (f,) = fights(new)
    assert (f.attackers, f.defenders) == (("CE1",), ("MOV6",))


def test_each_unit_fights_once_a_turn():
    """C 8a: "Ogni unità, sia in difesa che in attacco, può sostenere un solo scontro per ogni turno"."""
    state = corridor({"MOV6": "D17", "CE1": "D18", "CE2": "D16"})
    assert "err-engaged" in errors(state, "potere", "ATTACK CE1 ON MOV6\nATTACK CE2 ON MOV6")
    new = resolve(state, "potere", "ATTACK CE1 CE2 ON MOV6", [1])
    assert len(fights(new)) == 1


def test_a_combat_phase_with_nobody_in_contact_is_passed_over():
    """C 8a: "Se nessuna unità avversaria è nella ZOC di unità del giocatore in turno, la fase di scontro
    ... si chiude senza scontri"."""
    state = position({"MOV6": "D14", "CE1": "D18"}, hand=3)
    new = resolve(state, "corteo", "PASS", [])
    assert new.stage == "potere-movement"


def test_odds_are_rounded_for_the_defender_4_against_6_is_1_2():
    """C 8a worked example: "attacca l'unità 4-4 del potere e si difende l'unità 6-6 del corteo ... 4 a
    6 ... arrotondato in favore del difensore ... diventa perciò 4 a 8, cioè 1-2"."""
    new = resolve(corridor({"AUT1": "D17", "CE1": "D18"}), "potere", "ATTACK CE1 ON AUT1", [1])
    assert fights(new)[0].odds == "1-2"
    # And 6-4 of the power on a 4-4 of the corteo: "4 a 4, cioè 1-1".
    new = resolve(corridor({"MOV6": "D17", "CA1": "D18"}), "potere", "ATTACK CA1 ON MOV6", [1])
    assert fights(new)[0].odds == "1-1"


def test_many_against_one_add_up_12_against_4_is_3_1():
    """C 8b: "3 unità del potere (12) contro 1 del corteo (4) = 3 a 1"."""
    terrains(M19="viale", M18="viale", M20="viale", L19="viale")
    state = fight_state({"MOV6": "M19", "CA1": "M18", "CA2": "M20", "CA3": "L19"})
    new = resolve(state, "potere", "ATTACK CA1 CA2 CA3 ON MOV6", [1])
    f = fights(new)[0]
    assert set(f.attackers) == {"CA1", "CA2", "CA3"} and f.odds == "3-1"


def test_one_against_many_4_against_16_is_1_4():
    """C 8b: "1 unità del potere (4) contro 3 del corteo (16) = 1 a 4"."""
    terrains(M19="viale", M18="viale", M20="viale", L19="viale")
    state = fight_state({"CE1": "M19", "MOV1": "M18", "MOV2": "M20", "MOV6": "L19"})
    new = resolve(state, "potere", "ATTACK CE1 ON MOV1 MOV2 MOV6", [1])
    f = fights(new)[0]
    assert set(f.defenders) == {"MOV1", "MOV2", "MOV6"} and f.odds == "1-4"


def test_many_against_many_needs_as_many_combats():
    """C 8b: "Quando più unità attaccanti si scontrano con più unità in difesa, la situazione si risolve
    effettuando un numero di scontri pari al numero delle unità meno numerose"."""
    terrains(M19="viale", M18="viale", M20="viale", L19="viale")
    state = fight_state({"CE1": "M18", "CE2": "M20", "MOV1": "M19", "MOV2": "L19"})
    assert "err-many-many" in errors(state, "potere", "ATTACK CE1 CE2 ON MOV1 MOV2")
    new = resolve(state, "potere", "PASS", [1, 1])
    assert len(fights(new)) == 2


def test_case_popolari_double_a_corteo_unit_crowded_places_halve_it():
    """C 8c: "Esa-casa popolare: l'unità del corteo che lo occupa vale doppio. Esa-affollato: l'unità
    del corteo che la occupa vale metà potenza"."""
    terrains(M2="strada", N2="case_popolari", J7="viale", J6="affollato")
    assert fights(resolve(fight_state({"MOV6": "N2", "CE1": "M2"}), "potere", "PASS", [1]))[0].odds == "1-2"
    assert fights(resolve(fight_state({"MOV6": "J6", "CE1": "J7"}), "potere", "PASS", [1]))[0].odds == "2-1"


def test_slopes_double_the_higher_unit():
    """C 8c: "l'unità che attacca un'altra in salita (più in alto) ha potenza normale; l'altra si
    difende a potenza doppia. L'unità che attacca un'altra in discesa (più in basso) ha potenza
    doppia": on the Salita al Potere R18 is above R17."""
    terrains(R17="salita", R18="salita")
    up = fight_state({"MOV6": "R18", "CE1": "R17"})
    assert fights(resolve(up, "potere", "PASS", [1]))[0].odds == "1-2"  # 4 v 4x2
    down = fight_state({"MOV6": "R17", "CE1": "R18"})
    assert fights(resolve(down, "potere", "PASS", [1]))[0].odds == "2-1"  # 4x2 v 4


def test_slopes_count_with_several_attackers_or_defenders():
    """C 8c: "l'unità che attacca un'altra in salita (più in alto) ha potenza normale; l'altra si
    difende a potenza doppia. L'unità che attacca un'altra in discesa (più in basso) ha potenza
    doppia" - no exception for several units: R17 on the Salita al Potere is above R16 (viale) and
    S17 (strada), below R18."""
    terrains(R16="viale", R17="salita", S17="strada", R18="salita")
    # Two attackers, both below: the defender doubles, 4 + 4 v 4x2 = 1-1 (it was 2-1).
    up = fight_state({"MOV6": "R17", "CE1": "R16", "CE2": "S17"})
    f = fights(resolve(up, "potere", "ATTACK CE1 CE2 ON MOV6", [1]))[0]
    assert (f.defence, f.odds) == ("MOV6 4 x2", "1-1")
    # One attacker above two defenders: it attacks downhill, 4x2 v 4 + 4 = 1-1 (it was 1-2).
    down = fight_state({"CE1": "R17", "MOV6": "R16", "MOV7": "S17"})
    f = fights(resolve(down, "potere", "ATTACK CE1 ON MOV6 MOV7", [1]))[0]
    assert (f.attack, f.odds) == ("CE1 4 x2", "1-1")
    # Not every attacker below (R18 comes downhill): the defender stays at 4, R18 doubles.
    mixed = fight_state({"MOV6": "R17", "CE1": "R16", "CE2": "R18"})
    f = fights(resolve(mixed, "potere", "ATTACK CE1 CE2 ON MOV6", [1]))[0]
    assert (f.defence, f.odds) == ("MOV6 4", "3-1")


def test_no_combat_on_stairs_nor_by_the_corteo_into_barracks_nor_by_the_power_into_the_metro():
    """C 8c: "esa-scale non permettono lo scontro"; "Esa-caserma: scontro vietato a unità del corteo";
    "Esa-metro: scontro vietato a unità del potere"."""
    terrains(Q24="scale", P24="strada", J17="strada", I18="caserma", O19="metro", P19="strada")
    stairs = fight_state({"MOV6": "Q24", "CE1": "P24"}, stage="corteo-combat")
    assert resolve(stairs, "corteo", "PASS", []).stage == "potere-movement"
    barracks = position({"MOV6": "J17", "CE1": "I18"}, stage="corteo-movement", hand=3)
    assert resolve(barracks, "corteo", "PASS", []).stage == "potere-movement"
    metro = position({"MOV6": "O19", "CE1": "P19"}, stage="potere-movement", hand=3)
    assert resolve(metro, "potere", "PASS", []).stage == "corteo-movement"  # hand over: nothing to fight


def test_dr_the_defender_retreats_and_the_winner_may_advance():
    """C 8d: "AR, DR = ritirata ... spostarsi in un esa adiacente"; "l'unità che ha vinto lo scontro può,
    se vuole, avanzare nell'esa lasciato libero ... anche se quell'esa è nella ZOC di unità avversarie";
    C 9: a stack advances together."""
    state = corridor({"MOV1": "D17", "MOV2": "D17", "CE1": "D18"}, stage="corteo-combat")
    new = resolve(state, "corteo", "ATTACK MOV1 MOV2 ON CE1 ADVANCE", [2])  # 12 v 4: 3-1, die 2: DR
    f = fights(new)[0]
    assert (f.odds, f.result) == ("3-1", "DR")
    assert loc(new, "CE1") in ("D19", "C19", "E19")
    assert loc(new, "MOV1") == loc(new, "MOV2") == "D18"
    stay = resolve(state, "corteo", "ATTACK MOV1 MOV2 ON CE1", [2])
    assert loc(stay, "MOV1") == "D17"


def test_a_stack_advances_whole_or_not_at_all():
    """C 9: "Così nel caso di avanzata di due unità cumulate ... Ma devono avanzare entrambe"; 6d: "per
    blindati e lacrimogeni è vietato il passaggio per esa-obiettivo". CE1 and LA1 stacked on T17 beat
    MOV6 on the objective T16 (10 v 4: 2-1, die 3: DR; MOV6, with nowhere to go, is arrested): LA1
    cannot enter T16, so neither advances (CE1 used to advance alone). CE1 and CE2 advance together."""
    terrains(T16="obiettivo", T17="strada")
    mixed = resolve(fight_state({"MOV6": "T16", "CE1": "T17", "LA1": "T17"}), "potere",
                    "ATTACK CE1 LA1 ON MOV6 ADVANCE", [3])
    f = fights(mixed)[0]
    assert (f.odds, f.result, f.arrested, f.advanced) == ("2-1", "DR", ("MOV6",), ())
    assert loc(mixed, "CE1") == loc(mixed, "LA1") == "T17"
    both = resolve(fight_state({"MOV6": "T16", "CE1": "T17", "CE2": "T17"}), "potere",
                   "ATTACK CE1 CE2 ON MOV6 ADVANCE", [3])
    assert set(fights(both)[0].advanced) == {"CE1", "CE2"} and loc(both, "CE1") == loc(both, "CE2") == "T16"


def test_ar_the_attacker_retreats_never_into_an_enemy_zoc():
    """C 8d: "L'unità in ritirata non può ritirarsi in esa proibiti dagli effetti del terreno, in ZOC
    dell'avversario": CE1 loses its attack; of D19, C19 and E19 it avoids the two next to MOV7."""
    terrains(C19="strada", E19="strada", C20="caseggiato", E20="caseggiato", D20="strada")
    state = corridor({"MOV6": "D17", "CE1": "D18", "MOV7": "D20"})
    new = resolve(state, "potere", "ATTACK CE1 ON MOV6", [1])  # 4 v 4: 1-1, die 1: AR
    assert fights(new)[0].result == "AR"
    assert loc(new, "CE1") in ("C19", "E19")
    assert loc(new, "CE1") not in {h.label for h in board(new).zoc("MOV7")}


def test_a_retreat_goes_on_through_every_full_stack_it_meets():
    """C 9: "Unità in ritirata possono passare, senza fermarsi, in esa occupati da unità cumulate: le
    unità in ritirata devono proseguire la ritirata finché non occupano un esa libero o non si
    cumulano con un'altra unità". Via Orale: CE1 on V16, MOV8 (4-2) on V15, full stacks on V14 and
    V13; U16 and W16 are in CE1's ZOC, the other neighbours buildings. MOV8 passes V14 and V13 and
    stops on V12, U13 or W13 (it used to be arrested)."""
    terrains(V16="strada", V15="strada", V14="strada", V13="strada", V12="strada", U13="strada", W13="strada",
             U15="caseggiato", W15="caseggiato", U14="caseggiato", W14="caseggiato")
    state = fight_state({"CE1": "V16", "MOV8": "V15", "MOV6": "V14", "MOV7": "V14", "MOV9": "V13", "RAD1": "V13"})
    new = resolve(state, "potere", "ATTACK CE1 ON MOV8", [4])  # 4 v 2: 2-1, die 4: DR
    f = fights(new)[0]
    assert (f.odds, f.result, f.arrested) == ("2-1", "DR", ())
    assert loc(new, "MOV8") in ("V12", "U13", "W13")
    (step,) = [s for s in phase_log(new).steps if s.unit == "MOV8"]
    assert step.path[:3] == ("V15", "V14", "V13")
    # Its side chooses among the three: toward W13.
    toward = resolve(replace(state, standing_corteo=Standing(toward="X13")), "potere", "ATTACK CE1 ON MOV8", [4])
    assert loc(toward, "MOV8") == "W13"
    # With V12, U13 and W13 taken by full stacks too, it goes on beyond them.
    more = fight_state({"CE1": "V16", "MOV8": "V15", "MOV6": "V14", "MOV7": "V14", "MOV9": "V13", "RAD1": "V13",
                        "MOV1": "V12", "MOV2": "V12", "MOV3": "U13", "MOV4": "U13", "MOV5": "W13", "LC1": "W13"})
    far = resolve(more, "potere", "ATTACK CE1 ON MOV8", [4])
    assert loc(far, "MOV8") not in ("V15", "V14", "V13", "V12", "U13", "W13", PRISON)
    assert distance(city().hex(loc(far, "MOV8")), city().hex("V13")) == 2


def test_a_corteo_unit_that_cannot_retreat_is_arrested():
    """C 8f: "Tutte le unità del corteo che non possono ritirarsi ... si considerano «arrestate»" and go
    to the prison for the rest of the game."""
    state = corridor({"MOV9": "D14", "CE1": "D13", "CE2": "D15"})
    new = resolve(state, "potere", "PASS", [3])  # 8 v 2: 4-1, die 3: DR
    f = fights(new)[0]
    assert (f.odds, f.result, f.arrested) == ("4-1", "DR", ("MOV9",))
    assert loc(new, "MOV9") == PRISON


def test_corteo_panic_spreads_and_arrests_the_units_with_nowhere_to_go():
    """C 8e: "L'unità del corteo in panico trasmette il panico a tutte le unità del corteo che sono
    adiacenti"; each moves one hex chosen by the power, never into its ZOC; 8f: one that cannot is
    arrested. MOV9 (D14) flees to D13; MOV8 (D13), between D12 (next to CE3) and D14 (next to CE1),
    cannot move."""
    terrains(D11="viale")
    state = corridor({"MOV9": "D14", "MOV8": "D13", "CE1": "D15", "CE2": "D15", "CE3": "D11"})
    new = resolve(state, "potere", "ATTACK CE1 CE2 ON MOV9", [5])  # 8 v 2: 4-1, die 5: DP
    f = fights(new)[0]
    assert f.result == "DP" and set(f.losers) == {"MOV9", "MOV8"}
    assert loc(new, "MOV9") == "D13" and loc(new, "MOV8") == PRISON
    assert f.arrested == ("MOV8",)


def test_power_panic_goes_to_the_barracks_the_corteo_chooses():
    """C 8g: "L'unità del potere in panico è ... collocata in uno degli esa-caserma ... a scelta del
    giocatore-corteo", face down until the power's movement of the next hand (standing BARRACKS 4)."""
    state = corridor({"MOV1": "D17", "MOV2": "D17", "CE1": "D18"}, stage="corteo-combat",
                     standing_corteo=Standing(barracks=(4,)))
    new = resolve(state, "corteo", "PASS", [6])  # 12 v 4: 3-1, die 6: DP
    assert fights(new)[0].result == "DP"
    assert loc(new, "CE1") in ("W3", "X3") and unit(new, "CE1").panicked
    # By default: the barracks hex farthest from the unit.
    default = resolve(replace(state, standing_corteo=Standing()), "corteo", "PASS", [6])
    far = max(distance(city().hex("D18"), h) for h in city().caserma_hexes)
    assert distance(city().hex("D18"), city().hex(loc(default, "CE1"))) == far


def test_a_panicked_power_unit_waits_until_its_movement_of_the_next_hand():
    """C 8g: it "rimane in quell'esa fino alla fase di spostamento del giocatore-potere della mano
    successiva ... Mentre è in caserma, non può spostarsi, nè sostenere scontri"."""
    terrains(W3="caserma", W4="viale")
    same = position({"CE1": "W3"}, stage="potere-movement", hand=3, flags={"CE1": {"panicked": True, "panic_hand": 3}})
    assert "err-not-active" in errors(same, "potere", "MOVE CE1 W4")
    nxt = position({"CE1": "W3"}, stage="potere-movement", hand=4, flags={"CE1": {"panicked": True, "panic_hand": 3}})
    new = resolve(nxt, "potere", "MOVE CE1 W4", [])
    assert loc(new, "CE1") == "W4" and not unit(new, "CE1").panicked


def test_a_power_unit_that_cannot_retreat_panics():
    """C 8g: "Tutte le unità del potere che non possono ritirarsi per un esito di scontro si considerano
    in panico": CE1 in D15 between two corteo units loses."""
    state = corridor({"MOV1": "D14", "MOV2": "D14", "CE1": "D15", "MOV6": "D16"}, stage="corteo-combat")
    new = resolve(state, "corteo", "PASS", [2])  # 12 + 4 v 4: 4-1, die 2: DR
    f = fights(new)[0]
    assert f.result == "DR" and f.panicked == ("CE1",)
    assert unit(new, "CE1").panicked and city().terrain(city().hex(loc(new, "CE1"))) == "caserma"


def test_a_corteo_unit_forced_off_the_map_comes_back_in_the_third_hand_on_the_same_edge_part():
    """C 8h: a corteo unit leaves the map only by a combat result, "sta fuori per 2 MANI di gioco. Nella
    terza MANO successiva all'uscita rientra ... da un esa non vietato dello stesso bordo", the North
    and South edges in three parts."""
    terrains(A4="strada", A5="strada", A6="strada", B4="viale", B5="viale")
    state = position({"MOV9": "A5", "CE1": "A4", "CE2": "A6"}, stage="potere-combat", hand=2)
    new = resolve(state, "potere", "PASS", [3])  # 8 v 2: 4-1, die 3: DR; B4 B5 are in the power's ZOC
    assert loc(new, "MOV9") == "off:N1:5"
    back = replace(new, hand=5, stage="corteo-movement")
    assert "err-back-later" in errors(replace(back, hand=4), "corteo", "ENTER MOV9 A8")
    assert "err-wrong-edge" in errors(back, "corteo", "ENTER MOV9 A20")
    assert loc(resolve(back, "corteo", "ENTER MOV9 A8", []), "MOV9") == "A8"
    auto = resolve(back, "corteo", "PASS", [])
    assert city().edge_part(city().hex(loc(auto, "MOV9"))) == ("N", 1)


# -- stacks (C 9), the Head (C 10), armoured columns (C 11) ------------------------------------------------


def test_stacked_units_fight_as_one_and_share_the_result():
    """C 9: "Due unità cumulate si comportano come una sola unità agli effetti dello scontro: esse
    sommano i propri punti/potenza ... devono ritirarsi entrambe"."""
    state = corridor({"CE1": "D18", "CE2": "D18", "MOV6": "D17"})
    new = resolve(state, "potere", "ATTACK CE1 ON MOV6", [1])  # the stack comes along: 8 v 4, 2-1, die 1: AR
    f = fights(new)[0]
    assert set(f.attackers) == {"CE1", "CE2"} and (f.odds, f.result) == ("2-1", "AR")
    assert loc(new, "CE1") != "D18" and loc(new, "CE2") != "D18"


def test_the_head_adds_two_per_unit_joined_to_it():
    """C 10a: "le unità prescelte come Teste di Corteo sommano ai propri punti/potenza 2 punti per ogni
    unità collegata ad esse o direttamente ... o indirettamente": MOV1 (6) with three units joined
    in a chain is worth 12."""
    state = corridor({"MOV1": "D17", "MOV6": "D16", "MOV7": "D15", "MOV8": "D14", "CE1": "D18"},
                     stage="corteo-combat", heads=("MOV1", "MOV2"))
    new = resolve(state, "corteo", "ATTACK MOV1 ON CE1", [1])
    f = fights(new)[0]
    assert "+6 Head" in f.attack and f.odds == "3-1"


def test_a_result_on_the_head_carries_the_whole_corteo():
    """C 10b: "l'esito di scontro che interessa le unità di Testa si applica anche a tutte le unità del
    Corteo": the Head loses (AR) and every unit joined to it retreats."""
    state = corridor({"MOV1": "D17", "MOV6": "D16", "MOV7": "D15", "CE1": "D18"},
                     stage="corteo-combat", heads=("MOV1",))
    new = resolve(state, "corteo", "ATTACK MOV1 ON CE1", [1])  # 6+4 v 4: 2-1, die 1: AR
    f = fights(new)[0]
    assert f.result == "AR" and set(f.losers) == {"MOV1", "MOV6", "MOV7"}
    assert [loc(new, u) for u in ("MOV1", "MOV6", "MOV7")] != ["D17", "D16", "D15"]
    assert loc(new, "MOV1") != "D17"


def test_an_armoured_column_fights_as_one():
    """C 11: "Più mezzi blindati del potere, in esa adiacenti fra loro, formano una COLONNA ... sostiene
    uno scontro unico ... La potenza ... è data dalla somma"; results touch every blindato of it."""
    state = corridor({"BL1": "D18", "BL2": "D19", "MOV6": "D17"})
    new = resolve(state, "potere", "ATTACK BL1 ON MOV6", [1])  # 4 + 4 v 4: 2-1, die 1: AR
    f = fights(new)[0]
    assert set(f.attackers) == {"BL1", "BL2"} and (f.odds, f.result) == ("2-1", "AR")
    assert loc(new, "BL1") != "D18" and loc(new, "BL2") != "D19"
