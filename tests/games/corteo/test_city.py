"""The City (rulebook A, B 1, C 1d, 2, 3a, 4c, 7f, 8c, 8h, 12, D) and the checks of its loader."""

import tomllib
from collections import deque
from importlib import resources

import pytest

from pbem.games.corteo.city import (
    FORBIDDEN, TERRAINS, CityError, Hex, axis_direction, city, direction, distance, hex_line, hex_lines,
    is_hex_line, load_city, parse_city, parse_hex, parse_side, ring, side_between,
)

CITY = city()


def _data() -> dict:
    text = resources.files("pbem.games.corteo.data").joinpath("city.toml").read_text("utf-8")
    return tomllib.loads(text)


def h(label: str) -> Hex:
    return CITY.hex(label)


# -- the terrain table ---------------------------------------------------------------------------------

@pytest.mark.parametrize("terrain", TERRAINS)
def test_every_terrain_type_of_the_table_is_on_the_map(terrain):
    """1d and the terrain tables of 4c, 7f, 8c: strade, viali, discese, salite, scale, giardini,
    caseggiati, fiume, case popolari, luoghi affollati, obiettivi, caserme, metro all appear."""
    assert CITY.hexes_of(terrain)


def test_walls_lie_on_hex_sides():
    """2, 4c: "esa adiacenti per lato di muro" — walls are on sides, both the Mura and a fence."""
    assert CITY.mura.sides and CITY.walls
    side = next(iter(CITY.walls[0].sides))
    a, b = side.hexes
    assert CITY.wall_between(a, b) and b not in CITY.open_neighbours(a)


def test_slopes_are_discesa_one_way_and_salita_the_other():
    """4c (discesa 1/2, salita 2) and 8c ("in salita (più in alto)"): a slope hex is a discesa for
    whoever goes down it and a salita for whoever climbs it."""
    top, bottom = CITY.street("Discesa Libera").hexes
    above = next(n for n in CITY.neighbours(top) if CITY.terrain(n) == "giardino" and distance(n, bottom) == 2)
    assert CITY.slope_effect(above, top) == "discesa"
    below = next(n for n in CITY.neighbours(bottom) if n not in (top,) and CITY.terrain(n) == "strada")
    assert CITY.slope_effect(below, bottom) == "salita"
    climb = CITY.street("Salita al Potere").hexes
    assert CITY.slope_effect(climb[0], climb[1]) == "salita"
    assert CITY.slope_effect(climb[1], climb[0]) == "discesa"
    assert CITY.slope_effect(h("A2"), h("A1")) is None


# -- places the rulebook names ------------------------------------------------------------------------

STREETS_NAMED = {
    "3a": ["Corso Storico", "Viale Nin", "Corso Maltese", "Viale Billikid"],
    "12b": ["Via Cento Celle", "Lungozombi dei Camionisti", "Via del Greggio", "Via Losim", "Via Coca",
            "Via Cola", "Via Veline", "Via Larga", "Vicolo Afgano", "Bulvar dei Cappuccini",
            "Via del Rock'n roll", "Via 'Ndante", "Via Gary Baldi", "Vicolo Marocchino", "Viale Ovaliani",
            "Via Seggio", "Via il Polacco Errante", "Via Tip Tap", "Via Orale", "Via Dotto", "Via Roto",
            "Corso Corto", "Via Tram", "Via Mazzo", "Via Chiappo", "Via Dobbo",
            "Lungozombi degli Accavallati", "Bulvar dei Cornetti"],
}
SQUARES_NAMED = {
    "3a": ["Piazza Mento"],
    "12b": ["Piazza Fontana", "Piazzale Odio", "Largo alle Tangenti", "Largo Selva Nera", "Piazza della Robba",
            "Piazza Quinta Colonna", "Piazza Obelix", "Piazza San Carlo al Berto", "Largo Sibemolle",
            "Largo Rizia"],
    "D (antifascista)": ["Piazzale Bombe"],
}
RECONSTRUCTION = ["Via Pussa", "Ponte Ponente", "Ponte Pi", "Via le Mutande", "Corso degli Eventi",
                  "Piazza Lamerce"]


