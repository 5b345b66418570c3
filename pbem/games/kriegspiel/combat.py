"""Attack and defence sums (rulebook, "Attacco", "Cattura e Ritirata forzata", "REGOLE SPECIALI").

Decisions (see docs/games/kriegspiel.md):
- Fire and support travel along the 8 straight lines up to the unit's range; only
  mountains block them (intervening units do not).
- Only connected units add attack or defence; the target adds its own defence only
  if it is connected, its connected friends in range always lend theirs.
- A unit's terrain bonus (fort +4, pass +2, infantry and artillery only) is part of its
  defence value wherever that value is counted.
- Charge: connected cavalry adjacent to the target attacks with 7, and every connected
  cavalry contiguous behind it in the same straight line adds 7 too (whatever its
  distance), up to 4 in a column.  No charge against a unit in a fort or a pass;
  cavalry standing in a fort does not charge and ends the column (it may still fire
  with 4 if in range); charging out of a pass is allowed.
- A unit excluded from the attack (the one that made its forced retreat this turn)
  adds nothing and ends a charge column.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.position import Position
from pbem.games.kriegspiel.state import Contribution
from pbem.games.kriegspiel.units import NUMBERS, UNITS

MAX_RANGE = max(s.range for s in UNITS.values())


def _sight(ray: tuple[int, ...]) -> tuple[int, ...]:
    """The squares of a ray that fire and support reach: up to the longest range, before a mountain."""
    out = []
    for sq in ray[:MAX_RANGE]:
        if BOARD.is_mountain(sq):
            break
        out.append(sq)
    return tuple(out)


#: Square -> its 8 rays cut to what fire and support reach (the board's, computed once).
_SIGHT: tuple[tuple[tuple[int, ...], ...], ...] = tuple(tuple(_sight(ray) for ray in rays) for rays in BOARD.rays)


@dataclass(frozen=True)
class Assessment:
    target: int
    attack: int
    defence: int
    attackers: tuple[Contribution, ...]
    defenders: tuple[Contribution, ...]

    @property
    def result(self) -> str:
        return result_of(self.attack, self.defence)


def result_of(attack: int, defence: int) -> str:
    if attack - defence >= NUMBERS.capture_margin:
        return "captured"
    if attack - defence >= NUMBERS.retreat_margin:
        return "retreat"
    return "none"


def terrain_bonus(sq: int, kind: str) -> int:
    if not UNITS[kind].terrain_bonus:
        return 0
    terrain = BOARD.terrain.get(sq)
    if terrain == "fort":
        return NUMBERS.fort_bonus
    if terrain == "pass":
        return NUMBERS.pass_bonus
    return 0


def attackers(pos: Position, target: int, side: str,
              excluded: frozenset[str] = frozenset()) -> tuple[Contribution, ...]:
    """What each unit of ``side`` adds to an attack on ``target``."""
    connected = pos.network(side).connected
    found: dict[int, Contribution] = {}
    order: list[int] = []

    def able(sq: int) -> bool:
        u = pos.at.get(sq)
        return u is not None and u.side == side and sq in connected and u.id not in excluded

    terrain = BOARD.terrain.get(target)
    if terrain not in ("fort", "pass"):
        for ray in BOARD.rays[target]:
            for sq in ray[:NUMBERS.charge_max]:
                u = pos.at.get(sq)
                if u is None or not able(sq) or not UNITS[u.kind].charge or BOARD.is_fort(sq):
                    break
                found[sq] = Contribution(BOARD.name(sq), u.kind, UNITS[u.kind].charge, charge=True)
                order.append(sq)
    for ray in _SIGHT[target]:
        for distance, sq in enumerate(ray, start=1):
            u = pos.at.get(sq)
            if u is None or sq in found or not able(sq):
                continue
            spec = UNITS[u.kind]
            if spec.attack > 0 and distance <= spec.range:
                found[sq] = Contribution(BOARD.name(sq), u.kind, spec.attack)
                order.append(sq)
    return tuple(found[sq] for sq in order)


def defenders(pos: Position, target: int) -> tuple[Contribution, ...]:
    """What each unit of the target's side adds to its defence."""
    side = pos.at[target].side
    connected = pos.network(side).connected
    out: list[Contribution] = []

    def add(sq: int) -> None:
        u = pos.at[sq]
        bonus = terrain_bonus(sq, u.kind)
        out.append(Contribution(BOARD.name(sq), u.kind, UNITS[u.kind].defence + bonus,
                                terrain_bonus=bonus))

    if target in connected:
        add(target)
    for ray in _SIGHT[target]:
        for distance, sq in enumerate(ray, start=1):
            u = pos.at.get(sq)
            if (u is not None and u.side == side and sq in connected
                    and distance <= UNITS[u.kind].range):
                add(sq)
    return tuple(out)


def assess(pos: Position, target: int, side: str,
           excluded: frozenset[str] = frozenset()) -> Assessment:
    """The attack of ``side`` on the enemy unit at ``target``, term by term."""
    att = attackers(pos, target, side, excluded)
    dfn = defenders(pos, target)
    return Assessment(target, sum(c.value for c in att), sum(c.value for c in dfn), att, dfn)
