"""A mutable working copy of a Block Mania position: who is where, what each square has suffered.

The rule modules (movement, combat, damage, fire) all play on a `Board`; the resolution freezes it
back into a `State`.  Geometry comes from the ring of block maps (`blocks.Ring`), numbers from the
roster and the cards' data.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache

from pbem.games.blockmania.blocks import Blocks, Loc, Ring, Square, load_blocks
from pbem.games.blockmania.roster import ROSTER, BlockerType, CounterType
from pbem.games.blockmania.state import DEAD, Blocker, Counter, Note, SquareState, Standing, State


@cache
def blocks() -> Blocks:
    return load_blocks()


@cache
def key(loc: Loc) -> str:
    """A square's name as the state keys it (``curie:D6``), written once per square: a move's search
    asks about the same squares thousands of times, and only what is shown needs its name."""
    return str(loc)


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


@dataclass
class CardEffect:
    """An Attack card played before the dice (11.iv), waiting for the roll it changes: ``attack`` (one of
    cards.ATTACKS), ``blocker`` the Blocker whose roll (``whose`` "own") or against whom the roll
    (``whose`` "enemy") is changed, by ``amount``."""

    card: int
    seat: str
    attack: str
    blocker: str
    amount: int
    whose: str


@dataclass
class Moving:
    """What the Command Phase remembers while it runs (5.iii, 6.x): never frozen into the State.

    ``blocker`` is the Blocker being moved now and ``mp`` its Movement Points left; ``done`` the
    Blockers that may not move again this phase (another was activated after them, their move ended
    on an enemy, a flight, a draw); ``drew`` those that drew at an Armoury or Shopping Mall (6.x)."""

    blocker: str | None = None
    mp: int = 0
    done: set[str] = field(default_factory=set)
    drew: set[str] = field(default_factory=set)


class Blockers(dict[str, Blocker]):
    """The Blockers by id, with an index by square kept up to date (``Board.at`` is asked for every
    square a move considers)."""

    def __init__(self, items: dict[str, Blocker]) -> None:
        super().__init__(items)
        self._by_loc: dict[str, list[str]] | None = None

    def __setitem__(self, key: str, value: Blocker) -> None:
        super().__setitem__(key, value)
        self._by_loc = None

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._by_loc = None

    def by_loc(self) -> dict[str, list[str]]:
        if self._by_loc is None:
            index: dict[str, list[str]] = {}
            for bid, b in self.items():
                index.setdefault(b.loc, []).append(bid)
            self._by_loc = index
        return self._by_loc


class Board:
    """The position being played.

    Everything that changes while it is played (Blockers, counters, squares, fallen blocks, Judges,
    Command Points, piles, cards, ``final``, the moving Blocker) lives in the Board's own fields,
    copied from ``state`` once: the rule modules read those, never ``state``'s copy, which stays as
    the phase began (the Judges come in the middle of an End Phase, 12.i)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.ring: Ring = blocks().ring(s.block for s in state.seats)
        self.blockers = Blockers({b.id: b for b in state.blockers})
        self.counters: dict[str, Counter] = {c.id: c for c in state.counters}
        self.squares: dict[str, SquareState] = {s.loc: s for s in state.squares}
        self.fallen: set[str] = set(state.fallen)
        self.judges: set[str] = set(state.judges)
        #: squares the paused mover passed in the sheet before the pause (11.iii): ``deck.passed`` reads them
        self.passed_before: dict[str, list[Loc]] = (
            {state.mover: [self.ring.loc(p) for p in state.passed]} if state.mover else {})
        self.notes: list[Note] = []
        self.command_points: int = state.command_points
        self.piles: dict[str, tuple[str, ...]] = {s.name: s.pile for s in state.seats}
        self.moving = Moving(state.moving, state.mp, set(state.done), set(state.drew))
        # the cards (3, 10.ii, 11, 12): deck and set-aside top first, hands by seat, discards oldest first
        self.deck: list[int] = list(state.deck)
        self.set_aside: list[int] = list(state.set_aside)
        self.hands: dict[str, list[int]] = {s.name: list(s.hand) for s in state.seats}
        self.discards: list[int] = list(state.discards)
        self.final: bool = state.final
        #: Attack cards played and waiting for their roll (11.iv): never frozen, one phase only
        self.card_effects: list[CardEffect] = []

    # -- Blockers and counters ----------------------------------------------------------------------
    def type(self, bid: str) -> BlockerType:
        return ROSTER.blocker(self.blockers[bid].type)

    def counter_type(self, cid: str) -> CounterType:
        return ROSTER.counter(self.counters[cid].type)

    def loc(self, bid: str) -> Loc | None:
        return parse_loc(self.blockers[bid].loc)

    def at(self, loc: Loc) -> list[str]:
        return list(self.blockers.by_loc().get(key(loc), ()))

    def on_map(self, owner: str | None = None) -> list[str]:
        return [b for b, x in self.blockers.items() if parse_loc(x.loc) is not None
                and (owner is None or x.owner == owner)]

    def carried(self, bid: str) -> list[CounterType]:
        return [self.counter_type(c) for c in self.blockers[bid].carried]

    def set_blocker(self, bid: str, **changes: object) -> None:
        self.blockers[bid] = replace(self.blockers[bid], **changes)  # type: ignore[arg-type]

    def owner(self, bid: str) -> str:
        return self.blockers[bid].owner

    def standing(self, seat: str) -> Standing:
        """A seat's standing instructions (``State.standing`` follows the seats' order; default if unset)."""
        names = [s.name for s in self.state.seats]
        i = names.index(seat)
        return self.state.standing[i] if i < len(self.state.standing) else Standing()

    def pool_top(self, pool: str) -> str | None:
        """The next counter of the Armoury or Hardware pool (its order is the shuffle, secret)."""
        key = f"pool:{pool}"
        return next((c for c, x in self.counters.items() if x.loc == key), None)

    def to_pool(self, cid: str) -> None:
        """A counter goes back to its pool, at the bottom (drawn last)."""
        c = self.counters.pop(cid)
        self.counters[cid] = replace(c, loc=f"pool:{ROSTER.counter(c.type).pool}", armed_turn=None)

    def kill(self, bid: str, box: str = DEAD) -> None:
        """A Blocker leaves the map (7.iii): its counters go back to their pools."""
        for cid in self.blockers[bid].carried:
            self.to_pool(cid)
        self.set_blocker(bid, loc=box, carried=(), set_up=False, locked=False)

    # -- squares --------------------------------------------------------------------------------------
    def square(self, loc: Loc) -> Square:
        return self.ring.square(loc)

    def damage(self, loc: Loc) -> SquareState:
        name = key(loc)
        found = self.squares.get(name)
        return found if found is not None else SquareState(name)

    def set_square(self, loc: Loc, **changes: object) -> None:
        self.squares[key(loc)] = replace(self.damage(loc), **changes)  # type: ignore[arg-type]

    def collapsed(self, loc: Loc) -> bool:
        found = self.squares.get(key(loc))
        return (found is not None and found.collapsed) or loc.block in self.fallen

    def note(self, key: str, to: tuple[str, ...] | None = None, **args: object) -> None:
        self.notes.append(Note(key, tuple((k, str(v)) for k, v in args.items()), to))

    # -- the result -------------------------------------------------------------------------------------
    def frozen(self, **changes: object) -> State:
        squares = tuple(s for _, s in sorted(self.squares.items()) if s != SquareState(s.loc))
        seats = tuple(replace(s, pile=self.piles.get(s.name, s.pile), hand=tuple(self.hands.get(s.name, s.hand)))
                      for s in self.state.seats)
        new = replace(self.state, blockers=tuple(self.blockers.values()), counters=tuple(self.counters.values()),
                      squares=squares, fallen=tuple(sorted(self.fallen)), judges=tuple(sorted(self.judges)), command_points=self.command_points,
                      seats=seats, deck=tuple(self.deck), set_aside=tuple(self.set_aside),
                      discards=tuple(self.discards), final=self.final, moving=self.moving.blocker,
                      mp=self.moving.mp, done=tuple(sorted(self.moving.done)), drew=tuple(sorted(self.moving.drew)))
        return replace(new, **changes)  # type: ignore[arg-type]


__all__ = ["Board", "CardEffect", "Moving", "blocks", "key", "parse_loc", "Counter"]
