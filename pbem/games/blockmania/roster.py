"""Block Mania's Blockers, Armoury and Hardware counters and markers, read from ``data/roster.toml``.

The seed (shared/seeds/004_*.txt) leaves the counters' numbers and special rules to the missing "manuale
dei Blocker": they are reconstructed as data (docs/games/blockmania.md, "Blockers, Armoury and
Hardware"). The loader checks every entry against the rules of the seed it must obey (counters carried =
Strength, 6.i; heavy weapons never in close combat, 8.iii; only the four weapons of 9.i damage squares,
with damage of at least 6; a Superhero never carries counters; piles adding up, ...) and raises
``RosterError`` naming the entry. A few pure helpers read the data the way the rulebook says (section
numbers in docstrings).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Iterable, Mapping, Sequence

from pbem.games.common.data import MALFORMED, find as _find, load_toml

POOLS = ("armoury", "hardware")  # 1.iii, 3: two containers drawn at random
SOURCES = ("pile", "card")  # in the blocks' piles (3) or brought by a Mania card (Kleggs)
ORIGINS = ("seed", "sources", "ours")
TARGETS = ("blocker", "square-or-blocker", "square-and-blocker", "own-square")  # 8.v, 9.i
SQUARE_TARGETS = ("square-or-blocker", "square-and-blocker", "own-square")
BLOCKER_FLAGS = (
    "flies", "no-flight", "no-mega-way", "no-sky-rail", "no-fire-fighting", "no-equipment", "no-looting",
    "no-arson", "stacks-with-friend", "anyone-activates", "attacks-own-block", "attacks-only-if-activated",
    "always-activated", "climbs",
)
ABILITIES = ("flight", "scrawl", "climb", "places-fire", "sky-rail", "timed-charge")
DIE = 6


class RosterError(ValueError):
    """The roster data is inconsistent; the message says where."""


@dataclass(frozen=True)
class Rules:
    """Numbers of the rulebook the engine needs next to the counters (sections in roster.toml)."""

    starting_blockers: int  # 3
    new_blocker_cost: int  # 5.ii
    extra_mp_cost: int  # 5.v
    carry_per_strength: int  # 6.i
    hand_over_mp: int  # 6.x
    heavy_setup_mp: int  # 6.xi
    demo_arm_mp: int  # QR, Demo Charge
    climb_up_cost: int  # ours, Sucker Gun and Jaeger
    kill_target: int  # 7.ii, 8.v
    exposed_bonus: int  # 7.ii, 8.v
    square_strength: int  # 9.i
    armoury_square_strength: int  # 9.i
    sky_rail_strength: int  # 9.v
    pedway_strength: int  # 9.vi
    mega_way_strength: int  # 9.vii
    pool_editions_per_extra_player: tuple[str, ...]  # Mega Mega-Mania


@dataclass(frozen=True)
class Edition:
    """A box: its maps, counter sheets and pools come into play from ``min_players`` (1.i)."""

    key: str
    min_players: int


@dataclass(frozen=True)
class Symbol:
    """A counter symbol that draws from a pool when the Blocker enters play (1.iii, 3, 5.ii)."""

    key: str  # "A" | "H"
    pool: str
    draws: int


@dataclass(frozen=True)
class BlockerType:
    """A Blocker type: cost-Strength-Move (1.iii, 5.iii, 6.i) and keyed special rules."""

    key: str
    name: str
    cost: int
    strength: int
    move: int
    source: str  # "pile" | "card"
    flags: frozenset[str]
    close_combat_bonus: int = 0  # 8.vi, Fatty
    pool: int = 0  # counters outside the piles, for source "card"

    @property
    def label(self) -> str:
        """The three numbers as printed: cost-Strength-Move (1.iii)."""
        return f"{self.cost}-{self.strength}-{self.move}"

    @property
    def special(self) -> bool:
        """The "*" symbol (1.iii): the type has rules of its own."""
        return bool(self.flags) or self.close_combat_bonus != 0

    def has(self, flag: str) -> bool:
        if flag not in BLOCKER_FLAGS:
            raise KeyError(f"unknown Blocker flag {flag!r}")
        return flag in self.flags

    @property
    def carries(self) -> int:
        """How many Armoury and Hardware counters it may carry (6.i, 6.x); none for no-equipment."""
        return 0 if "no-equipment" in self.flags else self.strength


@dataclass(frozen=True)
class PileEntry:
    """``count`` Blocker counters of one type with the same symbols, in a block's pile."""

    blocker: BlockerType
    symbols: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class BlockRoster:
    """The Blockers printed in a block's colour (1.iii, 3)."""

    key: str
    colour: str
    edition: str
    entries: tuple[PileEntry, ...]

    @property
    def size(self) -> int:
        return sum(e.count for e in self.entries)

    def count(self, blocker: str, symbol: str | None = None) -> int:
        return sum(e.count for e in self.entries
                   if e.blocker.key == blocker and (symbol is None or symbol in e.symbols))

    def pile(self) -> tuple[tuple[BlockerType, tuple[str, ...]], ...]:
        """Every counter of the pile, unshuffled: (type, symbols)."""
        return tuple((e.blocker, e.symbols) for e in self.entries for _ in range(e.count))


