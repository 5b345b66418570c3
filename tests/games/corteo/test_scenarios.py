"""The scenarios of section D ("Scenari e Varianti"): Internazionalista, Antifascista and Sociale. Each test
quotes the sentence of the rulebook it checks (the Italian seed, section D)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pbem.core.dice import VerifiableDice
from pbem.errors import UserError
from pbem.games.corteo import RULES
from pbem.games.corteo.board import city
from pbem.games.corteo.scenario import load_scenarios, scenario
from pbem.games.corteo.scenario_rules import objective_points
from pbem.games.corteo.state import RESERVE, Mobile, State, Unit, VERSION
from pbem.games.corteo.units import counter, roster
from pbem.games.corteo.city import distance
from tests.games.corteo.helpers import canonical, errors, notes, resolve, terrains, unit


def scene(key: str, where: dict[str, str] | None = None, *, pieces: dict[str, str] | None = None,
          hand: int = 2, stage: str = "corteo-movement", flags: dict[str, dict[str, Any]] | None = None,
          **changes: Any) -> State:
    """A position of scenario ``key``: the units of ``where`` on the map, the mobile pieces of
    ``pieces`` on theirs (the others still to place), every other unit in the reserve."""
    sc = scenario(key)
    assert sc is not None
    flags = flags or {}
    where = where or {}
    pieces = pieces or {}
    units = tuple(Unit(uid, where.get(uid, RESERVE), **flags.get(uid, {}))
                  for uid in roster(False, tuple(s for s in sc.sets if s != "base")))
    mobiles = tuple(Mobile(pid, pieces.get(pid, ""), "map" if pid in pieces else "reserve")
                    for m in sc.mobiles for pid in m.ids())
    settings: dict[str, Any] = {"head_component": "MOV", **changes}
    return State(VERSION, "advanced", (), hand=hand, stage=stage, units=units, scenario=key, mobiles=mobiles,
                 **settings)


def tally(state: State) -> list[tuple[int, str, str, int]]:
    return [(t.hand, t.side, t.key, t.points) for t in state.tally]


def piece(state: State, pid: str) -> Mobile:
    return next(m for m in state.mobiles if m.id == pid)


ESCORT = {"CE1": "M30", "CE2": "M30", "CE3": "M34", "CE4": "M34", "CE5": "M35"}


# -- choosing a scenario -------------------------------------------------------------------------------


def test_a_scenario_is_chosen_by_option_and_played_on_the_advanced_game():
    """D: "Questo scenario utilizza per intero le regole del gioco: zoc, fase di spostamento, lanci, fase
    di scontro, regole speciali e livelli di vittoria sono come nel gioco avanzato." An unknown
    scenario, or one asked with the basic game, gets a clear answer."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "antifascista", "smoke": "yes"})
    assert (state.mode, state.scenario, state.options) == ("advanced", "antifascista", ("smoke",))
    assert {u.id for u in state.units} >= {f"POC{i}" for i in range(1, 6)}
    assert [m.id for m in state.mobiles] == [f"COM{i}" for i in range(1, 11)]
    with pytest.raises(UserError, match="scenario must be one of"):
        RULES.new_game(["corteo", "potere"], {"scenario": "nazionale"})
    with pytest.raises(UserError, match="advanced game"):
        RULES.new_game(["corteo", "potere"], {"scenario": "internazionalista", "mode": "basic"})
    assert RULES.new_game(["corteo", "potere"], {"scenario": "none"}).scenario == ""


def test_the_data_file_is_checked():
    """The loader names the entry it rejects (data, not code)."""
    with pytest.raises(ValueError, match="unknown Head component"):
        load_scenarios('[[scenario]]\nkey = "x"\nheads = ["NOBODY"]\nsets = ["base"]\nsquare = "Piazza Fontana"\n'
                       'setup = []\nreinforcements = {}\n')


def test_the_head_is_restricted():
    """D Internazionalista: "Testa di corteo possono essere solo le unità di Movimento e ML.";
    D Antifascista: "Testa di corteo possono essere solo le unità di Movimento e LC"."""
    inter = RULES.new_game(["corteo", "potere"], {"scenario": "internazionalista"})
    assert errors(inter, "corteo", "HEAD LC") == ["err-head-scenario"]
    assert RULES.parse_orders(inter, "corteo", "TESTA ML").ok
    anti = RULES.new_game(["corteo", "potere"], {"scenario": "antifascista"})
    assert errors(anti, "corteo", "HEAD ML") == ["err-head-scenario"]
    assert RULES.parse_orders(anti, "corteo", "HEAD LC").ok