@pytest.mark.parametrize("name", [n for names in STREETS_NAMED.values() for n in names])
def test_streets_the_rulebook_names_exist(name):
    """3a and the addresses of 12b: each is a street of the City, a connected line of hexes."""
    s = CITY.street(name)
    assert is_hex_line(s.hexes) and s.source in ("3a", "12b")


@pytest.mark.parametrize("name", [n for names in SQUARES_NAMED.values() for n in names])
def test_squares_the_rulebook_names_exist(name):
    """3a (Piazza Mento), 12b (addresses), Scenario antifascista (P.zale Bombe)."""
    assert CITY.square(name).hexes


@pytest.mark.parametrize("name", RECONSTRUCTION)
def test_names_known_from_the_original_map_exist(name):
    """shared/design/reconstruction.md: other pun names of Maoloni's map."""
    assert CITY.place_hexes(name)


def test_piazza_mento_is_the_start_top_left_and_holds_the_corteo():
    """3a: the 33 units "negli esa di Piazza Mento (sulla mappa in alto a sinistra)", at most 2 per hex,
    without spilling onto the viali around it — which exist (Viale Nin, Corso Storico, Corso Maltese)."""
    mento = CITY.square("Piazza Mento").hexes
    assert CITY.start == "Piazza Mento"
    assert 2 * len(mento) >= 33
    assert all(x.row < CITY.rows / 3 and x.col < CITY.cols / 4 for x in mento)
    around = {n for x in mento for n in CITY.neighbours(x)} - set(mento)
    for viale in ("Viale Nin", "Corso Storico", "Corso Maltese"):
        assert around & set(CITY.street(viale).hexes)


def test_corso_storico_has_its_metro_station():
    """3a: "la stazione della Metro di Corso Storico", near Piazza Mento."""
    station = next(s for s in CITY.stations if s.street == "Corso Storico")
    assert min(distance(s, m) for s in station.hexes for m in CITY.square("Piazza Mento").hexes) <= 4


def test_the_gates_open_on_viale_billikid_and_are_enough_for_the_vigili():
    """3a: 5 vigili, "2 dalle parti di Viale Nin e Corso Maltese e gli altri a bloccare le Porte che danno
    su Viale Billikid": three Gates, each with its outer hex on Viale Billikid."""
    billikid = set(CITY.street("Viale Billikid").hexes)
    assert len(CITY.gates) == 3
    for g in CITY.gates:
        outer = next(x for x in g.side.hexes if CITY.part(x) == 1)
        assert outer in billikid


def test_caserme_are_numbered_with_exit_road_hexes():
    """3a ("caserme 1, 2 e 3 ... e le altre caserme"), 6c: units leave "a partire dagli esa-strada
    numerati"; 15 units start in caserme, 2 per hex (3a, 9)."""
    assert [c.number for c in CITY.caserme][:3] == [1, 2, 3] and len(CITY.caserme) > 3
    for c in CITY.caserme:
        assert c.exits and all(CITY.terrain(e) in ("strada", "viale") for e in c.exits)
        assert all(any(distance(e, x) == 1 and not CITY.wall_between(e, x) for x in c.hexes) for e in c.exits)
    assert 2 * len(CITY.caserma_hexes) >= 15


def test_prison_clinics_law_courts_and_org_reaz():
    """8f (arrested units go to the "edificio-carcere"), Scenario antifascista (esa-clinica, esa ORG./REAZ.),
    Scenario antirepressivo (3 units in the "esa-marroni del tribunale (Piazzale Odio)")."""
    assert CITY.prison_hexes and all(CITY.terrain(x) == "caseggiato" for x in CITY.prison_hexes)
    assert CITY.clinic_hexes
    assert len(CITY.org_reaz_hexes) == 2
    tribunale = next(b for b in CITY.buildings if b.role == "tribunale")
    assert tribunale.address == "Piazzale Odio" and 2 * len(tribunale.hexes) >= 3


