"""The sealed deployment (rulebook, "REGOLAMENTO" and "MOVIMENTO & ATTACCO").

Each side places its whole army (9 infantry, 4 cavalry, 1 artillery, 1 horse
artillery, 1 relay, 1 horse relay) on empty squares of its own territory; mountains are
excluded; forts, passes and the side's own arsenals may be used (a unit may stand on
its own arsenal, rulebook "Arsenale").
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Sequence
from importlib import resources

from pbem.core.i18n import Message, msg
from pbem.core.rules import Diagnostic
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.orders import Deploy, Item, Order, Resign
from pbem.games.kriegspiel.state import Unit
from pbem.games.kriegspiel.units import ARMY, KINDS, UNITS


def _load_openings() -> dict[str, tuple[Deploy, ...]]:
    text = resources.files("pbem.games.kriegspiel.data").joinpath("openings.toml").read_text("utf-8")
    out: dict[str, tuple[Deploy, ...]] = {}
    for side, table in tomllib.loads(text).items():
        orders = [Deploy(kind, square) for kind, squares in table.items() for square in squares]
        out[side] = tuple(sorted(orders, key=deploy_key))
    return out


def deploy_key(order: Deploy) -> tuple[int, int]:
    return KINDS.index(order.kind), BOARD.index(order.square)


def opening(side: str) -> tuple[Deploy, ...]:
    """The commonly used opening of ``side`` (``data/openings.toml``)."""
    return OPENINGS[side]


def deployable(side: str) -> list[int]:
    """The squares where ``side`` may place a unit."""
    return [sq for sq in BOARD.squares_of(side) if not BOARD.is_mountain(sq)]


def check_deployment(side: str, items: Sequence[Item]) -> tuple[tuple[Order, ...], list[Diagnostic]]:
    """The accepted orders of a deployment sheet and what is wrong with it."""
    diags: list[Diagnostic] = []
    resign = [it for it in items if isinstance(it.order, Resign)]
    if resign:
        for it in items:
            if it is not resign[0]:
                diags.append(Diagnostic(it.line, it.text, msg("warn-ignored-resign"),
                                        severity="warning"))
        return (Resign(),), diags
    first, last = BOARD.territory_rows[side]
    taken: dict[int, Item] = {}
    counts: Counter[str] = Counter()
    accepted: list[Deploy] = []
    for it in items:
        order = it.order
        if not isinstance(order, Deploy):
            diags.append(Diagnostic(it.line, it.text, msg("err-deploy-only"),
                                    msg("hint-example", example="INFANTRY G6")))
            continue
        sq = BOARD.index(order.square)
        kind_name = msg(f"kind-{order.kind}")
        if BOARD.territory(sq) != side:
            diags.append(Diagnostic(it.line, it.text, msg(
                "err-deploy-territory", square=order.square, first=BOARD.row_letters[first],
                last=BOARD.row_letters[last])))
            continue
        if BOARD.is_mountain(sq):
            diags.append(Diagnostic(it.line, it.text, msg("err-deploy-mountain", square=order.square),
                                    _nearest_free(sq, taken)))
            continue
        if sq in taken:
            prev = taken[sq]
            diags.append(Diagnostic(it.line, it.text, msg(
                "err-deploy-taken", square=order.square, line=prev.line), _nearest_free(sq, taken)))
            continue
        if counts[order.kind] >= ARMY[order.kind]:
            diags.append(Diagnostic(it.line, it.text, msg(
                "err-deploy-too-many", kind=kind_name, count=ARMY[order.kind])))
            continue
        counts[order.kind] += 1
        taken[sq] = it
        accepted.append(order)
    missing = [(kind, ARMY[kind] - counts[kind]) for kind in KINDS if counts[kind] < ARMY[kind]]
    if missing:
        listing = ", ".join(f"{n} {UNITS[k].keyword}" for k, n in missing)
        listing_it = ", ".join(f"{n} {UNITS[k].keyword_it}" for k, n in missing)
        diags.append(Diagnostic(0, "", msg("err-deploy-missing", missing=listing,
                                           missing_it=listing_it),
                                msg("hint-army")))
    return tuple(sorted(accepted, key=deploy_key)), diags


def _nearest_free(sq: int, taken: dict[int, Item]) -> Message | None:
    side = BOARD.territory(sq)
    options = [s for s in deployable(side) if s not in taken and s != sq]
    if not options:
        return None
    best = min(options, key=lambda s: (BOARD.distance(s, sq), s))
    return msg("hint-square", square=BOARD.name(best))


def place(side: str, orders: Sequence[Deploy]) -> list[Unit]:
    """The units of a valid deployment, numbered per kind in reading order of squares."""
    letter = side[0].upper()
    out: list[Unit] = []
    for kind in KINDS:
        squares = sorted(BOARD.index(o.square) for o in orders if o.kind == kind)
        for n, sq in enumerate(squares, start=1):
            out.append(Unit(f"{letter}-{UNITS[kind].prefix}-{n}", side, kind, BOARD.name(sq)))
    return out


OPENINGS = _load_openings()
