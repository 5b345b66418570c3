"""Movement: zones of control (C 2, 4b), terrain costs (C 4c), the corteo's special moves (C 5a-5d,
B 7), the power's (C 6a-6d, B 5, B 8), stacking (C 9).  Positions are built directly; the hexes are
real hexes of the City, their terrain checked first."""

from __future__ import annotations

import pytest

from pbem.games.corteo.board import city
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import Barricade
from pbem.games.corteo.units import counter
from tests.games.corteo.helpers import board, errors, hexes, loc, orders, position, resolve, terrains, unit

# Via le Mutande, D12-D26: a strada between buildings; D18 and D19 open on Via Seggio (C19, E19).
CORRIDOR = {f"D{i}": "strada" for i in range(12, 20)}


def corridor(**where: str):
    terrains(**CORRIDOR, C18="caseggiato", C19="strada", E18="caseggiato", E19="strada")
    return position(where)


# -- zones of control (C 2, 4b) -------------------------------------------------------------------------


def test_entering_an_enemy_zoc_ends_the_move():
    """C 2, 4b: "Qualunque unità entri nella ZOC di unità avversarie è obbligata a fermarsi": a path
    that goes on after a hex next to a power unit is refused; ending there is fine."""
    state = corridor(MOV6="D14", CE1="C19")  # C19 controls D18 and D19
    assert "err-zoc-stop" in errors(state, "corteo", "MOVE MOV6 D15 D16 D17 D18 D19")
    new = resolve(state, "corteo", "MOVE MOV6 D15 D16 D17 D18", [])
    assert loc(new, "MOV6") == "D18"


def test_once_in_an_enemy_zoc_a_unit_moves_no_more_in_the_phase():
    """C 4b: "Una volta entrata nella ZOC di unità avversarie, una unità non può spostarsi nemmeno
    in altre ZOC avversarie": a second line for the stopped unit is refused."""
    state = corridor(MOV6="D14", CE1="C19")
    assert "err-stopped" in errors(state, "corteo", "MOVE MOV6 D15 D16 D17 D18\nMOVE MOV6 D19")


def test_a_unit_with_moves_to_a_far_hex_finds_a_path_that_respects_the_zoc():
    """C 4a, 4b: MOVE ... TO a hex beyond an enemy ZOC is unreachable when every way passes it."""
    state = corridor(MOV6="D14", CE1="C19")
    assert "err-unreachable" in errors(state, "corteo", "MOVE MOV6 TO D20")


def test_no_zoc_onto_buildings_river_stairs_or_across_walls():
    """C 2 "Effetti del terreno sulla ZOC": no unit exerts ZOC onto caseggiato, fiume, scale hexes
    or hexes across a wall side."""
    terrains(P24="strada", Q24="scale", Q25="scale", O24="caseggiato", P13="strada", P12="viale")
    b = board(position({"CE1": "P24", "CE2": "P13", "CE3": "J26"}))
    zoc1 = {h.label for h in b.zoc("CE1")}
    assert zoc1 == {"P23", "P25"}  # not the stairs Q24 Q25, not the buildings O24 O25
    assert city_wall("P12", "P13")
    assert "P12" not in {h.label for h in b.zoc("CE2")}  # the Walls between P12 and P13
    terrains(J26="viale", J27="fiume")
    assert "J27" not in {h.label for h in b.zoc("CE3")}


def test_a_unit_on_the_stairs_exerts_no_zoc():
    """C 2 (engine's reading of "Su esa-scale nessuna unità ... esercita ZOC", with 8c: no combat
    on stairs): a unit standing on a stairs hex controls nothing."""
    terrains(Q24="scale", P24="strada")
    b = board(position({"MOV6": "Q24", "CE1": "P24"}))
    assert b.zoc("MOV6") == frozenset()