@pytest.mark.parametrize("square, units", [
    ("Piazza della Robba", 13),  # Scenario antifascista: 10 rally pieces (never stacked) + 5 celere (2 a hex)
    ("Piazza Fontana", 8),  # Scenario internazionalista: 5 motorcade pieces + 5 celere
    ("Piazzale Odio", 10), ("Piazzale Bombe", 10), ("Piazza Quinta Colonna", 10),  # other rally places
])
def test_scenario_set_up_squares_are_large_enough(square, units):
    """D: the set-ups that put pieces on a square find room for them."""
    assert len(CITY.square(square).hexes) >= units


def test_scenario_sociale_deployment_places_exist():
    """Scenario sociale: 4 spezzoni in luoghi affollati, 4 in metro, 8 in case popolari (2 per hex), and a
    secret place of at least 11 grey hexes."""
    assert 2 * len(CITY.hexes_of("affollato")) >= 4
    assert 2 * len(CITY.metro_hexes) >= 4
    assert 2 * len(CITY.hexes_of("case_popolari")) >= 8
    assert max(len(s.hexes) for s in CITY.squares) >= 11


# -- objectives (12a, 12b, scenarios) ------------------------------------------------------------------

ADDRESSES_12B = {
    "GOVERNO": ["Piazza Fontana"], "CARCERE": ["Via Cento Celle"], "TRIBUNALE": ["Piazzale Odio"],
    "PARTITO DOMINANTE": ["Largo alle Tangenti"], "POC": ["Lungozombi dei Camionisti"],
    "MULTINAZIONALI": ["Via del Greggio", "Via Losim", "Via Coca", "Via Cola"], "TV": ["Largo Selva Nera"],
    "GIORNALI": ["Via Veline", "Via Larga", "Vicolo Afgano"],
    "DIPLO": ["Piazza della Robba", "Bulvar dei Cappuccini", "Via del Rock'n roll", "Via 'Ndante", "Via Gary Baldi"],
    "ORG./REAZ.": ["Piazza Quinta Colonna", "Vicolo Marocchino"], "BAR": ["Piazza Obelix"],
    "ALBERGO": ["Viale Ovaliani"], "CINEMA": ["Via Seggio"],
    "CHIESE": ["Piazza San Carlo al Berto", "Piazza della Robba", "Via il Polacco Errante"],
    "CLINICHE": ["Via Tip Tap", "Via Orale"],
    "NEGOZI": ["Largo Sibemolle", "Via Dotto", "Via Roto", "Corso Corto", "Largo Rizia", "Via Tram", "Via Mazzo",
               "Piazzale Odio", "Via Chiappo", "Via Dobbo", "Lungozombi degli Accavallati", "Bulvar dei Cornetti"],
}
TIERS_12B = {  # "vale molti punti" / "valgono molto" / "punteggio medio" / "il minimo dei punti"
    "molti": ["GOVERNO", "CARCERE", "TRIBUNALE", "PARTITO DOMINANTE", "POC"],
    "molto": ["MULTINAZIONALI", "TV"],
    "medio": ["GIORNALI", "DIPLO", "ORG./REAZ.", "BAR", "ALBERGO", "CINEMA", "CHIESE", "CLINICHE"],
    "minimo": ["NEGOZI"],
}


def test_sixty_objective_hexes():
    """12a: "uno dei 60 pezzi copriobiettivi" — one cover for each objective hex; 12b: "i 60 obiettivi"."""
    assert len(CITY.objective_hexes) == len(set(CITY.objective_hexes)) == 60
    assert set(CITY.objective_hexes) == set(CITY.hexes_of("obiettivo"))