def test_the_power_sets_up_by_the_scenario_order_of_service():
    """D Internazionalista: "Piazzamento iniziale. Vigili, piantoni, 5 reparti celere e blindati come
    nel gioco base. 5 reparti celere e Corteo presidenziale in esa di Piazza Fontana." What a sheet
    leaves out is placed by default; carabinieri are not at the set-up."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "internazionalista"})
    new = resolve(state, None, "", [])
    fontana = {h.label for h in city().place_hexes("Piazza Fontana")}
    kinds: dict[str, int] = {}
    for u in new.units:
        c = counter(u.id)
        if c.side == "potere" and u.loc != RESERVE:
            kinds[c.unit.kind] = kinds.get(c.unit.kind, 0) + 1
    assert kinds == {"vigili": 5, "piantoni": 10, "celere": 10, "blindati": 5}
    assert sum(1 for u in new.units if u.id.startswith("CE") and u.loc in fontana) == 5
    assert all(m.status == "map" and m.loc in fontana for m in new.mobiles)
    assert errors(state, "potere", "PLACE CA1 G10") == ["err-scenario-setup-type"]
    assert errors(state, "potere", "PLACE PRE1 D14") == ["err-mobile-square"]
    six = "\n".join(f"PLACE CE{i} {h}" for i, h in zip(range(1, 7), ["L17", "L18", "L19", "L20", "M17", "M18"]))
    assert errors(state, "potere", six) == ["err-setup-count"]  # 5 celere on the square, not 6


def test_reinforcements_follow_the_order_of_service():
    """D Internazionalista: "2^a mano: 10 plotoni di carabinieri in esa-caserma a scelta giocatore-potere.
    3^a mano: 5 reparti lacrimogeni ...": units named, not points (C 6c)."""
    state = scene("internazionalista", stage="potere-movement", hand=2)
    assert errors(state, "potere", "PLACE LA1 G10") == ["err-reinforcement-type"]
    after = resolve(state, "potere", "PASS")
    assert sum(1 for u in after.units if u.id.startswith("CA") and u.loc != RESERVE) == 10
    assert all(u.loc == RESERVE for u in after.units if u.id.startswith("LA"))


def test_only_the_scenario_fixed_objectives_score():
    """D Internazionalista: "DIPLO, MULTINAZIONALI, GOVERNO, PARTITO DOMINANTE, TV, GIORNALI sono gli
    obiettivi «fissi» ... (77 punti in totale). Gli altri obiettivi della mappa non hanno alcun valore";
    D Antifascista: "SEDI REAZIONARIE, GOVERNO, ... TRIBUNALE ... (68 punti in totale)"."""
    inter, anti = scenario("internazionalista"), scenario("antifascista")
    assert inter is not None and anti is not None
    assert city().set_total(inter.categories) == 77 and city().set_total(anti.categories) == 68
    governo = city().objective_at(city().hex("K18"))
    shop = city().objective_at(city().hex("B9"))
    tribunale = city().objective_at(city().hex("G13"))
    assert governo is not None and shop is not None and tribunale is not None
    state = scene("internazionalista")
    assert objective_points(state, governo) == governo.value > 0
    assert objective_points(state, shop) == 0
    assert objective_points(state, tribunale) == 0
    assert objective_points(scene("antifascista"), tribunale) == tribunale.value
    # In play: a covered shop gives nothing, a covered GOVERNO hex its value.
    terrains(K18="obiettivo", B9="obiettivo", K19="strada", A9="strada")
    moved = resolve(scene("internazionalista", {"MOV1": "K18", "MOV2": "B9"}, held=("B9", "K18")), "corteo",
                    "MOVE MOV1 K19\nMOVE MOV2 A9")
    assert moved.points == governo.value


# -- Internazionalista: the Corteo Presidenziale -----------------------------------------------------------


def test_the_motorcade_needs_its_escort():
    """D Internazionalista: "la «scorta» è costituita da almeno 5 unità del potere (di qualsiasi tipo) che
    devono trovarsi sempre ad una distanza massima di 4 esa dai pezzi del Corteo Presidenziale. Se la
    scorta non è sufficiente o è troppo lontana, il Corteo Presidenziale non può muoversi.\""""
    terrains(M32="viale", M33="viale", M30="viale", M34="viale")
    state = scene("internazionalista", ESCORT, pieces={"PRE1": "M32"}, stage="potere-movement", hand=3)
    moved = resolve(state, "potere", "MOVE PRE1 M33")
    assert piece(moved, "PRE1").loc == "M33" and piece(moved, "PRE1").moved == 3
    thin = scene("internazionalista", {k: v for k, v in ESCORT.items() if k != "CE5"}, pieces={"PRE1": "M32"},
                 stage="potere-movement", hand=3)
    assert errors(thin, "potere", "MOVE PRE1 M33") == ["err-escort"]
    assert errors(state, "corteo", "MOVE PRE1 M33") == ["err-not-your-phase"]


def test_no_barricade_near_the_motorcade():
    """D Internazionalista: "Entro 4 esa di distanza dal Corteo Presidenziale non si possono erigere
    barricate o ingorghi.\""""
    terrains(M22="strada", M21="strada", M19="viale")
    near = scene("internazionalista", {"MOV1": "M22"}, pieces={"PRE1": "M19"})
    assert errors(near, "corteo", "BARRICADE MOV1 M21") == ["err-near-presidential"]
    far = scene("internazionalista", {"MOV1": "M22"}, pieces={"PRE1": "M32"})
    assert RULES.parse_orders(far, "corteo", "BARRICADE MOV1 M21").ok


def test_the_motorcade_leaves_by_the_east_edge():
    """D Internazionalista: "il Corteo presidenziale può uscire dalla mappa da uno qualsiasi degli
    esa-strada o esa-viale disposti sul bordo EST della mappa (non da altri lati o esa).\""""
    terrains(M39="viale", M40="viale")
    escort = {"CE1": "M38", "CE2": "M38", "CE3": "M37", "CE4": "M37", "CE5": "M36"}
    state = scene("internazionalista", escort, pieces={"PRE1": "M39"}, stage="potere-movement", hand=4)
    gone = resolve(state, "potere", "MUOVI PRE1 M40")
    assert piece(gone, "PRE1").status == "gone"
    assert "note-presidential-exit" in notes(gone)


