"""Defensive Fire (rulebook 7) and the Combat Phase (8): shooting, close combat, looting, scrawling,
fire-setting, fire-fighting, in that strict order (8.ii).

Pure rules over a `Board`: each action has a check returning an error `Message` (or None) and a
function that rolls (only through the `Dice` argument, each roll with its purpose) and applies it,
recording ``board.note``. Attack cards (11.iv) reach the rolls as ``bonus`` arguments. Shots at squares
(9.i) are shots too: their damage is damage.py's.

Readings of the rulebook, decided here (docs/games/blockmania.md):

- The order of 8.ii is read off the phase's notes: once an action of a later step was made, earlier
  steps are refused (``current_step``). A Board serves one Combat Phase.
- Mandatory close combats (8.ii, 8.vi) must be fought before looting: the later steps are refused
  while one is pending. A pair fights once a phase; a tie locks both and they fight again in the next
  Combat Phase of the active player.
- A heavy weapon shoots only when set up (6.xi: ``Blocker.set_up``). A Demo Charge never shoots (it is
  armed, damage.explode_charges). A Blocker sharing its square with an enemy does not shoot (8.v), in
  Defensive Fire too.
- Only the active player's Blockers attack in the Combat Phase (8.i); a Futsie (attacks-own-block) may
  attack its own player's Blockers and block; others may not choose their own block's squares as a
  target. A Missile Launcher shot at a Blocker also hits its square, whoever's block it is, and every
  Blocker in it, the one aimed at first (9.i "colpiscono contemporaneamente gli Square ed i Blocker al
  loro interno").
- A shot at a Blocker locked in close combat hits every Blocker locked in that square, with a roll
  each (8.vi); so does a Missile Launcher's shot at a square (9.i: square and Blockers), square first.
- Looting an Armoury or Mall (8.vii) draws the first 3 counters of the pool; those the looter may not
  keep or carry (6.i, QR) go back to the pools at once, the looter choosing which by ``LOOT … DISCARD``
  (6.x "può scegliere quali riporre nei contenitori"; nothing is left lying in the square). A charge
  (8.vi) cannot enter a square it could not enter by moving: a close combat begun there (locked, or two
  enemies sharing it, 6.ii), a Severed Pedway, a fallen block, Open Air without flight; nor fight a
  flier outside a Window (6.ix).
- Defensive-fire policy (Standing.defensive_fire): "nearest" fires at an orthogonal neighbour before a
  diagonal one, the likeliest kill first; "strongest" at the highest Strength first; "never" holds.
  The weapon is the one with the highest damage against Blockers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Collection, Final, Mapping

from pbem.core.dice import Dice
from pbem.core.i18n import Message, msg
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.damage import (
    DIE, TARGET, canonical, carried_types, check_square_target, enemies_in, flies, hit_square, kill, occupants,
    outside, owner, roll_kill, where,
)
from pbem.games.blockmania.roster import CounterType, close_combat_total, kill_chance, may_keep
from pbem.games.blockmania.state import POOL, Standing

POLICIES: Final = ("nearest", "strongest", "never", "ask")  # ask: a decision phase; unanswered, nearest
STEPS: Final = ("shooting", "close-combat", "looting", "scrawling", "fire-setting", "fire-fighting")  # 8.ii
SHOOTING, CLOSE_COMBAT, LOOTING, SCRAWLING, FIRE_SETTING, FIRE_FIGHTING = range(6)
#: The note each step's actions leave: it tells how far the phase has gone.
STEP_NOTES: Final = {"note-combat-shoots": SHOOTING, "note-combat-close": CLOSE_COMBAT,
                     "note-combat-loot": LOOTING, "note-combat-scrawl": SCRAWLING,
                     "note-combat-arson": FIRE_SETTING, "note-combat-firefight": FIRE_FIGHTING}
LOOT_DRAWS: Final = 3  # 8.vii
MAX_FIRES: Final = 3  # 10.i


# -- common ------------------------------------------------------------------------------------------


def active(board: Board) -> str:
    return board.state.active_seat.name


def current_step(board: Board) -> int:
    """The latest step of 8.ii an action was made in this phase (-1: none yet)."""
    return max((STEP_NOTES[n.key] for n in board.notes if n.key in STEP_NOTES), default=-1)


def _attacker_error(board: Board, bid: str, step: int) -> Message | None:
    """8.i, 8.ii: an active player's Blocker on the map, face up, in the right step."""
    if bid not in board.blockers:
        return msg("err-combat-unknown", blocker=bid)
    if where(board, bid) is None:
        return msg("err-combat-off-map", blocker=bid)
    if owner(board, bid) != active(board):
        return msg("err-combat-not-yours", blocker=bid)
    if board.blockers[bid].face_down:
        return msg("err-combat-face-down", blocker=bid)
    if board.type(bid).has("attacks-only-if-activated") and not board.blockers[bid].activated:
        return msg("err-combat-not-activated", blocker=bid)
    return _step_error(board, step)