@pytest.mark.parametrize("code", list(ADDRESSES_12B))
def test_objectives_at_the_addresses_of_12b(code):
    """12b gives every objective "anche l'indirizzo": each address holds its objective, opening on it."""
    got = sorted(o.address for o in CITY.objectives if o.category == code)
    assert got == sorted(ADDRESSES_12B[code])
    for o in CITY.objectives:
        if o.category == code:
            front = set(CITY.place_hexes(o.address))
            for x in o.hexes:
                assert any(n in front for n in CITY.open_neighbours(x))


def test_tiers_as_12b_and_values_falling_with_the_tier():
    """12b: molti punti > molto > medio > minimo, the same value for every hex of a tier."""
    for tier, codes in TIERS_12B.items():
        assert {CITY.category(c).tier for c in codes} == {tier}
    values = [CITY.category(codes[0]).value for codes in TIERS_12B.values()]
    assert values == sorted(values, reverse=True) and len(set(values)) == 4
    for o in CITY.objectives:
        assert o.value == CITY.category(o.category).value


@pytest.mark.parametrize("scenario, codes, total", [
    # Internazionalista: "DIPLO, MULTINAZIONALI, GOVERNO, PARTITO DOMINANTE, TV, GIORNALI ... (77 punti in totale)"
    ("internazionalista", ["DIPLO", "MULTINAZIONALI", "GOVERNO", "PARTITO DOMINANTE", "TV", "GIORNALI"], 77),
    # Antifascista: "SEDI REAZIONARIE, GOVERNO, PARTITO DOMINANTE, TV, GIORNALI, CINEMA, BAR, ALBERGO,
    # TRIBUNALE ... (68 punti in totale)"
    ("antifascista", ["ORG./REAZ.", "GOVERNO", "PARTITO DOMINANTE", "TV", "GIORNALI", "CINEMA", "BAR", "ALBERGO",
                      "TRIBUNALE"], 68),
    # Sociale: "TUTTI OBIETTIVI FISSI DEL GIOCO avanzato ... (per il totale di 150 punti/vittoria complessivi)"
    ("sociale", list(ADDRESSES_12B), 150),
])
def test_scenario_totals(scenario, codes, total):
    """D: the scenario totals, summing every objective hex of the named categories at its value."""
    assert CITY.set_total(codes) == total
    s = CITY.objective_set(scenario)
    assert set(s.categories) == set(codes) and s.total == total


def test_bulvar_dei_cappuccini_embassy_has_five_hexes_in_front():
    """Scenario internazionalista: the motorcade stops "5 esa davanti alla sede diplomatica di Bulvar dei
    Cappuccini" on its way to the East edge, which it leaves by a strada or viale hex."""
    embassy = next(o for o in CITY.objectives if o.category == "DIPLO" and o.address == "Bulvar dei Cappuccini")
    bulvar = CITY.street("Bulvar dei Cappuccini").hexes
    near = [x for x in bulvar if min(distance(x, e) for e in embassy.hexes) <= 2]
    assert len(near) >= 5
    assert bulvar[-1] in CITY.edge_hexes("E")


# -- the three parts, the edges, connectivity ----------------------------------------------------------

def test_walls_and_river_split_the_city_in_three_parts_joined_only_at_gates_and_bridges():
    """8h: "1a PARTE: dal bordo Ovest della mappa alle MURA. 2a PARTE: dalle MURA al FIUME. 3a PARTE: dal
    FIUME al bordo EST"; passing from one to the next needs a Gate (Porta) or a bridge."""
    for x in CITY.hexes:
        for n in CITY.neighbours(x):
            p, q = CITY.part(x), CITY.part(n)
            if p is None or q is None or p == q:
                continue
            assert {p, q} == {1, 2}, (x, n)
            assert CITY.is_gate(side_between(x, n)) or CITY.wall_between(x, n)
    for x in CITY.hexes:
        if CITY.part(x) is None:
            assert CITY.terrain(x) == "fiume" or any(x in b.hexes for b in CITY.bridges)
    for b in CITY.bridges:
        touched = {CITY.part(n) for x in b.hexes for n in CITY.open_neighbours(x)}
        assert {2, 3} <= touched


