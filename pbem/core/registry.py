"""Which rules engines exist, by kind (the game's slug)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pbem.errors import UnknownGameError

if TYPE_CHECKING:
    from pbem.core.rules import Rules

#: slug -> "module:attribute" of a Rules instance; imported lazily.
_ENGINES: dict[str, str] = {
    "kriegspiel": "pbem.games.kriegspiel:RULES",
    "arditi": "pbem.games.arditi:RULES",
    "seattle": "pbem.games.seattle:RULES",
    "corteo": "pbem.games.corteo:RULES",
    "blockmania": "pbem.games.blockmania:RULES",
}
_LOADED: dict[str, "Rules"] = {}


def kinds() -> tuple[str, ...]:
    return tuple(_ENGINES)


def get(kind: str) -> "Rules":
    """The rules engine for ``kind``; raises `UnknownGameError` with the known kinds."""
    key = kind.strip().lower()
    if key not in _ENGINES:
        raise UnknownGameError(f"unknown game kind {kind!r}; known: {', '.join(_ENGINES)}")
    if key not in _LOADED:
        module_name, attr = _ENGINES[key].split(":")
        _LOADED[key] = getattr(importlib.import_module(module_name), attr)
    return _LOADED[key]


def register(kind: str, target: str) -> None:
    """Add an engine (tests and plug-ins)."""
    _ENGINES[kind] = target
    _LOADED.pop(kind, None)
