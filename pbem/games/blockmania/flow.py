"""The course of a game of Block Mania by mail: set-up (3), the player turns of 4 (Command, Defensive
Fire, Combat, End) in the order the blocks were laid, the Final Phase (12) and the ranking.

Stages (``State.stage``): ``setup-draw`` (the server: blocks, order, piles, pools, cards), ``setup``
(each player in turn places his first four Blockers), then for the active player ``command`` (as many
sheets as he likes: CONTINUE keeps the phase open), ``defensive-fire`` (a decision phase, only for the
other players who asked to choose: ``DEFENSIVE FIRE ASK``; everyone else fires by his standing
instruction at once), ``combat``; the End Phase is played by the server right after the combat, and
the next player's Command Phase opens with his Command Points rolled.  A combat phase with no Blocker
of the active player on the map is passed over.  ``over`` when the game has ended (12.iii, 10.iii).

Every phase's notes are kept in ``State.log`` (turn, seat, phase), the report's source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from pbem.core.dice import Dice
from pbem.errors import RulesError
from pbem.games.blockmania import combat, damage, deck, fire, movement
from pbem.games.blockmania.board import Board, Moving
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.damage import where
from pbem.games.blockmania.orders import STANDING, Fire, Hold, Item, Order, Play
from pbem.games.blockmania.orders import parse_text
from pbem.games.blockmania.plan import Runner, _best_weapon, fire_shot, hazard_askers
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.state import PILE, READY, Blocker, Counter, PhaseLog, Result, Seat, Standing, State

#: 3: the blocks of each box; a game of two uses the base box (Block Mania), of three or four both.
BASE_EDITION = "block-mania"
#: The log keeps the phases of the last rounds only (a report covers one round of the ring).
LOG_TURNS = 8


def awaiting(state: State) -> tuple[str, ...]:
    if state.stage in ("setup", "command", "combat"):
        return (state.active_seat.name,)
    if state.stage == "defensive-fire":
        return asking(state)
    if state.stage == "hazards":
        board = Board(replace(state, stage="command"))
        return tuple(hazard_askers(board, state.mover))
    return ()


def asking(state: State) -> tuple[str, ...]:
    """7: the other players who asked to choose their defensive fire and have a Blocker able to fire."""
    board = Board(state)
    out = []
    for seat in _after(state, state.active_seat.name):
        if board.standing(seat).defensive_fire != "ask":
            continue
        if any(combat.choose_defensive_fire(board, b, "nearest") is not None for b in _ready_to_fire(board, seat)):
            out.append(seat)
    return tuple(out)


def _after(state: State, seat: str) -> list[str]:
    names = [s.name for s in state.seats]
    i = names.index(seat)
    return names[i + 1:] + names[:i]


def _ready_to_fire(board: Board, seat: str) -> list[str]:
    return [b for b in sorted(board.on_map(seat)) if not board.blockers[b].face_down and where(board, b) is not None]


def _log(board: Board, seat: str, phase: str) -> None:
    """The notes so far become the log of ``phase`` (read at once by the rules that look back over the
    turn: 10.iii, 12.ii); the board starts the next phase with none."""
    entry = PhaseLog(board.state.turn, seat, phase, tuple(board.notes))
    board.state = replace(board.state, log=board.state.log + (entry,))
    board.notes = []


def _frozen(board: Board, **changes: object) -> State:
    state = board.frozen(**changes)
    return replace(state, log=tuple(p for p in state.log if p.turn >= state.turn - LOG_TURNS))


# -- set-up (3) -----------------------------------------------------------------------------------------------


def _draw(items: list[str], dice: Dice, purpose: str) -> str:
    """One of ``items`` at random: a die over those left (the last without a roll)."""
    i = dice.roll(len(items), purpose) - 1 if len(items) > 1 else 0
    return items.pop(i)


def setup_draw(state: State, dice: Dice) -> State:
    """3: each player takes a block at random; a die each orders the maps (highest first, ties rolled
    again); Blockers shuffled face down per player, Armoury and Hardware counters into two pools; the
    first four Blockers of each pile drawn for placing; the deck shuffled, set-aside cards, 3 cards each."""
    players = len(state.seats)
    keys = [b.key for b in ROSTER.blocks if players > 2 or b.edition == BASE_EDITION]
    blocks = {s.name: _draw(keys, dice, f"block for {s.name}") for s in state.seats}
    order = _order(list(blocks), dice)
    seats: list[Seat] = []
    blockers: list[Blocker] = []
    for name in order:
        pile = [(t.key, symbols) for t, symbols in ROSTER.block(blocks[name]).pile()]
        shuffled = [pile.pop(dice.roll(len(pile), f"shuffle {name}'s pile") - 1 if len(pile) > 1 else 0)
                    for _ in range(len(pile))]
        ids = [f"{name}-{i + 1}" for i in range(len(shuffled))]
        first = ROSTER.rules.starting_blockers
        for i, (btype, symbols) in enumerate(shuffled):
            blockers.append(Blocker(ids[i], btype, name, READY if i < first else PILE, tuple(symbols)))
        seats.append(Seat(name, blocks[name], pile=tuple(ids[first:])))
    counters: list[Counter] = []
    for pool in ("armoury", "hardware"):
        # ids numbered before the shuffle, in the roster's order: an id tells nothing of the pool's order
        used: dict[str, int] = {}
        kinds: dict[str, str] = {}
        for c in ROSTER.pool(pool, players):
            used[c.key] = used.get(c.key, 0) + 1
            kinds[f"{c.key}-{used[c.key]}"] = c.key
        ids = list(kinds)
        while ids:
            cid = _draw(ids, dice, f"shuffle the {pool} pool")
            counters.append(Counter(cid, kinds[cid], f"pool:{pool}"))
    new = replace(state, seats=tuple(seats), blockers=tuple(blockers), counters=tuple(counters),
                  standing=tuple(Standing() for _ in seats), stage="setup", active=0, turn=0)
    board = Board(new)
    board.note("note-blocks", ring=", ".join(f"{s.name}:{s.block}" for s in seats))
    deck.deal(board, dice)
    for s in seats:
        ready = [b.id for b in blockers if b.owner == s.name and b.loc == READY]
        board.note("note-ready", to=(s.name,), seat=s.name,
                   blockers=", ".join(f"{b} ({board.type(b).name})" for b in ready))
    _log(board, seats[0].name, "setup-draw")
    return _frozen(board)


def _order(names: list[str], dice: Dice) -> list[str]:
    """3: a die each, highest first; tied players roll again among themselves."""
    rolls = {n: dice.roll(6, f"map order: {n}") for n in names}
    out: list[str] = []
    for value in sorted(set(rolls.values()), reverse=True):
        tied = [n for n in names if rolls[n] == value]
        out += tied if len(tied) == 1 else _order(tied, dice)
    return out


# -- the phases ----------------------------------------------------------------------------------------------


def play(state: State, sheets: Mapping[str, Sequence[Order]], dice: Dice) -> State:
    """Resolve the current stage with the awaited seats' orders."""
    if state.stage == "setup-draw":
        return setup_draw(state, dice)
    board = Board(state)
    seat = state.active_seat.name
    if state.stage == "setup":
        run(board, seat, sheets.get(seat, ()), dice)
        _log(board, seat, "setup")
        nxt = state.active + 1
        if nxt < len(state.seats):
            board.state = replace(board.state, active=nxt)
            return _frozen(board)
        return _begin_turn(board, 0, dice, first=True)
    if state.stage == "command":
        runner = run(board, seat, sheets.get(seat, ()), dice)
        return _command_done(board, runner, dice)
    if state.stage == "hazards":
        for other in awaiting(state):
            run(board, other, sheets.get(other, ()), dice)
        _log(board, seat, "hazards")
        board.state = replace(board.state, stage="command", mover="", passed=(), pending=())
        board.passed_before = {}
        items, _ = parse_text("\n".join(state.pending))
        runner = Runner(board, seat, dice, planning=False)
        runner.checked.add(state.mover)
        runner.command(items)
        return _command_done(board, runner, dice)
    if state.stage == "defensive-fire":
        for other in awaiting(state):
            run(board, other, [o for o in sheets.get(other, ()) if isinstance(o, (Play, *STANDING))], dice)
        choices = {s: tuple(o for o in sheets.get(s, ()) if isinstance(o, (Fire, Hold))) for s in sheets}
        defensive_fire(board, dice, choices)
        _log(board, seat, "defensive-fire")
        return _open_combat(board, dice)
    if state.stage == "combat":
        run(board, seat, sheets.get(seat, ()), dice)
        _log(board, seat, "combat")
        return _end_phase(board, dice)
    raise RulesError(f"nothing to resolve in stage {state.stage!r}")


