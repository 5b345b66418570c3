"""The orders a scenario adds or changes (D), checked and played on the `Planner`'s board: the
power's set-up by the scenario's order of service, the mobile objectives placed and moved, the
POC dissidents placed and activated, rally pieces sent to hospital by a corteo unit's move."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from pbem.core.i18n import Message, msg
from pbem.games.corteo import mobiles
from pbem.games.corteo.board import city
from pbem.games.corteo.city import Hex, distance
from pbem.games.corteo.orders import Activate, Helicopter, Item, Move, Place, Secret
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.scenario import Scenario, SetupRow, scenario
from pbem.games.corteo.state import CORTEO, HOME, POTERE, PRISON, Note, Step, Tally
from pbem.games.corteo.tables import TABLES

if TYPE_CHECKING:
    from pbem.games.corteo.plan import Planner


def of(p: "Planner") -> Scenario | None:
    return scenario(p.state.scenario)


# -- set-up ----------------------------------------------------------------------------------------


def _fits(row: SetupRow, sc: Scenario, h: Hex) -> bool:
    if row.where == "objective":
        return city().objective_at(h) is not None
    if row.where == "caserma":
        return h in city().caserma_set
    if row.where == "square":
        return h in mobiles.square_hexes(sc)
    if row.where == "near":  # D Sociale: "al massimo a 6 di distanza da esa-obiettivi o esa-caserma"
        return any(distance(h, x) <= sc.number("near_reach") for x in city().caserma_hexes + city().objective_hexes)
    return any(distance(h, x) <= NUMBERS.vigili_reach  # C 3a: vigili within 7 hexes
               for x in city().metro_hexes + city().caserma_hexes + city().objective_hexes)


def setup_row(p: "Planner", sc: Scenario, uid: str, h: Hex) -> SetupRow | None:
    """The row of the order of service a power unit placed on ``h`` at the set-up fills."""
    kind = p.board.type(uid).kind
    for row in sc.setup:
        if row.kind == kind and _fits(row, sc, h):
            return row
    return None


def check_setup_power(p: "Planner", sc: Scenario, uid: str, h: Hex) -> Message | None:
    """D: "Ordine di servizio delle unità del potere: Piazzamento iniziale ..."."""
    b = p.board
    kind = b.type(uid).kind
    rows = [r for r in sc.setup if r.kind == kind]
    if not rows:
        return msg("err-scenario-setup-type", unit=uid)
    row = setup_row(p, sc, uid, h)
    if row is None:
        return msg("err-scenario-setup-where", unit=uid, hex=h.label, where=" / ".join(r.where for r in rows),
                   square=sc.square)
    taken = sum(1 for x in p.placed if b.type(x).kind == kind and setup_row(p, sc, x, _hex_of(b.loc(x))) == row)
    if taken >= row.count:
        return msg("err-setup-count", kind=msg(f"unit-{kind}"), count=row.count)
    return None


def _hex_of(label: str) -> Hex:
    h = mobiles.parse(label)
    assert h is not None
    return h


def check_setup_dissident(h: Hex) -> Message | None:
    """D Antifascista: "il giocatore deve collocare tali unità, singole o cumulate, in esa-case popolari"."""
    if city().terrain(h) != "case_popolari":
        return msg("err-dissident-place", hex=h.label)
    return None


# -- the mobile objectives -----------------------------------------------------------------------


def place_mobile(p: "Planner", item: Item | None, pid: str, h: Hex) -> None:
    """D: the pieces start on the scenario's square, placed by the power at the set-up."""
    sc = of(p)
    b = p.board
    assert sc is not None
    problem: Message | None = None
    if p.stage != "setup" or p.seat != POTERE:
        problem = msg("err-mobile-place-now", piece=pid)
    elif pid in p.pieces_placed:
        problem = msg("err-placed-twice", unit=pid)
    elif h not in mobiles.square_hexes(sc):
        problem = msg("err-mobile-square", piece=pid, hex=h.label, square=sc.square)
    else:
        problem = mobiles.may_enter(b, sc, pid, h) if b.mobiles[pid].status == "map" else None
        if problem is None and (b.mobile_on(h) or (pid.startswith("COM") and b.at(h, POTERE))):
            problem = msg("err-mobile-hex", hex=h.label, piece=b.mobile_on(h) or b.at(h, POTERE)[0])
    if problem is not None:
        p.err(item, problem)
        return
    p.pieces_placed.add(pid)
    b.mobiles[pid] = replace(b.mobiles[pid], loc=h.label, status="map")
    b.steps.append(_step(pid, (h.label,), "place"))
    p.orders.append(Place(pid, h.label))