def test_the_corteo_has_no_zoc_on_barracks_nor_the_power_on_the_metro():
    """C 2: "Su esa-caserma nessuna unità del giocatore-corteo esercita ZOC. Su esa-metro nessuna
    unità del giocatore-potere esercita ZOC"."""
    terrains(J17="strada", I18="caserma", P19="strada", O19="metro")
    b = board(position({"MOV6": "J17", "CE1": "P19"}))
    assert "I18" not in {h.label for h in b.zoc("MOV6")}
    assert "O19" not in {h.label for h in b.zoc("CE1")}
    # A corteo unit in the metro next to a power unit is therefore not held: it leaves freely (5a).
    state = position({"MOV6": "O19", "CE1": "P19"}, hand=3)
    assert not board(state).in_enemy_zoc("MOV6")


def city_wall(a: str, b: str) -> bool:
    x, y = hexes(a, b)
    return city().wall_between(x, y)


# -- terrain costs (C 4c, B 6) ---------------------------------------------------------------------------


def test_viale_costs_half_a_point_strada_one():
    """C 4c worked example (a): 4 viale hexes (2 points) and 2 strada hexes (2 points) spend a
    speed-4 unit's 4 points exactly; one strada hex more is too far."""
    terrains(**{f"M{i}": "viale" for i in range(12, 21)}, M21="strada", M22="strada", M23="strada")
    state = position({"MOV6": "M16"})
    new = resolve(state, "corteo", "MOVE MOV6 M17 M18 M19 M20 M21 M22", [])
    assert loc(new, "MOV6") == "M22"
    assert "err-too-far" in errors(state, "corteo", "MOVE MOV6 M17 M18 M19 M20 M21 M22 M23")
    # Eight viale hexes for four points ("spostamento doppio").
    assert loc(resolve(position({"MOV6": "M12"}), "corteo", "MOVE MOV6 TO M20", []), "MOV6") == "M20"


def test_fractions_of_a_point_count_as_a_whole_point():
    """C 4c worked example (b): one viale hex (1/2) and three strada hexes (3) cost 3 1/2, which
    counts as 4: a speed-4 unit gets there, but not one strada hex further (4 1/2 counts as 5)."""
    terrains(M20="viale", M21="strada", M22="strada", M23="strada", M24="strada")
    state = position({"MOV6": "M19"})
    assert loc(resolve(state, "corteo", "MOVE MOV6 M20 M21 M22 M23", []), "MOV6") == "M23"
    assert "err-too-far" in errors(state, "corteo", "MOVE MOV6 M20 M21 M22 M23 M24")


def test_a_salita_costs_two_points_a_discesa_half():
    """C 4c: "Su esa-viale e esa-discesa ... 1/2 punto; su esa-salita ... 2 punti". The Salita al
    Potere (R17-R20) climbs eastward: R16 -> R17 -> R18 is 4 points; coming down from the garden
    R21 -> R20 ... R17 is 2 points, and on along the viale R16-R14 (1 1/2 more) a speed-4 unit
    still arrives (3 1/2 counts as 4)."""
    terrains(R14="viale", R15="viale", R16="viale", R17="salita", R18="salita", R19="salita", R20="salita",
             R21="giardino")
    up = position({"MOV6": "R16"})
    assert loc(resolve(up, "corteo", "MOVE MOV6 R17 R18", []), "MOV6") == "R18"
    assert "err-too-far" in errors(up, "corteo", "MOVE MOV6 R17 R18 R19")
    down = position({"MOV6": "R21"})
    assert loc(resolve(down, "corteo", "MOVE MOV6 R20 R19 R18 R17 R16 R15 R14", []), "MOV6") == "R14"
    assert "err-too-far" in errors(down, "corteo", "MOVE MOV6 R20 R19 R18 R17 R16 R15 R14 R13")


def test_buildings_and_the_river_are_forbidden_to_everyone():
    """C 4c: "Su esa-caseggiato, esa-fiume ... lo spostamento è vietato alle unità di entrambi"."""
    terrains(D14="strada", C14="caseggiato", J26="viale", J27="fiume")
    assert "err-terrain" in errors(position({"MOV6": "D14"}), "corteo", "MOVE MOV6 C14")
    assert "err-terrain" in errors(position({"CE1": "J26"}, stage="potere-movement"), "potere", "MOVE CE1 J27")


