"""The rules' numbers of Corteo and the terrain's effects on movement, read from ``data/rules.toml``.

The loader checks the data and raises `RulesDataError` naming the entry: a terrain of the City
without a movement entry, an unknown cost, bands of the victory table with gaps.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any, Final, Mapping

from pbem.games.corteo.city import TERRAINS


class RulesDataError(ValueError):
    """rules.toml is inconsistent; the message says where."""


@dataclass(frozen=True)
class MoveEffect:
    terrain: str
    cost: Fraction | None  # None: forbidden; Fraction(-1): a slope (1/2 down, 2 up)
    forbid: frozenset[str]  # sides or unit kinds that may not enter
    stop: frozenset[str]  # sides whose units stop on entering

    @property
    def slope(self) -> bool:
        return self.cost == Fraction(-1)


@dataclass(frozen=True)
class Band:
    key: str
    min: int | None
    max: int | None
    winner: str | None  # the side the level favours; None: a draw

    def holds(self, value: int) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)


@dataclass(frozen=True)
class Numbers:
    hands: int
    runs: int
    no_run_hand: int
    barricades: int
    barricade_cost: int
    disengage_cost: int
    heads: int
    offmap_hands: int
    vigili_reach: int
    setup: Mapping[str, int]
    last_hand_safe: frozenset[str]
    moves: Mapping[str, MoveEffect]
    reinforcement_points: Mapping[int, int]
    reinforcement_units: Mapping[int, Mapping[str, int]]
    victory: Mapping[str, tuple[Band, ...]]  # by game mode: "basic" (B 15), "advanced" (C)
    verdicts: tuple[int, ...]

    def victory_level(self, final: int, mode: str) -> str:
        for band in self.victory[mode]:
            if band.holds(final):
                return band.key
        raise ValueError(f"no victory band for {final}")

    def winner(self, level: str) -> str | None:
        """The side a victory level favours (None: a draw)."""
        for bands in self.victory.values():
            for band in bands:
                if band.key == level:
                    return band.winner
        raise ValueError(f"no victory level {level!r}")

    def verdict(self, final: int) -> int:
        """The C 14a comment for a final score: the lowest threshold reached (or below the first)."""
        reached = [v for v in self.verdicts if final >= v]
        return reached[-1] if reached else self.verdicts[0] - 1


def _err(what: str) -> RulesDataError:
    return RulesDataError(f"rules.toml: {what}")


def _cost(text: str, where: str) -> Fraction | None:
    if text == "no":
        return None
    if text == "slope":
        return Fraction(-1)
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise _err(f"{where}: bad cost {text!r}") from None
    if value <= 0:
        raise _err(f"{where}: bad cost {text!r}")
    return value


def _bands(mode: str, rows: list[Mapping[str, Any]]) -> tuple[Band, ...]:
    """One victory table: bands that cover every score, without gaps or overlaps."""
    bands = tuple(Band(str(v["key"]), v.get("min"), v.get("max"), v.get("winner")) for v in rows)
    for b in bands:
        if b.winner not in (None, "corteo", "potere"):
            raise _err(f"victory.{mode}: {b.key!r} has an unknown winner {b.winner!r}")
    ordered = sorted(bands, key=lambda b: -10**9 if b.min is None else b.min)
    if ordered[0].min is not None or ordered[-1].max is not None:
        raise _err(f"victory.{mode}: the bands do not cover every score")
    for lo, hi in zip(ordered, ordered[1:]):
        if lo.max is None or hi.min is None or lo.max + 1 != hi.min:
            raise _err(f"victory.{mode}: {lo.key!r} and {hi.key!r} are not contiguous")
    return bands


def parse_rules(data: Mapping[str, Any]) -> Numbers:
    moves: dict[str, MoveEffect] = {}
    for raw in data["move"]:
        terrain = str(raw["terrain"])
        if terrain not in TERRAINS:
            raise _err(f"move: unknown terrain {terrain!r}")
        if terrain in moves:
            raise _err(f"move: {terrain!r} appears twice")
        moves[terrain] = MoveEffect(terrain, _cost(str(raw["cost"]), f"move {terrain!r}"),
                                    frozenset(str(x) for x in raw.get("forbid", ())),
                                    frozenset(str(x) for x in raw.get("stop", ())))
    missing = [t for t in TERRAINS if t not in moves]
    if missing:
        raise _err(f"move: no entry for {', '.join(missing)}")
    reinf = data["reinforcements"]
    points = {int(k): int(v) for k, v in reinf["advanced"].items()}
    units = {int(k): {str(u): int(n) for u, n in v.items()} for k, v in reinf["basic"].items()}
    victory = {mode: _bands(mode, rows) for mode, rows in data["victory"].items()}
    missing_modes = [m for m in ("basic", "advanced") if m not in victory]
    if missing_modes:
        raise _err(f"victory: no table for {', '.join(missing_modes)}")
    setup = {k.removeprefix("setup_"): int(v) for k, v in data.items() if k.startswith("setup_")}
    return Numbers(int(data["hands"]), int(data["runs"]), int(data["no_run_hand"]), int(data["barricades"]),
                   int(data["barricade_cost"]), int(data["disengage_cost"]), int(data["heads"]),
                   int(data["offmap_hands"]), int(data["vigili_reach"]), setup,
                   frozenset(str(x) for x in data["last_hand_safe"]), moves, points, units, victory,
                   tuple(int(x) for x in data["verdicts"]))


def load_rules(text: str | None = None) -> Numbers:
    if text is None:
        text = resources.files("pbem.games.corteo.data").joinpath("rules.toml").read_text("utf-8")
    try:
        return parse_rules(tomllib.loads(text))
    except RulesDataError:
        raise
    except (KeyError, TypeError, ValueError, tomllib.TOMLDecodeError) as exc:
        raise _err(f"missing or malformed entry: {exc!r}") from exc


NUMBERS: Final = load_rules()
