"""Throws (7), short throws (13b), tear-gas smoke (13a) and traffic jams (13c).

A throw's strength is the throwers' printed power against the target hex's units (a Head with
its bonus, 10a); terrain multiplies only in combat (our reading of 7f, docs).  Retreats from a
throw move away from the thrower (7c); the target's side chooses for R1/R2, the thrower for P2;
a tear-gas panic moves every corteo unit joined to the target one hex, where the power wants.
"""

from __future__ import annotations

from fractions import Fraction

from pbem.core.dice import Dice
from pbem.core.i18n import Message, msg
from pbem.games.corteo import combat
from pbem.games.corteo.board import Board, city, other, open_neighbours
from pbem.games.corteo.city import DIRECTIONS, Hex, axis_direction, distance
from pbem.games.corteo.state import CORTEO, POTERE, Note, Throw
from pbem.games.corteo.tables import TABLES, Odds


def _strength(board: Board, units: list[str]) -> Fraction:
    heads = set(board.head_units())
    return sum((Fraction(board.type(u).power) + (board.head_bonus(u) if u in heads else 0) for u in units),
               Fraction(0))


def odds(board: Board, throwers: list[str], target: Hex) -> Odds | None:
    """The throw's column (7b), or None below 1-2 (no throw)."""
    defenders = board.at(target, other(board.side(throwers[0])))
    if not defenders:
        return None
    return TABLES.throw.column(_strength(board, throwers), _strength(board, defenders))


def _away(board: Board, uid: str, origin: Hex, steps: int, chooser: str) -> None:
    """7c: the unit retreats ``steps`` hexes, each farther from the thrower; it may stop in the
    enemy's ZOC (the throw is in the movement phase); where it cannot go on, it stops."""
    for _ in range(steps):
        h = board.hex(uid)
        if h is None:
            return
        paths = _farther(board, uid, h, origin)
        if not paths:
            return
        options = list(paths)
        side = board.side(uid)
        target = combat.own_retreat(board, uid, options) if chooser == side else combat.panic_choice(board, uid, options)
        board.set_loc(uid, target.label, "retreat" if chooser == side else "panic", tuple(x.label for x in paths[target]))
        if target in board.enemy_zoc(side):
            return


def _farther(board: Board, uid: str, h: Hex, origin: Hex) -> dict[Hex, tuple[Hex, ...]]:
    """One hex of a throw's retreat (7c: "allontanandosi ... dalla unità che ha lanciato"), with the
    hexes passed: 9, "Unità in ritirata possono passare, senza fermarsi, in esa occupati da unità
    cumulate ... finché non occupano un esa libero o non si cumulano con un'altra unità" - a full
    friendly stack is crossed (not one in the enemy's ZOC, where the unit would have to stop, 4b),
    every hex farther from the thrower than the last."""
    side = board.side(uid)
    zoc = board.enemy_zoc(side)
    out: dict[Hex, tuple[Hex, ...]] = {}
    seen = {h}
    todo: list[tuple[Hex, ...]] = [(h,)]
    while todo:
        path = todo.pop(0)
        x = path[-1]
        for n in open_neighbours(x):
            if n in seen or distance(n, origin) <= distance(x, origin) or board.may_enter(uid, n) is not None:
                continue
            seen.add(n)
            if board.stack_ok(uid, n):
                out.setdefault(n, path + (n,))
            elif board.present(n, side) and n not in zoc:
                todo.append(path + (n,))
    return out


def throw(board: Board, throwers: list[str], target: Hex, dice: Dice) -> Throw:
    side = board.side(throwers[0])
    origin = board.hex(throwers[0])
    assert origin is not None
    col = odds(board, throwers, target)
    assert col is not None
    # 7b: the strengths compared, taken before the result moves anyone (the record prints them).
    compared = _strength(board, board.at(target, other(side)))
    roll = dice.roll(TABLES.die, f"throw by {' '.join(throwers)} at {target.label}")
    result = TABLES.throw.result(col, roll)
    hit = target
    short = False
    if board.state.has("short") and roll == TABLES.throw.short_face(col):
        # 13b: the last NE before the results: the throw lands one hex short.
        short = True
        direction = axis_direction(origin, target)
        assert direction is not None
        hit = target.step(DIRECTIONS[(DIRECTIONS.index(direction) + 3) % 6])
        result = "NE"
        there = board.at(hit) if hit != origin else []
        if there:
            odds2 = TABLES.throw.column(_strength(board, throwers), _strength(board, there))
            if odds2 is not None:
                col = odds2
                compared = _strength(board, there)
                roll = dice.roll(TABLES.die, f"short throw on {hit.label}")
                result = TABLES.throw.result(col, roll)  # a second NE: the material did not light
    victims = board.at(hit)
    victims = [u for u in victims if u not in throwers]
    heads = set(board.head_units())
    if result != "NE" and victims:
        steps = 2 if result in ("R2", "P2") else 1
        vside = board.side(victims[0])
        if vside == CORTEO and heads & set(victims):
            victims = sorted(board.corteo() | set(victims))  # 10b, 7c: the Head carries the Corteo
        chooser = vside if result in ("R1", "R2") else side
        if result == "P2" and side == POTERE and vside == CORTEO:
            # 7c: tear-gas panic: the target two hexes, every corteo unit joined to it one hex.
            joined = _joined(board, victims)
            for u in _rear_first(board, joined, origin):
                before = board.hex(u)
                _away(board, u, origin, 2 if u in victims else 1, POTERE)
                if u in victims and board.hex(u) == before and before is not None:
                    _vacate(board, u, before)  # 7c: "l'esa ... deve comunque essere lasciato libero"
        else:
            for u in _rear_first(board, victims, origin):
                _away(board, u, origin, steps, chooser)
    out = Throw(tuple(throwers), origin.label, target.label, hit.label, tuple(victims),
                str(_strength(board, throwers)), str(compared),
                col.label, roll, result, short)
    board.throws.append(out)
    if side == POTERE and result != "NE" and board.state.has("smoke"):
        smoke(board, hit, origin, dice)
    return out


