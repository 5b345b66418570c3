"""What a seat (or a spectator) may see: plain JSON data, the one redaction point.

After the deployment nothing is hidden (the game has no fog of war).  During the
sealed deployment the state holds no unit yet; the view says which sides are hidden:
the other side for a seat, both for a spectator.
"""

from __future__ import annotations

from typing import Any

from pbem.core.rules import View
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.position import Position
from pbem.games.kriegspiel.state import (
    SIDES,
    AttackRecord,
    Contribution,
    State,
    TurnRecord,
    other,
)


def _contribution(c: Contribution, defence: bool) -> dict[str, Any]:
    if defence:
        return {"square": c.square, "kind": c.kind, "value": c.value,
                "terrain_bonus": c.terrain_bonus}
    return {"square": c.square, "kind": c.kind, "value": c.value, "charge": c.charge}


def _attack(a: AttackRecord) -> dict[str, Any]:
    return {
        "side": a.side, "target": a.target, "target_kind": a.target_kind,
        "target_side": other(a.side), "attack": a.attack, "defence": a.defence,
        "result": a.result, "retreat_blocked": a.retreat_blocked,
        "attackers": [_contribution(c, False) for c in a.attackers],
        "defenders": [_contribution(c, True) for c in a.defenders],
    }


def _last_turn(t: TurnRecord) -> dict[str, Any]:
    return {
        "side": t.side, "turn": t.turn,
        "moves": [{"unit": m.unit, "kind": m.kind, "side": m.side, "from": m.origin, "to": m.dest,
                   "path": [m.origin, *m.path], "forced": m.forced} for m in t.moves],
        "attack": _attack(t.attack) if t.attack else None,
        "arsenal_destroyed": ({"square": t.arsenal_destroyed.square,
                               "side": t.arsenal_destroyed.side}
                              if t.arsenal_destroyed else None),
        "captured": [{"square": c.square, "kind": c.kind, "side": c.side, "unit": c.unit}
                     for c in t.captured],
        "draw_offered": t.draw_offered, "passed": t.passed,
    }


def hidden_sides(state: State, viewer: str | None) -> list[str]:
    if state.phase != "deploy":
        return []
    return [s for s in SIDES if s != viewer]


def build_view(state: State, viewer: str | None) -> View:
    hidden = hidden_sides(state, viewer)
    pos = Position.of(state)
    units = []
    for u in state.units:
        if u.side in hidden:
            continue
        sq = BOARD.index(u.square)
        units.append({"id": u.id, "side": u.side, "kind": u.kind, "square": u.square,
                      "connected": sq in pos.network(u.side).connected,
                      "retreat": u.id == state.retreat})
    lines = []
    for side in SIDES:
        if side in hidden:
            continue
        for src, last in pos.network(side).lines:
            lines.append({"side": side, "from": BOARD.name(src), "to": BOARD.name(last)})
    terrain = [{"square": BOARD.name(sq), "kind": kind, "side": BOARD.terrain_side[sq]}
               for sq, kind in sorted(BOARD.terrain.items())]
    arsenals = [{"square": a.square, "side": a.side, "destroyed": a.destroyed}
                for a in state.arsenals]
    outcome = None
    if state.result is not None:
        r = state.result
        outcome = {"result": r.result, "winners": list(r.winners), "reason": r.reason}
    return {
        "game": "kriegspiel",
        "turn": state.turn,
        "phase": state.phase,
        "to_move": state.to_move,
        "viewer": viewer,
        "rows": BOARD.rows,
        "cols": BOARD.cols,
        "terrain": terrain,
        "arsenals": arsenals,
        "units": units,
        "hidden_sides": hidden,
        "lines": lines,
        "last_turn": _last_turn(state.last_turn) if state.last_turn else None,
        "draw_offered_by": state.draw_offered_by,
        "outcome": outcome,
        # extra keys (not part of the renderer's contract)
        "first_player": state.first_player,
        "first_roll": state.first_roll,
        "row_letters": BOARD.row_letters,
    }
