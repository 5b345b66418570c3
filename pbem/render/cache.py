"""Per-process caches for the parts of a map that never change.

A board's paper, grid, terrain, coordinates and legend depend only on the
board (and the language), not on the position: build them once per process and
reuse the SVG text for every turn. Decorate the pure builder with
:func:`static_part`; its arguments must be hashable (use tuples, e.g. the
board's terrain as a sorted tuple of ``(square, kind)`` pairs).

All such caches are registered here, so an operator (or a test) can see how
well they work (:func:`stats`) and drop them (:func:`clear`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")

_CACHES: dict[str, functools._lru_cache_wrapper[Any]] = {}


def static_part(
    maxsize: int = 32,
) -> Callable[[Callable[..., R]], functools._lru_cache_wrapper[R]]:
    """Decorator: cache a pure builder of a static map part, ``maxsize`` variants per process.

    The wrapped function keeps ``cache_info()`` and ``cache_clear()``. Thread
    safe (``functools.lru_cache``); two threads missing at once both build the
    part, and one result is kept.
    """

    def wrap(fn: Callable[..., R]) -> functools._lru_cache_wrapper[R]:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        _CACHES[f"{fn.__module__}.{fn.__qualname__}"] = cached
        return cached

    return wrap


def stats() -> dict[str, functools._CacheInfo]:
    """Hits, misses and sizes of every static-part cache, by builder name."""
    return {name: cache.cache_info() for name, cache in _CACHES.items()}


def clear() -> None:
    """Forget every cached static part (e.g. after a theme or data change)."""
    for cache in _CACHES.values():
        cache.cache_clear()