def _step_error(board: Board, step: int) -> Message | None:
    done = current_step(board)
    if done > step:
        return msg("err-combat-order", step=STEPS[step], done=STEPS[done])
    if step > CLOSE_COMBAT and pending_close_combats(board):
        a, b = pending_close_combats(board)[0]
        return msg("err-combat-close-pending", blocker=a, enemy=b)
    return None


def _face_down(board: Board, bid: str) -> None:
    board.set_blocker(bid, face_down=True)


def _victims(board: Board, target: str) -> list[str]:
    """8.vi: fire at a square where Blockers are locked in close combat hits all of them."""
    loc = where(board, target)
    assert loc is not None
    if not board.blockers[target].locked:
        return [target]
    return [target] + [b for b in occupants(board, loc) if b != target and board.blockers[b].locked]


def _hostile(board: Board, attacker: str, target: str) -> bool:
    """Another player's Blocker, or any for a Blocker that may attack its own block (QR: Futsie)."""
    return owner(board, attacker) != owner(board, target) or board.type(attacker).has("attacks-own-block")


def standing(board: Board, seat: str) -> Standing:
    names = [s.name for s in board.state.seats]
    i = names.index(seat)
    return board.state.standing[i] if i < len(board.state.standing) else Standing()


# -- 7. Defensive Fire -------------------------------------------------------------------------------


def defensive_weapons(board: Board, bid: str) -> list[str]:
    """7.i: the carried weapons that shoot at range 1 or more (heavy ones only set up, 6.xi)."""
    out = []
    for cid in board.blockers[bid].carried:
        ct = board.counter_type(cid)
        if _shoots(ct) and ct.hits_blockers and (ct.range or 0) >= 1 and (not ct.heavy or board.blockers[bid].set_up):
            out.append(cid)
    return out


def _shoots(ct: CounterType) -> bool:
    return ct.shoots and not ct.has("timed-charge")


def check_defensive_fire(board: Board, shooter: str, target: str, weapon: str) -> Message | None:
    """7.i: another player's face-up Blocker shoots one weapon at an active player's Blocker one square
    away: orthogonally, or diagonally between Open Air and Open Air or Window."""
    for b in (shooter, target):
        if b not in board.blockers:
            return msg("err-combat-unknown", blocker=b)
        if where(board, b) is None:
            return msg("err-combat-off-map", blocker=b)
    if owner(board, shooter) == active(board):
        return msg("err-defensive-own-turn", blocker=shooter)
    if owner(board, target) != active(board):
        return msg("err-defensive-target", blocker=target)
    if board.blockers[shooter].face_down:
        return msg("err-combat-face-down", blocker=shooter)
    if enemies_in(board, shooter):
        return msg("err-combat-engaged", blocker=shooter)
    s, t = where(board, shooter), where(board, target)
    assert s is not None and t is not None
    if weapon not in defensive_weapons(board, shooter):
        return msg("err-combat-weapon", blocker=shooter, weapon=weapon)
    if s == t:
        return msg("err-defensive-not-adjacent", blocker=shooter, target=target)
    if not board.ring.defensive_fire_adjacent(s, t):
        reach = min(_ambush(board, shooter), board.counter_type(weapon).range or 0)
        found = board.ring.fire_range(s, t, board.fallen, max_range=reach) if reach > 1 else None
        if found is None or found > reach:
            return msg("err-defensive-not-adjacent", blocker=shooter, target=target)
    return None


