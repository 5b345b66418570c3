"""What a seat (or a spectator) may see: plain JSON data, the one redaction point.

Corteo has no hidden units: both sides see the whole City.  Only the set-up is sealed (both
sides place at once), and the service keeps those orders.  The City itself (terrain, streets,
objectives) is static data the renderer reads from `pbem.games.corteo.city`; the view carries
what changes: units, pieces, covered objectives, the scores, the record of the phase.
"""

from __future__ import annotations

from typing import Any

from pbem.core.rules import View
from pbem.games.corteo.board import Board, city, hexof
from pbem.games.corteo.scenario import scenario
from pbem.games.corteo.scenario_rules import factions
from pbem.games.corteo.score import potere_points
from pbem.games.corteo.tables import TABLES
from pbem.games.corteo.state import CORTEO, POTERE, PRISON, RESERVE, Fight, PhaseLog, State, Throw, off_parts


def _throw(t: Throw) -> dict[str, Any]:
    return {"units": list(t.units), "origin": t.origin, "target": t.target, "hit": t.hit, "targets": list(t.targets),
            "strength": t.strength, "against": t.against, "odds": t.odds, "roll": t.roll, "result": t.result,
            "short": t.short}


def _fight(f: Fight) -> dict[str, Any]:
    return {"attackers": list(f.attackers), "defenders": list(f.defenders), "attack": f.attack, "defence": f.defence,
            "odds": f.odds, "roll": f.roll, "result": f.result, "losers": list(f.losers),
            "arrested": list(f.arrested), "panicked": list(f.panicked), "advanced": list(f.advanced)}


def _log(p: PhaseLog) -> dict[str, Any]:
    return {"hand": p.hand, "phase": p.phase,
            "steps": [{"unit": s.unit, "path": list(s.path), "kind": s.kind} for s in p.steps],
            "throws": [_throw(t) for t in p.throws], "fights": [_fight(f) for f in p.fights],
            "notes": [{"key": n.key, "args": dict(n.args)} for n in p.notes]}


def focus(state: State, board: Board | None = None) -> list[str] | None:
    """The hexes of the action of the record (moves, throws, combats), for a detail map; ``board``:
    the state's, when the caller has made it."""
    hexes: set[str] = set()
    for p in state.log:
        for s in p.steps:
            if s.kind in ("barracks", "arrest", "offmap", "place"):
                continue  # far from the action: a barracks, the prison, the edge, the set-up
            hexes.update(h for h in s.path if hexof(h) is not None)  # as city().parse, labels read once
        for t in p.throws:
            hexes.update((t.origin, t.hit))
    if board is None:
        board = Board(state)
    for p in state.log:
        for f in p.fights:
            for u in f.attackers + f.defenders:
                h = board.hex(u)
                if h is not None:
                    hexes.add(h.label)
    return sorted(hexes) or None


def _scenario(state: State, viewer: str | None) -> dict[str, Any] | None:
    """D: what the scenario adds: its mobile objectives, places, running tally and lasting facts. The
    secret place of D Sociale only to the corteo, until the rules reveal it ("Il foglio non si scopre e
    rimane segreto per tutto il gioco se il giocatore-corteo non è riuscito a raggiungere il luogo
    prescelto")."""
    sc = scenario(state.scenario)
    if sc is None:
        return None
    return {
        "key": sc.key,
        "heads": list(sc.heads),
        "categories": list(sc.categories),
        "square": sc.square,
        "square_hexes": [h.label for h in city().place_hexes(sc.square)] if sc.square else [],
        "stop_hexes": list(sc.hexes("stop_hexes")),
        "embassy": list(sc.hexes("embassy")),
        "clinics": [h.label for h in city().clinic_hexes] if sc.key == "antifascista" else [],
        "mobiles": [{"id": m.id, "kind": mk.kind, "loc": m.loc, "status": m.status, "speed": mk.speed}
                    for m in state.mobiles for mk in (sc.mobile(m.id),) if mk is not None],
        "tally": [{"hand": t.hand, "side": t.side, "key": t.key, "points": t.points, "what": t.what}
                  for t in state.tally],
        "points": {"corteo": state.scored(CORTEO), "potere": state.scored(POTERE)},
        "facts": [f for f in state.facts if not f.startswith("counted-")],
        "accused": [u.id for u in state.units if u.id in sc.hexes("accused") and u.waiting
                    and u.loc in sc.hexes("trial_hexes")],
        "secret": list(state.secret) if state.secret and (viewer == CORTEO or state.knows("secret-revealed")) else None,
        "formed": state.knows("formed"),
        "factions": factions(state),  # D Antirepressivo: the separate tally of "Destra e Sinistra" (ours)
    }


def build_view(state: State, viewer: str | None) -> View:
    board = Board(state)
    corteo = board.corteo()
    heads = {h for h in state.heads if h in corteo}  # board.head_units(), without finding the Corteo again
    units = []
    for uid, u in board.units.items():
        c = board.counter(uid)
        t = c.unit
        off = off_parts(u.loc)
        units.append({"id": uid, "type": t.key, "kind": t.kind, "side": c.side, "component": c.component,
                      "speed": t.speed, "power": t.power, "loc": u.loc, "panicked": u.panicked,
                      "presidio": u.presidio, "waiting": u.waiting, "head": uid in heads,
                      "in_corteo": uid in corteo, "throws": t.throw_range, "dissident": c.set == "poc",
                      "colour": TABLES.component(c.component).colour if c.component else "potere",
                      "off": {"edge": off[0], "part": off[1], "back": off[2]} if off else None})
    zoc = {side: sorted(h.label for h in board.enemy_zoc(other_side))
           for side, other_side in ((CORTEO, POTERE), (POTERE, CORTEO))}
    outcome = None
    if state.result is not None:
        r = state.result
        outcome = {"corteo": r.corteo, "potere": r.potere, "final": r.final, "level": r.level, "verdict": r.verdict}
    return {
        "game": "corteo",
        "viewer": viewer,
        "mode": state.mode,
        "options": list(state.options),
        "hand": state.hand,
        "turn": state.hand,
        "last_hand": 10,
        "stage": state.stage,
        "phase": state.stage,
        "units": units,
        "barricades": [{"hex": b.hex, "hand": b.hand} for b in state.barricades],
        "barricades_left": state.barricades_left,
        "jams": list(state.jams),
        "smoke": [{"hex": s.hex, "until": s.until} for s in state.smoke],
        "covered": list(state.covered),
        "held": list(state.held),
        "runs_left": state.runs_left,
        "running": state.running,
        "head_component": state.head_component,
        "heads": list(state.heads),
        "zoc": zoc,
        "prison": board.at(PRISON),
        "reserve": board.at(RESERVE),
        "score": {"corteo": state.points + state.scored(CORTEO), "potere": potere_points(board, final=False)},
        "scenario": _scenario(state, viewer),
        "log": [_log(p) for p in state.log],
        "focus": focus(state, board),
        "outcome": outcome,
    }
