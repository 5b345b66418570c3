"""Loading a game's data file (tables, roster, deck): the packaged TOML, or a test's own text, read
and checked by the game's parser; any fault comes out as the game's own data error, naming the file."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any, Callable, Protocol, Sequence, TypeVar

_Loaded = TypeVar("_Loaded")

#: What a parser raises on a missing or malformed entry (``data["unit"]``, ``int("x")``).
MALFORMED: tuple[type[Exception], ...] = (KeyError, TypeError, ValueError)


def load_toml(package: str, name: str, text: str | None, parse: Callable[[dict[str, Any]], _Loaded],
              error: type[ValueError], malformed: tuple[type[Exception], ...] = MALFORMED) -> _Loaded:
    """``parse`` of ``text`` (TOML), or of the file ``name`` in ``package``.  A TOML syntax error and
    the ``malformed`` exceptions the parser lets out become ``error`` ("tables.toml: ..."); the
    parser's own ``error`` passes unchanged."""
    if text is None:
        text = resources.files(package).joinpath(name).read_text("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{name}: {exc}") from exc
    try:
        return parse(data)
    except error:
        raise
    except malformed as exc:
        raise error(f"{name}: missing or malformed entry: {exc!r}") from exc


class Keyed(Protocol):
    """An entry of a data file named by its key."""

    @property
    def key(self) -> str: ...


_Entry = TypeVar("_Entry", bound=Keyed)


def find(items: Sequence[_Entry], kind: str, key: str) -> _Entry:
    """The entry of ``items`` with ``key``; a KeyError saying what kind of entry was not there."""
    for item in items:
        if item.key == key:
            return item
    raise KeyError(f"unknown {kind} {key!r}")
