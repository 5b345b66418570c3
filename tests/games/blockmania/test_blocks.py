"""The Blocks as cross-section maps (rulebook 1.ii, 5.ii, 6, 7.i, 8.iv, 8.x, 9, 10.i) and the checks of
their loader. Section numbers are the Italian rulebook's (shared/seeds/004_*.txt)."""

import copy
import importlib.util
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from pbem.games.blockmania.blocks import (
    DICE_ADDRESSES, BlocksError, Loc, blocks, load_blocks, parse_blocks, parse_label,
)

DATA = blocks()
ORDER = ["curie", "keaton", "earhart", "houdini"]
RING = DATA.ring(ORDER)
SPECIALS = ["CV", "BK", "AR", "SM", "VP", "BA", "EP", "SS", "TW", "PT", "TN"]
OPEN_SYMBOLS = ["TP", "MW", "PW", "SR"]


def _data() -> dict:
    return tomllib.loads(resources.files("pbem.games.blockmania.data").joinpath("blocks.toml").read_text("utf-8"))


def L(name: str) -> Loc:
    return RING.loc(name)


def names(locs) -> list[str]:
    return [str(x) for x in locs]


# -- squares, kinds, colours (1.ii) ------------------------------------------------------------------------

def test_four_blocks_for_mega_mania():
    """1.i: 2 maps in Block Mania, 4 with Mega Mania; every map has the same levels (the maps are set
    side by side, 1.ii, 3)."""
    assert len(DATA.blocks) >= 4
    assert len({b.name for b in DATA.blocks}) == len(DATA.blocks)
    assert {b.levels for b in DATA.blocks} == {DATA.levels}


@pytest.mark.parametrize("block", ORDER)
def test_every_square_is_open_air_window_or_interior(block):
    """1.ii: "Gli Square sono di tre diversi tipi: Open Air, Window e Interior"; Window and Interior
    squares are blue (residential, with a number), green (Civic) or yellow (special)."""
    b = DATA.block(block)
    types = {s.type for s in b.squares}
    assert types == {"open", "window", "interior"}
    for s in b.squares:
        if s.is_open:
            assert s.kind.colour == "open"
        else:
            assert s.kind.colour in ("residential", "civic", "special")
            assert (s.kind.colour == "residential") == (s.kind.code == "RS")


@pytest.mark.parametrize("block", ORDER)
@pytest.mark.parametrize("code", SPECIALS)
def test_every_special_square_is_in_every_block(block, code):
    """1.ii (Civic, Bank, Vehicle Park), 6.vi (Sky Rail station, Tubeway), 6.vii (Pedway Terminus),
    6.viii (Vehicle Park, Tunnel), 6.ix (Balcony, Entrance Plaza), 6.x (Armoury, Shopping Mall), 8.vii
    (Bank): each block has every special location, on Window or Interior squares."""
    found = DATA.block(block).of_kind(code)
    assert found
    assert all(not s.is_open for s in found)


@pytest.mark.parametrize("block", ORDER)
@pytest.mark.parametrize("code", OPEN_SYMBOLS)
def test_every_open_air_symbol_is_on_every_map(block, code):
    """1.ii: Open Air squares may carry "Sky Rail", "Pedway", "Mega Way", "Tween Block Plaza"."""
    found = DATA.block(block).of_kind(code)
    assert found and all(s.is_open for s in found)


@pytest.mark.parametrize("block", ORDER)
def test_one_station_one_vehicle_park_two_termini(block):
    """6.ix "la stazione della Sky Rail", "il suo Vehicle Park": one each; 6.vii a terminus at each end."""
    b = DATA.block(block)
    assert len(b.of_kind("SS")) == 1 and len(b.of_kind("VP")) == 1 and len(b.of_kind("PT")) == 2


@pytest.mark.parametrize("block", ORDER)
def test_pedway_termini_and_pedways_at_level_6(block):
    """6.vii: pedways run "all'altezza del sesto livello": termini and pedway squares on level 6."""
    b = DATA.block(block)
    assert {s.level for s in b.of_kind("PT")} == {6}
    assert {s.level for s in b.of_kind("PW")} == {6}
    assert DATA.pedway_level == 6


