"""Dice purposes in the reader's language.

An engine names each roll in English ("die for red"); the purpose is stored with the roll and
hashed into the game's chain, so it never changes. Players read it through the game's catalogue:
every ``purpose.<name>`` entry is a template whose English text matches purposes ("die for
{seat}") and whose other languages say the same ("dado per {seat}"). A value that is itself a
seat or a catalogue word (``seat-red``, ``term-<value>``) is translated too, and a field named
``purpose`` is itself a purpose.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pbem.core.i18n import Catalog, Message

_FIELD = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=512)
def _pattern(template: str) -> re.Pattern[str]:
    parts = _FIELD.split(template)
    out = []
    for i, part in enumerate(parts):
        # purposes are our own short strings, never mail text: a lazy group is harmless here
        out.append(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)")
    return re.compile("".join(out) + r"\Z")


def purpose_text(catalog: Catalog, purpose: str, lang: str) -> str:
    """``purpose`` in ``lang``; unchanged when English or when no template matches."""
    if lang == "en":
        return purpose
    for key, template in _templates(catalog):
        found = _pattern(template).match(purpose)
        if found is None:
            continue
        values = {name: purpose_text(catalog, value, lang) if name == "purpose" else _word(catalog, value, lang)
                  for name, value in found.groupdict().items()}
        return catalog.text(Message(key, values), lang)
    return purpose


def _templates(catalog: Catalog) -> list[tuple[str, str]]:
    """The purpose templates, the most specific (most fixed text) first."""
    found = [(key, catalog.template(key, "en") or "") for key in catalog.keys("en") if key.startswith("purpose.")]
    return sorted(found, key=lambda kt: (-len(_FIELD.sub("", kt[1])), kt[0]))


def _word(catalog: Catalog, value: str, lang: str) -> str:
    for key in (f"seat-{value}", f"side-{value}", f"term-{value}"):
        if catalog.has(key, "en"):
            return catalog.text(Message(key), lang)
    return value
