"""The scenarios of section D, read from ``data/scenarios.toml``: forces, who may form the Head,
the power's order of service, the mobile objectives and the numbers of each scenario's points.

A game plays a scenario when created with ``--option scenario=<key>``; the advanced game's rules
stay underneath ("Questo scenario utilizza per intero le regole del gioco", D).  The loader checks
the data and raises `ScenarioDataError` naming the entry.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final, Mapping

from pbem.games.corteo.city import city
from pbem.games.corteo.tables import TABLES

WHERE: Final = ("objective", "vigili", "caserma", "square", "near")


class ScenarioDataError(ValueError):
    """scenarios.toml is inconsistent; the message says where."""


@dataclass(frozen=True)
class SetupRow:
    kind: str
    count: int
    where: str


@dataclass(frozen=True)
class MobileKind:
    kind: str  # "presidenziale" (Internazionalista) | "comizio" (Antifascista)
    prefix: str
    count: int
    speed: int
    moves_as: str  # the power unit kind whose terrain limits the pieces follow (OURS)

    def ids(self) -> tuple[str, ...]:
        return tuple(f"{self.prefix}{n}" for n in range(1, self.count + 1))


@dataclass(frozen=True)
class Scenario:
    key: str
    heads: tuple[str, ...]
    sets: tuple[str, ...]
    square: str
    setup: tuple[SetupRow, ...]
    reinforcements: Mapping[int, Mapping[str, int]]
    mobiles: tuple[MobileKind, ...]
    numbers: Mapping[str, Any]  # the scenario's own points and limits, by their data names

    def number(self, name: str) -> int:
        return int(self.numbers[name])

    def hexes(self, name: str) -> tuple[str, ...]:
        return tuple(str(x) for x in self.numbers.get(name, ()))

    @property
    def categories(self) -> tuple[str, ...]:
        """The fixed objectives that score (D: "gli obiettivi «fissi» del Corteo in questo Scenario")."""
        return city().objective_set(str(self.numbers.get("objectives", self.key))).categories

    def flag(self, name: str) -> bool:
        return bool(self.numbers.get(name, False))

    def mobile(self, piece: str) -> MobileKind | None:
        for m in self.mobiles:
            if piece in m.ids():
                return m
        return None


def _err(what: str) -> ScenarioDataError:
    return ScenarioDataError(f"scenarios.toml: {what}")


def _scenario(raw: Mapping[str, Any]) -> Scenario:
    key = str(raw["key"])
    where = f"scenario {key!r}"
    comps = {c.key for c in TABLES.components}
    heads = tuple(str(h) for h in raw["heads"])
    if any(h not in comps for h in heads):
        raise _err(f"{where}: unknown Head component in {heads}")
    sets = tuple(str(s) for s in raw["sets"])
    for s in sets:
        TABLES.counter_set(s)  # raises on an unknown set
    square = str(raw["square"])
    try:
        if square:
            city().place_hexes(square)
        city().objective_set(str(raw.get("objectives", key)))
    except KeyError as exc:
        raise _err(f"{where}: {exc}") from None
    setup = tuple(SetupRow(str(r["kind"]), int(r["count"]), str(r["where"])) for r in raw["setup"])
    for row in setup:
        if row.where not in WHERE:
            raise _err(f"{where}: setup 'where' {row.where!r} is not one of {', '.join(WHERE)}")
    reinf = {int(h): {str(k): int(n) for k, n in units.items()} for h, units in raw["reinforcements"].items()}
    mobiles = tuple(MobileKind(str(m["kind"]), str(m["prefix"]), int(m["count"]), int(m["speed"]),
                               str(m["moves_as"])) for m in raw.get("mobiles", ()))
    for m in mobiles:
        TABLES.unit(m.moves_as)  # raises on an unknown kind
    numbers = {k: v for k, v in raw.items()
               if k not in ("key", "heads", "sets", "square", "setup", "reinforcements", "mobiles")}
    for name in ("stop_hexes", "embassy", "trial_hexes", "court_hexes"):
        for label in numbers.get(name, ()):
            if city().parse(str(label)) is None:
                raise _err(f"{where}: {name} holds {label!r}, not a hex")
    return Scenario(key, heads, sets, square, setup, reinf, mobiles, numbers)


def load_scenarios(text: str | None = None) -> dict[str, Scenario]:
    if text is None:
        text = resources.files("pbem.games.corteo.data").joinpath("scenarios.toml").read_text("utf-8")
    try:
        data = tomllib.loads(text)
        return {s.key: s for s in (_scenario(raw) for raw in data["scenario"])}
    except ScenarioDataError:
        raise
    except (KeyError, TypeError, ValueError, tomllib.TOMLDecodeError) as exc:
        raise _err(f"missing or malformed entry: {exc!r}") from exc


@cache
def scenarios() -> dict[str, Scenario]:
    return load_scenarios()


def scenario(key: str) -> Scenario | None:
    """The scenario of a game (``""``: the advanced or basic game without a scenario)."""
    return scenarios().get(key) if key else None


__all__ = ["Scenario", "MobileKind", "SetupRow", "scenario", "scenarios", "load_scenarios", "ScenarioDataError"]
