"""The City: the hex map of Corteo, read from ``data/city.toml`` (rulebook A, B 1, C 1d, 2, 4c, 8h, 12).

Hexes are pointy-topped, in rows running West-East. A hex is named by its row letter (A-Z from the
North edge) and its column number (1-40 from the West edge), e.g. ``K12``; odd rows counted from 0
(B, D, F, ...) sit half a hex to the East ("odd-r" offset). Inside, distances and lines use axial
coordinates. A hex side is named by a hex and a direction (E, NE, NW, W, SW, SE): ``K12/E`` is
``K13/W``.

The Walls (Mura) and the River (Fiume) split the City West to East into three parts (8h): 1 from the
West edge to the Walls, 2 from the Walls to the River, 3 from the River to the East edge. Parts are
not written in the data: the loader finds them and checks that only gates and bridges join them.
The map is a reconstruction: see docs/games/corteo.md.

The hex geometry is in :mod:`pbem.games.corteo.hexgrid`, the loader that reads and checks the data
in :mod:`pbem.games.corteo.city_loader`; both are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Final, Iterable, Mapping

from pbem.games.corteo.hexgrid import (  # noqa: F401  (re-exported: the City's public names)
    DIRECTIONS, OPPOSITE, ROW_LETTERS, Hex, Side, axis_direction, direction, distance, hex_line, hex_lines,
    is_hex_line, parse_hex, parse_side, ring, side_between, side_of,
)

#: Terrain types of the terrain table (1d, 2, 4c, 7f, 8c). Walls lie on hex sides, not in hexes.
TERRAINS: Final = (
    "strada", "viale", "discesa", "salita", "scale", "giardino", "caseggiato", "fiume",
    "case_popolari", "affollato", "obiettivo", "caserma", "metro",
)
#: Hexes no unit may enter (4c): caseggiato and fiume (covered objectives become caseggiato, 12a).
FORBIDDEN: Final = frozenset({"caseggiato", "fiume"})
STREET_TERRAINS: Final = frozenset({"strada", "viale", "discesa", "salita", "scale"})
SLOPES: Final = frozenset({"discesa", "salita"})
STREET_KINDS: Final = ("strada", "viale", "discesa", "salita", "scale")
AREA_KINDS: Final = ("giardino", "case_popolari", "affollato")
BUILDING_ROLES: Final = ("carcere", "clinica", "tribunale")
TIERS: Final = ("molti", "molto", "medio", "minimo")  # 12b, from "vale molti punti" to "il minimo"
EDGES: Final = ("N", "S", "W", "E")
ORG_REAZ: Final = "ORG./REAZ."

class CityError(ValueError):
    """The city data is inconsistent; the message names the file and the entry."""



# -- the city -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Street:
    """A named street: its hexes in order; slopes run downhill (discesa) or uphill (salita)."""

    name: str
    kind: str  # strada | viale | discesa | salita | scale
    hexes: tuple[Hex, ...]
    source: str  # rulebook section naming it, "reconstruction" (public facts), or "" (ours)


@dataclass(frozen=True)
class Square:
    """A piazza, largo or piazzale: grey hexes (1d "Viali, larghi, piazze")."""

    name: str
    hexes: tuple[Hex, ...]
    source: str


@dataclass(frozen=True)
class Bridge:
    """A bridge over the River: street hexes crossing the river band from part 2 to part 3."""

    name: str
    hexes: tuple[Hex, ...]
    source: str


@dataclass(frozen=True)
class Gate:
    """A gate (Porta) of the Walls: an open side between part 1 and part 2 (3a)."""

    name: str
    side: Side
    source: str


@dataclass(frozen=True)
class Wall:
    """Wall sides: the city walls (Mura) or an enclosure ("Muri e/o Mura", 1d)."""

    name: str
    sides: frozenset[Side]


@dataclass(frozen=True)
class Area:
    """A named group of hexes of one kind: giardino, case_popolari (QP) or affollato."""

    name: str
    kind: str
    hexes: tuple[Hex, ...]
    source: str


@dataclass(frozen=True)
class Building:
    """A building of caseggiato hexes with a role: the prison (8f), a clinic, the law courts."""

    name: str
    role: str  # carcere | clinica | tribunale
    address: str
    hexes: tuple[Hex, ...]


@dataclass(frozen=True)
class Caserma:
    """A numbered barracks (violet hexes) and its numbered exit road hexes (3a, 6c)."""

    number: int
    address: str
    hexes: tuple[Hex, ...]
    exits: tuple[Hex, ...]


@dataclass(frozen=True)
class Station:
    """A metro station (M hexes, 5b) opening on a street."""

    name: str
    street: str
    hexes: tuple[Hex, ...]
    lines: tuple[str, ...]


@dataclass(frozen=True)
class MetroLine:
    name: str
    stations: tuple[str, ...]


@dataclass(frozen=True)
class Category:
    """An objective category of 12b, with its tier and the value of each of its hexes."""

    code: str  # as the scenarios name it: GOVERNO, DIPLO, ORG./REAZ., ...
    name: str
    tier: str
    value: int


@dataclass(frozen=True)
class Objective:
    """An objective of 12b at its address; each of its yellow hexes is worth ``value`` (12a)."""

    category: str
    address: str
    hexes: tuple[Hex, ...]
    value: int

    @property
    def name(self) -> str:
        return f"{self.category}, {self.address}"


@dataclass(frozen=True)
class ObjectiveSet:
    """The objectives that score in a scenario (D) and their total."""

    scenario: str
    categories: tuple[str, ...]
    total: int


@dataclass(frozen=True, eq=False)
class City:
    rows: int
    cols: int
    terrain_rows: tuple[str, ...]  # one string per row of terrain keys, see ``terrain``
    legend: Mapping[str, str]
    streets: tuple[Street, ...]
    squares: tuple[Square, ...]
    bridges: tuple[Bridge, ...]
    mura: Wall
    gates: tuple[Gate, ...]
    walls: tuple[Wall, ...]  # other walls (enclosures)
    areas: tuple[Area, ...]
    buildings: tuple[Building, ...]
    caserme: tuple[Caserma, ...]
    stations: tuple[Station, ...]
    metro_lines: tuple[MetroLine, ...]
    categories: tuple[Category, ...]
    objectives: tuple[Objective, ...]
    objective_sets: tuple[ObjectiveSet, ...]
    start: str
    river: str
    parts: Mapping[Hex, int] = field(repr=False)
    slope_down: Mapping[Hex, str] = field(repr=False)
    _wall_sides: frozenset[Side] = field(init=False, repr=False)
    _gate_sides: frozenset[Side] = field(init=False, repr=False)
    _objective_of: Mapping[Hex, Objective] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        sides = set(self.mura.sides)
        for w in self.walls:
            sides |= w.sides
        object.__setattr__(self, "_wall_sides", frozenset(sides))
        object.__setattr__(self, "_gate_sides", frozenset(g.side for g in self.gates))
        objective_of: dict[Hex, Objective] = {}
        for o in self.objectives:
            for h in o.hexes:
                objective_of.setdefault(h, o)  # the first objective that holds the hex, as a scan finds it
        object.__setattr__(self, "_objective_of", objective_of)

    # -- hexes and terrain

    def on_map(self, h: Hex) -> bool:
        return 0 <= h.row < self.rows and 0 <= h.col < self.cols

    def hex(self, label: str) -> Hex:
        """The on-map hex named ``label`` (raises ``ValueError`` otherwise)."""
        h = parse_hex(label)
        if h is None or not self.on_map(h):
            raise ValueError(f"not a hex of the City: {label!r}")
        return h

    def parse(self, text: str) -> Hex | None:
        h = parse_hex(text)
        return h if h is not None and self.on_map(h) else None

    @cached_property
    def hexes(self) -> tuple[Hex, ...]:
        return tuple(Hex(r, c) for r in range(self.rows) for c in range(self.cols))

    def terrain(self, h: Hex) -> str:
        return self.legend[self.terrain_rows[h.row][h.col]]

    def hexes_of(self, terrain: str) -> tuple[Hex, ...]:
        return tuple(h for h in self.hexes if self.terrain(h) == terrain)

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        """The on-map neighbours of ``h`` (walls not considered)."""
        return tuple(n for n in (h.step(d) for d in DIRECTIONS) if self.on_map(n))

    def wall_between(self, a: Hex, b: Hex) -> bool:
        """Whether a wall (the Mura or an enclosure) lies on the side between ``a`` and ``b``."""
        return side_between(a, b) in self._wall_sides

    def is_wall(self, side: Side) -> bool:
        return side in self._wall_sides

    def is_gate(self, side: Side) -> bool:
        return side in self._gate_sides

    def open_neighbours(self, h: Hex) -> tuple[Hex, ...]:
        """Neighbours not behind a wall side (2, 4c: "esa adiacenti per lato di muro")."""
        return tuple(n for n in self.neighbours(h) if not self.wall_between(h, n))

    # -- slopes (4c, 7f, 8c)

    def slope_effect(self, frm: Hex, to: Hex) -> str | None:
        """"discesa" or "salita" for a step (or throw, or attack) from ``frm`` into slope hex ``to``.

        A slope hex has a downhill direction; moving within 60 degrees of it is going down
        (discesa), otherwise up (salita). None if ``to`` is not a slope hex.
        """
        down = self.slope_down.get(to)
        if down is None:
            return None
        d = direction(frm, to)
        if d is None:
            raise ValueError(f"{frm} and {to} are not adjacent")
        i, j = DIRECTIONS.index(d), DIRECTIONS.index(down)
        return "discesa" if min((i - j) % 6, (j - i) % 6) <= 1 else "salita"

    # -- parts and edges (8h, scenarios)

    def part(self, h: Hex) -> int | None:
        """1 West edge-Walls, 2 Walls-River, 3 River-East edge; None on the river (incl. bridges)."""
        return self.parts.get(h)

    def edges(self, h: Hex) -> frozenset[str]:
        """The map edges ``h`` lies on (N, S, W, E; two for a corner)."""
        out = set()
        if h.row == 0:
            out.add("N")
        if h.row == self.rows - 1:
            out.add("S")
        if h.col == 0:
            out.add("W")
        if h.col == self.cols - 1:
            out.add("E")
        return frozenset(out)

    def edge_hexes(self, edge: str, part: int | None = None) -> tuple[Hex, ...]:
        """The hexes of ``edge``; on N and S, only those of ``part`` when given (8h)."""
        if edge not in EDGES:
            raise ValueError(f"not an edge: {edge!r}")
        return tuple(h for h in self.hexes if edge in self.edges(h)
                     and (part is None or self.part(h) == part))

    def edge_part(self, h: Hex) -> tuple[str, int] | None:
        """For a hex of the N or S edge, the edge and the part of it (8h: re-entry on the same part)."""
        for edge in ("N", "S"):
            if edge in self.edges(h):
                p = self.part(h)
                return (edge, p) if p is not None else None
        return None

    # -- places

    def street(self, name: str) -> Street:
        for s in self.streets:
            if s.name == name:
                return s
        raise KeyError(f"no street {name!r}")

    def square(self, name: str) -> Square:
        for s in self.squares:
            if s.name == name:
                return s
        raise KeyError(f"no square {name!r}")

    def place_hexes(self, name: str) -> tuple[Hex, ...]:
        """The hexes of a street, square, bridge, area, building, station or caserma ("Caserma 3")."""
        for group in (self.streets, self.squares, self.bridges, self.areas, self.buildings, self.stations):
            for p in group:
                if p.name == name:
                    return p.hexes
        for c in self.caserme:
            if f"Caserma {c.number}" == name:
                return c.hexes
        for g in self.gates:
            if g.name == name:
                return g.side.hexes
        raise KeyError(f"no place {name!r}")

    def addresses(self, h: Hex) -> tuple[str, ...]:
        """Names of the streets, squares and bridges that hold ``h``."""
        return tuple(p.name for group in (self.streets, self.squares, self.bridges)
                     for p in group if h in p.hexes)

    def objective_at(self, h: Hex) -> Objective | None:
        return self._objective_of.get(h)

    def caserma(self, number: int) -> Caserma:
        for c in self.caserme:
            if c.number == number:
                return c
        raise KeyError(f"no caserma {number}")

    def category(self, code: str) -> Category:
        for c in self.categories:
            if c.code == code:
                return c
        raise KeyError(f"no objective category {code!r}")

    def objective_set(self, scenario: str) -> ObjectiveSet:
        for s in self.objective_sets:
            if s.scenario == scenario:
                return s
        raise KeyError(f"no objective set {scenario!r}")

    def set_total(self, categories: Iterable[str]) -> int:
        """Points of every objective hex of ``categories`` (the scenario totals of D)."""
        wanted = set(categories)
        return sum(o.value * len(o.hexes) for o in self.objectives if o.category in wanted)

    @cached_property
    def objective_hexes(self) -> tuple[Hex, ...]:
        return tuple(h for o in self.objectives for h in o.hexes)

    @property
    def prison_hexes(self) -> tuple[Hex, ...]:
        """The hexes of the prison building where arrested units go (8f)."""
        return tuple(h for b in self.buildings if b.role == "carcere" for h in b.hexes)

    @property
    def clinic_hexes(self) -> tuple[Hex, ...]:
        """The clinic hexes (Scenario antifascista: rally units sent "all'ospedale")."""
        return tuple(h for b in self.buildings if b.role == "clinica" for h in b.hexes)

    @property
    def org_reaz_hexes(self) -> tuple[Hex, ...]:
        """The ORG./REAZ. hexes (Scenario antifascista): the reactionary organisations' objectives."""
        return tuple(h for o in self.objectives if o.category == ORG_REAZ for h in o.hexes)

    @cached_property
    def metro_hexes(self) -> tuple[Hex, ...]:
        return tuple(h for s in self.stations for h in s.hexes)

    @cached_property
    def caserma_hexes(self) -> tuple[Hex, ...]:
        return tuple(h for c in self.caserme for h in c.hexes)

    @cached_property
    def caserma_set(self) -> frozenset[Hex]:
        """The barracks hexes as a set: "is this a barracks hex" without a scan."""
        return frozenset(self.caserma_hexes)

    @cached_property
    def metro_set(self) -> frozenset[Hex]:
        return frozenset(self.metro_hexes)



from pbem.games.corteo.city_loader import city, load_city, parse_city  # noqa: E402,F401  (re-exported)