def test_a_presidential_piece_in_a_corteo_zoc_scores_each_turn():
    """D Internazionalista: "UNITÀ DEL CORTEO PRESIDENZIALE valgono ciascuna 5 punti/vittoria per il
    corteo, se qualsiasi unità del corteo riesce ad avere nella propria ZOC una unità del corteo
    presidenziale. ... alla fine di ogni turno di gioco\""""
    terrains(M21="strada", M20="viale")
    state = scene("internazionalista", {"MOV1": "M21"}, pieces={"PRE1": "M20", "PRE2": "M33"}, hand=3)
    after = resolve(state, "corteo", "PASS")
    assert after.stage == "potere-movement"
    # MOV1, the Corteo by itself, stands beyond the Walls too.
    assert tally(after) == [(3, "corteo", "cross", 20), (3, "corteo", "zoc", 5)]
    assert RULES.view(after, None)["score"]["corteo"] == 25


def test_crossing_the_walls_with_the_corteo():
    """D Internazionalista: "MURA, FIUME, BORDO EST DELLA MAPPA valgono 20 punti/vittoria per il
    giocatore-corteo, se riesce a oltrepassarli con il Corteo (non con singole unità).\""""
    terrains(D14="strada", D13="strada", B3="viale", B4="viale")
    assert city().part(city().hex("D14")) == 2 and city().part(city().hex("B3")) == 1
    corteo = scene("internazionalista", {"MOV1": "D13", "MOV2": "D14"}, heads=("MOV1", "MOV2"), hand=3)
    after = resolve(corteo, "corteo", "PASS")
    assert tally(after) == [(3, "corteo", "cross", 20)]
    again = resolve(replace(after, stage="corteo-movement"), "corteo", "PASS")
    assert tally(again) == tally(after)  # each line once
    single = scene("internazionalista", {"MOV1": "B3", "MOV2": "B4", "LC1": "D14"}, heads=("MOV1", "MOV2"), hand=3)
    assert tally(resolve(single, "corteo", "PASS")) == []


def test_the_stop_in_front_of_the_embassy():
    """D Internazionalista: "10 punti/vittoria per ogni MANO di gioco in cui il giocatore-potere riesce a
    far occupare alle unità il Corteo Presidenziale 5 esa davanti alla sede diplomatica di Bulvar dei
    Cappuccini. Questi punti valgono dalla 7ª mano in poi\""""
    stops = {f"PRE{i}": h for i, h in enumerate(["M33", "M34", "M35", "M36", "M37"], 1)}
    state = scene("internazionalista", pieces=stops, stage="potere-movement", hand=7)
    after = resolve(state, "potere", "PASS")
    assert after.hand == 8 and tally(after) == [(7, "potere", "stop", 10)]
    early = scene("internazionalista", pieces=stops, stage="potere-movement", hand=6)
    assert tally(resolve(early, "potere", "PASS")) == []
    void = scene("internazionalista", pieces=stops, stage="potere-movement", hand=7, facts=("stop-void",))
    assert tally(resolve(void, "potere", "PASS")) == []


def test_the_stop_does_not_count_after_a_halt_a_step_back_or_the_embassy_reached():
    """D Internazionalista: "La regola suddetta non vale se: Il Corteo Presidenziale si ferma (non si sposta
    nemmeno di un esa) o arretra durante lo spostamento in qualsiasi mano del gioco in esa che non siano
    quelli indicati ... la sede diplomatica è stata raggiunta e occupata anche in un solo esa da unità del
    giocatore-corteo.\""""
    halted = resolve(scene("internazionalista", pieces={"PRE1": "M20"}, stage="potere-movement", hand=2),
                     "potere", "PASS")
    assert "stop-void" in halted.facts and "note-presidential-stopped" in notes(halted)
    back = resolve(scene("internazionalista", ESCORT, pieces={"PRE1": "M32"}, stage="potere-movement", hand=2),
                   "potere", "MOVE PRE1 M31")
    assert "stop-void" in back.facts and "note-presidential-back" in notes(back)
    forward = resolve(scene("internazionalista", ESCORT, pieces={"PRE1": "M32"}, stage="potere-movement", hand=2),
                      "potere", "MOVE PRE1 M33")
    assert "stop-void" not in forward.facts
    terrains(N34="obiettivo")
    embassy = resolve(scene("internazionalista", {"MOV1": "N34"}, hand=3), "corteo", "PASS")
    assert {"embassy-taken", "stop-void"} <= set(embassy.facts)


def test_the_final_score_adds_the_scenario_points_and_drops_the_spezzoni_rule():
    """D Internazionalista: "A questi punti vanno sottratti: i punti che il giocatore-potere ottiene con gli
    arresti (la regola degli spezzoni di corteo alla fine del gioco non ha valore)"; "In questo Scenario
    è valida la tabella «livelli di vittoria» del gioco avanzato.\""""
    from pbem.games.corteo.state import Tally

    terrains(D14="strada")
    last = scene("internazionalista", {"MOV1": "D14", "LC2": "prison"}, stage="potere-movement", hand=10,
                 tally=(Tally(3, "corteo", "cross", 20), Tally(5, "corteo", "zoc", 5), Tally(8, "potere", "stop", 10)),
                 points=40)
    over = resolve(last, "potere", "PASS")
    r = over.result
    assert r is not None
    assert counter("MOV1").unit.kind == "spezzone" and counter("LC2").unit.power == 4
    # 40 + 25 against 10 + 4: MOV1, a spezzone on a street at the end, is not arrested.
    assert (r.corteo, r.potere, r.final, r.level) == (65, 14, 51, "corteo-narrow")


# -- Antifascista: the rally and the dissidents ----------------------------------------------------------


