"""Both languages, whole (issue 19.5): every mail and every map text of `pbem demo`, played once with
every seat reading English and once with every seat reading Italian, through the real mail path
(embedded IMAP and SMTP on loopback, a SQLite file). A text fails when it shows a catalogue key
or a message id instead of words, or, in Italian, an English text of a catalogue that has an
Italian one; every catalogue has every key in both languages."""

from __future__ import annotations

import importlib
import re

import pytest

from pbem.core import registry
from pbem.core.i18n import LANGUAGES, Catalog
from pbem.demo import scripted_kinds
from pbem.service.texts import catalog as service_catalog
from tests.render.labels import demo_mail

KINDS = scripted_kinds()
#: A message id as the catalogue prints it when a key is missing: ``note-justice-due(seat=red)``.
MESSAGE_ID = re.compile(r"\b[a-z][a-z0-9]*(?:[-.][a-z0-9]+)+\((?:[a-z_]+=[^)]*)?\)")
TOKEN = re.compile(r"[a-z][a-z0-9_]*(?:[-.][a-z0-9_]+)+")
SVG_TEXT = re.compile(r"<(?:text|tspan)[^>]*>([^<]*)<")
#: A line of the dice list ("#3 dado per Rosso: d6 = 4") and English words its purpose must not show in Italian.
DICE_LINE = re.compile(r"^\s*#\d+ (.+?): d\d+ = ", re.MULTILINE)
ENGLISH = re.compile(r"\b(?:the|of|for|from|with|and|die|draw|drawn|seat|bag|shuffle|roll|attack|order)\b")


def catalogues(kind: str) -> list[Catalog]:
    """The game's catalogue, its map's own texts where the map keeps them apart, the service's."""
    out = [registry.get(kind).catalog, service_catalog()]
    render = importlib.import_module(f"pbem.games.{kind}.render")
    for name in ("_render_texts", "_catalog"):
        if hasattr(render, name):
            out.append(getattr(render, name)())
    if kind == "kriegspiel":
        from pbem.games.kriegspiel.maptexts import _TEXTS

        out.append(Catalog(_TEXTS))
    return out


def english_only(cats: list[Catalog]) -> dict[str, str]:
    """For every key whose Italian text differs from the English one: the longest fixed piece of
    the English text (placeholders cut out), when it is long enough to be a phrase of its own."""
    out: dict[str, str] = {}
    for cat in cats:
        for key in cat.keys("en") & cat.keys("it"):
            en, it = cat.template(key, "en") or "", cat.template(key, "it") or ""
            if en == it:
                continue
            pieces = [p.strip(" .,:;()—-") for p in re.split(r"\{[^}]*\}|\n", en)]
            best = max(pieces, key=len, default="")
            if len(best) >= 18 and " " in best and best not in it:
                out[best] = key
    return out


def problems(text: str, keys: set[str], english: dict[str, str] | None) -> list[str]:
    found = [f"message id {m.group(0)!r}" for m in MESSAGE_ID.finditer(text)]
    found += [f"key {tok!r}" for tok in TOKEN.findall(text) if tok in keys]
    if english:
        found += [f"English {piece!r} ({key})" for piece, key in english.items() if piece in text]
        found += [f"English dice purpose {m.group(1)!r}" for m in DICE_LINE.finditer(text)
                  if ENGLISH.search(m.group(1))]
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_every_catalogue_has_every_key_in_both_languages(kind: str) -> None:
    for cat in catalogues(kind):
        missing = {lang: sorted(cat.keys("en") ^ cat.keys(lang)) for lang in LANGUAGES}
        assert not any(missing.values()), missing


# one demo run per kind and language for this walk and the label check (tests/render/test_demo_labels.py):
# the same xdist group sends both to one worker, where `played` keeps the run
@pytest.mark.parametrize(("kind", "lang"), [pytest.param(kind, lang, id=f"{kind}-{lang}",
                                                         marks=pytest.mark.xdist_group(f"demo-{kind}-{lang}"))
                                            for kind in KINDS for lang in LANGUAGES])
def test_demo_mail_and_maps_read_whole_in_each_language(kind: str, lang: str) -> None:
    rules = registry.get(kind)
    cats = catalogues(kind)
    keys = set().union(*(c.keys("en") for c in cats))
    # the game's title is a name, written as published in every language (the report's head)
    english = ({piece: key for piece, key in english_only(cats).items() if piece not in rules.info.title}
               if lang == "it" else None)
    mails = demo_mail(kind, lang)  # parsed, and its maps drawn, once for this walk and the label check
    assert len(mails) >= 4
    bad: list[str] = []
    maps = 0
    for mail in mails:
        bad += [f"{mail.where}: {p}" for p in problems(mail.text, keys, english)]
        for name, svg in mail.maps:
            words = "\n".join(SVG_TEXT.findall(svg))
            maps += 1
            bad += [f"{mail.where.split('/')[0]}/{name} (map): {p}" for p in problems(words, keys, english)]
    assert maps > 0
    assert not bad, "\n".join(sorted(set(bad))[:80])


def test_the_walk_sees_what_it_looks_for() -> None:
    cats = catalogues("blockmania")
    keys = set().union(*(c.keys("en") for c in cats))
    english = english_only(cats)
    assert problems("Nel turno: note-justice-due(seat=red)", keys, None) == [
        "message id 'note-justice-due(seat=red)'", "key 'note-justice-due'"]
    assert problems("Vedi map-legend-fire qui", keys, None) == ["key 'map-legend-fire'"]
    assert problems("Dadi:\n  #3 die for red: d6 = 4", keys, english) == ["English dice purpose 'die for red'"]
    assert problems("Dadi:\n  #3 dado per Rosso: d6 = 4\nmappa di Rosso", keys, english) == []
    assert any(p.startswith("English 'Final ranking (fewest defeat points first'")
               for p in problems("Final ranking (fewest defeat points first)", keys, english))