def _step(pid: str, path: tuple[str, ...], kind: str) -> Step:
    return Step(pid, path, kind)


def move_mobile(p: "Planner", item: Item) -> None:
    """The power moves a piece in its movement phase, one piece at a time like its units (4a)."""
    sc = of(p)
    b = p.board
    pid = item.raw.units[0]
    if sc is None or sc.mobile(pid) is None:
        p.err(item, msg("err-no-unit", unit=pid))
        return
    if p.seat != POTERE or p.stage != "potere-movement":
        p.err(item, msg("err-mobile-not-yours", piece=pid))
        return
    if not p._turn_of(item, pid):
        return
    m = b.mobiles[pid]
    if m.status != "map":
        p.err(item, msg("err-mobile-off", piece=pid))
        return
    if pid in p.spent:
        p.err(item, msg("err-unit-done", unit=pid))
        return
    mk = mobiles.kind_of(sc, pid)
    if mk.kind == "comizio" and p.state.hand < sc.number("rally_until"):
        # D Antifascista: "Le unità reazionarie stanno in comizio fino alla 5ª MANO di gioco"
        p.err(item, msg("err-rally-stays", piece=pid, hand=sc.number("rally_until")))
        return
    if mk.kind == "presidenziale" and mobiles.escort(b, sc, pid) < sc.number("escort"):
        # D Internazionalista: "Se la scorta non è sufficiente o è troppo lontana, il Corteo
        # Presidenziale non può muoversi."
        p.err(item, msg("err-escort", piece=pid, count=mobiles.escort(b, sc, pid), need=sc.number("escort"),
                        reach=sc.number("escort_reach")))
        return
    path: list[Hex] = []
    for label in item.raw.hexes:
        h = p._hex(item, label)
        if h is None:
            return
        path.append(h)
    start = b.mobile_hex(pid)
    assert start is not None
    if len(path) == 1 and path[0] not in city().open_neighbours(start):
        reach = mobiles.reach(b, sc, pid, Fraction(mk.speed))
        if path[0] not in reach:
            p.err(item, msg("err-unreachable", unit=pid, hex=path[0].label, points=str(mk.speed)),
                  msg("hint-reach", hexes=" ".join(h.label for h in sorted(reach)[:30])) if reach else None)
            return
        path = list(reach[path[0]])
    problem = mobiles.path_problem(b, sc, pid, path)
    if problem:
        p.err(item, problem)
        return
    labels = tuple(h.label for h in path)
    p.spent[pid] = Fraction(mk.speed)
    end = path[-1]
    status = "map"
    kind = "mobile"
    if mk.kind == "presidenziale":
        back = [h for a, h in zip([start, *path], path) if h.col < a.col and h.label not in sc.hexes("stop_hexes")]
        if back:
            b.facts.add("stop-void")  # D: "arretra durante lo spostamento ... in esa che non siano quelli indicati"
            b.notes.append(Note("note-presidential-back", (("piece", pid), ("hex", back[0].label))))
        if mobiles.is_exit(b, end):
            status, kind = "gone", "exit"
            b.notes.append(Note("note-presidential-exit", (("piece", pid), ("hex", end.label))))
    elif end in city().caserma_set:
        status, kind = "saved", "saved"  # D Antifascista: "mettersi in salvo negli esa-caserma"
        b.notes.append(Note("note-rally-saved", (("piece", pid), ("hex", end.label))))
    if mk.kind == "comizio" and start in mobiles.square_hexes(sc) and end not in mobiles.square_hexes(sc):
        b.facts.add("rally-over")
    b.mobiles[pid] = replace(m, loc=end.label, status=status, moved=p.state.hand)
    b.steps.append(_step(pid, (start.label, *labels), kind))
    p.orders.append(Move(pid, labels))