def test_the_rally_stays_until_the_fifth_hand():
    """D Antifascista: "Le unità reazionarie stanno in comizio fino alla 5ª MANO di gioco, poi devono
    mettersi in salvo negli esa-caserna del potere"; "10 punti vittoria per il giocatore-potere se il
    comizio reazionario si scioglie alla 5ª mano di gioco.\""""
    terrains(G22="viale", G21="viale")
    early = scene("antifascista", pieces={"COM1": "G22"}, stage="potere-movement", hand=4)
    assert errors(early, "potere", "MOVE COM1 G21") == ["err-rally-stays"]
    fifth = scene("antifascista", pieces={"COM1": "G22"}, stage="potere-movement", hand=5)
    after = resolve(fifth, "potere", "MOVE COM1 G21")
    assert tally(after) == [(5, "potere", "rally-end", 10)]


def test_a_rally_piece_sent_to_hospital():
    """D Antifascista: "7 punti/vittoria per il giocatore-corteo per ogni unità del comizio reazionario
    mandata all'ospedale. ... una unità del corteo deve occupare l'esa dove si trova l'unità reazionaria:
    quando ciò avviene l'unità reazionaria si rimuove dall'esa e si colloca in uno degli esa-clinica";
    "30 punti/vittoria per il giocatore-corteo se il comizio reazionario si scioglie prima della 5ª MANO";
    "Se l'unità reazionaria si trova in un esa ORG./REAZ., il suo valore raddoppia\""""
    terrains(G23="viale", G22="viale", J34="viale", K34="obiettivo")
    assert city().objective_at(city().hex("K34")).category == "ORG./REAZ."  # type: ignore[union-attr]
    state = scene("antifascista", {"MOV1": "G23", "MOV2": "J34"}, pieces={"COM1": "G22", "COM2": "K34"}, hand=3)
    after = resolve(state, "corteo", "MOVE MOV1 G22\nMOVE MOV2 K34")
    assert tally(after) == [(3, "corteo", "clinic", 7), (3, "corteo", "dissolved", 30), (3, "corteo", "clinic", 14)]
    clinics = {h.label for h in city().clinic_hexes}
    assert piece(after, "COM1").status == "clinic" and piece(after, "COM1").loc in clinics
    # The rally is over: no 10 points for the power at the fifth hand.
    fifth = resolve(replace(after, hand=5, stage="potere-movement", tally=()), "potere", "PASS")
    assert tally(fifth) == []


def test_rally_pieces_saved_in_the_barracks_by_the_schedule():
    """D Antifascista: "7 punti/vittoria per ciascuna delle unità reazionarie messe in salvo in questo
    ordine: 6ª mano: almeno 1 unità reazionaria in esa-caserma, 7ª mano: almeno altre 2 ... Se in una mano
    il potere non riesce a mettere in salvo le unità previste, non ottiene i punti\""""
    terrains(J18="strada", I18="caserma", J17="strada", H19="strada", H18="caserma")
    sixth = scene("antifascista", pieces={"COM1": "J18"}, stage="potere-movement", hand=6,
                  facts=("rally-dissolved",))
    saved = resolve(sixth, "potere", "MOVE COM1 I18")
    assert piece(saved, "COM1").status == "saved"
    assert tally(saved) == [(6, "potere", "saved", 7)]
    seventh = scene("antifascista", pieces={"COM2": "H19"}, stage="potere-movement", hand=7,
                    facts=("rally-dissolved",))
    short = resolve(seventh, "potere", "MOVE COM2 H18")
    assert tally(short) == [] and "note-saved-short" in notes(short)


def test_rally_pieces_stand_alone():
    """D Antifascista: "Possono spostarsi senza scorta ma non cumularsi fra loro e con altre unità del
    potere.\""""
    terrains(G21="viale", G22="viale")
    state = scene("antifascista", {"CE1": "G21"}, pieces={"COM1": "G22", "COM2": "G23"}, stage="potere-movement",
                  hand=5)
    assert errors(state, "potere", "MOVE COM1 G21") == ["err-mobile-hex"]
    assert errors(state, "potere", "MOVE COM1 G23") == ["err-mobile-hex"]
    assert errors(state, "potere", "MOVE CE1 G22") == ["err-mobile-hex"]


def test_dissidents_are_placed_in_case_popolari_and_activated_by_the_head():
    """D Antifascista: "All'inizio del gioco il giocatore deve collocare tali unità, singole o cumulate, in
    esacase popolari a sua scelta. ... Per attivarle, le unità di Testa devono porre le unità dissidenti
    nella propria ZOC e poi tirare il dado: numeri pari non hanno effetto. ... L'attivazione avviene
    nella fase di spostamento del giocatore-corteo.\""""
    setup = RULES.new_game(["corteo", "potere"], {"scenario": "antifascista"})
    assert errors(setup, "corteo", "PLACE POC1 B2") == ["err-dissident-place"]
    placed = resolve(setup, "corteo", "PLACE POC1 N2", [])
    assert unit(placed, "POC1").loc == "N2" and unit(placed, "POC1").waiting
    assert all(city().terrain(city().hex(unit(placed, f"POC{i}").loc)) == "case_popolari" for i in range(1, 6))
    terrains(N2="case_popolari", M2="strada", M4="viale")
    waiting = {"POC1": {"waiting": True}, "POC2": {"waiting": True}}
    state = scene("antifascista", {"POC1": "N2", "POC2": "N2", "MOV1": "M2", "LC1": "M3"}, flags=waiting, hand=3)
    after = resolve(state, "corteo", "ACTIVATE POC1\nATTIVA POC2", [3, 4])
    assert not unit(after, "POC1").waiting and unit(after, "POC2").waiting
    assert {"note-dissident-joined", "note-dissident-stays"} <= set(notes(after))
    lc_head = scene("antifascista", {"POC1": "N2", "LC1": "M3"}, flags=waiting, hand=3)
    assert errors(lc_head, "corteo", "ACTIVATE POC1") == ["err-dissident-far"]
    assert errors(state, "corteo", "ACTIVATE MOV1") == ["err-not-dissident"]
    assert errors(state, "corteo", "MOVE POC1 M1") == ["err-not-active"]


