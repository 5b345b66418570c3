"""The board's tables computed once (square names, rays cut by the terrain for lines of communication
and for fire) give what the scans they replace give, on positions of random playouts."""

from __future__ import annotations

import hashlib

import pytest

from pbem.core.dice import ScriptedDice
from pbem.games.kriegspiel import RULES
from pbem.games.kriegspiel.board import BOARD, Board
from pbem.games.kriegspiel.combat import MAX_RANGE, assess
from pbem.games.kriegspiel.comms import Network, compute_network
from pbem.games.kriegspiel.position import Position
from pbem.games.kriegspiel.state import State
from pbem.games.kriegspiel.turn import attack_options
from pbem.games.kriegspiel.units import UNITS


def _pick(seed: int):  # type: ignore[no-untyped-def]
    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        return int.from_bytes(hashlib.sha256(f"tables:{seed}:{counter[0]}".encode()).digest()[:8], "big") % n

    return pick


def _states(seed: int, phases: int) -> list[State]:
    pick = _pick(seed)
    state = RULES.new_game(RULES.info.seats, {})
    out = []
    for _ in range(phases):
        phase = RULES.phase(state)
        if not phase.awaiting:
            break
        sheets = {seat: RULES.parse_orders(state, seat, RULES.random_orders(state, seat, pick))
                  for seat in phase.awaiting}
        state = RULES.resolve(state, sheets, ScriptedDice([1 + pick(2) for _ in range(10)])).state
        out.append(state)
    return out


def _network_by_scan(side: str, pos: Position, board: Board = BOARD) -> Network:
    """The lines of communication as the rays were walked square by square (mountains, forts, units)."""
    units_at = pos.at
    intact = sorted(sq for sq, a in pos.arsenals.items() if a.side == side and not a.destroyed)
    enemy = [sq for sq, a in pos.arsenals.items() if a.side != side and not a.destroyed]
    blockers = {sq for sq, u in units_at.items() if u.side != side and not UNITS[u.kind].relay} | set(enemy)
    covered: set[int] = set()
    lines: list[tuple[int, int]] = []

    def cast(src: int) -> None:
        for ray in board.rays[src]:
            last = None
            for sq in ray:
                if sq in blockers or board.terrain.get(sq) == "mountain":
                    break
                covered.add(sq)
                last = sq
                if board.terrain.get(sq) == "fort":
                    break
            if last is not None:
                lines.append((src, last))

    for src in intact:
        covered.add(src)
        cast(src)
    from_arsenals = frozenset(covered)
    active = []
    for sq in sorted(units_at):
        u = units_at[sq]
        if (u.side == side and UNITS[u.kind].relay and sq in from_arsenals and sq not in intact
                and board.terrain.get(sq) != "fort"):
            active.append(sq)
            cast(sq)
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


def test_square_names_and_parsing_equal_the_formula() -> None:
    for sq in range(BOARD.size):
        name = f"{BOARD.row_letters[sq // BOARD.cols]}{sq % BOARD.cols + 1}"
        assert BOARD.name(sq) == name
        assert BOARD.parse(name) == sq == BOARD.parse(f" {name.lower()} ")
        assert BOARD.parse(f"{name[0]}0{name[1:]}") == (sq if len(name) == 2 else None)
    assert BOARD.parse("A0") is None and BOARD.parse("Z1") is None and BOARD.parse("A26") is None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_networks_and_attacks_equal_a_scan_on_random_playouts(seed: int) -> None:
    states = _states(seed, 60)
    assert len(states) > 10
    for state in states:
        pos = Position.of(state)
        for side in ("north", "south"):
            intact = [sq for sq, a in pos.arsenals.items() if a.side == side and not a.destroyed]
            enemy = [sq for sq, a in pos.arsenals.items() if a.side != side and not a.destroyed]
            assert compute_network(side, pos.at, intact, enemy_arsenals=enemy) == _network_by_scan(side, pos)
            # every attack of ``side`` as assess() weighs it, kept where it has strength
            wanted = [a for sq in sorted(pos.at) if pos.at[sq].side != side
                      for a in [assess(pos, sq, side)] if a.attack > 0]
            assert attack_options(pos, side) == wanted


def test_fire_reaches_as_far_as_the_longest_range_and_stops_at_mountains() -> None:
    from pbem.games.kriegspiel.combat import _SIGHT

    for sq in range(BOARD.size):
        for ray, seen in zip(BOARD.rays[sq], _SIGHT[sq]):
            cut = []
            for x in ray[:MAX_RANGE]:
                if BOARD.is_mountain(x):
                    break
                cut.append(x)
            assert seen == tuple(cut)
