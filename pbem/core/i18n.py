"""Messages in the players' languages.

Engines and services speak in `Message` objects (a key and arguments); the text is
chosen only when a mail is written, from catalogs kept as data (TOML files with one
table per language). English is the fallback for a missing key.

A counted text (``1 square`` / ``2 squares``, never ``square(s)``) has one key per plural
category of the language, as CLDR names them (``report-along.one``, ``report-along.other``),
chosen by the message's ``count`` argument; ``other`` is the fallback every language has.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

LANGUAGES = ("en", "it")
DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True)
class Message:
    """A translatable message: a catalog key plus its format arguments."""

    key: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.key, tuple(sorted((k, str(v)) for k, v in self.args.items()))))


def msg(key: str, **args: Any) -> Message:
    """Shorthand used by engines: ``msg("unknown-unit", unit="G7")``."""
    return Message(key, args)


def normalise_language(lang: str | None) -> str:
    """Map 'it-IT', 'IT', 'italiano' ... to a supported language code."""
    if not lang:
        return DEFAULT_LANGUAGE
    code = lang.strip().lower()[:2]
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


@lru_cache(maxsize=None)
def plural_category(count: int, lang: str) -> str:
    """The CLDR plural category of ``count`` in ``lang`` (``one``, ``other``, ...)."""
    from babel import Locale

    try:
        return str(Locale.parse(lang).plural_form(abs(count)))
    except (ValueError, TypeError):
        return "one" if count == 1 else "other"


class Catalog:
    """Texts by language and key; later catalogs override earlier ones."""

    def __init__(self, tables: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self._tables: dict[str, dict[str, str]] = {lang: {} for lang in LANGUAGES}
        if tables:
            self.update(tables)

    def update(self, tables: Mapping[str, Mapping[str, str]]) -> None:
        for lang, entries in tables.items():
            self._tables.setdefault(lang, {}).update(entries)

    @classmethod
    def from_package(cls, package: str, name: str = "messages.toml") -> "Catalog":
        """Load ``name`` from a package's data folder (``package`` is a dotted path)."""
        text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
        return cls(tomllib.loads(text))

    def merged(self, other: "Catalog") -> "Catalog":
        result = Catalog(self._tables)
        result.update(other._tables)
        return result

    def has(self, key: str, lang: str = DEFAULT_LANGUAGE) -> bool:
        """Whether ``key`` has a text in ``lang``, plain or counted (``key.other``)."""
        table = self._tables.get(lang, {})
        return key in table or f"{key}.other" in table

    def keys(self, lang: str = DEFAULT_LANGUAGE) -> frozenset[str]:
        """The keys ``lang`` has (the both-language test compares them)."""
        return frozenset(self._tables.get(lang, {}))

    def template(self, key: str, lang: str = DEFAULT_LANGUAGE) -> str | None:
        """The raw text of ``key`` in ``lang``, placeholders unfilled (None when missing)."""
        return self._tables.get(lang, {}).get(key)

    def _counted(self, message: Message, lang: str) -> str | None:
        """The template of ``message`` in ``lang``: its key, or the key's plural form for its ``count``."""
        table = self._tables.get(lang, {})
        template = table.get(message.key)
        count = message.args.get("count")
        if template is None and isinstance(count, int) and not isinstance(count, bool):
            template = table.get(f"{message.key}.{plural_category(count, lang)}", table.get(f"{message.key}.other"))
        return template

    def text(self, message: Message | str, lang: str) -> str:
        """The message in ``lang``; unknown keys fall back to English, then to the key."""
        if isinstance(message, str):
            return message
        lang = normalise_language(lang)
        template = self._counted(message, lang)
        if template is None:
            template = self._counted(message, DEFAULT_LANGUAGE)
        # A Message used as an argument is rendered in the same language first.
        values = {k: self.text(v, lang) if isinstance(v, Message) else v
                  for k, v in message.args.items()}
        if template is None:
            args = ", ".join(f"{k}={v}" for k, v in values.items())
            return f"{message.key}({args})" if args else message.key
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError):
            return template