# -- Antirepressivo: the accused (the text's frame, our design for the rest) -------------------------------


def test_antirepressivo_forces_head_and_the_accused_on_trial():
    """D Antirepressivo: "I giocatori-corteo dispongono di 40 unità, a scelta, per 132 punti/potenza. Le
    unità del Corteo partono dalla Piazza Mento"; "Il Corteo viene autorizzato dal potere a condizione
    che queste 3 componenti ne abbiano la Testa"; "Il giocatore-potere pone 3 unità del Corteo negli
    esa-marroni del tribunale (Piazzale Odio) sotto processo"."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "antirepressivo"})
    corteo = [u for u in state.units if counter(u.id).side == "corteo"]
    assert len(corteo) == 40
    trial = {u.id: u.loc for u in corteo if u.waiting}
    assert trial == {"MOV14": "F12", "MOV15": "G12", "MOV16": "H12"}
    assert all(city().terrain(city().hex(h)) == "caseggiato" for h in trial.values())
    assert errors(state, "corteo", "HEAD MOV") == ["err-head-scenario"]
    assert errors(state, "corteo", "PLACE MOV14 B2") == ["err-accused-place"]
    started = resolve(state, "corteo", "TESTA ZOMBIES", [])
    mento = {h.label for h in city().place_hexes("Piazza Mento")}
    assert started.head_component == "ZOMBIES"
    assert sum(1 for u in started.units if u.loc in mento) == 37


def test_antirepressivo_the_corteo_frees_the_accused_at_the_tribunale():
    """D Antirepressivo, strategy b: "possono agire tentando di arrivare al Tribunale, per liberare i
    processati". Ours: a corteo unit on a TRIBUNALE hex before the building frees them, 10 points each."""
    terrains(G14="viale", G13="obiettivo")
    on_trial = {"MOV14": {"waiting": True}, "MOV15": {"waiting": True}, "MOV16": {"waiting": True}}
    state = scene("antirepressivo", {"RAD1": "G14", "MOV14": "F12", "MOV15": "G12", "MOV16": "H12"},
                  flags=on_trial, head_component="RAD", hand=4)
    after = resolve(state, "corteo", "MOVE RAD1 G13")
    assert tally(after) == [(4, "corteo", "freed", 10)] * 3
    assert all(not unit(after, u).waiting and city().terrain(city().hex(unit(after, u).loc)) != "caseggiato"
               for u in ("MOV14", "MOV15", "MOV16"))


def test_antirepressivo_the_helicopter():
    """D Antirepressivo: "i processati possono essere spostati, in qualunque momento della fase di
    spostamento del giocatore-potere, dal Tribunale al carcere via elicottero.\""""
    on_trial = {"MOV14": {"waiting": True}, "MOV15": {"waiting": True}}
    state = scene("antirepressivo", {"MOV14": "F12", "MOV15": "G12", "MOV16": "prison"}, flags=on_trial,
                  stage="potere-movement", hand=3)
    assert errors(state, "potere", "HELICOPTER MOV16") == ["err-accused-gone"]
    assert errors(state, "potere", "ELICOTTERO MOV1") == ["err-not-accused"]
    after = resolve(state, "potere", "ELICOTTERO MOV14")
    assert unit(after, "MOV14").loc == "prison" and "note-helicopter" in notes(after)
    assert unit(after, "MOV15").waiting


def test_antirepressivo_the_sentence():
    """D Antirepressivo, strategy a: "concludere la manifestazione in Piazzale Odio, davanti al Tribunale.
    Se riescono a fare questo senza subire arresti di unità per un valore superiore al valore complessivo
    in punti/potenza di quelle processate, possono tirare il dado ... (risultati 4-5-6 del dado)\""""
    terrains(F14="viale", F15="viale")
    on_trial = {"MOV14": {"waiting": True}, "MOV15": {"waiting": True}, "MOV16": {"waiting": True}}
    where = {"RAD1": "F14", "RAD2": "F15", "MOV14": "F12", "MOV15": "G12", "MOV16": "H12", "GRU1": "prison"}
    last = scene("antirepressivo", where, flags=on_trial, heads=("RAD1", "RAD2"), head_component="RAD",
                 stage="potere-movement", hand=10)
    over = resolve(last, "potere", "PASS", [5, 2, 6])
    assert tally(over) == [(10, "corteo", "freed", 10)] * 2
    assert over.result is not None and over.result.corteo == 20
    heavy = scene("antirepressivo", {**where, "AUT1": "prison", "AUT2": "prison"}, flags=on_trial,
                  heads=("RAD1", "RAD2"), head_component="RAD", stage="potere-movement", hand=10)
    assert tally(resolve(heavy, "potere", "PASS", [])) == []  # 13 arrested against 12 on trial: no roll


