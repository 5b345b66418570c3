"""The score (14, B 15): the corteo's objective points against the power's arrests, and in
the advanced game the spezzoni still on the map outside a safe hex at the end (C 3a, C 14); in a
scenario (D) each side's scenario points join, and the spezzoni's rule is dropped ("la regola degli
spezzoni di corteo alla fine del gioco non ha valore")."""

from __future__ import annotations

from pbem.games.corteo.board import Board
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import CORTEO, POTERE, PRISON, Result


def exposed_spezzoni(board: Board) -> list[str]:
    """Spezzoni on the map outside case popolari, metro and crowded hexes (C 3a, C 14)."""
    out = []
    for u in board.map_units(CORTEO):
        h = board.hex(u)
        assert h is not None
        if board.type(u).kind == "spezzone" and board.terrain(h) not in NUMBERS.last_hand_safe:
            out.append(u)
    return out


def potere_points(board: Board, final: bool) -> int:
    """Strength of the arrested units; at the end of the advanced game, plus the exposed spezzoni
    (``final=False``: what the power would score if the game ended now)."""
    arrested = sum(board.type(u).power for u in board.at(PRISON))
    if board.state.scenario:
        return arrested + sum(t.points for t in board.tally if t.side == POTERE)
    if board.state.mode != "advanced":
        return arrested
    return arrested + sum(board.type(u).power for u in exposed_spezzoni(board))


def result(board: Board) -> Result:
    corteo = board.points + sum(t.points for t in board.tally if t.side == CORTEO)
    potere = potere_points(board, final=True)
    final = corteo - potere
    return Result(corteo, potere, final, NUMBERS.victory_level(final, board.state.mode), NUMBERS.verdict(final))
