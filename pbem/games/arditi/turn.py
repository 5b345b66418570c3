"""Checking a player's orders on the position, and the legal moves (shared by the parser,
the resolution, the template and the server's own orders).

The roll is exact: the corteo uses all the points of the die, unless no legal move of that
length exists, in which case it must use as many as it can (`best_points`). ``STAY`` is
always allowed: it is what happens anyway when a seat misses its deadline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pbem.core.i18n import Message, msg
from pbem.core.rules import Diagnostic
from pbem.games.arditi.board import BOARD
from pbem.games.arditi.orders import (
    Along,
    Auto,
    Item,
    Move,
    Order,
    Path,
    RawAlong,
    RawPath,
    Stay,
)
from pbem.games.arditi.position import Work
from pbem.games.arditi.state import State

#: An action of the search: ("step", square) | ("jump", landing) | ("along", count, forward)
Option = tuple


def options(work: Work) -> list[Option]:
    """Every legal action from here (steps, jumps, moves of the committee along its corteo)."""
    out: list[Option] = []
    if work.left <= 0:
        return out
    front = work.line.front
    for n in sorted(BOARD.neighbours(front)):
        if work.check_step(n) is None:
            out.append(("step", n))
    ahead = work.ahead()
    overs = [ahead] if ahead is not None else sorted(BOARD.neighbours(front))
    for over in overs:
        land = BOARD.beyond(front, over)
        if land is not None and work.check_jump(land) is None:
            out.append(("jump", land))
    for forward in (True, False):
        for count in range(1, min(work.along_room(forward), work.left) + 1):
            if work.check_along(count, forward) is None:
                out.append(("along", count, forward))
    return out


def apply(work: Work, option: Option) -> None:
    if option[0] == "step":
        work.do_step(option[1])
    elif option[0] == "jump":
        work.do_jump(option[1])
    else:
        work.do_along(option[1], option[2])


def best_points(work: Work) -> int:
    """The most points a legal move from here can use (the roll, unless the corteo is hemmed in)."""
    if work.left <= 0:
        return work.used
    ways = (True, False) if work.along_forward is None else (work.along_forward,)
    if any(work.along_room(w) >= work.left and work.check_along(work.left, w) is None for w in ways):
        return work.roll  # the rest can always be spent moving the committee along its corteo
    best = work.used
    for option in options(work):
        trial = work.clone()
        apply(trial, option)
        best = max(best, best_points(trial))
        if best >= work.roll:
            return best
    return best


def sequences(work: Work, target: int, order: Callable[[Work, list[Option]], list[Option]],
              limit: int = 1, budget: int = 4000) -> list[list[Option]]:
    """Up to ``limit`` legal action sequences that use exactly ``target`` points, in the order
    ``order`` gives the options at each node (a depth-first search, at most ``budget`` nodes)."""
    found: list[list[Option]] = []
    nodes = [0]

    def walk(w: Work, done: list[Option]) -> None:
        if len(found) >= limit or nodes[0] >= budget:
            return
        nodes[0] += 1
        if w.used == target:
            found.append(list(done))
            return
        for option in order(w, options(w)):
            trial = w.clone()
            apply(trial, option)
            walk(trial, done + [option])
            if len(found) >= limit or nodes[0] >= budget:
                return

    walk(work, [])
    return found


def to_orders(actions: Sequence[Option]) -> tuple[Order, ...]:
    """Actions as typed orders: consecutive steps and jumps make one PATH."""
    out: list[Order] = []
    moves: list[Move] = []
    for a in actions:
        if a[0] in ("step", "jump"):
            moves.append(Move(a[1], a[0] == "jump"))
            continue
        if moves:
            out.append(Path(tuple(moves)))
            moves = []
        out.append(Along(a[1], a[2]))
    if moves:
        out.append(Path(tuple(moves)))
    return tuple(out) if out else (Stay(),)


def next_moves_text(work: Work) -> str:
    """"24, 28, JUMP 33" — where the front may go next (for hints)."""
    parts = []
    for o in options(work):
        if o[0] == "step":
            parts.append(str(o[1]))
        elif o[0] == "jump":
            parts.append(f"JUMP {o[1]}")
    return ", ".join(parts)


# -- checking a sheet ------------------------------------------------------------------


@dataclass
class Plan:
    """The checked orders of one seat and what they do."""

    orders: tuple[Order, ...] = ()
    diagnostics: list[Diagnostic] = field(default_factory=list)
    work: Work | None = None
    stay: bool = False

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def _hint_from(work: Work) -> Message:
    where = next_moves_text(work)
    if where:
        return msg("hint-next", front=work.line.front, squares=where)
    return msg("hint-no-next", front=work.line.front)


def _play_path(work: Work, item: Item, raw: RawPath, first: bool) -> tuple[list[Move], Diagnostic | None]:
    moves: list[Move] = []
    tokens = list(raw.tokens)
    if first and tokens and tokens[0] == ("sq", work.line.front) and not work.actions:
        tokens = tokens[1:]  # the starting square written first
    for kind, value in tokens:
        front = work.line.front
        error: Message | None
        if kind == "rel":
            back = work.line.back
            if back is None:
                return moves, Diagnostic(item.line, item.text, msg("err-no-facing"),
                                         _hint_from(work))
            if value == "J":
                ahead = BOARD.beyond(back, front)
                land = BOARD.beyond(front, ahead) if ahead is not None else None
                if land is None:
                    return moves, Diagnostic(item.line, item.text, msg("err-no-facing"), _hint_from(work))
                kind, value = "jump", land
            else:
                side = {"F": None, "L": "left", "R": "right"}[str(value)]
                target = BOARD.beyond(back, front) if side is None else BOARD.turn(back, front, side)
                if target is None:
                    return moves, Diagnostic(item.line, item.text, msg("err-no-facing"), _hint_from(work))
                kind, value = "sq", target
        square = int(value)
        if kind == "sq" and not BOARD.adjacent(front, square) and work.jump_over(square) is not None:
            kind = "jump"  # two squares on, over a number: a jump
        if kind == "jump":
            error = work.check_jump(square)
            if error is None:
                work.do_jump(square)
                moves.append(Move(square, True))
                continue
        else:
            error = work.check_step(square)
            if error is None:
                work.do_step(square)
                moves.append(Move(square, False))
                continue
        if error.key == "err-step-number" and work.check_jump(BOARD.beyond(front, square) or 0) is None:
            hint: Message = msg("hint-jump", square=square, land=BOARD.beyond(front, square))
        else:
            hint = _hint_from(work)
        return moves, Diagnostic(item.line, item.text, error, hint)
    return moves, None


def plan_turn(state: State, seat: str, items: Sequence[Item]) -> Plan:
    """Check ``items`` for ``seat`` on ``state``; the accepted orders are normalised."""
    plan = Plan()
    if state.stage == "over":
        plan.diagnostics.append(Diagnostic(0, "", msg("err-game-over")))
        return plan
    if state.stage != "move":
        plan.diagnostics.append(Diagnostic(0, "", msg("err-no-orders-now"), msg("hint-syntax-ok")))
        return plan
    if seat != state.to_move:
        plan.diagnostics.append(Diagnostic(0, "", msg("err-not-your-turn", seat=msg(f"seat-{state.to_move}"))))
        return plan
    if not items:
        plan.diagnostics.append(Diagnostic(0, "", msg("err-empty"), msg("hint-order-forms")))
        return plan
    work = Work(state, seat)
    plan.work = work
    singles = [it for it in items if isinstance(it.order, (Stay, Auto))]
    if singles:
        if len(items) > 1:
            it = singles[0]
            word = "STAY" if isinstance(it.order, Stay) else "AUTO"
            plan.diagnostics.append(Diagnostic(it.line, it.text, msg("err-alone", keyword=word)))
            return plan
        if isinstance(items[0].order, Stay):
            plan.orders = (Stay(),)
            plan.stay = True
            return plan
        from pbem.games.arditi.play import auto_actions  # the server's own choice

        actions = auto_actions(state, seat)
        for a in actions:
            apply(work, a)
        plan.orders = to_orders(actions)
        plan.stay = not actions
        return plan
    out: list[Order] = []
    first = True
    for item in items:
        raw = item.order
        if isinstance(raw, RawPath):
            moves, problem = _play_path(work, item, raw, first)
            first = False
            if problem is not None:
                plan.diagnostics.append(problem)
                return plan
            if moves:
                if out and isinstance(out[-1], Path):
                    out[-1] = Path(out[-1].moves + tuple(moves))
                else:
                    out.append(Path(tuple(moves)))
        elif isinstance(raw, RawAlong):
            count, forward = raw.count, raw.forward
            if raw.target is not None:
                line = work.line
                if raw.target not in line.squares:
                    plan.diagnostics.append(Diagnostic(item.line, item.text,
                                                       msg("err-along-target", square=raw.target)))
                    return plan
                delta = line.squares.index(raw.target) - line.committee
                count, forward = abs(delta), delta < 0
                if delta == 0:
                    plan.diagnostics.append(Diagnostic(item.line, item.text,
                                                       msg("err-along-here", square=raw.target)))
                    return plan
            assert count is not None and forward is not None
            error = work.check_along(count, forward)
            if error is not None:
                plan.diagnostics.append(Diagnostic(item.line, item.text, error))
                return plan
            work.do_along(count, forward)
            out.append(Along(count, forward))
    if work.used < work.roll:
        best = best_points(Work(state, seat))
        if work.used < best:
            plan.diagnostics.append(Diagnostic(0, "", msg("err-short", used=work.used, roll=work.roll, best=best),
                                               _hint_from(work)))
            return plan
        plan.diagnostics.append(Diagnostic(0, "", msg("warn-blocked", used=work.used, roll=work.roll),
                                           severity="warning"))
    plan.orders = tuple(out) if out else (Stay(),)
    plan.stay = not out
    return plan


def plan_orders(state: State, seat: str, orders: Sequence[Order]) -> Plan:
    """Check typed orders again (the resolution re-checks what the parser accepted)."""
    from pbem.games.arditi.orders import raw_of

    return plan_turn(state, seat, [Item(0, o.canonical(), raw_of(o)) for o in orders])