@pytest.mark.parametrize("key", ["internazionalista", "antifascista", "antirepressivo"])
def test_the_orders_template_of_every_scenario(key):
    """ORDINI in each scenario, for both sides, at the set-up and in the first hands: the scenario's
    own lines in both languages, and a template that parses (its orders are comments and PASS)."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": key})
    seen = []
    for _ in range(4):
        for seat in ("corteo", "potere"):
            for lang in ("en", "it"):
                text = RULES.template(state, seat, lang)
                seen.append(text)
                if seat in RULES.phase(state).awaiting:
                    assert RULES.parse_orders(state, seat, text).ok
        sheets = {s: RULES.default_orders(state, s) for s in RULES.phase(state).awaiting}
        state = RULES.resolve(state, sheets, VerifiableDice(b"t", "g", state.hand, "x", 0)).state
    joined = "\n".join(seen)
    assert "Scenario" in joined and "Testa:" in joined and "Head:" in joined
    if key == "internazionalista":
        assert "PRE1 in" in joined and "The Corteo Presidenziale moves with at least 5" in joined
    if key == "antifascista":
        assert "POC1@" in joined and "Il comizio resta in Piazza della Robba" in joined
    if key == "antirepressivo":
        assert "ELICOTTERO" in joined and "a corteo unit on F13 G13 H13 frees them" in joined


# -- Sociale -------------------------------------------------------------------------------------------

CORTEO40 = [u for u in roster(False, ("asterisco",)) if counter(u).side == "corteo"]
SECRET = ("D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9", "D10", "D11", "C2", "C3")
ROW_D = ["D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9", "D10", "D11", "E2"]


def formed_on_row_d() -> dict[str, str]:
    """21 corteo units joined on the grey hexes of row D (two a hex) and E2, MOV1 among them."""
    return {uid: ROW_D[i // 2] for i, uid in enumerate(CORTEO40[:21])}


def test_sociale_forces_and_head():
    """D Sociale: "Le unità del corteo sono 40 (per 132 punti/potenza complessivi)"; "Testa di corteo
    possono essere solo le unità di Movimento e AUTOP"."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "sociale"})
    corteo = [u.id for u in state.units if counter(u.id).side == "corteo"]
    assert len(corteo) == 40 and sum(counter(u).unit.power for u in corteo) == 134  # base 102 (Counters) + 32
    assert errors(state, "corteo", "HEAD LC") == ["err-head-scenario"]
    assert canonical(state, "corteo", "TESTA AUT")[0] == "HEAD AUTOP"


def test_sociale_split_deployment():
    """D Sociale: "4 spezzoni ... in esa-luoghi affollati / 4 spezzoni ... in esa-metropolitana / 8 spezzoni
    ... in esa-case popolari / 24 unità, che possono entrare sulla mappa (singole e cumulate) da qualunque esa
    dei bordi della mappa". Piazza Mento is not a start; a fifth unit in the crowded places is refused; the
    defaults fill each row."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "sociale"})
    assert errors(state, "corteo", "PLACE MOV1 M18") == ["err-deploy-where"]
    crowded = "\n".join(f"PLACE {u} {h}" for u, h in zip(CORTEO40, ["E21", "E21", "E22", "E22", "E23"]))
    assert errors(state, "corteo", crowded) == ["err-deploy-full"]
    assert canonical(state, "corteo", "PLACE MOV1 A11\nPLACE MOV2 N2\nPLACE MOV3 O19")[:3] == [
        "PLACE MOV1 A11", "PLACE MOV2 N2", "PLACE MOV3 O19"]
    new = resolve(state, None, "", [])
    where = {u.id: u.loc for u in new.units if u.id in CORTEO40}
    assert all(loc != RESERVE for loc in where.values())
    rows = {"affollato": 0, "metro": 0, "case_popolari": 0, "edge": 0}
    for loc in where.values():
        h = city().parse(loc)
        assert h is not None
        if city().terrain(h) == "affollato" and rows["affollato"] < 4:
            rows["affollato"] += 1
        elif h in city().metro_hexes and rows["metro"] < 4:
            rows["metro"] += 1
        elif city().terrain(h) == "case_popolari" and rows["case_popolari"] < 8:
            rows["case_popolari"] += 1
        else:
            assert city().edges(h), loc
            rows["edge"] += 1
    assert rows == {"affollato": 4, "metro": 4, "case_popolari": 8, "edge": 24}


def test_sociale_power_sets_up_everything_within_six_hexes():
    """D Sociale: "A differenza del gioco base, il giocatore-potere dispone le sue unità prima che cominci il
    gioco con questo ordine: 10 piantoni: in esa obiettivi a sua scelta, 10 reparti di polizia, 5 reparti
    blindati, 10 reparti lacrimogeni, 10 plotoni carabinieri, 5 vigili urbani: in esa a scelta del
    giocatore-potere, che siano al massimo a 6 di distanza da esa-obiettivi o esa-caserma." No reinforcements
    follow."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "sociale"})
    new = resolve(state, None, "", [])
    power = [u for u in new.units if counter(u.id).side == "potere"]
    assert len(power) == 50 and all(u.loc != RESERVE for u in power)
    anchors = city().caserma_hexes + city().objective_hexes
    for u in power:
        h = city().parse(u.loc)
        assert h is not None and min(distance(h, x) for x in anchors) <= 6
    far = next(h for h in city().hexes if min(distance(h, x) for x in anchors) > 6
               and city().terrain(h) in ("strada", "viale"))
    assert errors(state, "potere", f"PLACE CA1 {far.label}") == ["err-scenario-setup-where"]
    assert canonical(state, "potere", "PLACE CA1 G10")[0] == "PLACE CA1 G10"
    second = scene("sociale", stage="potere-movement", hand=2)
    assert errors(second, "potere", "PLACE LA1 G10") == ["err-no-reinforcements"]


