"""Lines of communication and connection (rulebook, "Arsenali & Staffette").

Decisions (see docs/games/kriegspiel.md):
- An intact arsenal radiates 8 rays, unbounded until the board edge, a mountain, or an
  enemy unit other than an enemy relay.  Passes let rays through.  An intact enemy
  arsenal is an enemy unit ("UNITA'": "2 arsenali") and stops a line ("bloccate ... da
  ogni unità nemica"); a destroyed one is gone and does not.
- Forts do not propagate lines: a ray reaches a fort square (a unit there is on the
  line) and stops there; a relay standing in a fort does not re-radiate.
- A relay re-radiates 8 rays only when it stands on a square crossed by an *arsenal's*
  ray (no relay-to-relay chaining: the rulebook says "linee irradiate dagli arsenali").
- A unit is connected when it stands on a line (or on its own arsenal), or is adjacent
  to a connected friendly unit, transitively (relays included).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pbem.games.kriegspiel.board import BOARD, Board
from pbem.games.kriegspiel.state import Unit
from pbem.games.kriegspiel.units import UNITS


@dataclass(frozen=True)
class Network:
    side: str
    covered: frozenset[int]  # squares on one of the side's lines (arsenal squares included)
    lines: tuple[tuple[int, int], ...]  # (source, last square reached), rays of length >= 1
    connected: frozenset[int]  # squares of the side's connected units
    relays_active: frozenset[int]  # squares of relays that re-radiate


def _cast(board: Board, src: int, blockers: set[int] | frozenset[int],
          covered: set[int], lines: list[tuple[int, int]]) -> None:
    for ray in board.line_rays[src]:  # the rays cut where the terrain stops them (mountain, fort)
        reach = 0
        for sq in ray:
            if sq in blockers:
                break
            reach += 1
        if reach:
            covered.update(ray[:reach])
            lines.append((src, ray[reach - 1]))


def compute_network(side: str, units_at: Mapping[int, Unit], arsenals: Iterable[int],
                    board: Board = BOARD, enemy_arsenals: Iterable[int] = ()) -> Network:
    """The network of ``side`` given the units on the board, its intact arsenals and the
    enemy's intact arsenals (which stop its lines like any enemy unit but a relay)."""
    blockers = {sq for sq, u in units_at.items() if u.side != side and not UNITS[u.kind].relay}
    blockers.update(enemy_arsenals)
    covered: set[int] = set()
    lines: list[tuple[int, int]] = []
    sources = sorted(arsenals)
    for src in sources:
        covered.add(src)
        _cast(board, src, blockers, covered, lines)
    from_arsenals = frozenset(covered)
    active = []
    for sq in sorted(units_at):
        u = units_at[sq]
        if (u.side == side and UNITS[u.kind].relay and sq in from_arsenals
                and sq not in sources and board.terrain.get(sq) != "fort"):
            active.append(sq)
            _cast(board, sq, blockers, covered, lines)
    own = {sq for sq, u in units_at.items() if u.side == side}
    connected = {sq for sq in own if sq in covered}
    frontier = list(connected)
    while frontier:
        sq = frontier.pop()
        for nb in board.neighbours[sq]:
            if nb in own and nb not in connected:
                connected.add(nb)
                frontier.append(nb)
    return Network(side, frozenset(covered), tuple(lines), frozenset(connected), frozenset(active))