@pytest.mark.parametrize("block", ORDER)
def test_transit_levels_are_horizontal(block):
    """6.vi, 6.viii: Sky Rail and Mega Way rides never change level: the station, Tubeways and Sky
    Rail lie on one level, the Vehicle Park, Tunnels and Mega Way on another; Entrance Plazas and
    the Tween Block Plaza on the ground (ours: where they lie)."""
    b = DATA.block(block)
    assert {s.level for code in ("SS", "TW", "SR") for s in b.of_kind(code)} == {DATA.skyrail_level}
    assert {s.level for code in ("VP", "TN", "MW") for s in b.of_kind(code)} == {DATA.megaway_level}
    assert {s.level for code in ("EP", "TP") for s in b.of_kind(code)} == {DATA.ground}


@pytest.mark.parametrize("block", ORDER)
def test_windows_touch_open_air(block):
    """1.ii: Window squares are "in parte interni e in parte esterni"; in our maps a square touching
    Open Air (a side or the top) is a Window, any other is Interior."""
    b = DATA.block(block)
    for s in b.squares:
        if s.is_open:
            continue
        around = [(s.column + 1, s.level), (s.column - 1, s.level), (s.column, s.level + 1), (s.column, s.level - 1)]
        touches = any((lv > b.levels) or (b.on_map(c, lv) and b.at(c, lv).is_open) for c, lv in around)
        assert s.is_window == touches, s


@pytest.mark.parametrize("code, strength, damage", [
    ("RS", 6, "block"), ("CV", 6, "block"), ("BK", 6, "block"), ("AR", 8, "block"), ("SM", 6, "block"),
    ("PW", 6, "pedway"), ("MW", 6, "megaway"), ("SR", 4, "skyrail"), ("OA", None, None),
])
def test_square_strength(code, strength, damage):
    """9.i: squares have Strength 6, Armoury squares 8; 9.v Sky Rail 4 and only a Missile Defence
    Laser hurts it; 9.vi Pedway 6 (stop, collapse, severed); 9.vii Mega Way 6 (damage, collapse)."""
    kind = DATA.kind(code)
    assert (kind.strength, kind.damage) == (strength, damage)
    assert (kind.only == "Missile Defence Laser") == (code == "SR")


def test_kind_rules():
    """6.i walk on Tween Block Plaza and Pedway; 6.ix fly to Open Air, Balcony, Tween Block Plaza, take
    off from Balcony and Entrance Plaza; 6.v Civic costs 0 MP; 6.x, 8.vii loot and draws."""
    walk = {k.code for k in DATA.kinds.values() if k.walk}
    land = {k.code for k in DATA.kinds.values() if k.land}
    takeoff = {k.code for k in DATA.kinds.values() if k.takeoff}
    assert walk == {"TP", "PW"}
    assert land == {"OA", "TP", "PW", "MW", "SR", "BA"}
    assert takeoff == {"BA", "EP"}
    assert {k.code for k in DATA.kinds.values() if k.free} == {"CV"}
    assert {k.code: k.draw for k in DATA.kinds.values() if k.loot} == {"BK": None, "AR": "armoury", "SM": "hardware"}


def test_exposed_squares():
    """7.ii, 8.v: +1 to shoot at a Blocker in a Civic or Open Air square."""
    b = DATA.block("curie")
    assert b.square("E6").exposed and b.square("B5").exposed
    assert not b.square("D5").exposed and not b.square("E4").exposed


# -- addresses (5.ii) ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("block", ORDER)
def test_addresses_11_to_66_complete_and_unique(block):
    """5.ii: a new Blocker's square is read from two dice, tens then units: every reading 11-66 must
    find one square, residential or Entrance Plaza, and every residential square has its number."""
    b = DATA.block(block)
    addressed = [s for s in b.squares if s.address is not None]
    assert sorted(s.address for s in addressed) == list(DICE_ADDRESSES)
    assert len(DICE_ADDRESSES) == 36
    assert {s.kind.code for s in addressed} == {"RS", "EP"}
    assert all(s.address is not None for s in b.of_kind("RS"))
    for tens in range(1, 7):
        for units in range(1, 7):
            assert b.address_of_dice(tens, units).address == 10 * tens + units


