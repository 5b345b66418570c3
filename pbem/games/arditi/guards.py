"""Which guard leaves when a corteo is dismembered: "se un corteo viene smembrato la guardia
più vicina può essere tolta dal tabellone".

"Nearest" is measured in the steps a corteo walks (`Board.distance`, on the empty board: a
guard is not stopped by pieces) from the guard to the nearest piece of the dismembered
corteo; a tie goes to the guard nearer the square where the corteo was cut, then to the
highest-ranked (the pieces enter lowest rank first, so they leave the other way). A guard
that stands on no square (it drew a committee's square as it entered) is farthest of all.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.games.arditi.board import BOARD
from pbem.games.arditi.state import Guard
from pbem.games.arditi.tables import PIECE

FAR = 10**6  # the distance of a guard on no square


def _key(guard: Guard, pieces: Sequence[int], cut: int) -> tuple[int, int, int]:
    if guard.square is None:
        return FAR, FAR, -PIECE[guard.piece].rank
    sq = guard.square
    to_corteo = min((BOARD.distance(sq, p) for p in pieces), default=FAR)
    return to_corteo, BOARD.distance(sq, cut), -PIECE[guard.piece].rank


def nearest_guard(guards: Sequence[Guard], pieces: Sequence[int], cut: int) -> str:
    """The piece of the guard nearest the corteo cut at ``cut`` (now made of ``pieces``)."""
    return min(guards, key=lambda g: _key(g, pieces, cut)).piece
