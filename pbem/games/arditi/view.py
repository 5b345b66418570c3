"""What a seat (or a spectator) may see: plain JSON data, the one redaction point.

Arditi del Popolo has no hidden information: every seat and spectator sees the whole board.
The view is also the renderer's and the report's only input (see docs/games/arditi.md).
"""

from __future__ import annotations

from typing import Any

from pbem.core.rules import View
from pbem.games.arditi.board import BOARD
from pbem.games.arditi.flow import guards_due, scores
from pbem.games.arditi.state import MoveRecord, Party, PoliceRecord, State
from pbem.games.arditi.tables import NUMBERS, PIECE


def _party(p: Party, points: int) -> dict[str, Any]:
    c = p.corteo
    back = c.back if c.squares else None
    ahead = BOARD.beyond(back, c.front) if back is not None and c.squares else None
    return {
        "seat": p.seat, "home": p.home, "squares": list(c.squares), "committee": c.committee,
        "committee_square": c.committee_square if c.squares else None,
        "front": c.front if c.squares else None, "behind": back, "ahead": ahead,
        "militants": c.militants, "headless": [list(h) for h in p.headless], "isolated": p.isolated,
        "arrested": p.arrested, "captured": list(p.captured), "score": points,
    }


def _move(m: MoveRecord) -> dict[str, Any]:
    return {
        "seat": m.seat, "round": m.round, "roll": m.roll, "mode": m.mode, "start": m.start,
        "path": list(m.front_path), "points": m.points,
        "actions": [{"kind": a.kind, "squares": list(a.squares), "points": a.points, "forward": a.forward}
                    for a in m.actions],
        "captured": list(m.captured), "returned": m.returned,
        "clashes": [{"attacker": c.attacker, "attacked": c.attacked, "at": c.at, "attacker_at": c.attacker_at,
                     "committee_to": c.committee_to, "kept": list(c.kept), "headless": list(c.headless),
                     "dismissed": list(c.dismissed)}
                    for c in m.clashes],
        "rejoins": [{"seat": r.seat, "part": list(r.part)} for r in m.rejoins],
        "refills": [{"number": d.number, "placed": d.placed} for d in m.refills],
    }


def _police(p: PoliceRecord) -> dict[str, Any]:
    return {
        "round": p.round, "entered": list(p.entered), "left": list(p.left),
        "acts": [{"piece": a.piece, "number": a.number, "from": a.origin, "square": a.square,
                  "result": a.result, "seat": a.seat, "dismissed": list(a.dismissed),
                  "rejoined": [list(r) for r in a.rejoined]} for a in p.acts],
    }


def build_view(state: State, viewer: str | None) -> View:
    points = {s.seat: s.points for s in scores(state)}
    last = state.last_move
    police = state.police
    recent_police = police is not None and (last is None or police.round >= last.round)
    outcome = None
    if state.result is not None:
        r = state.result
        outcome = {"result": r.result, "winners": list(r.winners), "reason": r.reason,
                   "scores": [{"seat": s.seat, "active": s.active, "isolated": s.isolated, "arrested": s.arrested,
                               "twelfth": s.twelfth, "captured": s.captured, "points": s.points}
                              for s in r.scores]}
    return {
        "game": "arditi",
        "turn": state.round,
        "round": state.round,
        "max_rounds": state.max_rounds,
        "stage": state.stage,
        "phase": state.stage,
        "to_move": state.to_move,
        "roll": state.roll,
        "viewer": viewer,
        "seats": list(state.seats),
        "rays": BOARD.rays,
        "rings": BOARD.rings,
        # before the set-up's draws every number is still in the bag (the state fills it then)
        "bag": BOARD.size if state.stage == "setup" else len(state.bag),
        "numbers": list(state.numbers),
        "waiting": list(state.waiting),
        "placed": list(state.placed),
        "parties": [_party(p, points.get(p.seat, 0)) for p in state.parties],
        "guards": [{"piece": g.piece, "square": g.square, "rank": PIECE[g.piece].rank} for g in state.guards],
        "guards_due": guards_due(state),
        "police_threshold": NUMBERS.police_threshold,
        "winning_length": NUMBERS.winning_length,
        "setup": ({"homes": [[s, n] for s, n in state.setup.homes], "indifferent": list(state.setup.indifferent)}
                  if state.setup else None),
        "last_move": _move(last) if last else None,
        "police": _police(police) if police and recent_police else None,
        "outcome": outcome,
    }
