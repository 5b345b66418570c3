"""The area map of The Battle of Seattle, read from ``data/map.toml`` (rulebook 2.2, 5.0).

Areas are joined by transit lines; downtown-core areas are hexagons with an exposure value
(the Italian "valore visibilità"), outer areas are circles.  Boxes (Reserve Pool, off-map piles,
tracks) are not part of the graph.  The map is a reconstruction: see docs/games/seattle.md.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Final, Mapping

from pbem.games.common.data import MALFORMED, load_toml

KINDS = ("core", "circle")
BOX_SIDES = ("authorities", "demonstrators", "both")


class MapError(ValueError):
    """The map data is inconsistent; the message says where."""


@dataclass(frozen=True)
class Area:
    id: str
    kind: str  # "core" (hexagon) | "circle"
    exposure: int  # 0 for circles
    pos: tuple[int, int]
    place: str
    links: tuple[str, ...]

    @property
    def is_core(self) -> bool:
        return self.kind == "core"


@dataclass(frozen=True)
class Box:
    id: str
    side: str  # "authorities" | "demonstrators" | "both"
    on_sheet: bool
    rule: str


@dataclass(frozen=True)
class AreaMap:
    areas: tuple[Area, ...]
    boxes: tuple[Box, ...]
    exposure_range: tuple[int, int]
    sheet: tuple[int, int]
    _by_id: dict[str, Area] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {a.id: a for a in self.areas})

    def area(self, area_id: str) -> Area:
        try:
            return self._by_id[area_id]
        except KeyError:
            raise KeyError(f"no area {area_id!r}") from None

    def has_area(self, area_id: str) -> bool:
        return area_id in self._by_id

    def box(self, box_id: str) -> Box:
        for b in self.boxes:
            if b.id == box_id:
                return b
        raise KeyError(f"no box {box_id!r}")

    @property
    def area_ids(self) -> tuple[str, ...]:
        return tuple(a.id for a in self.areas)

    @property
    def core(self) -> tuple[Area, ...]:
        return tuple(a for a in self.areas if a.is_core)

    @property
    def circles(self) -> tuple[Area, ...]:
        return tuple(a for a in self.areas if not a.is_core)

    def neighbours(self, area_id: str) -> tuple[str, ...]:
        return self.area(area_id).links

    def linked(self, a: str, b: str) -> bool:
        return b in self.area(a).links

    def distances(self, start: str) -> dict[str, int]:
        """Number of transit lines on a shortest path from ``start`` to every area."""
        self.area(start)
        dist = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in self.area(here).links:
                if there not in dist:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        return dist

    def distance(self, a: str, b: str) -> int:
        return self.distances(a)[b]

    def within(self, start: str, steps: int) -> frozenset[str]:
        """Areas reachable from ``start`` along at most ``steps`` lines (ignoring units)."""
        return frozenset(k for k, d in self.distances(start).items() if 0 < d <= steps)

    def is_path(self, path: list[str] | tuple[str, ...]) -> bool:
        """Whether consecutive areas of ``path`` are joined by lines."""
        return all(self.linked(a, b) for a, b in zip(path, path[1:]))


def _int_pair(value: Any, what: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)):
        raise MapError(f"map.toml: {what} must be a pair of integers, not {value!r}")
    return int(value[0]), int(value[1])


def parse_map(data: Mapping[str, Any]) -> AreaMap:
    """Build and check the map from parsed TOML; raises ``MapError`` on any inconsistency."""
    lo, hi = int(data["exposure"]["min"]), int(data["exposure"]["max"])
    if not 0 < lo <= hi:
        raise MapError(f"map.toml: bad exposure range {lo}..{hi}")
    width, height = _int_pair([data["sheet"]["width"], data["sheet"]["height"]], "sheet")
    areas: list[Area] = []
    seen: set[str] = set()
    for raw in data.get("area", []):
        aid = str(raw.get("id", ""))
        if not aid:
            raise MapError("map.toml: an area without id")
        if aid in seen:
            raise MapError(f"map.toml: area {aid!r} appears twice")
        seen.add(aid)
        kind = str(raw.get("kind", ""))
        if kind not in KINDS:
            raise MapError(f"map.toml: area {aid!r} has kind {kind!r}, expected one of {KINDS}")
        if kind == "core":
            if "exposure" not in raw:
                raise MapError(f"map.toml: core area {aid!r} has no exposure value")
            exposure = raw["exposure"]
            if not isinstance(exposure, int) or not lo <= exposure <= hi:
                raise MapError(f"map.toml: core area {aid!r} has exposure {exposure!r}, not in {lo}..{hi}")
        else:
            if "exposure" in raw:
                raise MapError(f"map.toml: circle area {aid!r} must not have an exposure value")
            exposure = 0
        x, y = _int_pair(raw.get("pos"), f"pos of {aid!r}")
        if not (0 <= x <= width and 0 <= y <= height):
            raise MapError(f"map.toml: area {aid!r} at {(x, y)} is off the {width}x{height} sheet")
        links = tuple(str(link) for link in raw.get("links", []))
        if len(set(links)) != len(links):
            raise MapError(f"map.toml: area {aid!r} lists a link twice")
        if aid in links:
            raise MapError(f"map.toml: area {aid!r} is linked to itself")
        areas.append(Area(aid, kind, int(exposure), (x, y), str(raw.get("place", "")), links))

    boxes: list[Box] = []
    for raw in data.get("box", []):
        bid = str(raw.get("id", ""))
        if not bid or bid in seen:
            raise MapError(f"map.toml: box id {bid!r} is empty or already used")
        seen.add(bid)
        side = str(raw.get("side", ""))
        if side not in BOX_SIDES:
            raise MapError(f"map.toml: box {bid!r} has side {side!r}, expected one of {BOX_SIDES}")
        if "links" in raw:
            raise MapError(f"map.toml: box {bid!r} cannot have transit lines")
        boxes.append(Box(bid, side, bool(raw.get("on_sheet", False)), str(raw.get("rule", ""))))

    by_id = {a.id: a for a in areas}
    if not areas:
        raise MapError("map.toml: no areas")
    for a in areas:
        for other in a.links:
            if other not in by_id:
                raise MapError(f"map.toml: area {a.id!r} links to unknown area {other!r}")
            if a.id not in by_id[other].links:
                raise MapError(f"map.toml: link {a.id!r} -> {other!r} is not listed back in {other!r}")
    result = AreaMap(tuple(areas), tuple(boxes), (lo, hi), (width, height))
    unreachable = set(by_id) - set(result.distances(areas[0].id))
    if unreachable:
        raise MapError(f"map.toml: areas not reachable from {areas[0].id!r}: {sorted(unreachable)}")
    return result


def load_map(text: str | None = None) -> AreaMap:
    """The map from ``text`` (TOML) or from the packaged ``data/map.toml``."""
    return load_toml("pbem.games.seattle.data", "map.toml", text, parse_map, MapError, MALFORMED)


MAP: Final = load_map()