def test_address_example_of_5_ii():
    """5.ii: "se i dadi danno 3 e poi 4, il Blocker entrerà nel settore 34"."""
    for b in DATA.blocks:
        square = b.address_of_dice(3, 4)
        assert square.label and square.kind.code == "RS"
        assert b.address(34) is square
    with pytest.raises(KeyError):
        DATA.block("curie").address(17)


@pytest.mark.parametrize("block", ORDER)
def test_addresses_read_from_the_ground_up(block):
    """Ours (docs): addresses run in reading order from the ground up, so 11 is an Entrance Plaza."""
    b = DATA.block(block)
    ordered = sorted((s for s in b.squares if s.address), key=lambda s: (s.level, s.column))
    assert [s.address for s in ordered] == list(DICE_ADDRESSES)
    assert b.address(11).kind.code == "EP"


# -- lifts and grav-chutes (6.iii, 6.iv) ----------------------------------------------------------------------

@pytest.mark.parametrize("block", ORDER)
def test_lifts_are_vertical_shafts_of_window_and_interior_squares(block):
    """1.ii lift symbols on Window and Interior squares; 6.iii any square of the shaft for 1 MP."""
    b = DATA.block(block)
    assert b.lifts
    for lift in b.lifts:
        squares = [b.square(lbl) for lbl in lift.labels]
        assert len(squares) >= 2 and all(not s.is_open and s.lift for s in squares)
        assert [s.level for s in squares] == list(range(lift.bottom, lift.top + 1))


@pytest.mark.parametrize("start, stops", [
    ("curie:D4", ["D1", "D2", "D3", "D5", "D6", "D7", "D8", "D9", "D10"]),
    ("curie:G9", ["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"]),
    ("keaton:H6", ["H1", "H2", "H3", "H4", "H5"]),
    ("houdini:C2", ["C1", "C3"]),
    ("curie:E5", []),
])
def test_lift_stops(start, stops):
    """6.iii: from any square of the lift to any other square of it for 1 MP."""
    block = start.split(":")[0]
    assert [x.label for x in RING.lift_stops(L(start))] == stops
    assert all(x.block == block for x in RING.lift_stops(L(start)))


def test_lift_route_passes_the_squares_between():
    """6.iii: an enemy Blocker on a square of the lift's route may stop the ride: the route is every
    square passed, the arrival included; 9.iv a collapse anywhere on the shaft blocks the lift."""
    assert names(RING.lift_route(L("curie:D2"), L("curie:D6"))) == ["curie:D3", "curie:D4", "curie:D5", "curie:D6"]
    assert names(RING.lift_route(L("curie:D6"), L("curie:D4"))) == ["curie:D5", "curie:D4"]
    assert len(RING.lift_shaft(L("curie:D6"))) == 10
    with pytest.raises(ValueError):
        RING.lift_route(L("curie:D2"), L("curie:E6"))


@pytest.mark.parametrize("start, target", [
    ("curie:F10", "curie:F1"), ("curie:F7", "curie:F1"), ("curie:F4", "curie:F1"),
    ("keaton:F11", "keaton:F1"), ("keaton:C6", "keaton:C1"), ("earhart:D12", "earhart:D1"),
    ("earhart:G5", "earhart:G1"), ("houdini:G12", "houdini:G1"),
    ("curie:F9", None), ("curie:D5", None),
])
def test_grav_chute_targets(start, target):
    """6.iv: from a square with the symbol straight down to the ground square of the same column,
    never stopping on the way (even on another chute square); other squares have no chute."""
    got = RING.chute_target(L(start))
    assert (str(got) if got else None) == target
    if target:
        assert RING.square(got).level == DATA.ground and not RING.square(got).is_open


