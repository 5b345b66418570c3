"""Positions for Corteo rules tests: every counter in the power's reserve except those placed.

Hexes are real hexes of the City (`pbem.games.corteo.board.city()`); a test checks the terrain
of the hexes it relies on with `terrains`, so that it fails loudly if the map changes.
"""

from __future__ import annotations

from typing import Any

from pbem.core.dice import ScriptedDice
from pbem.games.corteo import RULES
from pbem.games.corteo.board import Board, city
from pbem.games.corteo.state import RESERVE, PhaseLog, State, Unit, VERSION
from pbem.games.corteo.units import roster


def position(where: dict[str, str] | None = None, *, hand: int = 2, stage: str = "corteo-movement",
             mode: str = "advanced", options: tuple[str, ...] = (), flags: dict[str, dict[str, Any]] | None = None,
             **changes: Any) -> State:
    """A state at ``stage`` of ``hand`` with the units of ``where`` (id -> hex or box); every other
    unit in the reserve.  No Head unless ``heads`` is given (``head_component`` defaults to MOV)."""
    where = where or {}
    flags = flags or {}
    units = tuple(Unit(uid, where.get(uid, RESERVE), **flags.get(uid, {}))
                  for uid in roster("national" in options))
    settings: dict[str, Any] = {"head_component": "MOV", **changes}
    return State(VERSION, mode, tuple(options), hand=hand, stage=stage, units=units, **settings)


def terrains(**expected: str) -> None:
    """Check the map: ``terrains(D14="strada", I25="obiettivo")``."""
    for label, terrain in expected.items():
        assert city().terrain(city().hex(label)) == terrain, (label, city().terrain(city().hex(label)), terrain)


def hexes(*labels: str):
    return [city().hex(x) for x in labels]


def loc(state: State, unit: str) -> str:
    return next(u.loc for u in state.units if u.id == unit)


def unit(state: State, uid: str) -> Unit:
    return next(u for u in state.units if u.id == uid)


def board(state: State) -> Board:
    return Board(state)


def orders(state: State, seat: str, text: str):
    sheet = RULES.parse_orders(state, seat, text)
    assert sheet.ok, [(d.line, d.message.key, d.message.args) for d in sheet.diagnostics]
    return sheet


def canonical(state: State, seat: str, text: str) -> list[str]:
    return [o.canonical() for o in orders(state, seat, text).orders]


def errors(state: State, seat: str, text: str) -> list[str]:
    sheet = RULES.parse_orders(state, seat, text)
    assert not sheet.ok, "the sheet was accepted"
    return [d.message.key for d in sheet.diagnostics]


def resolve(state: State, seat: str | None, text: str, rolls: list[int] | None = None) -> State:
    """Resolve the current phase with ``seat``'s orders (None: the default orders) and exact dice;
    every scripted die must be used."""
    sheets = {seat: orders(state, seat, text)} if seat is not None else {}
    dice = ScriptedDice(rolls or [])
    new = RULES.resolve(state, sheets, dice).state
    assert not dice._values, f"dice left over: {dice._values}"
    return new


def phase_log(state: State, phase: str | None = None) -> PhaseLog:
    """The record of the phase just resolved (the first of the new state's log)."""
    logs = [x for x in state.log if phase is None or x.phase == phase]
    return logs[0]


def notes(state: State) -> list[str]:
    return [n.key for x in state.log for n in x.notes]


__all__ = ["position", "terrains", "hexes", "loc", "unit", "board", "orders", "canonical", "errors", "resolve",
           "phase_log", "notes"]