def _command_done(board: Board, runner: Runner, dice: Dice) -> State:
    """After the active player's orders: paused for the hazard decisions (11.iii), open for his next
    sheet (CONTINUE), or over."""
    seat = board.state.active_seat.name
    if runner.paused is not None:
        mover = runner.paused
        askers = hazard_askers(board, mover)
        board.note("note-hazards-asked", blocker=mover, seats=", ".join(askers))
        passed = tuple(str(loc) for loc in deck.passed(board, mover))
        _log(board, seat, "command")
        board.state = replace(board.state, stage="hazards", mover=mover, passed=passed,
                              pending=tuple(i.order.canonical() for i in runner.pending))
        return _frozen(board)
    if runner.more:
        # 11.iii: the Blocker that moved last can still be struck where it passed until another moves
        last = deck.last_mover(board)
        passed = tuple(str(loc) for loc in deck.passed(board, last)) if last else ()
        _log(board, seat, "command")
        board.state = replace(board.state, mover=last or "", passed=passed)
        return _frozen(board)
    _log(board, seat, "command")
    return _after_command(board, dice)


def run(board: Board, seat: str, orders: Sequence[Order], dice: Dice) -> Runner:
    items = [Item(n + 1, o.canonical(), o) for n, o in enumerate(orders)]
    return Runner(board, seat, dice, planning=False).run(items)


