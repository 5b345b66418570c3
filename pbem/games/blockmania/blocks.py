"""The Blocks of Block Mania as cross-section maps, read from ``data/blocks.toml`` (rulebook 1.ii).

Each map is the vertical section of one Block, cut into levels (rows, level 1 = ground level, the
"livello terra" of 6.iv) and Squares (columns A, B, C, ... from the left edge). A Square is Open Air,
Window or Interior; a Window or Interior square is residential (blue, with an address 11-66 read from
two dice, 5.ii), Civic (green, 6.v) or special (yellow: Bank, Armoury, ...); an Open Air square may
carry a transit symbol (Tween Block Plaza, Pedway, Mega Way, Sky Rail). Lifts, grav-chutes and
fire-control points are symbols on Window and Interior squares (1.ii, 6.iii, 6.iv, 8.x).

The maps are set edge to edge in a row that closes into a ring (1.ii, "Movimento fra le mappe"): the
half square at the right edge of one map and the half square at the left edge of the next make one
square, and leaving the last map to the right brings you in at the left of the first. ``Ring`` holds
the maps in play order and gives the geometry across the joins. A square of the ring is a ``Loc``
(``curie:D6``); the square shared by two maps is named from the map on its right (column A).

The squares and their names live in ``squares``, the geometry of the ring in ``ring``; this module
reads and checks the data file and re-exports both, so callers import from one place.

The maps are a reconstruction: see docs/games/blockmania.md, "The blocks: a reconstruction".
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Iterable, Mapping

from pbem.games.blockmania.ring import Ring
from pbem.games.blockmania.squares import (
    COLOURS, COLUMN_LETTERS, DAMAGE_TRACKS, DICE_ADDRESSES, DIRECTIONS, DRAW_POOLS, KIND_KEYS, SQUARE_KINDS,
    TRANSIT_LEVELS, TYPE_LETTERS, TYPES, Block, BlocksError, Chute, Kind, Lift, Loc, Route, Square, parse_label,
)
from pbem.games.common.data import MALFORMED, load_toml

__all__ = ["COLOURS", "COLUMN_LETTERS", "DAMAGE_TRACKS", "DICE_ADDRESSES", "DIRECTIONS", "DRAW_POOLS", "KIND_KEYS",
           "SQUARE_KINDS", "TRANSIT_LEVELS", "TYPES", "TYPE_LETTERS", "Block", "Blocks", "BlocksError", "Chute",
           "Kind", "Lift", "Loc", "Ring", "Route", "Square", "blocks", "load_blocks", "parse_blocks",
           "parse_label"]

_TOKEN = re.compile(r"([owi])([A-Z]{2})?([0-9]{2})?")


@dataclass(frozen=True, eq=False)
class Blocks:
    """Everything in ``blocks.toml``: the levels of every map, the kinds, the join profile, the blocks
    and the fire-spread diagram of 10.i."""

    levels: int
    transit: Mapping[str, int]  # ground, megaway, pedway, skyrail -> level
    kinds: Mapping[str, Kind]
    join: tuple[Kind, ...]  # the half square at each level (index level - 1), both edges of every map
    blocks: tuple[Block, ...]
    fire_spread: Mapping[int, str]  # 2d6 -> direction
    _rings: dict[tuple[str, ...], Ring] = field(default_factory=dict, init=False, repr=False, compare=False)

    def block(self, block_id: str) -> Block:
        for b in self.blocks:
            if b.id == block_id:
                return b
        raise KeyError(f"no block {block_id!r}")

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.blocks)

    def kind(self, code: str) -> Kind:
        return self.kinds[code]

    @property
    def ground(self) -> int:
        return self.transit["ground"]

    @property
    def pedway_level(self) -> int:
        return self.transit["pedway"]

    @property
    def megaway_level(self) -> int:
        return self.transit["megaway"]

    @property
    def skyrail_level(self) -> int:
        return self.transit["skyrail"]

    def ring(self, order: Iterable[str]) -> Ring:
        """The blocks ``order`` set edge to edge left to right, the last joined to the first (1.ii, 3)."""
        chosen = tuple(self.block(b) for b in order)
        if not chosen:
            raise ValueError("a ring needs at least one block")
        if len({b.id for b in chosen}) != len(chosen):
            raise ValueError("a block can be placed only once")
        key = tuple(b.id for b in chosen)
        if key not in self._rings:
            self._rings[key] = Ring(self, chosen)
        return self._rings[key]



# -- the loader --------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, text: str) -> BlocksError:
        return BlocksError(f"{self.source}: {text}")

    def int_(self, value: Any, where: str, lo: int = 1, hi: int | None = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < lo or (hi is not None and value > hi):
            span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise self.error(f"{where}: {value!r} is not an integer {span}")
        return value

    def str_(self, raw: Mapping[str, Any], key: str, where: str, required: bool = True) -> str:
        value = raw.get(key, "")
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.error(f"{where}: '{key}' must be a non-empty string")
        return value

    def bool_(self, raw: Mapping[str, Any], key: str, where: str) -> bool:
        value = raw.get(key, False)
        if not isinstance(value, bool):
            raise self.error(f"{where}: '{key}' must be true or false")
        return value


def _parse_kinds(rd: _Reader, data: Mapping[str, Any]) -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    raw_kinds = data.get("kind")
    if not isinstance(raw_kinds, list) or not raw_kinds:
        raise rd.error("no [[kind]] entries")
    for raw in raw_kinds:
        code = rd.str_(raw, "code", "a [[kind]]")
        where = f"kind {code!r}"
        if not re.fullmatch(r"[A-Z]{2}", code):
            raise rd.error(f"{where}: the code must be two capital letters")
        if code in kinds:
            raise rd.error(f"{where} appears twice")
        types = raw.get("types")
        if not isinstance(types, list) or not types or any(t not in TYPES for t in types):
            raise rd.error(f"{where}: 'types' must list some of {TYPES}")
        colour = rd.str_(raw, "colour", where)
        if colour not in COLOURS:
            raise rd.error(f"{where}: colour {colour!r} is not one of {COLOURS}")
        if (colour == "open") != (types == ["open"]):
            raise rd.error(f"{where}: Open Air kinds have colour 'open' and type 'open' only (1.ii)")
        level = raw.get("level")
        if level is not None and level not in TRANSIT_LEVELS:
            raise rd.error(f"{where}: level {level!r} is not one of {TRANSIT_LEVELS}")
        strength = raw.get("strength")
        if strength is not None:
            strength = rd.int_(strength, f"{where}: strength", 1, 12)
        damage = raw.get("damage")
        if (strength is None) != (damage is None) or (damage is not None and damage not in DAMAGE_TRACKS):
            raise rd.error(f"{where}: 'strength' and 'damage' ({DAMAGE_TRACKS}) go together")
        draw = raw.get("draw")
        if draw is not None and draw not in DRAW_POOLS:
            raise rd.error(f"{where}: draw {draw!r} is not one of {DRAW_POOLS}")
        only = raw.get("only")
        if only is not None and not isinstance(only, str):
            raise rd.error(f"{where}: 'only' must be a weapon name")
        count = raw.get("per_block", [0])
        if (not isinstance(count, list) or not 1 <= len(count) <= 2
                or any(not isinstance(c, int) or c < 0 for c in count)):
            raise rd.error(f"{where}: 'per_block' must be [min] or [min, max]")
        addressed = rd.bool_(raw, "addressed", where)
        if addressed and colour == "open":
            raise rd.error(f"{where}: only Window and Interior squares carry addresses (1.ii)")
        kinds[code] = Kind(
            code=code, name=rd.str_(raw, "name", where), types=frozenset(types), colour=colour,
            level=level, addressed=addressed, walk=rd.bool_(raw, "walk", where),
            land=rd.bool_(raw, "land", where), takeoff=rd.bool_(raw, "takeoff", where),
            free=rd.bool_(raw, "free", where), loot=rd.bool_(raw, "loot", where), draw=draw,
            strength=strength, damage=damage, only=only, min_count=count[0],
            max_count=count[1] if len(count) == 2 else None,
            source=rd.str_(raw, "source", where), note=rd.str_(raw, "note", where, required=False),
        )
    for needed, colour in (("OA", "open"), ("RS", "residential")):
        if needed not in kinds or kinds[needed].colour != colour:
            raise rd.error(f"kind {needed!r} ({colour}) is missing: plain Open Air and Residential squares need it")
    if not kinds["RS"].addressed:
        raise rd.error("kind 'RS': residential squares carry an address (1.ii)")
    return kinds


def _parse_token(rd: _Reader, token: str, kinds: Mapping[str, Kind], where: str) -> tuple[str, Kind, int | None]:
    m = _TOKEN.fullmatch(token)
    if m is None:
        raise rd.error(f"{where}: {token!r} is not a square like 'o', 'oPW', 'w34', 'iBK' or 'wEP11'")
    type_ = TYPE_LETTERS[m.group(1)]
    code, digits = m.group(2), m.group(3)
    address = int(digits) if digits else None
    if code is None:
        code = "RS" if address is not None else "OA" if type_ == "open" else ""
        if not code:
            raise rd.error(f"{where}: a {type_} square must be residential (an address), Civic or special (1.ii)")
    kind = kinds.get(code)
    if kind is None:
        raise rd.error(f"{where}: unknown kind {code!r}")
    if type_ not in kind.types:
        raise rd.error(f"{where}: a {kind.name} square cannot be {type_} (allowed: {sorted(kind.types)})")
    if kind.addressed and address is None:
        raise rd.error(f"{where}: a {kind.name} square needs its address 11-66 (5.ii)")
    if not kind.addressed and address is not None:
        raise rd.error(f"{where}: a {kind.name} square has no address")
    if address is not None and address not in DICE_ADDRESSES:
        raise rd.error(f"{where}: address {address} cannot be read from two dice (11-66, digits 1-6, 5.ii)")
    return type_, kind, address


def _grid(rd: _Reader, raw: Any, levels: int, where: str) -> list[list[str]]:
    if not isinstance(raw, list) or len(raw) != levels:
        raise rd.error(f"{where}: 'grid' must list {levels} levels, top first")
    rows = []
    for i, line in enumerate(raw):
        if not isinstance(line, str):
            raise rd.error(f"{where}: level {levels - i} is not a string")
        rows.append(line.split())
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        bad = next(levels - i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise rd.error(f"{where}: level {bad} has {len(rows[levels - bad])} squares, level {levels} has {len(rows[0])}")
    width = widths.pop()
    if not 3 <= width <= len(COLUMN_LETTERS):
        raise rd.error(f"{where}: a map is 3..{len(COLUMN_LETTERS)} squares wide, not {width}")
    return rows


def _column(rd: _Reader, value: Any, width: int, where: str) -> int:
    if not isinstance(value, str) or len(value) != 1 or value not in COLUMN_LETTERS[:width]:
        raise rd.error(f"{where}: column {value!r} is not one of A..{COLUMN_LETTERS[width - 1]}")
    return COLUMN_LETTERS.index(value)


def _parse_block(rd: _Reader, raw: Mapping[str, Any], levels: int, transit: Mapping[str, int],
                 kinds: Mapping[str, Kind], join: tuple[Kind, ...]) -> Block:
    bid = rd.str_(raw, "id", "a [[block]]")
    if not re.fullmatch(r"[a-z0-9_-]+", bid):
        raise rd.error(f"block {bid!r}: the id must be lower-case letters, digits, '-' or '_'")
    where = f"block {bid!r}"
    name = rd.str_(raw, "name", where)
    tokens = _grid(rd, raw.get("grid"), levels, where)
    width = len(tokens[0])

    def label(col: int, level: int) -> str:
        return f"{COLUMN_LETTERS[col]}{level}"

    cells: dict[tuple[int, int], tuple[str, Kind, int | None]] = {}
    for i, row in enumerate(tokens):
        level = levels - i
        for col, token in enumerate(row):
            cells[col, level] = _parse_token(rd, token, kinds, f"{where} square {label(col, level)}")

    def is_open(col: int, level: int) -> bool:
        if level > levels:
            return True  # the sky above the map
        if level < 1 or not 0 <= col < width:
            return False
        return cells[col, level][0] == "open"

    # 1.ii: the half squares at both edges complete those of the neighbouring maps
    for col in (0, width - 1):
        for level in range(1, levels + 1):
            if cells[col, level][1] is not join[level - 1]:
                raise rd.error(f"{where} square {label(col, level)}: the edge square is "
                               f"{cells[col, level][1].name}, the [join] says {join[level - 1].name} (1.ii)")

    addresses: dict[int, str] = {}
    counts: dict[str, int] = {code: 0 for code in kinds}
    for (col, level), (type_, kind, address) in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        at = f"{where} square {label(col, level)}"
        counts[kind.code] += 1
        if address is not None:
            if address in addresses:
                raise rd.error(f"{at}: address {address} is already on {addresses[address]} "
                               "(5.ii: a roll must find one square)")
            addresses[address] = label(col, level)
        if kind.level is not None and level != transit[kind.level]:
            raise rd.error(f"{at}: a {kind.name} square lies on the {kind.level} level {transit[kind.level]}")
        if type_ == "open" and kind.code == "OA":
            for tname in ("ground", "megaway", "pedway", "skyrail"):
                if level == transit[tname]:
                    raise rd.error(f"{at}: plain Open Air on the {tname} level {level}; it must carry "
                                   f"the {tname} symbol")
        if type_ == "window" and not any(is_open(col + dc, level + dl)
                                         for dc, dl in ((1, 0), (-1, 0), (0, 1), (0, -1))):
            raise rd.error(f"{at}: a Window square must touch Open Air (1.ii: partly outside the block)")
    missing = [a for a in DICE_ADDRESSES if a not in addresses]
    if missing:
        raise rd.error(f"{where}: addresses {missing} are on no square (5.ii: every roll 11-66 finds a square)")
    for code, kind in kinds.items():
        n = counts[code]
        if n < kind.min_count or (kind.max_count is not None and n > kind.max_count):
            want = f"{kind.min_count}" + ("" if kind.max_count == kind.min_count else
                                          f"..{kind.max_count}" if kind.max_count is not None else " or more")
            raise rd.error(f"{where}: {n} {kind.name} squares, the block needs {want} ({kind.source})")

    # the transit levels: the outermost Window/Interior squares are the ways in (6.vi-6.viii)
    for tname, code in (("megaway", "TN"), ("pedway", "PT"), ("skyrail", "TW")):
        level = transit[tname]
        inside = [c for c in range(width) if cells[c, level][0] != "open"]
        if not inside:
            raise rd.error(f"{where}: the block does not reach the {tname} level {level}")
        for c in (inside[0], inside[-1]):
            if cells[c, level][1].code != code:
                raise rd.error(f"{where} square {label(c, level)}: the outermost square of the {tname} "
                               f"level must be a {kinds[code].name}")

    # 6.i: every Window/Interior square, the plaza and the pedways reachable on foot
    walkable = {pos for pos, (type_, kind, _) in cells.items() if type_ != "open" or kind.walk}
    first = min(walkable, key=lambda p: (p[1], p[0]))
    seen, queue = {first}, deque([first])
    while queue:
        c, lv = queue.popleft()
        for nxt in ((c + 1, lv), (c - 1, lv), (c, lv + 1), (c, lv - 1)):
            if nxt in walkable and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    cut = sorted(walkable - seen, key=lambda p: (p[1], p[0]))
    if cut:
        raise rd.error(f"{where} square {label(*cut[0])}: cannot be reached on foot from {label(*first)}")

    lift_squares: dict[tuple[int, int], str] = {}
    lifts = []
    for n, lraw in enumerate(raw.get("lift", []), 1):
        lw = f"{where} lift {n}"
        col = _column(rd, lraw.get("column"), width, lw)
        span = lraw.get("levels")
        if not isinstance(span, list) or len(span) != 2:
            raise rd.error(f"{lw}: 'levels' must be [bottom, top]")
        bottom = rd.int_(span[0], f"{lw}: bottom", 1, levels)
        top = rd.int_(span[1], f"{lw}: top", 1, levels)
        if top <= bottom:
            raise rd.error(f"{lw}: the shaft must serve at least two levels, bottom first")
        for level in range(bottom, top + 1):
            if cells[col, level][0] == "open":
                raise rd.error(f"{lw}: square {label(col, level)} is Open Air (1.ii: lifts are in Window "
                               "and Interior squares)")
            if (col, level) in lift_squares:
                raise rd.error(f"{lw}: square {label(col, level)} is already on {lift_squares[col, level]}")
            lift_squares[col, level] = f"lift {n}"
        lifts.append(Lift(bid, col, bottom, top))

    chute_squares: set[tuple[int, int]] = set()
    chutes = []
    ground = transit["ground"]
    for n, craw in enumerate(raw.get("chute", []), 1):
        cw = f"{where} grav-chute {n}"
        col = _column(rd, craw.get("column"), width, cw)
        entries = craw.get("levels")
        if not isinstance(entries, list) or not entries:
            raise rd.error(f"{cw}: 'levels' must list the levels with the grav-chute symbol")
        levs = tuple(rd.int_(v, f"{cw}: level", 1, levels) for v in entries)
        if list(levs) != sorted(set(levs), reverse=True):
            raise rd.error(f"{cw}: list the levels once each, top first")
        for level in levs:
            if level <= ground:
                raise rd.error(f"{cw}: square {label(col, level)} is on the ground level: nowhere to drop (6.iv)")
            if cells[col, level][0] == "open":
                raise rd.error(f"{cw}: square {label(col, level)} is Open Air (1.ii)")
            if (col, level) in chute_squares:
                raise rd.error(f"{cw}: square {label(col, level)} already has a grav-chute")
            chute_squares.add((col, level))
        if cells[col, ground][0] == "open":
            raise rd.error(f"{cw}: it lands in {label(col, ground)}, which is Open Air (6.iv: the ground square below)")
        chutes.append(Chute(bid, col, levs, ground))

    fire: set[tuple[int, int]] = set()
    raw_fire = raw.get("fire_control")
    if not isinstance(raw_fire, list) or not raw_fire:
        raise rd.error(f"{where}: 'fire_control' must list the squares with the fire-control symbol (8.x)")
    for value in raw_fire:
        pos = parse_label(value) if isinstance(value, str) else None
        if pos is None or pos not in cells:
            raise rd.error(f"{where} fire_control: {value!r} is not a square of the map")
        if cells[pos][0] == "open":
            raise rd.error(f"{where} fire_control: square {value} is Open Air (1.ii)")
        if pos in fire:
            raise rd.error(f"{where} fire_control: square {value} is listed twice")
        fire.add(pos)

    rows = tuple(
        tuple(Square(bid, col, level, *cells[col, level], lift=(col, level) in lift_squares,
                     chute=(col, level) in chute_squares, fire_control=(col, level) in fire)
              for col in range(width))
        for level in range(1, levels + 1)
    )
    return Block(bid, name, width, levels, rows, tuple(lifts), tuple(chutes),
                 rd.str_(raw, "note", where, required=False))


def parse_blocks(data: Mapping[str, Any], source: str = "blocks.toml") -> Blocks:
    """Build and check the blocks from parsed TOML; raises ``BlocksError`` naming the entry."""
    rd = _Reader(source)
    raw_map = data.get("map")
    if not isinstance(raw_map, Mapping):
        raise rd.error("no [map] table")
    levels = rd.int_(raw_map.get("levels"), "[map] levels", 2, 99)
    transit = {t: rd.int_(raw_map.get(t), f"[map] {t}", 1, levels) for t in TRANSIT_LEVELS}
    if transit["ground"] != 1:
        raise rd.error("[map] ground: level 1 is the ground level, the lowest of the block (6.iv)")
    if transit["pedway"] != 6:
        raise rd.error("[map] pedway: the pedways run at the sixth level (6.vii)")
    if len(set(transit.values())) != len(transit):
        raise rd.error("[map]: the ground, megaway, pedway and skyrail levels must differ")
    kinds = _parse_kinds(rd, data)

    raw_join = data.get("join", {}).get("levels")
    if not isinstance(raw_join, list) or len(raw_join) != levels:
        raise rd.error(f"[join] levels must list the edge half square of each of the {levels} levels, top first")
    join_kinds = []
    for i, token in enumerate(raw_join):
        type_, kind, _ = _parse_token(rd, str(token), kinds, f"[join] level {levels - i}")
        if type_ != "open":
            raise rd.error(f"[join] level {levels - i}: the half squares between blocks are Open Air (1.ii)")
        join_kinds.append(kind)
    join = tuple(reversed(join_kinds))  # index level - 1

    raw_spread = data.get("fire_spread")
    if not isinstance(raw_spread, Mapping):
        raise rd.error("no [fire_spread] table (10.i)")
    spread: dict[int, str] = {}
    for key, direction in raw_spread.items():
        if not str(key).isdigit() or not 2 <= int(key) <= 12:
            raise rd.error(f"[fire_spread] {key!r} is not a 2d6 total 2..12")
        if direction not in DIRECTIONS:
            raise rd.error(f"[fire_spread] {key}: {direction!r} is not one of {tuple(DIRECTIONS)}")
        spread[int(key)] = str(direction)
    if sorted(spread) != list(range(2, 13)):
        raise rd.error(f"[fire_spread]: totals {sorted(set(range(2, 13)) - set(spread))} have no direction")
    if set(spread.values()) != set(DIRECTIONS):
        raise rd.error(f"[fire_spread]: directions {sorted(set(DIRECTIONS) - set(spread.values()))} are never rolled")

    raw_blocks = data.get("block")
    if not isinstance(raw_blocks, list) or not raw_blocks:
        raise rd.error("no [[block]] entries")
    blocks: list[Block] = []
    for raw in raw_blocks:
        block = _parse_block(rd, raw, levels, transit, kinds, join)
        if any(b.id == block.id for b in blocks):
            raise rd.error(f"block {block.id!r} appears twice")
        if any(b.name == block.name for b in blocks):
            raise rd.error(f"block {block.id!r}: the name {block.name!r} is already used")
        blocks.append(block)
    return Blocks(levels, transit, kinds, join, tuple(blocks), spread)


def load_blocks(text: str | None = None) -> Blocks:
    """The blocks from ``text`` (TOML) or from the packaged ``data/blocks.toml``."""
    return load_toml("pbem.games.blockmania.data", "blocks.toml", text, parse_blocks, BlocksError,
                     (*MALFORMED, AttributeError))


@cache
def blocks() -> Blocks:
    """The packaged blocks, loaded once."""
    return load_blocks()
