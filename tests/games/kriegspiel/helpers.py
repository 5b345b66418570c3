"""Helpers for Kriegspiel rules tests: positions on the real board, played through the engine."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from pbem.core.dice import ScriptedDice
from pbem.core.rules import Sheet
from pbem.games.kriegspiel import RULES
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.deploy import place
from pbem.games.kriegspiel.orders import Deploy, parse_text
from pbem.games.kriegspiel.position import Position, unit_sort_key
from pbem.games.kriegspiel.state import Arsenal, State


def units_of(side: str, text: str) -> list:
    """Units written like a deployment ("INFANTRY G6 G7\\nRELAY D3"), anywhere on the board."""
    items, diags = parse_text(text)
    assert not diags, diags
    return place(side, [it.order for it in items if isinstance(it.order, Deploy)])


def position(north: str = "", south: str = "", to_move: str = "north", turn: int = 5,
             destroyed: Iterable[str] = (), retreat: str | None = None,
             draw_offered_by: str | None = None) -> State:
    """A move-phase state with the given units (ids numbered per kind in reading order)."""
    units = units_of("north", north) + units_of("south", south)
    units.sort(key=unit_sort_key)
    gone = set(destroyed)
    arsenals = tuple(Arsenal(BOARD.name(sq), side, BOARD.name(sq) in gone)
                     for sq, side in BOARD.arsenals)
    state = State("1", turn, "move", to_move, tuple(units), arsenals, first_player="north",
                  first_roll=1, draw_offered_by=draw_offered_by)
    if retreat is not None:
        unit = next(u for u in units if u.square == retreat)
        state = replace(state, retreat=unit.id)
    return state


def sheet(state: State, text: str, seat: str | None = None) -> Sheet:
    return RULES.parse_orders(state, seat or state.to_move or "north", text)


def keys(sheet_: Sheet, severity: str | None = None) -> list[str]:
    return [d.message.key for d in sheet_.diagnostics
            if severity is None or d.severity == severity]


def play(state: State, text: str, seat: str | None = None) -> State:
    """Parse (must be free of errors) and resolve one move turn."""
    s = sheet(state, text, seat)
    assert s.ok, [(d.line, d.message) for d in s.diagnostics]
    return RULES.resolve(state, {s.seat: s}, ScriptedDice([])).state


def deploy(north: str, south: str, roll: int = 1) -> State:
    """New game, both deployments, the die scripted."""
    state = RULES.new_game(("north", "south"), {})
    sheets = {seat: RULES.parse_orders(state, seat, text)
              for seat, text in (("north", north), ("south", south))}
    for s in sheets.values():
        assert s.ok, [(d.line, d.message) for d in s.diagnostics]
    return RULES.resolve(state, sheets, ScriptedDice([roll])).state


def covered(state: State, side: str) -> set[str]:
    return {BOARD.name(sq) for sq in Position.of(state).network(side).covered}


def connected(state: State, square: str) -> bool:
    return Position.of(state).connected(BOARD.index(square))


def unit_at(state: State, square: str):
    return next((u for u in state.units if u.square == square), None)