@dataclass(frozen=True)
class CounterType:
    """An Armoury or Hardware counter: a weapon (range-damage, 1.iii) or a piece of equipment."""

    key: str
    name: str
    pool: str
    origin: str
    counts: Mapping[str, int]  # per edition
    range: int | None = None
    damage: int | None = None
    heavy: bool = False
    targets: str = "blocker"
    blocker_damage: int | None = None
    markers: int = 1
    abilities: frozenset[str] = frozenset()
    close_combat: bool = False  # its damage counts in close combat (8.vi); by default every non-heavy weapon

    @property
    def weapon(self) -> bool:
        return self.damage is not None

    @property
    def special(self) -> bool:
        """The "*" symbol (8.iii)."""
        return bool(self.abilities) or self.targets != "blocker" or self.blocker_damage is not None

    @property
    def label(self) -> str:
        """Range-damage as printed (1.iii), with HW for heavy weapons; equipment shows no numbers."""
        if not self.weapon:
            return "*"
        text = f"{self.range}/+{self.damage}"
        return f"{text} HW" if self.heavy else text

    @property
    def shoots(self) -> bool:
        """It can make a shooting or defensive-fire attack (7.i, 8.v: range 1 or more; 9.i own square)."""
        return self.weapon and ((self.range or 0) >= 1 or self.targets == "own-square")

    @property
    def in_close_combat(self) -> bool:
        """Its damage adds to the carrier's close-combat total (8.vi; never a heavy weapon, 8.iii)."""
        return self.weapon and self.close_combat and not self.heavy

    @property
    def damages_squares(self) -> bool:
        return self.targets in SQUARE_TARGETS

    @property
    def hits_blockers(self) -> bool:
        return self.targets != "own-square"

    def damage_against_blocker(self) -> int:
        assert self.damage is not None, f"{self.key} is not a weapon"
        return self.damage if self.blocker_damage is None else self.blocker_damage

    def has(self, ability: str) -> bool:
        if ability not in ABILITIES:
            raise KeyError(f"unknown ability {ability!r}")
        return ability in self.abilities


@dataclass(frozen=True)
class Marker:
    key: str
    count: int