def test_no_move_across_a_wall_side():
    """C 4c: "esa-adiacenti per lato di muro, lo spostamento è vietato"."""
    terrains(P12="viale", P13="strada")
    assert city_wall("P12", "P13")
    state = position({"MOV6": "P12"})
    assert "err-not-adjacent" in errors(state, "corteo", "MOVE MOV6 P13 P14")
    assert "err-unreachable" in errors(state, "corteo", "MOVE MOV6 P13")  # not by the Walls' side, and
    # the way round by Porta Voce (M12/M13) is too long for a speed-4 unit


def test_case_popolari_are_open_to_the_corteo_and_closed_to_the_power():
    """C 4c: "Su esa-case popolari lo spostamento è consentito a tutte le unità del corteo e vietato
    a tutte le unità del potere"."""
    terrains(M2="strada", N2="case_popolari")
    assert loc(resolve(position({"MOV6": "M2"}), "corteo", "MOVE MOV6 N2", []), "MOV6") == "N2"
    assert "err-terrain-for" in errors(position({"CE1": "M2"}, stage="potere-movement"), "potere", "MOVE CE1 N2")


def test_passing_through_friendly_units_costs_nothing_but_a_full_stack_cannot_be_the_end():
    """C 4a: no extra point to pass friendly units; C 9: never more than 2 units in a hex, so a unit
    may cross a full stack but not stop on it."""
    state = corridor(MOV6="D13", MOV7="D14", MOV8="D14")
    assert loc(resolve(state, "corteo", "MOVE MOV6 D14 D15", []), "MOV6") == "D15"
    assert "err-stack" in errors(state, "corteo", "MOVE MOV6 D14")


# -- disengagement (C 5a, B 7) -------------------------------------------------------------------------


def test_leaving_an_enemy_zoc_costs_one_more_point_in_the_advanced_game():
    """C 5a: a corteo unit starting in an enemy ZOC may move "pagando un ulteriore punto/velocità":
    from D18 (next to C19) three strada hexes are 3+1 = 4 points, four are too far."""
    state = corridor(MOV6="D18", CE1="C19")
    assert loc(resolve(state, "corteo", "MOVE MOV6 D17 D16 D15", []), "MOV6") == "D15"
    assert "err-too-far" in errors(state, "corteo", "MOVE MOV6 D17 D16 D15 D14")


def test_disengagement_is_free_in_the_basic_game():
    """B 7 "Sganciamento delle unità": corteo units starting in an enemy ZOC "possono spostarsi"
    (no extra point in the basic game)."""
    terrains(**CORRIDOR, C19="strada")
    state = position({"MOV6": "D18", "CE1": "C19"}, mode="basic")
    assert loc(resolve(state, "corteo", "MOVE MOV6 D17 D16 D15 D14", []), "MOV6") == "D14"


def test_the_first_step_of_a_disengagement_leaves_the_zoc_and_the_unit_may_come_back():
    """C 5a: "la prima mossa dell'unità del corteo è ... fuori della ZOC avversaria"; then it may end
    its move "anche della stessa unità da cui si era allontanata"."""
    state = corridor(MOV6="D18", CE1="C19")
    assert "err-disengage" in errors(state, "corteo", "MOVE MOV6 D19")
    assert loc(resolve(state, "corteo", "MOVE MOV6 D17 D18", []), "MOV6") == "D18"


def test_the_power_cannot_move_a_unit_that_starts_in_the_corteos_zoc():
    """C 6a: "Il giocatore-potere non può spostare unità che si trovano nella ZOC di una o più unità
    del corteo"."""
    state = position({"MOV6": "D17", "CE1": "D18", "CE2": "D13"}, stage="potere-movement")
    terrains(**CORRIDOR)
    assert "err-power-in-zoc" in errors(state, "potere", "MOVE CE1 D19")
    assert loc(resolve(state, "potere", "MOVE CE2 D14", []), "CE2") == "D14"  # CE2 is free; CE1 must fight