def test_sociale_secret_place_is_written_before_the_game():
    """D Sociale: "Prima dell'inizio del gioco il giocatore-corteo deve scrivere su un foglio il nome del
    luogo su cui intende formare il corteo (si deve trattare di una località — piazze, viale, ecc. — di
    esa-grigi) ... che permettano di identificare con certezza almeno 11 esa"."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "sociale"})
    assert errors(state, "corteo", "FORMATION " + " ".join(SECRET[:10])) == ["err-secret-count"]
    assert errors(state, "corteo", "FORMATION " + " ".join(SECRET[:11]) + " N2") == ["err-secret-grey"]
    assert errors(state, "corteo", "FORMAZIONE") == ["err-secret-form"]
    assert errors(state, "corteo", f"FORMATION {' '.join(SECRET)}\nFORMATION {' '.join(SECRET)}") == ["err-secret-twice"]
    other = RULES.new_game(["corteo", "potere"], {"scenario": "antifascista"})
    assert errors(other, "corteo", "FORMATION " + " ".join(SECRET)) == ["err-secret-scenario"]
    new = resolve(state, "corteo", "FORMAZIONE " + " ".join(SECRET), [])
    assert new.secret == SECRET


def test_sociale_the_secret_place_stays_secret_from_the_power():
    """D Sociale: "Il foglio non si scopre e rimane segreto per tutto il gioco se il giocatore-corteo non è
    riuscito a raggiungere il luogo prescelto": the power's view and report never hold it; the corteo's do."""
    state = scene("sociale", hand=3, secret=SECRET)
    for viewer in ("potere", None):
        view = RULES.view(state, viewer)
        assert view["scenario"]["secret"] is None
        text = RULES.describe(view, "it") + RULES.describe(view, "en")
        assert "D11" not in text and "Luogo segreto" not in text
    mine = RULES.view(state, "corteo")
    assert mine["scenario"]["secret"] == list(SECRET)
    assert "D2 D3 D4" in RULES.describe(mine, "en")


def test_sociale_forming_at_the_secret_place_scores_30_and_reveals_it():
    """D Sociale: "il Corteo deve essere formato almeno da 21 unità"; "30 punti/vittoria al giocatore-corteo
    se riesce a formare il Corteo nel luogo scelto segretamente, occupando almeno 6 degli esa grigi indicati
    da lui. Tali punti sono dati alla fine della MANO di gioco." Twenty units are not a Corteo."""
    where = formed_on_row_d()
    state = scene("sociale", where, hand=3, stage="potere-movement", secret=SECRET, heads=("MOV1", "MOV2"))
    after = resolve(state, "potere", "PASS")
    assert after.hand == 4 and after.knows("formed") and after.knows("secret-revealed")
    assert tally(after) == [(3, "corteo", "secret", 30)]
    assert RULES.view(after, "potere")["scenario"]["secret"] == list(SECRET)
    fewer = scene("sociale", {u: h for u, h in where.items() if u != CORTEO40[20]}, hand=3, stage="potere-movement",
                  secret=SECRET, heads=("MOV1", "MOV2"))
    short = resolve(fewer, "potere", "PASS")
    assert not short.knows("formed") and tally(short) == []
    elsewhere = scene("sociale", where, hand=3, stage="potere-movement", secret=("M20",) * 11,
                      heads=("MOV1", "MOV2"))
    formed = resolve(elsewhere, "potere", "PASS")
    assert formed.knows("formed") and tally(formed) == [] and not formed.knows("secret-revealed")


def test_sociale_a_head_scores_a_point_per_hex_walked():
    """D Sociale: "1 punto/vittoria per ogni ESA percorso da una TESTA di corteo (a scelta del
    giocatore-corteo), esclusa la MANO in cui il Corteo si forma. Hanno valore gli esa percorsi nella fase di
    spostamento del giocatore-corteo: i punti si attribuiscono alla fine della MANO di gioco"."""
    where = formed_on_row_d()
    state = scene("sociale", where, hand=4, heads=("MOV1", "MOV2"), facts=("formed", "was-formed"))
    moved = resolve(state, "corteo", "MOVE MOV1 C2 B2\nHEAD MOV1 MOV2")
    assert tally(moved) == [] and moved.knows("walked:2")  # scored at the end of the hand
    closed = resolve(replace(moved, stage="potere-movement"), "potere", "PASS")
    assert (4, "corteo", "head", 2) in tally(closed) and not any(f.startswith("walked") for f in closed.facts)
    forming = scene("sociale", where, hand=4, heads=("MOV1", "MOV2"))
    walked = resolve(forming, "corteo", "MOVE MOV1 C2 B2\nHEAD MOV1 MOV2")
    assert not any(f.startswith("walked") for f in walked.facts)  # the hand it forms does not count


def test_sociale_dispersing_the_corteo_scores_10_to_the_power():
    """D Sociale: "10 punti per il giocatore-potere se questi riesce a disperdere il Corteo che si è formato,
    in qualunque turno di gioco. Disperdere il Corteo vuol dire interrompere la continuità fra le unità che lo
    compongono"."""
    where = formed_on_row_d()
    split = {**where, CORTEO40[19]: "K20", CORTEO40[20]: "K21"}  # two of the 21 cut away
    state = scene("sociale", split, hand=5, stage="potere-movement", heads=("MOV1", "MOV2"),
                  facts=("formed", "was-formed"))
    after = resolve(state, "potere", "PASS")
    assert (5, "potere", "dispersed", 10) in tally(after) and not after.knows("formed")
    whole = scene("sociale", where, hand=5, stage="potere-movement", heads=("MOV1", "MOV2"),
                  facts=("formed", "was-formed"))
    assert tally(resolve(whole, "potere", "PASS")) == []


