"""The End Phase's fires (rulebook 10.i) and Catastrophic Damage (10.iii); defeat points (12.iii).

Pure rules over a `Board`: dice only through the `Dice` argument, each roll with its purpose; what
happened is recorded with ``board.note``.

Readings of the rulebook, decided here (docs/games/blockmania.md):

- 10.i acts on the fires of the active player's block only ("se il giocatore di turno ha degli
  indicatori Fire nel suo Block"). The new Fires go where a Fire was at the start of the phase, square
  by square in map order; a fourth spreads on 2d6 (``Ring.fire_spread_target``) and is not placed on
  Open Air, a collapsed square, one with three Fires, or off the map.
- The automatic fire-control system (10.i, "se funziona, vedi Water Tank") is an argument: the maps
  carry no Water Tank yet, so by default it always works.
- 10.iii: the blocks that may fall are those with a Collapse placed in one of their Window or Interior
  squares during this turn, read from the notes of the turn (``note-damage-collapse``, in the state's
  log for the active seat's turn and on the board). The 5d6 are compared with every Collapse marker on
  the block's map. A fallen block's Blockers are killed (7.iii: a loss), its counters and markers
  removed from play, its Pedway, Sky Rail and Mega Way squares marked collapsed (``transit = "fallen"``:
  no Collapse marker scored for them).
- 12.iii (the brief's "12.iv"): squares score for the block whose map names them (a half square shared
  by two maps for the map on its right); a Scrawl on a Civic Window square scores 4 (Window), not 4 + 2.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Final

from pbem.core.dice import Dice
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board, parse_loc
from pbem.games.blockmania.damage import (
    DIE, FALLEN, REMOVED, add_structural_damage, canonical, kill, occupants,
)
from pbem.games.blockmania.state import DEAD, SquareState

MAX_FIRES: Final = 3  # 10.i
FIRE_DAMAGE: Final = 7  # 10.i: 1d6 + Fires >= 7
AUTOMATIC: Final = (1, 2)  # 10.i: the automatic system puts out a Fire
CATASTROPHE_DICE: Final = 5  # 10.iii
FALL_POINTS: Final = 200  # 10.iii, 12.iii
POINTS: Final = {"blocker": 1, "collapse": 6, "damage": 1, "fire": 1, "loot-bank": 4, "loot-mall": 2,
                 "scrawl-window": 4, "scrawl-civic": 2}  # 12.iii


def _always(loc: Loc) -> bool:
    return True


def _burning(board: Board, block: str) -> list[Loc]:
    return [loc for loc in _own_squares(board, block) if board.damage(loc).fires > 0 and not board.collapsed(loc)]


def _own_squares(board: Board, block: str) -> list[Loc]:
    """The squares a block's map names (shared half squares only on the map to their right)."""
    return [loc for loc in board.ring.block_squares(block) if loc.block == block]


def add_fires(board: Board, dice: Dice) -> None:
    """10.i: one more Fire wherever there is one in the active player's block; a fourth spreads to the
    neighbour the 2d6 diagram gives, unless that is Open Air, collapsed or already has three."""
    block = board.state.active_seat.block
    for loc in _burning(board, block):
        fires = board.damage(loc).fires
        if fires < MAX_FIRES:
            board.set_square(loc, fires=fires + 1)
            board.note("note-fire-grows", square=loc, fires=fires + 1)
            continue
        a, b = dice.rolls(DIE, 2, f"a fourth Fire in {loc} spreads (2d6)")
        to = board.ring.fire_spread_target(loc, a + b)
        if (to is None or board.square(to).is_open or board.collapsed(to)
                or board.damage(to).fires >= MAX_FIRES):
            board.note("note-fire-spread-lost", square=loc, roll=a + b)
            continue
        to = canonical(board, to)
        board.set_square(to, fires=board.damage(to).fires + 1)
        board.note("note-fire-spreads", square=loc, roll=a + b, target=to)


def fire_damage(board: Board, dice: Dice, automatic: Callable[[Loc], bool] = _always) -> None:
    """10.i: 1d6 per burning square of the active player's block: 1-2 the automatic system removes a
    Fire (if it works in that square: ``automatic``); otherwise the roll + the Fires >= 7 puts a
    Structural Damage marker, with its collapse roll (9.ii, damage.py)."""
    block = board.state.active_seat.block
    for loc in _burning(board, block):
        if board.collapsed(loc):
            continue
        fires = board.damage(loc).fires
        roll = dice.roll(DIE, f"fire in {loc} ({fires} Fires)")
        if roll in AUTOMATIC and automatic(loc):
            board.set_square(loc, fires=fires - 1)
            board.note("note-fire-out", square=loc, roll=roll)
        elif roll + fires >= FIRE_DAMAGE:
            board.note("note-fire-damage", square=loc, roll=roll, fires=fires)
            add_structural_damage(board, loc, 1, dice)
        else:
            board.note("note-fire-burns", square=loc, roll=roll, fires=fires)


def fire_casualties(board: Board, dice: Dice) -> None:
    """10.i: for each square of the active player's block with Blockers and Fire, 1d6 + the Fires
    >= 7 eliminates them all."""
    block = board.state.active_seat.block
    for loc in _burning(board, block):
        there = occupants(board, loc)
        if not there:
            continue
        fires = board.damage(loc).fires
        roll = dice.roll(DIE, f"Blockers in the fire in {loc} ({fires} Fires)")
        dead = roll + fires >= FIRE_DAMAGE
        board.note("note-fire-blockers", square=loc, roll=roll, fires=fires, result="killed" if dead else "safe")
        if dead:
            for bid in there:
                kill(board, bid, "fire")


