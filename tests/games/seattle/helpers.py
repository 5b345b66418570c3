"""Positions for rules tests: every counter off the map except the ones placed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import ScriptedDice
from pbem.games.seattle import RULES
from pbem.games.seattle.board import all_counters
from pbem.games.seattle.state import EventInForce, Pending, State, Unit, VERSION
from pbem.games.seattle.tables import TABLES


def position(where: dict[str, str] | None = None, *, turn: int = 2, stage: str = "demonstrator-movement",
             event: str | None = None, **changes: Any) -> State:
    """A state at ``stage`` of ``turn`` with the counters of ``where`` (id -> area or box)."""
    where = where or {}
    units = tuple(Unit(u.id, u.type, where.get(u.id, u.loc)) for u in all_counters())
    ev = None
    if event is not None:
        e = next(e for e in TABLES.events if e.key == event)
        ev = EventInForce(turn, e.first, event)
    base = State(VERSION, 11, turn=turn, stage=stage, units=units, vis_dem=10, vis_auth=30, event=ev)
    return replace(base, **changes)


def loc(state: State, unit: str) -> str:
    return next(u.loc for u in state.units if u.id == unit)


def orders(state: State, seat: str, text: str):
    sheet = RULES.parse_orders(state, seat, text)
    assert sheet.ok, [(d.line, d.message) for d in sheet.diagnostics]
    return sheet


def errors(state: State, seat: str, text: str) -> list[str]:
    sheet = RULES.parse_orders(state, seat, text)
    assert not sheet.ok
    return [d.message.key for d in sheet.diagnostics]


def resolve(state: State, texts: dict[str, str], rolls: list[int]) -> State:
    sheets = {seat: orders(state, seat, text) for seat, text in texts.items()}
    dice = ScriptedDice(rolls)
    new = RULES.resolve(state, sheets, dice).state
    assert not dice._values, f"dice left over: {dice._values}"  # every scripted die was used
    return new


def resolve_server(state: State, rolls: list[int]) -> State:
    dice = ScriptedDice(rolls)
    new = RULES.resolve(state, {}, dice).state
    assert not dice._values, f"dice left over: {dice._values}"
    return new


def text(state: State, seat: str | None = None, lang: str = "en") -> str:
    return RULES.describe(RULES.view(state, seat), lang)


__all__ = ["position", "loc", "orders", "errors", "resolve", "resolve_server", "text", "Pending"]