def test_grav_chute_path_is_every_square_below():
    """6.iv, 9.iv: a collapsed square anywhere below the chute kills whoever uses it: the path is every
    square down to the ground."""
    assert names(RING.chute_path(L("curie:F7"))) == [f"curie:F{lv}" for lv in range(6, 0, -1)]
    assert RING.chute_path(L("curie:D5")) == ()


@pytest.mark.parametrize("block", ORDER)
def test_fire_control_points(block):
    """1.ii, 8.x: fire-control symbols on Window and Interior squares, at least one per block."""
    points = DATA.block(block).fire_control
    assert points and all(not s.is_open for s in points)


# -- edges and the ring (1.ii) ---------------------------------------------------------------------------------

@pytest.mark.parametrize("block", ORDER)
def test_both_edges_are_the_join_profile(block):
    """1.ii: the half squares at one edge complete those at the other: every map's two edge columns
    are the same Open Air profile, so the maps join in any order."""
    b = DATA.block(block)
    for level in range(1, b.levels + 1):
        left, right = b.at(0, level), b.at(b.width - 1, level)
        assert left.is_open and left.kind is right.kind is DATA.join[level - 1]


@pytest.mark.parametrize("start, direction, expected", [
    ("curie:D5", "left", "curie:C5"), ("curie:D5", "right", "curie:E5"),
    ("curie:D5", "up", "curie:D6"), ("curie:D5", "down", "curie:D4"),
    ("curie:I5", "right", "keaton:A5"), ("keaton:A5", "left", "curie:I5"),
    ("keaton:I6", "right", "earhart:A6"), ("houdini:I5", "right", "curie:A5"),
    ("curie:A5", "left", "houdini:I5"), ("curie:B5", "left", "curie:A5"),
    ("curie:D12", "up", None), ("curie:D1", "down", None),
    ("curie:I1", "up-right", "keaton:A2"), ("curie:A1", "up-left", "houdini:I2"),
])
def test_steps_across_joins_and_round_the_ring(start, direction, expected):
    """1.ii: "uscendo dal bordo destro della mappa, si rientra da quello sinistro": the maps join edge
    to edge and the row closes into a ring."""
    got = RING.step(L(start), direction)
    assert (str(got) if got else None) == expected


def test_the_shared_half_square_has_one_name():
    """1.ii: the right half square of a map and the left half square of the next are one square;
    it is named from the map on its right, and is on both maps."""
    assert L("curie:J6") == L("keaton:A6") == Loc("keaton", 0, 6)
    assert L("houdini:J1") == L("curie:A1")
    assert RING.maps_of(L("keaton:A6")) == ("curie", "keaton")
    assert RING.maps_of(L("keaton:B6")) == ("keaton",)
    assert RING.width == sum(b.width - 1 for b in DATA.blocks)


@pytest.mark.parametrize("order", [["curie", "keaton"], ["houdini", "earhart", "curie"], ["earhart"]])
def test_any_order_and_any_number_of_blocks_wraps(order):
    """3: the maps are laid out in the order rolled, contiguous; 1.ii the row wraps round."""
    ring = DATA.ring(order)
    last, first = order[-1], order[0]
    assert ring.step(ring.loc(last, "I5"), "right") == ring.loc(first, "A5")
    assert ring.step(ring.loc(first, "A5"), "left") == ring.loc(last, "I5")
    assert ring.adjacent_blocks(first) == (last, order[1 % len(order)])
    x = ring.loc(first, "D5")
    for _ in range(ring.width):
        x = ring.step(x, "right")
    assert x == ring.loc(first, "D5")


def test_a_ring_rejects_unknown_or_repeated_blocks():
    """3: each player takes one block."""
    with pytest.raises(KeyError):
        DATA.ring(["curie", "dredd"])
    with pytest.raises(ValueError):
        DATA.ring(["curie", "curie"])