def _ambush(board: Board, bid: str) -> int:
    """The Ambush card's range for ``bid`` (11.iv; deck.defensive_range), 1 without it."""
    return max([1] + [e.amount for e in board.card_effects if e.attack == "defensive-range" and e.blocker == bid])


def defensive_fire(board: Board, shooter: str, target: str, weapon: str, dice: Dice, bonus: int = 0) -> list[str]:
    """7.ii: 1d6 + the weapon's damage (+1 if the target is in Civic or Open Air) - the target's
    Strength >= 6 eliminates it; the shooter is turned face down whatever the result. Returns the
    Blockers killed."""
    ct = board.counter_type(weapon)
    board.note("note-defensive-fire", blocker=shooter, target=target, weapon=ct.name)
    killed = [v for v in _victims(board, target)
              if roll_kill(board, v, ct.damage_against_blocker(), dice, f"defensive fire by {shooter}", bonus)]
    _face_down(board, shooter)
    return killed


def choose_defensive_fire(board: Board, shooter: str, policy: str) -> tuple[str, str] | None:
    """(target, weapon) the standing instruction ``policy`` picks for ``shooter``, or None."""
    if policy not in POLICIES:
        raise ValueError(f"unknown defensive fire policy {policy!r}")
    if policy == "never":
        return None
    if policy == "ask":
        policy = "nearest"
    weapons = sorted(defensive_weapons(board, shooter),
                     key=lambda c: (-board.counter_type(c).damage_against_blocker(), c))
    if not weapons:
        return None
    weapon = weapons[0]
    damage = board.counter_type(weapon).damage_against_blocker()
    s = where(board, shooter)
    if s is None:
        return None
    found = []
    for t in sorted(board.on_map(active(board))):
        if check_defensive_fire(board, shooter, t, weapon) is not None:
            continue
        tl = where(board, t)
        assert tl is not None
        diagonal = tl not in board.ring.neighbours(s)
        chance = kill_chance(damage, board.type(t).strength, board.square(tl).exposed)
        strength = board.type(t).strength
        key = (diagonal, -chance, t) if policy == "nearest" else (-strength, diagonal, -chance, t)
        found.append((key, t))
    if not found:
        return None
    return min(found)[1], weapon


def defensive_fire_phase(board: Board, dice: Dice, policies: Mapping[str, str] | None = None) -> None:
    """7: every other player's face-up Blocker with a weapon fires per its player's standing instruction
    (``policies`` by seat, else ``Standing.defensive_fire``), players in turn order after the active one,
    Blockers by id."""
    seats = [s.name for s in board.state.seats]
    i = seats.index(active(board))
    for seat in seats[i + 1:] + seats[:i]:
        policy = (policies or {}).get(seat, standing(board, seat).defensive_fire)
        for bid in sorted(board.on_map(seat)):
            if where(board, bid) is None or board.blockers[bid].face_down:
                continue
            choice = choose_defensive_fire(board, bid, policy)
            if choice is not None:
                defensive_fire(board, bid, choice[0], choice[1], dice)


# -- 8.v Shooting (and 9.i shots at squares) ---------------------------------------------------------


