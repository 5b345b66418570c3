"""The Command Phase and movement of Block Mania (rulebook 5 and 6) over a `Board`.

Pure rules: no I/O, no clock; chance only through a `Dice`.  Every ``check_*`` returns a `Message`
saying why not, or None; the matching do-function applies the change and records a note on the board
(``board.note``).  The do-functions assume their check passed.  The phase's running memory (the Blocker
being moved, its Movement Points left, who may not move again) is ``board.moving``; the Command Points
left are ``board.command_points``.

Decisions where the rulebook is silent or unclear (docs/games/blockmania.md, "Movement"):

- 5.ii new Blocker: a roll naming a collapsed square or a square with any Blocker in it is rolled
  again (6.ii lets nobody enter an occupied square in the Command Phase but by transit); after 36
  fruitless rolls the lowest free address is taken.  No new Blocker in a fallen block (10.iii) nor in
  the Final Phase (12).  A/H symbols draw at once from the top of the pool; a counter the Blocker may
  not keep (``roster.may_keep``) goes back to the bottom and the next is drawn.  The Blocker state
  keeps no symbols: the caller passes them.
- 5.v extra movement is bought automatically: a move costing more than the MP left takes the rest
  from the Command Points.
- 6.i fliers step through Open Air like walkers (1 MP, up 2 MP) and step into a block only onto a
  Balcony (or, with a Spray Can, a Window square: 6.ix); walkers enter Open Air only on the Tween
  Block Plaza or on a pedway that no longer runs (a running pedway is ridden terminus to terminus,
  6.vii); a severed pedway square is never entered (9.vi).
- 6.ii a Blocker sharing its square with an enemy may not leave it (6.ix, "la regola per cui non si
  può abbandonare un settore se in presenza di nemici"), except a flier outside a Window square.  A
  flier in a Window square counts as outside the block unless the square is a Balcony or an Entrance
  Plaza.  The Superhero may share a square with a friend (roster flag ``stacks-with-friend``).
- 6.iii an enemy on an intermediate square of a lift ride stops it there if the ``intercept``
  callback says so, by default if its owner's ``Standing.intercept_lifts``; a locked square cannot
  stop or be entered.  The ride ends the move in an enemy's square.
- 6.vi the Sky Rail train marker is ``SquareState.transit == "train"`` on a station square; the
  train carries the Blocker and stays at the arrival station.  A Blocker in the station (arrived or
  started there) may ride.
- 6.ix fliers take off from a Balcony, an Entrance Plaza or Open Air (a hovering flier); the flight
  needs one MP left (a bought one will do) and ends the move.
- 6.x a looted or collapsed Armoury / Shopping Mall gives nothing (5.ii's exception is for new
  Blockers only); one draw per Blocker per phase; a draw beyond Strength sends back the counter the
  player names (default: the one drawn).  Hand-overs are between friends, the receiver being the
  Blocker moving now.
- 6.xi a set-up heavy weapon is turned face down again, free, when its Blocker moves.
- 9.iv +1 MP to enter and +1 to leave a collapsed square apply to every kind of movement but flight.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from typing import Callable, Iterable

from pbem.core.dice import Dice
from pbem.core.i18n import Message, msg
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board, key
from pbem.games.blockmania.damage import outside
from pbem.games.blockmania.roster import ROSTER, can_fly, climbs, may_keep

#: (board, moving Blocker, square passed, enemies there) -> whether they stop the lift (6.iii)
Intercept = Callable[[Board, str, Loc, tuple[str, ...]], bool]

KINDS = ("walk", "lift", "chute", "skyrail", "pedway", "megaway", "fly")
TRANSIT = frozenset({"lift", "chute", "skyrail", "pedway", "megaway"})  # 6.ii: may enter an enemy's square
TRAIN = "train"
ADDRESS_TRIES = 36


@dataclass(frozen=True)
class Step:
    """One move: ``kind`` (one of KINDS) to the square ``to`` for ``cost`` MP."""

    kind: str
    to: Loc
    cost: int


# -- small readings of the board ---------------------------------------------------------------------------


def where(board: Board, bid: str) -> Loc | None:
    """The Blocker's square, named as the ring names it (a shared half square by its right map)."""
    loc = board.loc(bid)
    if loc is None:
        return None
    found = board.ring.at(board.ring.x_of(loc), loc.level)
    return found


def _occupants(board: Board, loc: Loc, but: str | None = None) -> list[str]:
    return [b for b in board.at(loc) if b != but]


def enemies_at(board: Board, bid: str, loc: Loc) -> list[str]:
    owner = board.owner(bid)
    return [b for b in _occupants(board, loc, bid) if board.owner(b) != owner]


def _flier(board: Board, bid: str) -> bool:
    return can_fly(board.type(bid), board.carried(bid))


def _outside(board: Board, bid: str, loc: Loc) -> bool:
    """A flier in a Window square other than a Balcony or Entrance Plaza is outside the block (6.ii, 6.ix):
    the same test as the combat rules' (``damage.outside``)."""
    return outside(board, bid, loc)