@pytest.mark.parametrize("loc, expected", [
    ("curie:D5", ["curie:C5", "curie:E5", "curie:D6", "curie:D4"]),
    ("keaton:A1", ["curie:I1", "keaton:B1", "keaton:A2"]),
    ("curie:C12", ["curie:B12", "curie:D12", "curie:C11"]),
])
def test_orthogonal_neighbours(loc, expected):
    """6.i no diagonal moves; 6.x hand-over and 8.vi charges only orthogonally."""
    assert names(RING.neighbours(L(loc))) == expected


def test_eight_neighbours_for_fire_fighting():
    """8.x: a fire-control Blocker fights Fires in an adjacent square "anche in diagonale"."""
    assert len(RING.neighbours8(L("curie:D3"))) == 8
    assert len(RING.neighbours8(L("curie:D1"))) == 5


@pytest.mark.parametrize("a, b, adjacent", [
    ("curie:H5", "curie:I5", True),   # orthogonal
    ("curie:H5", "curie:H6", True),
    ("curie:H5", "curie:I4", True),   # Window - Open Air diagonal
    ("curie:B5", "curie:A6", True),   # Open Air - Open Air diagonal
    ("curie:H5", "curie:G4", False),  # Window - Interior diagonal
    ("curie:D5", "curie:E6", False),  # Interior - Interior diagonal
    ("curie:H5", "curie:H7", False),  # two squares away
])
def test_defensive_fire_adjacency(a, b, adjacent):
    """7.i: one square away horizontally or vertically; diagonally only Open Air to Open Air or Open
    Air to Window."""
    assert RING.defensive_fire_adjacent(L(a), L(b)) is adjacent


# -- lines of fire (8.iii, 8.iv) --------------------------------------------------------------------------------

@pytest.mark.parametrize("shooter, target, rng", [
    ("curie:H5", "keaton:C5", 4),      # window to window across the gap
    ("curie:H5", "keaton:C4", 4),      # diagonally through Open Air
    ("curie:H9", "keaton:D11", 5),     # up to the ziggurat's top level
    ("curie:H5", "curie:H4", 1),       # the window below
    ("curie:H5", "curie:G5", 1),       # Interior, orthogonally adjacent
    ("curie:C5", "curie:H5", None),    # not through the block
    ("curie:G5", "keaton:C5", None),   # not through one's own Window
    ("curie:H5", "curie:G4", None),    # Interior only orthogonally
    ("curie:H5", "keaton:D5", None),   # Interior behind a Window
    ("curie:C5", "houdini:G5", 5),     # round the ring, leftwards
    ("houdini:G5", "curie:C5", 5),
    ("earhart:D9", "earhart:G9", 3),   # between the twin towers
    ("earhart:C8", "earhart:H8", None),
    ("houdini:D6", "houdini:C3", 3),   # from the tower down onto the podium roof
    ("curie:B12", "keaton:H12", 15),   # all Open Air
])
def test_lines_of_fire(shooter, target, rng):
    """8.iv: "DA qualsiasi Square VERSO O ATTRAVERSO qualsiasi Square Open Air E VERSO, MA NON
    ATTRAVERSO qualsiasi Square Window o Interior", to Interior only along a level or column; 8.iii
    the range counts the target's square and goes diagonally through Open Air; 1.ii shooting wraps."""
    assert RING.fire_range(L(shooter), L(target)) == rng


def test_fallen_block_and_opened_squares_count_as_open_air():
    """10.iii: the squares of a block that fell count as Open Air for lines of fire."""
    assert RING.fire_range(L("curie:C5"), L("curie:H5")) is None
    assert RING.fire_range(L("curie:C5"), L("curie:H5"), fallen=["curie"]) == 5
    assert RING.fire_range(L("curie:C5"), L("curie:E5"), also_open=[L("curie:D5")]) == 2
    assert RING.fire_range(L("curie:H5"), L("keaton:C5"), max_range=3) is None


def test_distance_is_the_short_way_round():
    """8.iii: in doubt the shortest possible distance; diagonals count one."""
    assert RING.distance(L("curie:C5"), L("houdini:G5")) == 5
    assert RING.distance(L("curie:H5"), L("keaton:C4")) == 4


