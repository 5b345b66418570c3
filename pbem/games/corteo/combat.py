"""Combat (8), retreats, panic, arrests and advances; the groups that fight as one (9, 10, 11).

A *group* is what fights as one unit: a stack (9), an armoured column (11: blindati on adjacent
hexes).  A combat is attacker groups against defender groups, one side being a single group
(8b: many against one add up; one against many too).  Results on a Head carry the whole Corteo
(10b).  Choices the rules give a side (where a unit retreats, where a panicked corteo unit goes,
which barracks takes a panicked power unit) follow the side's standing instructions, else the
documented defaults (docs/games/corteo.md).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cache

from pbem.core.dice import Dice
from pbem.games.corteo.board import Board, city, hexof, other, open_neighbours
from pbem.games.corteo.city import Hex, distance
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import CORTEO, POTERE, PRISON, Fight, Note, off
from pbem.games.corteo.tables import TABLES


# -- groups ------------------------------------------------------------------------------------------


def group_of(board: Board, uid: str) -> list[str]:
    """The units fighting together with ``uid``: its stack (9), or its armoured column (11)."""
    h = board.hex(uid)
    assert h is not None
    if board.type(uid).kind == "blindati":
        column = {uid}
        todo = [uid]
        blindati = [u for u in board.map_units(POTERE) if board.type(u).kind == "blindati" and board.active(u)]
        while todo:
            x = todo.pop()
            hx = board.hex(x)
            assert hx is not None
            for b in blindati:
                hb = board.hex(b)
                if b not in column and hb is not None and distance(hx, hb) <= 1:
                    column.add(b)
                    todo.append(b)
        return sorted(column)
    return sorted(u for u in board.at(h, board.side(uid)) if board.active(u))


def hexes_of(board: Board, units: list[str]) -> list[Hex]:
    out = []
    for u in units:
        h = board.hex(u)
        if h is not None and h not in out:
            out.append(h)
    return out


@cache
def _allows_combat(terrain: str, side: str) -> bool:
    """8c: whether ``side`` may fight in a hex of ``terrain`` (the tables read once)."""
    return TABLES.hex(terrain.replace("_", "-")).allows_combat(side)


def can_fight(board: Board, attacker: list[str], defender: list[str]) -> bool:
    """Some unit of ``attacker`` has a hex of ``defender`` in its ZOC, and the terrain of both
    hexes allows combat to both sides (8c)."""
    reach = reach_of(board, attacker)
    return any(d in reach for d in targets_of(board, defender))


def reach_of(board: Board, attacker: list[str]) -> set[Hex]:
    """The hexes ``attacker`` may fight into: the ZOCs of its units on hexes whose terrain lets
    them fight (8c)."""
    out: set[Hex] = set()
    for a in attacker:
        ha = board.hex(a)
        if ha is not None and _allows_combat(board.terrain(ha), board.side(a)):
            out |= board.zoc(a)
    return out


def targets_of(board: Board, defender: list[str]) -> list[Hex]:
    """The hexes of ``defender`` whose terrain lets it fight (8c)."""
    return [d for d in hexes_of(board, defender) if _allows_combat(board.terrain(d), board.side(defender[0]))]


# -- strength (8a, 8c, 10a) ---------------------------------------------------------------------------


def _above(mine: Hex, theirs: Hex) -> bool | None:
    """Whether ``mine`` is higher than the adjacent ``theirs`` (a slope between them), lower
    (False), or level (None)."""
    if city().slope_effect(theirs, mine) == "salita" or city().slope_effect(mine, theirs) == "discesa":
        return True  # coming from ``theirs`` to ``mine`` goes up: ``mine`` is above
    if city().slope_effect(theirs, mine) == "discesa" or city().slope_effect(mine, theirs) == "salita":
        return False
    return None


def _slope(mine: Hex, theirs: list[Hex], attacking: bool) -> Fraction:
    """8c: "l'unità che attacca un'altra in salita (più in alto) ha potenza normale; l'altra si
    difende a potenza doppia. L'unità che attacca un'altra in discesa (più in basso) ha potenza
    doppia": a unit above every enemy hex it is in contact with doubles (the defender when every
    attacker comes uphill, an attacker that strikes downhill), however many they are."""
    contact = [t for t in theirs if distance(mine, t) == 1]
    if not contact or not all(_above(mine, t) for t in contact):
        return Fraction(1)
    return TABLES.slope.attacker_downhill if attacking else TABLES.slope.defender_uphill


def strength(board: Board, units: list[str], opponents: list[str], attacking: bool) -> tuple[Fraction, str]:
    """A side's strength in a combat, and the terms as text (for the report)."""
    total = Fraction(0)
    terms = []
    their = hexes_of(board, opponents)
    heads = set(board.head_units())
    for u in units:
        h = board.hex(u)
        assert h is not None
        t = board.type(u)
        value = Fraction(t.power)
        words = [f"{u} {t.power}"]
        bonus = board.head_bonus(u) if u in heads else 0
        if bonus:
            value += bonus
            words.append(f"+{bonus} Head")
        factor = TABLES.hex(board.terrain(h).replace("_", "-")).factor(board.side(u))
        factor *= _slope(h, their, attacking)
        if factor != 1:
            value *= factor
            words.append(f"x{factor}")
        total += value
        terms.append(" ".join(words))
    text = " + ".join(terms) + (f" = {_num(total)}" if len(terms) > 1 or total != int(total) else "")
    return total, text