def sweep(p: "Planner", uid: str, path: tuple[Hex, ...]) -> None:
    """D Antifascista: "una unità del corteo deve occupare l'esa dove si trova l'unità reazionaria:
    quando ciò avviene l'unità reazionaria si rimuove dall'esa e si colloca in uno degli esa-clinica".
    OURS: every hex a corteo unit's move enters counts."""
    sc = of(p)
    b = p.board
    if sc is None or p.seat != CORTEO or not b.mobiles:
        return
    for h in path:
        pid = b.mobile_on(h)
        if pid is None or not pid.startswith("COM"):
            continue
        clinic = mobiles.nearest_clinic(h)
        points = sc.number("clinic_points")
        if h in city().org_reaz_hexes:
            points *= 2  # "Se l'unità reazionaria si trova in un esa ORG./REAZ., il suo valore raddoppia"
        b.mobiles[pid] = replace(b.mobiles[pid], loc=clinic.label, status="clinic", moved=p.state.hand)
        b.steps.append(_step(pid, (h.label, clinic.label), "clinic"))
        b.tally.append(Tally(p.state.hand, CORTEO, "clinic", points, pid))
        b.notes.append(Note("note-rally-clinic", (("piece", pid), ("unit", uid), ("hex", h.label),
                                                  ("clinic", clinic.label), ("points", str(points)))))
        if not b.facts & {"rally-over", "rally-dissolved"}:
            b.facts.add("rally-dissolved")
            if p.state.hand < sc.number("rally_until"):
                # "30 punti/vittoria ... se il comizio reazionario si scioglie prima della 5ª MANO"
                b.tally.append(Tally(p.state.hand, CORTEO, "dissolved", sc.number("dissolved_points")))
                b.notes.append(Note("note-rally-dissolved", (("points", str(sc.number("dissolved_points"))),)))


# -- the POC dissidents ---------------------------------------------------------------------------


def activate(p: "Planner", item: Item) -> None:
    """D Antifascista: "Per attivarle, le unità di Testa devono porre le unità dissidenti nella propria
    ZOC e poi tirare il dado: numeri pari non hanno effetto. ... L'attivazione avviene nella fase di
    spostamento del giocatore-corteo." OURS: any unit of the Head's component on the map."""
    b = p.board
    uid = item.raw.units[0]
    if uid not in b.units or b.counter(uid).set != "poc":
        p.err(item, msg("err-not-dissident", unit=uid))
        return
    if not b.units[uid].waiting:
        p.err(item, msg("err-dissident-active", unit=uid))
        return
    if uid in p.thrown:
        p.err(item, msg("err-unit-done", unit=uid))
        return
    h = mobiles.parse(b.loc(uid))
    comp = p.state.head_component
    heads = [u for u in b.map_units(CORTEO)
             if b.active(u) and b.counter(u).component == comp and h is not None and h in b.zoc(u)]
    if not heads:
        p.err(item, msg("err-dissident-far", unit=uid, component=comp or "-"))
        return
    p.thrown.add(uid)  # one roll per dissident and phase
    p.orders.append(Activate(uid))
    if p.dice is None:
        return
    roll = p.dice.roll(TABLES.die, f"D Antifascista: does {uid} join the corteo?")
    joined = TABLES.roll_succeeds("dissidenti", roll)
    if joined:
        b.units[uid] = replace(b.units[uid], waiting=False)
    b.notes.append(Note("note-dissident-joined" if joined else "note-dissident-stays",
                        (("unit", uid), ("roll", str(roll)), ("by", heads[0]))))


def default_setup(p: "Planner") -> None:
    """What the set-up leaves out: the dissidents on the first free case popolari hexes nearest
    Piazza Mento, the mobile pieces on the first free hexes of their square."""
    sc = of(p)
    b = p.board
    if sc is None:
        return
    if p.seat == CORTEO:
        qp = sorted(city().hexes_of("case_popolari"), key=lambda h: (h.row + h.col, h))
        for uid in [u for u in b.ids(CORTEO) if b.counter(u).set == "poc" and u not in p.placed]:
            for h in qp:
                if p.check_place(uid, h) is None:
                    p.do_place(uid, h)
                    break
        return
    for pid in [m for m in b.mobiles if m not in p.pieces_placed]:
        for h in mobiles.square_hexes(sc):
            if b.mobile_on(h) is None and not (pid.startswith("COM") and b.at(h, POTERE)):
                place_mobile(p, None, pid, h)
                break


