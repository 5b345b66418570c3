"""The area map (rulebook 2.2, 4.2, 5.0, 6.4, set-up) and the checks of its loader."""

import tomllib
from importlib import resources

import pytest

from pbem.games.seattle.map import MAP, MapError, load_map, parse_map


def _data() -> dict:
    return tomllib.loads(resources.files("pbem.games.seattle.data").joinpath("map.toml").read_text("utf-8"))


# -- the movement example of 5.0 ------------------------------------------------------------------

def test_movement_example_is_a_three_area_path():
    """5.0: "un Gruppo che inizia la sua fase di movimento nell'International District può muovere
    verso Kingdome – Pioneer Square – Waterfront ma non oltre"."""
    path = ["international-district", "kingdome", "pioneer-square", "waterfront"]
    assert MAP.is_path(path)
    dist = MAP.distances("international-district")
    assert [dist[a] for a in path] == [0, 1, 2, 3]


def test_movement_example_no_shortcut_and_not_beyond():
    """5.0: the path is the shortest way (no line skips Kingdome or Pioneer Square), and a Group
    (movement 3) reaches the Waterfront but "non oltre": its neighbours beyond are out of reach."""
    assert not MAP.linked("international-district", "pioneer-square")
    assert not MAP.linked("international-district", "waterfront")
    assert not MAP.linked("kingdome", "waterfront")
    reach = MAP.within("international-district", 3)
    assert "waterfront" in reach
    beyond = {n for n in MAP.neighbours("waterfront") if MAP.distance("international-district", n) > 3}
    assert beyond and not beyond & reach


# -- the map facts the rulebook states --------------------------------------------------------------

@pytest.mark.parametrize("area", ["international-district", "kingdome", "pioneer-square", "waterfront",
                                  "convention-center", "capitol-hill"])
def test_areas_named_in_the_rulebook_exist(area):
    """5.0 (movement example), set-up ("area Convention Center"), 2.3 (Capitol Hill)."""
    assert MAP.has_area(area)


def test_core_areas_are_hexagons_with_a_visibility_value_others_circles():
    """2.2: "Ogni area del cuore del centro è a forma di esagono ed ha un valore visibilità ...
    Altre aree sono a forma di cerchio"."""
    assert MAP.core and MAP.circles
    lo, hi = MAP.exposure_range
    for a in MAP.core:
        assert lo <= a.exposure <= hi and lo >= 1
    for a in MAP.circles:
        assert a.exposure == 0


def test_setup_areas():
    """Set-up: one SPD "nell'area Convention Center"; 5 Crowds "in qualsiasi area del cuore del
    centro" (so there are at least 5 core areas). The venue is a core area of top value (ours)."""
    cc = MAP.area("convention-center")
    assert cc.is_core and cc.exposure == MAP.exposure_range[1]
    assert len(MAP.core) >= 5


def test_reserve_pool_is_on_the_sheet_and_off_the_graph():
    """4.2: "Zona di Riserva (Reserve Pool sulla mappa)"; 5.0: units go to and from it, and from it
    to any area — it is not an area joined by lines."""
    pool = MAP.box("reserve-pool")
    assert pool.side == "authorities" and pool.on_sheet
    assert not MAP.has_area("reserve-pool")


def test_off_map_boxes():
    """Set-up and 6.4: Demonstrators off the map "divise per tipo" (Groups, Crowds); Authority units
    "a lato fuori della mappa"; 4.22 the turn track ("linea Conta Turni"); 2.3 the two indexes."""
    assert MAP.box("groups-pile").side == MAP.box("crowds-pile").side == "demonstrators"
    assert MAP.box("authorities-available").side == "authorities"
    assert MAP.box("turn-track").on_sheet and MAP.box("visibility-track").on_sheet


def test_every_area_reachable_and_links_symmetric():
    """2.2: areas "connesse da una rete di linee di comunicazione"."""
    for a in MAP.areas:
        assert set(MAP.distances(a.id)) == set(MAP.area_ids)
        for b in a.links:
            assert MAP.linked(b, a.id)


def test_reconstruction_shape():
    """The reconstruction (docs/games/seattle.md): 11 core hexagons, 9 circles, venues worth 3."""
    assert len(MAP.core) == 11 and len(MAP.circles) == 9
    assert {a.id for a in MAP.core if a.exposure == 3} == {"convention-center", "paramount"}
    assert sum(a.exposure for a in MAP.core) == 19


def test_positions_are_distinct_and_on_the_sheet():
    w, h = MAP.sheet
    positions = [a.pos for a in MAP.areas]
    assert len(set(positions)) == len(positions)
    assert all(0 <= x <= w and 0 <= y <= h for x, y in positions)


# -- the loader's checks ------------------------------------------------------------------------------

def _area(data: dict, aid: str) -> dict:
    return next(a for a in data["area"] if a["id"] == aid)


def test_one_sided_link_is_rejected():
    data = _data()
    _area(data, "kingdome")["links"].append("waterfront")
    with pytest.raises(MapError, match="not listed back"):
        parse_map(data)


def test_unknown_link_is_rejected():
    data = _data()
    _area(data, "kingdome")["links"].append("space-needle")
    with pytest.raises(MapError, match="unknown area 'space-needle'"):
        parse_map(data)


def test_duplicate_name_is_rejected():
    data = _data()
    data["area"].append(dict(_area(data, "kingdome")))
    with pytest.raises(MapError, match="appears twice"):
        parse_map(data)


def test_box_sharing_an_area_name_is_rejected():
    data = _data()
    data["box"][0]["id"] = "kingdome"
    with pytest.raises(MapError, match="already used"):
        parse_map(data)


def test_unreachable_area_is_rejected():
    data = _data()
    data["area"].append({"id": "bainbridge", "kind": "circle", "pos": [1, 1], "links": []})
    with pytest.raises(MapError, match="not reachable.*bainbridge"):
        parse_map(data)


@pytest.mark.parametrize("value", [0, 4, "2"])
def test_exposure_out_of_range_is_rejected(value):
    data = _data()
    _area(data, "westlake")["exposure"] = value
    with pytest.raises(MapError, match="exposure"):
        parse_map(data)


def test_core_without_exposure_and_circle_with_one_are_rejected():
    data = _data()
    del _area(data, "westlake")["exposure"]
    with pytest.raises(MapError, match="no exposure"):
        parse_map(data)
    data = _data()
    _area(data, "kingdome")["exposure"] = 1
    with pytest.raises(MapError, match="must not have an exposure"):
        parse_map(data)


def test_self_link_and_bad_kind_are_rejected():
    data = _data()
    _area(data, "kingdome")["links"].append("kingdome")
    with pytest.raises(MapError, match="itself"):
        parse_map(data)
    data = _data()
    _area(data, "kingdome")["kind"] = "square"
    with pytest.raises(MapError, match="kind"):
        parse_map(data)


def test_malformed_text_gives_a_map_error():
    with pytest.raises(MapError):
        load_map("area = [")
    with pytest.raises(MapError, match="missing"):
        load_map("[sheet]\nwidth = 1\nheight = 1\n")
