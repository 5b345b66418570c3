"""The rule numbers (``data/rules.toml``) and the police pieces (``data/police.toml``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final


def _toml(name: str) -> dict[str, Any]:
    return tomllib.loads(resources.files("pbem.games.arditi.data").joinpath(name).read_text("utf-8"))


@dataclass(frozen=True)
class Numbers:
    indifferent: int
    police_threshold: int
    winning_length: int
    die: int
    jump_cost: int
    default_rounds: int
    score_active: int
    score_isolated: int
    score_arrested: int
    score_twelfth: int


@dataclass(frozen=True)
class Piece:
    name: str  # pawn, bishop, ...
    glyph: str  # the chess symbol drawn on the map
    letter: str  # the letter of the text board
    rank: int  # 0 = lowest


def _numbers() -> Numbers:
    d = _toml("rules.toml")
    s = d["score"]
    return Numbers(int(d["indifferent"]), int(d["police_threshold"]), int(d["winning_length"]), int(d["die"]),
                   int(d["jump_cost"]), int(d["default_rounds"]), int(s["active"]), int(s["isolated"]),
                   int(s["arrested"]), int(s["twelfth"]))


def _pieces() -> tuple[Piece, ...]:
    return tuple(Piece(str(p["name"]), str(p["glyph"]), str(p["letter"]), i)
                 for i, p in enumerate(_toml("police.toml")["piece"]))


NUMBERS: Final = _numbers()
PIECES: Final = _pieces()
PIECE: Final = {p.name: p for p in PIECES}