def transit_broken(board: Board, loc: Loc) -> bool:
    """A transit square out of use: collapsed, or a pedway collapsed or severed (9.v-9.vii)."""
    return board.collapsed(loc) or board.damage(loc).transit in ("collapsed", "severed")


def pedway_run(board: Board, loc: Loc) -> tuple[Loc, ...]:
    """The Pedway squares of the pedway ``loc`` lies on, with its two termini (6.vii)."""
    ring = board.ring
    x = ring.x_of(loc)
    out = [loc]
    for d in (1, -1):
        k = 1
        while k < ring.width:
            here = ring.at(x + d * k, loc.level)
            assert here is not None
            out.append(here)
            if board.square(here).kind.code != "PW":
                break
            k += 1
    return tuple(out)


def pedway_runs(board: Board, loc: Loc) -> bool:
    """Whether the pedway through ``loc`` (a Pedway square or a terminus) still works (6.vii, 9.vi):
    no square of it stopped, damaged, collapsed or severed."""
    if board.square(loc).kind.code == "PT":
        loc = board.ring.pedway(loc).squares[0]
    for s in pedway_run(board, loc):
        if board.square(s).kind.code != "PW":
            if board.collapsed(s):
                return False
            continue
        d = board.damage(s)
        if d.transit or d.damage or d.collapsed:
            return False
    return True


def has_train(board: Board, loc: Loc) -> bool:
    """A Sky Rail train marker waits at this station (6.vi)."""
    return board.damage(loc).transit == TRAIN


def place_train(board: Board, loc: Loc) -> None:
    """A Sky Rail card puts a train at a station (6.vi)."""
    board.set_square(loc, transit=TRAIN)
    board.note("note-train", square=loc)


# -- the Command Phase (5) ----------------------------------------------------------------------------------


def roll_command_points(board: Board, dice: Dice) -> int:
    """5.i: 2d6, added up, are the Command Points of the turn; unused ones are lost (5.vi)."""
    a, b = dice.rolls(6, 2, "command points")
    board.command_points = a + b
    board.moving.blocker, board.moving.mp = None, 0
    board.note("note-command-points", seat=board.state.active_seat.name, points=a + b, dice=f"{a}+{b}")
    return a + b


def _free_address(board: Board, loc: Loc) -> bool:
    return not board.collapsed(loc) and not board.at(loc) and key(loc) not in board.judges


def check_new_blocker(board: Board, seat: str) -> Message | None:
    """5.ii: 4 Command Points, the top of the player's own pile; never in the Final Phase (12) nor
    into a fallen block (10.iii)."""
    cost = ROSTER.rules.new_blocker_cost
    if seat != board.state.active_seat.name:
        return msg("err-not-your-turn", seat=seat)
    if board.final:  # the working copy: the Judges may have come on this very board (deck.draw)
        return msg("err-final-no-new")
    block = board.state.seat(seat).block
    if block in board.fallen:
        return msg("err-block-fallen", block=block)
    if not board.piles.get(seat):
        return msg("err-pile-empty", seat=seat)
    if board.command_points < cost:
        return msg("err-no-cp", need=cost, have=board.command_points)
    squares = board.ring.data.block(block).addresses.values()
    if not any(_free_address(board, board.ring.loc(block, s.label)) for s in squares):
        return msg("err-no-free-address", block=block)
    return None


def new_blocker(board: Board, seat: str, dice: Dice, symbols: Iterable[str] = ()) -> str:
    """5.ii: pay 4 CP, take the top Blocker of the pile, place it at the address of two dice read as
    tens and units (a residential square or an Entrance Plaza of the player's block), draw a counter
    for each A / H symbol.  Returns the Blocker's id."""
    board.command_points -= ROSTER.rules.new_blocker_cost
    pile = board.piles[seat]
    bid, board.piles[seat] = pile[0], pile[1:]
    block = board.ring.data.block(board.state.seat(seat).block)
    target: Loc | None = None
    for _ in range(ADDRESS_TRIES):
        tens, units = dice.roll(6, "address tens"), dice.roll(6, "address units")
        loc = board.ring.loc(block.id, block.address_of_dice(tens, units).label)
        if _free_address(board, loc):
            target = loc
            break
        board.note("note-address-again", address=10 * tens + units, square=loc)
    if target is None:
        for number in sorted(block.addresses):
            loc = board.ring.loc(block.id, block.addresses[number].label)
            if _free_address(board, loc):
                target = loc
                break
    assert target is not None, "check_new_blocker first"
    board.set_blocker(bid, loc=str(target), face_down=False, activated=False, set_up=False, locked=False)
    board.note("note-new-blocker", seat=seat, blocker=bid, type=board.type(bid).name, square=target,
               address=board.square(target).address)
    for symbol in symbols:
        for _ in range(ROSTER.symbol(symbol).draws):
            draw_counter(board, bid, ROSTER.symbol(symbol).pool)
    return bid