@dataclass(frozen=True)
class Roster:
    rules: Rules
    editions: tuple[Edition, ...]
    symbols: tuple[Symbol, ...]
    blockers: tuple[BlockerType, ...]
    blocks: tuple[BlockRoster, ...]
    counters: tuple[CounterType, ...]
    markers: tuple[Marker, ...]

    def blocker(self, key: str) -> BlockerType:
        return _find(self.blockers, "Blocker type", key)

    def block(self, key: str) -> BlockRoster:
        return _find(self.blocks, "block", key)

    def counter(self, key: str) -> CounterType:
        return _find(self.counters, "counter", key)

    def marker(self, key: str) -> Marker:
        return _find(self.markers, "marker", key)

    def symbol(self, key: str) -> Symbol:
        return _find(self.symbols, "symbol", key)

    def editions_for(self, players: int) -> tuple[str, ...]:
        """The boxes whose Armoury and Hardware counters are in the pools (1.i; Mega Mega-Mania: one more
        set per player beyond the fourth)."""
        if players < min(e.min_players for e in self.editions):
            raise ValueError(f"not enough players: {players}")
        used = tuple(e.key for e in self.editions if e.min_players <= players)
        return used + self.rules.pool_editions_per_extra_player * max(0, players - 4)

    def pool(self, pool: str, players: int) -> tuple[CounterType, ...]:
        """Every counter of the Armoury or Hardware container, unshuffled (3)."""
        if pool not in POOLS:
            raise KeyError(f"unknown pool {pool!r}")
        editions = self.editions_for(players)
        return tuple(c for c in self.counters if c.pool == pool
                     for edition in editions for _ in range(c.counts.get(edition, 0)))

    def blocks_for(self, players: int) -> tuple[BlockRoster, ...]:
        """The blocks' counter sheets of the boxes in play (1.i)."""
        return tuple(b for b in self.blocks if self.edition(b.edition).min_players <= players)

    def edition(self, key: str) -> Edition:
        return _find(self.editions, "edition", key)

    def card_blockers(self) -> tuple[BlockerType, ...]:
        """Blocker types outside the piles, brought into play by Mania cards (Kleggs)."""
        return tuple(b for b in self.blockers if b.source == "card")


# -- rules read off the counters -------------------------------------------------------------------


def may_keep(blocker: BlockerType, counter: CounterType) -> bool:
    """Whether a Blocker may hold a counter it draws or is handed: a Superhero never holds any (QR); Fatty
    and Mob never hold flying equipment, drawn ones are redrawn (6.ix, QR)."""
    if blocker.has("no-equipment"):
        return False
    return not (blocker.has("no-flight") and counter.has("flight"))


def can_fly(blocker: BlockerType, carried: Iterable[CounterType]) -> bool:
    """6.ix: a Superhero, or a Blocker with a Bat Suit or Power Board; never Fatty and Mob; never while
    carrying a heavy weapon."""
    items = tuple(carried)
    if blocker.has("no-flight") or any(c.heavy for c in items):
        return False
    return blocker.has("flies") or any(c.has("flight") for c in items)


def climbs(blocker: BlockerType, carried: Iterable[CounterType]) -> bool:
    """A Jaeger always, or a Blocker with a Sucker Gun (QR): up moves cost ``rules.climb_up_cost``."""
    return blocker.has("climbs") or any(c.has("climb") for c in carried)


def close_combat_total(blocker: BlockerType, carried: Iterable[CounterType]) -> int:
    """8.vi: Strength + the damage of every weapon carried except heavy ones + the Fatty's bonus (the
    roll of 1d6 is added by the engine)."""
    return blocker.strength + blocker.close_combat_bonus + sum(
        c.damage or 0 for c in carried if c.in_close_combat)


def kill_chance(damage: int, strength: int, exposed: bool = False, target: int = 6) -> Fraction:
    """The chance that 1d6 + damage (+1 in Open Air or Civic) - Strength reaches ``target`` (7.ii, 8.v; the
    same test against a square's Strength without the bonus, 9.i)."""
    need = target - damage - (1 if exposed else 0) + strength
    faces = sum(1 for face in range(1, DIE + 1) if face >= need)
    return Fraction(faces, DIE)


def success_chance(strength: int, target: int = 6) -> Fraction:
    """Looting, arson, fire-fighting: 1d6 + Strength >= 6 (8.vii, 8.viii, 8.x)."""
    return kill_chance(0, -strength, target=target)


