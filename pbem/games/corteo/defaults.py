"""What a sheet leaves out and the rules demand, filled in the documented way (docs/games/corteo.md):
set-up placements, the Head, units due back or due to leave an objective, reinforcements, and the
combats every unit in contact must fight (8a)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from pbem.games.corteo import combat, plan_scenario
from pbem.games.corteo.board import city, open_neighbours
from pbem.games.corteo.city import Hex, distance
from pbem.games.corteo.orders import HeadComponent, Heads, Move
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import CORTEO, POTERE, RESERVE, off_parts

if TYPE_CHECKING:
    from pbem.games.corteo.plan import Planner

#: The power's choice of reinforcements by default: strongest first, then fastest (6c).
REINFORCEMENT_ORDER = ("lacrimogeni", "carabinieri", "blindati", "celere", "piantoni", "vigili")


def complete(p: "Planner") -> None:
    stage = p.stage
    if stage == "setup":
        (_setup_corteo if p.seat == CORTEO else _setup_potere)(p)
        plan_scenario.default_setup(p)
    elif stage == "corteo-movement":
        _corteo_movement(p)
    elif stage == "potere-movement":
        _reinforcements(p)
    elif stage.endswith("-combat"):
        _combats(p)


def _free_hexes(p: "Planner", uid: str, hexes: tuple[Hex, ...] | list[Hex]) -> list[Hex]:
    return [h for h in hexes if p.check_place(uid, h) is None]


def _setup_corteo(p: "Planner") -> None:
    """3a: the 33 units on Piazza Mento, two per hex, the strongest toward its exits (east and south
    hexes first); the Head: MOV if not chosen."""
    b = p.board
    sc = plan_scenario.of(p)
    if sc is not None and sc.numbers.get("deploy"):
        plan_scenario.default_deploy(p, sc)  # D Sociale: the split deployment
    start = _start_order()
    for uid in [u for u, x in b.units.items() if x.loc == RESERVE and b.side(u) == CORTEO
                and b.counter(u).set in ("base", "asterisco")]:
        if uid in p.placed or (sc is not None and sc.numbers.get("deploy")):
            continue
        free = _free_hexes(p, uid, start)
        if free:
            p.do_place(uid, free[0])
    if p.component is None:
        p.component = sc.heads[0] if sc is not None else "MOV"
        p.orders.append(HeadComponent(p.component))


@cache
def _start_order() -> tuple[Hex, ...]:
    """Piazza Mento's hexes in the order ``_setup_corteo`` fills them (east and south first), as the City's
    own Hex objects (``plan.start_hexes``)."""
    from pbem.games.corteo.plan import start_hexes

    return tuple(sorted(start_hexes(), key=lambda h: (-(h.col + h.row), h)))


def _setup_potere(p: "Planner") -> None:
    """3a: 10 piantoni on the most valuable objectives, 5 vigili at the Gates of Viale Billikid and
    near Piazza Mento's viali, 10 celere and 5 carabinieri in barracks 1, 2, 3 first, two a hex."""
    b = p.board
    objectives, gates, near_start, barracks = (list(x) for x in _potere_places())
    wanted = {"piantoni": objectives, "vigili": gates + near_start + list(city().hexes),
              "celere": barracks, "carabinieri": barracks}
    sc = plan_scenario.of(p)
    if sc is not None:
        # D: the scenario's order of service, row by row, on the places each row names.
        where = {"objective": objectives, "vigili": gates + near_start + list(city().hexes), "caserma": barracks,
                 "square": list(city().place_hexes(sc.square)) if sc.square else [], "near": barracks + list(_around_barracks())}
        for row in sc.setup:
            done = 0
            for uid in [u for u in b.ids(POTERE) if b.type(u).kind == row.kind and b.loc(u) == RESERVE
                        and u not in p.placed]:
                if done >= row.count:
                    break
                free = [h for h in where[row.where] if plan_scenario.setup_row(p, sc, uid, h) == row
                        and p.check_place(uid, h) is None]
                if free:
                    p.do_place(uid, free[0])
                    done += 1
        return
    for kind, places in wanted.items():
        units = [u for u in b.ids(POTERE) if b.type(u).kind == kind and b.loc(u) == RESERVE and u not in p.placed]
        for uid in units:
            if p.placed_kinds.get(kind, 0) >= NUMBERS.setup[kind]:
                break
            free = _free_hexes(p, uid, places)
            if free:
                p.do_place(uid, free[0])


@cache
def _potere_places() -> tuple[tuple[Hex, ...], ...]:
    """The power's set-up places by default, best first (the City's, computed once): the objectives
    by value, the gates' hexes, the hexes around Piazza Mento, the barracks by number."""
    objectives = sorted(city().objective_hexes, key=lambda h: (-(city().objective_at(h).value  # type: ignore[union-attr]
                                                                 if city().objective_at(h) else 0), h))
    gates = [h for g in city().gates for h in g.side.hexes]
    start = city().place_hexes(city().start)
    near_start = sorted({n for h in start for n in open_neighbours(h) if n not in start},
                        key=lambda h: (h.row + h.col, h))
    barracks = [h for c in sorted(city().caserme, key=lambda c: c.number) for h in c.hexes]
    return tuple(objectives), tuple(gates), tuple(near_start), tuple(barracks)


@cache
def _around_barracks() -> tuple[Hex, ...]:
    """``_around`` the barracks (the City's, computed once)."""
    return tuple(_around(list(_potere_places()[3])))


def _around(hexes: list[Hex]) -> list[Hex]:
    """Hexes by their distance from ``hexes`` (D Sociale: the power's set-up "near" barracks first)."""
    return sorted((h for h in city().hexes if h not in hexes), key=lambda h: (min(distance(h, x) for x in hexes), h))


