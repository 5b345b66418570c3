"""The scenarios' points (D "Punteggi di vittoria"), scored on the board at the moments the text
names: after a phase (lines crossed, the embassy reached), at the end of a side's turn (the Corteo
Presidenziale in a corteo ZOC), at the end of a hand (the stop in front of the embassy, the rally's
end, the rally pieces saved). Each entry of the running tally says the hand, the side and why.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from pbem.core.dice import Dice
from pbem.games.corteo.board import Board, city, hexof
from pbem.games.corteo.city import Hex, Objective, distance
from pbem.games.corteo.scenario import Scenario, scenario
from pbem.games.corteo.score import result
from pbem.games.corteo.state import CORTEO, POTERE, PRISON, Note, State, Tally
from pbem.games.corteo.tables import TABLES
from pbem.games.corteo.units import counter

LINES = ("mura", "fiume", "est")


def objective_points(state: State, o: Objective) -> int:
    """D: only the scenario's fixed objectives score; "Gli altri obiettivi della mappa non hanno
    alcun valore, ma seguono le regole generali degli obiettivi"."""
    sc = scenario(state.scenario)
    if sc is None or o.category in sc.categories:
        return o.value
    return 0


def _score(board: Board, side: str, key: str, points: int, what: str = "") -> None:
    board.tally.append(Tally(board.state.hand, side, key, points, what))
    board.notes.append(Note(f"note-tally-{key}", (("side", side), ("points", str(points)), ("what", what))))


def amend(state: State, apply: Callable[[Board], None]) -> State:
    """Play ``apply`` on a board of ``state``; its points, facts and notes join the state and the
    record of the last phase."""
    board = Board(state)
    apply(board)
    if not board.notes and board.tally == list(state.tally) and board.facts == set(state.facts):
        return state
    log = state.log
    if log:
        log = log[:-1] + (replace(log[-1], notes=log[-1].notes + tuple(board.notes)),)
    return replace(state, tally=tuple(board.tally), facts=tuple(sorted(board.facts)), log=log,
                   mobiles=tuple(board.mobiles[m] for m in board.mobiles))


# -- after every phase ---------------------------------------------------------------------------------


def phase_end(board: Board, stage: str, heads: tuple[str, ...] = ()) -> None:
    sc = scenario(board.state.scenario)
    if sc is None:
        return
    if sc.key == "internazionalista":
        _crossing(board, sc, heads or board.state.heads)
        _embassy(board, sc)
        if stage == "potere-movement":
            _stopped(board, sc)
    elif sc.key == "antirepressivo" and stage.startswith("corteo-"):
        _freed_by_force(board, sc)
    elif sc.key == "sociale":
        if stage == "corteo-movement":
            _walked(board, heads or board.state.heads)
        elif stage.startswith("potere-"):
            _dispersed(board, sc, heads or board.state.heads)


def on_trial(board: Board, sc: Scenario) -> list[str]:
    """D Antirepressivo: the accused still in the Tribunale."""
    trial = set(sc.hexes("trial_hexes"))
    return [u for u in sc.hexes("accused") if board.units[u].waiting and board.loc(u) in trial]


def faction(sc: Scenario, uid: str) -> str:
    """D Antirepressivo, OURS: the corteo's two factions of "una tabella separata dei punti/vittoria per le
    sedicenti «Destra e Sinistra» dei manifestanti": "destra" the components at the Head ("La prima è
    tipica delle componenti che sono inizialmente in Testa: radicali, zombies, gruppi"), "sinistra" the
    others ("Alla seconda sono portati gli spezzoni «tozzi» come quelli di AUTOP")."""
    return "destra" if counter(uid).component in sc.heads else "sinistra"


def _free(board: Board, sc: Scenario, units: list[str], how: str, by: str) -> None:
    """The accused leave the Tribunale and join the Corteo: each on the nearest free hex it may
    stand on (OURS), 10 points each (OURS), to the faction ``by`` in the separate tally."""
    for uid in units:
        board.facts.add(f"freed-by:{uid}:{by}")
        here = hexof(board.loc(uid))
        assert here is not None
        board.units[uid] = replace(board.units[uid], waiting=False)
        spots = sorted((h for h in city().hexes if distance(h, here) <= 4 and board.may_enter(uid, h) is None
                        and board.stack_ok(uid, h)), key=lambda h: (distance(h, here), h))
        if spots:
            board.set_loc(uid, spots[0].label, "enter", (here.label, spots[0].label))
        _score(board, CORTEO, "freed", sc.number("freed_points"), uid)
        board.notes.append(Note(f"note-accused-{how}", (("unit", uid),)))


