"""The course of the game (C 3, 3a; B 4, 5): set-up, ten hands of a corteo turn and a power turn,
each a movement phase (with throws) and a combat phase; objectives held at the end of a hand
(12a); the end of the tenth hand (3a, 14).

A combat phase with nothing to fight is passed over (noted in the report), so nothing waits on a
player who has nothing to do.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.core.dice import Dice
from pbem.errors import RulesError
from pbem.games.corteo import combat, scenario_rules
from pbem.games.corteo.board import Board, city
from pbem.games.corteo.orders import BarracksOrder, Order, Push, Toward
from pbem.games.corteo.plan import Planner, plan_orders
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.score import result
from pbem.games.corteo.state import CORTEO, POTERE, Note, State
from pbem.games.corteo.tables import TABLES
from pbem.games.corteo.units import counter

PLAYER_STAGES = {"corteo-movement": CORTEO, "corteo-combat": CORTEO, "potere-movement": POTERE,
                 "potere-combat": POTERE}
SEQUENCE = ("corteo-movement", "corteo-combat", "potere-movement", "potere-combat")


def awaiting(state: State) -> tuple[str, ...]:
    if state.stage == "setup":
        return (CORTEO, POTERE)
    side = PLAYER_STAGES.get(state.stage)
    return (side,) if side else ()


def _standing(state: State, side: str, orders: tuple[Order, ...]) -> State:
    s = state.standing(side)
    for o in orders:
        if isinstance(o, Toward):
            s = replace(s, toward=o.hex)
        elif isinstance(o, Push):
            s = replace(s, push=o.hex)
        elif isinstance(o, BarracksOrder):
            s = replace(s, barracks=o.numbers)
    return replace(state, standing_corteo=s) if side == CORTEO else replace(state, standing_potere=s)


def play(state: State, sheets: dict[str, tuple[Order, ...]], dice: Dice) -> State:
    """Resolve the current phase with the awaited sides' orders."""
    for side in awaiting(state):
        state = _standing(state, side, sheets.get(side, ()))
    if state.stage == "setup":
        corteo = _checked(plan_orders(state, CORTEO, sheets.get(CORTEO, ())))
        potere = _checked(plan_orders(state, POTERE, sheets.get(POTERE, ())))
        board = potere.board
        for u, x in corteo.board.units.items():
            if board.side(u) == CORTEO:
                board.units[u] = x
        board.steps[:0] = corteo.board.steps
        return _after(board, "setup", head_component=corteo.component or "MOV", hand=1,
                      secret=corteo.secret or ())  # D Sociale: the secret place, kept from the power's view
    stage = state.stage
    side = PLAYER_STAGES[stage]
    if stage == "corteo-movement":
        state = _national(state, CORTEO, dice)
    if stage == "potere-movement":
        state = _national(state, POTERE, dice)
    planner = _checked(plan_orders(state, side, sheets.get(side, ()), dice), lenient=True)
    board = planner.board
    changes: dict[str, object] = {}
    if stage == "corteo-movement":
        changes["heads"] = planner.heads or state.heads
        changes["running"] = planner.running
        if planner.running:
            changes["runs_left"] = state.runs_left - 1
        _cover_left_objectives(board)
        changes["held"] = tuple(h for h in state.held if board.at(h, CORTEO))
    scenario_rules.phase_end(board, stage, tuple(changes.get("heads", state.heads)))  # type: ignore[arg-type]
    new = _after(board, stage, **changes)
    return scenario_rules.sentence(new, dice) if new.stage == "over" else new


def _checked(planner: Planner, lenient: bool = False) -> Planner:
    if not planner.ok and not lenient:
        raise RulesError(f"invalid sheet: {[d.message.key for d in planner.diagnostics]}")
    return planner


def _cover_left_objectives(board: Board) -> None:
    """12a: an objective held at the end of the last hand, once left, is covered: its points are
    the corteo's, and the hex is a building from now on."""
    for label in board.state.held:
        if board.at(label, CORTEO) or label in board.covered:
            continue
        h = city().parse(label)
        o = city().objective_at(h) if h is not None else None
        if o is None:
            continue
        board.covered.add(label)
        value = scenario_rules.objective_points(board.state, o)
        board.points += value
        board.notes.append(Note("note-covered", (("hex", label), ("points", str(value)), ("name", o.name))))


