"""The street guide of the City, the "Pagine Gialle" (rulebook A, 1d, 3a, 12a: the Stradario)."""

from pathlib import Path

import pytest

from pbem.core.i18n import LANGUAGES
from pbem.games.corteo.city import city
from pbem.games.corteo.guide import CATALOG, guide_name, runs, sort_key, street_guide

CITY = city()
DOCS = Path(__file__).resolve().parents[3] / "docs" / "games" / "corteo.md"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_guide_text_in_both_languages(lang):
    import tomllib
    from importlib import resources

    text = resources.files("pbem.games.corteo.data").joinpath("city_guide.toml").read_text("utf-8")
    keys = list(tomllib.loads(text)["en"])  # the English table lists every key the guide uses
    assert all(CATALOG.has(k, lang) for k in keys)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_place_and_objective_is_in_the_guide_with_its_hexes(lang):
    """12a: "Per distinguere con chiarezza gli obiettivi fra di loro, servitevi dell'apposito Stradario"."""
    text = street_guide(lang)
    for group in (CITY.streets, CITY.squares, CITY.bridges, CITY.areas, CITY.buildings, CITY.gates):
        for p in group:
            assert guide_name(p.name) in text or p.name in text, p.name
    for o in CITY.objectives:
        line = f"{guide_name(o.address)}: {runs(sorted(o.hexes))}"
        assert line in text
    for s in CITY.stations:
        assert s.name in text
    assert "Piazza Mento" in text and "ORG./REAZ." in text


def test_headings_follow_the_language_names_stay_italian():
    en, it = street_guide("en"), street_guide("it")
    assert "== Streets and squares" in en and "== Vie e piazze" in it
    assert "Billikid, Viale" in en and "Billikid, Viale" in it
    assert "part 1" in en and "parte 1" in it


def test_streets_are_sorted_by_their_proper_name():
    """A street guide lists "Billikid, Viale" under B."""
    text = street_guide("en")
    section = text.split("== Streets and squares\n")[1].split("\n\n")[0].splitlines()
    keys = [sort_key(line.strip().split(" (")[0]) for line in section]
    assert keys == sorted(keys)


@pytest.mark.parametrize("name, listed", [
    ("Viale Billikid", "Billikid, Viale"), ("Lungozombi dei Camionisti", "Camionisti, Lungozombi dei"),
    ("Via il Polacco Errante", "Polacco Errante, Via il"), ("Via 'Ndante", "'Ndante, Via"),
    ("Piazza San Carlo al Berto", "San Carlo al Berto, Piazza"), ("Case Popolari dei Limoni", "Limoni, Case Popolari dei"),
])
def test_guide_names(name, listed):
    assert guide_name(name) == listed


def test_runs_compress_rows_and_columns():
    hexes = CITY.street("Viale Billikid").hexes
    assert runs(hexes) == "A11-H11 I12-Q12 R11-Z11"
    assert runs([CITY.hex("A1"), CITY.hex("C3")]) == "A1 C3"


def test_the_docs_carry_the_english_guide():
    """docs/games/corteo.md holds the generated guide: regenerate it when the City changes."""
    assert street_guide("en").strip() in DOCS.read_text("utf-8")
