"""The maps of Block Mania in a row closed into a ring (1.ii, "Movimento fra le mappe"): the geometry
across the joins, lines of fire and ranges (8.iv), and the rides along transit levels (6.vi-6.viii).

The half square at the right edge of one map and the half square at the left edge of the next make one
square, and leaving the last map to the right brings you in at the left of the first. A square of the
ring is a ``Loc`` (``curie:D6``); the square shared by two maps is named from the map on its right
(column A). A ring is made by ``Blocks.ring`` and shared by every Board of the same blocks.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Collection, Final, TypeVar

from pbem.games.blockmania.squares import (
    COLUMN_LETTERS, DIRECTIONS, Block, Lift, Loc, Route, Square, parse_label,
)

if TYPE_CHECKING:
    from pbem.games.blockmania.blocks import Blocks

_LOC = re.compile(r"([a-z0-9_-]+):([A-Z][0-9]{1,2})")

_T = TypeVar("_T")


def _memo(method: Callable[..., _T]) -> Callable[..., _T]:
    """Remember a Ring method's answers: the geometry never changes, and movement asks the same questions
    thousands of times a turn (a ring is shared by every Board of the same blocks, ``Blocks.ring``)."""
    name = method.__name__

    def cached(self: Ring, *args: Any) -> _T:
        table = self._memo.setdefault(name, {})
        try:
            return table[args]  # type: ignore[no-any-return]
        except KeyError:
            table[args] = value = method(self, *args)
            return value

    cached.__name__, cached.__doc__ = name, method.__doc__
    return cached


class Ring:
    """The maps in a row, closed into a ring (1.ii): geometry across the joins."""

    def __init__(self, data: Blocks, blocks: tuple[Block, ...]) -> None:
        self.data = data
        self.blocks = blocks
        self.levels = data.levels
        self._index = {b.id: i for i, b in enumerate(blocks)}
        offsets, x = [], 0
        for b in blocks:
            offsets.append(x)
            x += b.width - 1  # the last column is the next map's first
        self._offsets = tuple(offsets)
        self.width = x  # columns around the ring
        self._memo: dict[str, dict[tuple[Any, ...], Any]] = {}

    # -- names and coordinates

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.blocks)

    def _block_at_x(self, x: int) -> tuple[int, int]:
        x %= self.width
        for i in range(len(self.blocks) - 1, -1, -1):
            if x >= self._offsets[i]:
                return i, x - self._offsets[i]
        raise AssertionError("unreachable")

    def x_of(self, loc: Loc) -> int:
        return (self._offsets[self._index[loc.block]] + loc.column) % self.width

    def at(self, x: int, level: int) -> Loc | None:
        """The square at ring column ``x`` (any integer: it wraps) and ``level``; None above or below the maps."""
        if not 1 <= level <= self.levels:
            return None
        i, col = self._block_at_x(x)
        return Loc(self.blocks[i].id, col, level)

    @_memo
    def loc(self, block: str, label: str | None = None) -> Loc:
        """The square ``label`` of ``block`` (or ``"block:label"``), named canonically."""
        if label is None:
            m = _LOC.fullmatch(block.strip())
            if m is None:
                raise KeyError(f"not a square name like 'curie:D6': {block!r}")
            block, label = m.group(1), m.group(2)
        if block not in self._index:
            raise KeyError(f"block {block!r} is not in this ring")
        pos = parse_label(label)
        b = self.blocks[self._index[block]]
        if pos is None or not b.on_map(*pos):
            raise KeyError(f"{block}: no square {label!r}")
        col, level = pos
        found = self.at(self._offsets[self._index[block]] + col, level)
        assert found is not None
        return found

    @_memo
    def square(self, loc: Loc) -> Square:
        return self.data.block(loc.block).at(loc.column, loc.level)

    @_memo
    def maps_of(self, loc: Loc) -> tuple[str, ...]:
        """The blocks whose map shows ``loc``: one, or two for a joined half square (1.ii)."""
        if loc.column == 0:
            i = self._index[loc.block]
            left = self.blocks[(i - 1) % len(self.blocks)].id
            return (loc.block,) if left == loc.block else (left, loc.block)
        return (loc.block,)

    def adjacent_blocks(self, block: str) -> tuple[str, str]:
        """(left, right) neighbours of ``block`` in the ring (the same block twice in a ring of two)."""
        i = self._index[block]
        n = len(self.blocks)
        return self.blocks[(i - 1) % n].id, self.blocks[(i + 1) % n].id

    def block_squares(self, block: str) -> tuple[Loc, ...]:
        """Every square of ``block``'s map, shared half squares included."""
        b = self.data.block(block)
        return tuple(self.loc(block, s.label) for s in b.squares)

    # -- neighbours

    @_memo
    def step(self, loc: Loc, direction: str) -> Loc | None:
        """The neighbour of ``loc`` in one of ``DIRECTIONS`` (None above the top or below the ground)."""
        dx, dy = DIRECTIONS[direction]
        return self.at(self.x_of(loc) + dx, loc.level + dy)

    def above(self, loc: Loc) -> Loc | None:
        return self.step(loc, "up")

    def below(self, loc: Loc) -> Loc | None:
        return self.step(loc, "down")

    @_memo
    def neighbours(self, loc: Loc) -> tuple[Loc, ...]:
        """Orthogonal neighbours (6.i: no diagonal moves; 6.x hand-over; 8.vi charge): left, right, up, down."""
        return tuple(n for n in (self.step(loc, d) for d in ("left", "right", "up", "down")) if n is not None)

    @_memo
    def neighbours8(self, loc: Loc) -> tuple[Loc, ...]:
        """The eight neighbours, diagonals included (8.x fire-fighting "anche in diagonale")."""
        return tuple(n for n in (self.step(loc, d) for d in DIRECTIONS) if n is not None)

    def defensive_fire_adjacent(self, a: Loc, b: Loc) -> bool:
        """7.i: one square away orthogonally; diagonally only Open Air to Open Air or Open Air to Window."""
        if b in self.neighbours(a):
            return True
        if b not in self.neighbours8(a):
            return False
        ta, tb = self.square(a).type, self.square(b).type
        return (ta, tb) in {("open", "open"), ("open", "window"), ("window", "open")}

    # -- lifts, grav-chutes

    @_memo
    def lift(self, loc: Loc) -> Lift | None:
        """The lift shaft ``loc`` lies on (6.iii)."""
        for block in self.maps_of(loc):
            found = self.data.block(block).lift_at(self._label_in(loc, block))
            if found is not None:
                return found
        return None

    @_memo
    def lift_stops(self, loc: Loc) -> tuple[Loc, ...]:
        """The other squares of ``loc``'s lift, bottom to top: each is one MP away (6.iii)."""
        lift = self.lift(loc)
        if lift is None:
            return ()
        shaft = tuple(self.loc(lift.block, label) for label in lift.labels)
        return tuple(s for s in shaft if s != loc)

    @_memo
    def lift_shaft(self, loc: Loc) -> tuple[Loc, ...]:
        """Every square of ``loc``'s lift: a collapse in any of them blocks the lift (9.iv)."""
        lift = self.lift(loc)
        return tuple(self.loc(lift.block, label) for label in lift.labels) if lift else ()

    def lift_route(self, start: Loc, end: Loc) -> tuple[Loc, ...]:
        """The squares a lift ride passes, the arrival included (6.iii: enemies there may stop it)."""
        if end not in self.lift_stops(start):
            raise ValueError(f"{start} and {end} are not on one lift")
        step = 1 if end.level > start.level else -1
        out = []
        for level in range(start.level + step, end.level + step, step):
            found = self.at(self.x_of(start), level)
            assert found is not None
            out.append(found)
        return tuple(out)

    def chute_target(self, loc: Loc) -> Loc | None:
        """Where a grav-chute at ``loc`` drops a Blocker: the ground square straight below (6.iv)."""
        chute = self.data.block(loc.block).chute_at(loc.label)
        return self.loc(chute.block, chute.landing) if chute else None

    def chute_path(self, loc: Loc) -> tuple[Loc, ...]:
        """The squares below a grav-chute down to the ground, landing included: a collapse in any of
        them kills whoever uses it (6.iv, 9.iv)."""
        target = self.chute_target(loc)
        if target is None:
            return ()
        out = []
        for level in range(loc.level - 1, target.level - 1, -1):
            found = self.at(self.x_of(loc), level)
            assert found is not None
            out.append(found)
        return tuple(out)

    # -- transit: Sky Rail, Mega Way, Pedway

    def stations(self) -> tuple[Loc, ...]:
        """The Sky Rail stations, one per block, left to right (6.vi)."""
        return self._of_kind("SS")

    def vehicle_parks(self) -> tuple[Loc, ...]:
        """The Vehicle Parks, the only ways on and off the Mega Way (6.viii)."""
        return self._of_kind("VP")

    def termini(self) -> tuple[Loc, ...]:
        """The Pedway Termini at the pedway level, two per block (6.vii)."""
        return self._of_kind("PT")

    def _of_kind(self, code: str) -> tuple[Loc, ...]:
        return tuple(self.loc(b.id, s.label) for b in self.blocks for s in b.of_kind(code))

    def _ride(self, start: Loc, end: Loc, direction: int, critical: frozenset[str]) -> Route:
        x0, x1 = self.x_of(start), self.x_of(end)
        steps = ((x1 - x0) * direction) % self.width or self.width
        passed = []
        for k in range(1, steps + 1):
            found = self.at(x0 + k * direction, start.level)
            assert found is not None
            passed.append(found)
        crit = tuple(s for s in passed if self.square(s).kind.code in critical)
        return Route(start, end, direction, tuple(passed), crit)

    def skyrail_routes(self, start: Loc, end: Loc) -> tuple[Route, Route]:
        """Both ways round the ring from station to station (6.vi): the ride is blocked by a collapsed
        Sky Rail, Tubeway or station square on it (``critical``); other squares do not matter."""
        for s in (start, end):
            if self.square(s).kind.code != "SS":
                raise ValueError(f"{s} is not a Sky Rail station")
        if start == end:
            raise ValueError("a ride needs two different stations")
        crit = frozenset({"SR", "TW", "SS"})
        return self._ride(start, end, 1, crit), self._ride(start, end, -1, crit)

    def megaway_routes(self, start: Loc, end: Loc) -> tuple[Route, Route]:
        """Both ways round the ring from Vehicle Park to Vehicle Park (6.viii): blocked by a collapsed
        Mega Way, Tunnel or Vehicle Park square on it (``critical``)."""
        for s in (start, end):
            if self.square(s).kind.code != "VP":
                raise ValueError(f"{s} is not a Vehicle Park")
        if start == end:
            raise ValueError("a ride needs two different Vehicle Parks")
        crit = frozenset({"MW", "TN", "VP"})
        return self._ride(start, end, 1, crit), self._ride(start, end, -1, crit)

    def pedway(self, terminus: Loc) -> Route:
        """The pedway from ``terminus`` to the terminus facing it across the gap (6.vii): from a map's
        right terminus to the next map's left one, and back. ``squares`` are the Pedway squares and
        the far terminus, walkable one by one when the pedway is stopped (9.vi)."""
        if self.square(terminus).kind.code != "PT":
            raise ValueError(f"{terminus} is not a Pedway Terminus")
        x = self.x_of(terminus)
        for direction in (1, -1):
            nxt = self.at(x + direction, terminus.level)
            assert nxt is not None
            if self.square(nxt).kind.code != "PW":
                continue
            k = 1
            passed: list[Loc] = []
            while True:
                here = self.at(x + k * direction, terminus.level)
                assert here is not None
                passed.append(here)
                code = self.square(here).kind.code
                if code == "PT":
                    return Route(terminus, here, direction, tuple(passed), tuple(passed))
                if code != "PW" or k > self.width:
                    break
                k += 1
        raise ValueError(f"{terminus}: no pedway leads out of it")

    # -- flying (6.ix)

    def flight_targets(self, loc: Loc) -> tuple[Loc, ...]:
        """Where a flier at ``loc`` may fly to (6.ix): any Open Air, Balcony or Tween Block Plaza square
        of its map or an adjacent one, and the station (through a Tubeway) or the Vehicle Park (through
        a Tunnel) of an adjacent block. Collapses are the engine's to check (``flight_gate``)."""
        maps = set(self.maps_of(loc))
        for m in list(maps):
            maps.update(self.adjacent_blocks(m))
        out: set[Loc] = set()
        for m in maps:
            for s in self.block_squares(m):
                if self.square(s).kind.land:
                    out.add(s)
        for m in self._adjacent_of(loc):
            for code in ("SS", "VP"):
                out.update(self.loc(m, s.label) for s in self.data.block(m).of_kind(code))
        out.discard(loc)
        return tuple(sorted(out, key=lambda s: (self.x_of(s), s.level)))

    def flight_gate(self, target: Loc) -> tuple[Loc, ...]:
        """For a station or Vehicle Park reached by air, the Tubeway or Tunnel squares of its block:
        one of them must stand uncollapsed (6.ix)."""
        code = {"SS": "TW", "VP": "TN"}.get(self.square(target).kind.code)
        if code is None:
            return ()
        return tuple(self.loc(target.block, s.label) for s in self.data.block(target.block).of_kind(code))

    def _adjacent_of(self, loc: Loc) -> set[str]:
        out: set[str] = set()
        for m in self.maps_of(loc):
            out.update(self.adjacent_blocks(m))
        return out

    # -- shooting (8.iii, 8.iv)

    def fire_range(self, shooter: Loc, target: Loc, fallen: Collection[str] = (),
                   also_open: Collection[Loc] = (), max_range: int | None = None) -> int | None:
        """The range of the shortest line of fire from ``shooter`` to ``target``, or None (8.iii, 8.iv).

        A line runs from any point of the shooter's square to any point of the target's, to or
        through Open Air squares, to but not through Window and Interior squares; to an Interior
        square only along a level or a column. The squares of ``fallen`` blocks (10.iii: a block that
        fell counts as Open Air for lines of fire) and ``also_open`` squares count as Open Air.
        The range counts the target's square, not the shooter's, diagonally through Open Air (8.iii):
        the larger of the column and level differences. The ring is searched both ways round
        (1.ii: "anche quando si spara da una parte all'altra"). Lines longer than ``max_range`` (the
        weapon's range) are not searched.
        """
        if shooter == target:
            return 0
        fallen_set, opened = frozenset(fallen), frozenset(also_open)

        def blocks_fire(x: int, level: int) -> bool:
            loc = self.at(x, level)
            assert loc is not None
            if loc in opened or loc.block in fallen_set:
                return False
            return not self.square(loc).is_open

        x0, x1 = self.x_of(shooter), self.x_of(target)
        dy = target.level - shooter.level
        dx_right = (x1 - x0) % self.width
        candidates = sorted({dx_right, dx_right - self.width} if dx_right else {0}, key=abs)
        interior = self.square(target).is_interior and target.block not in fallen_set and target not in opened
        best: int | None = None
        for dx in candidates:
            if interior and dx != 0 and dy != 0:
                continue
            rng = max(abs(dx), abs(dy))
            if (best is not None and rng >= best) or (max_range is not None and rng > max_range):
                continue
            if interior:
                clear = all(not blocks_fire(x0 + k * _sign(dx), shooter.level + k * _sign(dy))
                            for k in range(1, rng))
            else:
                clear = _clear_line(x0, shooter.level, dx, dy, blocks_fire)
            if clear:
                best = rng
        return best

    # -- collapse and fire (9.iii, 10.i)

    def collapse_targets(self, loc: Loc) -> tuple[Loc, ...]:
        """Where a collapse at ``loc`` puts Structural Damage, in order: the square above, then the one
        above to the right, then above to the left, Open Air squares excepted (9.iii). Whether they
        have already collapsed is the engine's to check."""
        out = []
        for d in ("up", "up-right", "up-left"):
            n = self.step(loc, d)
            if n is not None and not self.square(n).is_open:
                out.append(n)
        return tuple(out)

    def fire_spread_target(self, loc: Loc, roll: int) -> Loc | None:
        """The neighbour a fourth Fire spreads to on the 2d6 ``roll`` (10.i diagram, as read in
        ``[fire_spread]``); None off the map. The engine drops it on Open Air, a collapsed square or
        one with three Fires."""
        direction = self.data.fire_spread.get(roll)
        if direction is None:
            raise ValueError(f"not a 2d6 roll: {roll}")
        return self.step(loc, direction)

    def distance(self, a: Loc, b: Loc) -> int:
        """Squares from ``a`` to ``b`` counting diagonals, the short way round the ring."""
        dx = (self.x_of(b) - self.x_of(a)) % self.width
        return max(min(dx, self.width - dx), abs(b.level - a.level))

    def _label_in(self, loc: Loc, block: str) -> str:
        """The label of ``loc`` on ``block``'s map (the left map names a shared half square by its last column)."""
        if block == loc.block:
            return loc.label
        b = self.data.block(block)
        return f"{COLUMN_LETTERS[b.width - 1]}{loc.level}"


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