# -- the metro (C 5b, B 7) --------------------------------------------------------------------------------


def test_entering_a_metro_hex_ends_the_move():
    """C 5b: "Le unità del corteo, una volta entrate negli esa-Metropolitana, finiscono lo
    spostamento, anche se hanno punti-velocità ancora da spendere"."""
    terrains(P17="strada", P18="strada", O19="metro", P19="strada")
    state = position({"MOV6": "P17"})
    assert "err-must-stop" in errors(state, "corteo", "MOVE MOV6 P18 O19 P19")
    assert loc(resolve(state, "corteo", "MOVE MOV6 P18 O19", []), "MOV6") == "O19"


def test_next_hand_a_unit_in_the_metro_starts_from_any_station_with_all_its_points():
    """C 5b: "Nella successiva mano ... può far partire le unità in Metropolitana da un qualunque
    esa-metropolitana ... Le unità del corteo non pagano alcun punto in più": from Fontana (O19) to
    Selva Nera (E35), then four strada hexes along Largo Selva Nera and Via Coca."""
    terrains(O19="metro", E35="metro", F35="strada", F36="strada", F37="strada", F38="strada")
    state = position({"MOV6": "O19"}, hand=3)
    new = resolve(state, "corteo", "METRO MOV6 E35\nMOVE MOV6 F35 F36 F37 F38", [])
    assert loc(new, "MOV6") == "F38"
    # Only from a station, and only to a station.
    assert "err-metro-start" in errors(position({"MOV6": "P19"}, hand=3), "corteo", "METRO MOV6 E35")
    assert "err-not-metro" in errors(state, "corteo", "METRO MOV6 F35")


def test_the_metro_keeps_the_stacking_limit():
    """C 9: "Le unità del corteo devono rispettare i limiti del cumulo anche negli esa-Metrò"."""
    state = position({"MOV6": "O19", "MOV7": "E35", "MOV8": "E35"}, hand=3)
    assert "err-stack" in errors(state, "corteo", "METRO MOV6 E35")


# -- running (C 5c, B 7) -----------------------------------------------------------------------------------


def test_running_doubles_every_corteo_units_points():
    """C 5c: "ogni unità del corteo raddoppia i punti/velocità a sua disposizione in quella mano": a
    speed-4 cordone covers 8 strada hexes; the run is spent (5 in the game)."""
    terrains(**{f"D{i}": "strada" for i in range(12, 21)})
    state = position({"MOV6": "D12"})
    assert "err-too-far" in errors(state, "corteo", "MOVE MOV6 D13 D14 D15 D16 D17")
    new = resolve(state, "corteo", "RUN\nMOVE MOV6 D13 D14 D15 D16 D17 D18 D19 D20", [])
    assert loc(new, "MOV6") == "D20"
    assert new.runs_left == 4


def test_no_running_in_the_first_hand():
    """C 5c: "Nella 1ª mano di gioco le unità del corteo non possono correre"."""
    assert "err-run-hand-1" in errors(position({"MOV6": "D12"}, hand=1), "corteo", "RUN")


def test_five_runs_in_the_whole_game():
    """C 5c: "In tutto il gioco sono possibili 5 mani di corsa": with none left, RUN is refused."""
    assert "err-no-runs" in errors(position({"MOV6": "D12"}, hand=7, runs_left=0), "corteo", "RUN")


# -- barricades (C 5d, B 7) ---------------------------------------------------------------------------------