# -- transit (6.vi, 6.vii, 6.viii) ------------------------------------------------------------------------------

def test_pedways_join_facing_termini():
    """6.vii: terminus to terminus at level 6 for 1 MP; stopped, walkable square by square (9.vi)."""
    route = RING.pedway(L("curie:H6"))
    assert names(route.squares) == ["curie:I6", "keaton:A6", "keaton:B6", "keaton:C6"]
    assert str(route.end) == "keaton:C6"
    assert str(RING.pedway(L("keaton:C6")).end) == "curie:H6"
    assert str(RING.pedway(L("curie:C6")).end) == "houdini:G6"
    assert len(RING.pedway(L("curie:C6")).squares) == 5  # across the Houdini podium roof
    for t in RING.termini():
        assert RING.pedway(RING.pedway(t).end).end == t
    with pytest.raises(ValueError):
        RING.pedway(L("curie:D6"))


def test_sky_rail_routes_both_ways():
    """6.vi: station to any station for 1 MP, level unchanged, through occupied and collapsed
    squares; only a collapsed Sky Rail, Tubeway or station on the way stops it."""
    stations = RING.stations()
    assert [s.block for s in stations] == ORDER
    right, left = RING.skyrail_routes(L("curie:E10"), L("earhart:D10"))
    assert right.direction == 1 and left.direction == -1
    assert len(right.squares) + len(left.squares) == RING.width
    assert "keaton:E10" in names(right.critical) and "keaton:F10" not in names(right.critical)
    assert "houdini:E10" in names(left.critical)
    assert all(RING.square(s).level == DATA.skyrail_level for s in right.squares + left.squares)
    assert {RING.square(s).kind.code for s in right.critical} == {"SR", "TW", "SS"}
    with pytest.raises(ValueError):
        RING.skyrail_routes(L("curie:E10"), L("curie:D10"))


def test_mega_way_routes_both_ways():
    """6.viii: Vehicle Park to any Vehicle Park for 1 MP; only collapsed Mega Way, Tunnel or Vehicle
    Park squares stop the ride."""
    parks = RING.vehicle_parks()
    assert len(parks) == 4
    right, left = RING.megaway_routes(parks[0], parks[1])
    assert right.end == parks[1] and names(right.critical)[-1] == str(parks[1])
    assert {RING.square(s).kind.code for s in right.critical} == {"MW", "TN", "VP"}
    assert len(left.critical) > len(right.critical)


def test_flight_targets():
    """6.ix: fliers go to any Open Air, Balcony or Tween Block Plaza of their map or an adjacent one,
    or to the station or Vehicle Park of an adjacent block through its Tubeway or Tunnel."""
    targets = set(names(RING.flight_targets(L("curie:C9"))))
    assert {"curie:B9", "curie:H9", "keaton:C4", "houdini:A1", "keaton:A12"} <= targets
    assert {"keaton:E10", "keaton:E2", "houdini:E10", "houdini:E2"} <= targets
    assert "curie:E10" not in targets and "curie:D5" not in targets and "houdini:B1" not in targets
    assert not any(t.startswith("earhart:") and not t.startswith("earhart:A") for t in targets)
    assert names(RING.flight_gate(L("keaton:E10"))) == ["keaton:D10", "keaton:G10"]


# -- collapse and fire (9.iii, 10.i) ------------------------------------------------------------------------------

@pytest.mark.parametrize("loc, expected", [
    ("curie:E5", ["curie:E6", "curie:F6", "curie:D6"]),
    ("curie:H5", ["curie:H6", "curie:G6"]),   # the Pedway square up-right is Open Air
    ("curie:E10", []),
    ("earhart:D8", ["earhart:D9", "earhart:C9"]),
    ("houdini:C3", ["houdini:D4"]),           # only the tower's corner above the podium's edge
])
def test_collapse_targets(loc, expected):
    """9.iii: Structural Damage on the square above, then above right, then above left, Open Air
    squares excepted."""
    assert names(RING.collapse_targets(L(loc))) == expected