def check_shoot(board: Board, shooter: str, weapon: str, target: str | None = None,
                square: Loc | None = None) -> Message | None:
    """8.iii-8.v, 9.i: one weapon, at a Blocker (``target``) or a square (``square``) within the
    weapon's range along a line of fire (``Ring.fire_range``, fallen blocks as Open Air)."""
    if (target is None) == (square is None):
        return msg("err-combat-one-target")
    err = _attacker_error(board, shooter, SHOOTING)
    if err is not None:
        return err
    if enemies_in(board, shooter):
        return msg("err-combat-engaged", blocker=shooter)
    if weapon not in board.blockers[shooter].carried:
        return msg("err-combat-weapon", blocker=shooter, weapon=weapon)
    ct = board.counter_type(weapon)
    if not _shoots(ct):
        return msg("err-combat-weapon", blocker=shooter, weapon=weapon)
    if ct.heavy and not board.blockers[shooter].set_up:
        return msg("err-combat-not-set-up", blocker=shooter, weapon=ct.name)
    here = where(board, shooter)
    assert here is not None
    if target is not None:
        if target not in board.blockers or where(board, target) is None:
            return msg("err-combat-off-map", blocker=target)
        if not ct.hits_blockers:
            return msg("err-combat-weapon", blocker=shooter, weapon=weapon)
        if not _hostile(board, shooter, target):
            return msg("err-combat-own", blocker=target)
        aim = where(board, target)
    else:
        assert square is not None
        aim = canonical(board, square)
        err = check_square_target(board, aim, ct)
        if err is not None:
            return err
        own = board.state.seat(owner(board, shooter)).block
        if own in board.ring.maps_of(aim) and not board.type(shooter).has("attacks-own-block"):
            return msg("err-combat-own-block", square=aim)
    assert aim is not None
    if ct.targets == "own-square":
        return None if aim == here else msg("err-combat-own-square", weapon=ct.name)
    if aim == here:
        # 6.ix: the enemy that comes into the Window "può sparare al Blocker volante" outside it (and the
        # flier back): through the window, at the shortest range there is
        if target is not None and outside(board, target, here) != outside(board, shooter, here):
            return None
        return msg("err-combat-no-line", blocker=shooter, square=aim)
    rng = board.ring.fire_range(here, aim, fallen=board.fallen, max_range=ct.range)
    if rng is None:
        return msg("err-combat-no-line", blocker=shooter, square=aim)
    return None


def shoot(board: Board, shooter: str, weapon: str, dice: Dice, target: str | None = None,
          square: Loc | None = None, bonus: int = 0, flame: bool = True) -> list[str]:
    """8.v: 1d6 + damage (+1 Civic or Open Air) - Strength >= 6 kills; at a square, 9.i (damage.py).
    A Missile Launcher hits the square and the Blockers in it, square first; a Flamer puts a Fire in
    the target square if ``flame`` (docs). The shooter is turned face down. Returns the Blockers killed."""
    ct = board.counter_type(weapon)
    aim = canonical(board, square) if square is not None else where(board, target or "")
    assert aim is not None
    board.note("note-combat-shoots", blocker=shooter, weapon=ct.name, target=target or aim)
    by = f"{shooter} shoots"
    killed: list[str] = []
    if square is not None or ct.targets == "square-and-blocker":
        if check_square_target(board, aim, ct) is None:
            before = set(board.on_map())
            hit_square(board, aim, ct, dice, by, bonus)
            killed.extend(sorted(before - set(board.on_map())))
    if ct.targets == "square-and-blocker":
        # 9.i: "colpiscono contemporaneamente gli Square ed i Blocker al loro interno": every Blocker
        # there, not only the one aimed at (a stacked friend, a flier outside the Window, a close combat)
        victims = list(dict.fromkeys(([target] if target else []) + occupants(board, aim)))
    elif target is not None:
        victims = _victims(board, target) if where(board, target) is not None else []
    else:
        victims = []
    for v in victims:
        if where(board, v) is not None and roll_kill(board, v, ct.damage_against_blocker(), dice, by, bonus):
            killed.append(v)
    if flame and ct.has("places-fire"):
        _flame(board, aim)
    _face_down(board, shooter)
    return killed


def _flame(board: Board, loc: Loc) -> None:
    """Flamer (ours): one Fire in the target square (not Open Air, not collapsed, at most 3)."""
    if board.square(loc).is_open or board.collapsed(loc) or board.damage(loc).fires >= MAX_FIRES:
        return
    board.set_square(loc, fires=board.damage(loc).fires + 1)
    board.note("note-combat-fire-set", square=loc)


# -- 8.vi Close combat -------------------------------------------------------------------------------


def _fought(board: Board) -> set[frozenset[str]]:
    out = set()
    for n in board.notes:
        if n.key == "note-combat-close":
            args = dict(n.args)
            out.add(frozenset((args["blocker"], args["enemy"])))
    return out


def pending_close_combats(board: Board) -> list[tuple[str, str]]:
    """8.ii, 8.vi: (active Blocker, enemy) sharing a square and not yet fought this phase."""
    fought = _fought(board)
    out = []
    for bid in sorted(board.on_map(active(board))):
        for enemy in enemies_in(board, bid):
            if frozenset((bid, enemy)) not in fought:
                out.append((bid, enemy))
    return out


