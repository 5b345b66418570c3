"""Movement (rulebook, "UNITA'" and "MOVIMENTO & ATTACCO").

A unit moves 1 square in any of the 8 directions; a fast unit (move 2) may instead move
2 squares: straight, diagonal, or one straight step and one diagonal step (either
order), through and into empty squares only.  Mountains cannot be entered.  A 2-square
path whose end is adjacent to the start (a detour) is not a 2-square move.  When two
paths reach the same square, the one starting with the straight step is tried first.
"""

from __future__ import annotations

from pbem.games.kriegspiel.board import BOARD, DIRECTIONS
from pbem.games.kriegspiel.position import Position
from pbem.games.kriegspiel.units import UNITS


def _is_diagonal(step: tuple[int, int]) -> bool:
    return step[0] != 0 and step[1] != 0


def _two_step_table() -> dict[tuple[int, int], tuple[tuple[int, int], ...]]:
    """Displacement at distance 2 -> first steps that lead there, straight steps first."""
    table: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for s1 in sorted(DIRECTIONS, key=_is_diagonal):
        for s2 in DIRECTIONS:
            if not (s1 == s2 or _is_diagonal(s1) != _is_diagonal(s2)):
                continue
            total = (s1[0] + s2[0], s1[1] + s2[1])
            if max(abs(total[0]), abs(total[1])) == 2 and s1 not in table.get(total, []):
                table.setdefault(total, []).append(s1)
    return {k: tuple(v) for k, v in table.items()}


TWO_STEPS = _two_step_table()


def intermediates(origin: int, dest: int) -> tuple[int, ...]:
    """The squares a 2-square move from ``origin`` to ``dest`` may pass through."""
    out = []
    for dr, dc in TWO_STEPS.get(BOARD.step(origin, dest), ()):
        sq = BOARD.offset(origin, dr, dc)
        if sq is not None:
            out.append(sq)
    return tuple(out)


def enterable(pos: Position, sq: int, side: str, kind: str, arsenal_ok: bool) -> bool:
    """May a unit of ``side`` end its move on ``sq``?"""
    if not pos.is_free(sq):
        return False
    arsenal = pos.intact_arsenal(sq)
    if arsenal is not None and arsenal.side != side:
        # occupying an enemy arsenal destroys it and counts as the turn's attack;
        # relays have no attack and cannot do it.
        return arsenal_ok and not UNITS[kind].relay
    return True


def destinations(pos: Position, origin: int, arsenal_ok: bool = True) -> dict[int, tuple[int, ...]]:
    """Every square the unit on ``origin`` may reach now, with the path used to get there.

    Connection is not checked here (see `turn.py`).
    """
    unit = pos.at[origin]
    spec = UNITS[unit.kind]
    out: dict[int, tuple[int, ...]] = {}
    for nb in BOARD.neighbours[origin]:
        if enterable(pos, nb, unit.side, unit.kind, arsenal_ok):
            out[nb] = (nb,)
    if spec.move >= 2:
        for (dr, dc) in TWO_STEPS:
            dest = BOARD.offset(origin, dr, dc)
            if dest is None or not enterable(pos, dest, unit.side, unit.kind, arsenal_ok):
                continue
            for via in intermediates(origin, dest):
                if pos.is_free(via):
                    out[dest] = (via, dest)
                    break
    return out


def path_problem(pos: Position, origin: int, path: tuple[int, ...]) -> tuple[str, int] | None:
    """Why the unit on ``origin`` cannot follow ``path`` (geometry and emptiness only).

    Returns (reason, square) or None; reasons: "too-far", "not-a-path", "occupied",
    "mountain", "blocked".
    """
    unit = pos.at[origin]
    dest = path[-1]
    dist = BOARD.distance(origin, dest)
    if dist == 0 or dist > UNITS[unit.kind].move:
        return "too-far", dest
    if len(path) == 2 and (dist != 2 or path[0] not in intermediates(origin, dest)):
        return "not-a-path", path[0]
    if len(path) > 2 or (len(path) == 1 and dist != 1):
        return "not-a-path", dest
    if BOARD.is_mountain(dest):
        return "mountain", dest
    if dest in pos.at:
        return "occupied", dest
    if len(path) == 2 and not pos.is_free(path[0]):
        return "blocked", path[0]
    return None


def choose_path(pos: Position, origin: int, dest: int) -> tuple[int, ...] | None:
    """The path to ``dest`` when the player gave none: direct, or the first free one."""
    dist = BOARD.distance(origin, dest)
    if dist == 1:
        return (dest,)
    if dist == 2:
        vias = intermediates(origin, dest)
        for via in vias:
            if pos.is_free(via):
                return (via, dest)
        if vias:
            return (vias[0], dest)
    return None
