"""What refusing a move costs (a security review: a sheet whose waypoint cannot be reached was refused in
about 1 s, while a legal one took 15 ms). Refusing a waypoint means searching every square the Blocker
could reach (`movement.reachable`); the search must not redo the flights of 6.ix ("può muovere in un
qualsiasi Square di tipo Open Air, Balcony e Tween Block Plaza della stessa mappa o di una adiacente")
from every square it passes, nor write out the name of every square it looks at. Counted, not timed,
except one best-of-N ratio with a wide margin."""

from __future__ import annotations

import time
from typing import Any, Callable

import pytest

from pbem.games.blockmania import RULES
from pbem.games.blockmania import movement as mv
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.state import State
from tests.games.blockmania.helpers import position, sq, start

#: a Superhero flies (6.ix) from the plaza of the Marie Curie Block; blue's Juves holds keaton:D5, an
#: Interior square no lift serves, so no move of red-1 can end there (6.ii)
FLIER = {"red-1": ("superhero", "curie:E5"), "blue-1": ("juves", "keaton:D5")}
UNREACHABLE = "MOVE red-1 keaton:D5"
FAR = "MOVE red-1 keaton:D9"  # a Balcony two maps away: found by the same search


def flier() -> State:
    state = position(FLIER, players=4, cp=12)
    board = Board(state)
    sq(board, "keaton:D5", "RS", lift=False)
    sq(board, "keaton:D9", "BA")
    return state


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls = [0]
    real: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_an_unreachable_waypoint_is_refused_with_one_flight_search_per_map_set(monkeypatch: pytest.MonkeyPatch):
    """6.ix: the squares a flier may fly to depend on the maps it takes off from ("della stessa mappa o di
    una adiacente"), so a refusal works them out once for each set of maps, not once for every Balcony,
    plaza and Open Air square the search passes (there are hundreds)."""
    state = flier()
    board = Board(state)
    start(board, "red-1")
    takeoffs = {board.ring.maps_of(loc) for loc in mv.reachable(board, "red-1")}
    assert len(takeoffs) <= 2 * len(state.seats)  # a map alone, or the half square it shares
    calls = counting(monkeypatch, mv, "flight_targets")
    out = RULES.parse_orders(state, "red", UNREACHABLE)
    assert not out.ok and out.diagnostics[0].message.key == "err-unreachable"
    # one for the single flight tried first (plan._steps), then one per set of maps
    assert 0 < calls[0] <= 1 + len(takeoffs)


def test_the_search_writes_no_square_name(monkeypatch: pytest.MonkeyPatch):
    """A refusal names two squares (where the Blocker is, where it cannot go): the search behind it looks
    at every square by its place, writing out none (the state's names are worked out once per square)."""
    state = flier()
    RULES.parse_orders(state, "red", UNREACHABLE)  # every square's name is known from now on
    calls = counting(monkeypatch, Loc, "__str__")
    board = Board(state)
    start(board, "red-1")
    found = mv.reachable(board, "red-1")
    assert len(found) > 100 and calls[0] == 0


def test_refusing_costs_about_as_much_as_accepting():
    """The unreachable waypoint against a far legal one (both need the whole search), best of 5 in CPU time: the
    refusal is within three times the acceptance (before the fix it was about twenty times a legal sheet)."""
    state = flier()

    def best(text: str) -> float:
        times = []
        for _ in range(5):
            t0 = time.process_time()
            RULES.parse_orders(state, "red", text)
            times.append(time.process_time() - t0)
        return min(times)

    assert RULES.parse_orders(state, "red", FAR).ok
    assert best(UNREACHABLE) <= 3 * best(FAR)