def check_close_combat(board: Board, attacker: str, defender: str) -> Message | None:
    """8.vi: mandatory in a shared square (face down or not); a charge from an orthogonally adjacent
    square by a face-up Blocker into the enemy's square."""
    for b in (attacker, defender):
        if b not in board.blockers:
            return msg("err-combat-unknown", blocker=b)
        if where(board, b) is None:
            return msg("err-combat-off-map", blocker=b)
    if owner(board, attacker) != active(board):
        return msg("err-combat-not-yours", blocker=attacker)
    if not _hostile(board, attacker, defender) or attacker == defender:
        return msg("err-combat-own", blocker=defender)
    err = _step_error(board, CLOSE_COMBAT)
    if err is not None:
        return err
    if frozenset((attacker, defender)) in _fought(board):
        return msg("err-combat-fought", blocker=attacker, enemy=defender)
    a, d = where(board, attacker), where(board, defender)
    assert a is not None and d is not None
    if outside(board, defender, d) != outside(board, attacker, d):
        # 6.ix: a flier outside a Window "può sparare … ma non ingaggiarlo in un Combattimento Ravvicinato"
        return msg("err-combat-outside", blocker=defender if outside(board, defender, d) else attacker, square=d)
    if a == d:
        return None
    # a charge
    err = _attacker_error(board, attacker, CLOSE_COMBAT)
    if err is not None:
        return err
    if enemies_in(board, attacker) or board.blockers[attacker].locked:
        return msg("err-combat-engaged", blocker=attacker)
    if d not in board.ring.neighbours(a):
        return msg("err-combat-not-adjacent", blocker=attacker, enemy=defender)
    if any(board.blockers[b].locked for b in occupants(board, d)) or enemies_in(board, defender):
        # 6.ii: once a close combat has begun "nessun altro Blocker potrà entrare in alcun modo nello
        # stesso Square", locked by a tie (8.vi) or still to be fought this phase
        return msg("err-combat-locked-square", square=d)
    kind = board.square(d).kind
    if d.block in board.fallen or board.damage(d).transit == "severed":
        return msg("err-combat-no-entry", square=d)
    if board.square(d).is_open and not kind.walk and not flies(board, attacker):
        return msg("err-combat-no-entry", square=d)
    return None


def close_combat(board: Board, attacker: str, defender: str, dice: Dice, bonus: int = 0,
                 enemy_bonus: int = 0) -> str | None:
    """8.vi: a charger moves into the defender's square (no MP); both roll 1d6 + Strength + every
    non-heavy weapon carried (+ the Fatty's bonus); the lower is eliminated, a tie locks both. The
    active player's Blocker is turned face down. Returns the winner, None on a tie."""
    d = where(board, defender)
    assert d is not None
    charge = where(board, attacker) != d
    if charge:
        board.set_blocker(attacker, loc=str(d))
    totals = []
    for bid, extra in ((attacker, bonus), (defender, enemy_bonus)):
        roll = dice.roll(DIE, f"close combat in {d}: {bid}")
        totals.append((roll, roll + close_combat_total(board.type(bid), carried_types(board, bid)) + extra))
    (ra, ta), (rd, td) = totals
    result = attacker if ta > td else defender if td > ta else None
    board.note("note-combat-close", blocker=attacker, enemy=defender, charge=charge, roll=ra, total=ta,
               enemy_roll=rd, enemy_total=td, result=result or "locked")
    _face_down(board, attacker)
    if result is None:
        board.set_blocker(attacker, locked=True)
        board.set_blocker(defender, locked=True)
    else:
        kill(board, defender if result == attacker else attacker, "close-combat")
    return result


# -- 8.vii Looting -----------------------------------------------------------------------------------


def check_loot(board: Board, bid: str) -> Message | None:
    """8.vii: a face-up Blocker in a Bank, Armoury or Shopping Mall square not yet looted."""
    err = _attacker_error(board, bid, LOOTING)
    if err is not None:
        return err
    if board.type(bid).has("no-looting"):
        return msg("err-combat-cannot", blocker=bid, action="looting")
    loc = where(board, bid)
    assert loc is not None
    if enemies_in(board, bid):
        return msg("err-combat-engaged", blocker=bid)
    if not board.square(loc).kind.loot or board.collapsed(loc):
        return msg("err-loot-square", square=loc)
    if board.damage(loc).looted:
        return msg("err-loot-done", square=loc)
    return None


