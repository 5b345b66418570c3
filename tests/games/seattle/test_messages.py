"""Every name the data uses has a text in English and Italian (data/messages.toml)."""

import pytest

from pbem.core.i18n import LANGUAGES, Catalog
from pbem.games.seattle.map import MAP
from pbem.games.seattle.tables import RESULTS, TABLES

CATALOG = Catalog.from_package("pbem.games.seattle.data")


def _keys() -> list[str]:
    keys = [f"area-{a.id}" for a in MAP.areas] + [f"box-{b.id}" for b in MAP.boxes]
    keys += [f"unit-{u.key}" for u in TABLES.units] + [f"kind-{k}" for k in ("group", "crowd", "police")]
    keys += [f"event-{e.key}" for e in TABLES.events] + [f"event-{e.key}-text" for e in TABLES.events]
    keys += [f"result-{r}" for r in RESULTS] + [f"period-{p.key}" for p in TABLES.periods]
    keys += [f"escalation-{p.phase}" for p in TABLES.escalation] + [f"victory-{v.key}" for v in TABLES.victory]
    return keys


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_name_has_a_text(lang):
    missing = [k for k in _keys() if not CATALOG.has(k, lang)]
    assert not missing


def test_italian_uses_the_rulebook_words():
    assert CATALOG.text("result-MC", "it") == "result-MC"  # plain strings pass through
    from pbem.core.i18n import msg

    assert CATALOG.text(msg("result-MC"), "it") == "verifica del morale"
    assert CATALOG.text(msg("box-reserve-pool"), "it") == "Zona di Riserva"
    assert CATALOG.text(msg("unit-antagonists"), "it") == "Antagonisti"
