"""The parts of a rules engine (`pbem.core.rules.Rules`) that are the same from game to game: the
options a new game may take, the sheets a phase resolves with, the default orders of a planner."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pbem.core.rules import GameInfo, Sheet
from pbem.errors import UserError


def check_options(info: GameInfo, options: Mapping[str, str]) -> None:
    """A new game takes only the options the game declares; else the first unknown one is named."""
    extra = sorted(set(options) - set(info.options))
    if extra:
        raise UserError(f"unknown option {extra[0]!r} (options: {', '.join(info.options)})")


def filed_orders(sheets: Mapping[str, Sheet], seats: Iterable[str],
                 default: Callable[[str], Sheet]) -> dict[str, tuple[Any, ...]]:
    """The orders each awaited seat resolves with: its sheet, or its default orders where it filed none
    (the deadline passed)."""
    return {seat: tuple((sheets.get(seat) or default(seat)).orders) for seat in seats}


def planned_default(seat: str, awaited: bool, plan_nothing: Callable[[], Any], empty: Any) -> Sheet:
    """A seat's default orders where a planner does what the rules demand of a seat that orders nothing
    (placements, mandatory combats): the planner's orders, or ``empty`` when there are none (or the seat
    is not awaited)."""
    planner = plan_nothing() if awaited else None
    orders = tuple(planner.orders) if planner is not None and planner.ok else ()
    return Sheet(seat, orders or (empty,))
