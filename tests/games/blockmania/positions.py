"""Positions for the rules tests of combat.py, damage.py and fire.py: two players, red on the Marie Curie
Block, blue on the Buster Keaton Block (ring curie, keaton), red active, turn 1."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import ScriptedDice
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.state import VERSION, Blocker, Counter, Seat, SquareState, State


def B(bid: str, type_: str, loc: str, *carried: str, **flags: Any) -> tuple[Blocker, list[Counter]]:
    """A Blocker ``red-1`` (owner from the id) in ``loc`` carrying counters of the given types."""
    owner = bid.split("-")[0]
    counters = [Counter(f"{t}@{bid}-{i}", t, bid) for i, t in enumerate(carried)]
    return Blocker(id=bid, type=type_, owner=owner, loc=loc, carried=tuple(c.id for c in counters), **flags), counters


def board(*blockers: tuple[Blocker, list[Counter]], squares: dict[str, dict[str, Any]] | None = None,
          pool: tuple[str, ...] = (), lying: dict[str, str] | None = None, active: int = 0,
          order: tuple[str, ...] = ("curie", "keaton"), **changes: Any) -> Board:
    """A Board: the Blockers, square states (``{"curie:D5": {"fires": 2}}``), counters in the pools
    (types, in draw order), counters lying in squares (``{id: "type@curie:D5"}``)."""
    seats = tuple(Seat(name, block) for name, block in zip(("red", "blue", "green", "yellow"), order))
    counters = [c for _, cs in blockers for c in cs]
    for i, t in enumerate(pool):
        counters.append(Counter(f"{t}-pool-{i}", t, f"pool:{ROSTER.counter(t).pool}"))
    for cid, spec in (lying or {}).items():
        t, loc = spec.split("@")
        counters.append(Counter(cid, t, loc))
    sq = tuple(SquareState(k, **v) for k, v in (squares or {}).items())
    state = State(VERSION, seats, turn=1, active=active, stage="combat", blockers=tuple(b for b, _ in blockers),
                  counters=tuple(counters), squares=sq)
    return Board(replace(state, **changes))


def L(b: Board, name: str) -> Loc:
    return b.ring.loc(name)


def kind(b: Board, name: str) -> str:
    """The square's type and kind code, e.g. ``window RS`` (tests check the maps they rely on)."""
    s = b.square(L(b, name))
    return f"{s.type} {s.kind.code}"


def dice(*values: int) -> ScriptedDice:
    return ScriptedDice(values)


def used_up(d: ScriptedDice) -> bool:
    return not d._values


def loc(b: Board, bid: str) -> str:
    return b.blockers[bid].loc


def keys(b: Board) -> list[str]:
    return [n.key for n in b.notes]