# -- loading ----------------------------------------------------------------------------------------


def _err(what: str) -> RosterError:
    return RosterError(f"roster.toml: {what}")


def _keys(items: Iterable[Any], kind: str) -> None:
    seen: set[str] = set()
    for item in items:
        if item.key in seen:
            raise _err(f"{kind} {item.key!r} appears twice")
        seen.add(item.key)


def _rules(raw: Mapping[str, Any]) -> Rules:
    names = [f for f in Rules.__dataclass_fields__ if f != "pool_editions_per_extra_player"]
    values = {name: int(raw[name]) for name in names}
    bad = [name for name, v in values.items() if v < 0]
    if bad:
        raise _err(f"rules: negative {bad}")
    if values["kill_target"] != DIE:
        raise _err("rules: kill_target must be 6 (7.ii, 8.v)")
    if values["armoury_square_strength"] <= values["square_strength"]:
        raise _err("rules: an Armoury square is stronger than the others (9.i)")
    extra = tuple(str(e) for e in raw["pool_editions_per_extra_player"])
    return Rules(**values, pool_editions_per_extra_player=extra)


def _blockers(data: Mapping[str, Any]) -> tuple[BlockerType, ...]:
    blockers: list[BlockerType] = []
    for raw in data["blocker"]:
        key = str(raw["key"])
        flags = frozenset(str(f) for f in raw.get("flags", []))
        b = BlockerType(key, str(raw["name"]), int(raw["cost"]), int(raw["strength"]), int(raw["move"]),
                        str(raw["source"]), flags, int(raw.get("close_combat_bonus", 0)), int(raw.get("pool", 0)))
        unknown = sorted(flags - set(BLOCKER_FLAGS))
        if unknown:
            raise _err(f"blocker {key!r}: unknown flags {unknown}")
        if b.source not in SOURCES:
            raise _err(f"blocker {key!r}: bad source {b.source!r}")
        if not 0 <= b.cost <= 2 * DIE or not 1 <= b.strength < DIE or b.move < 1:
            raise _err(f"blocker {key!r}: cost-strength-move {b.label} out of range")
        if "flies" in flags and "no-flight" in flags:
            raise _err(f"blocker {key!r}: flies and no-flight")
        if ("always-activated" in flags) != (b.cost == 0):
            raise _err(f"blocker {key!r}: a cost of 0 if and only if always-activated (QR, 5.iii)")
        if b.close_combat_bonus < 0:
            raise _err(f"blocker {key!r}: negative close_combat_bonus")
        if (b.source == "card") != (b.pool > 0):
            raise _err(f"blocker {key!r}: a pool of counters if and only if it comes by card")
        blockers.append(b)
    _keys(blockers, "blocker")
    return tuple(blockers)


def _symbols(raw: Any, blocker: BlockerType, symbols: Mapping[str, Symbol], where: str) -> tuple[str, ...]:
    keys = tuple(str(s) for s in ([raw] if isinstance(raw, str) else raw)) if raw else ()
    for s in keys:
        if s not in symbols:
            raise _err(f"{where}: unknown symbol {s!r}")
    if len(set(keys)) != len(keys):
        raise _err(f"{where}: a symbol appears twice")
    draws = sum(symbols[s].draws for s in keys)
    if keys and blocker.has("no-equipment"):
        raise _err(f"{where}: {blocker.key!r} never draws Armoury or Hardware (QR) but has {list(keys)}")
    if draws > blocker.carries:
        raise _err(f"{where}: draws {draws} counters, carries {blocker.carries} (Strength, 6.i)")
    return keys


