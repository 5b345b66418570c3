"""Counted texts in the reader's language: ``1 error`` / ``2 errors``, ``1 errore`` /
``2 errori``, never ``errore/i``.

A counted text has one catalogue key per plural category of the language, as Babel's
CLDR data names them (``reply.rejected.one``, ``reply.rejected.other``; a language with
more categories would add ``.few``, ``.many``); ``other`` is the fallback every language has.
"""

from __future__ import annotations

from typing import Any

from babel import Locale
from babel.lists import format_list

from pbem.service.texts import catalog, t


def category(count: int, lang: str) -> str:
    """The CLDR plural category of ``count`` in ``lang`` (``one``, ``other``, …)."""
    try:
        return str(Locale.parse(lang).plural_form(abs(count)))
    except (ValueError, TypeError):
        return "one" if count == 1 else "other"


def tn(key: str, count: int, lang: str, **args: Any) -> str:
    """The text ``key`` for ``count`` things (``{count}`` among its placeholders)."""
    form = f"{key}.{category(count, lang)}"
    return t(form if catalog().has(form, lang) else f"{key}.other", lang, count=count, **args)


def listed(items: list[str], lang: str) -> str:
    """``north and south`` / ``north e south``: names in a sentence, as the language joins them."""
    try:
        return format_list(items, locale=lang) if items else "—"
    except (ValueError, TypeError):
        return ", ".join(items) or "—"