# -- the accused (Antirepressivo) ------------------------------------------------------------------


def helicopter(p: "Planner", item: Item) -> None:
    """D Antirepressivo: "i processati possono essere spostati, in qualunque momento della fase di
    spostamento del giocatore-potere, dal Tribunale al carcere via elicottero." OURS: they are then
    arrested (8f), their strength the power's."""
    b = p.board
    uid = item.raw.units[0]
    sc = of(p)
    if sc is None or uid not in sc.hexes("accused"):
        p.err(item, msg("err-not-accused", unit=uid))
        return
    if not (b.units[uid].waiting and b.loc(uid) in sc.hexes("trial_hexes")):
        p.err(item, msg("err-accused-gone", unit=uid))
        return
    b.units[uid] = replace(b.units[uid], waiting=False)
    b.set_loc(uid, PRISON, "arrest", (b.loc(uid), PRISON))
    b.notes.append(Note("note-helicopter", (("unit", uid),)))
    p.orders.append(Helicopter(uid))


# -- Sociale: the split deployment, the secret place, the weak units going home -------------------------

DEPLOY_ROWS = ("affollato", "metro", "case_popolari", "edge")


def _deploy_rows(h: Hex) -> list[str]:
    """The rows of D Sociale's deployment a hex may fill: "esa-luoghi affollati", "esa-metropolitana",
    "esa-case popolari", "qualunque esa dei bordi della mappa"."""
    rows = []
    terrain = city().terrain(h)
    for row in DEPLOY_ROWS:
        if (row == "metro" and h in city().metro_set) or (row == "edge" and city().edges(h)) or row == terrain:
            rows.append(row)
    return rows


def _deploy_room(p: "Planner", sc: Scenario, h: Hex) -> str | None:
    limits = {str(k): int(v) for k, v in sc.numbers["deploy"].items()}
    for row in _deploy_rows(h):
        if sum(1 for r in p.deployed.values() if r == row) < limits[row]:
            return row
    return None


def check_deploy(p: "Planner", sc: Scenario, uid: str, h: Hex) -> Message | None:
    """D Sociale: "4 spezzoni ... in esa-luoghi affollati, 4 ... in esa-metropolitana, 8 ... in esa-case
    popolari, 24 unità, che possono entrare sulla mappa ... da qualunque esa dei bordi della mappa"."""
    limits = {str(k): int(v) for k, v in sc.numbers["deploy"].items()}
    rows = _deploy_rows(h)
    if not rows:
        return msg("err-deploy-where", unit=uid, hex=h.label)
    if _deploy_room(p, sc, h) is None:
        return msg("err-deploy-full", hex=h.label, rows=", ".join(f"{r} {limits[r]}" for r in rows))
    return None


def note_deploy(p: "Planner", uid: str, h: Hex) -> None:
    sc = of(p)
    if sc is not None and sc.numbers.get("deploy"):
        row = _deploy_room(p, sc, h)
        if row is not None:
            p.deployed[uid] = row