def draw_counter(board: Board, bid: str, pool: str) -> str | None:
    """Draw the top counter of ``pool`` for ``bid``; one it may not keep goes back to the bottom of the
    pool and the next is drawn (roster.may_keep: Fatty and Mob never hold flying gear).  None when the
    pool holds nothing it may keep.  The counter's name is told to its owner only."""
    btype = board.type(bid)
    size = sum(1 for c in board.counters.values() if c.loc == f"pool:{pool}")
    for _ in range(size):
        cid = board.pool_top(pool)
        if cid is None:
            break
        if may_keep(btype, board.counter_type(cid)):
            board.counters[cid] = replace(board.counters[cid], loc=bid)
            board.set_blocker(bid, carried=board.blockers[bid].carried + (cid,))
            owner = board.owner(bid)
            board.note("note-drew", blocker=bid, pool=pool)
            board.note("note-drew-counter", to=(owner,), blocker=bid, counter=board.counter_type(cid).name)
            return cid
        board.to_pool(cid)
        board.note("note-redraw", blocker=bid, pool=pool)
    board.note("note-pool-empty", blocker=bid, pool=pool)
    return None


def check_activate(board: Board, bid: str) -> Message | None:
    """5.iii: only the active player's Blockers (and any Futsie), once a turn, paying the cost on the
    counter; face-down Blockers (7.ii) cannot; a Blocker whose move is over stays where it is."""
    if bid not in board.blockers:
        return msg("err-no-blocker", blocker=bid)
    b = board.blockers[bid]
    t = board.type(bid)
    active = board.state.active_seat.name
    if b.owner != active and not t.has("anyone-activates"):
        return msg("err-not-yours", blocker=bid)
    if where(board, bid) is None:
        return msg("err-not-on-map", blocker=bid)
    if b.activated:
        return msg("err-already-activated", blocker=bid)
    if b.face_down:
        return msg("err-face-down", blocker=bid)
    if bid in board.moving.done:
        return msg("err-move-over", blocker=bid)
    if board.command_points < t.cost:
        return msg("err-no-cp", need=t.cost, have=board.command_points)
    return None


def activate(board: Board, bid: str) -> None:
    """5.iii: pay the cost; the Blocker moved before it may not move again (its move is over)."""
    t = board.type(bid)
    _finish(board)
    board.command_points -= t.cost
    board.set_blocker(bid, activated=True)
    board.moving.blocker, board.moving.mp = bid, t.move
    board.note("note-activated", blocker=bid, cost=t.cost, points=board.command_points)


def _finish(board: Board) -> None:
    if board.moving.blocker is not None:
        board.moving.done.add(board.moving.blocker)
    board.moving.blocker, board.moving.mp = None, 0


def end_move(board: Board, bid: str) -> None:
    """The Blocker's movement is over for this phase (6.ii enemy reached, 6.ix flight, 6.x draw)."""
    board.moving.done.add(bid)
    if board.moving.blocker == bid:
        board.moving.blocker, board.moving.mp = None, 0


def affordable(board: Board, bid: str) -> int:
    """MP the moving Blocker can still spend: its own left plus one per Command Point (5.v)."""
    if board.moving.blocker != bid:
        return 0
    return board.moving.mp + board.command_points


def _check_mover(board: Board, bid: str, cost: int) -> Message | None:
    if bid not in board.blockers:
        return msg("err-no-blocker", blocker=bid)
    if bid in board.moving.done:
        return msg("err-move-over", blocker=bid)
    if board.moving.blocker != bid:
        return msg("err-not-activated", blocker=bid)
    if cost > affordable(board, bid):
        return msg("err-no-mp", blocker=bid, need=cost, mp=board.moving.mp, points=board.command_points)
    return None


def _pay(board: Board, bid: str, cost: int) -> None:
    """Spend MP, then 1 CP per extra MP once its own are spent (5.v)."""
    own = min(cost, board.moving.mp)
    board.moving.mp -= own
    extra = cost - own
    if extra:
        board.command_points -= extra * ROSTER.rules.extra_mp_cost
        board.note("note-extra-mp", blocker=bid, mp=extra, points=board.command_points)


def _leave_check(board: Board, bid: str, frm: Loc) -> Message | None:
    """6.ii, 8.vi: no leaving a square shared with an enemy, nor a locked close combat."""
    if board.blockers[bid].locked:
        return msg("err-locked", blocker=bid)
    if enemies_at(board, bid, frm) and not _outside(board, bid, frm):
        return msg("err-engaged", blocker=bid, square=frm)
    return None


def _engaged(board: Board, loc: Loc, there: list[str]) -> bool:
    """6.ii: Blockers of two players on the same side of the wall in ``loc``: a close combat has begun
    there ("Una volta iniziato … nessun altro Blocker potrà entrare in alcun modo nello stesso Square"),
    whoever comes, a Superhero joining a friend included."""
    sides: dict[bool, set[str]] = {}
    for o in there:
        sides.setdefault(_outside(board, o, loc), set()).add(board.owner(o))
    return any(len(owners) > 1 for owners in sides.values())


