"""A mutable working copy of a Corteo position, with the rule checks every step shares.

Zones of control (2), terrain for movement (4c, 6d), costs with fractions rounded up (4c),
stacking (9), throw lines (7a, 7f), the Corteo and its Head (10).  The parser's checks, the
resolution, the ORDERS template and the random orders all play on a `Board`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import replace
from fractions import Fraction
from functools import cache, lru_cache
from typing import Self

from pbem.core.i18n import Message, msg
from pbem.games.corteo.city import City, Hex, axis_direction, distance, load_city
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import (
    CORTEO,
    POTERE,
    PRISON,
    RESERVE,
    Barricade,
    Fight,
    Mobile,
    Note,
    PhaseLog,
    Smoke,
    State,
    Step,
    Tally,
    Throw,
    Unit,
    relocated,
)
from pbem.games.corteo.tables import TABLES, UnitType
from pbem.games.corteo.units import Counter, counter

NO_ZOC_TERRAIN = frozenset({"caseggiato", "fiume", "scale"})  # 2: no ZOC into these hexes


@cache
def city() -> City:
    return load_city()


@cache
def _open() -> dict[Hex, tuple[Hex, ...]]:
    """Each hex's open neighbours (no wall between), computed once: the hot path of movement. The
    neighbours are the City's own Hex objects, as are the keys of the tables read by hex: a lookup
    finds its key by identity, without comparing fields."""
    c = city()
    own = {h: h for h in c.hexes}
    return {h: tuple(own.get(n, n) for n in c.open_neighbours(h)) for h in c.hexes}


def open_neighbours(h: Hex) -> tuple[Hex, ...]:
    return _open().get(h, ())


class _Units(dict[str, Unit]):
    """The units by id; any change tells the board (who is where, zones of control)."""

    def __init__(self, items: dict[str, Unit], on_change: "Board") -> None:
        super().__init__(items)
        self._board = on_change

    def __setitem__(self, key: str, value: Unit) -> None:
        old = self.get(key)
        super().__setitem__(key, value)
        self._board._changed(key, old, value)


class _Covered(set[str]):
    """The covered objectives (12a); counts its changes, as the terrain the zones of control were
    computed on changes with it."""

    generation = 0

    def _bump(self) -> None:
        self.generation += 1

    def add(self, item: str) -> None:
        super().add(item)
        self._bump()

    def discard(self, item: object) -> None:
        super().discard(item)
        self._bump()

    def remove(self, item: str) -> None:
        super().remove(item)
        self._bump()

    def pop(self) -> str:
        self._bump()
        return super().pop()

    def clear(self) -> None:
        super().clear()
        self._bump()

    def update(self, *others: Iterable[str]) -> None:
        super().update(*others)
        self._bump()

    def difference_update(self, *others: Iterable[object]) -> None:
        super().difference_update(*others)
        self._bump()

    def intersection_update(self, *others: Iterable[object]) -> None:
        super().intersection_update(*others)
        self._bump()

    def symmetric_difference_update(self, other: Iterable[str]) -> None:
        super().symmetric_difference_update(other)
        self._bump()

    def __ior__(self, other: AbstractSet[str]) -> Self:  # type: ignore[override,misc]
        self._bump()
        return super().__ior__(other)

    def __iand__(self, other: AbstractSet[object]) -> Self:
        self._bump()
        return super().__iand__(other)

    def __isub__(self, other: AbstractSet[object]) -> Self:
        self._bump()
        return super().__isub__(other)

    def __ixor__(self, other: AbstractSet[str]) -> Self:  # type: ignore[override,misc]
        self._bump()
        return super().__ixor__(other)


def other(side: str) -> str:
    return POTERE if side == CORTEO else CORTEO


@cache
def _hexes_by_label() -> dict[str, Hex]:
    return {h.label: h for h in city().hexes}


def hexof(label: str) -> Hex | None:
    found = _hexes_by_label().get(label)
    if found is not None or not label:
        return found
    h = city().parse(label)
    return _hexes_by_label().get(h.label, h) if h is not None and city().on_map(h) else None


@cache
def label_of(h: Hex) -> str:
    return h.label


@lru_cache(maxsize=4096)
def _loc_hex(loc: str) -> Hex | None:
    """``hexof`` of a unit's place (a hex label or a box): the few places units stand in, read once."""
    return hexof(loc)


