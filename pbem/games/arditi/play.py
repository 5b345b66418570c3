"""Orders the server writes itself: default orders (missed deadline), AUTO, random legal orders.

- Default orders: ``STAY`` — the corteo stays put (docs/games/arditi.md).
- ``AUTO`` (a player may write it): the server picks a move using the whole roll: the most
  recruits, then the most clashes won, then the front ending nearest to an indifferent it
  could jump next; ties go to the first found in square order. Deterministic.
- Random orders (conformance playouts) only use the ``pick`` chooser; they try jumps first,
  so that random games recruit and end.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.core.rules import Chooser
from pbem.games.arditi.board import BOARD
from pbem.games.arditi.position import Work
from pbem.games.arditi.state import State
from pbem.games.arditi.turn import Option, apply, best_points, sequences, to_orders


def default_text(state: State, seat: str) -> str:
    return "STAY"


def _kind_rank(o: Option) -> int:
    return {"jump": 0, "step": 1, "along": 2}[o[0]]


def _distance_to_number(work: Work) -> int:
    """Steps from the front to the nearest square next to an indifferent (through free squares)."""
    start = work.line.front
    seen = {start}
    frontier = [start]
    for dist in range(12):
        nxt = []
        for sq in frontier:
            if any(n in work.numbers for n in BOARD.neighbours(sq)):
                return dist
            for n in BOARD.neighbours(sq):
                if n not in seen and work.free(n):
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
        if not frontier:
            break
    return 99


def _approach(work: Work) -> dict[int, int]:
    """Steps from each square to a run-up square: one from which a step straight on faces an
    indifferent with a free square beyond it (through free squares)."""
    sources = set()
    for x in work.numbers:
        for s in BOARD.neighbours(x):
            land = BOARD.beyond(s, x)
            run_up = BOARD.beyond(x, s)
            if land is not None and run_up is not None and work.free(s) and work.free(land) \
                    and work.free(run_up):
                sources.add(run_up)
    dist = {sq: 0 for sq in sources}
    frontier = sorted(sources)
    d = 0
    while frontier:
        d += 1
        nxt = []
        for sq in frontier:
            for n in BOARD.neighbours(sq):
                if n not in dist and work.free(n):
                    dist[n] = d
                    nxt.append(n)
        frontier = nxt
    return dist


def _step_key(w: Work, square: int, dist: dict[int, int]) -> int:
    """Lower is better: a step that brings an indifferent straight ahead comes first."""
    ahead = BOARD.beyond(w.line.front, square)
    if ahead is not None and ahead in w.numbers:
        return -1
    return dist.get(square, 99)


def promising_order(work: Work) -> Callable[[Work, list[Option]], list[Option]]:
    """The search order of AUTO and of the template's examples: jumps, then the steps that lead
    towards an indifferent, then moves of the committee along its corteo."""
    dist = _approach(work)

    def order(w: Work, opts: list[Option]) -> list[Option]:
        return sorted(opts, key=lambda o: (_kind_rank(o), _step_key(w, o[1], dist) if o[0] == "step" else 0,
                                           o[1:]))

    return order


def auto_actions(state: State, seat: str) -> list[Option]:
    work = Work(state, seat)
    target = best_points(work)
    if target == 0:
        return []
    found = sequences(work, target, promising_order(work), limit=60)
    best: list[Option] = []
    best_key: tuple[int, int, int] | None = None
    for seq in found:
        trial = work.clone()
        for a in seq:
            apply(trial, a)
        key = (-len(trial.captured), -len(trial.clashes), _distance_to_number(trial))
        if best_key is None or key < best_key:
            best, best_key = seq, key
    return best


def random_actions(state: State, seat: str, pick: Chooser) -> list[Option]:
    """A random legal move with the whole roll: jumps first; the steps mostly towards the
    indifferent (so that random games recruit and end), sometimes in any order."""
    work = Work(state, seat)
    target = best_points(work)
    if target == 0:
        return []
    dist = _approach(work)
    wander = pick(4) == 0

    def shuffle(group: list[Option]) -> list[Option]:
        group = list(group)
        out = []
        while group:
            out.append(group.pop(pick(len(group))))
        return out

    def order(w: Work, opts: list[Option]) -> list[Option]:
        jumps = [o for o in opts if o[0] == "jump"]
        steps = shuffle([o for o in opts if o[0] == "step"])
        along = shuffle([o for o in opts if o[0] == "along"])
        if not wander:
            steps.sort(key=lambda o: _step_key(w, o[1], dist))
        if along and pick(6) == 0:  # now and then the committee moves along its corteo
            return jumps + along + steps
        return jumps + steps + along

    found = sequences(work, target, order, limit=1)
    return found[0] if found else []


def random_text(state: State, seat: str, pick: Chooser) -> str:
    if state.stage != "move" or seat != state.to_move:
        return "STAY"
    if pick(20) == 0:
        return "STAY"
    actions = random_actions(state, seat, pick)
    return "\n".join(o.canonical() for o in to_orders(actions))