def _entry(board: Board, bid: str, to: Loc, kind: str) -> tuple[Message | None, bool]:
    """6.ii: whether ``bid`` may enter ``to`` by ``kind``; the bool says it must stop there (an enemy
    met: close combat in the next Combat Phase)."""
    if to.block in board.fallen:
        return msg("err-fallen", square=to), False
    if key(to) in board.judges:
        return msg("err-judges", square=to), False
    others = _occupants(board, to, bid)
    if not others:
        return None, False
    if any(board.blockers[o].locked for o in others) or _engaged(board, to, others):
        return msg("err-locked-square", square=to), False
    owner = board.owner(bid)
    enemies = [o for o in others if board.owner(o) != owner]
    friends = [o for o in others if board.owner(o) == owner]
    sq = board.square(to)
    if sq.is_window:  # one inside, one outside the block
        mover_out = kind == "fly" or _outside(board, bid, to)
        if all(_outside(board, o, to) != mover_out for o in others):
            return None, False
    if friends and not (board.type(bid).has("stacks-with-friend")
                        or any(board.type(f).has("stacks-with-friend") for f in friends)):
        return msg("err-occupied", square=to), False
    if enemies:
        if kind in TRANSIT:
            return None, True
        return msg("err-occupied-enemy", square=to), False
    return None, False


# -- walking (6.i, 6.v, 9.iv) -------------------------------------------------------------------------------


def walk_cost(board: Board, bid: str, frm: Loc, to: Loc) -> int:
    """6.i: sideways or down 1 MP, up 2 MP (a climber ``rules.climb_up_cost``); 6.v: entering a Civic
    square is free; 9.iv: +1 to enter and +1 to leave a collapsed square."""
    if to.level > frm.level:
        cost = ROSTER.rules.climb_up_cost if climbs(board.type(bid), board.carried(bid)) else 2
    else:
        cost = 1
    if board.square(to).kind.free:
        cost = 0
    return cost + board.collapsed(to) + board.collapsed(frm)


def _walk_error(board: Board, bid: str, frm: Loc, to: Loc) -> Message | None:
    if to not in board.ring.neighbours(frm):
        return msg("err-not-adjacent", square=to, start=frm)
    src, dst = board.square(frm), board.square(to)
    flier = _flier(board, bid)
    if dst.is_open:
        if dst.kind.code == "PW":
            if board.damage(to).transit == "severed":
                return msg("err-severed", square=to)
            if not flier and pedway_runs(board, to):
                return msg("err-pedway-runs", square=to)
        elif not dst.kind.walk and not flier:
            return msg("err-open-air", square=to)
    elif src.is_open and not src.kind.walk and not (src.kind.code == "PW" and not pedway_runs(board, frm)):
        # a flier in the air comes into a block only by a Balcony (6.ix), or a Window with a Spray Can
        spray = any(c.has("scrawl") for c in board.carried(bid))
        if dst.kind.code != "BA" and not (spray and dst.is_window):
            return msg("err-land-balcony", square=to)
    return None


# -- the moves from a square --------------------------------------------------------------------------------


def steps_from(board: Board, bid: str, frm: Loc) -> list[Step]:
    """Every single move ``bid`` could make from ``frm`` (ignoring its MP and who is moving), each
    with its cost; entering is checked (6.ii), a chute over a collapse is left out."""
    out: list[Step] = []
    leave = int(board.collapsed(frm))
    for to in board.ring.neighbours(frm):
        if _walk_error(board, bid, frm, to) is None and _entry(board, bid, to, "walk")[0] is None:
            out.append(Step("walk", to, walk_cost(board, bid, frm, to)))
    for to in board.ring.lift_stops(frm):
        if _lift_error(board, frm, to) is None and _entry(board, bid, to, "lift")[0] is None:
            out.append(Step("lift", to, 1 + leave + board.collapsed(to)))
    target = board.ring.chute_target(frm)
    if target is not None and not any(board.collapsed(s) for s in board.ring.chute_path(frm)) \
            and _entry(board, bid, target, "chute")[0] is None:
        out.append(Step("chute", target, 1 + leave))
    for kind, finder in (("skyrail", _skyrail_error), ("pedway", _pedway_error), ("megaway", _megaway_error)):
        for to in _transit_targets(board, kind, frm):
            if finder(board, bid, frm, to) is None and _entry(board, bid, to, kind)[0] is None:
                out.append(Step(kind, to, 1 + leave))
    return out


def _transit_targets(board: Board, kind: str, frm: Loc) -> tuple[Loc, ...]:
    code = board.square(frm).kind.code
    if kind == "skyrail" and code == "SS":
        return tuple(s for s in board.ring.stations() if s != frm)
    if kind == "megaway" and code == "VP":
        return tuple(s for s in board.ring.vehicle_parks() if s != frm)
    if kind == "pedway" and code == "PT":
        return (board.ring.pedway(frm).end,)
    return ()


def check_walk(board: Board, bid: str, to: Loc) -> Message | None:
    """6.i: one square left, right, up or down (never diagonally), into Open Air only flying or on the
    Tween Block Plaza or a stopped pedway; 6.ii: not into another Blocker's square."""
    frm = where(board, bid)
    if frm is None:
        return msg("err-not-on-map", blocker=bid)
    err = _walk_error(board, bid, frm, to) or _leave_check(board, bid, frm) or _entry(board, bid, to, "walk")[0]
    return err or _check_mover(board, bid, walk_cost(board, bid, frm, to))


def walk(board: Board, bid: str, to: Loc) -> None:
    frm = where(board, bid)
    assert frm is not None
    cost = walk_cost(board, bid, frm, to)
    _arrive(board, bid, frm, to, cost, "walk", stop=False)