def _national(state: State, side: str, dice: Dice) -> State:
    """C 13d: from the fourth hand, each unit placed in the metro (forestieri) or in a barracks
    (Finanza) enters the game on an even roll, else waits (rolled again next hand)."""
    if not state.has("national") or state.hand < 4:
        return state
    units = list(state.units)
    for i, u in enumerate(units):
        if u.waiting and counter(u.id).side == side:
            roll = dice.roll(TABLES.die, f"C 13d: does {u.id} enter the game?")
            if TABLES.roll_succeeds("corteo-nazionale", roll):
                units[i] = replace(u, waiting=False)
    return replace(state, units=tuple(units))


def next_stage(stage: str) -> str:
    i = SEQUENCE.index(stage)
    return SEQUENCE[(i + 1) % len(SEQUENCE)]


def has_work(board: Board, stage: str) -> bool:
    """A combat phase only when some unit of the side in turn has an enemy in its ZOC (8a)."""
    if not stage.endswith("-combat"):
        return True
    side = PLAYER_STAGES[stage]
    p = Planner(board.frozen(stage, True, stage=stage), side)
    mine = [u for u in p.board.map_units(side) if p.board.active(u)]
    theirs = [u for u in p.board.map_units(combat.other(side)) if p.board.active(u)]
    # combat.can_fight(p.board, [m], [t]) for some pair, without trying every pair: some hex a unit
    # of theirs may fight in lies in the reach of my units (the union of each one's reach)
    reach = combat.reach_of(p.board, mine)
    return any(d in reach for t in theirs for d in combat.targets_of(p.board, [t]))


def _after(board: Board, stage: str, **changes: object) -> State:
    """The state after ``stage``: the next phase, passing over combats with nothing to fight and
    closing the hand after the power's turn."""
    nxt = "corteo-movement" if stage == "setup" else next_stage(stage)
    state = board.frozen(stage, False, **{"stage": nxt, **changes})
    closing = stage in ("potere-movement", "potere-combat")
    while True:
        if state.stage.endswith("-combat") and not has_work(Board(state), state.stage):
            log = state.log[:-1] + (replace(state.log[-1], notes=state.log[-1].notes + (
                Note("note-passed", (("phase", state.stage),)),)),)
            closing = closing or state.stage == "potere-combat"
            state = replace(state, stage=next_stage(state.stage), log=log)
            continue
        if closing and state.stage == "corteo-movement":
            return end_of_hand(state)
        if state.stage == "potere-movement" and stage.startswith("corteo-"):
            # 13a: smoke left by a calm stays until the end of the corteo's next turn.
            state = replace(state, smoke=tuple(s for s in state.smoke if s.until != "corteo"))
            state = scenario_rules.amend(state, scenario_rules.turn_end)  # D: the corteo's turn is over
        return state


def end_of_hand(state: State) -> State:
    """12a: objectives with corteo units at the end of the hand are held (to leave and be covered);
    13a: the hand's smoke clears; 3a, 14: after the tenth hand the game ends."""
    board = Board(state)
    scenario_rules.turn_end(board)  # D: the power's turn is over
    scenario_rules.hand_end(board)
    held = tuple(sorted(h.label for h in city().objective_hexes
                        if h.label not in board.covered and board.at(h, CORTEO)))
    for label, until in list(board.smoke.items()):
        if until == "hand":
            del board.smoke[label]  # 13a: after the power's combat; a calm's smoke waits for the corteo's turn
    if state.hand >= NUMBERS.hands:
        for label in held:
            h = city().parse(label)
            o = city().objective_at(h) if h is not None else None
            if o is not None:
                value = scenario_rules.objective_points(state, o)
                board.covered.add(label)
                board.points += value
                board.notes.append(Note("note-covered", (("hex", label), ("points", str(value)), ("name", o.name))))
        final = result(board)
        new = board.frozen("end", True, stage="over", held=())
        return replace(new, result=final)
    if held:
        board.notes.append(Note("note-held", (("hexes", " ".join(held)),)))
    new = board.frozen("end", True, held=held, hand=state.hand + 1, running=False, stage="corteo-movement")
    return new


__all__ = ["awaiting", "play", "end_of_hand", "has_work"]
