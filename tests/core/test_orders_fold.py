"""``fold``'s short cut for ASCII words gives what the Unicode way gives, on any text."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.orders import fold


def _fold_by_unicode(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.upper())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@settings(max_examples=1000, deadline=None)
@given(st.one_of(st.text(max_size=20), st.text(st.characters(max_codepoint=0x7F), max_size=20),
                 st.text(st.sampled_from("aeiouAEIOU ıſﬀéèàòùÌ\u0301\u0130ß\u2160"), max_size=12)))
def test_fold_is_the_unicode_fold(word: str) -> None:
    assert fold(word) == _fold_by_unicode(word)


def test_players_spellings_fold_alike() -> None:
    assert fold("più") == fold("PIU") == fold("Più") == "PIU"
    assert fold("muovi") == "MUOVI" and fold("ſtop") == "STOP"