def _arrive(board: Board, bid: str, frm: Loc, to: Loc, cost: int, kind: str, stop: bool) -> None:
    _pay(board, bid, cost)
    board.set_blocker(bid, loc=str(to), set_up=False)
    board.note(f"note-{kind}", blocker=bid, start=frm, square=to, cost=cost)
    enemies = enemies_at(board, bid, to)
    if stop or (enemies and kind in TRANSIT):
        board.note("note-close-combat-ahead", blocker=bid, square=to, enemies=", ".join(enemies))
        end_move(board, bid)


# -- lifts (6.iii) and grav-chutes (6.iv) ---------------------------------------------------------------------


def _lift_error(board: Board, frm: Loc, to: Loc) -> Message | None:
    if board.ring.lift(frm) is None:
        return msg("err-no-lift", square=frm)
    if to not in board.ring.lift_stops(frm):
        return msg("err-not-on-lift", square=to, start=frm)
    if any(board.collapsed(s) for s in board.ring.lift_shaft(frm)):
        return msg("err-lift-blocked", square=frm)
    return None


def check_lift(board: Board, bid: str, to: Loc) -> Message | None:
    """6.iii: from any square of a lift to any other of the same shaft for 1 MP; 9.iv: a collapse on
    the shaft blocks it; the arrival may hold an enemy (close combat), not a friend."""
    frm = where(board, bid)
    if frm is None:
        return msg("err-not-on-map", blocker=bid)
    err = _lift_error(board, frm, to) or _leave_check(board, bid, frm) or _entry(board, bid, to, "lift")[0]
    return err or _check_mover(board, bid, 1 + board.collapsed(frm) + board.collapsed(to))


def default_intercept(board: Board, mover: str, loc: Loc, enemies: tuple[str, ...]) -> bool:
    """The owners' standing instruction "stop enemies in my lift squares" (6.iii)."""
    return any(board.standing(board.owner(e)).intercept_lifts for e in enemies)


def ride_lift(board: Board, bid: str, to: Loc, intercept: Intercept | None = None) -> Loc:
    """6.iii: ride to ``to``; an enemy on a square passed may stop the ride there (close combat next
    Combat Phase).  Returns where the ride ended."""
    frm = where(board, bid)
    assert frm is not None
    ask = intercept or default_intercept
    for s in board.ring.lift_route(frm, to)[:-1]:
        enemies = tuple(enemies_at(board, bid, s))
        if enemies and not any(board.blockers[e].locked for e in enemies) and ask(board, bid, s, enemies):
            board.note("note-intercepted", blocker=bid, square=s, enemies=", ".join(enemies))
            _arrive(board, bid, frm, s, 1 + board.collapsed(frm), "lift", stop=True)
            return s
    _arrive(board, bid, frm, to, 1 + board.collapsed(frm) + board.collapsed(to), "lift", stop=False)
    return to


def check_chute(board: Board, bid: str) -> Message | None:
    """6.iv: from a grav-chute square straight down to the ground square below for 1 MP; the landing
    may hold an enemy (close combat), not a friend.  A collapse below is allowed: it kills (do_chute)."""
    frm = where(board, bid)
    if frm is None:
        return msg("err-not-on-map", blocker=bid)
    target = board.ring.chute_target(frm)
    if target is None:
        return msg("err-no-chute", square=frm)
    err = _leave_check(board, bid, frm)
    if err is None and not any(board.collapsed(s) for s in board.ring.chute_path(frm)):
        err = _entry(board, bid, target, "chute")[0]
    return err or _check_mover(board, bid, 1 + board.collapsed(frm))


def drop_chute(board: Board, bid: str) -> Loc | None:
    """6.iv, 9.iv: drop to the ground; a collapsed square below destroys the Blocker (None)."""
    frm = where(board, bid)
    assert frm is not None
    target = board.ring.chute_target(frm)
    assert target is not None
    if any(board.collapsed(s) for s in board.ring.chute_path(frm)):
        _pay(board, bid, 1 + board.collapsed(frm))
        board.note("note-chute-death", blocker=bid, start=frm)
        end_move(board, bid)
        board.kill(bid)
        return None
    _arrive(board, bid, frm, target, 1 + board.collapsed(frm), "chute", stop=False)
    return target


# -- Sky Rail (6.vi), Pedway (6.vii), Mega Way (6.viii) --------------------------------------------------------


def _skyrail_error(board: Board, bid: str, frm: Loc, to: Loc) -> Message | None:
    if board.square(frm).kind.code != "SS" or board.square(to).kind.code != "SS" or frm == to:
        return msg("err-not-station", square=to)
    if board.type(bid).has("no-sky-rail"):
        return msg("err-no-sky-rail-type", blocker=bid)
    if not has_train(board, frm):
        return msg("err-no-train", square=frm)
    if transit_broken(board, to):
        return msg("err-skyrail-blocked", square=to)
    if all(any(transit_broken(board, s) or s.block in board.fallen for s in r.critical)
           for r in board.ring.skyrail_routes(frm, to)):
        return msg("err-skyrail-blocked", square=to)
    return None


