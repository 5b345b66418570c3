"""No label covers another on any map of `pbem demo` (issue 19.7: labels are placed where they hide
nothing), in both languages: every map the demo's mails carry is drawn again from its attached view
and its texts are measured (see `tests.render.labels`)."""

from __future__ import annotations

import pytest

from pbem.core.i18n import LANGUAGES
from pbem.demo import scripted_kinds
from tests.render.labels import collisions, demo_maps

#: Maps whose labels still collide (issue 19.7 is open for them): the test fails loudly once fixed.
KNOWN: dict[str, str] = {}


def _cases() -> list[object]:
    out: list[object] = []
    for kind in scripted_kinds():
        marks = [pytest.mark.xfail(reason=KNOWN[kind], strict=True)] if kind in KNOWN else []
        # the walk of tests/test_languages.py plays the same demo: one worker, one run (xdist group)
        out += [pytest.param(kind, lang, marks=[*marks, pytest.mark.xdist_group(f"demo-{kind}-{lang}")],
                             id=f"{kind}-{lang}") for lang in LANGUAGES]
    return out


@pytest.mark.parametrize(("kind", "lang"), _cases())
def test_no_label_covers_another_on_the_demo_maps(kind: str, lang: str) -> None:
    maps = demo_maps(kind, lang)
    assert maps
    found = [f"{name}: {a.text!r} over {b.text!r}" for name, doc in maps for a, b in collisions(doc)]
    assert not found, f"{len(found)} collisions, e.g.\n" + "\n".join(found[:20])


def test_the_check_sees_a_collision() -> None:
    doc = ('<svg xmlns="http://www.w3.org/2000/svg"><text x="10" y="20" font-size="12">Tween Block Plaza</text>'
           '<text x="60" y="22" font-size="12">Entrance</text><text x="10" y="60" font-size="12">apart</text></svg>')
    found = collisions(doc)
    assert [(a.text, b.text) for a, b in found] == [("Tween Block Plaza", "Entrance")]