@cache
def _terrains() -> dict[Hex, str]:
    """The City's terrain by hex, read once (the hot path of zones of control and combat)."""
    c = city()
    return {h: c.terrain(h) for h in c.hexes}


@cache
def _unit_type(uid: str) -> UnitType:
    """A counter's unit type (the tables are read once; a scan of them per call was a hot spot)."""
    return counter(uid).unit


@cache
def _unit_side(uid: str) -> str:
    return counter(uid).side


@cache
def _counter(uid: str) -> Counter:
    """``counter`` read once per id (an unknown id raises each time: errors are not kept)."""
    return counter(uid)


def _city_terrain(h: Hex) -> str:
    """The City's terrain (``Board.terrain`` with no objective covered)."""
    terrain = _terrains().get(h)
    return terrain if terrain is not None else city().terrain(h)


def _zone(h: Hex, side: str, terrain_of: Callable[[Hex], str]) -> frozenset[Hex]:
    """The zone of control (2) of a unit of ``side`` on ``h``, on the terrain ``terrain_of`` gives."""
    if terrain_of(h) == "scale":
        return frozenset()
    out = []
    for n in open_neighbours(h):
        terrain = terrain_of(n)
        if terrain in NO_ZOC_TERRAIN:
            continue
        if side == CORTEO and terrain == "caserma" or side == POTERE and terrain == "metro":
            continue
        out.append(n)
    return frozenset(out)


@cache
def _city_zone(h: Hex, side: str) -> frozenset[Hex]:
    """``_zone`` on the City's terrain, computed once per hex and side."""
    return _zone(h, side, _city_terrain)


_NO_ENTRY, _SLOPE = -1, -2  # reachable(): a hex the unit may not enter; a slope (1/2 down, 2 up)


@cache
def _half_points() -> dict[str, int]:
    """Each terrain's cost of a step in half points, slopes and forbidden terrains left out."""
    return {t: int(e.cost * 2) for t, e in NUMBERS.moves.items() if e.cost is not None and not e.slope}