def _blocks(data: Mapping[str, Any], blockers: Sequence[BlockerType], symbols: Mapping[str, Symbol],
            editions: Mapping[str, Edition]) -> tuple[BlockRoster, ...]:
    by_key = {b.key: b for b in blockers}
    blocks: list[BlockRoster] = []
    for raw in data["block"]:
        key = str(raw["key"])
        edition = str(raw["edition"])
        if edition not in editions:
            raise _err(f"block {key!r}: unknown edition {edition!r}")
        entries: list[PileEntry] = []
        for line in raw["counters"]:
            name = str(line["blocker"])
            where = f"block {key!r}, {name!r}"
            if name not in by_key:
                raise _err(f"block {key!r}: unknown blocker {name!r}")
            blocker = by_key[name]
            if blocker.source != "pile":
                raise _err(f"{where}: comes by card, never in a pile")
            syms = _symbols(line.get("symbol", ()), blocker, symbols, where)
            count = int(line["count"])
            if count < 1:
                raise _err(f"{where}: count {count}")
            if any(e.blocker.key == name and e.symbols == syms for e in entries):
                raise _err(f"{where} with symbols {list(syms)} appears twice")
            entries.append(PileEntry(blocker, syms, count))
        block = BlockRoster(key, str(raw["colour"]), edition, tuple(entries))
        if block.size != int(raw["size"]):
            raise _err(f"block {key!r} adds up to {block.size} Blockers, declared {raw['size']}")
        blocks.append(block)
    _keys(blocks, "block")
    if len({b.colour for b in blocks}) != len(blocks):
        raise _err("two blocks have the same colour (1.iii: colours tell the blocks apart)")
    return tuple(blocks)


def _counter(raw: Mapping[str, Any], editions: Mapping[str, Edition]) -> CounterType:
    key = str(raw["key"])
    counts = {str(k): int(v) for k, v in raw["count"].items()}
    heavy, weapon = bool(raw.get("heavy", False)), "damage" in raw
    c = CounterType(
        key, str(raw["name"]), str(raw["pool"]), str(raw["origin"]), counts,
        int(raw["range"]) if "range" in raw else None, int(raw["damage"]) if "damage" in raw else None,
        bool(raw.get("heavy", False)), str(raw.get("targets", "blocker")),
        int(raw["blocker_damage"]) if "blocker_damage" in raw else None, int(raw.get("markers", 1)),
        frozenset(str(a) for a in raw.get("abilities", [])),
        bool(raw.get("close_combat", weapon and not heavy)))
    where = f"counter {key!r}"
    if c.pool not in POOLS or c.origin not in ORIGINS or c.targets not in TARGETS:
        raise _err(f"{where}: bad pool {c.pool!r}, origin {c.origin!r} or targets {c.targets!r}")
    unknown = sorted(c.abilities - set(ABILITIES))
    if unknown:
        raise _err(f"{where}: unknown abilities {unknown}")
    if set(counts) - set(editions) or any(v < 0 for v in counts.values()) or sum(counts.values()) < 1:
        raise _err(f"{where}: counts {counts} need known editions and at least one counter")
    if (c.range is None) != (c.damage is None):
        raise _err(f"{where}: a weapon has both range and damage (1.iii), equipment neither")
    if c.weapon:
        assert c.range is not None and c.damage is not None
        if c.range < 0 or c.damage < 0:
            raise _err(f"{where}: negative range or damage")
    elif c.heavy or c.targets != "blocker" or c.blocker_damage is not None or c.close_combat:
        raise _err(f"{where}: equipment with weapon properties")
    if c.pool == "armoury" and not c.weapon:
        raise _err(f"{where}: Armoury counters are weapons (1.iii)")
    if c.heavy and c.close_combat:
        raise _err(f"{where}: heavy weapons are never used in close combat (8.iii)")
    if c.damages_squares and (c.damage or 0) < 6:
        raise _err(f"{where}: damages squares with damage {c.damage}, below 6 it never could (9.i)")
    if c.targets == "own-square" and c.range != 0:
        raise _err(f"{where}: own-square weapons have range 0 (9.i)")
    if c.markers < 1 or (c.markers > 1 and not c.damages_squares):
        raise _err(f"{where}: markers {c.markers}")
    if "sky-rail" in c.abilities and not c.damages_squares:
        raise _err(f"{where}: only a weapon that damages squares hurts the Sky Rail (9.v)")
    if "flight" in c.abilities and (c.heavy or c.weapon):
        raise _err(f"{where}: flying equipment is not a weapon (6.ix)")
    if "timed-charge" in c.abilities and (c.range != 0 or c.targets != "square-and-blocker"):
        raise _err(f"{where}: a timed charge explodes in its own square, hitting square and Blockers (9.i, QR)")
    if c.weapon and c.range == 0 and c.targets == "blocker" and not c.close_combat:
        raise _err(f"{where}: a range-0 weapon is only for close combat (8.iii)")
    return c