@pytest.mark.parametrize("roll, expected", [
    (2, "curie:E4"), (3, "curie:D4"), (4, "curie:D5"), (5, "curie:D6"), (6, "curie:E6"), (7, "curie:E6"),
    (8, "curie:E6"), (9, "curie:F6"), (10, "curie:F5"), (11, "curie:F4"), (12, "curie:E6"),
])
def test_fire_spread_diagram(roll, expected):
    """10.i: a fourth Fire goes to the neighbour the 2d6 diagram gives (our reading of the garbled
    diagram: 5 6-7-8-12 9 above, 4 and 10 beside, 3 2 11 below)."""
    assert str(RING.fire_spread_target(L("curie:E5"), roll)) == expected


def test_fire_spread_off_the_map():
    """10.i: off the map nothing is placed."""
    assert RING.fire_spread_target(L("curie:E1"), 2) is None
    with pytest.raises(ValueError):
        RING.fire_spread_target(L("curie:E5"), 13)


# -- the loader's checks --------------------------------------------------------------------------------------

def _block(data: dict, bid: str) -> dict:
    return next(b for b in data["block"] if b["id"] == bid)


def _set(data: dict, bid: str, label: str, token: str) -> dict:
    col, level = parse_label(label)
    b = _block(data, bid)
    i = data["map"]["levels"] - level
    row = b["grid"][i].split()
    row[col] = token
    b["grid"][i] = "  ".join(row)
    return data


BAD_SQUARES = [
    ("D5", "iZZ", r"block 'curie' square D5: unknown kind 'ZZ'"),
    ("D5", "i", r"square D5: a interior square must be residential"),
    ("B5", "o34", r"square B5: a Residential square cannot be open"),
    ("D5", "w32", r"square D5: a Window square must touch Open Air"),
    ("D5", "i33", r"square E5: address 33 is already on D5"),
    ("D5", "iCV", r"block 'curie': addresses \[32\] are on no square"),
    ("D5", "i17", r"square D5: address 17 cannot be read from two dice"),
    ("D5", "iEP32", r"square D5: a Entrance Plaza square cannot be interior"),
    ("C5", "wEP31", r"square C5: a Entrance Plaza square lies on the ground level 1"),
    ("A5", "oTP", r"square A5: the edge square is Tween Block Plaza, the \[join\] says Open Air"),
    ("B6", "o", r"square B6: plain Open Air on the pedway level 6"),
    ("B5", "oPW", r"square B5: a Pedway square lies on the pedway level 6"),
    ("G3", "iCV", r"block 'curie': 0 Bank squares, the block needs 1 or more"),
    ("F10", "wSS", r"block 'curie': 2 Sky Rail station squares, the block needs 1 "),
    ("B12", "wCV", r"square B12: cannot be reached on foot"),
]


@pytest.mark.parametrize("label, token, message", BAD_SQUARES)
def test_bad_squares_are_rejected(label, token, message):
    """1.ii, 5.ii, 6.i-6.ix, 9.i: the loader names the block and the square of any inconsistency."""
    with pytest.raises(BlocksError, match=message):
        parse_blocks(_set(_data(), "curie", label, token))


def test_transit_entrance_must_be_outermost():
    """6.vi, 6.ix: the Tubeway is the Sky Rail's way into the block, at its outer face."""
    data = _set(_set(_data(), "curie", "C10", "w66"), "curie", "D10", "wTW")
    with pytest.raises(BlocksError, match="square C10: the outermost square of the skyrail level must be a Tubeway"):
        parse_blocks(data)


