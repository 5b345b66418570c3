"""Random legal orders for a seat (the conformance playouts and the demo's stand-in players).

Candidate lines are kept only while the sheet with them still passes the planner, so the text returned
is always accepted; ``pick`` is the caller's seeded chooser (no ``random`` here).
"""

from __future__ import annotations

from pbem.core.rules import Chooser
from pbem.games.blockmania import combat, deck, flow, movement
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.damage import where
from pbem.games.blockmania.orders import parse_text
from pbem.games.blockmania.plan import PlanDice, Runner, placeable
from pbem.games.blockmania.state import READY, State


def _accepted(state: State, seat: str, lines: list[str]) -> bool:
    items, diags = parse_text("\n".join(lines))
    if diags:
        return False
    runner = Runner(Board(state), seat, PlanDice(), planning=True).run(items)
    return not runner.diagnostics


def _board_after(state: State, seat: str, lines: list[str]) -> Board:
    items, _ = parse_text("\n".join(lines))
    board = Board(state)
    Runner(board, seat, PlanDice(), planning=True).run(items)
    return board


def random_text(state: State, seat: str, pick: Chooser) -> str:
    if seat not in flow.awaiting(state):
        return "PASS"
    lines: list[str] = []

    def offer(line: str) -> bool:
        if _accepted(state, seat, lines + [line]):
            lines.append(line)
            return True
        return False

    if pick(5) == 0:
        offer(["DEFENSIVE FIRE NEAREST", "DEFENSIVE FIRE STRONGEST", "DEFENSIVE FIRE NEVER",
               "DEFENSIVE FIRE ASK", "INTERCEPT OFF", "INTERCEPT ON", "HAZARDS ASK", "HAZARDS KEPT"][pick(8)])
    hand = list(state.seat(seat).hand)
    if hand and pick(4) == 0:
        offer(f"KEEP {hand[pick(len(hand))]}")
    if state.stage == "setup":
        board = Board(state)
        free = placeable(board, seat)
        for b in sorted(x.id for x in state.blockers if x.owner == seat and x.loc == READY):
            if free:
                offer(f"PLACE {b} {free.pop(pick(len(free)))}")
    elif state.stage == "command":
        _command(state, seat, pick, lines, offer)
    elif state.stage == "combat":
        _combat(state, seat, pick, offer)
    elif state.stage == "hazards":
        for card in hand:
            if pick(2) == 0 and offer(f"PLAY {card}"):
                break
    elif state.stage == "defensive-fire":
        board = Board(state)
        for b in sorted(board.on_map(seat)):
            shot = combat.choose_defensive_fire(board, b, "strongest")
            if shot is not None and pick(2) == 0:
                offer(f"FIRE {b} AT {shot[0]}")
            elif pick(3) == 0:
                offer(f"HOLD {b}")
    return "\n".join(lines) or "PASS"


def _command(state: State, seat: str, pick: Chooser, lines: list[str], offer: object) -> None:
    assert callable(offer)
    if state.final:
        board = Board(state)
        if deck.justice_due(board, seat):
            hand = board.hands[seat]
            offer(f"JUSTICE {hand[pick(len(hand))]}") or offer(f"JUSTICE {hand[0]}")
    for _ in range(2):
        if pick(3) == 0:
            offer("NEW")
    board = _board_after(state, seat, lines)
    for card in list(board.hands.get(seat, [])):
        if pick(3) == 0:
            f = deck.face(board, card)
            mine = sorted(board.on_map(seat))
            target = mine[pick(len(mine))] if mine else ""
            offer(f"PLAY {card}" + (f" ON {target}" if target else "")) or offer(f"PLAY {card}")
    for _ in range(1 + pick(3)):
        board = _board_after(state, seat, lines)
        movers = [b for b in sorted(board.on_map(seat)) if movement.check_activate(board, b) is None]
        if not movers:
            break
        bid = movers[pick(len(movers))]
        movement.activate(board, bid)
        paths = movement.reachable(board, bid)
        reach = sorted(paths, key=str)
        if reach and pick(5) != 0:
            if pick(2) == 0:
                reach = _towards_enemy(board, seat, reach)
            path = " ".join(str(s.to) for s in paths[reach[pick(len(reach))]])  # in full: no search when checked
            offer(f"MOVE {bid} {path}") or offer(f"ACTIVATE {bid}")
        else:
            offer(f"ACTIVATE {bid}")
        board = _board_after(state, seat, lines)
        if board.moving.blocker == bid:
            if pick(3) == 0:
                offer(f"PICKUP {bid}")
            if pick(3) == 0:
                offer(f"SETUP {bid}")
            if pick(3) == 0:
                offer(f"ARM {bid}")
    if pick(8) == 0 and lines:
        offer("CONTINUE")


def _towards_enemy(board: Board, seat: str, reach: list[Loc]) -> list[Loc]:
    """The squares of ``reach`` nearest an enemy Blocker (every one of them when there is no enemy on
    the map): half the moves seek a fight, so stand-ins meet, shoot and close in (7, 8.v, 8.vi)."""
    enemies = [loc for b in sorted(board.on_map()) if board.owner(b) != seat
               for loc in [where(board, b)] if loc is not None]
    if not enemies:
        return reach
    near = {loc: min(board.ring.distance(loc, e) for e in enemies) for loc in reach}
    least = min(near.values())
    return [loc for loc in reach if near[loc] == least]


def _combat(state: State, seat: str, pick: Chooser, offer: object) -> None:
    assert callable(offer)
    board = Board(state)
    mine = [b for b in sorted(board.on_map(seat)) if not board.blockers[b].face_down]
    enemies = [b for b in sorted(board.on_map()) if board.owner(b) != seat]
    for b in mine:
        if pick(2) == 0:
            continue
        shots = [(t, w) for w in board.blockers[b].carried for t in enemies
                 if combat.check_shoot(board, b, w, t) is None]
        if shots:
            t, w = shots[pick(len(shots))]
            offer(f"SHOOT {b} AT {t} WITH {w}")
            continue
        here = where(board, b)
        if here is not None and pick(2) == 0:
            for e in enemies:
                if combat.check_close_combat(board, b, e) is None and where(board, e) != here:
                    offer(f"FIGHT {b} {e}")
                    break
    for b in mine:
        choice = pick(4)
        if choice == 0:
            offer(f"LOOT {b}")
        elif choice == 1:
            offer(f"SCRAWL {b}")
        elif choice == 2:
            offer(f"BURN {b}")