def _pedway_error(board: Board, bid: str, frm: Loc, to: Loc) -> Message | None:
    if board.square(frm).kind.code != "PT" or board.ring.pedway(frm).end != to:
        return msg("err-not-terminus", square=to)
    if not pedway_runs(board, frm):
        return msg("err-pedway-stopped", square=frm)
    return None


def _megaway_error(board: Board, bid: str, frm: Loc, to: Loc) -> Message | None:
    if board.square(frm).kind.code != "VP" or board.square(to).kind.code != "VP" or frm == to:
        return msg("err-not-vehicle-park", square=to)
    if board.type(bid).has("no-mega-way"):
        return msg("err-no-mega-way-type", blocker=bid)
    if all(any(transit_broken(board, s) or s.block in board.fallen for s in r.critical)
           for r in board.ring.megaway_routes(frm, to)):
        return msg("err-megaway-blocked", square=to)
    return None


_TRANSIT_ERRORS = {"skyrail": _skyrail_error, "pedway": _pedway_error, "megaway": _megaway_error}


def check_ride(board: Board, bid: str, kind: str, to: Loc) -> Message | None:
    """6.vi Sky Rail: from a station with a train to another station for 1 MP, unless a collapsed
    Sky Rail, Tubeway or station lies on both ways round; 6.vii Pedway: terminus to the facing
    terminus for 1 MP while the pedway runs; 6.viii Mega Way: Vehicle Park to Vehicle Park for 1 MP
    unless a collapsed Mega Way, Tunnel or Vehicle Park lies on both ways.  The arrival may hold an
    enemy (close combat), not a friend."""
    frm = where(board, bid)
    if frm is None:
        return msg("err-not-on-map", blocker=bid)
    err = _TRANSIT_ERRORS[kind](board, bid, frm, to) or _leave_check(board, bid, frm) \
        or _entry(board, bid, to, kind)[0]
    return err or _check_mover(board, bid, 1 + board.collapsed(frm))


def ride(board: Board, bid: str, kind: str, to: Loc) -> None:
    frm = where(board, bid)
    assert frm is not None
    if kind == "skyrail":  # the train carries the Blocker and waits at the arrival
        board.set_square(frm, transit="")
        board.set_square(to, transit=TRAIN)
    _arrive(board, bid, frm, to, 1 + board.collapsed(frm), kind, stop=False)


# -- flying (6.ix) --------------------------------------------------------------------------------------------


def flight_targets(board: Board, bid: str, frm: Loc) -> tuple[Loc, ...]:
    """6.ix: Open Air, Balcony, Tween Block Plaza of this map or an adjacent one, the station or the
    Vehicle Park of an adjacent block through an uncollapsed Tubeway / Tunnel; with a Spray Can the
    Window squares of those maps too (6.ix, 8.viii)."""
    ring = board.ring
    out = []
    for t in ring.flight_targets(frm):
        gate = ring.flight_gate(t)
        if gate and all(board.collapsed(g) for g in gate):
            continue
        out.append(t)
    if any(c.has("scrawl") for c in board.carried(bid)):
        maps = set(ring.maps_of(frm))
        for m in list(maps):
            maps.update(ring.adjacent_blocks(m))
        out += [s for m in maps for s in ring.block_squares(m)
                if board.square(s).is_window and s not in out and s != frm]
    return tuple(out)


def check_fly(board: Board, bid: str, to: Loc) -> Message | None:
    """6.ix: Superhero or flying gear, never Fatty or Mob nor with a heavy weapon; take off from a
    Balcony or an Entrance Plaza (or the Open Air it hovers in); the flight uses all the MP left."""
    frm = where(board, bid)
    if frm is None:
        return msg("err-not-on-map", blocker=bid)
    if not _flier(board, bid):
        return msg("err-cannot-fly", blocker=bid)
    src = board.square(frm)
    if not (src.kind.takeoff or src.is_open):
        return msg("err-no-takeoff", square=frm)
    if to not in flight_targets(board, bid, frm):
        return msg("err-not-flight-target", square=to)
    if board.square(to).is_window and not board.square(to).kind.land and enemies_at(board, bid, to):
        return msg("err-occupied-enemy", square=to)
    err = _leave_check(board, bid, frm) or _entry(board, bid, to, "fly")[0]
    return err or _check_mover(board, bid, max(1, board.moving.mp))


def fly(board: Board, bid: str, to: Loc) -> None:
    frm = where(board, bid)
    assert frm is not None
    cost = max(1, board.moving.mp)
    _arrive(board, bid, frm, to, cost, "fly", stop=False)
    end_move(board, bid)


# -- one move by kind ------------------------------------------------------------------------------------------


def check_move(board: Board, bid: str, kind: str, to: Loc) -> Message | None:
    """Any move of KINDS (a chute's ``to`` must be its landing square)."""
    if kind == "walk":
        return check_walk(board, bid, to)
    if kind == "lift":
        return check_lift(board, bid, to)
    if kind == "chute":
        frm = where(board, bid)
        if frm is not None and board.ring.chute_target(frm) not in (to, None):
            return msg("err-not-chute-landing", square=to)
        return check_chute(board, bid)
    if kind == "fly":
        return check_fly(board, bid, to)
    if kind in _TRANSIT_ERRORS:
        return check_ride(board, bid, kind, to)
    return msg("err-move-kind", kind=kind)