@pytest.mark.parametrize("change, message", [
    (lambda b: b["lift"][0].update(levels=[1, 11]), r"curie' lift 1: square D11 is Open Air"),
    (lambda b: b["lift"][0].update(levels=[5, 5]), r"lift 1: the shaft must serve at least two levels"),
    (lambda b: b["lift"].append({"column": "D", "levels": [3, 4]}), r"lift 3: square D3 is already on lift 1"),
    (lambda b: b["lift"][0].update(column="Z"), r"lift 1: column 'Z' is not one of A..J"),
    (lambda b: b["chute"][0].update(levels=[4, 7]), r"grav-chute 1: list the levels once each, top first"),
    (lambda b: b["chute"][0].update(levels=[10, 1]), r"grav-chute 1: square F1 is on the ground level"),
    (lambda b: b["chute"][0].update(levels=[11]), r"grav-chute 1: square F11 is Open Air"),
    (lambda b: b.update(fire_control=["B5"]), r"fire_control: square B5 is Open Air"),
    (lambda b: b.update(fire_control=["D3", "D3"]), r"fire_control: square D3 is listed twice"),
    (lambda b: b.update(fire_control=[]), r"'fire_control' must list"),
    (lambda b: b.update(id="Curie!"), r"block 'Curie!': the id must be lower-case"),
    (lambda b: b["grid"].pop(), r"block 'curie': 'grid' must list 12 levels"),
])
def test_bad_block_entries_are_rejected(change, message):
    """6.iii lifts, 6.iv grav-chutes, 8.x fire-control points: each entry checked, named in the error."""
    data = _data()
    change(_block(data, "curie"))
    with pytest.raises(BlocksError, match=message):
        parse_blocks(data)


def test_chute_landing_in_open_air_is_rejected():
    """6.iv: a grav-chute drops to the ground square below, which must be a square of the block."""
    data = _set(_set(_data(), "curie", "B9", "wCV"), "curie", "C9", "iCV")
    _block(data, "curie")["chute"].append({"column": "B", "levels": [9]})
    with pytest.raises(BlocksError, match=r"grav-chute 2: it lands in B1, which is Open Air"):
        parse_blocks(data)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["block"].append(copy.deepcopy(d["block"][0])), r"block 'curie' appears twice"),
    (lambda d: d["block"][1].update(name="Marie Curie Block"), r"block 'keaton': the name 'Marie Curie Block'"),
    (lambda d: d["join"]["levels"].__setitem__(7, "wCV"),
     r"\[join\] level 5: the half squares between blocks are Open Air"),
    (lambda d: d["map"].update(pedway=7), r"\[map\] pedway: the pedways run at the sixth level"),
    (lambda d: d["map"].update(ground=2), r"\[map\] ground: level 1 is the ground level"),
    (lambda d: d["fire_spread"].pop("12"), r"\[fire_spread\]: totals \[12\] have no direction"),
    (lambda d: d["fire_spread"].update({"7": "sideways"}), r"\[fire_spread\] 7: 'sideways' is not one of"),
    (lambda d: d["kind"].append(dict(d["kind"][0])), r"kind 'OA' appears twice"),
    (lambda d: d["kind"][5].update(types=["open"]), r"kind 'RS': Open Air kinds have colour 'open'"),
    (lambda d: d["kind"][7].update(strength=6, damage="melt"), r"kind 'BK': 'strength' and 'damage'"),
])
def test_bad_tables_are_rejected(change, message):
    """1.ii (the join), 6.vii (level 6), 6.iv (ground level), 10.i (2d6 diagram): the loader names
    the table and the entry."""
    data = _data()
    change(data)
    with pytest.raises(BlocksError, match=message):
        parse_blocks(data)


def test_malformed_toml_is_a_blocks_error():
    with pytest.raises(BlocksError):
        load_blocks("[map")
    with pytest.raises(BlocksError, match="no \\[map\\] table"):
        load_blocks("x = 1\n")


def test_the_script_reproduces_the_data_file():
    """The data file is the source the game reads; scripts/blockmania_blocks.py must write exactly it."""
    path = Path(__file__).resolve().parents[3] / "scripts" / "blockmania_blocks.py"
    spec = importlib.util.spec_from_file_location("blockmania_blocks", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = resources.files("pbem.games.blockmania.data").joinpath("blocks.toml").read_text("utf-8")
    assert module.render() == text