def test_parts_follow_the_edges():
    """8h: the West edge is part 1, the East edge part 3; N and S edges are split in three parts."""
    assert {CITY.part(x) for x in CITY.edge_hexes("W")} == {1}
    assert {CITY.part(x) for x in CITY.edge_hexes("E")} == {3}
    for edge in ("N", "S"):
        for p in (1, 2, 3):
            hexes = CITY.edge_hexes(edge, p)
            assert hexes and all(CITY.edge_part(x) == (edge, p) for x in hexes)
            assert any(CITY.terrain(x) not in FORBIDDEN for x in hexes)  # somewhere to re-enter


def test_every_hex_a_unit_may_enter_is_reachable_from_piazza_mento():
    """A, 1d: one City; the Corteo can walk from Piazza Mento to every hex not forbidden (4c)."""
    first = CITY.square("Piazza Mento").hexes[0]
    seen = {first}
    queue = deque([first])
    while queue:
        x = queue.popleft()
        for n in CITY.open_neighbours(x):
            if n not in seen and CITY.terrain(n) not in FORBIDDEN:
                seen.add(n)
                queue.append(n)
    assert {x for x in CITY.hexes if CITY.terrain(x) not in FORBIDDEN} == seen


def test_internazionalista_points_for_crossing_need_all_three_parts():
    """Scenario internazionalista: 20 VP for crossing "MURA, FIUME, BORDO EST" — the Corteo starts in part 1."""
    assert {CITY.part(x) for x in CITY.square(CITY.start).hexes} == {1}
    assert any(CITY.terrain(x) in ("strada", "viale") for x in CITY.edge_hexes("E"))


def test_size_fits_ten_hands():
    """A: a 100 x 70 cm map; ours is 40 x 26 hexes (docs: about 2.5 cm hexes). A cordone (speed 4) needs
    more than 4 hands on viali to cross it, a spezzone (6) about 3 — the City outlasts a few hands."""
    assert (CITY.rows, CITY.cols) == (26, 40)
    assert CITY.cols / (2 * 4) > 4


# -- geometry (table-driven) ---------------------------------------------------------------------------

@pytest.mark.parametrize("label, row, col", [("A1", 0, 0), ("K12", 10, 11), ("z40", 25, 39), ("B07", 1, 6)])
def test_hex_labels(label, row, col):
    assert parse_hex(label) == Hex(row, col)
    assert Hex(row, col).label == label.upper().replace("B07", "B7")


@pytest.mark.parametrize("label", ["", "K", "12", "K0", "AA1", "K12/E"])
def test_bad_hex_labels(label):
    assert parse_hex(label) is None


@pytest.mark.parametrize("label, expected", [
    ("K12", {"E": "K13", "NE": "J12", "NW": "J11", "W": "K11", "SW": "L11", "SE": "L12"}),  # even row (K)
    ("L12", {"E": "L13", "NE": "K13", "NW": "K12", "W": "L11", "SW": "M12", "SE": "M13"}),  # odd row (L)
])
def test_neighbours_odd_rows_shifted_east(label, expected):
    """Rows B, D, F, ... (0-based odd) sit half a hex East (the coordinate system of docs/games/corteo.md)."""
    x = h(label)
    assert {d: x.step(d).label for d in expected} == expected
    assert sorted(n.label for n in CITY.neighbours(x)) == sorted(expected.values())
    for d, n in expected.items():
        assert direction(x, h(n)) == d


def test_corner_has_fewer_neighbours():
    assert sorted(n.label for n in CITY.neighbours(h("A1"))) == ["A2", "B1"]
    assert len(CITY.neighbours(h("Z40"))) == 2


@pytest.mark.parametrize("a, b, d", [
    ("K12", "K12", 0), ("K12", "K13", 1), ("K12", "M12", 2), ("K12", "M13", 2), ("K12", "K20", 8),
    ("A1", "Z1", 25), ("A1", "A40", 39), ("A1", "Z40", 52),
])
def test_distance(a, b, d):
    assert distance(h(a), h(b)) == d == distance(h(b), h(a))