def _after_command(board: Board, dice: Dice) -> State:
    """End of the Command Phase: the Defensive Fire, asked or by standing instruction (7)."""
    board.moving.blocker, board.moving.mp = None, 0
    board.state = replace(board.state, stage="defensive-fire", mover="", passed=())
    board.passed_before = {}
    state = board.frozen()
    if asking(state):
        return _frozen(board)
    defensive_fire(board, dice, {})
    if board.notes:
        _log(board, board.state.active_seat.name, "defensive-fire")
    return _open_combat(board, dice)


def defensive_fire(board: Board, dice: Dice, choices: Mapping[str, Sequence[Order]]) -> None:
    """7: the other players, in turn order, fire with their face-up Blockers at the active player's Blockers
    one square away: as they wrote (FIRE, HOLD) when asked, else by their standing instruction."""
    active = board.state.active_seat.name
    for seat in _after(board.state, active):
        policy = board.standing(seat).defensive_fire
        written = {o.shooter: o for o in choices.get(seat, ())}  # type: ignore[union-attr]
        for bid in _ready_to_fire(board, seat):
            if where(board, bid) is None or board.blockers[bid].face_down:
                continue
            order = written.get(bid)
            if isinstance(order, Hold):
                continue
            shot: tuple[str, str] | None = None
            if isinstance(order, Fire):
                weapon = order.weapon or _best_weapon(board, bid, order.target) or ""
                if weapon and combat.check_defensive_fire(board, bid, order.target, weapon) is None:
                    shot = (order.target, weapon)
                else:
                    board.note("note-order-skipped", seat=seat, order=order.canonical())
            if shot is None:
                shot = combat.choose_defensive_fire(board, bid, policy)
            if shot is not None:
                fire_shot(board, bid, shot[1], shot[0], None, dice, False, "defensive-fire")


def _open_combat(board: Board, dice: Dice) -> State:
    """8: the Combat Phase opens with the Demo Charges armed since the last one (QR); passed over when the
    active player has no Blocker on the map."""
    seat = board.state.active_seat.name
    board.state = replace(board.state, stage="combat")
    board.card_effects = []
    damage.explode_charges(board, dice)
    if board.notes:
        _log(board, seat, "combat-start")
    if board.on_map(seat):
        return _frozen(board)
    board.note("note-combat-passed", seat=seat)
    _log(board, seat, "combat")
    return _end_phase(board, dice)


def _end_phase(board: Board, dice: Dice) -> State:
    """10: fires, catastrophic damage, the draw with the hand limit, the Blockers face up again; then the
    end of the game (12.iii, 10.iii) or the next player's turn."""
    seat = board.state.active_seat.name
    board.state = replace(board.state, stage="end")
    board.card_effects = []
    fire.end_phase_fires(board, dice)
    fire.catastrophe(board, dice)
    discard = board.standing(seat).discard
    deck.draw(board, seat, dice, discard or None)
    fire.turn_face_up(board, seat)
    for bid, b in list(board.blockers.items()):
        if b.activated:
            board.set_blocker(bid, activated=False)
    board.moving = Moving()
    _log(board, seat, "end")
    over = deck.game_over(board)
    if over is not None:
        return _finish(board, over)
    return _begin_turn(board, (board.state.active + 1) % len(board.state.seats), dice)


def _begin_turn(board: Board, active: int, dice: Dice, first: bool = False) -> State:
    """4, 5.i: the next player's Command Phase with 2d6 Command Points."""
    board.state = replace(board.state, active=active, stage="command", turn=board.state.turn + 1)
    board.moving = Moving()
    movement.roll_command_points(board, dice)
    if board.final and board.hands.get(board.state.active_seat.name):
        board.note("note-justice-due", seat=board.state.active_seat.name)
    _log(board, board.state.active_seat.name, "command-start")
    return _frozen(board)


def _finish(board: Board, reason: str) -> State:
    """12.iii: defeat points; the lowest total wins."""
    points = fire.defeat_points(board)
    names = [s.name for s in board.state.seats]
    ranking = tuple(sorted(names, key=lambda n: (points.get(n, 0), names.index(n))))
    result = Result(tuple((n, points.get(n, 0)) for n in names), ranking)
    board.note("note-game-over", reason=reason,
               ranking=", ".join(f"{n} {points.get(n, 0)}" for n in ranking))
    _log(board, board.state.active_seat.name, "over")
    return _frozen(board, stage="over", result=result)


def decks_left(state: State) -> int:
    """Cards until the Judges (a figure for the report)."""
    return len(state.deck) if not state.final else 0


__all__ = ["awaiting", "asking", "play", "setup_draw", "defensive_fire", "DECK"]