def test_a_barricade_costs_two_points_and_goes_in_the_builders_zoc():
    """C 5d: 2 points of the builder, "in uno degli esa della sua ZOC"; 10 in all."""
    state = corridor(MOV6="D14")
    new = resolve(state, "corteo", "BARRICADE MOV6 D15\nMOVE MOV6 D13 D12", [])
    assert new.barricades == (Barricade("D15", 2),) and new.barricades_left == 9
    assert loc(new, "MOV6") == "D12"
    assert "err-too-far" in errors(state, "corteo", "BARRICADE MOV6 D15\nMOVE MOV6 D13 D12 D11")
    assert "err-not-in-zoc" in errors(state, "corteo", "BARRICADE MOV6 D16")
    assert "err-no-barricades" in errors(position({"MOV6": "D14"}, barricades_left=0), "corteo",
                                         "BARRICADE MOV6 D15")


def test_a_barricade_may_go_in_an_enemy_zoc_but_not_on_an_enemy():
    """C 5d: "La barricata può essere eretta anche in esa controllati dall'avversario, purché non
    occupati dall'avversario"."""
    state = corridor(MOV6="D16", CE1="D18")
    assert resolve(state, "corteo", "BARRICADE MOV6 D17", []).barricades == (Barricade("D17", 2),)
    state = corridor(MOV6="D17", CE1="D18")
    assert "err-barricade-here" in errors(state, "corteo", "BARRICADE MOV6 D18")


@pytest.mark.parametrize("start, target, terrain, error", [
    ("L17", "K17", "obiettivo", "err-barricade-here"), ("D20", "E21", "affollato", "err-barricade-here"),
    ("P24", "Q24", "scale", "err-not-in-zoc"),  # C 2: stairs are in nobody's ZOC anyway
    ("R20", "R21", "giardino", "err-barricade-here")])
def test_no_barricade_on_objectives_crowded_places_stairs_or_gardens(start, target, terrain, error):
    """C 5d: "Le barricate non si possono erigere in esa-obiettivo, in esa-affollati, in esa-scale, in
    esa-giardino"."""
    terrains(**{target: terrain})
    assert error in errors(position({"MOV6": start}), "corteo", f"BARRICADE MOV6 {target}")


def test_a_barricade_blocks_every_move_into_its_hex():
    """C 5d: "Una barricata impedisce qualsiasi spostamento nell'esa che occupa per le unità di
    entrambi i giocatori"."""
    terrains(**CORRIDOR)
    state = position({"MOV6": "D13", "CE1": "D17"}, barricades=(Barricade("D15", 1),))
    assert "err-blocked" in errors(state, "corteo", "MOVE MOV6 D14 D15 D16")
    power = position({"MOV6": "D12", "CE1": "D17"}, stage="potere-movement", barricades=(Barricade("D15", 1),))
    assert "err-blocked" in errors(power, "potere", "MOVE CE1 D16 D15")


def test_a_barricade_is_removed_from_the_next_hand_for_two_points_and_the_unit_goes_on():
    """C 5d: "Una barricata si può rimuovere solo nella mano di gioco successiva a quella in cui è
    stata eretta"; the remover has it in its ZOC, pays 2 points, one per unit a turn, and "La
    rimozione ... non impedisce l'eventuale prosecuzione dello spostamento"."""
    terrains(**CORRIDOR)
    old = position({"CE1": "D17", "MOV6": "D12"}, stage="potere-movement", barricades=(Barricade("D15", 1),))
    new = resolve(old, "potere", "MOVE CE1 D16\nCLEAR CE1 D15\nMOVE CE1 D15", [])
    assert new.barricades == () and loc(new, "CE1") == "D15"  # 1 + 2 + 1 = 4 points
    fresh = position({"CE1": "D16"}, stage="potere-movement", barricades=(Barricade("D15", 2),))
    assert "err-clear-new" in errors(fresh, "potere", "CLEAR CE1 D15")
    two = position({"CE1": "D16", "MOV6": "D12"}, stage="potere-movement",
                   barricades=(Barricade("D15", 1), Barricade("D17", 1)))
    assert "err-cleared" in errors(two, "potere", "CLEAR CE1 D15\nCLEAR CE1 D17")


def test_barricades_are_never_removed_in_the_basic_game():
    """B 7: "Nel gioco base, le barricate non possono essere rimosse"."""
    state = position({"CE1": "D16"}, stage="potere-movement", mode="basic", barricades=(Barricade("D15", 1),))
    assert "err-clear-basic" in errors(state, "potere", "CLEAR CE1 D15")