@pytest.mark.parametrize("a, b, line", [
    ("K12", "K15", ["K12", "K13", "K14", "K15"]),  # along a row
    ("K12", "N13", ["K12", "L12", "M13", "N13"]),  # along the SE axis
    ("K12", "N10", ["K12", "L11", "M11", "N10"]),  # along the SW axis
])
def test_straight_lines_along_the_hex_axes(a, b, line):
    """7a: a throw needs thrower and target "su una LINEA RETTA di esa"; along a hex row it is unique."""
    assert [x.label for x in hex_line(h(a), h(b))] == line
    assert len(hex_lines(h(a), h(b))) == 1
    assert axis_direction(h(a), h(b)) is not None


def test_line_along_hex_sides_has_two_readings():
    """Between hexes two rows apart in the same column the centre line runs along sides: both readings."""
    lines = hex_lines(h("K12"), h("M12"))
    assert len(lines) == 2
    assert {tuple(x.label for x in ln) for ln in lines} == {("K12", "L12", "M12"), ("K12", "L11", "M12")}
    assert axis_direction(h("K12"), h("M12")) is None


def test_lines_are_connected_and_as_long_as_the_distance():
    for a, b in [("A1", "Z40"), ("C5", "T33"), ("Y2", "B38")]:
        line = hex_line(h(a), h(b))
        assert is_hex_line(line) and len(line) == distance(h(a), h(b)) + 1


@pytest.mark.parametrize("a, b", [("K12/E", "K13/W"), ("K12/SE", "L12/NW"), ("L12/SW", "M12/NE"), ("L12/NW", "K12/SE")])
def test_a_side_has_one_name(a, b):
    assert parse_side(a) == parse_side(b)
    sa = parse_side(a)
    assert sa is not None and side_between(*sa.hexes) == sa


def test_ring():
    assert len(ring(h("K12"), 1)) == 6 and set(ring(h("K12"), 1)) == set(h("K12").step(d) for d in "E NE NW W SW SE".split())
    assert all(distance(h("K12"), x) == 3 for x in ring(h("K12"), 3)) and len(ring(h("K12"), 3)) == 18


# -- the loader's checks -------------------------------------------------------------------------------

def _entry(data: dict, table: str, **match) -> dict:
    return next(e for e in data[table] if all(e.get(k) == v for k, v in match.items()))


def _set_key(data: dict, label: str, key: str) -> None:
    x = parse_hex(label)
    assert x is not None
    rows = data["terrain"]["rows"]
    rows[x.row] = rows[x.row][:x.col] + key + rows[x.row][x.col + 1:]


def _rejects(data: dict, *words: str) -> None:
    with pytest.raises(CityError) as err:
        parse_city(data)
    text = str(err.value)
    assert text.startswith("city.toml: ")
    for w in words:
        assert w in text, text


def test_the_packaged_data_loads():
    assert parse_city(_data()).rows == 26


def test_unknown_terrain_is_rejected():
    data = _data()
    _set_key(data, "A12", "X")
    _rejects(data, "A12", "unknown terrain key 'X'")
    data = _data()
    data["legend"]["#"] = "palazzo"
    _rejects(data, "'palazzo' is not a terrain")


def test_street_that_is_not_a_connected_line_is_rejected():
    data = _data()
    street = _entry(data, "street", name="Viale Nin")
    street["hexes"] = street["hexes"][:1] + street["hexes"][2:]
    _rejects(data, "Viale Nin", "not adjacent")


def test_street_across_a_wall_is_rejected():
    """4c: no movement across a wall side, so no street either."""
    data = _data()
    _entry(data, "street", name="Via Roto")["hexes"] += ["A11", "A12"]
    _rejects(data, "Via Roto", "a wall lies between A11 and A12")


