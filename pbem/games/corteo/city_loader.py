"""Reads ``data/city.toml`` into a `City`, checking every entry against what came before and
raising `CityError` naming the entry: grid, walls and gates, streets, squares and bridges, the
three parts (8h), areas, objectives (12), buildings, caserme, metro, the start (3a).
"""

from __future__ import annotations

from collections import deque
from functools import cache
from typing import Any, Iterable, Mapping

from pbem.games.corteo.city import (
    AREA_KINDS, BUILDING_ROLES, ORG_REAZ, SLOPES, STREET_KINDS, STREET_TERRAINS, TERRAINS, TIERS, Area, Bridge,
    Building, Caserma, Category, City, CityError, Gate, MetroLine, Objective, ObjectiveSet, Square, Station, Street,
    Wall,
)
from pbem.games.corteo.hexgrid import (
    DIRECTIONS, ROW_LETTERS, Hex, Side, direction, distance, is_hex_line, parse_hex, parse_side, side_between,
    side_of,
)
from pbem.games.common.data import MALFORMED, load_toml

# -- the loader ---------------------------------------------------------------------------------


class _Reader:
    """Helpers that turn raw TOML values into hexes and sides, naming the entry on error."""

    def __init__(self, source: str, rows: int, cols: int) -> None:
        self.source, self.rows, self.cols = source, rows, cols

    def error(self, text: str) -> CityError:
        return CityError(f"{self.source}: {text}")

    def hex(self, value: Any, where: str) -> Hex:
        h = parse_hex(value) if isinstance(value, str) else None
        if h is None:
            raise self.error(f"{where}: {value!r} is not a hex name like 'K12'")
        if not (0 <= h.row < self.rows and 0 <= h.col < self.cols):
            raise self.error(f"{where}: hex {value!r} is off the map")
        return h

    def hexes(self, raw: Mapping[str, Any], where: str, key: str = "hexes") -> tuple[Hex, ...]:
        values = raw.get(key)
        if not isinstance(values, list) or not values:
            raise self.error(f"{where}: '{key}' must be a non-empty list of hexes")
        out = tuple(self.hex(v, where) for v in values)
        if len(set(out)) != len(out):
            dup = next(h for h in out if out.count(h) > 1)
            raise self.error(f"{where}: hex {dup} is listed twice")
        return out

    def side(self, value: Any, where: str) -> Side:
        s = parse_side(value) if isinstance(value, str) else None
        if s is None:
            raise self.error(f"{where}: {value!r} is not a hex side like 'K12/E'")
        for h in s.hexes:
            if not (0 <= h.row < self.rows and 0 <= h.col < self.cols):
                raise self.error(f"{where}: side {value!r} is on the map edge or off the map")
        return s

    def name(self, raw: Mapping[str, Any], where: str) -> str:
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise self.error(f"{where}: an entry without a name")
        return name


def _connected(hexes: Iterable[Hex], walls: frozenset[Side]) -> bool:
    todo = set(hexes)
    if not todo:
        return True
    first = next(iter(todo))
    seen = {first}
    queue = deque([first])
    while queue:
        h = queue.popleft()
        for d in DIRECTIONS:
            n = h.step(d)
            if n in todo and n not in seen and side_of(h, d) not in walls:
                seen.add(n)
                queue.append(n)
    return seen == todo