#: Points of a square a line of fire may start or end at, in eighths of a square: near each corner
#: and the centre ("da un qualsiasi punto dello Square ... a qualsiasi punto", 8.iv).
_POINTS: Final = ((4, 4), (1, 1), (7, 1), (1, 7), (7, 7))


def _clear_line(x0: int, level0: int, dx: int, dy: int, blocks_fire: Callable[[int, int], bool]) -> bool:
    """Whether some segment from a point of square (x0, level0) to a point of (x0+dx, level0+dy)
    enters no blocking square (other than the two ends). Squares are unit boxes; a segment touching
    only a side or a corner of a square does not enter it. Integer arithmetic, in eighths."""
    lo_x, hi_x = min(0, dx), max(0, dx)
    lo_y, hi_y = min(0, dy), max(0, dy)
    blockers = [(8 * cx, 8 * cy) for cx in range(lo_x, hi_x + 1) for cy in range(lo_y, hi_y + 1)
                if (cx, cy) not in ((0, 0), (dx, dy)) and blocks_fire(x0 + cx, level0 + cy)]
    if not blockers:
        return True
    for px, py in _POINTS:
        for qx, qy in _POINTS:
            q = (8 * dx + qx, 8 * dy + qy)
            if not any(_enters((px, py), q, bx, by) for bx, by in blockers):
                return True
    return False


def _enters(p: tuple[int, int], q: tuple[int, int], bx: int, by: int) -> bool:
    """Whether the segment p-q meets the open box (bx, bx+8) x (by, by+8) (coordinates in eighths)."""
    if max(p[0], q[0]) <= bx or min(p[0], q[0]) >= bx + 8 or max(p[1], q[1]) <= by or min(p[1], q[1]) >= by + 8:
        return False
    # t in [0, 1] as fractions n/d (d > 0); keep the largest lower and the smallest upper bound
    lo_n, lo_d, hi_n, hi_d = 0, 1, 1, 1
    for a, b, c in ((p[0], q[0], bx), (p[1], q[1], by)):
        d = b - a
        if d == 0:
            if not c < a < c + 8:
                return False
            continue
        n1, n2 = c - a, c + 8 - a
        if d < 0:
            n1, n2, d = a - c - 8, a - c, -d
        if n1 * lo_d > lo_n * d:
            lo_n, lo_d = n1, d
        if n2 * hi_d < hi_n * d:
            hi_n, hi_d = n2, d
    return lo_n * hi_d < hi_n * lo_d