def default_deploy(p: "Planner", sc: Scenario) -> None:
    """What D Sociale's set-up leaves out: each row filled on its free hexes nearest the middle of the
    City (OURS), the edges last."""
    b = p.board
    middle = Hex(city().rows // 2, city().cols // 2)
    by_row = {row: sorted((h for h in city().hexes if row in _deploy_rows(h)), key=lambda h: (distance(h, middle), h))
              for row in DEPLOY_ROWS}
    limits = {str(k): int(v) for k, v in sc.numbers["deploy"].items()}
    todo = [u for u in b.ids(CORTEO) if b.loc(u) == "reserve" and u not in p.placed and not b.units[u].waiting
            and b.counter(u).set in sc.sets]
    for row in DEPLOY_ROWS:
        for h in by_row[row]:
            if not todo or sum(1 for r in p.deployed.values() if r == row) >= limits[row]:
                break
            while todo and p.check_place(todo[0], h) is None and _deploy_room(p, sc, h) == row:
                p.do_place(todo.pop(0), h)


def secret(p: "Planner", item: Item) -> None:
    """D Sociale: "Prima dell'inizio del gioco il giocatore-corteo deve scrivere su un foglio il nome del
    luogo su cui intende formare il corteo (si deve trattare di una località ... di esa-grigi) ... che
    permettano di identificare con certezza almeno 11 esa". OURS: written as the hexes themselves."""
    sc = of(p)
    if sc is None or not sc.numbers.get("secret_hexes"):
        p.err(item, msg("err-secret-scenario"))
        return
    if p.secret is not None:
        p.err(item, msg("err-secret-twice"))
        return
    hexes: list[Hex] = []
    for label in item.raw.hexes:
        h = p._hex(item, label)
        if h is None:
            return
        if city().terrain(h) != sc.numbers["secret_terrain"]:
            p.err(item, msg("err-secret-grey", hex=h.label))
            return
        if h not in hexes:
            hexes.append(h)
    if len(hexes) < sc.number("secret_hexes"):
        p.err(item, msg("err-secret-count", count=len(hexes), need=sc.number("secret_hexes")))
        return
    p.secret = tuple(h.label for h in hexes)
    p.orders.append(Secret(p.secret))


def weak(p: "Planner", uid: str) -> bool:
    """D Sociale: "i suoi pezzi più deboli (cioè tutti i 4/1 e 4/2 ...) considerano opportuno tornare a
    casa", from the sixth hand while the Corteo has not yet formed."""
    sc = of(p)
    return (sc is not None and bool(sc.numbers.get("weak_units")) and p.seat == CORTEO
            and p.state.hand >= sc.number("weak_from") and "was-formed" not in p.board.facts
            and p.board.counter(uid).unit.key in sc.numbers["weak_units"])


def edge_distance(h: Hex) -> int:
    return min(h.row, h.col, city().rows - 1 - h.row, city().cols - 1 - h.col)


def check_going_home(p: "Planner", uid: str, end: Hex) -> Message | None:
    """D Sociale: weak units "iniziano a dirigersi verso i più vicini bordi della mappa per uscire":
    a move of theirs must end nearer the nearest edge than it started."""
    start = p.board.hex(uid)
    if not weak(p, uid) or start is None or edge_distance(end) < edge_distance(start) or edge_distance(end) == 0:
        return None
    if start.label in p.state.held:
        return None  # OURS: a unit on an objective held must leave it first (12a), wherever it can
    return msg("err-going-home", unit=uid, hex=end.label)


def default_home(p: "Planner") -> None:
    """What the sheet leaves out: a weak unit that must go home and was not moved walks to the reachable
    hex nearest the edge (OURS: the nearest to it among those)."""
    b = p.board
    for uid in [u for u in b.map_units(CORTEO) if b.active(u) and weak(p, u)]:
        start = b.hex(uid)
        if start is None or uid in p.spent or uid in p.finished or uid in p.stopped or edge_distance(start) == 0 \
                or any(s.unit == uid for s in b.steps):
            continue
        reach = b.reachable(uid, p.left(uid))
        best = min(reach, key=lambda h: (edge_distance(h), distance(h, start), h), default=None)
        if best is None or edge_distance(best) >= edge_distance(start):
            continue
        path = reach[best]
        b.set_loc(uid, best.label, "move", (start.label, *(h.label for h in path)))
        p.spent[uid] = p.left(uid)
        p.orders.append(Move(uid, tuple(h.label for h in path)))


def go_home(p: "Planner") -> None:
    """D Sociale: a weak unit on the edge at the end of its movement leaves the map "per uscire" (OURS:
    out of the game, neither arrested nor scored)."""
    b = p.board
    for uid in [u for u in b.map_units(CORTEO) if weak(p, u)]:
        h = b.hex(uid)
        if h is not None and edge_distance(h) == 0:
            b.set_loc(uid, HOME, "home", (h.label, HOME))
            b.notes.append(Note("note-gone-home", (("unit", uid), ("hex", h.label))))
