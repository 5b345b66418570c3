"""One side's move turn: checking the orders and playing them (rulebook, "MOVIMENTO & ATTACCO").

The same code checks a sheet for the player (with line numbers) and plays it at
resolution, so what the parser accepts is exactly what happens.

Decisions (see docs/games/kriegspiel.md):
- Units are named by the square they stand on at the start of the turn; moves are
  played in order, so a later move may enter a square an earlier move vacated.
- Connection is checked at the moment of each move, on the position left by the earlier
  moves of the turn (a relay moved first can reconnect units that move after it).
- The attack is played after all moves, wherever its line stands.
- A forced retreat is the first move of the turn and counts as one of the 5; the
  retreating unit adds no attack in that turn.
- Accepting a draw (DRAW while the opponent's offer stands) or RESIGN ends the game at
  once: the sheet's other orders are ignored (with a warning).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pbem.core.i18n import Message, msg
from pbem.core.rules import Diagnostic
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.combat import Assessment, assess, attackers, defenders
from pbem.games.kriegspiel.moves import choose_path, destinations, path_problem
from pbem.games.kriegspiel.orders import (
    Attack,
    Deploy,
    Draw,
    Item,
    Move,
    Order,
    Pass,
    Resign,
)
from pbem.games.kriegspiel.position import Position
from pbem.games.kriegspiel.state import (
    Arsenal,
    AttackRecord,
    Capture,
    MoveRecord,
    Result,
    State,
    TurnRecord,
    Unit,
    other,
)
from pbem.games.kriegspiel.units import NUMBERS, UNITS


@dataclass
class TurnPlan:
    """A checked move turn, ready to be played."""

    side: str
    pos: Position  # the position after the moves
    orders: tuple[Order, ...] = ()
    diagnostics: list[Diagnostic] = field(default_factory=list)
    moves: list[MoveRecord] = field(default_factory=list)
    arsenal: Arsenal | None = None
    assessment: Assessment | None = None
    excluded: frozenset[str] = frozenset()
    resign: bool = False
    accept_draw: bool = False
    offer_draw: bool = False
    passed: bool = False

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def kind_name(kind: str) -> Message:
    return msg(f"kind-{kind}")


def can_move(pos: Position, sq: int) -> bool:
    """Relays move freely; other units only while connected."""
    u = pos.at[sq]
    return UNITS[u.kind].relay or pos.connected(sq)


def legal_destinations(pos: Position, sq: int, arsenal_ok: bool = True) -> dict[int, tuple[int, ...]]:
    """Where the unit on ``sq`` may go now (empty when it may not move at all)."""
    if not can_move(pos, sq):
        return {}
    return destinations(pos, sq, arsenal_ok)


def attack_options(pos: Position, side: str,
                   excluded: frozenset[str] = frozenset()) -> list[Assessment]:
    """Every enemy unit that ``side`` can attack now, in reading order of squares."""
    out = []
    for sq in sorted(pos.at):
        if pos.at[sq].side != side:
            # assess(), with the defence summed only where there is an attack to keep
            att = attackers(pos, sq, side, excluded)
            attack = sum(c.value for c in att)
            if attack > 0:
                dfn = defenders(pos, sq)
                out.append(Assessment(sq, attack, sum(c.value for c in dfn), att, dfn))
    return out


def _squares_list(squares: Sequence[int]) -> str:
    return ", ".join(BOARD.name(s) for s in squares)


def _destinations_hint(pos: Position, sq: int, wanted: int, arsenal_ok: bool) -> Message | None:
    options = legal_destinations(pos, sq, arsenal_ok)
    if not options:
        return msg("hint-no-destination")
    best = sorted(options, key=lambda d: (BOARD.distance(d, wanted), d))[:6]
    return msg("hint-destinations", squares=_squares_list(best))


def _targets_hint(pos: Position, side: str, excluded: frozenset[str]) -> Message:
    options = attack_options(pos, side, excluded)
    if not options:
        return msg("hint-no-targets")
    text = ", ".join(f"{BOARD.name(a.target)} ({a.attack}/{a.defence})" for a in options[:8])
    return msg("hint-targets", targets=text)


def plan_turn(state: State, side: str, items: Sequence[Item]) -> TurnPlan:
    """Check ``items`` for ``side`` on ``state``; the plan holds the position after the moves."""
    pos = Position.of(state)
    plan = TurnPlan(side=side, pos=pos)
    diags = plan.diagnostics
    for it in items:
        if isinstance(it.order, Deploy):
            diags.append(Diagnostic(it.line, it.text, msg("err-deploy-over"),
                                    msg("hint-example", example="MOVE G6 G7")))
    written = bool(items)
    items = [it for it in items if not isinstance(it.order, Deploy)]
    resign = next((it for it in items if isinstance(it.order, Resign)), None)
    if resign is not None:
        diags.extend(Diagnostic(it.line, it.text, msg("warn-ignored-resign"), severity="warning")
                     for it in items if it is not resign)
        plan.orders, plan.resign = (Resign(),), True
        return plan
    draws = [it for it in items if isinstance(it.order, Draw)]
    if draws and state.draw_offered_by == other(side):
        diags.extend(Diagnostic(it.line, it.text, msg("warn-ignored-draw"), severity="warning")
                     for it in items if not isinstance(it.order, Draw))
        plan.orders, plan.accept_draw = (Draw(),), True
        return plan
    for it in draws[1:]:
        diags.append(Diagnostic(it.line, it.text, msg("warn-duplicate", keyword="DRAW"),
                                severity="warning"))
    passes = [it for it in items if isinstance(it.order, Pass)]
    move_items = [it for it in items if isinstance(it.order, Move)]
    attack_items = [it for it in items if isinstance(it.order, Attack)]
    for it in passes[1:]:
        diags.append(Diagnostic(it.line, it.text, msg("warn-duplicate", keyword="PASS"),
                                severity="warning"))
    if passes and (move_items or attack_items):
        diags.append(Diagnostic(passes[0].line, passes[0].text, msg("err-pass-with-orders")))
    if not written:
        diags.append(Diagnostic(0, "", msg("err-empty"), msg("hint-example", example="PASS")))

    checker = _MoveChecker(state, plan)
    accepted: list[Order] = []
    for it in move_items:
        assert isinstance(it.order, Move)
        move = checker.check(it, it.order)
        if move is not None:
            accepted.append(move)
    checker.finish(items)

    for k, it in enumerate(attack_items):
        assert isinstance(it.order, Attack)
        if k > 0:
            diags.append(Diagnostic(it.line, it.text, msg("err-second-attack")))
            continue
        if _check_attack(plan, it, it.order, checker.arsenal_line):
            accepted.append(it.order)
    if passes and not (move_items or attack_items):
        accepted.append(Pass())
        plan.passed = True
    if draws:
        accepted.append(Draw())
        plan.offer_draw = True
    plan.orders = tuple(accepted)
    return plan


class _MoveChecker:
    def __init__(self, state: State, plan: TurnPlan) -> None:
        self.plan = plan
        self.pos = plan.pos
        self.start: dict[int, Unit] = dict(plan.pos.at)
        self.moved: set[str] = set()
        self.retreat = state.retreat
        self.retreat_done = False
        self.arsenal_line = 0

    def _error(self, it: Item, message: Message, hint: Message | None = None) -> None:
        self.plan.diagnostics.append(Diagnostic(it.line, it.text, message, hint))

    def _could_move_to(self, dest: int) -> list[int]:
        side = self.plan.side
        return [sq for sq, u in sorted(self.pos.at.items())
                if u.side == side and u.id not in self.moved
                and dest in legal_destinations(self.pos, sq, self.plan.arsenal is None)]

    def check(self, it: Item, order: Move) -> Move | None:
        pos, side = self.pos, self.plan.side
        origin = BOARD.index(order.origin)
        dest = BOARD.index(order.path[-1])
        unit = self.start.get(origin)
        if unit is None or (unit.side == side and unit.id in self.moved):
            if unit is not None:
                self._error(it, msg("err-moved-twice", square=order.origin))
                return None
            movers = self._could_move_to(dest)
            hint = (msg("hint-could-move", square=order.path[-1], units=_squares_list(movers))
                    if movers else None)
            self._error(it, msg("err-no-unit", square=order.origin), hint)
            return None
        if unit.side != side:
            self._error(it, msg("err-enemy-unit", square=order.origin, kind=kind_name(unit.kind)))
            return None
        if len(self.plan.moves) >= NUMBERS.max_moves:
            self._error(it, msg("err-too-many-moves", max=NUMBERS.max_moves))
            return None
        if self.retreat and not self.retreat_done and unit.id != self.retreat:
            self._error(it, msg("err-retreat-first", **self._retreat_args()), self._retreat_hint())
            return None
        spec = UNITS[unit.kind]
        if not spec.relay and not pos.connected(origin):
            self._error(it, msg("err-cut-off", kind=kind_name(unit.kind), square=order.origin),
                        msg("hint-cut-off"))
            return None
        arsenal_ok = self.plan.arsenal is None
        if len(order.path) == 1 and BOARD.distance(origin, dest) == 2:
            path = choose_path(pos, origin, dest) or (dest,)
        else:
            path = tuple(BOARD.index(s) for s in order.path)
        problem = path_problem(pos, origin, path)
        if problem is not None:
            reason, where = problem
            args: dict[str, object] = {
                "kind": kind_name(unit.kind), "square": order.origin, "dest": BOARD.name(dest),
                "at": BOARD.name(where), "move": spec.move}
            if reason == "occupied":
                args["other"] = kind_name(pos.at[where].kind)
                args["owner"] = msg("owner-own" if pos.at[where].side == side else "owner-enemy")
            self._error(it, msg(f"err-move-{reason}", **args),
                        _destinations_hint(pos, origin, dest, arsenal_ok))
            return None
        arsenal = pos.intact_arsenal(dest)
        if arsenal is not None and arsenal.side != side:
            if spec.relay:
                self._error(it, msg("err-relay-arsenal", dest=BOARD.name(dest)),
                            _destinations_hint(pos, origin, dest, False))
                return None
            if self.plan.arsenal is not None:
                self._error(it, msg("err-second-arsenal", line=self.arsenal_line))
                return None
        forced = bool(self.retreat and unit.id == self.retreat)
        if forced:
            self.retreat_done = True
            self.plan.excluded = frozenset({unit.id})
        pos.move(origin, dest)
        if arsenal is not None and arsenal.side != side:
            self.plan.arsenal = pos.destroy_arsenal(dest)
            self.arsenal_line = it.line
        self.moved.add(unit.id)
        names = tuple(BOARD.name(s) for s in path)
        self.plan.moves.append(MoveRecord(unit.id, unit.kind, side, order.origin, names, forced))
        return Move(order.origin, names)

    def _retreat_args(self) -> dict[str, object]:
        sq = next(s for s, u in self.start.items() if u.id == self.retreat)
        return {"kind": kind_name(self.start[sq].kind), "square": BOARD.name(sq)}

    def _retreat_hint(self) -> Message:
        sq = next(s for s, u in self.start.items() if u.id == self.retreat)
        options = sorted(legal_destinations(Position(tuple(self.start.values()),
                                                     self.pos.arsenal_tuple()), sq))
        return msg("hint-retreat", square=BOARD.name(sq), squares=_squares_list(options))

    def finish(self, items: Sequence[Item]) -> None:
        if self.retreat and not self.retreat_done:
            first = next((it for it in items if isinstance(it.order, Move)), None)
            line, text = (first.line, first.text) if first else (0, "")
            if not any(d.line == line and d.is_error for d in self.plan.diagnostics):
                self.plan.diagnostics.append(Diagnostic(
                    line, text, msg("err-retreat-missing", **self._retreat_args()),
                    self._retreat_hint()))


def _check_attack(plan: TurnPlan, it: Item, order: Attack, arsenal_line: int) -> bool:
    pos, side, diags = plan.pos, plan.side, plan.diagnostics
    if plan.arsenal is not None:
        diags.append(Diagnostic(it.line, it.text, msg("err-attack-after-arsenal", line=arsenal_line)))
        return False
    target = BOARD.index(order.target)
    unit = pos.at.get(target)
    if unit is None:
        diags.append(Diagnostic(it.line, it.text, msg("err-attack-empty", square=order.target),
                                _targets_hint(pos, side, plan.excluded)))
        return False
    if unit.side == side:
        diags.append(Diagnostic(it.line, it.text, msg("err-attack-own", square=order.target),
                                _targets_hint(pos, side, plan.excluded)))
        return False
    a = assess(pos, target, side, plan.excluded)
    if a.attack == 0:
        diags.append(Diagnostic(it.line, it.text, msg("err-attack-no-reach", square=order.target),
                                _targets_hint(pos, side, plan.excluded)))
        return False
    if a.result == "none":
        diags.append(Diagnostic(it.line, it.text, msg(
            "warn-attack-useless", square=order.target, attack=a.attack, defence=a.defence),
            severity="warning"))
    plan.assessment = a
    return True


def retreat_options(pos: Position, sq: int) -> dict[int, tuple[int, ...]]:
    """Where the unit on ``sq`` could make its forced retreat (empty: it is captured)."""
    return legal_destinations(pos, sq, arsenal_ok=True)


def check_victory(pos: Position, mover: str) -> Result | None:
    """Victory (A), (B) or (C), for either side; the side that just moved is checked first."""
    for side in (mover, other(mover)):
        reason = _wins(pos, side)
        if reason is not None:
            return Result("win", (side,), reason)
    return None


def _wins(pos: Position, side: str) -> str | None:
    enemy = other(side)
    if all(a.destroyed for a in pos.arsenals.values() if a.side == enemy):
        return "arsenals"
    enemy_squares = [sq for sq, u in pos.at.items() if u.side == enemy]
    if not any(UNITS[pos.at[sq].kind].combat for sq in enemy_squares):
        return "annihilation"
    if (not any(UNITS[pos.at[sq].kind].relay for sq in enemy_squares)
            and not any(pos.connected(sq) for sq in enemy_squares)):
        return "communications"
    return None


def play_turn(state: State, plan: TurnPlan) -> State:
    """The state after a checked turn (the plan's position is used up)."""
    side, pos = plan.side, plan.pos
    record = TurnRecord(side, state.turn)
    if plan.resign or plan.accept_draw:
        result = (Result("win", (other(side),), "resignation") if plan.resign
                  else Result("draw", (), "agreement"))
        return State(state.version, state.turn, "over", None, state.units, state.arsenals,
                     None, None, state.first_player, state.first_roll, record, result)
    captured: list[Capture] = []
    attack: AttackRecord | None = None
    retreat: str | None = None
    a = plan.assessment
    if a is not None:
        target = pos.at[a.target]
        result_kind = a.result
        blocked = False
        if result_kind == "retreat":
            if retreat_options(pos, a.target):
                retreat = target.id
            else:
                blocked = True
        if result_kind == "captured" or blocked:
            pos.remove(a.target)
            captured.append(Capture(target.id, target.square, target.kind, target.side))
        attack = AttackRecord(side, target.square, target.kind, a.attack, a.defence, result_kind,
                              a.attackers, a.defenders, blocked)
    record = TurnRecord(side, state.turn, tuple(plan.moves), attack, plan.arsenal,
                        tuple(captured), plan.offer_draw, plan.passed)
    victory = check_victory(pos, side)
    if victory is not None:
        return State(state.version, state.turn, "over", None, pos.units(), pos.arsenal_tuple(),
                     None, None, state.first_player, state.first_roll, record, victory)
    return State(state.version, state.turn + 1, "move", other(side), pos.units(),
                 pos.arsenal_tuple(), retreat, side if plan.offer_draw else None,
                 state.first_player, state.first_roll, record, None)
