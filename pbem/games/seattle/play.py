"""Random legal orders for a side (the conformance playouts and the demo's filler).

Each candidate line is kept only if the sheet with it still passes the checks, so the text
returned is always legal; ``pick`` is the caller's seeded chooser (no ``random`` here).
"""

from __future__ import annotations

from pbem.core.rules import Chooser
from pbem.games.seattle import flow
from pbem.games.seattle.board import Board
from pbem.games.seattle.map import MAP
from pbem.games.seattle.orders import parse_text
from pbem.games.seattle.plan import Planner, plan_items
from pbem.games.seattle.state import AUTH, DEM, RESERVE, State
from pbem.games.seattle.tables import TABLES


def _legal(state: State, seat: str, lines: list[str]) -> bool:
    items, diags = parse_text("\n".join(lines))
    return not diags and plan_items(state, seat, items).ok


def _chance(pick: Chooser, n: int) -> bool:
    """True about once in ``n``."""
    return pick(n) == 0


def random_text(state: State, seat: str, pick: Chooser) -> str:
    if seat not in flow.awaiting(state):
        return "PASS"
    stage = state.stage
    board = Board(state)
    planner = Planner(state, seat)
    candidates: list[str] = []
    areas = list(MAP.area_ids)
    if stage in ("setup", "reinforcements") and seat == DEM:
        p = state.pending
        if p is not None:
            for u in p.arrivals:
                if _chance(pick, 6):
                    candidates.append(f"DECLINE {u}")
                else:
                    candidates.append(f"PLACE {u} {areas[pick(len(areas))]}")
            for _ in range(p.choose):
                codes = sorted({board.type(u).code for u in planner.choose_candidates()})
                if codes:
                    candidates.insert(0, f"CHOOSE {codes[pick(len(codes))]}")
    elif stage == "reinforcements":
        for u in planner.call_candidates():
            if _chance(pick, 12):
                candidates.append(f"CALL {u}")
        p = state.pending
        if p is not None:
            for u in p.spd_arrivals:
                if _chance(pick, 5):
                    candidates.append(f"DECLINE {u}")
        candidates.append("ESCALATE")
    elif stage.endswith("-movement") or stage.endswith("-reaction"):
        limit = TABLES.rules.reaction_move if stage.endswith("-reaction") else None
        for u in planner.movable():
            if _chance(pick, 3):
                continue
            reach = sorted(board.reachable(u, limit))
            if stage == "demonstrator-movement" and _chance(pick, 5):
                candidates.append(f"BARRICADE {u}")
            elif reach:
                candidates.append(f"MOVE {u} {reach[pick(len(reach))]}")
        if seat == AUTH:
            for u in board.units(AUTH, RESERVE):
                if not _chance(pick, 3):
                    candidates.append(f"DEPLOY {u} {areas[pick(len(areas))]}")
            if stage == "authority-movement":
                for u in board.map_units(AUTH):
                    if _chance(pick, 8):
                        candidates.append(f"RESERVE {u}")
                candidates.append("ESCALATE")
    elif stage.endswith("-combat"):
        for area in board.contact_areas():
            if _chance(pick, 4):
                continue
            mine = [u for u in planner.attackers() if board.loc[u] == area]
            theirs = board.enemies_at(area, seat)
            if not mine or not theirs:
                continue
            attackers = mine[:1 + pick(len(mine))]
            defenders = theirs[:1 + pick(len(theirs))]
            line = f"ATTACK {' '.join(attackers)} ON {' '.join(defenders)}"
            if seat == AUTH and _chance(pick, 3):
                line += " MUNITIONS ALL"
            candidates.append(line)
        if seat == AUTH:
            candidates.append("ESCALATE")
    if _chance(pick, 6):
        codes = [t.code for t in TABLES.units if t.side != seat]
        candidates.append("TARGETS " + " ".join(codes[pick(len(codes)):]))
    if seat == AUTH and _chance(pick, 8):
        candidates.append("POINTS " + ("DEMONSTRATORS" if _chance(pick, 2) else "AUTHORITIES"))
    if seat == AUTH and _chance(pick, 8):
        candidates.append("DEFENCE MUNITIONS " + ("ON" if _chance(pick, 2) else "OFF"))
    lines: list[str] = []
    for line in candidates:
        if _legal(state, seat, lines + [line]):
            lines.append(line)
    return "\n".join(lines) or "PASS"
