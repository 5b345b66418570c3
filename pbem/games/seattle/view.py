"""What a seat (or a spectator) may see: plain JSON data, the one redaction point.

The Battle of Seattle has no hidden units: both sides see the whole map, the boxes and the
turn track.  Only the orders of the sealed reinforcement phase stay hidden until it resolves,
and the service keeps those.  The view is the renderer's and the report's only input.
"""

from __future__ import annotations

from typing import Any

from pbem.core.rules import View
from pbem.games.seattle.board import Board
from pbem.games.seattle.map import MAP
from pbem.games.seattle.state import AUTH, DEM, BOXES, Combat, PhaseLog, SideRoll, State, track_turn
from pbem.games.seattle.tables import TABLES


def _side_roll(r: SideRoll) -> dict[str, Any]:
    return {"side": r.side, "units": list(r.units), "factors": [list(f) for f in r.factors],
            "halvings": list(r.halvings), "total": r.total, "roll": r.roll, "result": r.result,
            "printed": r.printed, "munitions": list(r.munitions)}


def _combat(c: Combat) -> dict[str, Any]:
    return {"area": c.area, "attack": _side_roll(c.attack), "defence": _side_roll(c.defence),
            "checks": [{"unit": m.unit, "roll": m.roll, "morale": m.morale, "passed": m.passed} for m in c.checks],
            "removed": list(c.removed), "withdrawn": list(c.withdrawn), "chosen": [list(x) for x in c.chosen]}


def _log(p: PhaseLog) -> dict[str, Any]:
    return {
        "turn": p.turn, "phase": p.phase,
        "moves": [{"unit": m.unit, "path": list(m.path), "kind": m.kind} for m in p.moves],
        "barricades": [{"unit": b.unit, "area": b.area, "roll": b.roll, "built": b.built} for b in p.barricades],
        "combats": [_combat(c) for c in p.combats],
        "visibility": [{"side": v.side, "delta": v.delta, "reason": v.reason, "count": v.count}
                       for v in p.visibility],
        "notes": [list(n) for n in p.notes],
        "rolls": [list(r) for r in p.rolls],
    }


def _unit(board: Board, uid: str) -> dict[str, Any]:
    t = board.type(uid)
    return {"id": uid, "type": t.key, "code": t.code, "side": t.side, "kind": t.kind, "colour": t.colour,
            "combat": t.combat, "morale": t.morale, "move": t.move, "loc": board.loc[uid]}


def _duration(key: str) -> str:
    return next(e.duration for e in TABLES.events if e.key == key)


def build_view(state: State, viewer: str | None) -> View:
    board = Board(state)
    turn = TABLES.turn(state.turn) if state.turn else None
    ev = state.event
    pending = state.pending
    areas = []
    for a in MAP.areas:
        areas.append({"id": a.id, "kind": a.kind, "exposure": a.exposure, "pos": list(a.pos),
                      "links": list(a.links), "units": board.at(a.id), "barricade": a.id in board.barricades})
    track: dict[int, list[str]] = {}
    for uid, loc in board.loc.items():
        t = track_turn(loc)
        if t is not None:
            track.setdefault(t, []).append(uid)
    outcome = None
    if state.result is not None:
        r = state.result
        outcome = {"winner": r.winner, "level": r.level, "demonstrators": r.demonstrators,
                   "authorities": r.authorities}
    phase3_from = state.phase2_full_from + 1 if state.phase2_full_from is not None else None
    return {
        "game": "seattle",
        "viewer": viewer,
        "turn": state.turn,
        "last_turn": state.last_turn,
        "stage": state.stage,
        "phase": state.stage,
        "date": turn.date if turn else None,
        "period": turn.period.key if turn else None,
        "night": bool(turn and turn.night),
        "sheet": list(MAP.sheet),
        "visibility": {DEM: state.vis_dem, AUTH: state.vis_auth},
        "reaction": {DEM: board.reaction_limit(DEM), AUTH: board.reaction_limit(AUTH)},
        "escalation": state.escalation,
        "escalation_possible": (state.escalation == 1 and state.morale_loss
                                or state.escalation == 2 and phase3_from is not None and state.turn >= phase3_from),
        "event": ({"turn": ev.turn, "roll": ev.roll, "key": ev.key, "amount": ev.amount,
                   "in_force": ev.turn == state.turn and _duration(ev.key) != "now"} if ev else None),
        "units": [_unit(board, u) for u in board.loc],
        "areas": areas,
        "boxes": {b: board.units(loc=b) for b in BOXES},
        "track": [{"turn": t, "units": track[t]} for t in sorted(track)],
        "barricades": sorted(board.barricades),
        "barricades_left": TABLES.markers[0].count - len(board.barricades),
        "unit_types": [{"key": t.key, "code": t.code, "colour": t.colour, "kind": t.kind, "side": t.side,
                        "combat": t.combat, "morale": t.morale, "move": t.move, "count": t.count}
                       for t in TABLES.units],
        "vis_bands": [{"min": b.min, "max": b.max, "reaction": b.reaction} for b in TABLES.reinforcements],
        "turns": [{"number": t.number, "date": t.date, "period": t.period.key, "night": t.night,
                   "optional": t.optional} for t in TABLES.turns if t.number <= state.last_turn],
        "pending": ({"arrivals": list(pending.arrivals), "choose": pending.choose,
                     "choose_crowds": pending.choose_crowds, "group_removals": pending.group_removals,
                     "spd_arrivals": list(pending.spd_arrivals), "spd_removals": pending.spd_removals, "attrition": pending.attrition, "bureaucracy": pending.bureaucracy,
                     "held": list(pending.held)} if pending else None),
        "standing": {DEM: {"targets": list(state.standing_dem.targets)},
                     AUTH: {"targets": list(state.standing_auth.targets),
                            "points": state.standing_auth.visibility,
                            "munitions_in_defence": state.standing_auth.munitions_in_defence}},
        "log": [_log(p) for p in state.log],
        "outcome": outcome,
    }