def loot(board: Board, bid: str, dice: Dice, bonus: int = 0, discard: tuple[str, ...] = ()) -> bool:
    """8.vii: 1d6 + Strength >= 6 puts a Looted marker; an Armoury or Mall looted gives 3 counters of
    its pool (``discard``: what the looter would rather put back, see ``_draw``). Face down whatever
    the result."""
    loc = where(board, bid)
    assert loc is not None
    roll = dice.roll(DIE, f"{bid} loots {loc}")
    total = roll + board.type(bid).strength + bonus
    ok = total >= TARGET
    board.note("note-combat-loot", blocker=bid, square=loc, roll=roll, total=total, result="done" if ok else "failed")
    if ok:
        board.set_square(loc, looted=True)
        pool = board.square(loc).kind.draw
        if pool is not None:
            _draw(board, bid, pool, LOOT_DRAWS, discard)
    _face_down(board, bid)
    return ok


def _draw(board: Board, bid: str, pool: str, count: int, discard: tuple[str, ...]) -> None:
    """8.vii, 6.x: the looter takes the first ``count`` counters of the pool; over its Strength it "deve
    immediatamente scartare quelle in eccesso, ma può scegliere quali riporre nei contenitori": the
    surplus goes back to the pools, those named in ``discard`` first (counters it carried: the ones
    drawn are unknown when the order is written), then the last drawn. A counter it may never hold (a
    Fatty's or a Mob's flying gear, QR) goes back at once."""
    drawn = [cid for cid, c in board.counters.items() if c.loc == f"{POOL}:{pool}"][:count]
    bt = board.type(bid)
    taken: list[str] = []
    for cid in drawn:
        board.note("note-combat-drawn", blocker=bid, counter=board.counter_type(cid).name, to=(owner(board, bid),))
        if may_keep(bt, board.counter_type(cid)):
            board.counters[cid] = replace(board.counters[cid], loc=bid)
            board.set_blocker(bid, carried=board.blockers[bid].carried + (cid,))
            taken.append(cid)
        else:
            board.to_pool(cid)
            board.note("note-combat-put-back", blocker=bid, counter=board.counter_type(cid).name)
    carried = board.blockers[bid].carried
    surplus = len(carried) - bt.carries
    if surplus <= 0:
        return
    named = [c for c in dict.fromkeys(discard) if c in carried]
    for cid in (named + [c for c in reversed(taken) if c not in named])[:surplus]:
        put_back(board, bid, cid, fresh=taken)


def put_back(board: Board, bid: str, cid: str, fresh: Collection[str] = ()) -> None:
    """A carried counter back into its container (6.x); the Blocker stays set up only if it still
    carries a heavy weapon it had before (6.xi: one just drawn "viene posta capovolta", not set up)."""
    rest = tuple(c for c in board.blockers[bid].carried if c != cid)
    set_up = board.blockers[bid].set_up and any(board.counter_type(c).heavy for c in rest if c not in fresh)
    board.set_blocker(bid, carried=rest, set_up=set_up)
    board.to_pool(cid)
    board.note("note-combat-put-back", blocker=bid, counter=board.counter_type(cid).name)


# -- 8.ix Scrawling ----------------------------------------------------------------------------------


def check_scrawl(board: Board, bid: str) -> Message | None:
    """8.ix: a face-up Blocker with a Spray Can, in a square without a Scrawl; on a Window only if it
    flies. Open Air has no walls (ours)."""
    err = _attacker_error(board, bid, SCRAWLING)
    if err is not None:
        return err
    if not any(ct.has("scrawl") for ct in carried_types(board, bid)):
        return msg("err-scrawl-no-can", blocker=bid)
    loc = where(board, bid)
    assert loc is not None
    if enemies_in(board, bid):
        return msg("err-combat-engaged", blocker=bid)
    sq = board.square(loc)
    if sq.is_open or board.collapsed(loc):
        return msg("err-scrawl-square", square=loc)
    if sq.is_window and not flies(board, bid):
        return msg("err-scrawl-window", blocker=bid)
    if board.damage(loc).scrawled:
        return msg("err-scrawl-done", square=loc)
    return None