def move(board: Board, bid: str, kind: str, to: Loc, intercept: Intercept | None = None) -> Loc | None:
    """Apply a checked move; where the Blocker ended (None: destroyed)."""
    if kind == "walk":
        walk(board, bid, to)
        return to
    if kind == "lift":
        return ride_lift(board, bid, to, intercept)
    if kind == "chute":
        return drop_chute(board, bid)
    if kind == "fly":
        fly(board, bid, to)
        return to
    ride(board, bid, kind, to)
    return to


def reachable(board: Board, bid: str, points: int | None = None) -> dict[Loc, tuple[Step, ...]]:
    """The squares ``bid`` can end its move in with ``points`` MP (default: what it can still
    spend, own MP and Command Points), each with a cheapest path.  Lifts are taken as if nobody
    intercepts; a square with an enemy ends a path (6.ii); flights end it (6.ix)."""
    start = where(board, bid)
    if start is None:
        return {}
    budget = affordable(board, bid) if points is None else points
    if _leave_check(board, bid, start) is not None:
        return {}
    best: dict[Loc, int] = {start: 0}
    paths: dict[Loc, tuple[Step, ...]] = {start: ()}
    heap: list[tuple[int, int, Loc]] = [(0, 0, start)]
    tick = 0
    while heap:
        cost, _, here = heapq.heappop(heap)
        if cost > best.get(here, budget + 1):
            continue
        if here != start and enemies_at(board, bid, here):
            continue
        for s in steps_from(board, bid, here):
            c = cost + s.cost
            if c <= budget and c < best.get(s.to, budget + 1):
                best[s.to], paths[s.to] = c, paths[here] + (s,)
                tick += 1
                heapq.heappush(heap, (c, tick, s.to))
    if _flier(board, bid) and budget >= 1:
        takeoffs = [(paths[loc], best[loc]) for loc in paths
                    if board.square(loc).kind.takeoff or board.square(loc).is_open]
        # 6.ix: where a flier may go depends only on the maps it takes off from; the cheapest takeoff
        # of those maps settles every target (each one is taken or refused for reasons of its own),
        # so the dearer takeoffs of the same maps are not looked at again
        flown: set[tuple[str, ...]] = set()
        for path, cost in sorted(takeoffs, key=lambda pc: pc[1]):
            frm = path[-1].to if path else start
            maps = board.ring.maps_of(frm)
            if cost >= budget or maps in flown:
                continue
            flown.add(maps)
            for t in flight_targets(board, bid, frm):
                if t in paths or _entry(board, bid, t, "fly")[0] is not None:
                    continue
                if board.square(t).is_window and not board.square(t).kind.land and enemies_at(board, bid, t):
                    continue
                paths[t] = path + (Step("fly", t, budget - cost),)
    paths.pop(start)
    return paths


# -- counters: drawing, handing over, heavy weapons (6.x, 6.xi) -------------------------------------------


def check_pick_up(board: Board, bid: str) -> Message | None:
    """6.x: in an Armoury or Shopping Mall square, without enemies there, no activation needed;
    once a phase; never a Superhero (no equipment)."""
    loc = where(board, bid)
    if loc is None:
        return msg("err-not-on-map", blocker=bid)
    if board.owner(bid) != board.state.active_seat.name:
        return msg("err-not-yours", blocker=bid)
    pool = board.square(loc).kind.draw
    if pool is None:
        return msg("err-not-draw-square", square=loc)
    if board.type(bid).has("no-equipment"):
        return msg("err-no-equipment", blocker=bid)
    if board.collapsed(loc) or board.damage(loc).looted:
        return msg("err-draw-gone", square=loc)
    if enemies_at(board, bid, loc):
        return msg("err-enemy-here", square=loc)
    if bid in board.moving.drew:
        return msg("err-already-drew", blocker=bid)
    if board.pool_top(pool) is None:
        return msg("err-pool-empty", pool=pool)
    return None


def pick_up(board: Board, bid: str, discard: str | None = None) -> str | None:
    """6.x: draw one counter at random and end the move; over Strength, send one back at once (the
    one named, by default the one drawn).  Returns the counter kept, if any."""
    loc = where(board, bid)
    assert loc is not None
    pool = board.square(loc).kind.draw
    assert pool is not None
    board.moving.drew.add(bid)
    cid = draw_counter(board, bid, pool)
    end_move(board, bid)
    if cid is not None and len(board.blockers[bid].carried) > board.type(bid).carries:
        back = discard if discard in board.blockers[bid].carried else cid
        assert back is not None
        _drop(board, bid, back)
        return None if back == cid else cid
    return cid


def _drop(board: Board, bid: str, cid: str) -> None:
    board.set_blocker(bid, carried=tuple(c for c in board.blockers[bid].carried if c != cid))
    board.to_pool(cid)
    board.note("note-discarded", blocker=bid, counter=board.counter_type(cid).name)


