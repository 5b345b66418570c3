"""A mutable working copy of the board, used while checking and playing one turn."""

from __future__ import annotations

from dataclasses import replace

from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.comms import Network, compute_network
from pbem.games.kriegspiel.state import Arsenal, State, Unit
from pbem.games.kriegspiel.units import KINDS


class Position:
    def __init__(self, units: tuple[Unit, ...], arsenals: tuple[Arsenal, ...]) -> None:
        self.at: dict[int, Unit] = {BOARD.index(u.square): u for u in units}
        self.arsenals: dict[int, Arsenal] = {BOARD.index(a.square): a for a in arsenals}
        self._nets: dict[str, Network] = {}

    @classmethod
    def of(cls, state: State) -> Position:
        return cls(state.units, state.arsenals)

    # -- queries -----------------------------------------------------------------
    def network(self, side: str) -> Network:
        net = self._nets.get(side)
        if net is None:
            intact = [sq for sq, a in self.arsenals.items() if a.side == side and not a.destroyed]
            enemy = [sq for sq, a in self.arsenals.items() if a.side != side and not a.destroyed]
            net = compute_network(side, self.at, intact, enemy_arsenals=enemy)
            self._nets[side] = net
        return net

    def connected(self, sq: int) -> bool:
        u = self.at.get(sq)
        return u is not None and sq in self.network(u.side).connected

    def find(self, unit_id: str) -> int | None:
        for sq, u in self.at.items():
            if u.id == unit_id:
                return sq
        return None

    def intact_arsenal(self, sq: int) -> Arsenal | None:
        a = self.arsenals.get(sq)
        return a if a is not None and not a.destroyed else None

    def is_free(self, sq: int) -> bool:
        """No unit and no mountain: a unit may enter or pass through."""
        return sq not in self.at and BOARD.terrain.get(sq) != "mountain"

    # -- changes -----------------------------------------------------------------
    def move(self, origin: int, dest: int) -> Unit:
        u = self.at.pop(origin)
        moved = replace(u, square=BOARD.name(dest))
        self.at[dest] = moved
        self._nets.clear()
        return moved

    def remove(self, sq: int) -> Unit:
        u = self.at.pop(sq)
        self._nets.clear()
        return u

    def destroy_arsenal(self, sq: int) -> Arsenal:
        a = replace(self.arsenals[sq], destroyed=True)
        self.arsenals[sq] = a
        self._nets.clear()
        return a

    # -- back to data ----------------------------------------------------------------
    def units(self) -> tuple[Unit, ...]:
        return tuple(sorted(self.at.values(), key=unit_sort_key))

    def arsenal_tuple(self) -> tuple[Arsenal, ...]:
        return tuple(self.arsenals[sq] for sq, _ in BOARD.arsenals)


def unit_sort_key(u: Unit) -> tuple[int, int, int]:
    side = 0 if u.side == "north" else 1
    number = u.id.rsplit("-", 1)[-1]
    return side, KINDS.index(u.kind), int(number) if number.isdigit() else 0