def _freed_by_force(board: Board, sc: Scenario) -> None:
    """D Antirepressivo, strategy b: "possono agire tentando di arrivare al Tribunale, per liberare i
    processati". OURS: a corteo unit on a TRIBUNALE objective hex before the building after one of
    the corteo's phases frees them all."""
    there = [u for label in sc.hexes("court_hexes") for u in board.at(label, CORTEO)]
    if there:
        _free(board, sc, on_trial(board, sc), "freed", faction(sc, sorted(there)[0]))


def sentence(state: State, dice: Dice) -> State:
    """D Antirepressivo, strategy a: "concludere la manifestazione in Piazzale Odio, davanti al
    Tribunale. Se riescono a fare questo senza subire arresti di unità per un valore superiore al valore
    complessivo in punti/potenza di quelle processate, possono tirare il dado per ogni unità arrestata e
    ottenere (risultati 4-5-6 del dado) che il processo abbia esito positivo e che le unità processate
    siano liberate." OURS: at the end of the tenth hand, the Corteo (the Head's group) with a unit on
    Piazzale Odio; one die for each accused (the units on trial, "arrestate" in earlier corteos);
    the points join the final score."""
    sc = scenario(state.scenario)
    if sc is None or sc.key != "antirepressivo" or state.result is None:
        return state
    board = Board(state)
    accused = on_trial(board, sc)
    square = {h.label for h in city().place_hexes(sc.square)}
    corteo = _the_corteo(board, state.heads)
    there = any(board.loc(u) in square for u in corteo)
    arrested = sum(board.type(u).power for u in board.at(PRISON) if u not in sc.hexes("accused"))
    weight = sum(board.type(u).power for u in sc.hexes("accused"))
    if not accused or not there or arrested > weight:
        return state
    freed = []
    for uid in accused:
        roll = dice.roll(TABLES.die, f"D Antirepressivo: is {uid} acquitted?")
        board.notes.append(Note("note-sentence", (("unit", uid), ("roll", str(roll)))))
        if TABLES.roll_succeeds(str(sc.numbers["sentence_roll"]), roll):
            freed.append(uid)
    _free(board, sc, freed, "acquitted", "destra")  # strategy a: "tipica delle componenti ... in Testa"
    final = result(board)
    log = state.log[:-1] + (replace(state.log[-1], notes=state.log[-1].notes + tuple(board.notes)),)
    return replace(state, units=tuple(board.units[u] for u in board.units), tally=tuple(board.tally), log=log,
                   result=final)


def _the_corteo(board: Board, heads: tuple[str, ...]) -> set[str]:
    for group in board.aggregates():
        if any(h in group for h in heads if board.on_map(h)):
            return group
    return set()


def _crossing(board: Board, sc: Scenario, heads: tuple[str, ...]) -> None:
    """D Internazionalista: "MURA, FIUME, BORDO EST DELLA MAPPA valgono 20 punti/vittoria per il
    giocatore-corteo, se riesce a oltrepassarli con il Corteo (non con singole unità). Oltrepassarli
    vuol dire occupare anche solo per un turno di gioco un esa oltre questi limiti della mappa con
    qualsiasi unità del Corteo". OURS: the East edge is crossed by standing on its last column."""
    reached: set[str] = set()
    for uid in _the_corteo(board, heads):
        h = board.hex(uid)
        if h is None:
            continue
        part = city().part(h)
        if part is not None and part >= 2:
            reached.add("mura")
        if part == 3:
            reached.add("fiume")
        if "E" in city().edges(h):
            reached.add("est")
    for line in LINES:
        if line in reached and f"crossed-{line}" not in board.facts:
            board.facts.add(f"crossed-{line}")
            _score(board, CORTEO, "cross", sc.number("cross_points"), line)


def _embassy(board: Board, sc: Scenario) -> None:
    """D Internazionalista: the stop does not count if "la sede diplomatica è stata raggiunta e
    occupata anche in un solo esa da unità del giocatore-corteo"."""
    if "embassy-taken" in board.facts:
        return
    if any(board.at(label, CORTEO) for label in sc.hexes("embassy")):
        board.facts.update({"embassy-taken", "stop-void"})
        board.notes.append(Note("note-embassy-taken", (("hexes", " ".join(sc.hexes("embassy"))),)))