def _counters(data: Mapping[str, Any], editions: Mapping[str, Edition]) -> tuple[CounterType, ...]:
    counters = tuple(_counter(raw, editions) for raw in data["counter"])
    _keys(counters, "counter")
    for pool in POOLS:
        if not any(c.pool == pool for c in counters):
            raise _err(f"the {pool} pool is empty (3)")
    # 9.i: the rulebook's own list of the counters that damage squares.
    wreckers = {c.name for c in counters if c.damages_squares}
    named = {"Missile Defence Laser", "Missile Launcher", "Demo Charge", "Vibro Drill"}
    if wreckers != named:
        raise _err(f"the counters that damage squares are {sorted(wreckers)}, 9.i names {sorted(named)}")
    for ability, section in (("flight", "6.ix"), ("scrawl", "8.ix"), ("sky-rail", "9.v")):
        if not any(ability in c.abilities for c in counters):
            raise _err(f"no counter with {ability!r} ({section})")
    return counters


def parse_roster(data: Mapping[str, Any]) -> Roster:
    """Build and check the roster from parsed TOML."""
    rules = _rules(data["rules"])
    editions = tuple(Edition(str(e["key"]), int(e["min_players"])) for e in data["edition"])
    _keys(editions, "edition")
    if not editions or min(e.min_players for e in editions) != 2:
        raise _err("the base box is for 2 players (1.i)")
    by_edition = {e.key: e for e in editions}
    for extra in rules.pool_editions_per_extra_player:
        if extra not in by_edition:
            raise _err(f"rules: unknown edition {extra!r} in pool_editions_per_extra_player")
    symbols = tuple(Symbol(str(s["key"]), str(s["pool"]), int(s["draws"])) for s in data["symbol"])
    _keys(symbols, "symbol")
    if {s.key: s.pool for s in symbols} != {"A": "armoury", "H": "hardware"}:
        raise _err("symbols: A draws from the Armoury, H from the Hardware (1.iii, 5.ii)")
    blockers = _blockers(data)
    blocks = _blocks(data, blockers, {s.key: s for s in symbols}, by_edition)
    for e in editions:
        if not any(b.edition == e.key for b in blocks):
            raise _err(f"edition {e.key!r} has no block")
    piled = {e.blocker.key for b in blocks for e in b.entries}
    for b in blockers:
        if b.source == "pile" and b.key not in piled:
            raise _err(f"blocker {b.key!r} is in no block's pile")
    counters = _counters(data, by_edition)
    markers = tuple(Marker(str(m["key"]), int(m["count"])) for m in data["marker"])
    _keys(markers, "marker")
    if any(m.count < 1 for m in markers):
        raise _err("a marker has no counters")
    return Roster(rules, editions, symbols, blockers, blocks, counters, markers)


def load_roster(text: str | None = None) -> Roster:
    """The roster from ``text`` (TOML) or from the packaged ``data/roster.toml``."""
    return load_toml("pbem.games.blockmania.data", "roster.toml", text, parse_roster, RosterError,
                     MALFORMED + (AttributeError,))


ROSTER: Final = load_roster()