class _Builder:
    """Reads one section of the data after the other, checking each against what came before."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data, self.source = data, source
        grid = data["grid"]
        rows, cols = grid["rows"], grid["cols"]
        if not (isinstance(rows, int) and isinstance(cols, int) and 0 < rows <= len(ROW_LETTERS) and cols > 0):
            raise CityError(f"{source}: [grid] rows must be 1..{len(ROW_LETTERS)} and cols positive")
        self.rows, self.cols = rows, cols
        self.rd = _Reader(source, rows, cols)
        self.names: dict[str, str] = {}
        self.legend: dict[str, str] = {}
        self.terrain_rows: tuple[str, ...] = ()
        self.all_walls: frozenset[Side] = frozenset()
        self.place_hexes: dict[str, set[Hex]] = {}

    @property
    def all_hexes(self) -> Iterable[Hex]:
        return (Hex(r, c) for r in range(self.rows) for c in range(self.cols))

    def on_map(self, h: Hex) -> bool:
        return 0 <= h.row < self.rows and 0 <= h.col < self.cols

    def terrain(self, h: Hex) -> str:
        return self.legend[self.terrain_rows[h.row][h.col]]

    def joined(self, a: Hex, b: Hex) -> bool:
        return distance(a, b) == 1 and side_between(a, b) not in self.all_walls

    def claim(self, name: str, what: str) -> None:
        if name in self.names:
            raise self.rd.error(f"{what} {name!r}: the name is already used by a {self.names[name]}")
        self.names[name] = what

    def every_hex_of(self, terrain: str, claimed: Mapping[Hex, Any] | set[Hex], table: str) -> None:
        for h in self.all_hexes:
            if self.terrain(h) == terrain and h not in claimed:
                raise self.rd.error(f"hex {h} is {terrain} but belongs to no {table}")

    # -- sections

    def grid(self) -> None:
        rd = self.rd
        self.legend = {str(k): str(v) for k, v in self.data["legend"].items()}
        for key, kind in self.legend.items():
            if len(key) != 1:
                raise rd.error(f"[legend] key {key!r} must be one character")
            if kind not in TERRAINS:
                raise rd.error(f"[legend] {key!r} = {kind!r} is not a terrain of the table {TERRAINS}")
        self.terrain_rows = tuple(str(r) for r in self.data["terrain"]["rows"])
        if len(self.terrain_rows) != self.rows:
            raise rd.error(f"[terrain] has {len(self.terrain_rows)} rows, [grid] says {self.rows}")
        for r, line in enumerate(self.terrain_rows):
            if len(line) != self.cols:
                raise rd.error(f"[terrain] row {ROW_LETTERS[r]} has {len(line)} hexes, not {self.cols}")
            for c, ch in enumerate(line):
                if ch not in self.legend:
                    raise rd.error(f"[terrain] hex {Hex(r, c)}: unknown terrain key {ch!r}")

    def walls(self) -> tuple[Wall, tuple[Wall, ...], tuple[Gate, ...]]:
        rd = self.rd
        raw_mura = self.data["mura"]
        mura_sides = [rd.side(v, "[mura]") for v in raw_mura["sides"]]
        if len(set(mura_sides)) != len(mura_sides):
            raise rd.error("[mura]: a side is listed twice")
        mura = Wall(str(raw_mura.get("name", "Mura")), frozenset(mura_sides))
        self.claim(mura.name, "wall")
        walls = []
        for raw in self.data.get("wall", []):
            name = rd.name(raw, "[[wall]]")
            self.claim(name, "wall")
            sides = [rd.side(v, f"wall {name!r}") for v in raw["sides"]]
            if len(set(sides)) != len(sides):
                raise rd.error(f"wall {name!r}: a side is listed twice")
            walls.append(Wall(name, frozenset(sides)))
        self.all_walls = frozenset(mura.sides.union(*(w.sides for w in walls)))
        gates = []
        for raw in self.data.get("gate", []):
            name = rd.name(raw, "[[gate]]")
            self.claim(name, "gate")
            side = rd.side(raw.get("side"), f"gate {name!r}")
            if side in self.all_walls:
                raise rd.error(f"gate {name!r}: side {side} is a wall side, not an opening")
            for h in side.hexes:
                if self.terrain(h) not in ("strada", "viale"):
                    raise rd.error(f"gate {name!r}: hex {h} is {self.terrain(h)}, a gate joins street hexes")
            gates.append(Gate(name, side, str(raw.get("source", ""))))
        return mura, tuple(walls), tuple(gates)

    def streets(self) -> tuple[Street, ...]:
        rd = self.rd
        out = []
        for raw in self.data.get("street", []):
            name = rd.name(raw, "[[street]]")
            self.claim(name, "street")
            where = f"street {name!r}"
            kind = raw.get("kind")
            if kind not in STREET_KINDS:
                raise rd.error(f"{where}: kind {kind!r} is not one of {STREET_KINDS}")
            hexes = rd.hexes(raw, where)
            if len(hexes) < 2:
                raise rd.error(f"{where}: a street needs at least two hexes")
            for a, b in zip(hexes, hexes[1:]):
                if distance(a, b) != 1:
                    raise rd.error(f"{where}: {a} and {b} are not adjacent, the street is not a connected hex line")
                if side_between(a, b) in self.all_walls:
                    raise rd.error(f"{where}: a wall lies between {a} and {b}")
            allowed = {"strada": {"strada", "viale"}, "viale": {"viale"}, "discesa": SLOPES,
                       "salita": SLOPES, "scale": {"scale"}}[kind]
            for h in hexes:
                if self.terrain(h) not in allowed:
                    raise rd.error(f"{where}: hex {h} is {self.terrain(h)}, a {kind} runs on {sorted(allowed)}")
            out.append(Street(name, kind, hexes, str(raw.get("source", ""))))
        return tuple(out)

    def squares(self) -> tuple[Square, ...]:
        out = []
        for raw in self.data.get("square", []):
            name = self.rd.name(raw, "[[square]]")
            self.claim(name, "square")
            hexes = self.rd.hexes(raw, f"square {name!r}")
            for h in hexes:
                if self.terrain(h) != "viale":
                    raise self.rd.error(f"square {name!r}: hex {h} is {self.terrain(h)}, squares are grey (viale) hexes")
            if not _connected(hexes, self.all_walls):
                raise self.rd.error(f"square {name!r}: its hexes are not connected")
            out.append(Square(name, hexes, str(raw.get("source", ""))))
        return tuple(out)

    def bridges(self) -> tuple[Bridge, ...]:
        rd = self.rd
        out = []
        for raw in self.data.get("bridge", []):
            name = rd.name(raw, "[[bridge]]")
            self.claim(name, "bridge")
            hexes = rd.hexes(raw, f"bridge {name!r}")
            if not is_hex_line(hexes) or any(side_between(a, b) in self.all_walls for a, b in zip(hexes, hexes[1:])):
                raise rd.error(f"bridge {name!r}: its hexes are not a connected hex line")
            for h in hexes:
                if self.terrain(h) not in ("strada", "viale"):
                    raise rd.error(f"bridge {name!r}: hex {h} is {self.terrain(h)}, a bridge carries a street")
                if not any(self.on_map(n) and self.terrain(n) == "fiume" for n in (h.step(d) for d in DIRECTIONS)):
                    raise rd.error(f"bridge {name!r}: hex {h} does not touch the river")
            out.append(Bridge(name, hexes, str(raw.get("source", ""))))
        return tuple(out)

    def slopes(self, streets: tuple[Street, ...]) -> dict[Hex, str]:
        """Every slope hex lies on exactly one discesa/salita street, which gives its way down."""
        down_of: dict[Hex, str] = {}
        for s in streets:
            if s.kind not in SLOPES:
                continue
            down = s.hexes if s.kind == "discesa" else tuple(reversed(s.hexes))
            for i, h in enumerate(down):
                if h in down_of:
                    raise self.rd.error(f"street {s.name!r}: slope hex {h} is on two slopes")
                step = (down[i], down[i + 1]) if i + 1 < len(down) else (down[i - 1], down[i])
                d = direction(*step)
                assert d is not None
                down_of[h] = d
        for h in self.all_hexes:
            if self.terrain(h) in SLOPES and h not in down_of:
                raise self.rd.error(f"hex {h} is {self.terrain(h)} but on no discesa/salita street (its way down is unknown)")
        return down_of

    def parts(self, mura: Wall, gates: tuple[Gate, ...], bridges: tuple[Bridge, ...],
              streets: tuple[Street, ...]) -> dict[Hex, int]:
        """The three parts (8h): the regions left when the Mura (gates closed) and the river go."""
        rd = self.rd
        band = {h for h in self.all_hexes if self.terrain(h) == "fiume"} | {h for b in bridges for h in b.hexes}
        closed = mura.sides | {g.side for g in gates}
        regions: list[set[Hex]] = []
        seen: set[Hex] = set(band)
        for first in self.all_hexes:
            if first in seen:
                continue
            region = {first}
            seen.add(first)
            queue = deque([first])
            while queue:
                h = queue.popleft()
                for d in DIRECTIONS:
                    n = h.step(d)
                    if self.on_map(n) and n not in seen and side_of(h, d) not in closed:
                        seen.add(n)
                        region.add(n)
                        queue.append(n)
            regions.append(region)
        if len(regions) != 3:
            sizes = sorted((len(r) for r in regions), reverse=True)
            raise rd.error(f"[mura] and [river] must split the City into 3 parts (8h), found {len(regions)} "
                           f"regions of {sizes} hexes: a wall side or river hex is missing or one too many")
        west = [r for r in regions if any(h.col == 0 for h in r)]
        east = [r for r in regions if any(h.col == self.cols - 1 for h in r)]
        if len(west) != 1 or len(east) != 1 or west[0] is east[0]:
            raise rd.error("[mura] and [river]: part 1 must hold the West edge and part 3 the East edge")
        middle = next(r for r in regions if r is not west[0] and r is not east[0])
        parts = {h: 1 for h in west[0]} | {h: 2 for h in middle} | {h: 3 for h in east[0]}
        for p, region in ((1, west[0]), (2, middle), (3, east[0])):
            if not any(h.row == 0 for h in region) or not any(h.row == self.rows - 1 for h in region):
                raise rd.error(f"part {p} must reach both the North and the South edge (8h)")
        for side in mura.sides:
            a, b = side.hexes
            if {parts.get(a), parts.get(b)} != {1, 2}:
                raise rd.error(f"[mura]: side {side} does not lie between part 1 and part 2")
        for g in gates:
            a, b = g.side.hexes
            if {parts.get(a), parts.get(b)} != {1, 2}:
                raise rd.error(f"gate {g.name!r}: side {g.side} is not on the walls (between part 1 and part 2)")
        for br in bridges:
            ends = {parts.get(n) for h in (br.hexes[0], br.hexes[-1]) for n in (h.step(d) for d in DIRECTIONS)
                    if self.on_map(n) and self.joined(h, n)}
            if not {2, 3} <= ends:
                raise rd.error(f"bridge {br.name!r} does not join part 2 to part 3 across the river")
        for s in streets:
            if any(h not in parts for h in s.hexes):
                raise rd.error(f"street {s.name!r} runs onto the river band; bridges are [[bridge]] entries")
        return parts

    def areas(self) -> tuple[Area, ...]:
        rd = self.rd
        out = []
        area_of: dict[Hex, str] = {}
        for raw in self.data.get("area", []):
            name = rd.name(raw, "[[area]]")
            self.claim(name, "area")
            kind = raw.get("kind")
            if kind not in AREA_KINDS:
                raise rd.error(f"area {name!r}: kind {kind!r} is not one of {AREA_KINDS}")
            hexes = rd.hexes(raw, f"area {name!r}")
            for h in hexes:
                if self.terrain(h) != kind:
                    raise rd.error(f"area {name!r}: hex {h} is {self.terrain(h)}, not {kind}")
                if h in area_of:
                    raise rd.error(f"area {name!r}: hex {h} is already in area {area_of[h]!r}")
                area_of[h] = name
            if not _connected(hexes, self.all_walls):
                raise rd.error(f"area {name!r}: its hexes are not connected")
            out.append(Area(name, str(kind), hexes, str(raw.get("source", ""))))
        for kind in AREA_KINDS:
            self.every_hex_of(kind, area_of, "[[area]]")
        return tuple(out)

    def places(self, *groups: tuple[Street, ...] | tuple[Square, ...] | tuple[Bridge, ...]) -> None:
        self.place_hexes = {p.name: set(p.hexes) for group in groups for p in group}
        addressed = {h for hexes in self.place_hexes.values() for h in hexes}
        for kind in sorted(STREET_TERRAINS):
            self.every_hex_of(kind, addressed, "street, square or bridge")

    def fronts(self, hexes: Iterable[Hex], address: str) -> bool:
        """Whether one of ``hexes`` touches the place ``address`` through an open side."""
        targets = self.place_hexes[address]
        return any(n in targets and self.joined(h, n) for h in hexes for n in (h.step(d) for d in DIRECTIONS))

    def address(self, raw: Mapping[str, Any], where: str, key: str = "address") -> str:
        address = raw.get(key)
        if address not in self.place_hexes:
            raise self.rd.error(f"{where}: {key} {address!r} is not a street, square or bridge of the City")
        return str(address)

    def objectives(self) -> tuple[tuple[Category, ...], tuple[Objective, ...], tuple[ObjectiveSet, ...]]:
        rd = self.rd
        table = self.data["objective_table"]
        values = {t: table[t] for t in TIERS}
        if not all(isinstance(v, int) for v in values.values()) or \
                not all(values[a] > values[b] > 0 for a, b in zip(TIERS, TIERS[1:])):
            raise rd.error(f"[objective_table]: values must fall strictly from molti to minimo, got {values}")
        cats: dict[str, Category] = {}
        for raw in self.data["category"]:
            code = str(raw.get("code", ""))
            if not code or code in cats:
                raise rd.error(f"category {code!r}: empty or duplicate code")
            tier = raw.get("tier")
            if tier not in TIERS:
                raise rd.error(f"category {code!r}: tier {tier!r} is not one of {TIERS}")
            cats[code] = Category(code, str(raw.get("name", code)), str(tier), values[tier])
        if ORG_REAZ not in cats:
            raise rd.error(f"no category {ORG_REAZ!r}: its hexes are the ORG./REAZ. hexes of the scenarios")
        objectives: list[Objective] = []
        objective_of: dict[Hex, str] = {}
        for raw in self.data["objective"]:
            code = raw.get("category")
            where = f"objective {code}, {raw.get('address')!r}"
            if code not in cats:
                raise rd.error(f"{where}: unknown category {code!r}")
            address = self.address(raw, where)
            hexes = rd.hexes(raw, where)
            for h in hexes:
                if self.terrain(h) != "obiettivo":
                    raise rd.error(f"{where}: hex {h} is {self.terrain(h)}, objectives are obiettivo (yellow) hexes")
                if h in objective_of:
                    raise rd.error(f"{where}: hex {h} is already objective {objective_of[h]}")
                objective_of[h] = f"{code}, {address!r}"
                if not self.fronts([h], address):
                    raise rd.error(f"{where}: hex {h} does not open on {address!r}")
            if any(o.category == code and o.address == address for o in objectives):
                raise rd.error(f"{where}: listed twice")
            objectives.append(Objective(str(code), address, hexes, cats[str(code)].value))
        self.every_hex_of("obiettivo", objective_of, "[[objective]]")
        if table.get("count") != len(objective_of):
            raise rd.error(f"[objective_table]: count = {table.get('count')!r}, "
                           f"but the objectives hold {len(objective_of)} hexes")
        sets = []
        for raw in self.data.get("objective_set", []):
            scenario = str(raw.get("scenario", ""))
            codes = tuple(str(c) for c in raw.get("categories", []))
            for c in codes:
                if c not in cats:
                    raise rd.error(f"objective set {scenario!r}: unknown category {c!r}")
            total = sum(o.value * len(o.hexes) for o in objectives if o.category in codes)
            if total != raw.get("total"):
                raise rd.error(f"objective set {scenario!r}: its objectives total {total}, not {raw.get('total')!r}")
            sets.append(ObjectiveSet(scenario, codes, total))
        return tuple(cats.values()), tuple(objectives), tuple(sets)

    def buildings(self, objectives: tuple[Objective, ...]) -> tuple[Building, ...]:
        rd = self.rd
        out = []
        for raw in self.data.get("building", []):
            name = rd.name(raw, "[[building]]")
            self.claim(name, "building")
            role = raw.get("role")
            if role not in BUILDING_ROLES:
                raise rd.error(f"building {name!r}: role {role!r} is not one of {BUILDING_ROLES}")
            address = self.address(raw, f"building {name!r}")
            hexes = rd.hexes(raw, f"building {name!r}")
            for h in hexes:
                if self.terrain(h) != "caseggiato":
                    raise rd.error(f"building {name!r}: hex {h} is {self.terrain(h)}, buildings are caseggiato hexes")
            if not _connected(hexes, frozenset()):
                raise rd.error(f"building {name!r}: its hexes are not connected")
            own = {h for o in objectives if o.address == address for h in o.hexes}
            touches = any(n in own for h in hexes for n in (h.step(d) for d in DIRECTIONS))
            if not self.fronts(hexes, address) and not touches:
                raise rd.error(f"building {name!r}: it neither opens on {address!r} nor touches an objective there")
            out.append(Building(name, str(role), address, hexes))
        for role in BUILDING_ROLES:
            if not any(b.role == role for b in out):
                raise rd.error(f"no building with role {role!r}")
        return tuple(out)

    def caserme(self) -> tuple[Caserma, ...]:
        rd = self.rd
        out: list[Caserma] = []
        caserma_of: dict[Hex, int] = {}
        for raw in self.data.get("caserma", []):
            number = raw.get("number")
            where = f"caserma {number!r}"
            if not isinstance(number, int) or any(c.number == number for c in out):
                raise rd.error(f"{where}: the number must be a unique integer")
            address = self.address(raw, where)
            hexes = rd.hexes(raw, where)
            for h in hexes:
                if self.terrain(h) != "caserma":
                    raise rd.error(f"{where}: hex {h} is {self.terrain(h)}, caserme are caserma (violet) hexes")
                if h in caserma_of:
                    raise rd.error(f"{where}: hex {h} is already in caserma {caserma_of[h]}")
                caserma_of[h] = number
            if not _connected(hexes, self.all_walls):
                raise rd.error(f"{where}: its hexes are not connected")
            if not raw.get("exits"):
                raise rd.error(f"{where}: no exit road hex (6c: units leave from the numbered road hexes)")
            exits = rd.hexes(raw, where, "exits")
            for e in exits:
                if self.terrain(e) not in ("strada", "viale"):
                    raise rd.error(f"{where}: exit {e} is {self.terrain(e)}, exits are road hexes")
                if not any(self.joined(e, h) for h in hexes):
                    raise rd.error(f"{where}: exit {e} does not touch the caserma through an open side")
            out.append(Caserma(number, address, hexes, exits))
        if sorted(c.number for c in out) != list(range(1, len(out) + 1)) or len(out) < 3:
            raise rd.error("caserme must be numbered 1, 2, 3, ... without gaps (3a names caserme 1, 2 and 3)")
        self.every_hex_of("caserma", caserma_of, "[[caserma]]")
        return tuple(out)

    def metro(self) -> tuple[tuple[Station, ...], tuple[MetroLine, ...]]:
        rd = self.rd
        stations: list[Station] = []
        station_of: dict[Hex, str] = {}
        for raw in self.data.get("station", []):
            name = rd.name(raw, "[[station]]")
            self.claim(f"Metro {name}", "station")
            where = f"station {name!r}"
            street = self.address(raw, where, "street")
            hexes = rd.hexes(raw, where)
            for h in hexes:
                if self.terrain(h) != "metro":
                    raise rd.error(f"{where}: hex {h} is {self.terrain(h)}, stations are metro hexes")
                if h in station_of:
                    raise rd.error(f"{where}: hex {h} is already station {station_of[h]!r}")
                station_of[h] = name
            if not self.fronts(hexes, street):
                raise rd.error(f"{where}: it does not open on {street!r}")
            stations.append(Station(name, street, hexes, ()))
        self.every_hex_of("metro", station_of, "[[station]]")
        lines = []
        for raw in self.data.get("metro_line", []):
            name = rd.name(raw, "[[metro_line]]")
            self.claim(name, "metro line")
            on_line = tuple(str(s) for s in raw.get("stations", []))
            if len(on_line) < 2:
                raise rd.error(f"metro line {name!r}: a line needs two stations")
            for s in on_line:
                if s not in station_of.values():
                    raise rd.error(f"metro line {name!r}: unknown station {s!r}")
            lines.append(MetroLine(name, on_line))
        linked = tuple(Station(st.name, st.street, st.hexes, tuple(ln.name for ln in lines if st.name in ln.stations))
                       for st in stations)
        for st in linked:
            if not st.lines:
                raise rd.error(f"station {st.name!r} is on no metro line")
        return linked, tuple(lines)

    def start(self, parts: Mapping[Hex, int], squares: tuple[Square, ...]) -> str:
        start = str(self.data["start"]["square"])
        if not any(s.name == start for s in squares):
            raise self.rd.error(f"[start]: {start!r} is not a square of the City")
        if any(parts.get(h) != 1 for h in self.place_hexes[start]):
            raise self.rd.error(f"[start]: {start!r} must lie in part 1, West of the Walls (3a: top left)")
        return start


def parse_city(data: Mapping[str, Any], source: str = "city.toml") -> City:
    """Build and check the City from parsed TOML; raises ``CityError`` on any inconsistency."""
    b = _Builder(data, source)
    b.grid()
    mura, walls, gates = b.walls()
    streets, squares, bridges = b.streets(), b.squares(), b.bridges()
    river = str(data["river"].get("name", "Fiume"))
    b.claim(river, "river")
    slope_down = b.slopes(streets)
    b.places(streets, squares, bridges)
    parts = b.parts(mura, gates, bridges, streets)
    areas = b.areas()
    categories, objectives, sets = b.objectives()
    buildings = b.buildings(objectives)
    caserme = b.caserme()
    stations, lines = b.metro()
    start = b.start(parts, squares)
    return City(b.rows, b.cols, b.terrain_rows, b.legend, streets, squares, bridges, mura, gates, walls, areas,
                buildings, caserme, stations, lines, categories, objectives, sets, start, river, parts, slope_down)


def load_city(text: str | None = None) -> City:
    """The City from ``text`` (TOML) or from the packaged ``data/city.toml``."""
    return load_toml("pbem.games.corteo.data", "city.toml", text, parse_city, CityError, (*MALFORMED, AttributeError))


@cache
def city() -> City:
    """The packaged City, loaded once."""
    return load_city()