def test_sociale_weak_units_go_home_from_the_sixth_hand():
    """D Sociale: "Se, all'inizio della 6ª MANO di gioco, il Corteo non si è ancora formato, i suoi pezzi più
    deboli (cioè tutti i 4/1 e 4/2 ...) considerano opportuno tornare a casa e iniziano a dirigersi verso i
    più vicini bordi della mappa per uscire. Il giocatore-corteo li deve spostare"; "Se gli spezzoni di corteo
    rimasti sulla mappa riescono a formare il Corteo tutte le unità deboli ... possono invece tornare
    indietro"."""
    state = scene("sociale", {"RAD1": "K20", "MOV1": "K22", "GRU1": "B11"}, hand=6)
    inward = "MOVE RAD1 K21"  # toward the middle of the City: refused
    assert errors(state, "corteo", inward) == ["err-going-home"]
    after = resolve(state, "corteo", "PASS")
    rad = city().parse(unit(after, "RAD1").loc)
    assert rad is not None and min(rad.row, rad.col, 25 - rad.row, 39 - rad.col) < 19  # walked toward an edge
    assert unit(after, "MOV1").loc == "K22"  # a strong unit stays
    assert unit(after, "GRU1").loc == "home" and "note-gone-home" in notes(after)
    fifth = scene("sociale", {"RAD1": "K20"}, hand=5)
    assert canonical(fifth, "corteo", inward)[0] == inward
    formed = scene("sociale", {"RAD1": "K20"}, hand=6, facts=("was-formed",))
    assert canonical(formed, "corteo", inward)[0] == inward


def test_sociale_barricades_are_used_again():
    """D Sociale: "BARRICATE: il giocatore-corteo può utilizzare tutti i pezzi previsti nel gioco base ... I
    pezzi, una volta rimossi dalla mappa, possono però essere riutilizzati senza limiti." """
    from pbem.games.corteo.state import Barricade

    state = scene("sociale", {"CE1": "K19"}, hand=3, stage="potere-movement",
                  barricades=(Barricade("K20", 2),), barricades_left=0)
    after = resolve(state, "potere", "CLEAR CE1 K20")
    assert after.barricades == () and after.barricades_left == 1
    plain = scene("antifascista", {"CE1": "K19"}, hand=3, stage="potere-movement",
                  barricades=(Barricade("K20", 2),), barricades_left=0)
    assert resolve(plain, "potere", "CLEAR CE1 K20").barricades_left == 0


def test_sociale_orders_template():
    """D Sociale: the ORDERS template gives the corteo its split deployment and the secret place
    ("Prima dell'inizio del gioco il giocatore-corteo deve scrivere su un foglio il nome del luogo"), the
    power its whole set-up ("dispone le sue unità prima che cominci il gioco"), and from the sixth hand
    the weak units going home ("iniziano a dirigersi verso i più vicini bordi della mappa")."""
    state = RULES.new_game(["corteo", "potere"], {"scenario": "sociale"})
    corteo = RULES.template(state, "corteo", "it")
    assert "FORMAZIONE <almeno 11 esa grigi>" in corteo and "Piazza Mento" not in corteo
    assert "nessun rinforzo dopo" in RULES.template(state, "potere", "it")
    sixth = scene("sociale", {"RAD1": "K20", "MOV1": "K22"}, hand=6)
    text = RULES.template(sixth, "corteo", "en")
    assert "Going home" in text and "RAD1" in text.split("Going home")[1].splitlines()[0]
    assert "MOV1" not in text.split("Going home")[1].splitlines()[0]


def test_antirepressivo_the_factions_separate_tally():
    """D Antirepressivo: "dispute sulla componente che deve avere la testa del Corteo, fino ad una tabella
    separata dei punti/vittoria per le sedicenti «Destra e Sinistra» dei manifestanti". Ours: «Destra» the
    Head's components ("La prima è tipica delle componenti che sono inizialmente in Testa: radicali,
    zombies, gruppi"), «Sinistra» the others ("gli spezzoni «tozzi» come quelli di AUTOP"); each is
    credited the objectives it held, the accused it freed, and charged its units arrested. One score
    still decides the game."""
    terrains(G14="viale", G13="obiettivo", K17="obiettivo")
    on_trial = {"MOV14": {"waiting": True}, "MOV15": {"waiting": True}, "MOV16": {"waiting": True}}
    state = scene("antirepressivo", {"AUT1": "G14", "MOV14": "F12", "MOV15": "G12", "MOV16": "H12", "RAD1": "K17",
                                     "ZOM1": "prison"}, flags=on_trial, head_component="RAD", hand=4)
    freed = resolve(state, "corteo", "MOVE AUT1 G13")
    assert {f for f in freed.facts if f.startswith("freed-by:")} == {
        "freed-by:MOV14:sinistra", "freed-by:MOV15:sinistra", "freed-by:MOV16:sinistra"}
    from pbem.games.corteo.flow import end_of_hand

    closed = end_of_hand(freed)  # the end of the hand (12a), where the holders are noted
    assert "held-by:K17:destra" in closed.facts and "held-by:G13:sinistra" in closed.facts
    covered = replace(closed, covered=("K17",))
    view = RULES.view(covered, None)["scenario"]["factions"]
    governo = objective_points(covered, city().objective_at(city().hex("K17")))  # type: ignore[arg-type]
    assert view == {"destra": {"objectives": governo, "freed": 0, "arrested": counter("ZOM1").unit.power},
                    "sinistra": {"objectives": 0, "freed": 30, "arrested": 0}}
    assert "«Sinistra» (le altre componenti): obiettivi 0, processati liberati 30" in RULES.describe(
        RULES.view(covered, "potere"), "it")
    assert RULES.view(scene("sociale"), None)["scenario"]["factions"] is None