def _stopped(board: Board, sc: Scenario) -> None:
    """D Internazionalista: the stop does not count if "Il Corteo Presidenziale si ferma (non si
    sposta nemmeno di un esa) ... in qualsiasi mano del gioco in esa che non siano quelli indicati"."""
    if "stop-void" in board.facts:
        return
    stops = set(sc.hexes("stop_hexes"))
    for m in board.mobiles.values():
        if m.status == "map" and m.id.startswith("PRE") and m.moved != board.state.hand and m.loc not in stops:
            board.facts.add("stop-void")
            board.notes.append(Note("note-presidential-stopped", (("piece", m.id), ("hex", m.loc))))
            return


# -- at the end of a side's turn and of a hand -------------------------------------------------------


def turn_end(board: Board) -> None:
    """D Internazionalista: "UNITÀ DEL CORTEO PRESIDENZIALE valgono ciascuna 5 punti/vittoria per il
    corteo, se qualsiasi unità del corteo riesce ad avere nella propria ZOC una unità del corteo
    presidenziale. ... attribuiti al giocatore-corteo alla fine di ogni turno di gioco"."""
    sc = scenario(board.state.scenario)
    if sc is None or sc.key != "internazionalista":
        return
    zoc: set[Hex] = set()
    for u in board.map_units(CORTEO):
        if board.active(u):
            zoc |= board.zoc(u)
    for pid in sorted(board.mobiles):
        h = board.mobile_hex(pid)
        if h is not None and h in zoc:
            _score(board, CORTEO, "zoc", sc.number("zoc_points"), pid)


def hand_end(board: Board) -> None:
    sc = scenario(board.state.scenario)
    if sc is None:
        return
    if sc.key == "internazionalista":
        _stop_points(board, sc)
    elif sc.key == "antifascista":
        _rally_end(board, sc)
        _saved(board, sc)
    elif sc.key == "sociale":
        _head_points(board, sc)
        _formed(board, sc)
    elif sc.key == "antirepressivo":
        _held_by(board, sc)


def _held_by(board: Board, sc: Scenario) -> None:
    """D Antirepressivo, OURS: for the factions' separate tally, the faction holding each objective hex at
    the end of the hand (its points are that faction's when the hex is covered, 12a)."""
    for h in city().objective_hexes:
        units = sorted(board.at(h, CORTEO))
        if not units or h.label in board.covered:
            continue
        board.facts -= {f for f in board.facts if f.startswith(f"held-by:{h.label}:")}
        board.facts.add(f"held-by:{h.label}:{faction(sc, units[0])}")


def factions(state: State) -> dict[str, dict[str, int]] | None:
    """D Antirepressivo, OURS: each faction's objectives covered, accused freed and units arrested; one
    score still decides the game."""
    sc = scenario(state.scenario)
    if sc is None or sc.key != "antirepressivo":
        return None
    out = {f: {"objectives": 0, "freed": 0, "arrested": 0} for f in ("destra", "sinistra")}
    held = dict(f.split(":")[1:] for f in state.facts if f.startswith("held-by:"))
    for label in state.covered:
        h = city().parse(label)
        o = city().objective_at(h) if h is not None else None
        if o is not None and label in held:
            out[held[label]]["objectives"] += objective_points(state, o)
    for f in state.facts:
        if f.startswith("freed-by:"):
            out[f.split(":")[2]]["freed"] += sc.number("freed_points")
    for u in state.units:
        if u.loc == PRISON and counter(u.id).side == CORTEO:
            out[faction(sc, u.id)]["arrested"] += counter(u.id).unit.power
    return out


def _stop_points(board: Board, sc: Scenario) -> None:
    """D Internazionalista: "10 punti/vittoria per ogni MANO di gioco in cui il giocatore-potere riesce
    a far occupare alle unità il Corteo Presidenziale 5 esa davanti alla sede diplomatica di Bulvar
    dei Cappuccini. Questi punti valgono dalla 7ª mano in poi"."""
    if board.state.hand < sc.number("stop_from") or "stop-void" in board.facts:
        return
    if all(board.mobile_on(label) for label in sc.hexes("stop_hexes")):
        _score(board, POTERE, "stop", sc.number("stop_points"), " ".join(sc.hexes("stop_hexes")))


def _rally_end(board: Board, sc: Scenario) -> None:
    """D Antifascista: "10 punti vittoria per il giocatore-potere se il comizio reazionario si scioglie
    alla 5ª mano di gioco"."""
    if board.state.hand == sc.number("rally_until") and "rally-dissolved" not in board.facts:
        board.facts.add("rally-dissolved")
        _score(board, POTERE, "rally-end", sc.number("dissolved_potere"))