def _rear_first(board: Board, units: list[str], origin: Hex) -> list[str]:
    """The units a throw moves, the farthest from the thrower first: each steps back into room the
    ones behind it have left, so that the order of the moves does not keep a unit from retreating
    (7c "l'unità bersaglio si ritira", 10b for the whole Corteo)."""
    def far(u: str) -> int:
        h = board.hex(u)
        return distance(h, origin) if h is not None else 0

    return sorted(units, key=lambda u: (-far(u), u))


def _vacate(board: Board, uid: str, here: Hex) -> None:
    """7c: a tear-gas target that cannot go farther from the thrower still leaves its hex, to any
    hex it may enter (the power chooses); where there is none, it stays (no arrests from throws)."""
    options = [n for n in open_neighbours(here) if board.may_enter(uid, n) is None and board.stack_ok(uid, n)]
    if options:
        target = combat.panic_choice(board, uid, options)
        board.set_loc(uid, target.label, "panic", (here.label, target.label))


def _joined(board: Board, units: list[str]) -> list[str]:
    seen = set(units)
    todo = list(units)
    while todo:
        h = board.hex(todo.pop())
        if h is None:
            continue
        for n in (*open_neighbours(h), h):
            for v in board.at(n, CORTEO):
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
    return sorted(seen)


def smoke(board: Board, hit: Hex, origin: Hex, dice: Dice) -> None:
    """13a: the wind (1-3 one hex, 4 two, 5 stays, 6 dissolves), then its direction; the smoke
    drifts only along viali and streets; units in its hex step out."""
    wind = dice.roll(TABLES.die, "tear-gas smoke: the wind")
    drift = TABLES.smoke_drift(wind)
    if drift < 0:
        board.notes.append(Note("note-smoke-gone", (("hex", hit.label),)))
        return
    h = hit
    if drift > 0:
        face = dice.roll(TABLES.die, "tear-gas smoke: the wind's direction")
        direction = DIRECTIONS[(TABLES.smoke.direction.index(face)) % 6]
        for _ in range(drift):
            n = h.step(direction)
            if not city().on_map(n) or board.terrain(n) not in ("strada", "viale") or city().wall_between(h, n):
                break
            h = n
    board.smoke[h.label] = "corteo" if drift == 0 else "hand"
    board.notes.append(Note("note-smoke", (("hex", h.label),)))
    for u in board.at(h):
        here = board.hex(u)
        if here is None:
            continue
        options = [n for n in open_neighbours(here) if board.may_enter(u, n) is None and board.stack_ok(u, n)]
        if options:
            target = combat.own_retreat(board, u, options)
            board.set_loc(u, target.label, "retreat", (here.label, target.label))


def jam_problem(board: Board, h: Hex) -> Message | None:
    """13c: a viale hex outside every ZOC, not next to another jam, joined by an unbroken line of
    street hexes (no units, ZOC, barricades or jams) to a clear crossing (a street hex with three
    or more street neighbours, our reading)."""
    if board.terrain(h) != "viale":
        return msg("err-jam-viale", hex=h.label)
    zoc = board.enemy_zoc(CORTEO) | board.enemy_zoc(POTERE)
    if h in zoc or board.at(h) or board.blocked(h):
        return msg("err-jam-zoc", hex=h.label)
    if any(n.label in board.jams for n in city().neighbours(h)):
        return msg("err-jam-next", hex=h.label)

    def clear(x: Hex) -> bool:
        return board.terrain(x) in ("strada", "viale") and x not in zoc and not board.at(x) and not board.blocked(x)

    seen = {h}
    todo = [h]
    while todo:
        x = todo.pop()
        streets = [n for n in open_neighbours(x) if board.terrain(n) in ("strada", "viale")]
        if x != h and len(streets) >= 3:
            return None
        for n in open_neighbours(x):
            if n not in seen and board.terrain(n) == "strada" and clear(n):
                seen.add(n)
                todo.append(n)
    return msg("err-jam-crossing", hex=h.label)


def try_jam(board: Board, h: Hex, dice: Dice) -> None:
    roll = dice.roll(TABLES.die, f"traffic jam in {h.label}")
    made = TABLES.roll_succeeds("ingorgo", roll)
    if made:
        board.jams.add(h.label)
    board.notes.append(Note("note-jam-made" if made else "note-jam-failed", (("hex", h.label), ("roll", str(roll)))))