def scrawl(board: Board, bid: str) -> None:
    """8.ix: no roll: a Scrawl marker; face down."""
    loc = where(board, bid)
    assert loc is not None
    board.set_square(loc, scrawled=True)
    board.note("note-combat-scrawl", blocker=bid, square=loc)
    _face_down(board, bid)


# -- 8.viii Fire-setting -----------------------------------------------------------------------------


def check_set_fire(board: Board, bid: str) -> Message | None:
    """8.viii: a face-up Blocker sets a fire in its own square (not Open Air, not collapsed, 10.i: at
    most 3 Fires)."""
    err = _attacker_error(board, bid, FIRE_SETTING)
    if err is not None:
        return err
    if board.type(bid).has("no-arson"):
        return msg("err-combat-cannot", blocker=bid, action="fire-setting")
    loc = where(board, bid)
    assert loc is not None
    if enemies_in(board, bid):
        return msg("err-combat-engaged", blocker=bid)
    if board.square(loc).is_open or board.collapsed(loc):
        return msg("err-fire-square", square=loc)
    if board.damage(loc).fires >= MAX_FIRES:
        return msg("err-fire-full", square=loc)
    return None


def set_fire(board: Board, bid: str, dice: Dice, bonus: int = 0) -> bool:
    """8.viii: 1d6 + Strength >= 6 puts a Fire marker; face down whatever the result."""
    loc = where(board, bid)
    assert loc is not None
    roll = dice.roll(DIE, f"{bid} sets a fire in {loc}")
    total = roll + board.type(bid).strength + bonus
    ok = total >= TARGET
    board.note("note-combat-arson", blocker=bid, square=loc, roll=roll, total=total, result="done" if ok else "failed")
    if ok:
        board.set_square(loc, fires=board.damage(loc).fires + 1)
    _face_down(board, bid)
    return ok


# -- 8.x Fire-fighting -------------------------------------------------------------------------------


def check_fight_fire(board: Board, bid: str, square: Loc) -> Message | None:
    """8.x: a face-up Blocker (never a Fatty) on a fire-control square, at an adjacent square (diagonals
    too) with Fire."""
    err = _attacker_error(board, bid, FIRE_FIGHTING)
    if err is not None:
        return err
    if board.type(bid).has("no-fire-fighting"):
        return msg("err-combat-cannot", blocker=bid, action="fire-fighting")
    loc = where(board, bid)
    assert loc is not None
    if enemies_in(board, bid):
        return msg("err-combat-engaged", blocker=bid)
    if not board.square(loc).fire_control:
        return msg("err-firefight-control", blocker=bid)
    target = canonical(board, square)
    if target not in board.ring.neighbours8(loc):
        return msg("err-firefight-adjacent", square=target)
    if board.damage(target).fires < 1:
        return msg("err-firefight-no-fire", square=target)
    return None


def fight_fire(board: Board, bid: str, square: Loc, dice: Dice, bonus: int = 0) -> int:
    """8.x: 1d6 + Strength per Fire marker in the square: each 6 or more removes one. Face down.
    Returns the Fires removed. ``bonus`` (Fire Drill) adds to each die."""
    target = canonical(board, square)
    fires = board.damage(target).fires
    removed = 0
    rolls = []
    for i in range(fires):
        roll = dice.roll(DIE, f"{bid} fights Fire {i + 1} of {fires} in {target}")
        rolls.append(str(roll))
        if roll + board.type(bid).strength + bonus >= TARGET:
            removed += 1
    board.set_square(target, fires=fires - removed)
    board.note("note-combat-firefight", blocker=bid, square=target, rolls=" ".join(rolls), removed=removed)
    _face_down(board, bid)
    return removed


__all__ = [
    "POLICIES", "STEPS", "current_step", "defensive_weapons", "check_defensive_fire", "defensive_fire",
    "choose_defensive_fire", "defensive_fire_phase", "check_shoot", "shoot", "pending_close_combats",
    "check_close_combat", "close_combat", "check_loot", "loot", "put_back", "check_scrawl", "scrawl", "check_set_fire",
    "set_fire", "check_fight_fire", "fight_fire",
]