def _saved(board: Board, sc: Scenario) -> None:
    """D Antifascista: "7 punti/vittoria per ciascuna delle unità reazionarie messe in salvo in questo
    ordine: 6ª mano: almeno 1 ... 10ª mano almeno altre 3. Se in una mano il potere non riesce a mettere
    in salvo le unità previste, non ottiene i punti". OURS: pieces saved in the fifth hand count in the
    sixth; each piece saved in a hand that meets its quota scores."""
    quota = {int(k): int(v) for k, v in sc.numbers["saved"].items()}.get(board.state.hand)
    if quota is None:
        return
    new = [m.id for m in board.mobiles.values() if m.status == "saved" and f"counted-{m.id}" not in board.facts]
    board.facts.update(f"counted-{pid}" for pid in new)
    if len(new) >= quota and new:
        _score(board, POTERE, "saved", sc.number("saved_points") * len(new), " ".join(sorted(new)))
    else:
        board.notes.append(Note("note-saved-short", (("count", str(len(new))), ("quota", str(quota)))))


# -- Sociale -----------------------------------------------------------------------------------------


def _walked(board: Board, heads: tuple[str, ...]) -> None:
    """D Sociale: "Hanno valore gli esa percorsi nella fase di spostamento del giocatore-corteo". The
    hexes walked by a Head unit of the formed Corteo (OURS: "a scelta del giocatore-corteo" read as the
    Head unit that walked more), kept until the end of the hand."""
    if "formed" not in board.facts:
        return
    walked = max((sum(len(s.path) - 1 for s in board.steps if s.unit == h and s.kind == "move") for h in heads),
                 default=0)
    if walked:
        board.facts.add(f"walked:{walked}")


def _head_points(board: Board, sc: Scenario) -> None:
    """D Sociale: "1 punto/vittoria per ogni ESA percorso da una TESTA di corteo ..., esclusa la MANO in
    cui il Corteo si forma. ... i punti si attribuiscono alla fine della MANO di gioco"."""
    for fact in sorted(f for f in board.facts if f.startswith("walked:")):
        board.facts.discard(fact)
        walked = int(fact.split(":")[1])
        _score(board, CORTEO, "head", sc.number("head_hex_points") * walked, str(walked))


def _formed(board: Board, sc: Scenario) -> None:
    """D Sociale: "il Corteo deve essere formato almeno da 21 unità"; "30 punti/vittoria al
    giocatore-corteo se riesce a formare il Corteo nel luogo scelto segretamente, occupando almeno 6
    degli esa grigi indicati da lui. Tali punti sono dati alla fine della MANO di gioco." OURS: the
    Corteo (the group of the Head, C 10) is formed at the end of a hand with 21 units or more."""
    corteo = _the_corteo(board, board.state.heads)
    if "formed" not in board.facts and len(corteo) >= sc.number("formed_units"):
        board.facts.update({"formed", "was-formed"})
        board.notes.append(Note("note-formed", (("count", str(len(corteo))),)))
    secret = set(board.state.secret)
    if "formed" not in board.facts or not secret or "secret-revealed" in board.facts:
        return
    held = sorted({board.loc(u) for u in corteo} & secret)
    if len(held) >= sc.number("secret_held"):
        board.facts.add("secret-revealed")  # "Il foglio non si scopre ... se ... non è riuscito"
        board.notes.append(Note("note-secret-revealed", (("hexes", " ".join(board.state.secret)),)))
        _score(board, CORTEO, "secret", sc.number("secret_points"), " ".join(held))


def _dispersed(board: Board, sc: Scenario, heads: tuple[str, ...]) -> None:
    """D Sociale: "10 punti per il giocatore-potere se questi riesce a disperdere il Corteo che si è
    formato, in qualunque turno di gioco. Disperdere il Corteo vuol dire interrompere la continuità fra
    le unità che lo compongono." OURS: after a phase of the power, the formed Corteo (the group of the
    Head) has fewer than 21 units; it may form again, and be dispersed again."""
    if "formed" not in board.facts:
        return
    corteo = _the_corteo(board, heads)
    if len(corteo) < sc.number("formed_units"):
        board.facts.discard("formed")
        _score(board, POTERE, "dispersed", sc.number("dispersed_points"), str(len(corteo)))