def end_phase_fires(board: Board, dice: Dice, automatic: Callable[[Loc], bool] = _always) -> None:
    """10.i in order: new Fires and their spreading, fire damage, Blockers in the fire."""
    add_fires(board, dice)
    fire_damage(board, dice, automatic)
    fire_casualties(board, dice)


# -- 10.iii Catastrophic Damage ----------------------------------------------------------------------


def collapses_this_turn(board: Board) -> list[str]:
    """10.iii: the blocks with a Collapse placed in a Window or Interior square this turn (the active
    seat's turn: its phases in the log and the board's notes)."""
    state = board.state
    notes = [n for log in state.log if log.turn == state.turn and log.seat == state.active_seat.name
             for n in log.notes]
    notes += board.notes
    out: list[str] = []
    for n in notes:
        if n.key != "note-damage-collapse":
            continue
        args = dict(n.args)
        if args.get("type") in ("window", "interior") and args["block"] not in out:
            out.append(args["block"])
    return [b for b in board.ring.ids if b in out and b not in board.fallen]


def collapse_markers(board: Board, block: str) -> int:
    """The Collapse markers on a block's map (shared half squares included)."""
    return sum(1 for loc in board.ring.block_squares(block)
               if board.damage(loc).collapsed and board.damage(loc).transit != FALLEN)


def catastrophe(board: Board, dice: Dice) -> list[str]:
    """10.iii: for each block that may suffer it, 5d6 <= its Collapse markers and the block falls.
    Returns the fallen blocks."""
    fell = []
    for block in collapses_this_turn(board):
        rolls = dice.rolls(DIE, CATASTROPHE_DICE, f"catastrophic damage to {block} (5d6)")
        markers = collapse_markers(board, block)
        falls = sum(rolls) <= markers
        board.note("note-fire-catastrophe", block=block, roll=sum(rolls), markers=markers,
                   result="falls" if falls else "stands")
        if falls:
            fall(board, block)
            fell.append(block)
    return fell


def fall(board: Board, block: str) -> None:
    """10.iii: everything in the block is removed (Blockers killed, counters and markers out of play);
    its squares are Open Air for lines of fire (``Board.fallen``); Pedway, Sky Rail and Mega Way
    squares on its map are collapsed."""
    squares = board.ring.block_squares(block)
    for loc in squares:
        for bid in occupants(board, loc):
            if loc.block == block or board.square(loc).kind.damage in ("pedway", "megaway", "skyrail"):
                kill(board, bid, "catastrophe", counters_to=REMOVED)
    own = {str(loc) for loc in squares if loc.block == block}
    for cid, c in list(board.counters.items()):
        if c.loc in own:
            board.counters[cid] = replace(c, loc=REMOVED, armed_turn=None)
    for loc in squares:
        if loc.block == block:
            board.squares[str(loc)] = SquareState(str(loc))
        if board.square(loc).kind.damage in ("pedway", "megaway", "skyrail"):
            board.set_square(loc, collapsed=True, transit=FALLEN)
    board.fallen.add(block)
    board.note("note-fire-block-falls", block=block)


def turn_face_up(board: Board, seat: str) -> None:
    """7.ii, 10: the seat's Blockers turned face down are turned face up at the end of its turn."""
    for bid, b in board.blockers.items():
        if b.owner == seat and b.face_down:
            board.set_blocker(bid, face_down=False)


# -- 12.iii Defeat points ----------------------------------------------------------------------------


def defeat_points(board: Board) -> dict[str, int]:
    """12.iii, by seat: 1 per own Blocker lost (not to Justice); on the own block 6 per Collapse, 1 per
    Structural Damage, 1 per square with Fire, 4 per looted Bank or Armoury, 2 per looted Mall, 4 per
    Scrawl on a Window, 2 per Scrawl on a Civic square; 200 if the block fell."""
    by_block = {s.block: s.name for s in board.state.seats}
    points = {s.name: 0 for s in board.state.seats}
    for b in board.blockers.values():
        if b.loc == DEAD and b.owner in points:
            points[b.owner] += POINTS["blocker"]
    for key, sq in board.squares.items():
        raw = parse_loc(key)
        if raw is None or raw.block not in board.ring.ids:
            continue
        loc = canonical(board, raw)
        seat = by_block.get(loc.block)
        if seat is None:
            continue
        points[seat] += square_points(board, loc, sq)
    for block in board.fallen:
        if block in by_block:
            points[by_block[block]] += FALL_POINTS
    return points


def square_points(board: Board, loc: Loc, sq: SquareState) -> int:
    """12.iii: what one square's markers cost its block's owner."""
    square = board.square(loc)
    code = square.kind.code
    n = 0
    if sq.collapsed and sq.transit != FALLEN:
        n += POINTS["collapse"]
    n += POINTS["damage"] * sq.damage
    if sq.fires > 0:
        n += POINTS["fire"]
    if sq.looted:
        n += POINTS["loot-bank"] if code in ("BK", "AR") else POINTS["loot-mall"] if code == "SM" else 0
    if sq.scrawled:
        n += POINTS["scrawl-window"] if square.is_window else POINTS["scrawl-civic"] if square.is_civic else 0
    return n


__all__ = [
    "add_fires", "fire_damage", "fire_casualties", "end_phase_fires", "collapses_this_turn", "collapse_markers",
    "catastrophe", "fall", "turn_face_up", "defeat_points", "square_points",
]