def test_gate_on_a_wall_side_is_rejected():
    data = _data()
    _entry(data, "gate", name="Porta Voce")["side"] = "A11/E"  # now a wall side and a gate
    _rejects(data, "Porta Voce", "wall side")


def test_objective_off_the_map_is_rejected():
    data = _data()
    _entry(data, "objective", category="GOVERNO")["hexes"][0] = "K45"
    _rejects(data, "GOVERNO", "'K45' is off the map")


def test_objective_away_from_its_address_is_rejected():
    data = _data()
    _entry(data, "objective", category="BAR")["address"] = "Via Cento Celle"
    _rejects(data, "BAR", "does not open on 'Via Cento Celle'")


def test_duplicate_names_are_rejected():
    data = _data()
    data["square"].append(dict(_entry(data, "street", name="Via Coca")))
    _rejects(data, "'Via Coca'", "already used")


def test_caserma_without_exit_is_rejected():
    data = _data()
    del _entry(data, "caserma", number=2)["exits"]
    _rejects(data, "caserma 2", "no exit road hex")
    data = _data()
    _entry(data, "caserma", number=2)["exits"] = ["A1"]
    _rejects(data, "caserma 2", "exit A1 does not touch")


def test_gate_not_on_the_walls_is_rejected():
    data = _data()
    data["gate"].append({"name": "Porta Nuova", "side": "B2/E"})  # inside Piazza Mento
    _rejects(data, "Porta Nuova", "not on the walls")


def test_a_hole_in_the_walls_is_rejected():
    """8h: with a wall side missing, parts 1 and 2 run into each other."""
    data = _data()
    data["mura"]["sides"].remove("A11/E")
    data["mura"]["sides"].remove("A12/SW")
    _rejects(data, "3 parts", "found 2 regions")


def test_a_gap_in_the_river_is_rejected():
    data = _data()
    x = _entry(data, "bridge", name="Ponte Radio")
    data["bridge"].remove(x)
    _set_key(data, x["hexes"][0], "#")
    _set_key(data, x["hexes"][1], "#")
    _rejects(data, "3 parts")


def test_objective_count_and_scenario_totals_are_checked():
    data = _data()
    data["objective_table"]["count"] = 59
    _rejects(data, "count = 59", "60")
    data = _data()
    data["objective_table"]["molti"] = 6
    _rejects(data, "internazionalista", "not 77")
    data = _data()
    data["objective_table"]["medio"] = 5
    _rejects(data, "fall strictly")


def test_hexes_without_an_entry_are_rejected():
    data = _data()
    _set_key(data, "A13", "o")
    _rejects(data, "A13", "obiettivo but belongs to no [[objective]]")
    data = _data()
    _set_key(data, "A13", ".")
    _rejects(data, "A13", "no street, square or bridge")
    data = _data()
    _set_key(data, "A13", "v")
    _rejects(data, "A13", "way down is unknown")


def test_metro_station_on_no_line_is_rejected():
    data = _data()
    for line in data["metro_line"]:
        if "Billikid" in line["stations"]:
            line["stations"].remove("Billikid")
    _rejects(data, "'Billikid' is on no metro line")


def test_bridge_and_start_checks():
    data = _data()
    _entry(data, "bridge", name="Ponte Pi")["hexes"] = ["S27", "S28"]
    _rejects(data, "Ponte Pi")
    data = _data()
    data["start"]["square"] = "Piazza Fontana"
    _rejects(data, "[start]", "part 1")


def test_malformed_text_gives_a_city_error():
    with pytest.raises(CityError):
        load_city("grid = [")
    with pytest.raises(CityError, match="missing"):
        load_city("[grid]\nrows = 1\ncols = 1\n")


def test_the_script_reproduces_the_data_file():
    """The data file is the source the game reads; scripts/corteo_city.py must write exactly it."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "scripts" / "corteo_city.py"
    spec = importlib.util.spec_from_file_location("corteo_city", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = resources.files("pbem.games.corteo.data").joinpath("city.toml").read_text("utf-8")
    assert module.render(module.draw()) == text
