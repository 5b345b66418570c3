"""A mutable working copy of a Block Mania position: who is where, what each square has suffered.

The rule modules (movement, combat, damage, fire) all play on a `Board`; the resolution freezes it
back into a `State`.  Geometry comes from the ring of block maps (`blocks.Ring`), numbers from the
roster and the cards' data.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from pbem.games.blockmania.blocks import Blocks, Loc, Ring, Square, load_blocks
from pbem.games.blockmania.roster import ROSTER, BlockerType, CounterType
from pbem.games.blockmania.state import Blocker, Counter, Note, SquareState, State


@cache
def blocks() -> Blocks:
    return load_blocks()


def parse_loc(text: str) -> Loc | None:
    """``curie:D6`` -> a Loc; None for a box or a bad name."""
    if ":" not in text:
        return None
    block, label = text.split(":", 1)
    if block not in blocks().ids:
        return None
    try:
        return Loc(block, "ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(label[0]), int(label[1:]))
    except (ValueError, IndexError):
        return None


class Board:
    """The position being played."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.ring: Ring = blocks().ring(s.block for s in state.seats)
        self.blockers: dict[str, Blocker] = {b.id: b for b in state.blockers}
        self.counters: dict[str, Counter] = {c.id: c for c in state.counters}
        self.squares: dict[str, SquareState] = {s.loc: s for s in state.squares}
        self.fallen: set[str] = set(state.fallen)
        self.notes: list[Note] = []

    # -- Blockers and counters ----------------------------------------------------------------------
    def type(self, bid: str) -> BlockerType:
        return ROSTER.blocker(self.blockers[bid].type)

    def counter_type(self, cid: str) -> CounterType:
        return ROSTER.counter(self.counters[cid].type)

    def loc(self, bid: str) -> Loc | None:
        return parse_loc(self.blockers[bid].loc)

    def at(self, loc: Loc) -> list[str]:
        key = str(loc)
        return [b for b, x in self.blockers.items() if x.loc == key]

    def on_map(self, owner: str | None = None) -> list[str]:
        return [b for b, x in self.blockers.items() if parse_loc(x.loc) is not None
                and (owner is None or x.owner == owner)]

    def carried(self, bid: str) -> list[CounterType]:
        return [self.counter_type(c) for c in self.blockers[bid].carried]

    def set_blocker(self, bid: str, **changes: object) -> None:
        self.blockers[bid] = replace(self.blockers[bid], **changes)  # type: ignore[arg-type]

    # -- squares --------------------------------------------------------------------------------------
    def square(self, loc: Loc) -> Square:
        return self.ring.square(loc)

    def damage(self, loc: Loc) -> SquareState:
        return self.squares.get(str(loc), SquareState(str(loc)))

    def set_square(self, loc: Loc, **changes: object) -> None:
        self.squares[str(loc)] = replace(self.damage(loc), **changes)  # type: ignore[arg-type]

    def collapsed(self, loc: Loc) -> bool:
        return self.damage(loc).collapsed or loc.block in self.fallen

    def note(self, key: str, to: tuple[str, ...] | None = None, **args: object) -> None:
        self.notes.append(Note(key, tuple((k, str(v)) for k, v in args.items()), to))

    # -- the result -------------------------------------------------------------------------------------
    def frozen(self, **changes: object) -> State:
        squares = tuple(s for _, s in sorted(self.squares.items()) if s != SquareState(s.loc))
        new = replace(self.state, blockers=tuple(self.blockers.values()), counters=tuple(self.counters.values()),
                      squares=squares, fallen=tuple(sorted(self.fallen)))
        return replace(new, **changes)  # type: ignore[arg-type]


__all__ = ["Board", "blocks", "parse_loc", "Counter"]