def check_hand_over(board: Board, giver: str, cid: str, receiver: str) -> Message | None:
    """6.x: to a friendly Blocker beside it (left, right, above, below: never diagonally), the
    receiver being the activated Blocker moving now, which pays 1 MP; it carries at most its Strength."""
    if cid not in board.blockers[giver].carried:
        return msg("err-not-carried", blocker=giver, counter=cid)
    a, b = where(board, giver), where(board, receiver)
    if a is None or b is None or b not in board.ring.neighbours(a):
        return msg("err-not-adjacent", square=b or receiver, start=a or giver)
    if board.owner(giver) != board.owner(receiver):
        return msg("err-not-friend", blocker=receiver)
    rtype, ctype = board.type(receiver), board.counter_type(cid)
    if not may_keep(rtype, ctype):
        return msg("err-may-not-keep", blocker=receiver, counter=ctype.name)
    if len(board.blockers[receiver].carried) >= rtype.carries:
        return msg("err-full", blocker=receiver, strength=rtype.carries)
    # 6.i, 6.ix: in the air only fliers; a flier never carries a heavy weapon: no hand-over may leave the
    # giver without its flying gear, or the receiver with a heavy weapon, where only flight holds it
    kept = [board.counter_type(c) for c in board.blockers[giver].carried if c != cid]
    for bid, after, at in ((giver, kept, a), (receiver, board.carried(receiver) + [ctype], b)):
        if _flier(board, bid) and not can_fly(board.type(bid), after) and _needs_flight(board, bid, at):
            return msg("err-hand-over-grounds", blocker=bid, square=at)
    return _check_mover(board, receiver, ROSTER.rules.hand_over_mp)


def _needs_flight(board: Board, bid: str, loc: Loc) -> bool:
    """Whether only flying holds ``bid`` in ``loc``: Open Air but the Tween Block Plaza and a stopped
    pedway (6.i, 6.vii), or outside a Window (6.ix)."""
    sq = board.square(loc)
    if sq.is_open:
        return not (sq.kind.walk or (sq.kind.code == "PW" and not pedway_runs(board, loc)))
    return _outside(board, bid, loc)


def hand_over(board: Board, giver: str, cid: str, receiver: str) -> None:
    _pay(board, receiver, ROSTER.rules.hand_over_mp)
    g = board.blockers[giver]
    rest = tuple(c for c in g.carried if c != cid)
    board.set_blocker(giver, carried=rest,
                      set_up=g.set_up and any(ROSTER.counter(board.counters[c].type).heavy for c in rest))
    board.set_blocker(receiver, carried=board.blockers[receiver].carried + (cid,))
    board.counters[cid] = replace(board.counters[cid], loc=receiver)
    board.note("note-handed-over", giver=giver, receiver=receiver, counter=board.counter_type(cid).name)


def check_set_up(board: Board, bid: str) -> Message | None:
    """6.xi: setting up a carried heavy weapon costs 2 MP of the activated Blocker."""
    if bid in board.blockers and not any(c.heavy for c in board.carried(bid)):
        return msg("err-no-heavy", blocker=bid)
    if bid in board.blockers and board.blockers[bid].set_up:
        return msg("err-already-set-up", blocker=bid)
    return _check_mover(board, bid, ROSTER.rules.heavy_setup_mp)


def set_up(board: Board, bid: str) -> None:
    _pay(board, bid, ROSTER.rules.heavy_setup_mp)
    board.set_blocker(bid, set_up=True)
    board.note("note-set-up", blocker=bid)


def check_arm(board: Board, bid: str, cid: str) -> Message | None:
    """QR: a carried Demo Charge is armed in the carrier's square for 1 MP of the activated Blocker."""
    if bid not in board.blockers:
        return msg("err-no-blocker", blocker=bid)
    if cid not in board.blockers[bid].carried or not board.counter_type(cid).has("timed-charge"):
        return msg("err-not-carried", blocker=bid, counter=cid)
    return _check_mover(board, bid, ROSTER.rules.demo_arm_mp)


def arm(board: Board, bid: str, cid: str) -> None:
    """QR: the charge is left armed in the square; it explodes at the start of the next Combat Phase
    (this turn's, armed in the Command Phase: damage.explode_charges)."""
    loc = where(board, bid)
    assert loc is not None
    _pay(board, bid, ROSTER.rules.demo_arm_mp)
    board.set_blocker(bid, carried=tuple(c for c in board.blockers[bid].carried if c != cid))
    board.counters[cid] = replace(board.counters[cid], loc=str(loc), armed_turn=board.state.turn)
    board.note("note-armed", blocker=bid, square=loc)


__all__ = [
    "check_arm", "arm", "KINDS", "Step", "Intercept", "where", "enemies_at", "pedway_runs", "has_train", "place_train",
    "roll_command_points", "check_new_blocker", "new_blocker", "draw_counter", "check_activate", "activate",
    "end_move", "affordable", "walk_cost", "steps_from", "check_walk", "walk", "check_lift", "ride_lift",
    "default_intercept", "check_chute", "drop_chute", "check_ride", "ride", "flight_targets", "check_fly", "fly",
    "check_move", "move", "reachable", "check_pick_up", "pick_up", "check_hand_over", "hand_over",
    "check_set_up", "set_up",
]
