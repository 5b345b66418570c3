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
  the block's map. A fallen block's Blockers are killed (7.iii: a loss), its counters go back to their
  containers (7.iii, as in a collapse: damage.py), its markers go.
- 10.iii "tutti gli Square di Pedway, Sky Rail e Mega Way si considerano crollati" is read as those of
  the fallen block's map (its own and the half squares it shares with its neighbours), marked
  collapsed with ``transit = "fallen"`` (no Collapse marker, so no defeat points). The bullet stands in
  a list about the fallen map (the bullet before: "tutti gli Square della mappa del Block crollato";
  the one after: "nessun Blocker può entrare in uno Square della mappa del Block crollato"), and the
  whole ring's reading would stop every ride in the city for one block, while 6.vi and 6.viii have the
  Sky Rail and the Mega Way run on through collapsed squares and stop only at a collapse on the way:
  a ride through the fallen map stops (its squares there are collapsed), the others go on.
- 12.iii counts the losses "a causa degli altri giocatori", then sets apart only the Justice cards;
  7.iii says that every Blocker eliminated "per qualsiasi motivo" joins the losses and that "Solo i
  Blocker eliminati dalle forze della giustizia … non vanno considerati". So a Blocker lost to its own
  side (its owner's shot or Demo Charge, a collapse or fire in its own block, its own hazard card)
  is a defeat point like any other: "degli altri giocatori" is read against the Judges, not against
  the owner, and nobody has to trace who lit a fire or weakened a square.
- 12.iii: squares score for the block whose map names them (a half square shared by two maps for the
  map on its right); a Scrawl on a Civic Window square scores 4 (Window), not 4 + 2.
"""

from __future__ import annotations

from typing import Callable, Final

from pbem.core.dice import Dice
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board, key, parse_loc
from pbem.games.blockmania.damage import DIE, FALLEN, add_structural_damage, canonical, kill, occupants
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
    """10.iii: "tutti gli indicatori e le pedine nel Block crollato sono rimossi": the Blockers are
    killed (losses, 7.iii), the counters go back to their containers (7.iii, as in a collapse, 9.iii),
    the markers go; its squares are Open Air for lines of fire (``Board.fallen``); the Pedway, Sky Rail
    and Mega Way squares of its map are collapsed (those of the other maps are not: see the module's
    docstring)."""
    squares = board.ring.block_squares(block)
    for loc in squares:
        for bid in occupants(board, loc):
            if loc.block == block or board.square(loc).kind.damage in ("pedway", "megaway", "skyrail"):
                kill(board, bid, "catastrophe")
    own = {key(loc) for loc in squares if loc.block == block}
    for cid, c in list(board.counters.items()):
        if c.loc in own:
            board.to_pool(cid)
    for loc in squares:
        if loc.block == block:
            board.squares[key(loc)] = SquareState(key(loc))
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
    """12.iii, by seat: 1 per own Blocker lost, whatever killed it, its own side included (not to
    Justice, 7.iii "Solo i Blocker eliminati dalle forze della giustizia"); on the own block 6 per Collapse, 1 per
    Structural Damage, 1 per square with Fire, 4 per looted Bank or Armoury, 2 per looted Mall, 4 per
    Scrawl on a Window, 2 per Scrawl on a Civic square; 200 if the block fell."""
    by_block = {s.block: s.name for s in board.state.seats}
    points = {s.name: 0 for s in board.state.seats}
    for b in board.blockers.values():
        if b.loc == DEAD and b.owner in points:
            points[b.owner] += POINTS["blocker"]
    for name, sq in board.squares.items():
        raw = parse_loc(name)
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