def _num(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


# -- retreats and panic (8d-8h) ------------------------------------------------------------------------


def retreat_paths(board: Board, uid: str, avoid: frozenset[Hex] = frozenset()) -> dict[Hex, tuple[Hex, ...]]:
    """Where ``uid`` may retreat (8d), each with the hexes it passes: an adjacent hex, not
    forbidden, not in the enemy's ZOC, within the stacking limit; 9: "Unità in ritirata possono
    passare, senza fermarsi, in esa occupati da unità cumulate: ... devono proseguire la ritirata
    finché non occupano un esa libero o non si cumulano con un'altra unità" - through as many full
    friendly stacks as it meets, each one also out of the enemy's ZOC."""
    h = board.hex(uid)
    if h is None:
        return {}
    zoc = board.enemy_zoc(board.side(uid))
    out: dict[Hex, tuple[Hex, ...]] = {}
    seen = {h}
    todo: list[tuple[Hex, ...]] = [(h,)]
    while todo:
        path = todo.pop(0)
        for n in open_neighbours(path[-1]):
            if n in seen or n in avoid or board.may_enter(uid, n) is not None or n in zoc:
                continue
            seen.add(n)
            if board.stack_ok(uid, n):
                out.setdefault(n, path + (n,))
            elif board.present(n, board.side(uid)):
                todo.append(path + (n,))  # a full stack: on through it
    return out


def retreat_options(board: Board, uid: str, avoid: frozenset[Hex] = frozenset()) -> list[Hex]:
    """The hexes ``uid`` may end a retreat in (8d, 9): see `retreat_paths`."""
    return list(retreat_paths(board, uid, avoid))


def off_map_edge(board: Board, uid: str) -> tuple[str, int] | None:
    """8h: a corteo unit on the map's edge may leave it by a combat result: (edge, part)."""
    h = board.hex(uid)
    if h is None:
        return None
    edges = city().edges(h)
    if not edges:
        return None
    edge = sorted(edges)[0]
    part = city().part(h) or 0
    return edge, part


def _pick(board: Board, options: list[Hex], key: object) -> Hex:
    return sorted(options, key=key)[0]  # type: ignore[call-overload]


def own_retreat(board: Board, uid: str, options: list[Hex]) -> Hex:
    """The retreating side's choice (8d): toward its standing hex; else the corteo keeps close to
    its other units and away from the power, the power falls back away from the corteo."""
    side = board.side(uid)
    toward = hexof(board.state.standing(side).toward or "")
    if toward is not None:
        return _pick(board, options, lambda n: (distance(n, toward), n))
    enemies = hexes_of(board, board.map_units(other(side)))
    friends = hexes_of(board, [u for u in board.map_units(side) if u != uid])

    def near_enemy(n: Hex) -> int:
        return min((distance(n, e) for e in enemies), default=99)

    if side == CORTEO:
        return _pick(board, options, lambda n: (-sum(1 for f in friends if distance(n, f) == 1), -near_enemy(n), n))
    return _pick(board, options, lambda n: (-near_enemy(n), n))


def panic_choice(board: Board, uid: str, options: list[Hex]) -> Hex:
    """Where the power sends a panicked corteo unit (8e): toward its standing PUSH hex; else where
    the unit has the fewest corteo neighbours and the fewest ways out (ready for an arrest)."""
    push = hexof(board.state.standing(POTERE).push or "")
    if push is not None:
        return _pick(board, options, lambda n: (distance(n, push), n))
    friends = hexes_of(board, [u for u in board.map_units(CORTEO) if u != uid])

    def exits(n: Hex) -> int:
        return sum(1 for m in open_neighbours(n) if board.may_enter(uid, m) is None)

    return _pick(board, options, lambda n: (sum(1 for f in friends if distance(n, f) == 1), exits(n), n))


def barracks_choice(board: Board, uid: str) -> Hex | None:
    """Where the corteo sends a panicked power unit (8g): the first of its standing BARRACKS with
    room; else the barracks hex farthest from the unit."""
    h = board.hex(uid)
    room = [c for c in city().caserme]

    def free(x: Hex) -> bool:
        return len([u for u in board.present(x, POTERE) if u != uid]) < TABLES.rules.stack_limit

    for number in board.state.standing(CORTEO).barracks:
        for c in room:
            if c.number == number:
                for x in c.hexes:
                    if free(x):
                        return x
    candidates = [x for c in room for x in c.hexes if free(x)]
    if not candidates:
        return None
    return sorted(candidates, key=lambda x: (-(distance(h, x) if h else 0), x))[0]


def power_panic(board: Board, uid: str, kind: str = "barracks") -> None:
    """8g: face down in a barracks chosen by the corteo, until the power's movement next hand."""
    target = barracks_choice(board, uid)
    board.units[uid] = replace(board.units[uid], panicked=True, panic_hand=board.state.hand, presidio=False)
    board.set_loc(uid, target.label if target is not None else board.loc(uid), kind)


def arrest(board: Board, uid: str) -> None:
    """8f: to the prison for the rest of the game."""
    board.set_loc(uid, PRISON, "arrest")


def retreat(board: Board, uid: str, chooser: str, arrested: list[str], panicked: list[str]) -> Hex | None:
    """One unit leaves its hex by a combat result; returns the hex it left (None: it did not)."""
    h = board.hex(uid)
    if h is None:
        return None
    side = board.side(uid)
    paths = retreat_paths(board, uid)
    options = list(paths)
    if not options:
        edge = off_map_edge(board, uid) if side == CORTEO else None
        if edge is not None:
            board.set_loc(uid, off(edge[0], edge[1], board.state.hand + NUMBERS.offmap_hands + 1), "offmap")
            return h
        if side == CORTEO:
            arrest(board, uid)
            arrested.append(uid)
        else:
            power_panic(board, uid)
            panicked.append(uid)
        return h
    target = own_retreat(board, uid, options) if chooser == side else panic_choice(board, uid, options)
    board.set_loc(uid, target.label, "retreat" if chooser == side else "panic", tuple(x.label for x in paths[target]))
    if board.type(uid).kind == "piantoni":  # 6b: free off its objective, bound again on one
        board.units[uid] = replace(board.units[uid], presidio=board.terrain(target) == "obiettivo")
    return h


def corteo_panic(board: Board, first: list[str], arrested: list[str]) -> list[str]:
    """8e: the panic spreads to every corteo unit joined to the panicked ones; each moves one hex
    chosen by the power; a unit that cannot is arrested (8f)."""
    spread: list[str] = []
    todo = list(first)
    seen = set(first)
    while todo:
        u = todo.pop(0)
        spread.append(u)
        h = board.hex(u)
        if h is None:
            continue
        for n in open_neighbours(h):
            for v in board.at(n, CORTEO):
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        for v in board.at(h, CORTEO):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    for u in spread:
        retreat(board, u, POTERE, arrested, [])
    return spread


# -- one combat ---------------------------------------------------------------------------------


def fight(board: Board, attackers: list[str], defenders: list[str], advance: bool, dice: Dice) -> Fight:
    """8a-8h: strengths, odds rounded for the defender, the die, the result applied at once."""
    side = board.side(attackers[0])
    a_value, a_text = strength(board, attackers, defenders, attacking=True)
    d_value, d_text = strength(board, defenders, attackers, attacking=False)
    odds = TABLES.combat.odds(a_value, d_value)
    roll = dice.roll(TABLES.die, f"combat {' '.join(attackers)} on {' '.join(defenders)}")
    result = TABLES.combat.result(odds, roll)
    losers = attackers if result in ("AR", "AP") else defenders
    winners = defenders if losers is attackers else attackers
    loser_side = board.side(losers[0])
    # 10b: a result on a Head carries the whole Corteo.
    heads = set(board.head_units())
    if loser_side == CORTEO and heads & set(losers):
        losers = sorted(board.corteo() | set(losers))
    vacated: list[Hex] = []
    arrested: list[str] = []
    panicked: list[str] = []
    moved: list[str] = list(losers)
    if result in ("AR", "DR"):
        for u in losers:
            left = retreat(board, u, loser_side, arrested, panicked)
            if left is not None and left not in vacated:
                vacated.append(left)
    elif loser_side == CORTEO:  # corteo panic, 8e
        before = {u: board.hex(u) for u in board.map_units(CORTEO)}
        moved = corteo_panic(board, losers, arrested)
        vacated = [h for u, h in before.items() if u in losers and h is not None]
    else:  # power panic, 8g
        for u in losers:
            h = board.hex(u)
            power_panic(board, u)
            panicked.append(u)
            if h is not None and h not in vacated:
                vacated.append(h)
    advanced: list[str] = []
    if advance and vacated and winners is attackers:
        advanced = _advance(board, winners, vacated)
    out = Fight(tuple(attackers), tuple(defenders), a_text, d_text, odds.label, roll, result, tuple(moved),
                tuple(arrested), tuple(panicked), tuple(advanced))
    board.fights.append(out)
    return out


def _advance(board: Board, winners: list[str], vacated: list[Hex]) -> list[str]:
    """8d: the winner may advance into the hexes left free, even into the enemy's ZOC; a stack
    advances together (9); blindati alone (9)."""
    moved = []
    targets = [h for h in vacated if not board.at(h, other(board.side(winners[0]))) and not board.blocked(h)]
    if not targets:
        return []
    lead = winners[0]
    h0 = board.hex(lead)
    stack = [u for u in winners if board.hex(u) == h0]
    if h0 is None:
        return []
    # 9: "le due unità potranno occupare due esa differenti ... Ma devono avanzare entrambe": a stack
    # advances whole or not at all (a lacrimogeni may not follow a celere onto an objective, 6d).
    if not all(any(board.may_enter(u, h) is None and distance(h0, h) == 1 for h in targets) for u in stack):
        return []
    for u in stack:
        for h in targets:
            if board.may_enter(u, h) is None and board.stack_ok(u, h) and distance(h0, h) == 1:
                board.set_loc(u, h.label, "advance")
                moved.append(u)
                break
    if moved:
        board.notes.append(Note("note-advance", (("units", " ".join(moved)),)))
    return moved


__all__ = ["fight", "group_of", "can_fight", "strength", "retreat", "corteo_panic", "power_panic", "CORTEO", "POTERE"]