class Board:
    """The position being played; ``state`` is the position at the start of the phase."""

    def __init__(self, state: State) -> None:
        self.state = state
        self._by_loc: dict[str, list[str]] | None = None
        self._present: dict[str, list[str]] | None = None
        self._zoc: dict[str, frozenset[Hex]] = {}
        self._enemy_zoc: dict[str, frozenset[Hex]] = {}
        self.units: dict[str, Unit] = _Units({u.id: u for u in state.units}, self)
        self._rank: dict[str, int] = {u: i for i, u in enumerate(self.units)}  # the units' order, for the indexes
        self.version = 0  # counts the changes of units: what was computed from them holds while it stays
        self.barricades: dict[str, int] = {b.hex: b.hand for b in state.barricades}
        self.barricades_left = state.barricades_left
        self.jams: set[str] = set(state.jams)
        self.smoke: dict[str, str] = {s.hex: s.until for s in state.smoke}
        self.covered: _Covered = _Covered(state.covered)
        self._zoc_generation = 0  # the covered objectives' generation the cached zones were computed on
        self._covered_near: tuple[int, frozenset[Hex]] = (-1, frozenset())
        self._aggregates: tuple[int, list[set[str]]] = (-1, [])
        self.points = state.points
        self.steps: list[Step] = []
        self.throws: list[Throw] = []
        self.fights: list[Fight] = []
        self.notes: list[Note] = []
        self.mobiles: dict[str, Mobile] = {m.id: m for m in state.mobiles}  # D: the mobile objectives
        self.tally: list[Tally] = list(state.tally)
        self.facts: set[str] = set(state.facts)

    def _changed(self, uid: str, old: Unit | None, new: Unit) -> None:
        """A unit changed: its zone of control and the sides' zones are computed again (all zones
        when an objective was covered since they were computed); who is where is updated in place
        (each hex's list keeps the units' order, as a scan of ``units`` would give it)."""
        self.version += 1
        if self._zoc_generation != self.covered.generation:
            self._zoc.clear()  # some zones may stand on the terrain before an objective was covered
            self._enemy_zoc.clear()
            self._zoc_generation = self.covered.generation
        else:
            self._zoc.pop(uid, None)  # a unit's zone depends on its own place and state, and the terrain
            self._enemy_zoc.pop(other(_unit_side(uid)), None)  # the zones its side casts on the other
        if old is None:
            self._rank[uid] = len(self._rank)  # a new key comes last in the dict's order
        elif old.loc == new.loc and old.waiting == new.waiting:
            return
        if self._by_loc is not None:
            if old is not None and not old.waiting:
                self._by_loc[old.loc].remove(uid)
            if not new.waiting:
                self._place_in(self._by_loc, new.loc, uid)
        if self._present is not None:
            if old is not None:
                self._present[old.loc].remove(uid)
            self._place_in(self._present, new.loc, uid)

    def _place_in(self, index: dict[str, list[str]], loc: str, uid: str) -> None:
        here = index.get(loc)
        if not here:
            index[loc] = [uid]  # the lists are the index's own: ``at`` and ``present`` hand out copies
            return
        here.append(uid)
        rank = self._rank
        if rank[here[-2]] > rank[uid]:  # sorted already when it comes last in the units' order (placements)
            here.sort(key=rank.__getitem__)

    # -- units ----------------------------------------------------------------------------------------
    def counter(self, uid: str) -> Counter:
        return _counter(uid)

    def type(self, uid: str) -> UnitType:
        return _unit_type(uid)

    def side(self, uid: str) -> str:
        return _unit_side(uid)

    def loc(self, uid: str) -> str:
        return self.units[uid].loc

    def hex(self, uid: str) -> Hex | None:
        u = self.units[uid]
        return _loc_hex(u.loc) if not u.waiting else None

    def on_map(self, uid: str) -> bool:
        return self.hex(uid) is not None

    def ids(self, side: str | None = None) -> list[str]:
        if side is None:
            return list(self.units)
        return [u for u in self.units if _unit_side(u) == side]

    def map_units(self, side: str) -> list[str]:
        return [u for u in self.ids(side) if self.on_map(u)]

    def at(self, h: Hex | str, side: str | None = None) -> list[str]:
        label = h if isinstance(h, str) else label_of(h)
        if self._by_loc is None:
            self._by_loc = {}
            for u, x in self.units.items():
                if not x.waiting:
                    self._by_loc.setdefault(x.loc, []).append(u)
        here = self._by_loc.get(label)
        if not here:
            return []
        if side is None:
            return list(here)
        return [u for u in here if _unit_side(u) == side]

    def occupied(self, h: Hex, side: str) -> bool:
        """``bool(self.at(h, side))`` without building the list (``may_enter`` asks it for every step)."""
        by_loc = self._by_loc
        if by_loc is None:
            self.at(h)
            by_loc = self._by_loc
            assert by_loc is not None
        here = by_loc.get(label_of(h))
        if here:
            for u in here:
                if _unit_side(u) == side:
                    return True
        return False

    def set_loc(self, uid: str, loc: str, kind: str, path: tuple[str, ...] | None = None, *,
                waiting: bool | None = None, presidio: bool | None = None) -> None:
        """The unit moved to ``loc`` (a step of ``kind`` on record), with its C 13d wait and its 6b
        binding set where given."""
        units = self.units
        unit = units[uid]
        new = relocated(unit, loc, waiting=waiting, presidio=presidio)
        dict.__setitem__(units, uid, new)  # what ``_Units.__setitem__`` does, with the old unit at hand
        self._changed(uid, unit, new)
        self.steps.append(Step(uid, path if path is not None else (unit.loc, loc), kind))

    def active(self, uid: str) -> bool:
        """On the map and able to act (not panicked in a barracks, not waiting in C 13d)."""
        u = self.units[uid]
        return self.on_map(uid) and not u.panicked

    # -- terrain ------------------------------------------------------------------------------------
    def terrain(self, h: Hex) -> str:
        """The hex's terrain; a covered objective is a building from then on (12a)."""
        if self.covered and label_of(h) in self.covered:
            return "caseggiato"
        terrain = _terrains().get(h)
        return terrain if terrain is not None else city().terrain(h)

    def blocked(self, h: Hex) -> bool:
        """A barricade (5d), a jam (13c) or smoke (13a) on the hex: nobody enters it."""
        if not (self.barricades or self.jams or self.smoke):
            return False
        label = label_of(h)
        return label in self.barricades or label in self.jams or label in self.smoke

    def may_enter(self, uid: str, h: Hex) -> Message | None:
        """Why ``uid`` may not enter ``h`` (terrain 4c, 6d; pieces; enemy units), or None."""
        if not city().on_map(h):
            return msg("err-off-map", hex=h.label)
        terrain = self.terrain(h)
        effect = NUMBERS.moves[terrain]
        kind = _unit_type(uid).kind
        side = _unit_side(uid)
        if effect.cost is None:
            return msg("err-terrain", hex=h.label, terrain=msg(f"terrain-{terrain}"))
        if side in effect.forbid or kind in effect.forbid:
            return msg("err-terrain-for", hex=h.label, terrain=msg(f"terrain-{terrain}"), unit=self.label(uid))
        if (self.barricades or self.jams or self.smoke) and self.blocked(h):
            return msg("err-blocked", hex=h.label)
        if self.occupied(h, other(side)):
            return msg("err-enemy-hex", hex=h.label)
        if self.mobiles:
            piece = self.mobile_on(h)
            # D: the Corteo Presidenziale is the power's (OURS: the corteo may not walk through it); the
            # rally's pieces "non [possono] cumularsi fra loro e con altre unità del potere"; a corteo
            # unit that enters a rally hex sends the piece to hospital (plan_scenario.sweep).
            if piece is not None and (piece.startswith("PRE") and side == CORTEO
                                      or piece.startswith("COM") and side == POTERE):
                return msg("err-mobile-hex", hex=h.label, piece=piece)
        return None

    def mobile_on(self, h: Hex | str) -> str | None:
        """The mobile objective on the hex, if any (D)."""
        label = h if isinstance(h, str) else label_of(h)
        for m in self.mobiles.values():
            if m.status == "map" and m.loc == label:
                return m.id
        return None

    def mobile_hex(self, pid: str) -> Hex | None:
        m = self.mobiles[pid]
        return hexof(m.loc) if m.status == "map" else None

    def step_cost(self, frm: Hex, to: Hex) -> Fraction:
        effect = NUMBERS.moves[self.terrain(to)]
        if effect.slope:
            return Fraction(1, 2) if city().slope_effect(frm, to) == "discesa" else Fraction(2)
        assert effect.cost is not None
        return effect.cost

    def _entry(self, uid: str, h: Hex) -> int:
        """For ``reachable``: ``_NO_ENTRY`` where ``may_enter`` refuses ``uid``, ``_SLOPE`` on a slope
        (the cost depends on the way), else the cost of a step into ``h`` in half points."""
        if not city().on_map(h) or NUMBERS.moves[self.terrain(h)].cost is None:
            return _NO_ENTRY  # may_enter's "err-off-map" and "err-terrain", without making their messages
        if self.may_enter(uid, h) is not None:
            return _NO_ENTRY
        half = _half_points().get(self.terrain(h))
        return _SLOPE if half is None else half

    def _half_step(self, frm: Hex, to: Hex) -> int:
        """``int(step_cost(frm, to) * 2)`` without fractions: the cost in half points."""
        half = _half_points().get(self.terrain(to))
        if half is not None:
            return half
        if NUMBERS.moves[self.terrain(to)].slope:
            return 1 if city().slope_effect(frm, to) == "discesa" else 4  # 1/2 down, 2 up
        return int(self.step_cost(frm, to) * 2)

    def stops(self, uid: str, h: Hex) -> bool:
        """Entering ends the move: objectives (12a), the metro for the corteo (5b)."""
        return self.side(uid) in NUMBERS.moves[self.terrain(h)].stop

    def linked(self, a: Hex, b: Hex) -> bool:
        return b in open_neighbours(a)

    # -- zones of control (2) -------------------------------------------------------------------------
    def zoc(self, uid: str) -> frozenset[Hex]:
        """The hexes ``uid`` controls: its open neighbours, except buildings, the river, stairs
        and hexes across a wall (2); none from stairs (our reading of 2 and 8c); the corteo
        controls no barracks hex, the power no metro hex; a panicked unit controls nothing."""
        cached = self._zoc.get(uid)
        if cached is not None:
            return cached
        h = self.hex(uid)
        if h is None or self.units[uid].panicked:
            zone: frozenset[Hex] = frozenset()
        elif self.covered and h in self._near_covered():
            zone = _zone(h, self.side(uid), self.terrain)  # a covered objective nearby is a building
        else:
            zone = _city_zone(h, self.side(uid))
        self._zoc[uid] = zone
        return zone

    def _near_covered(self) -> frozenset[Hex]:
        """The hexes that are, or are open neighbours of, a covered objective: where a zone of control
        differs from the City's (open neighbours are mutual: no wall between them either way)."""
        if self._covered_near[0] != self.covered.generation:
            near: set[Hex] = set()
            for label in self.covered:
                h = hexof(label)
                if h is not None:
                    near.add(h)
                    near.update(open_neighbours(h))
            self._covered_near = (self.covered.generation, frozenset(near))
        return self._covered_near[1]

    def enemy_zoc(self, side: str) -> frozenset[Hex]:
        cached = self._enemy_zoc.get(side)
        if cached is None:
            out: set[Hex] = set()
            for u in self.map_units(other(side)):
                out |= self.zoc(u)
            cached = self._enemy_zoc[side] = frozenset(out)
        return cached

    def in_enemy_zoc(self, uid: str) -> bool:
        h = self.hex(uid)
        return h is not None and h in self.enemy_zoc(self.side(uid))

    # -- stacking (9) -------------------------------------------------------------------------------
    def present(self, h: Hex, side: str) -> list[str]:
        """The units of ``side`` standing on ``h``, C 13d units waiting there included: out of the
        game, they still hold their place in the stack ("rimangono negli esa-caserma che occupano")."""
        if self._present is None:
            self._present = {}
            for u, x in self.units.items():
                self._present.setdefault(x.loc, []).append(u)
        here = self._present.get(label_of(h))
        return [u for u in here if _unit_side(u) == side] if here else []

    def stack_ok(self, uid: str, h: Hex, leaving: frozenset[str] = frozenset()) -> bool:
        """Two units of a side per hex; blindati never stack except in barracks (9); forestieri and
        Finanza waiting where they were placed stand alone or among themselves (13d)."""
        present = self._present
        if present is None:
            self.present(h, CORTEO)  # builds the index
            present = self._present
            assert present is not None
        on_hex = present.get(label_of(h))
        side = _unit_side(uid)
        # present(h, side) less ``uid`` and ``leaving``, read off the index in one pass
        here = [u for u in on_hex if u != uid and u not in leaving and _unit_side(u) == side] if on_hex else []
        if len(here) >= TABLES.rules.stack_limit:
            return False
        if not here:
            return True  # nobody to stack with: the rules below are about the units already there
        units = self.units
        mine = _counter(uid).set
        waiting = units[uid].waiting
        for u in here:
            if _counter(u).set != mine and (units[u].waiting or waiting):
                return False
        if self.terrain(h) != "caserma":
            if _unit_type(uid).kind == "blindati" or any(_unit_type(u).kind == "blindati" for u in here):
                return False
        return True

    # -- paths (4, 5, 6) ------------------------------------------------------------------------------
    def check_path(self, uid: str, path: list[Hex], budget: Fraction) -> tuple[Message | None, Fraction]:
        """Why the path is illegal (or None), and its cost: fractions of a point that do not add
        up to a whole point count as a whole point (4c)."""
        start = self.hex(uid)
        assert start is not None
        side = self.side(uid)
        zoc = self.enemy_zoc(side)
        cost = Fraction(0)
        here = start
        if start in zoc:
            if side == POTERE:
                return msg("err-power-in-zoc", unit=self.label(uid)), cost  # 6a
            if self.state.mode == "advanced":
                cost += NUMBERS.disengage_cost  # 5a
        caserma = next((c for c in city().caserme if start in c.hexes), None)
        for i, h in enumerate(path):
            if not self.linked(here, h):
                return msg("err-not-adjacent", a=here.label, b=h.label), cost
            problem = self.may_enter(uid, h)
            if problem:
                return problem, cost
            if i == 0 and caserma is not None and h not in caserma.exits and h not in caserma.hexes:
                exits = ", ".join(e.label for e in caserma.exits)
                return msg("err-caserma-exit", unit=self.label(uid), number=caserma.number, exits=exits), cost
            if i == 0 and start in zoc and h in zoc and side == CORTEO:
                return msg("err-disengage", unit=self.label(uid), hex=h.label), cost  # 5a: first step out
            cost += self.step_cost(here, h)
            last = i == len(path) - 1
            if not last and h in zoc:
                return msg("err-zoc-stop", unit=self.label(uid), hex=h.label), cost  # 4b
            if not last and self.stops(uid, h):
                return msg("err-must-stop", unit=self.label(uid), hex=h.label,
                           terrain=msg(f"terrain-{self.terrain(h)}")), cost
            here = h
        if math.ceil(cost) > budget:
            return msg("err-too-far", unit=self.label(uid), cost=str(math.ceil(cost)), points=str(budget)), cost
        if path and not self.stack_ok(uid, path[-1]):
            return msg("err-stack", hex=path[-1].label), cost
        return None, cost

    def reachable(self, uid: str, budget: Fraction,
                  enterable: dict[Hex, int] | None = None) -> dict[Hex, tuple[Hex, ...]]:
        """Every hex ``uid`` may end its move in, with a cheapest legal path (Dijkstra on cost,
        counted in half points; of two hexes at one cost the first in reading order goes first).
        ``enterable``: by hex, whether ``may_enter`` lets the unit in and what a step into it costs
        (``_entry``), shared by the calls for units of one side and kind while the board does not
        change (the ORDERS template)."""
        start = self.hex(uid)
        if start is None:
            return {}
        side = self.side(uid)
        zoc = self.enemy_zoc(side)
        base = 0
        start_in_zoc = start in zoc
        if start_in_zoc:
            if side == POTERE:
                return {}
            if self.state.mode == "advanced":
                base = 2 * NUMBERS.disengage_cost
        limit = int(budget * 2)
        caserma = next((c for c in city().caserme if start in c.hexes), None)
        way_out = None if caserma is None else frozenset(caserma.exits + caserma.hexes)
        best: dict[Hex, tuple[int, tuple[Hex, ...]]] = {start: (base, ())}
        # (cost, row, column, hex): the order of (cost, hex), compared without calling Hex.__lt__
        frontier: list[tuple[int, int, int, Hex]] = [(base, start.row, start.col, start)]
        if enterable is None:
            enterable = {}
        moves = NUMBERS.moves
        while frontier:
            spent_now, _, _, here = heapq.heappop(frontier)
            spent, path = best[here]
            if spent_now > spent:
                continue
            from_start = here == start
            if not from_start and (here in zoc or side in moves[self.terrain(here)].stop):  # stops()
                continue
            for n in open_neighbours(here):
                step = enterable.get(n)
                if step is None:
                    step = enterable[n] = self._entry(uid, n)
                if step == _NO_ENTRY:
                    continue
                if from_start and way_out is not None and n not in way_out:
                    continue
                if from_start and start_in_zoc and n in zoc:
                    continue
                cost = spent + (step if step >= 0 else self._half_step(here, n))
                if cost > limit:
                    continue
                known = best.get(n)
                if known is None or cost < known[0]:
                    best[n] = (cost, path + (n,))
                    heapq.heappush(frontier, (cost, n.row, n.col, n))
        return {h: p for h, (_, p) in best.items() if h != start and self.stack_ok(uid, h)}

    # -- throws (7) -------------------------------------------------------------------------------------
    def throw_problem(self, throwers: list[str], target: Hex) -> Message | None:
        """7a, 7d, 7e, 7f: a straight hex line, within range counting the target hex, over
        hexes that let a throw pass, at a target that may be thrown at."""
        origin = self.hex(throwers[0])
        assert origin is not None
        side = self.side(throwers[0])
        rng = min(self.type(u).throw_range for u in throwers)
        if rng == 0:
            return msg("err-no-throw", unit=self.label(throwers[0]))
        d = distance(origin, target)
        if d == 0 or d > rng:
            return msg("err-throw-range", range=rng, hex=target.label, distance=d)
        direction = axis_direction(origin, target)
        if direction is None:
            return msg("err-throw-line", hex=target.label, origin=origin.label)
        h = origin
        for _ in range(d - 1):
            nxt = h.step(direction)
            if city().wall_between(h, nxt):
                return msg("err-throw-blocked", hex=nxt.label, what=msg("terrain-muro"))
            h = nxt
            terrain = self.terrain(h)
            key = terrain.replace("_", "-")
            if not TABLES.hex(key).throw_through:
                return msg("err-throw-blocked", hex=h.label, what=msg(f"terrain-{terrain}"))
            if h.label in self.barricades or h.label in self.jams:
                return msg("err-throw-blocked", hex=h.label, what=msg("piece-barricade"))
        if city().wall_between(h, target):
            return msg("err-throw-blocked", hex=target.label, what=msg("terrain-muro"))
        enemies = self.at(target, other(side))
        if not enemies:
            return msg("err-throw-nobody", hex=target.label)
        no_at = TABLES.hex(self.terrain(target).replace("_", "-")).no_throw_at
        if no_at == other(side):
            return msg("err-throw-shelter", hex=target.label, terrain=msg(f"terrain-{self.terrain(target)}"))
        return None

    # -- the Corteo and its Head (10) ---------------------------------------------------------------------
    def aggregates(self) -> list[set[str]]:
        """Groups of corteo units joined by adjacency (directly or through others), largest first.
        Found again only when a unit has changed: the sets are shared, not to be changed."""
        if self._aggregates[0] != self.version:
            self._aggregates = (self.version, self._find_aggregates())
        return list(self._aggregates[1])

    def _find_aggregates(self) -> list[set[str]]:
        units = [u for u in self.map_units(CORTEO)]
        by_hex: dict[Hex, list[str]] = {}
        for u in units:
            h = self.hex(u)
            assert h is not None
            by_hex.setdefault(h, []).append(u)
        seen: set[Hex] = set()
        groups: list[set[str]] = []
        for h in sorted(by_hex):
            if h in seen:
                continue
            group: set[str] = set()
            todo = [h]
            seen.add(h)
            while todo:
                x = todo.pop()
                group.update(by_hex[x])
                for n in open_neighbours(x):
                    if n in by_hex and n not in seen:
                        seen.add(n)
                        todo.append(n)
            groups.append(group)
        groups.sort(key=lambda g: (-len(g), min(g)))
        return groups

    def corteo(self) -> set[str]:
        """The Corteo (10, 10a): the largest group holding a declared Head unit; its Heads are the
        declared ones inside it. Empty when no Head is on the map."""
        heads = [h for h in self.state.heads if self.on_map(h)]
        for group in self.aggregates():
            if any(h in group for h in heads):
                return group
        return set()

    def head_units(self) -> list[str]:
        group = self.corteo()
        return [h for h in self.state.heads if h in group]

    def head_bonus(self, uid: str) -> int:
        """10a: +2 for every other unit of the Corteo (busy elsewhere or not)."""
        group = self.corteo()
        if uid not in self.head_units():
            return 0
        return TABLES.rules.head_bonus_per_unit * (len(group) - 1)

    # -- texts ---------------------------------------------------------------------------------------
    def label(self, uid: str) -> str:
        t = self.type(uid)
        return f"{uid} ({t.label})"

    # -- the result ---------------------------------------------------------------------------------
    def log(self, phase: str) -> PhaseLog:
        return PhaseLog(self.state.hand, phase, tuple(self.steps), tuple(self.throws), tuple(self.fights),
                        tuple(self.notes))

    def frozen(self, phase: str, keep_log: bool, **changes: object) -> State:
        log = (self.state.log if keep_log else ()) + (self.log(phase),)
        new = replace(self.state, units=tuple(self.units[u] for u in self.units),
                      barricades=tuple(Barricade(h, n) for h, n in sorted(self.barricades.items())),
                      barricades_left=self.barricades_left, jams=tuple(sorted(self.jams)),
                      smoke=tuple(Smoke(h, u) for h, u in sorted(self.smoke.items())),
                      covered=tuple(sorted(self.covered)), points=self.points, log=log[-12:],
                      mobiles=tuple(self.mobiles[m] for m in self.mobiles), tally=tuple(self.tally),
                      facts=tuple(sorted(self.facts)))
        return replace(new, **changes)  # type: ignore[arg-type]


__all__ = ["Board", "city", "hexof", "other", "PRISON", "RESERVE"]