# -- the power's movement (C 6b-6d, B 5, B 8) ------------------------------------------------------------


def test_a_presidio_stays_on_its_objective_or_steps_to_an_adjacent_objective_hex():
    """C 6b: presidio units "non possono essere spostate dagli esa-obiettivi che occupano se non per
    un esito di scontro ... possono spostarsi da un esa all'altro esa-obiettivo adiacente"."""
    terrains(F13="obiettivo", G13="obiettivo", F14="viale")
    state = position({"PI1": "F13"}, stage="potere-movement", flags={"PI1": {"presidio": True}})
    assert "err-presidio" in errors(state, "potere", "MOVE PI1 F14")
    new = resolve(state, "potere", "MOVE PI1 G13", [])
    assert loc(new, "PI1") == "G13" and unit(new, "PI1").presidio


def test_a_piantone_that_comes_back_onto_an_objective_is_bound_again():
    """C 6b: "Nel momento in cui, per qualsiasi ragione, una unità di presidio rientra in un
    esa-obiettivo, è nuovamente vincolata ad esso"."""
    terrains(F14="viale", F13="obiettivo")
    state = position({"PI1": "F14"}, stage="potere-movement")
    new = resolve(state, "potere", "MOVE PI1 F13", [])
    assert unit(new, "PI1").presidio


def test_reinforcements_by_points_in_the_advanced_game():
    """C 6c and "Schema del gioco avanzato": hand 2 brings 20 points of strength chosen freely (5
    blindati, or 2 lacrimogeni and 2 carabinieri), hand 3 30, hand 4 20, hand 5 30; none later."""
    barracks = ["G10", "F9", "F10", "G18", "H18"]
    terrains(**{b: "caserma" for b in barracks})
    state = position({}, stage="potere-movement")
    text = "\n".join(f"PLACE BL{i + 1} {b}" for i, b in enumerate(barracks))
    new = resolve(state, "potere", text, [])
    assert [loc(new, f"BL{i + 1}") for i in range(5)] == barracks
    assert "err-reinforcement-points" in errors(state, "potere", text + "\nPLACE CE1 I18")
    assert orders(state, "potere", "PLACE LA1 G10\nPLACE LA2 F9\nPLACE CA1 F10\nPLACE CA2 G18").ok
    assert "err-reinforcement-points" in errors(state, "potere",
                                                "PLACE LA1 G10\nPLACE LA2 F9\nPLACE LA3 F10\nPLACE LA4 G18")
    three = position({}, hand=3, stage="potere-movement")
    assert orders(three, "potere", "PLACE LA1 G10\nPLACE LA2 F9\nPLACE LA3 F10\nPLACE LA4 G18\nPLACE LA5 H18").ok
    assert dict(NUMBERS.reinforcement_points) == {2: 20, 3: 30, 4: 20, 5: 30}
    assert "err-no-reinforcements" in errors(position({}, hand=6, stage="potere-movement"), "potere",
                                             "PLACE CE1 G10")


def test_left_out_reinforcements_come_in_by_default():
    """C 6c: the reinforcements are due ("deve rispettare l'ordine di servizio"): a sheet without them
    gets the full 20 points placed in barracks."""
    state = position({}, stage="potere-movement")
    new = resolve(state, "potere", "PASS", [])
    placed = [u for u in new.units if counter(u.id).side == "potere" and u.loc != "reserve"]
    assert sum(counter(u.id).unit.power for u in placed) == 20
    assert all(city().terrain(city().hex(u.loc)) == "caserma" for u in placed)


