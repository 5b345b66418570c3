"""The unit table and the numeric rules, read from ``data/units.toml``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class UnitSpec:
    kind: str  # "infantry", "horse_artillery", ...
    prefix: str  # used in unit ids: N-INF-1
    count: int  # per side
    attack: int
    charge: int  # attack when charging (cavalry), 0 if the unit cannot charge
    defence: int
    range: int
    move: int
    terrain_bonus: bool  # forts and passes raise its defence
    combat: bool  # a combat unit for victory (B)
    relay: bool  # relays the arsenals' lines and moves without connection
    keyword: str  # canonical deployment keyword
    keyword_it: str  # the Italian keyword (also accepted)
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Numbers:
    max_moves: int
    fort_bonus: int
    pass_bonus: int
    charge_max: int
    retreat_margin: int
    capture_margin: int


def _load() -> tuple[dict[str, UnitSpec], Numbers]:
    text = resources.files("pbem.games.kriegspiel.data").joinpath("units.toml").read_text("utf-8")
    data = tomllib.loads(text)
    numbers = Numbers(**{k: int(v) for k, v in data.pop("rules").items()})
    specs: dict[str, UnitSpec] = {}
    for kind, t in data.items():
        specs[kind] = UnitSpec(
            kind=kind, prefix=str(t["prefix"]), count=int(t["count"]), attack=int(t["attack"]),
            charge=int(t["charge"]), defence=int(t["defence"]), range=int(t["range"]),
            move=int(t["move"]), terrain_bonus=bool(t["terrain_bonus"]), combat=bool(t["combat"]),
            relay=bool(t["relay"]), keyword=str(t["keyword"]), keyword_it=str(t["keyword_it"]),
            aliases=tuple(str(a) for a in t["aliases"]))
    return specs, numbers


UNITS, NUMBERS = _load()
#: Unit kinds in table order.
KINDS: tuple[str, ...] = tuple(UNITS)
#: The full army of one side, e.g. {"infantry": 9, ...}.
ARMY: dict[str, int] = {k: s.count for k, s in UNITS.items()}


def spec(kind: str) -> UnitSpec:
    return UNITS[kind]
