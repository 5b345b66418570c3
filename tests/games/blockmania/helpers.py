"""Positions for Block Mania rules tests, built directly as `State` objects.

Seats red, blue, green, yellow hold curie, keaton, earhart, houdini (the first ``len(seats)``). A
Blocker is named ``<seat>-<n>``; ``blockers`` maps its id to (type, square or box). Every Armoury and
Hardware counter of the pools is in its pool, those of ``top`` first; ``carried`` hands counters (by
type) to Blockers.  `sq` names a square and checks its kind, so a test fails loudly if the maps change.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import ScriptedDice
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.movement import activate, check_activate
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.state import VERSION, Blocker, Counter, Seat, SquareState, State

SEATS = ("red", "blue", "green", "yellow")
BLOCKS = ("curie", "keaton", "earhart", "houdini")


def position(blockers: dict[str, tuple[str, str]] | None = None, *, players: int = 2, cp: int = 12,
             active: int = 0, carried: dict[str, tuple[str, ...]] | None = None,
             top: dict[str, tuple[str, ...]] | None = None, squares: tuple[SquareState, ...] = (),
             piles: dict[str, tuple[str, ...]] | None = None, **changes: Any) -> State:
    """A Command Phase of ``SEATS[active]`` with ``cp`` Command Points."""
    blockers = blockers or {}
    carried = carried or {}
    top = top or {}
    piles = piles or {}
    seats = tuple(Seat(SEATS[i], BLOCKS[i], pile=piles.get(SEATS[i], ())) for i in range(players))
    counters: list[Counter] = []
    loose: dict[str, list[Counter]] = {"armoury": [], "hardware": []}
    used: dict[str, int] = {}

    def new_id(ctype: str) -> str:
        used[ctype] = used.get(ctype, 0) + 1
        return f"{ctype}-{used[ctype]}"

    held: dict[str, tuple[str, ...]] = {}
    for bid, types in carried.items():
        ids = []
        for ctype in types:
            cid = new_id(ctype)
            counters.append(Counter(cid, ctype, bid))
            ids.append(cid)
        held[bid] = tuple(ids)
    for pool in ("armoury", "hardware"):
        firsts = [Counter(new_id(t), t, f"pool:{pool}") for t in top.get(pool, ())]
        rest = [Counter(new_id(c.key), c.key, f"pool:{pool}") for c in ROSTER.pool(pool, players)]
        loose[pool] = firsts + rest
    pieces = tuple(Blocker(bid, btype, bid.split("-")[0], loc, carried=held.get(bid, ()))
                   for bid, (btype, loc) in blockers.items())
    state = State(VERSION, seats, turn=1, active=active, stage="command", command_points=cp,
                  blockers=pieces, counters=tuple(counters + loose["armoury"] + loose["hardware"]),
                  squares=squares)
    return replace(state, **changes)


def board_of(*args: Any, **kwargs: Any) -> Board:
    return Board(position(*args, **kwargs))


def sq(board: Board, name: str, kind: str | None = None, *, lift: bool | None = None,
       chute: bool | None = None) -> Loc:
    """The square ``name`` ("curie:F5"), checking its kind code (RS, CV, OA, TP, ...) and symbols."""
    loc = board.ring.loc(name)
    s = board.square(loc)
    if kind is not None:
        assert s.kind.code == kind, f"{name} is {s.kind.code}, the test needs {kind}: the maps changed"
    if lift is not None:
        assert (board.ring.lift(loc) is not None) == lift, f"{name}: lift {not lift}, the test needs {lift}"
    if chute is not None:
        assert (board.ring.chute_target(loc) is not None) == chute, f"{name}: grav-chute expected {chute}"
    return loc


def start(board: Board, bid: str) -> None:
    """Activate ``bid`` (its check must pass)."""
    assert check_activate(board, bid) is None, check_activate(board, bid)
    activate(board, bid)


def key(message: Any) -> str | None:
    return None if message is None else message.key


def dice(*values: int) -> ScriptedDice:
    return ScriptedDice(values)


def notes(board: Board) -> list[str]:
    return [n.key for n in board.notes]


__all__ = ["position", "board_of", "sq", "start", "key", "dice", "notes", "SEATS", "BLOCKS"]