def test_reinforcements_by_units_in_the_basic_game():
    """B 5: hand 2 "5 blindati", hand 3 "3 lacrimogeni e 3 carabinieri", hand 4 2 and 2, hand 5
    "5 lacrimogeni", in barracks of the power's choice."""
    state = position({}, stage="potere-movement", mode="basic")
    assert orders(state, "potere", "PLACE BL1 G10\nPLACE BL2 F9").ok
    assert "err-reinforcement-type" in errors(state, "potere", "PLACE LA1 G10")
    three = position({}, hand=3, stage="potere-movement", mode="basic")
    assert orders(three, "potere", "PLACE LA1 G10\nPLACE LA2 G10\nPLACE LA3 F9\nPLACE CA1 F9\nPLACE CA2 F10\n"
                                   "PLACE CA3 F10").ok
    assert "err-reinforcement-type" in errors(three, "potere", "PLACE LA1 G10\nPLACE LA2 G10\nPLACE LA3 F9\n"
                                                               "PLACE LA4 F10")


def test_reinforcements_go_into_barracks_within_the_stacking_limit():
    """C 6c, 9: reinforcements start in barracks hexes, two a hex; a barracks hex holding a panicked
    unit takes only one (3a)."""
    state = position({}, stage="potere-movement")
    terrains(D14="strada", G10="caserma")
    assert "err-setup-caserma" in errors(state, "potere", "PLACE CE1 D14")
    assert "err-stack" in errors(state, "potere", "PLACE CE1 G10\nPLACE CE2 G10\nPLACE CE3 G10")
    panic = position({"CA1": "G10"}, stage="potere-movement",
                     flags={"CA1": {"panicked": True, "panic_hand": 2}})
    assert "err-caserma-panic" in errors(panic, "potere", "PLACE CE1 G10\nPLACE CE2 G10")


def test_units_leave_the_barracks_by_its_numbered_exits():
    """C 6c: "Le unità che partono dagli esa-caserma ... entrano in gioco a partire dagli esa-strada
    numerati sulla mappa": caserma 2 (G18-I18) opens on J17 and J18 only."""
    terrains(I18="caserma", I19="strada", J18="strada")
    state = position({"CE1": "I18"}, stage="potere-movement", hand=6)
    assert "err-caserma-exit" in errors(state, "potere", "MOVE CE1 I19")
    assert loc(resolve(state, "potere", "MOVE CE1 J18 J19", []), "CE1") == "J19"


@pytest.mark.parametrize("kind", ["BL1", "LA1"])
@pytest.mark.parametrize("start, target, terrain", [("P24", "Q24", "scale"), ("F14", "F13", "obiettivo"),
                                                    ("R20", "R21", "giardino")])
def test_blindati_and_lacrimogeni_keep_out_of_gardens_objectives_and_stairs(kind, start, target, terrain):
    """C 6d: "per blindati e lacrimogeni è vietato il passaggio in esa-giardino ... per esa-obiettivo
    ... per esa-scale"; a celere may go there."""
    terrains(**{target: terrain})
    state = position({kind: start}, stage="potere-movement", hand=6)
    assert "err-terrain-for" in errors(state, "potere", f"MOVE {kind} {target}")
    ok = position({"CE1": start}, stage="potere-movement", hand=6)
    assert orders(ok, "potere", f"MOVE CE1 {target}").ok


def test_blindati_never_stack_outside_the_barracks():
    """C 9: "I mezzi blindati ... non possono cumularsi fra loro, nè essere cumulati con altre unità
    del potere, salvo che in esa-caserma"."""
    terrains(**CORRIDOR, G10="caserma")
    state = position({"BL1": "D13", "BL2": "D15", "CE1": "D16"}, stage="potere-movement", hand=6)
    assert "err-stack" in errors(state, "potere", "MOVE BL1 D14 D15")
    assert "err-stack" in errors(state, "potere", "MOVE CE1 D15")
    assert orders(position({}, stage="potere-movement"), "potere", "PLACE BL1 G10\nPLACE BL2 G10").ok


def test_running_is_declared_once():
    """C 5c: a run is declared at the start of the movement phase, once: a second RUN is refused."""
    assert "err-run-twice" in errors(position({"MOV6": "D12"}, hand=3), "corteo", "RUN\nRUN")
