"""Random legal orders for a side (the conformance playouts).

Candidate lines are kept only while the sheet with them still passes the checks, so the text
returned is always legal; ``pick`` is the caller's seeded chooser (no ``random`` here).
"""

from __future__ import annotations

from pbem.core.rules import Chooser
from fractions import Fraction

from pbem.games.corteo import flow, mobiles
from pbem.games.corteo.board import city
from pbem.games.corteo.city import distance
from pbem.games.corteo.orders import parse_text
from pbem.games.corteo.plan import Planner
from pbem.games.corteo.scenario import scenario
from pbem.games.corteo.state import CORTEO, POTERE, RESERVE, State


def _chance(pick: Chooser, n: int) -> bool:
    return pick(n) == 0


def random_text(state: State, seat: str, pick: Chooser) -> str:
    if seat not in flow.awaiting(state):
        return "PASS"
    stage = state.stage
    p = Planner(state, seat)
    b = p.board
    candidates: list[str] = []
    if stage == "setup":
        if seat == CORTEO:
            comps = sorted({b.counter(u).component or "" for u in b.ids(CORTEO) if b.counter(u).set == "base"})
            sc = scenario(state.scenario)
            if sc is not None:
                comps = list(sc.heads)  # D: the scenario's Head components
            candidates.append(f"HEAD {comps[pick(len(comps))]}")
            if sc is not None and sc.numbers.get("secret_hexes"):
                # D Sociale: a secret place, the grey hexes nearest a grey hex picked at random
                grey = city().hexes_of(str(sc.numbers["secret_terrain"]))
                centre = grey[pick(len(grey))]
                near = sorted(grey, key=lambda h: (distance(h, centre), h))[:sc.number("secret_hexes")]
                candidates.append("FORMATION " + " ".join(h.label for h in near))
    elif stage.endswith("-movement"):
        if seat == CORTEO and _chance(pick, 4):
            candidates.append("RUN")
        units = [u for u in b.map_units(seat) if b.active(u)]
        for uid in units:
            if _chance(pick, 3):
                continue
            t = b.type(uid)
            if t.throw_range and _chance(pick, 3):
                h = b.hex(uid)
                assert h is not None
                targets = [e for e in b.map_units("potere" if seat == CORTEO else CORTEO)
                           if b.hex(e) is not None and b.throw_problem([uid], b.hex(e)) is None]  # type: ignore[arg-type]
                if targets:
                    e = targets[pick(len(targets))]
                    candidates.append(f"THROW {uid} AT {b.hex(e)}")
            paths = b.reachable(uid, p.budget(uid))
            reach = sorted(paths, key=lambda h: (h.row, h.col))
            if reach:
                path = paths[reach[pick(len(reach))]]
                candidates.append(f"MOVE {uid} " + " ".join(h.label for h in path))
        if seat == CORTEO:
            comp = state.head_component
            heads = [u for u in units if b.counter(u).component == comp]
            if len(heads) >= 2 and _chance(pick, 2):
                first = pick(len(heads))
                second = pick(len(heads))
                if first != second:
                    candidates.append(f"HEAD {heads[first]} {heads[second]}")
        if seat == POTERE and b.mobiles:
            candidates += _mobile_moves(state, p, pick)
        sc = scenario(state.scenario)
        if seat == POTERE and sc is not None and _chance(pick, 12):
            candidates += [f"HELICOPTER {u}" for u in sc.hexes("accused")]
        if seat == CORTEO:
            candidates += [f"ACTIVATE {u}" for u in b.ids(CORTEO) if b.units[u].waiting and b.counter(u).set == "poc"]
        if seat == POTERE:
            reserve = [u for u in b.ids(POTERE) if b.loc(u) == RESERVE]
            for uid in reserve[:6]:
                barracks = city().caserma_hexes
                candidates.insert(0, f"PLACE {uid} {barracks[pick(len(barracks))].label}")
        if state.has("jams") and _chance(pick, 3):
            viali = city().hexes_of("viale")
            candidates.append("JAM " + viali[pick(len(viali))].label)
    if _chance(pick, 8):
        candidates.append("TOWARD " + city().hexes[pick(len(city().hexes))].label)
    items, _ = parse_text("\n".join(candidates))
    kept = Planner(state, seat, lenient=True).run(items)
    return "\n".join(o.canonical() for o in kept.orders) or "PASS"


def _mobile_moves(state: State, p: Planner, pick: Chooser) -> list[str]:
    """D: the power moves its mobile objectives, mostly toward where they score (the presidential
    motorcade East, the rally to the barracks), sometimes anywhere."""
    sc = scenario(state.scenario)
    out: list[str] = []
    if sc is None:
        return out
    b = p.board
    for pid in b.mobiles:
        mk = sc.mobile(pid)
        if mk is None or b.mobile_hex(pid) is None or _chance(pick, 4):
            continue
        paths = mobiles.reach(b, sc, pid, Fraction(mk.speed))
        if not paths:
            continue
        reach = sorted(paths, key=lambda h: (h.row, h.col))
        if _chance(pick, 3):
            target = reach[pick(len(reach))]
        elif mk.kind == "presidenziale":
            target = max(reach, key=lambda h: (h.col, -abs(h.row - 12), h.row))
        else:
            target = min(reach, key=lambda h: (min(distance(h, c) for c in city().caserma_hexes), h))
        out.append(f"MOVE {pid} " + " ".join(h.label for h in paths[target]))
    return out


__all__ = ["random_text", "POTERE"]
