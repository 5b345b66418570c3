"""The Board's indexes (who stands where, kept up to date move by move) and the City's lookup tables
give what a scan of the units and of the City's data gives, on positions of random playouts."""

from __future__ import annotations

import hashlib
import heapq
from fractions import Fraction

import pytest

from pbem.core.dice import ScriptedDice
from pbem.games.corteo import RULES
from pbem.games.corteo.board import Board, _zone, city, hexof, open_neighbours
from pbem.games.corteo.city import Hex
from pbem.games.corteo.plan import Planner
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import CORTEO, POTERE
from pbem.games.corteo.orders import parse_text


def _pick(seed: int):  # type: ignore[no-untyped-def]
    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        return int.from_bytes(hashlib.sha256(f"index:{seed}:{counter[0]}".encode()).digest()[:8], "big") % n

    return pick


def _scan_at(board: Board, label: str, side: str | None) -> list[str]:
    return [u for u, x in board.units.items() if not x.waiting and x.loc == label
            and (side is None or board.side(u) == side)]


def _scan_present(board: Board, label: str, side: str) -> list[str]:
    return [u for u, x in board.units.items() if x.loc == label and board.side(u) == side]


def _check_board(board: Board) -> None:
    labels = {x.loc for x in board.units.values()} | {"A1", "K12"}
    for label in labels:
        for side in (None, CORTEO, POTERE):
            assert board.at(label, side) == _scan_at(board, label, side)
        h = hexof(label)
        if h is not None:
            for side in (CORTEO, POTERE):
                assert board.present(h, side) == _scan_present(board, label, side)


def _check_zones(board: Board) -> None:
    """The zones of control kept unit by unit equal those of a board made afresh from the position."""
    fresh = Board(board.frozen("check", True))
    assert board.aggregates() == fresh.aggregates() == fresh._find_aggregates()
    assert [sorted(g) for g in board.aggregates()] == [sorted(g) for g in board._find_aggregates()]
    for uid in board.units:
        assert board.zoc(uid) == fresh.zoc(uid)
        h = board.hex(uid)
        if h is not None and not board.units[uid].panicked:  # the zone worked out on the board's terrain
            assert board.zoc(uid) == _zone(h, board.side(uid), board.terrain)
    for side in (CORTEO, POTERE):
        assert board.enemy_zoc(side) == fresh.enemy_zoc(side)


def _reach_by_fractions(board: Board, uid: str, budget: Fraction) -> dict[Hex, tuple[Hex, ...]]:
    """``Board.reachable`` as it was first written: costs as fractions, the frontier ordered by
    (cost, Hex), ``may_enter`` and ``stops`` asked for each hex."""
    start = board.hex(uid)
    if start is None:
        return {}
    side = board.side(uid)
    zoc = board.enemy_zoc(side)
    base = 0
    if start in zoc:
        if side == POTERE:
            return {}
        if board.state.mode == "advanced":
            base = 2 * NUMBERS.disengage_cost
    limit = int(budget * 2)
    caserma = next((c for c in city().caserme if start in c.hexes), None)
    best: dict[Hex, tuple[int, tuple[Hex, ...]]] = {start: (base, ())}
    frontier: list[tuple[int, Hex]] = [(base, start)]
    enterable: dict[Hex, bool] = {}
    while frontier:
        spent_now, here = heapq.heappop(frontier)
        spent, path = best[here]
        if spent_now > spent:
            continue
        if here != start and (here in zoc or board.stops(uid, here)):
            continue
        for n in city().open_neighbours(here):
            ok = enterable.get(n)
            if ok is None:
                ok = enterable[n] = board.may_enter(uid, n) is None
            if not ok:
                continue
            if here == start and caserma is not None and n not in caserma.exits and n not in caserma.hexes:
                continue
            if here == start and start in zoc and n in zoc:
                continue
            cost = spent + int(board.step_cost(here, n) * 2)
            if cost > limit:
                continue
            if n not in best or cost < best[n][0]:
                best[n] = (cost, path + (n,))
                heapq.heappush(frontier, (cost, n))
    return {h: p for h, (_, p) in best.items() if h != start and board.stack_ok(uid, h)}


def _check_reach(board: Board, budget: Fraction) -> None:
    """Reaches equal those of the first way of finding them, and those computed with the
    ``may_enter`` answers shared by the units of one kind (the ORDERS template shares them)."""
    shared: dict[tuple[str, str], dict[Hex, int]] = {}
    for uid in board.units:
        if board.on_map(uid):
            alone = board.reachable(uid, budget)
            assert list(alone.items()) == list(_reach_by_fractions(board, uid, budget).items())
            together = board.reachable(uid, budget, shared.setdefault((board.side(uid), board.type(uid).kind), {}))
            assert together == alone


