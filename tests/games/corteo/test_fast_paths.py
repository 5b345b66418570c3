"""Corteo's short cuts give what the general code gives: a unit moved without
``dataclasses.replace``, the words of an order line sorted into units, hexes and the rest with one
look at each."""

from __future__ import annotations

import re
from typing import Any
from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.corteo.orders import _split, is_hex, is_unit
from pbem.games.corteo.state import Unit, relocated

_units = st.builds(Unit, st.text(max_size=5), st.text(max_size=5), st.booleans(), st.integers(0, 12), st.booleans(),
                   st.booleans())


def test_relocated_knows_every_field_of_a_unit() -> None:
    """A field added to Unit must be carried by ``relocated`` too: this list is its reminder."""
    assert [f.name for f in fields(Unit)] == ["id", "loc", "panicked", "panic_hand", "presidio", "waiting"]


@settings(max_examples=300, deadline=None)
@given(_units, st.text(max_size=5), st.one_of(st.none(), st.booleans()), st.one_of(st.none(), st.booleans()))
def test_relocated_is_replace(unit: Unit, loc: str, waiting: bool | None, presidio: bool | None) -> None:
    flags: dict[str, Any] = {k: v for k, v in (("waiting", waiting), ("presidio", presidio)) if v is not None}
    assert relocated(unit, loc, waiting=waiting, presidio=presidio) == replace(unit, loc=loc, **flags)


_HEX = re.compile(r"[A-Z][0-9]{1,2}")
_UNIT = re.compile(r"[A-Z]{2,3}[0-9]{1,2}")
_words = st.lists(st.one_of(st.from_regex(_HEX, fullmatch=True), st.from_regex(_UNIT, fullmatch=True),
                            st.text(st.sampled_from("ABKMOV0129xé"), max_size=6)), max_size=8)


@settings(max_examples=500, deadline=None)
@given(_words)
def test_words_are_sorted_as_the_three_scans_sorted_them(words: list[str]) -> None:
    def unit(w: str) -> bool:
        return bool(_UNIT.fullmatch(w)) and not _HEX.fullmatch(w)

    expected = ([w for w in words if unit(w)], [w for w in words if _HEX.fullmatch(w)],
                [w for w in words if not unit(w) and not _HEX.fullmatch(w)])
    assert _split(words) == expected
    assert [is_unit(w) for w in words] == [unit(w) for w in words]
    assert [is_hex(w) for w in words] == [bool(_HEX.fullmatch(w)) for w in words]
