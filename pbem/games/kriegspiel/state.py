"""The game state: frozen dataclasses, encoded with `pbem.core.codec`."""

from __future__ import annotations

from dataclasses import dataclass

VERSION = "1"
SIDES = ("north", "south")


def other(side: str) -> str:
    return "south" if side == "north" else "north"


@dataclass(frozen=True)
class Unit:
    id: str  # "N-INF-1"
    side: str
    kind: str
    square: str


@dataclass(frozen=True)
class Arsenal:
    square: str
    side: str
    destroyed: bool = False


@dataclass(frozen=True)
class MoveRecord:
    unit: str
    kind: str
    side: str
    origin: str
    path: tuple[str, ...]  # squares entered, the last is the destination
    forced: bool = False  # the forced retreat

    @property
    def dest(self) -> str:
        return self.path[-1]


@dataclass(frozen=True)
class Contribution:
    """One unit's share of an attack or a defence."""

    square: str
    kind: str
    value: int  # everything it adds, terrain bonus included
    charge: bool = False
    terrain_bonus: int = 0


@dataclass(frozen=True)
class AttackRecord:
    side: str  # the attacker
    target: str
    target_kind: str
    attack: int
    defence: int
    result: str  # "none" | "retreat" | "captured"
    attackers: tuple[Contribution, ...]
    defenders: tuple[Contribution, ...]
    retreat_blocked: bool = False  # forced retreat with no square to go: captured


@dataclass(frozen=True)
class Capture:
    unit: str
    square: str
    kind: str
    side: str


@dataclass(frozen=True)
class TurnRecord:
    side: str
    turn: int
    moves: tuple[MoveRecord, ...] = ()
    attack: AttackRecord | None = None
    arsenal_destroyed: Arsenal | None = None
    captured: tuple[Capture, ...] = ()
    draw_offered: bool = False
    passed: bool = False


@dataclass(frozen=True)
class Result:
    result: str  # "win" | "draw"
    winners: tuple[str, ...]
    reason: str  # "arsenals" | "annihilation" | "communications" | "agreement" | "resignation"


@dataclass(frozen=True)
class State:
    version: str
    turn: int  # 0: deployment; N >= 1: the N-th move turn
    phase: str  # "deploy" | "move" | "over"
    to_move: str | None  # the side whose move turn it is
    units: tuple[Unit, ...] = ()
    arsenals: tuple[Arsenal, ...] = ()
    retreat: str | None = None  # id of the unit that must retreat at the start of the turn
    draw_offered_by: str | None = None
    first_player: str | None = None
    first_roll: int | None = None
    last_turn: TurnRecord | None = None
    result: Result | None = None

    def unit(self, unit_id: str) -> Unit | None:
        for u in self.units:
            if u.id == unit_id:
                return u
        return None


CODEC_TYPES: tuple[type, ...] = (
    Unit, Arsenal, MoveRecord, Contribution, AttackRecord, Capture, TurnRecord, Result, State,
)
