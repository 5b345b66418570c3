"""The mobile objectives of the scenarios (D): where a piece may go and what its moves do.

"Questi pezzi non hanno ZOC, né punti-potenza: possono soltanto spostarsi alla velocità stampata
su di essi." A piece follows the terrain limits of the power unit kind its scenario names
(``moves_as``, ours) and the costs of 4c; enemy ZOCs do not stop it (it does not fight), but it
never enters a hex with corteo units, a barricade, a jam, smoke or another piece, and it stops on
an objective like every unit (12a).
"""

from __future__ import annotations

import heapq
from fractions import Fraction

from pbem.core.i18n import Message, msg
from pbem.games.corteo.board import Board, city, hexof, open_neighbours
from pbem.games.corteo.city import Hex, distance
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.scenario import MobileKind, Scenario
from pbem.games.corteo.state import CORTEO, POTERE


def kind_of(sc: Scenario, pid: str) -> MobileKind:
    m = sc.mobile(pid)
    if m is None:
        raise KeyError(pid)
    return m


def may_enter(board: Board, sc: Scenario, pid: str, h: Hex) -> Message | None:
    """Why piece ``pid`` may not enter ``h`` (or None)."""
    if not city().on_map(h):
        return msg("err-off-map", hex=h.label)
    mk = kind_of(sc, pid)
    terrain = board.terrain(h)
    effect = NUMBERS.moves[terrain]
    if effect.cost is None or POTERE in effect.forbid or mk.moves_as in effect.forbid:
        return msg("err-mobile-terrain", piece=pid, hex=h.label, terrain=msg(f"terrain-{terrain}"))
    if board.blocked(h):
        return msg("err-blocked", hex=h.label)
    if board.at(h, CORTEO):
        return msg("err-enemy-hex", hex=h.label)
    other = board.mobile_on(h)
    if other is not None and other != pid:
        return msg("err-mobile-hex", hex=h.label, piece=other)
    if mk.kind == "comizio" and board.at(h, POTERE):
        # D Antifascista: "non cumularsi fra loro e con altre unità del potere"
        return msg("err-mobile-hex", hex=h.label, piece=board.at(h, POTERE)[0])
    return None


def stops(board: Board, h: Hex) -> bool:
    return POTERE in NUMBERS.moves[board.terrain(h)].stop


def reach(board: Board, sc: Scenario, pid: str, budget: Fraction) -> dict[Hex, tuple[Hex, ...]]:
    """Every hex the piece may end its move in, with a cheapest path (in half points, 4c)."""
    start = board.mobile_hex(pid)
    if start is None:
        return {}
    limit = int(budget * 2)
    best: dict[Hex, tuple[int, tuple[Hex, ...]]] = {start: (0, ())}
    frontier: list[tuple[int, Hex]] = [(0, start)]
    while frontier:
        spent_now, here = heapq.heappop(frontier)
        spent, path = best[here]
        if spent_now > spent or (here != start and stops(board, here)):
            continue
        for n in open_neighbours(here):
            if may_enter(board, sc, pid, n) is not None:
                continue
            cost = spent + int(board.step_cost(here, n) * 2)
            if cost <= limit and (n not in best or cost < best[n][0]):
                best[n] = (cost, path + (n,))
                heapq.heappush(frontier, (cost, n))
    return {h: p for h, (_, p) in best.items() if h != start}


def path_problem(board: Board, sc: Scenario, pid: str, path: list[Hex]) -> Message | None:
    """Why the path is not a legal move for the piece (or None)."""
    here = board.mobile_hex(pid)
    if here is None:
        return msg("err-mobile-off", piece=pid)
    cost = Fraction(0)
    for i, h in enumerate(path):
        if not board.linked(here, h):
            return msg("err-not-adjacent", a=here.label, b=h.label)
        problem = may_enter(board, sc, pid, h)
        if problem:
            return problem
        cost += board.step_cost(here, h)
        if i < len(path) - 1 and stops(board, h):
            return msg("err-must-stop", unit=pid, hex=h.label, terrain=msg(f"terrain-{board.terrain(h)}"))
        here = h
    speed = kind_of(sc, pid).speed
    if -(-cost // 1) > speed:
        return msg("err-too-far", unit=pid, cost=str(-(-cost // 1)), points=str(speed))
    return None


def escort(board: Board, sc: Scenario, pid: str) -> int:
    """D Internazionalista: the power units within ``escort_reach`` hexes of the piece."""
    h = board.mobile_hex(pid)
    if h is None:
        return 0
    reach_ = sc.number("escort_reach")
    count = 0
    for u in board.map_units(POTERE):
        x = board.hex(u)
        if x is not None and board.active(u) and distance(x, h) <= reach_:
            count += 1
    return count


def near_presidential(board: Board, sc: Scenario, h: Hex) -> str | None:
    """D Internazionalista: "Entro 4 esa di distanza dal Corteo Presidenziale non si possono erigere
    barricate o ingorghi": the piece within reach of ``h``, if any."""
    if "no_pieces_reach" not in sc.numbers:
        return None
    for pid in board.mobiles:
        x = board.mobile_hex(pid)
        if x is not None and pid.startswith("PRE") and distance(x, h) <= sc.number("no_pieces_reach"):
            return pid
    return None


def is_exit(board: Board, h: Hex) -> bool:
    """D Internazionalista: "può uscire dalla mappa da uno qualsiasi degli esa-strada o esa-viale
    disposti sul bordo EST della mappa"."""
    return "E" in city().edges(h) and city().terrain(h) in ("strada", "viale")


def nearest_clinic(h: Hex) -> Hex:
    """D Antifascista: the clinic hex a piece sent to hospital goes to (OURS: the nearest)."""
    return min(city().clinic_hexes, key=lambda c: (distance(c, h), c))


def square_hexes(sc: Scenario) -> tuple[Hex, ...]:
    return city().place_hexes(sc.square) if sc.square else ()


def parse(label: str) -> Hex | None:
    return hexof(label)
