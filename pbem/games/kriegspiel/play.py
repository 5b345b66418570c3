"""Orders the server writes itself: default orders (missed deadline) and random legal orders.

Default orders (documented in docs/games/kriegspiel.md):
- deployment: the commonly used opening of ``data/openings.toml``;
- a move turn: ``PASS``, except that a pending forced retreat is made to the first
  legal square in this order: squares where the unit stays connected first, then the
  farthest from the units that attacked it, then the farthest from any enemy unit, then
  towards the side's own edge of the board, then reading order.

Random orders (conformance playouts) only use the ``pick`` chooser; they favour
taking enemy arsenals, marching on the enemy and attacks that capture, so that random
games end.
"""

from __future__ import annotations

from pbem.core.rules import Chooser
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.comms import compute_network
from pbem.games.kriegspiel.deploy import deployable, opening
from pbem.games.kriegspiel.position import Position
from pbem.games.kriegspiel.state import State, other
from pbem.games.kriegspiel.turn import (
    attack_options,
    legal_destinations,
    retreat_options,
)
from pbem.games.kriegspiel.units import ARMY, KINDS, NUMBERS, UNITS


def opening_text(side: str) -> str:
    return "\n".join(o.canonical() for o in opening(side))


def _move_text(origin: int, path: tuple[int, ...]) -> str:
    return " ".join(["MOVE", BOARD.name(origin)] + [BOARD.name(s) for s in path])


def retreat_choices(state: State) -> list[tuple[int, tuple[int, ...]]]:
    """The pending retreat's legal moves, best first (the default-orders order)."""
    if state.retreat is None:
        return []
    pos = Position.of(state)
    sq = pos.find(state.retreat)
    if sq is None:
        return []
    unit = pos.at[sq]
    enemy_squares = [s for s, u in pos.at.items() if u.side != unit.side]
    attackers: list[int] = []
    if state.last_turn is not None and state.last_turn.attack is not None:
        attackers = [BOARD.index(c.square) for c in state.last_turn.attack.attackers]
    attackers = [s for s in attackers if s in pos.at] or enemy_squares
    home = -1 if unit.side == "north" else 1

    def key(item: tuple[int, tuple[int, ...]]) -> tuple[int, int, int, int, int]:
        dest = item[0]
        trial = Position(state.units, state.arsenals)
        trial.move(sq, dest)
        connected = trial.connected(dest)
        far_attack = min((BOARD.distance(dest, a) for a in attackers), default=0)
        far_enemy = min((BOARD.distance(dest, e) for e in enemy_squares), default=0)
        return (0 if connected else 1, -far_attack, -far_enemy,
                -home * BOARD.row(dest), BOARD.col(dest))

    return sorted(retreat_options(pos, sq).items(), key=key)


def default_text(state: State, seat: str) -> str:
    if state.phase == "deploy":
        return opening_text(seat)
    if state.phase == "move" and seat == state.to_move:
        choices = retreat_choices(state)
        if choices:
            sq = Position.of(state).find(state.retreat or "")
            assert sq is not None
            return _move_text(sq, choices[0][1])
    return "PASS"


# -- random legal orders ----------------------------------------------------------------

def _random_deployment(side: str, pick: Chooser) -> str:
    if pick(3) == 0:
        return opening_text(side)
    free = deployable(side)
    own_arsenals = [sq for sq, s in BOARD.arsenals if s == side]
    covered = compute_network(side, {}, own_arsenals).covered
    lines = []
    for kind in KINDS:
        for _ in range(ARMY[kind]):
            on_line = [sq for sq in free if sq in covered]
            pool = on_line if on_line and pick(5) != 0 else free
            sq = pool[pick(len(pool))]
            free.remove(sq)
            lines.append(f"{UNITS[kind].keyword} {BOARD.name(sq)}")
    return "\n".join(lines)


def random_text(state: State, seat: str, pick: Chooser) -> str:
    """A random legal order text for ``seat`` (``PASS`` when it is not its turn)."""
    if state.phase == "deploy":
        return _random_deployment(seat, pick)
    if state.phase != "move" or seat != state.to_move:
        return "PASS"
    side, enemy = seat, other(seat)
    if state.draw_offered_by == enemy and pick(3) == 0:
        return "DRAW"
    if pick(2000) == 0:
        return "RESIGN"
    pos = Position.of(state)
    lines: list[str] = []
    moved: set[str] = set()
    arsenal_done = False
    excluded: frozenset[str] = frozenset()

    def play(origin: int, path: tuple[int, ...]) -> None:
        nonlocal arsenal_done
        dest = path[-1]
        arsenal = pos.intact_arsenal(dest)
        if arsenal is not None and arsenal.side == enemy:
            pos.destroy_arsenal(dest)
            arsenal_done = True
        moved.add(pos.move(origin, dest).id)
        lines.append(_move_text(origin, path))

    if state.retreat is not None:
        sq = pos.find(state.retreat)
        retreats = sorted(retreat_options(pos, sq).items()) if sq is not None else []
        if sq is not None and retreats:
            excluded = frozenset({state.retreat})
            play(sq, retreats[pick(len(retreats))][1])
    room = NUMBERS.max_moves - len(lines)
    count = room - pick(room + 1) // 2
    towards_arsenals = pick(2) == 0
    for _ in range(count):
        options = {sq: legal_destinations(pos, sq, not arsenal_done)
                   for sq, u in sorted(pos.at.items()) if u.side == side and u.id not in moved}
        options = {sq: d for sq, d in options.items() if d}
        if not options:
            break
        if not arsenal_done:
            grabs = [(sq, path) for sq, dests in options.items() for dest, path in sorted(dests.items())
                     if (a := pos.intact_arsenal(dest)) is not None and a.side == enemy]
            if grabs and pick(6) != 0:
                play(*grabs[pick(len(grabs))])
                continue
        movers = list(options)
        origin = movers[pick(len(movers))]
        dests = sorted(options[origin].items())
        if pick(5) != 0:
            # prefer squares where the unit keeps (or, for a relay, brings) communications
            net = pos.network(side)
            linked = [d for d in dests if d[0] in net.covered
                      or any(nb != origin and nb in net.connected for nb in BOARD.neighbours[d[0]])]
            dests = linked or dests
        if pick(4) != 0:
            goals = [sq for sq, a in pos.arsenals.items() if a.side == enemy and not a.destroyed]
            if not towards_arsenals or not goals:
                goals += [sq for sq, u in pos.at.items() if u.side == enemy]
            if goals:
                scores = [min(BOARD.distance(d[0], g) for g in goals) for d in dests]
                best = min(scores)
                dests = [d for d, score in zip(dests, scores, strict=True) if score == best]
        play(origin, dests[pick(len(dests))][1])
    if not arsenal_done:
        options_a = attack_options(pos, side, excluded)
        captures = [a for a in options_a if a.result == "captured"]
        pushes = [a for a in options_a if a.result == "retreat"]
        chosen = None
        if captures:
            chosen = captures[pick(len(captures))]
        elif pushes and pick(2) == 0:
            chosen = pushes[pick(len(pushes))]
        elif options_a and pick(8) == 0:
            chosen = options_a[pick(len(options_a))]
        if chosen is not None:
            lines.append(f"ATTACK {BOARD.name(chosen.target)}")
    if state.draw_offered_by is None and pick(400) == 0:
        lines.append("DRAW")
    return "\n".join(lines) if lines else "PASS"