def _playout(seed: int, options: dict[str, str], phases: int) -> int:
    """Plays ``phases`` phases; after each sheet is planned (and again with dice), the indexes of
    the planner's board are checked against a scan. Returns the number of boards checked."""
    pick = _pick(seed)
    state = RULES.new_game(RULES.info.seats, options)
    checked = 0
    for number in range(phases):
        phase = RULES.phase(state)
        if not phase.awaiting:
            break
        sheets = {}
        for seat in phase.awaiting:
            text = RULES.random_orders(state, seat, pick)
            items, _ = parse_text(text)
            planner = Planner(state, seat)
            _check_board(planner.board)  # built lazily, before any change
            planner.run(items)
            _check_board(planner.board)
            _check_zones(planner.board)
            if number % 3 == 1:
                _check_reach(planner.board, Fraction(4 + number % 2))
            checked += 1
            sheets[seat] = RULES.parse_orders(state, seat, text)
        rolls = [1 + pick(6) for _ in range(400)]
        state = RULES.resolve(state, sheets, ScriptedDice(rolls, number)).state
    return checked


@pytest.mark.parametrize("seed,options", [(0, {}), (1, {"national": "yes", "jams": "yes", "smoke": "yes"}),
                                          (2, {"scenario": "sociale"}), (3, {"scenario": "antifascista"})])
def test_board_indexes_equal_a_scan_of_the_units(seed: int, options: dict[str, str]) -> None:
    assert _playout(seed, options, 14) >= 10


def test_moves_keep_each_hex_in_the_units_order() -> None:
    state = RULES.new_game(RULES.info.seats, {})
    board = Board(state)
    ids = list(board.units)
    assert board.at("reserve") == _scan_at(board, "reserve", None) == ids  # builds the index
    board.present(city().hexes[0], CORTEO)
    from dataclasses import replace

    for uid in reversed(ids[:6]):  # placed in the reverse of their order: the index keeps theirs
        board.units[uid] = replace(board.units[uid], loc="K12")
    assert board.at("K12") == ids[:6] == _scan_at(board, "K12", None)
    board.units[ids[2]] = replace(board.units[ids[2]], waiting=True)
    assert board.at("K12") == _scan_at(board, "K12", None) and ids[2] not in board.at("K12")
    assert board.present(hexof("K12"), board.side(ids[2])) == _scan_present(board, "K12", board.side(ids[2]))
    board.units[ids[0]] = replace(board.units[ids[0]], loc="K13")
    assert board.at("K12") == _scan_at(board, "K12", None) and board.at("K13") == [ids[0]]


def test_city_lookups_equal_a_scan() -> None:
    c = city()
    for h in c.hexes:
        scanned = next((o for o in c.objectives if h in o.hexes), None)
        assert c.objective_at(h) is scanned
        assert (h in c.caserma_set) == (h in tuple(x for cs in c.caserme for x in cs.hexes))
        assert (h in c.metro_set) == (h in tuple(x for s in c.stations for x in s.hexes))


def test_a_covered_objective_drops_the_zones_at_the_next_move() -> None:
    """12a: a covered objective is a building, outside every zone of control (2); the zones cached
    before it was covered are computed again when a unit next changes, as every zone was before."""
    from dataclasses import replace

    state = RULES.new_game(RULES.info.seats, {})
    board = Board(state)
    goal = city().objective_hexes[0]
    near = next(n for n in city().open_neighbours(goal) if board.terrain(n) in ("strada", "viale"))
    mover, other_unit = [u for u in board.units if board.side(u) == CORTEO][:2]
    board.units[mover] = replace(board.units[mover], loc=near.label)
    assert goal in board.zoc(mover) and goal in board.enemy_zoc(POTERE)
    board.covered.add(goal.label)
    board.units[other_unit] = replace(board.units[other_unit], loc="prison")
    assert goal not in board.zoc(mover) and goal not in board.enemy_zoc(POTERE)
    _check_zones(board)


def test_hexes_hash_and_compare_as_their_fields() -> None:
    """Hex keeps its hash computed once: the dataclass's (of the fields' tuple), so sets and dicts
    of hexes keep their order."""
    for h in city().hexes[:200]:
        twin = Hex(h.row, h.col)
        assert hash(h) == hash((h.row, h.col)) == hash(twin) and h == twin and twin is not h
        assert h != Hex(h.row, h.col + 1) and h < Hex(h.row, h.col + 1) and (h == (h.row, h.col)) is False
    hexes = [Hex(r, c) for r in range(0, 26, 3) for c in range(0, 40, 7)]
    assert [(h.row, h.col) for h in set(hexes)] == list(set((h.row, h.col) for h in hexes))


def test_open_neighbours_are_mutual() -> None:
    """The zones near a covered objective are found from its own open neighbours (Board._near_covered)."""
    for h in city().hexes:
        for n in open_neighbours(h):
            assert h in open_neighbours(n)