def _corteo_movement(p: "Planner") -> None:
    b = p.board
    # 8h: units due back come in, by default on the first free hex of their edge part.
    for uid in b.ids(CORTEO):
        parts = off_parts(b.loc(uid))
        if parts and parts[2] <= p.state.hand and uid not in p.finished:
            edge, part, _ = parts
            for h in city().edge_hexes(edge, part if edge in ("N", "S") else None):
                if p.check_enter(uid, h) is None:
                    b.set_loc(uid, h.label, "enter")
                    from pbem.games.corteo.orders import Enter

                    p.orders.append(Enter(uid, h.label))
                    break
    # 12a: a unit on an objective held at the end of the last hand must leave it.
    for label in p.state.held:
        for uid in b.at(label, CORTEO):
            if uid in p.finished or uid == p.current or not b.active(uid):
                continue
            reach = b.reachable(uid, p.left(uid))
            here = b.hex(uid)
            assert here is not None
            near = sorted((h for h in reach if len(reach[h]) == 1), key=lambda h: (distance(h, here), h))
            if near:
                path = reach[near[0]]
                b.set_loc(uid, path[-1].label, "move", (here.label, *(h.label for h in path)))
                p.orders.append(Move(uid, tuple(h.label for h in path)))
    # D Sociale: the weak units going home walk toward the nearest edge and leave it.
    plan_scenario.default_home(p)
    plan_scenario.go_home(p)
    # 10: the Head of this hand; by default the last one, else the two Head units with most units joined.
    if p.heads is None:
        comp = p.state.head_component
        kept = [u for u in p.state.heads if b.active(u)]
        if len(kept) == NUMBERS.heads:
            p.heads = tuple(kept)
        else:
            groups = b.aggregates()
            candidates = [u for g in groups for u in sorted(g) if b.counter(u).component == comp and b.active(u)]
            p.heads = tuple(candidates[:NUMBERS.heads])
        if p.heads:
            p.orders.append(Heads(p.heads))


def _reinforcements(p: "Planner") -> None:
    from pbem.games.corteo.plan import reinforcement_due

    b = p.board
    due = reinforcement_due(p.state)
    if due is None:
        return
    corteo = [b.hex(u) for u in b.map_units(CORTEO)]
    centre = [h for h in corteo if h is not None]
    barracks = sorted(city().caserma_hexes, key=lambda h: (min((distance(h, c) for c in centre), default=0), h))
    for kind in REINFORCEMENT_ORDER:
        for uid in [u for u in b.ids(POTERE) if b.type(u).kind == kind and b.loc(u) == RESERVE]:
            if uid in p.placed:
                continue
            if isinstance(due, int) and p.reinforced + b.type(uid).power > due:
                break
            if not isinstance(due, int) and p.placed_kinds.get(kind, 0) >= due.get(kind, 0):
                break
            free = _free_hexes(p, uid, barracks)
            if free:
                p.do_place(uid, free[0])


def _combats(p: "Planner") -> None:
    """8a: every enemy unit in the ZOC of a unit of the side in turn fights, and every unit with an
    enemy in its ZOC: each enemy group is attacked by the free groups that reach it; a group that
    reaches only enemies already attacked joins the one-against-many combat of its neighbour."""
    b = p.board
    mine = [u for u in b.map_units(p.seat) if b.active(u)]
    theirs = [u for u in b.map_units(combat.other(p.seat)) if b.active(u)]
    free_mine = [g for g in _groups(b, mine) if not set(g) & p.engaged]
    free_theirs = [g for g in _groups(b, theirs) if not set(g) & p.engaged]
    used: set[str] = set()
    mine_sets = [set(g) for g in free_mine]
    theirs_sets = [set(g) for g in free_theirs]
    foes_of: list[set[int]] = []  # my group -> their groups it can fight
    reachers: list[list[int]] = []  # their group -> my groups that can fight it, in order
    seen = [-1]

    def fights() -> tuple[list[set[int]], list[list[int]]]:
        """Who can fight whom (``combat.can_fight``): a group of theirs with a hex it may fight in
        within the reach of a group of mine; computed again when a unit changes (a combat played
        with the dice moves units)."""
        if b.version != seen[0]:
            owners: dict[Hex, list[int]] = {}
            for j, g in enumerate(free_theirs):
                for d in combat.targets_of(b, g):
                    owners.setdefault(d, []).append(j)
            foes_of[:] = [{j for d in combat.reach_of(b, g) for j in owners.get(d, ())} for g in free_mine]
            reachers[:] = [[i for i, found in enumerate(foes_of) if j in found] for j in range(len(free_theirs))]
            seen[0] = b.version
        return foes_of, reachers

    for j, dg in enumerate(free_theirs):
        attackers = [i for i in fights()[1][j] if not mine_sets[i] & used]
        if not attackers:
            continue
        # A group that could fight only this enemy goes here; one with other choices stays free
        # unless nobody else reaches this enemy.
        only = [i for i in attackers if not any(k != j and not theirs_sets[k] & p.engaged for k in fights()[0][i])]
        chosen = only or attackers[:1]
        units = [u for i in chosen for u in free_mine[i]]
        used.update(units)
        p.do_attack(units, list(dg), False)
    for i, g in enumerate(free_mine):
        if mine_sets[i] & used or mine_sets[i] & p.engaged:
            continue
        targets = [dg for j, dg in enumerate(free_theirs) if j in fights()[0][i] and not theirs_sets[j] & p.engaged]
        if targets:
            defenders = [u for dg in targets for u in dg]
            p.do_attack(list(g), defenders, False)
            used.update(g)


def _groups(b: object, units: list[str]) -> list[list[str]]:
    from pbem.games.corteo.plan import _groups as groups

    return groups(b, units)  # type: ignore[arg-type]
