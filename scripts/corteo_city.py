"""Generate ``pbem/games/corteo/data/city.toml``: the City of Corteo as a hex map (docs/games/corteo.md).

The data file is what the game reads; this script is how it was drawn, and it reproduces the file
exactly. Edit the layout here (or the file by hand, then stop using the script):

    python scripts/corteo_city.py           # rewrite the data file
    python scripts/corteo_city.py --check   # exit 1 if the file differs from what the script makes
    python scripts/corteo_city.py --show    # print the map as text (odd rows indented half a hex)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pbem.games.corteo.city import DIRECTIONS, Hex, distance, hex_line, load_city, side_of

OUT = Path(__file__).resolve().parent.parent / "pbem" / "games" / "corteo" / "data" / "city.toml"
ROWS, COLS = 26, 40
KEYS = {"strada": ".", "viale": "=", "discesa": "v", "salita": "^", "scale": "s", "giardino": "g",
        "caseggiato": "#", "fiume": "~", "case_popolari": "p", "affollato": "a", "obiettivo": "o",
        "caserma": "c", "metro": "m"}
STREET_KEY = {"strada": ".", "viale": "=", "discesa": "v", "salita": "^", "scale": "s"}


def wall_col(r: int) -> int:
    """Last column (0-based) West of the Walls in row ``r``: a bastion bulges East in rows I-Q."""
    return 11 if 8 <= r <= 16 else 10


def river_col(r: int) -> int:
    """First column (0-based) of the two-hex-wide River in row ``r``: it meanders."""
    return 27 if r <= 5 else 26 if r <= 12 else 27 if r <= 19 else 28


def part(h: Hex) -> int | None:
    if h.col <= wall_col(h.row):
        return 1
    if river_col(h.row) <= h.col <= river_col(h.row) + 1:
        return None
    return 2 if h.col < river_col(h.row) else 3


def H(r: int, c: int) -> Hex:
    return Hex(r, c)


def row(r: int, c0: int, c1: int) -> list[Hex]:
    step = 1 if c1 >= c0 else -1
    return [H(r, c) for c in range(c0, c1 + step, step)]


def col(c: int, r0: int, r1: int) -> list[Hex]:
    step = 1 if r1 >= r0 else -1
    return [H(r, c) for r in range(r0, r1 + step, step)]


def path(*points: tuple[int, int]) -> list[Hex]:
    """Hexes from point to point along straight hex lines."""
    out: list[Hex] = []
    for a, b in zip(points, points[1:]):
        for h in hex_line(H(*a), H(*b)):
            if not out or out[-1] != h:
                out.append(h)
    return out


def bank(offset: int) -> list[Hex]:
    """The hexes along the River, ``offset`` columns from its first column, North to South."""
    out: list[Hex] = []
    for r in range(ROWS):
        h = H(r, river_col(r) + offset)
        if out and distance(out[-1], h) > 1:
            out.append(next(m for m in (out[-1].step(d) for d in DIRECTIONS)
                            if distance(m, h) == 1 and part(m) is not None))
        out.append(h)
    return out


def rect(r0: int, r1: int, c0: int, c1: int) -> list[Hex]:
    return [H(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]


class Plan:
    """The City being drawn: terrain and every named thing, in the order they are added."""

    def __init__(self) -> None:
        self.grid = [["#"] * COLS for _ in range(ROWS)]
        for r in range(ROWS):
            self.grid[r][river_col(r)] = self.grid[r][river_col(r) + 1] = "~"
        self.streets: list[tuple[str, str, list[Hex], str]] = []
        self.squares: list[tuple[str, list[Hex], str]] = []
        self.bridges: list[tuple[str, list[Hex], str]] = []
        self.areas: list[tuple[str, str, list[Hex], str]] = []
        self.gates: list[tuple[str, Hex, str, str]] = []
        self.walls: list[tuple[str, list[tuple[Hex, str]]]] = []
        self.objectives: list[tuple[str, str, list[Hex]]] = []
        self.buildings: list[tuple[str, str, str, list[Hex]]] = []
        self.caserme: list[tuple[int, str, list[Hex], list[Hex]]] = []
        self.stations: list[tuple[str, str, list[Hex]]] = []
        self.reserved: set[Hex] = set()

    def key(self, h: Hex) -> str:
        return self.grid[h.row][h.col]

    def put(self, h: Hex, key: str, what: str) -> None:
        old = self.key(h)
        if old not in ("#", key) and not (key == "." and old == "="):
            raise SystemExit(f"{what}: {h} is already {old!r}")
        if h in self.reserved:
            raise SystemExit(f"{what}: {h} is reserved")
        if key == "." and old == "=":
            return
        self.grid[h.row][h.col] = key

    def street(self, name: str, kind: str, hexes: list[Hex], source: str = "") -> None:
        for h in hexes:
            self.put(h, STREET_KEY[kind], name)
        self.streets.append((name, kind, hexes, source))

    def square(self, name: str, hexes: list[Hex], source: str = "") -> None:
        for h in hexes:
            self.put(h, "=", name)
        self.squares.append((name, hexes, source))

    def bridge(self, name: str, r: int, kind: str = "viale", source: str = "") -> None:
        hexes = [H(r, river_col(r)), H(r, river_col(r) + 1)]
        for h in hexes:
            self.grid[h.row][h.col] = STREET_KEY[kind]
        self.bridges.append((name, hexes, source))

    def area(self, name: str, kind: str, hexes: list[Hex], source: str = "") -> None:
        for h in hexes:
            self.put(h, KEYS[kind], name)
        self.areas.append((name, kind, hexes, source))

    def place_of(self, name: str) -> list[Hex]:
        for n, _, hexes, _ in self.streets:
            if n == name:
                return hexes
        for n, hexes, _ in self.squares:
            if n == name:
                return hexes
        raise SystemExit(f"no place {name!r}")

    def pick(self, address: str, n: int, near: tuple[int, int], what: str, every: bool = True) -> list[Hex]:
        """``n`` connected building hexes opening on ``address`` (``every`` one, or the first), the
        first closest to ``near``."""
        front = set(self.place_of(address))
        target = H(*near)

        def free(h: Hex) -> bool:
            return (0 <= h.row < ROWS and 0 <= h.col < COLS and self.key(h) == "#"
                    and h not in self.reserved and part(h) is not None)

        def opens(h: Hex) -> bool:
            return any(h.step(d) in front and part(h.step(d)) == part(h) for d in DIRECTIONS)

        cands = sorted((h for f in front for h in (f.step(d) for d in DIRECTIONS) if free(h) and opens(h)),
                       key=lambda h: (distance(h, target), h))
        if not cands:
            raise SystemExit(f"{what}: no building hex on {address!r}")
        chosen = [cands[0]]
        while len(chosen) < n:
            more = sorted({m for c in chosen for m in (c.step(d) for d in DIRECTIONS)
                           if free(m) and m not in chosen and (opens(m) or not every)},
                          key=lambda h: (distance(h, target), h))
            if not more:
                raise SystemExit(f"{what}: only {len(chosen)} building hexes on {address!r} near {target}")
            chosen.append(more[0])
        return chosen

    def objective(self, category: str, address: str, n: int, near: tuple[int, int]) -> None:
        hexes = self.pick(address, n, near, f"objective {category} {address}")
        for h in hexes:
            self.put(h, "o", category)
        self.objectives.append((category, address, hexes))

    def building(self, name: str, role: str, address: str, hexes: list[Hex]) -> None:
        for h in hexes:
            if self.key(h) != "#" or h in self.reserved:
                raise SystemExit(f"building {name}: {h} is not a free building hex")
            self.reserved.add(h)
        self.buildings.append((name, role, address, hexes))

    def caserma(self, number: int, address: str, n: int, near: tuple[int, int]) -> None:
        """A barracks of ``n`` hexes; its numbered exits are the hexes of ``address`` it touches."""
        hexes = self.pick(address, n, near, f"caserma {number}", every=False)
        for h in hexes:
            self.put(h, "c", f"caserma {number}")
        front = set(self.place_of(address))
        exits = sorted({m for h in hexes for m in (h.step(d) for d in DIRECTIONS) if m in front},
                       key=lambda m: (distance(m, H(*near)), m))[:2]
        self.caserme.append((number, address, hexes, sorted(exits)))

    def building_behind(self, name: str, role: str, address: str, n: int) -> None:
        """A building of ``n`` hexes behind the objectives at ``address``."""
        own = [h for _, a, hexes in self.objectives if a == address for h in hexes]
        chosen: list[Hex] = []
        while len(chosen) < n:
            more = sorted({m for c in own + chosen for m in (c.step(d) for d in DIRECTIONS)
                           if 0 <= m.row < ROWS and 0 <= m.col < COLS and self.key(m) == "#"
                           and m not in self.reserved and m not in chosen and part(m) is not None
                           and (not chosen or any(distance(m, x) == 1 for x in chosen))})
            if not more:
                raise SystemExit(f"building {name}: no room behind {address}")
            chosen.append(more[0])
        self.building(name, role, address, sorted(chosen))

    def enclosure(self, name: str, area: str, openings: list[Hex]) -> None:
        """A wall round ``area`` on every side facing a street hex, except at ``openings``."""
        hexes = next(h for n, _, h, _ in self.areas if n == area)
        sides = set()
        for g in hexes:
            for d in DIRECTIONS:
                m = g.step(d)
                if 0 <= m.row < ROWS and 0 <= m.col < COLS and self.key(m) in STREET_KEY.values() \
                        and m not in openings:
                    sides.add(side_of(g, d))
        self.walls.append((name, [(x.hex, x.direction) for x in sorted(sides)]))

    def station(self, name: str, street: str, near: tuple[int, int]) -> None:
        hexes = self.pick(street, 1, near, f"station {name}")
        for h in hexes:
            self.put(h, "m", name)
        self.stations.append((name, street, hexes))

    def gate(self, name: str, r: int, source: str = "") -> None:
        """A gate on the Walls in row ``r``: the East side of the last hex of part 1."""
        self.gates.append((name, H(r, wall_col(r)), "E", source))

    def mura_sides(self) -> list[tuple[Hex, str]]:
        gates = {side_of(h, d) for _, h, d, _ in self.gates}
        out = set()
        for r in range(ROWS):
            for c in range(COLS):
                h = H(r, c)
                for d in DIRECTIONS:
                    n = h.step(d)
                    if part(h) == 1 and 0 <= n.row < ROWS and 0 <= n.col < COLS and part(n) == 2:
                        s = side_of(h, d)
                        if s not in gates:
                            out.add(s)
        return [(s.hex, s.direction) for s in sorted(out)]


# -- the layout ----------------------------------------------------------------------------------
# Rows are 0-based here (0 = A), columns 0-based (0 = column 1). Part 1: columns 0..wall_col(r);
# the River: river_col(r) and the next; part 2 between; part 3 East of the River.


def draw() -> Plan:
    p = Plan()
    rb = "3a"  # the set-up names Piazza Mento, Corso Storico, Viale Nin, Corso Maltese, Viale Billikid

    # Part 1: outside the Walls. Piazza Mento top left, the viali around it, Viale Billikid along the Walls.
    p.square("Piazza Mento", rect(1, 5, 1, 5), rb)
    p.street("Viale Billikid", "viale", [H(r, wall_col(r)) for r in range(ROWS)], rb)
    p.street("Viale Nin", "viale", row(3, 6, 9), rb)
    p.street("Corso Storico", "viale", col(3, 6, 25), rb)
    p.street("Corso Maltese", "viale", path((6, 5), (16, 10)), rb)
    p.street("Via Roto", "strada", row(0, 0, 9), "12b")
    p.street("Via Dotto", "strada", row(8, 4, 10), "12b")
    p.street("Via Pussa", "strada", row(12, 0, 10), "reconstruction")
    p.street("Via Tram", "strada", row(17, 0, 9), "12b")
    p.street("Viale Ovaliani", "viale", row(21, 0, 9), "12b")
    p.street("Via Chiappo", "strada", col(7, 9, 25), "12b")
    p.street("Vicolo dei Vigili", "strada", col(0, 1, 11))
    p.street("Via Tip Tap", "strada", row(24, 4, 6), "12b")

    # Part 2: the walled old town; gates on Viale Billikid, the west bank of the River.
    p.gate("Porta Pazienza", 3)
    p.gate("Porta Voce", 12)
    p.gate("Porta Fortuna", 21)
    p.street("Lungozombi degli Accavallati", "viale",
bank(-1), "12b")
    p.square("Piazzale Odio", rect(5, 7, 13, 16), "12b")
    p.square("Piazza della Robba", rect(6, 8, 19, 23), "12b")
    p.square("Piazza Fontana", rect(11, 13, 16, 19), "12b")
    p.square("Largo alle Tangenti", rect(16, 17, 13, 15), "12b")
    p.square("Piazza San Carlo al Berto", rect(22, 23, 19, 21), "12b")
    p.square("Piazza Obelix", rect(0, 1, 16, 17), "12b")
    p.square("Largo Sibemolle", rect(23, 24, 13, 14), "12b")
    p.street("Via le Mutande", "strada", row(3, 11, 25), "reconstruction")
    p.street("Corso degli Eventi", "viale", row(12, 12, 15), "reconstruction")
    p.street("Via Larga", "strada", row(12, 20, 24), "12b")
    p.street("Via Seggio", "strada", col(18, 2, 10), "12b")
    p.street("Via Veline", "strada", col(14, 8, 15), "12b")
    p.street("Via 'Ndante", "strada", row(9, 12, 24), "12b")
    p.street("Via Gary Baldi", "strada", row(15, 12, 25), "12b")
    p.street("Via il Polacco Errante", "strada", col(20, 13, 14), "12b")
    p.street("Via Orale", "strada", row(21, 11, 26), "12b")
    p.street("Vicolo Afgano", "strada", col(16, 18, 20), "12b")
    p.street("Via Mazzo", "strada", col(12, 16, 25), "12b")
    p.street("Salita al Potere", "salita", row(17, 16, 19))
    p.area("Giardini dei Fumatori", "giardino", rect(16, 18, 20, 22) + [H(19, 21)])
    p.street("Discesa Libera", "discesa", [H(19, 22), H(20, 22)])
    p.street("Scala Mercalli", "scale", [H(16, 23), H(16, 24)])
    p.area("Galleria delle Spezie", "affollato", rect(4, 4, 20, 22), "1d")
    p.street("Vicolo del Tempo", "strada", col(24, 4, 5))

    # The River and its bridges.
    p.bridge("Ponte Ponente", 2, "strada", "reconstruction")
    p.bridge("Ponte Radio", 12)
    p.bridge("Ponte Pi", 18, "strada", "reconstruction")
    p.bridge("Ponte di Comando", 23)

    # Part 3: East of the River, the business district.
    p.street("Lungozombi dei Camionisti", "viale",
bank(2), "12b")
    p.street("Bulvar dei Cappuccini", "viale", row(12, 29, 39), "12b")
    p.square("Largo Selva Nera", rect(2, 3, 33, 35), "12b")
    p.square("Piazza Quinta Colonna", rect(7, 9, 33, 36), "12b")
    p.square("Piazzale Bombe", rect(15, 17, 32, 35), "D")
    p.square("Piazza Lamerce", rect(21, 22, 34, 36), "reconstruction")
    p.square("Largo Rizia", rect(19, 19, 31, 32), "12b")
    p.street("Via Coca", "strada", row(5, 30, 39), "12b")
    p.street("Via Cola", "strada", col(37, 0, 11), "12b")
    p.street("Via del Greggio", "strada", row(1, 30, 36), "12b")
    p.street("Via Losim", "strada", col(31, 6, 11), "12b")
    p.street("Vicolo Marocchino", "strada", col(35, 10, 11), "12b")
    p.street("Via del Rock'n roll", "strada", row(14, 30, 39), "12b")
    p.street("Bulvar dei Cornetti", "viale", row(18, 30, 39), "12b")
    p.street("Corso Corto", "viale", col(33, 19, 20), "12b")
    p.street("Via Cento Celle", "strada", col(38, 19, 25), "12b")
    p.street("Via Dobbo", "strada", row(23, 31, 37), "12b")
    p.area("Centro Commerciale", "affollato", rect(9, 10, 29, 30), "1d")
    p.area("Case Popolari di Via Pussa", "case_popolari", rect(13, 16, 0, 2))
    p.area("Case Popolari dei Limoni", "case_popolari", rect(24, 25, 32, 34))
    p.area("Mercato Coperto", "affollato", rect(9, 10, 4, 5), "1d")
    p.area("Parco degli Sbracati", "giardino", rect(18, 20, 4, 6))
    p.enclosure("Recinto dei Giardini", "Giardini dei Fumatori", [H(17, 19), H(19, 22), H(16, 23)])

    # The 60 objectives of 12b at their addresses: category, address, hexes, near where.
    for category, address, n, near in OBJECTIVES:
        p.objective(category, address, n, near)
    p.building("Palazzo di Giustizia", "tribunale", "Piazzale Odio", [H(5, 11), H(6, 11), H(7, 11)])
    p.building("Carcere di Cento Celle", "carcere", "Via Cento Celle", rect(24, 25, 35, 36))
    p.building_behind("Clinica Villa Gotta", "clinica", "Via Tip Tap", 1)
    p.building_behind("Sanatorio di Via Orale", "clinica", "Via Orale", 2)

    # Caserme: 1, 2 and 3 near the centre (3a), the others in the far quarters.
    p.caserma(1, "Viale Billikid", 3, (6, 9))
    p.caserma(2, "Via 'Ndante", 3, (8, 17))
    p.caserma(3, "Bulvar dei Cappuccini", 3, (11, 33))
    p.caserma(4, "Corso Storico", 2, (23, 2))
    p.caserma(5, "Via Cola", 2, (2, 38))
    p.caserma(6, "Via Cento Celle", 2, (20, 39))

    # Metro stations (5b); Corso Storico's is named by 3a.
    p.station("Corso Storico", "Corso Storico", (8, 2))
    p.station("Billikid", "Viale Billikid", (19, 9))
    p.station("Odio", "Piazzale Odio", (4, 16))
    p.station("Fontana", "Piazza Fontana", (14, 18))
    p.station("Ponte Pi", "Lungozombi degli Accavallati", (18, 25))
    p.station("Selva Nera", "Largo Selva Nera", (4, 34))
    p.station("Cappuccini", "Bulvar dei Cappuccini", (13, 30))
    p.station("Cento Celle", "Via Cento Celle", (21, 37))
    return p


#: (category, address, number of hexes, near which hex) for each objective of 12b.
OBJECTIVES: list[tuple[str, str, int, tuple[int, int]]] = [
    ("GOVERNO", "Piazza Fontana", 3, (10, 17)),
    ("CARCERE", "Via Cento Celle", 2, (24, 37)),
    ("TRIBUNALE", "Piazzale Odio", 3, (6, 12)),
    ("PARTITO DOMINANTE", "Largo alle Tangenti", 2, (18, 14)),
    ("POC", "Lungozombi dei Camionisti", 1, (3, 30)),
    ("MULTINAZIONALI", "Via del Greggio", 2, (0, 33)),
    ("MULTINAZIONALI", "Via Losim", 2, (8, 32)),
    ("MULTINAZIONALI", "Via Coca", 1, (6, 34)),
    ("MULTINAZIONALI", "Via Cola", 1, (9, 38)),
    ("TV", "Largo Selva Nera", 2, (3, 36)),
    ("GIORNALI", "Via Veline", 2, (10, 13)),
    ("GIORNALI", "Via Larga", 1, (11, 22)),
    ("GIORNALI", "Vicolo Afgano", 1, (19, 15)),
    ("DIPLO", "Piazza della Robba", 1, (8, 24)),
    ("DIPLO", "Bulvar dei Cappuccini", 2, (13, 34)),
    ("DIPLO", "Via del Rock'n roll", 1, (15, 37)),
    ("DIPLO", "Via 'Ndante", 1, (10, 20)),
    ("DIPLO", "Via Gary Baldi", 1, (14, 22)),
    ("ORG./REAZ.", "Piazza Quinta Colonna", 1, (10, 33)),
    ("ORG./REAZ.", "Vicolo Marocchino", 1, (11, 36)),
    ("BAR", "Piazza Obelix", 1, (1, 15)),
    ("ALBERGO", "Viale Ovaliani", 2, (22, 5)),
    ("CINEMA", "Via Seggio", 1, (5, 17)),
    ("CHIESE", "Piazza San Carlo al Berto", 2, (24, 20)),
    ("CHIESE", "Piazza della Robba", 1, (5, 21)),
    ("CHIESE", "Via il Polacco Errante", 1, (14, 21)),
    ("CLINICHE", "Via Tip Tap", 1, (25, 5)),
    ("CLINICHE", "Via Orale", 1, (22, 24)),
    ("NEGOZI", "Largo Sibemolle", 2, (24, 15)),
    ("NEGOZI", "Via Dotto", 2, (7, 8)),
    ("NEGOZI", "Via Roto", 1, (1, 8)),
    ("NEGOZI", "Corso Corto", 2, (20, 32)),
    ("NEGOZI", "Largo Rizia", 2, (20, 31)),
    ("NEGOZI", "Via Tram", 2, (16, 5)),
    ("NEGOZI", "Via Mazzo", 1, (19, 11)),
    ("NEGOZI", "Piazzale Odio", 2, (8, 15)),
    ("NEGOZI", "Via Chiappo", 2, (14, 6)),
    ("NEGOZI", "Via Dobbo", 1, (22, 32)),
    ("NEGOZI", "Lungozombi degli Accavallati", 1, (16, 25)),
    ("NEGOZI", "Bulvar dei Cornetti", 1, (17, 37)),
]


CATEGORIES = [  # code as the scenarios write it, name as 12b writes it, tier from 12b's wording
    ("GOVERNO", "Governo", "molti"),
    ("CARCERE", "Carcere", "molti"),
    ("TRIBUNALE", "Tribunale", "molti"),
    ("PARTITO DOMINANTE", "Partito Dominante", "molti"),
    ("POC", "Partito di Opposizione Costituzionale", "molti"),
    ("MULTINAZIONALI", "Imprese Multinazionali", "molto"),
    ("TV", "TV", "molto"),
    ("GIORNALI", "Giornali", "medio"),
    ("DIPLO", "Sedi Diplomatiche", "medio"),
    ("ORG./REAZ.", "Organizzazioni reazionarie", "medio"),
    ("BAR", "Bar", "medio"),
    ("ALBERGO", "Albergo", "medio"),
    ("CINEMA", "Cinema", "medio"),
    ("CHIESE", "Chiese", "medio"),
    ("CLINICHE", "Cliniche", "medio"),
    ("NEGOZI", "Negozi", "minimo"),
]
VALUES = {"molti": 5, "molto": 4, "medio": 2, "minimo": 1}
SETS = [  # scenario, its fixed objectives (D), the total the rulebook gives
    ("internazionalista", ["DIPLO", "MULTINAZIONALI", "GOVERNO", "PARTITO DOMINANTE", "TV", "GIORNALI"], 77),
    ("antifascista", ["ORG./REAZ.", "GOVERNO", "PARTITO DOMINANTE", "TV", "GIORNALI", "CINEMA", "BAR",
                      "ALBERGO", "TRIBUNALE"], 68),
    ("sociale", [c for c, _, _ in CATEGORIES], 150),
]
METRO_LINES = [
    ("Linea Rossa", ["Corso Storico", "Odio", "Fontana", "Cappuccini", "Selva Nera"]),
    ("Linea Verde", ["Billikid", "Fontana", "Ponte Pi", "Cento Celle"]),
]

HEADER = """\
# The City of Corteo: the hex map, its places and its 60 objectives (rulebook A, B 1, C 1d, 2, 4c, 8h, 12).
# The seed (the Italian rulebook) has no map: see docs/games/corteo.md, "The City: a reconstruction",
# for what is the rulebook's and what is ours. Written by scripts/corteo_city.py (which reproduces it
# exactly); a club owning the 100 x 70 cm original can correct this file by hand instead. The loader
# (pbem/games/corteo/city.py) rejects inconsistent data, naming the entry.
#
# Hexes: pointy-topped, in rows running West-East. A hex is named by its row letter (A-Z from the North
# edge) and its column number (1-40 from the West edge): "K12". Rows B, D, F, ... sit half a hex East
# of rows A, C, E, ... ("odd-r" offset). A hex side is named by a hex and a direction E, NE, NW, W, SW,
# SE: "K12/E" is the side between K12 and K13.
#
# source = the rulebook section that names the place ("3a", "12b", "D" for the scenarios, "1d" for the
# map description), "reconstruction" for the names known from the original map (shared/design/
# reconstruction.md); no source = ours.
"""


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _hexes(key: str, hexes: list[Hex] | list[str]) -> str:
    items = [_q(h if isinstance(h, str) else h.label) for h in hexes]
    lines, cur = [], f"{key} = ["
    for i, item in enumerate(items):
        piece = item + (", " if i < len(items) - 1 else "]")
        if len(cur) + len(piece) > 100:
            lines.append(cur.rstrip())
            cur = "    "
        cur += piece
    lines.append(cur)
    return "\n".join(lines)


def _sides(sides: list[tuple[Hex, str]]) -> str:
    return _hexes("sides", [f"{h.label}/{d}" for h, d in sides])


def _source(source: str) -> list[str]:
    return [f"source = {_q(source)}"] if source else []


def render(p: Plan) -> str:
    """The TOML text of the plan."""
    out = [HEADER, "[grid]", f"rows = {ROWS}", f"cols = {COLS}", "", "[legend]"]
    out += [f"{_q(k)} = {_q(t)}" for t, k in KEYS.items()]
    out += ["", "[terrain]", "# " + "".join(str((c + 1) // 10 or " ") for c in range(COLS)) + "  tens",
            "# " + "".join(str((c + 1) % 10) for c in range(COLS)) + "  units", "rows = ["]
    out += [f'    "{"".join(p.grid[r])}",  # {"ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r]}' for r in range(ROWS)]
    out += ["]", "", "[start]  # 3a: the Corteo sets up on Piazza Mento, top left", 'square = "Piazza Mento"', ""]
    out += ["[mura]  # 1d, 8h: the city walls, on hex sides, from the North to the South edge",
            'name = "Mura"', _sides(p.mura_sides()), ""]
    for name, h, d, source in p.gates:
        out += ["[[gate]]  # 3a: the Gates (Porte) open on Viale Billikid", f"name = {_q(name)}",
                f'side = "{h.label}/{d}"', *_source(source), ""]
    for name, sides in p.walls:
        out += ["[[wall]]  # 1d: a recent fence", f"name = {_q(name)}",
                _sides(sides), ""]
    out += ["[river]  # 1d, 8h: the fiume hexes of [terrain], two hexes wide", 'name = "Fiume"', ""]
    for name, hexes, source in p.bridges:
        out += ["[[bridge]]", f"name = {_q(name)}", _hexes("hexes", hexes), *_source(source), ""]
    for name, kind, hexes, source in p.streets:
        out += ["[[street]]", f"name = {_q(name)}", f"kind = {_q(kind)}", _hexes("hexes", hexes), *_source(source), ""]
    for name, hexes, source in p.squares:
        out += ["[[square]]", f"name = {_q(name)}", _hexes("hexes", hexes), *_source(source), ""]
    for name, kind, hexes, source in p.areas:
        out += ["[[area]]", f"name = {_q(name)}", f"kind = {_q(kind)}", _hexes("hexes", hexes), *_source(source), ""]
    out += ["[objective_table]  # 12a: the value of each objective hex, by the tiers of 12b (values ours)"]
    out += [f"{t} = {v}" for t, v in VALUES.items()]
    out += [f"count = {sum(len(h) for _, _, h in p.objectives)}  # 12a: 60 objective covers", ""]
    for code, name, tier in CATEGORIES:
        out += ["[[category]]", f"code = {_q(code)}", f"name = {_q(name)}", f"tier = {_q(tier)}", ""]
    for category, address, hexes in p.objectives:
        out += ["[[objective]]", f"category = {_q(category)}", f"address = {_q(address)}", _hexes("hexes", hexes), ""]
    for scenario, codes, total in SETS:
        out += ["[[objective_set]]  # D: the fixed objectives of the scenario and their total",
                f"scenario = {_q(scenario)}", "categories = [" + ", ".join(_q(c) for c in codes) + "]",
                f"total = {total}", ""]
    for name, role, address, hexes in p.buildings:
        out += ["[[building]]", f"name = {_q(name)}", f"role = {_q(role)}", f"address = {_q(address)}",
                _hexes("hexes", hexes), ""]
    for number, address, hexes, exits in p.caserme:
        out += ["[[caserma]]", f"number = {number}", f"address = {_q(address)}", _hexes("hexes", hexes),
                _hexes("exits", exits), ""]
    for name, street, hexes in p.stations:
        out += ["[[station]]", f"name = {_q(name)}", f"street = {_q(street)}", _hexes("hexes", hexes), ""]
    for name, stations in METRO_LINES:
        out += ["[[metro_line]]", f"name = {_q(name)}", "stations = [" + ", ".join(_q(s) for s in stations) + "]", ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)
    p = draw()
    if args.show:
        print("    " + "".join(f"{c + 1:<2}" for c in range(COLS)))
        for r in range(ROWS):
            print(f"{'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[r]:>2} " + (" " if r % 2 else "") + " ".join(p.grid[r]))
        return 0
    text = render(p)
    load_city(text)  # the loader's checks
    if args.check:
        same = OUT.exists() and OUT.read_text("utf-8") == text
        print("city.toml is up to date" if same else "city.toml differs from scripts/corteo_city.py")
        return 0 if same else 1
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
