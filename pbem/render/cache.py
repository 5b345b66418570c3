"""Per-process caches for the parts of a map that never change.

Two kinds, both registered here so an operator (or a test) can see how well
they work (:func:`stats`) and drop them (:func:`clear`):

- SVG text: a board's paper, grid, terrain, coordinates and legend depend only
  on the board (and the language), not on the position: build them once per
  process and reuse the SVG text for every turn. Decorate the pure builder with
  :func:`static_part`; its arguments must be hashable (use tuples, e.g. the
  board's terrain as a sorted tuple of ``(square, kind)`` pairs).
- Pixels: :class:`BoundedCache`, a thread-safe LRU bounded by entries and by
  bytes. The rasteriser keeps the drawn static layers of maps in one
  (``pbem.render.raster.STATIC_LAYERS``), so a turn only draws what changed.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

R = TypeVar("R")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class CacheInfo(NamedTuple):
    """Like ``functools.lru_cache``'s: hits, misses, the entry bound and the current entries."""

    hits: int
    misses: int
    maxsize: int | None
    currsize: int


class _Registered(Protocol):
    def cache_info(self) -> Any: ...

    def cache_clear(self) -> None: ...


_CACHES: dict[str, _Registered] = {}


def register(name: str, cache: _Registered) -> None:
    """Make ``cache`` (anything with ``cache_info()`` and ``cache_clear()``) show in :func:`stats`."""
    _CACHES[name] = cache


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
        register(f"{fn.__module__}.{fn.__qualname__}", cached)
        return cached

    return wrap


def stats() -> dict[str, CacheInfo]:
    """Hits, misses and sizes of every registered cache, by name."""
    return {name: CacheInfo(*cache.cache_info()) for name, cache in _CACHES.items()}


def clear() -> None:
    """Forget every cached static part (e.g. after a theme or data change)."""
    for cache in _CACHES.values():
        cache.cache_clear()


class BoundedCache(Generic[K, V]):
    """A thread-safe LRU cache bounded by ``max_entries`` and by ``max_bytes``.

    ``weigh(value)`` gives an entry's size in bytes; the least recently used
    entries are dropped until both bounds hold, and a value larger than
    ``max_bytes`` on its own is returned but not kept. :meth:`get_or_build`
    builds a missing value once even when several threads ask for it at the
    same time (the others wait for it). Registered in :func:`stats` under
    ``name``.
    """

    def __init__(
        self,
        name: str,
        *,
        max_entries: int,
        max_bytes: int,
        weigh: Callable[[V], int],
    ) -> None:
        if max_entries < 0 or max_bytes < 0:
            raise ValueError("cache bounds must not be negative")
        self.name = name
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        self._weigh = weigh
        self._lock = threading.Lock()
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._building: dict[K, threading.Event] = {}
        self._bytes = 0
        self._hits = 0
        self._misses = 0
        register(name, self)

    # -- reading ---------------------------------------------------------------

    def get(self, key: K) -> V | None:
        """The cached value (counted as a hit) or ``None`` (a miss)."""
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                self._misses += 1
                return None
            self._data.move_to_end(key)
            self._hits += 1
            return entry[0]

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The cached value of ``key``, built with ``build()`` (and kept) on a miss."""
        while True:
            with self._lock:
                entry = self._data.get(key)
                if entry is not None:
                    self._data.move_to_end(key)
                    self._hits += 1
                    return entry[0]
                pending = self._building.get(key)
                owner = pending is None
                if pending is None:
                    pending = self._building[key] = threading.Event()
                    self._misses += 1
            if not owner:
                pending.wait()
                continue  # now a hit, or (builder failed, entry already dropped) build it here
            try:
                value = build()
            except BaseException:
                with self._lock:
                    del self._building[key]
                pending.set()
                raise
            with self._lock:
                self._store(key, value)
                del self._building[key]
            pending.set()
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._store(key, value)

    def _store(self, key: K, value: V) -> None:  # with the lock held
        size = self._weigh(value)
        old = self._data.pop(key, None)
        if old is not None:
            self._bytes -= old[1]
        if size > self._max_bytes or self._max_entries == 0:
            return
        self._data[key] = (value, size)
        self._bytes += size
        self._trim()

    def _trim(self) -> None:  # with the lock held
        while self._data and (len(self._data) > self._max_entries or self._bytes > self._max_bytes):
            _key, (_value, size) = self._data.popitem(last=False)
            self._bytes -= size

    # -- management ------------------------------------------------------------

    def resize(self, *, max_entries: int | None = None, max_bytes: int | None = None) -> None:
        """Change the bounds (dropping entries at once if needed)."""
        with self._lock:
            if max_entries is not None:
                if max_entries < 0:
                    raise ValueError("max_entries must not be negative")
                self._max_entries = max_entries
            if max_bytes is not None:
                if max_bytes < 0:
                    raise ValueError("max_bytes must not be negative")
                self._max_bytes = max_bytes
            self._trim()

    @property
    def max_entries(self) -> int:
        return self._max_entries

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @property
    def nbytes(self) -> int:
        """Bytes held now."""
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, self._max_entries, len(self._data))

    def cache_clear(self) -> None:
        """Drop every entry and reset the counters."""
        with self._lock:
            self._data.clear()
            self._bytes = 0
            self._hits = self._misses = 0
