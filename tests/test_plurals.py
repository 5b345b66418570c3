"""Counted texts read as people write them (issue 19.5): "used 1 point" / "used 4 points",
"1 casa" / "2 case", never "point(s)" or "punto/i". A catalogue keeps one text per plural
category of the language (``key.one``, ``key.other``), chosen by the message's ``count``."""

from __future__ import annotations

import re

import pytest

from pbem.core import registry
from pbem.core.i18n import Catalog, msg
from pbem.service.texts import catalog as service_catalog
from pbem.service.texts import text_of

#: "square(s)", "militant(s)", "punto/i", "casa/e", "rimosso/i": a plural left to the reader.
HEDGED = re.compile(r"\w\((?:s|es)\)|\w/(?:i|e)\b")
#: None left hedged.
KNOWN: set[str] = set()


def test_the_count_chooses_the_form_in_each_language() -> None:
    cat = Catalog({"en": {"n.one": "{count} square", "n.other": "{count} squares"},
                   "it": {"n.one": "{count} casa", "n.other": "{count} case"}})
    assert [cat.text(msg("n", count=c), "en") for c in (0, 1, 2)] == ["0 squares", "1 square", "2 squares"]
    # Italian: 0 is plural as in English (CLDR), 1 singular
    assert [cat.text(msg("n", count=c), "it") for c in (0, 1, 5)] == ["0 case", "1 casa", "5 case"]
    assert cat.has("n") and cat.has("n", "it")  # a counted key is a key: engines' messages find their catalogue
    # A language without the key falls back to English, counted the same way.
    assert Catalog({"en": {"n.one": "1 square", "n.other": "{count} squares"}}).text(msg("n", count=3), "it") == "3 squares"


def test_arditi_reports_count_points_and_squares() -> None:
    rules = registry.get("arditi")
    one = text_of(msg("report-along", count=1, way="back", origin=87, dest=2), "it", rules.catalog)
    many = text_of(msg("report-along", count=3, way="back", origin=87, dest=2), "it", rules.catalog)
    assert "di 1 casa back" in one and "di 3 case back" in many
    moved = rules.catalog.text(msg("report-moved", seat="Red", roll=4, count=4), "en")
    assert moved == "Red rolled 4 and used 4 points:"
    assert rules.catalog.text(msg("report-moved", seat="Rosso", roll=1, count=1), "it") == "Rosso ha tirato 1 e ha usato 1 punto:"


@pytest.mark.parametrize("kind", registry.kinds())
def test_no_catalogue_leaves_a_plural_to_the_reader(kind: str) -> None:
    cats = [registry.get(kind).catalog, service_catalog()]
    hedged = sorted({f"{lang}:{key}: {cat.template(key, lang)}" for cat in cats for lang in ("en", "it")
                     for key in cat.keys(lang) if key not in KNOWN and HEDGED.search(cat.template(key, lang) or "")})
    assert hedged == []
