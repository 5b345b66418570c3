"""Demolition (rulebook 9): hits on squares, Structural Damage, collapses and their cascade, the
transit tracks (Sky Rail 9.v, Pedway 9.vi, Mega Way 9.vii), Demo Charges; and the helpers every rule
module shares (where a Blocker is, who is in a square, killing a Blocker, 7.iii).

Pure rules over a `Board`: dice only through the `Dice` argument, each roll with its purpose; what
happened is recorded with ``board.note``. Section numbers are the Italian rulebook's
(shared/seeds/004_*.txt).

Readings of the rulebook, decided here (docs/games/blockmania.md):

- A collapse (9.iii, "tutto ciò che esso contiene viene rimosso dal gioco, inclusi …") empties the
  square: the list after "inclusi" gives examples, so every marker goes (Fire, Scrawl, Structural
  Damage, a Sky Rail train, and a Looted marker too: the looted Bank is "automaticamente distrutta"
  and scores as a Collapse, 12.iii), and a Judges marker with them. "Rimosso dal gioco" is read as
  off the map, as for the Blockers it names, which are losses all the same (7.iii lists "crollo degli
  Square o dei Block" among the eliminations): the counters carried by them or lying there (an armed
  Demo Charge) go back to their pools, as 7.iii says for any Blocker eliminated "per qualsiasi motivo"
  ("riponendo nei relativi contenitori"). So collapses never thin the pools; only a Demo Charge that
  explodes is used up (``REMOVED``).
- The cascade (9.iii) is resolved level by level: a collapse puts its markers on the square above,
  above-right, above-left (each with its collapse roll at once); the collapses they cause put theirs
  after that, in the order they happened.
- A Pedway, Mega Way or Sky Rail square that collapses is an Open Air square: its Blockers are not
  killed (9.vi: only the Pedway's third hit, Severed, kills) and nothing above it is damaged.
- A shot at a square that has collapsed is refused (9.iv: no more markers), except the third hit on a
  collapsed Pedway square (9.vi).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from pbem.core.dice import Dice
from pbem.core.i18n import Message, msg
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board, key, parse_loc
from pbem.games.blockmania.roster import ROSTER, CounterType, can_fly
from pbem.games.blockmania.state import DEAD, POOL, Counter, SquareState

DIE: Final = 6
TARGET: Final = 6  # 7.ii, 8.v, 8.vii, 8.viii, 8.x, 9.i, 9.ii: "6 o più"
REMOVED: Final = "removed"  # a counter out of play: a Demo Charge that exploded (QR)
STOPPED, COLLAPSED, SEVERED, DAMAGED = "stopped", "collapsed", "severed", "damaged"
FALLEN: Final = "fallen"  # transit of a fallen block's map (10.iii): collapsed, but no Collapse marker scored

# -- where things are --------------------------------------------------------------------------------


def where(board: Board, bid: str) -> Loc | None:
    """The square a Blocker is in, named canonically (a shared half square by the map on its right),
    or None if it is off the map."""
    found = board.loc(bid)
    if found is None or found.block not in board.ring.ids:
        return None
    try:
        return board.ring.loc(found.block, found.label)
    except KeyError:
        return None


def canonical(board: Board, loc: Loc) -> Loc:
    return board.ring.loc(loc.block, loc.label)


def occupants(board: Board, loc: Loc) -> list[str]:
    """The Blockers in ``loc``, by id."""
    loc = canonical(board, loc)
    return sorted(b for b in board.blockers if where(board, b) == loc)


def owner(board: Board, bid: str) -> str:
    return board.blockers[bid].owner


def outside(board: Board, bid: str, loc: Loc) -> bool:
    """A flier in a Window square other than a Balcony or Entrance Plaza is outside the block (6.ii, 6.ix)."""
    sq = board.square(loc)
    return sq.is_window and sq.kind.code not in ("BA", "EP") and flies(board, bid)


def enemies_in(board: Board, bid: str, loc: Loc | None = None) -> list[str]:
    """The other players' Blockers in ``bid``'s square (or in ``loc``) on its side of the wall: in a
    Window square a flier outside and a Blocker inside share the square without meeting (6.ii "uno
    all'interno e l'altro all'esterno del Block"; 6.ix: the enemy that comes in "può sparare al Blocker
    volante ma non ingaggiarlo in un Combattimento Ravvicinato"), in every phase, not only when moving."""
    here = loc if loc is not None else where(board, bid)
    if here is None:
        return []
    mine = owner(board, bid)
    side = outside(board, bid, here)
    return [b for b in occupants(board, here) if owner(board, b) != mine and outside(board, b, here) == side]


def block_of_seat(board: Board, seat: str) -> str:
    return board.state.seat(seat).block


def carried_types(board: Board, bid: str) -> list[CounterType]:
    return [board.counter_type(c) for c in board.blockers[bid].carried if c in board.counters]


def flies(board: Board, bid: str) -> bool:
    return can_fly(board.type(bid), carried_types(board, bid))


# -- losses ------------------------------------------------------------------------------------------


def kill(board: Board, bid: str, cause: str) -> None:
    """7.iii: the Blocker leaves the map for its owner's losses (DEAD), whatever the cause; the counters
    it carried go back to their containers ("per qualsiasi motivo … riponendo nei relativi contenitori")."""
    b = board.blockers[bid]
    here = where(board, bid)
    for cid in b.carried:
        if cid in board.counters:
            board.to_pool(cid)
    board.set_blocker(bid, loc=DEAD, carried=(), face_down=False, locked=False, set_up=False, activated=False)
    board.note("note-combat-killed", blocker=bid, cause=cause, square=here or "")
    if here is not None:
        _unlock(board, here)


def _moved(board: Board, cid: str, loc: str) -> Counter:
    return replace(board.counters[cid], loc=loc, armed_turn=None)


def _unlock(board: Board, loc: Loc) -> None:
    """8.vi: Blockers stay locked until one of the two is eliminated."""
    for bid in occupants(board, loc):
        if board.blockers[bid].locked and not enemies_in(board, bid, loc):
            board.set_blocker(bid, locked=False)


# -- squares -----------------------------------------------------------------------------------------


def square_strength(board: Board, loc: Loc) -> int | None:
    """9.i: 6, Armoury 8; Sky Rail 4 (9.v); Pedway and Mega Way 6 (9.vi, 9.vii); None: cannot be hit."""
    return board.square(loc).kind.strength


def check_square_target(board: Board, loc: Loc, weapon: CounterType) -> Message | None:
    """Whether ``weapon`` can damage square ``loc`` at all (9.i, 9.iv-9.vii); range and line of fire
    are the shooting's (combat.py)."""
    loc = canonical(board, loc)
    kind = board.square(loc).kind
    state = board.damage(loc)
    if not weapon.damages_squares:
        return msg("err-damage-weapon", weapon=weapon.name)
    if loc.block in board.fallen:
        return msg("err-damage-fallen", square=loc)
    if kind.strength is None or kind.damage is None:
        return msg("err-damage-no-target", square=loc)
    if kind.only is not None and weapon.name != kind.only:
        return msg("err-damage-only", square=loc, weapon=kind.only)
    if kind.damage == "pedway":
        if state.transit in (SEVERED, FALLEN):
            return msg("err-damage-collapsed", square=loc)
    elif state.collapsed:
        return msg("err-damage-collapsed", square=loc)
    return None


def hit_square(board: Board, loc: Loc, weapon: CounterType, dice: Dice, by: str, bonus: int = 0) -> bool:
    """9.i: 1d6 + the weapon's damage - the square's Strength (no +1 for Civic or Open Air) >= 6 is a
    hit, applied along the square's track (``Kind.damage``). ``bonus``: an attack card's modifier
    (11.iv). Returns whether it hit. The caller has checked ``check_square_target``."""
    loc = canonical(board, loc)
    strength = square_strength(board, loc)
    assert strength is not None and weapon.damage is not None
    roll = dice.roll(DIE, f"{by}: {weapon.name} against the square {loc}")
    total = roll + weapon.damage + bonus - strength
    hit = total >= TARGET
    board.note("note-damage-shot", square=loc, weapon=weapon.name, roll=roll, total=total,
               result="hit" if hit else "miss")
    if hit:
        apply_hit(board, loc, weapon.markers, dice)
    return hit


def apply_hit(board: Board, loc: Loc, markers: int, dice: Dice) -> None:
    """One hit on a square, by its track: Structural Damage with collapse rolls (9.ii); a Sky Rail
    square collapses (9.v); a Pedway is stopped, collapsed, severed (9.vi); a Mega Way damaged, then
    collapsed (9.vii). ``markers``: Structural Damage markers of the hit (a Demo Charge places 3)."""
    loc = canonical(board, loc)
    track = board.square(loc).kind.damage
    state = board.damage(loc)
    if track == "skyrail":
        _transit_collapse(board, loc, COLLAPSED)
    elif track == "megaway":
        if state.transit == DAMAGED:
            _transit_collapse(board, loc, COLLAPSED)
        else:
            board.set_square(loc, damage=state.damage + 1, transit=DAMAGED)
            board.note("note-damage-megaway-damaged", square=loc)
    elif track == "pedway":
        if state.transit == COLLAPSED:
            board.set_square(loc, transit=SEVERED, collapsed=True)
            board.note("note-damage-pedway-severed", square=loc)
            for bid in occupants(board, loc):
                kill(board, bid, "severed")
        elif state.transit == STOPPED:
            _transit_collapse(board, loc, COLLAPSED)
        else:
            board.set_square(loc, damage=state.damage + 1, transit=STOPPED)
            board.note("note-damage-pedway-stopped", square=loc)
    else:
        add_structural_damage(board, loc, markers, dice)


def _transit_collapse(board: Board, loc: Loc, transit: str) -> None:
    board.set_square(loc, collapsed=True, transit=transit)
    board.note("note-damage-collapse", square=loc, block=loc.block, type=board.square(loc).type)


def add_structural_damage(board: Board, loc: Loc, markers: int, dice: Dice) -> list[Loc]:
    """9.ii: each marker placed is followed by a collapse roll, 1d6 + the markers now in the square
    >= 6; a collapse (9.iii) stops the placing (the square takes no more markers, 9.iv) and cascades.
    Returns the squares that collapsed, in order."""
    loc = canonical(board, loc)
    collapsed: list[Loc] = []
    if board.collapsed(loc) or board.square(loc).is_open:
        return collapsed
    for _ in range(markers):
        if _place_marker(board, loc, dice):
            collapsed.append(loc)
            collapsed.extend(_cascade(board, loc, dice))
            break
    return collapsed


def _place_marker(board: Board, loc: Loc, dice: Dice) -> bool:
    """One Structural Damage marker and its collapse roll; True if the square collapsed."""
    n = board.damage(loc).damage + 1
    board.set_square(loc, damage=n)
    roll = dice.roll(DIE, f"collapse roll for {loc} ({n} Structural Damage)")
    fell = roll + n >= TARGET
    board.note("note-damage-marker", square=loc, markers=n, roll=roll, result="collapse" if fell else "stands")
    if fell:
        collapse(board, loc)
    return fell


def _cascade(board: Board, first: Loc, dice: Dice) -> list[Loc]:
    """9.iii: Structural Damage on the three squares above a collapse, the vertical first, then above
    right, then above left (Open Air and collapsed squares excepted), each rolled at once; the
    collapses so caused put theirs in turn."""
    out: list[Loc] = []
    queue = [first]
    while queue:
        here = queue.pop(0)
        for up in board.ring.collapse_targets(here):
            if board.collapsed(up):
                continue
            if _place_marker(board, up, dice):
                out.append(up)
                queue.append(up)
    return out


def collapse(board: Board, loc: Loc) -> None:
    """9.iii: "tutto ciò che esso contiene" leaves the map: the Blockers are killed (losses, 7.iii), the
    counters go back to their containers, every marker goes (Fire, Scrawl, Structural Damage, a train,
    Looted, the Judges); special locations are destroyed; a Collapse marker is placed."""
    loc = canonical(board, loc)
    for bid in occupants(board, loc):
        kill(board, bid, "collapse")
    for cid, c in list(board.counters.items()):
        if c.loc == key(loc):
            board.to_pool(cid)
    board.squares[key(loc)] = SquareState(key(loc), collapsed=True)
    board.judges.discard(key(loc))
    board.note("note-damage-collapse", square=loc, block=loc.block, type=board.square(loc).type)


# -- Demo Charges ------------------------------------------------------------------------------------


def armed_charges(board: Board) -> list[str]:
    """Demo Charges armed and lying in a square (QR; ``Counter.armed_turn``)."""
    out = []
    for cid, c in sorted(board.counters.items()):
        if c.armed_turn is not None and ":" in c.loc and not c.loc.startswith(f"{POOL}:"):
            out.append(cid)
    return out


def explode_charges(board: Board, dice: Dice) -> None:
    """QR, 9.i, 9.ii: at the start of the Combat Phase every armed Demo Charge explodes in its square:
    one roll against the square (its damage against the square's Strength, 3 Structural Damage markers
    on a hit, each with its collapse roll), then one against each Blocker still there (1d6 + its damage
    against Blockers, +1 in Open Air or Civic, - Strength >= 6). The charge is used up."""
    for cid in armed_charges(board):
        c = board.counters[cid]
        raw = parse_loc(c.loc)
        if raw is None:
            continue
        loc = canonical(board, raw)
        weapon = board.counter_type(cid)
        board.note("note-damage-charge", square=loc)
        board.counters[cid] = _moved(board, cid, REMOVED)
        if check_square_target(board, loc, weapon) is None:
            hit_square(board, loc, weapon, dice, "Demo Charge")
        for bid in occupants(board, loc):
            roll_kill(board, bid, weapon.damage_against_blocker(), dice, f"Demo Charge in {loc}")


def roll_kill(board: Board, target: str, damage: int, dice: Dice, by: str, bonus: int = 0) -> bool:
    """7.ii, 8.v: 1d6 + damage (+1 if the target is in a Civic or Open Air square) - the target's
    Strength >= 6 eliminates it. ``bonus``: an attack card's modifier (11.iv)."""
    loc = where(board, target)
    assert loc is not None
    exposed = ROSTER.rules.exposed_bonus if board.square(loc).exposed and loc.block not in board.fallen else 0
    strength = board.type(target).strength
    roll = dice.roll(DIE, f"{by}: shot at {target}")
    total = roll + damage + exposed + bonus - strength
    dead = total >= TARGET
    board.note("note-combat-shot", target=target, roll=roll, total=total, result="kill" if dead else "miss")
    if dead:
        kill(board, target, "shot")
    return dead


__all__ = [
    "DIE", "TARGET", "REMOVED", "FALLEN", "where", "canonical", "occupants", "owner", "outside", "enemies_in", "kill",
    "square_strength", "check_square_target", "hit_square", "apply_hit", "add_structural_damage", "collapse",
    "armed_charges", "explode_charges", "roll_kill", "flies", "carried_types", "block_of_seat",
]
