"""Carrying out one seat's sheet on a `Board`: the same code checks a sheet when it arrives (planning,
with stand-in dice and nobody else's secrets) and plays it at the resolution (the recorded dice, the
other players' standing instructions).

Planning refuses what is wrong whatever the dice say (an unknown Blocker, a card not in hand, a square
out of reach) and fills in what the sheet leaves to the rules (the squares of a shortest path, the
weapon, the due Justice card and its targets, the Blockers left to place), so the echo shows what will
be done.  Once a sheet has rolled a die in planning (a new Blocker's address, a draw, a card), later
orders may depend on the roll: their problems are warnings and the resolution decides.  At the
resolution an order that has become impossible (a Blocker stopped by a hazard, a lift ride
intercepted, a shooter killed) is not carried out, and the report says which and why (every accepted
order is applied or refused with its reason).

The other players act inside the active player's turn by their standing instructions
(docs/games/blockmania.md, "Play by mail"): kept hazard cards strike the Blocker that moved when the
active player activates another, writes NEW, or ends his sheet (11.iii "prima che il giocatore di
turno muova un altro Blocker o termini la fase"); kept Duck! / Weapon Jams answer the first enemy shot
at one of their Blockers, kept Dirty Fighting their Blocker's close combat (11.iv); lift interception
is movement's ``default_intercept`` (6.iii).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from pbem.core.dice import Dice
from pbem.core.i18n import Message, msg
from pbem.core.rules import Diagnostic
from pbem.games.blockmania import combat, deck, movement
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.damage import where
from pbem.games.blockmania.movement import KINDS, Intercept
from pbem.games.blockmania.orders import (
    COMBAT,
    COMMAND,
    STANDING,
    Activate,
    Arm,
    Burn,
    Continue,
    DefensiveFire,
    Discard,
    Douse,
    Drop,
    Fight,
    Fire,
    Give,
    Hazards,
    Hold,
    Intercept as InterceptOrder,
    Item,
    Justice,
    Keep,
    Loot,
    Move,
    New,
    Order,
    Pass,
    PickUp,
    Place,
    Play,
    Scrawl,
    SetUp,
    Shoot,
)
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.state import READY, Note, Standing

#: 8.ii: the strict order of the Combat Phase, by order type
COMBAT_STEP: dict[type, int] = {Shoot: 0, Fight: 1, Loot: 2, Scrawl: 3, Burn: 4, Douse: 5}
DEFENSIVE: tuple[type, ...] = (Fire, Hold, Play)


class PlanDice:
    """Stand-in dice for checking a sheet: every die shows its middle, nothing is recorded."""

    def roll(self, sides: int, purpose: str) -> int:
        return (sides + 1) // 2

    def rolls(self, sides: int, count: int, purpose: str) -> tuple[int, ...]:
        return tuple(self.roll(sides, purpose) for _ in range(count))


def _never(board: Board, mover: str, loc: Loc, enemies: tuple[str, ...]) -> bool:
    return False


@dataclass
class Runner:
    """One seat's sheet on ``board``; ``planning`` when checking a sheet as it arrives."""

    board: Board
    seat: str
    dice: Dice
    planning: bool
    orders: list[Order] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    uncertain: bool = False
    more: bool = False
    checked: set[str] = field(default_factory=set)
    #: the resolution stopped for the other players' hazard decisions (11.iii): the Blocker that moved and
    #: the orders still to carry out (the one being carried out first)
    paused: str | None = None
    pending: list[Item] = field(default_factory=list)
    at: int | None = None

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    # -- the frame ---------------------------------------------------------------------------------------
    def problem(self, item: Item | None, order: Order, reason: Message) -> None:
        """An order that cannot be carried out: refused (planning) or skipped with a note (resolution)."""
        if self.planning:
            line, text = (item.line, item.text) if item is not None else (0, order.canonical())
            severity = "warning" if self.uncertain else "error"
            self.diagnostics.append(Diagnostic(line, text, reason, severity=severity))
            if severity == "warning":
                self.orders.append(order)
            return
        self.board.note("note-order-skipped", seat=self.seat, order=order.canonical())
        self.board.notes.append(_reason_note(reason))

    def done(self, order: Order) -> None:
        if self.planning:
            self.orders.append(order)

    @property
    def stage(self) -> str:
        return self.board.state.stage

    @property
    def active(self) -> str:
        return self.board.state.active_seat.name

    def loc(self, text: str) -> Loc | None:
        """``curie:D6``, or ``D6`` in the seat's own block."""
        block = self.board.state.seat(self.seat).block if ":" not in text else text.split(":", 1)[0]
        label = text.split(":", 1)[-1]
        try:
            return self.board.ring.loc(block, label)
        except (KeyError, ValueError, IndexError):
            return None

    def run(self, items: Sequence[Item]) -> Runner:
        """Standing instructions first (they answer the other players' moves in this very sheet too), then
        the stage's orders."""
        for item in items:
            if isinstance(item.order, STANDING):
                self.standing(item, item.order)
        rest = [i for i in items if not isinstance(i.order, STANDING) and not isinstance(i.order, Pass)]
        if self.stage == "setup":
            self.setup(rest)
        elif self.stage == "command":
            self.command(rest)
        elif self.stage == "combat":
            self.combat(rest)
        elif self.stage == "defensive-fire":
            self.defensive(rest)
        elif self.stage == "hazards":
            self.answer(rest)
        else:
            for item in rest:
                self.problem(item, item.order, msg("err-not-now", phase=msg(f"phase-{self.stage}")))
        return self

    def wrong_stage(self, item: Item) -> None:
        self.problem(item, item.order, msg("err-order-phase", order=item.order.canonical().split()[0],
                                           phase=msg(f"phase-{self.stage}")))

    # -- standing instructions ---------------------------------------------------------------------------
    def standing(self, item: Item | None, order: Order) -> None:
        names = [s.name for s in self.board.state.seats]
        table = list(self.board.state.standing) + [Standing()] * (len(names) - len(self.board.state.standing))
        i = names.index(self.seat)
        mine = table[i]
        if isinstance(order, DefensiveFire):
            mine = replace(mine, defensive_fire=order.policy)
        elif isinstance(order, InterceptOrder):
            mine = replace(mine, intercept_lifts=order.on)
        elif isinstance(order, Hazards):
            mine = replace(mine, hazards_ask=order.ask)
        elif isinstance(order, (Keep, Drop, Discard)):
            hand = self.board.hands.get(self.seat, [])
            if order.card not in hand and not isinstance(order, Drop):
                self.problem(item, order, msg("err-card-not-in-hand", card=order.card))
                return
            if isinstance(order, Keep):
                err = _keep_error(order.card)
                if err is not None:
                    self.problem(item, order, err)
                    return
                mine = replace(mine, keep=tuple(dict.fromkeys(mine.keep + (order.card,))))
            elif isinstance(order, Drop):
                mine = replace(mine, keep=tuple(c for c in mine.keep if c != order.card))
            else:
                mine = replace(mine, discard=order.card)
        table[i] = mine
        self.board.state = replace(self.board.state, standing=tuple(table))
        self.done(order)

    # -- set-up (3) ----------------------------------------------------------------------------------------
    def setup(self, items: Sequence[Item]) -> None:
        board = self.board
        for item in items:
            order = item.order
            if not isinstance(order, Place):
                self.wrong_stage(item)
                continue
            loc = self.loc(order.square)
            err = place_error(board, self.seat, order.blocker, loc, order.square)
            if err is not None:
                self.problem(item, order, err)
                continue
            assert loc is not None
            place(board, order.blocker, loc)
            self.done(Place(order.blocker, str(loc)))
        for bid, loc in default_places(board, self.seat):
            place(board, bid, loc)
            self.done(Place(bid, str(loc)))

    # -- the Command Phase (5, 6, 11.ii, 11.iii, 12.ii) ---------------------------------------------------------
    def command(self, items: Sequence[Item]) -> None:
        board = self.board
        if self.seat != self.active:
            for item in items:
                self.wrong_stage(item)
            return
        if deck.justice_due(board, self.seat):
            # 12.ii: the Justice card comes first, wherever the sheet wrote it (the echo shows it first)
            written = next((i for i in items if isinstance(i.order, Justice)), None)
            if written is None:
                self.justice(None, Justice(_first_justice(board, self.seat)))
            else:
                items = [written] + [i for i in items if i is not written]
        try:
            self.command_orders(items)
        except _Pause as pause:
            self.paused = pause.mover
            self.pending = list(items[pause.at:]) if pause.at is not None else []

    def command_orders(self, items: Sequence[Item]) -> None:
        board = self.board
        for n, item in enumerate(items):
            self.at = n
            order = item.order
            if isinstance(order, Continue):
                if n != len(items) - 1:
                    self.problem(item, order, msg("err-continue-last"))
                else:
                    self.more = True
                    self.done(order)
                continue
            if not isinstance(order, COMMAND):
                self.wrong_stage(item)
            elif isinstance(order, Justice):
                self.justice(item, order)
            elif isinstance(order, New):
                self.hazards()
                err = movement.check_new_blocker(board, self.seat)
                if err is not None:
                    self.problem(item, order, err)
                    continue
                top = board.piles[self.seat][0]
                movement.new_blocker(board, self.seat, self.dice, board.blockers[top].symbols)
                self.uncertain = True
                self.done(order)
            elif isinstance(order, Activate):
                self.activation(item, order, order.blocker)
            elif isinstance(order, Move):
                self.move(item, order)
            elif isinstance(order, PickUp):
                self.pick_up(item, order)
            elif isinstance(order, Give):
                err = movement.check_hand_over(board, order.giver, order.counter, order.receiver) \
                    if order.giver in board.blockers else msg("err-no-blocker", blocker=order.giver)
                if err is None and board.owner(order.giver) != self.seat:
                    err = msg("err-not-yours", blocker=order.giver)
                self.apply(item, order, err, lambda: movement.hand_over(board, order.giver, order.counter,
                                                                         order.receiver))
            elif isinstance(order, SetUp):
                err = self.own(order.blocker) or movement.check_set_up(board, order.blocker)
                self.apply(item, order, err, lambda: movement.set_up(board, order.blocker))
            elif isinstance(order, Arm):
                self.arm(item, order)
            elif isinstance(order, Play):
                self.play(item, order)
        self.at = None
        if not self.more:
            self.hazards()

    def apply(self, item: Item | None, order: Order, err: Message | None, do: Callable[[], object]) -> bool:
        """Carry out ``do`` if the check found nothing (``err``), else refuse or skip the order."""
        if err is not None:
            self.problem(item, order, err)
            return False
        do()
        self.done(order)
        return True

    def own(self, bid: str) -> Message | None:
        if bid not in self.board.blockers:
            return msg("err-no-blocker", blocker=bid)
        if self.board.owner(bid) != self.seat:
            return msg("err-not-yours", blocker=bid)
        return None

    def justice(self, item: Item | None, order: Justice) -> None:
        board = self.board
        if order.card == 0:
            self.problem(item, order, msg("err-justice-none"))
            return
        filled = fill_justice(board, self.seat, order)
        square = self.loc(filled.square) if filled.square else None
        err = deck.check_justice(board, self.seat, filled.card, filled.targets, filled.block or None, square)
        if err is not None:
            self.problem(item, filled, err)
            return
        deck.play_justice(board, self.seat, filled.card, filled.targets, filled.block or None, square)
        self.done(filled)

    def hazards(self) -> None:
        """11.iii: the other players' kept hazard cards against the Blocker that moved last, before the
        active player moves another or ends the phase (resolution only: their hands are secret)."""
        if self.planning:
            return
        board = self.board
        mover = deck.last_mover(board)
        if mover is None or mover in self.checked or where(board, mover) is None:
            return
        self.checked.add(mover)
        for seat in _after(board, self.active):
            if board.owner(mover) == seat:
                continue
            for card in _kept(board, seat, "hazard"):
                if where(board, mover) is not None and deck.check_hazard(board, seat, card, mover) is None:
                    deck.play_hazard(board, seat, card, mover, self.dice)
                    break
        if where(board, mover) is not None and hazard_askers(board, mover):
            raise _Pause(mover, self.at)

    # -- the other players' hazard decisions (11.iii) -------------------------------------------------------
    def answer(self, items: Sequence[Item]) -> None:
        """A player asked about the Blocker that moved: hazard cards against it (or any Blocker in a square
        of the card's kind, 11.iii); played in the Command Phase of the active player."""
        board = self.board
        board.state = replace(board.state, stage="command")
        try:
            for item in items:
                order = item.order
                if not isinstance(order, Play):
                    self.wrong_stage(item)
                elif order.card in board.hands.get(self.seat, []) and deck.face(board, order.card).kind.key != "hazard":
                    self.problem(item, order, msg("err-hazard-only", card=deck.face(board, order.card).name))
                else:
                    self.play(item, order if order.blocker else Play(order.card, board.state.mover, order.squares))
        finally:
            board.state = replace(board.state, stage="hazards")

    def activation(self, item: Item | None, order: Order, bid: str) -> bool:
        board = self.board
        if board.moving.blocker == bid:
            if isinstance(order, Activate):
                self.done(order)
            return True
        self.hazards()
        err = movement.check_activate(board, bid)
        if err is not None:
            self.problem(item, order, err)
            return False
        movement.activate(board, bid)
        if isinstance(order, Activate):
            self.done(order)
        return True

    def move(self, item: Item, order: Move) -> None:
        board = self.board
        bid = order.blocker
        if bid not in board.blockers:
            self.problem(item, order, msg("err-no-blocker", blocker=bid))
            return
        if not self.activation(item, order, bid):
            return
        path: list[str] = []
        intercept: Intercept | None = _never if self.planning else None
        for text in order.squares:
            to = self.loc(text)
            if to is None:
                self.problem(item, Move(bid, tuple(path) + (text,)), msg("err-no-square", square=text))
                return
            if board.moving.blocker != bid:
                self.problem(item, Move(bid, tuple(path) + (text,)), msg("err-move-over", blocker=bid))
                return
            steps = _steps(board, bid, to)
            if not steps:
                here = where(board, bid)
                self.problem(item, Move(bid, tuple(path) + (str(to),)),
                             msg("err-unreachable", blocker=bid, square=to, start=here or "-",
                                 mp=movement.affordable(board, bid)))
                return
            for kind, loc in steps:
                if board.moving.blocker != bid and path:
                    break
                end = movement.move(board, bid, kind, loc, intercept)
                path.append(str(loc))
                if end is None or end != loc:
                    break
        self.done(Move(bid, tuple(path)))

    def pick_up(self, item: Item, order: PickUp) -> None:
        board = self.board
        err = self.own(order.blocker) or movement.check_pick_up(board, order.blocker)
        if err is None and order.discard and order.discard not in board.counters:
            err = msg("err-no-counter", counter=order.discard)
        if self.apply(item, order, err, lambda: movement.pick_up(board, order.blocker, order.discard or None)):
            self.uncertain = True

    def arm(self, item: Item, order: Arm) -> None:
        board = self.board
        err = self.own(order.blocker)
        charge = None
        if err is None:
            charge = next((c for c in board.blockers[order.blocker].carried
                           if board.counter_type(c).has("timed-charge")), None)
            err = msg("err-no-charge", blocker=order.blocker) if charge is None else \
                movement.check_arm(board, order.blocker, charge)
        self.apply(item, order, err, lambda: movement.arm(board, order.blocker, charge or ""))

    def play(self, item: Item, order: Play) -> None:
        board = self.board
        if order.card not in board.hands.get(self.seat, []):
            self.problem(item, order, msg("err-card-not-in-hand", card=order.card))
            return
        f = deck.face(board, order.card)
        kind = "justice" if board.final else f.kind.key
        squares = [self.loc(s) for s in order.squares]
        if any(s is None for s in squares):
            self.problem(item, order, msg("err-no-square", square=" ".join(order.squares)))
            return
        locs = [s for s in squares if s is not None]
        canon = Play(order.card, order.blocker, tuple(str(s) for s in locs))
        if kind == "justice":
            self.problem(item, order, msg("err-play-justice"))
        elif kind == "command":
            if f.effect.type == "free-activation":
                self.hazards()  # another Blocker is about to move (11.iii)
            blocker = order.blocker or None
            err = deck.check_command(board, self.seat, order.card, blocker, locs)
            if self.apply(item, canon, err, lambda: deck.play_command(board, self.seat, order.card, self.dice,
                                                                      blocker, locs)):
                self.uncertain = self.uncertain or f.effect.type in ("command-reroll", "hire-blocker",
                                                                     "free-blocker", "draw-counter")
        elif kind == "hazard":
            square = locs[0] if locs else None
            err = deck.check_hazard(board, self.seat, order.card, order.blocker, square) if order.blocker \
                else msg("err-card-blocker", blocker="-")
            if self.apply(item, canon, err, lambda: deck.play_hazard(board, self.seat, order.card, order.blocker,
                                                                     self.dice, square)):
                self.uncertain = True
        else:
            err = deck.check_attack(board, self.seat, order.card, order.blocker) if order.blocker \
                else msg("err-card-blocker", blocker="-")
            self.apply(item, canon, err, lambda: deck.play_attack(board, self.seat, order.card, order.blocker))

    # -- Defensive Fire (7), when a player asked to choose ------------------------------------------------------
    def defensive(self, items: Sequence[Item]) -> None:
        """The sheet of a player who asked (``DEFENSIVE FIRE ASK``): cards first, then each FIRE; the rest of
        his Blockers fire by the default (nearest) unless held (``defensive_fire`` in flow does the firing at
        the resolution; here only the checks)."""
        board = self.board
        for item in items:
            order = item.order
            if isinstance(order, Shoot) and order.target in board.blockers:
                order = Fire(order.shooter, order.target, order.weapon)
            if not isinstance(order, DEFENSIVE):
                self.wrong_stage(item)
            elif isinstance(order, Play):
                self.play(item, order)
            elif isinstance(order, Hold):
                self.apply(item, order, self.own(order.shooter), lambda: None)
            else:
                assert isinstance(order, Fire)
                err = self.own(order.shooter)
                weapon = order.weapon or (_best_weapon(board, order.shooter, order.target) if err is None else "")
                if err is None:
                    err = combat.check_defensive_fire(board, order.shooter, order.target, weapon) if weapon else \
                        msg("err-no-weapon", blocker=order.shooter)
                self.apply(item, Fire(order.shooter, order.target, weapon or ""), err, lambda: None)

    # -- the Combat Phase (8, 9) ---------------------------------------------------------------------------------
    def combat(self, items: Sequence[Item]) -> None:
        board = self.board
        if self.seat != self.active:
            for item in items:
                self.wrong_stage(item)
            return
        steps: list[tuple[int, int, Item]] = []
        for n, item in enumerate(items):
            if not isinstance(item.order, COMBAT):
                self.wrong_stage(item)
                continue
            nxt = next((COMBAT_STEP[type(i.order)] for i in items[n:] if type(i.order) in COMBAT_STEP), 5)
            steps.append((COMBAT_STEP.get(type(item.order), nxt), n, item))
        fought = False
        for step, _, item in sorted(steps, key=lambda s: (s[0], s[1])):
            if step >= 2 and not fought:
                self.mandatory()
                fought = True
            order = item.order
            if isinstance(order, Play):
                self.play(item, order)
            elif isinstance(order, Shoot):
                self.shoot(item, order)
            elif isinstance(order, Fight):
                err = combat.check_close_combat(board, order.attacker, order.defender)
                if err is not None:
                    self.problem(item, order, err)
                else:
                    close_combat(board, order.attacker, order.defender, self.dice, self.planning)
                    self.uncertain = True
                    self.done(order)
            elif isinstance(order, Loot):
                err = combat.check_loot(board, order.blocker)
                gone = [c for c in order.discard if c not in board.blockers[order.blocker].carried] \
                    if err is None else []
                if gone:
                    err = msg("err-not-carried", blocker=order.blocker, counter=gone[0])
                if self.apply(item, order, err, lambda: combat.loot(
                        board, order.blocker, self.dice, deck.card_bonus(board, "looting", order.blocker),
                        order.discard)):
                    self.uncertain = True
            elif isinstance(order, Scrawl):
                self.apply(item, order, combat.check_scrawl(board, order.blocker),
                           lambda: combat.scrawl(board, order.blocker))
            elif isinstance(order, Burn):
                if self.apply(item, order, combat.check_set_fire(board, order.blocker), lambda: combat.set_fire(
                        board, order.blocker, self.dice, deck.card_bonus(board, "arson", order.blocker))):
                    self.uncertain = True
            elif isinstance(order, Douse):
                loc = self.loc(order.square)
                if loc is None:
                    self.problem(item, order, msg("err-no-square", square=order.square))
                    continue
                canon = Douse(order.blocker, str(loc))
                if self.apply(item, canon, combat.check_fight_fire(board, order.blocker, loc), lambda: combat.fight_fire(
                        board, order.blocker, loc, self.dice, deck.card_bonus(board, "fire-fighting", order.blocker))):
                    self.uncertain = True
        if not fought:
            self.mandatory()

    def mandatory(self) -> None:
        """8.ii, 8.vi: the close combats due and not ordered are fought before looting."""
        if self.planning:
            return
        for attacker, defender in combat.pending_close_combats(self.board):
            if combat.check_close_combat(self.board, attacker, defender) is None:
                close_combat(self.board, attacker, defender, self.dice, False)

    def shoot(self, item: Item, order: Shoot) -> None:
        board = self.board
        target = order.target if order.target in board.blockers else None
        square = None if target is not None else self.loc(order.target)
        if target is None and square is None:
            self.problem(item, order, msg("err-no-target", target=order.target))
            return
        err = self.own(order.shooter)
        weapon = order.weapon
        if err is None and not weapon:
            weapon = _best_weapon(board, order.shooter, target, square) or ""
        canon = Shoot(order.shooter, target or str(square), weapon)
        if err is None:
            err = combat.check_shoot(board, order.shooter, weapon, target, square) if weapon else \
                msg("err-no-weapon", blocker=order.shooter)
        if err is not None:
            self.problem(item, canon, err)
            return
        fire_shot(board, order.shooter, weapon, target, square, self.dice, self.planning, "shooting")
        self.uncertain = True
        self.done(canon)


# -- shared pieces ---------------------------------------------------------------------------------------------


class _Pause(Exception):
    """The other players are to be asked about the hazard cards they may play at ``mover`` (11.iii)."""

    def __init__(self, mover: str, at: int | None) -> None:
        super().__init__(mover)
        self.mover, self.at = mover, at


def hazard_askers(board: Board, mover: str) -> list[str]:
    """11.iii: the other players who asked to choose (HAZARDS ASK) and hold a Hazard card that may strike
    ``mover`` in a square it is in or passed; never in the Final Phase (12: Justice cards only)."""
    if board.final or where(board, mover) is None:
        return []
    out = []
    for seat in _after(board, board.state.active_seat.name):
        if seat == board.owner(mover) or not board.standing(seat).hazards_ask:
            continue
        if any(deck.face(board, c).kind.key == "hazard" and deck.check_hazard(board, seat, c, mover) is None
               for c in board.hands.get(seat, [])):
            out.append(seat)
    return out


def _reason_note(reason: Message) -> Note:
    return Note(reason.key, tuple((k, str(v)) for k, v in reason.args.items()))


def _after(board: Board, seat: str) -> list[str]:
    """The seats in turn order after ``seat`` (4)."""
    names = [s.name for s in board.state.seats]
    i = names.index(seat)
    return names[i + 1:] + names[:i]


def _kept(board: Board, seat: str, kind: str, effect: str | None = None) -> list[int]:
    """The cards ``seat`` keeps for their trigger and still holds, of a kind (and effect type)."""
    if board.final:
        return []
    out = []
    for card in board.standing(seat).keep:
        if card in board.hands.get(seat, []):
            f = deck.face(board, card)
            if f.kind.key == kind and (effect is None or f.effect.type == effect):
                out.append(card)
    return out


def _keep_error(card: int) -> Message | None:
    """KEEP is for a hazard, or for an Attack card that answers a shot or a close combat (11.iii, 11.iv)."""
    try:
        f = DECK.card(card).mania
    except KeyError:
        return msg("err-card-not-in-hand", card=card)
    e = f.effect
    if f.kind.key == "hazard" or e.type == "cancel-shot":
        return None
    if e.type == "roll-modifier" and ((e["whose"] == "enemy" and e["attack"] in ("shooting", "defensive-fire"))
                                      or (e["whose"] == "own" and e["attack"] == "close-combat")):
        return None
    return msg("err-keep-card", card=f.name)


def _first_justice(board: Board, seat: str) -> int:
    hand = board.hands.get(seat, [])
    return hand[0] if hand else 0


def fill_justice(board: Board, seat: str, order: Justice) -> Justice:
    """12.ii: the targets, block or square a Justice card needs and the sheet left out: the enemy Blockers
    the card may take, strongest first (then his own); the block with most enemy Blockers; the square
    whose patrol takes most enemy Blockers and fewest of his own."""
    try:
        e = DECK.card(order.card).justice.effect
    except KeyError:
        return order
    on_map = sorted(board.on_map())
    enemy = sorted((b for b in on_map if board.owner(b) != seat), key=lambda b: (-board.type(b).strength, b))
    own = sorted((b for b in on_map if board.owner(b) == seat), key=lambda b: (board.type(b).cost, b))
    targets, block, square = order.targets, order.block, order.square
    if e.type == "arrest" and e["chooser"] == "player":
        if e["scope"] == "one-block" and not block:
            counts = {k: sum(1 for b in enemy if k in board.ring.maps_of(where(board, b) or Loc(k, 0, 1)))
                      for k in board.ring.ids}
            mine = board.state.seat(seat).block
            block = max(board.ring.ids, key=lambda k: (counts[k], k != mine))
        if not targets:
            pool = enemy + own
            if e["scope"] == "one-block":
                pool = [b for b in pool if (loc := where(board, b)) is not None and block in board.ring.maps_of(loc)]
            targets = tuple(pool[:e["count"]])
    if e.type == "judge-patrol" and not square:
        best = None
        for b in enemy:
            at = where(board, b)
            assert at is not None
            area = {at, *board.ring.neighbours(at)}
            score = (sum(1 for x in enemy if where(board, x) in area) - sum(1 for x in own if where(board, x) in area))
            if best is None or score > best[0]:
                best = (score, at)
        if best is None and on_map:
            at = where(board, on_map[0])
            assert at is not None
            best = (0, at)
        square = str(best[1]) if best is not None else str(board.ring.loc(board.state.seat(seat).block, "A1"))
    return Justice(order.card, tuple(targets), block, square)


def _steps(board: Board, bid: str, to: Loc) -> list[tuple[str, Loc]]:
    """How ``bid`` gets to ``to``: the cheapest single move of any kind (6; ties in the order of
    movement.KINDS, a flight last as it ends the move), else the cheapest path of moves
    (``movement.reachable``)."""
    frm = where(board, bid)
    if frm is None:
        return []
    found: list[tuple[int, int, str]] = []
    for n, kind in enumerate(KINDS):
        if kind == "chute" and board.ring.chute_target(frm) != to:
            continue
        if movement.check_move(board, bid, kind, to) is None:
            cost = movement.walk_cost(board, bid, frm, to) if kind == "walk" else 99 if kind == "fly" else 1
            found.append((cost, n, kind))
    if found:
        return [(min(found)[2], to)]
    path = movement.reachable(board, bid).get(to)
    return [(s.kind, s.to) for s in path] if path else []


def _weapons(board: Board, bid: str) -> list[str]:
    return sorted(board.blockers[bid].carried, key=lambda c: (-board.counter_type(c).damage_against_blocker(), c))


def _best_weapon(board: Board, shooter: str, target: str | None, square: Loc | None = None) -> str | None:
    """The strongest carried weapon that may fire at the target (8.v; 7 for a defensive shot)."""
    if shooter not in board.blockers:
        return None
    for cid in _weapons(board, shooter):
        if board.state.stage == "defensive-fire" and target is not None:
            if combat.check_defensive_fire(board, shooter, target, cid) is None:
                return cid
        elif combat.check_shoot(board, shooter, cid, target, square) is None:
            return cid
    return None


def answer_shot(board: Board, shooter: str, target: str, dice: Dice) -> bool:
    """11.iv: the target's owner answers a shot by his kept cards: Weapon Jams cancels it (True), Duck!
    waits for the roll."""
    seat = board.owner(target)
    if seat == board.owner(shooter):
        return False
    for card in _kept(board, seat, "attack", "cancel-shot"):
        if deck.check_attack(board, seat, card, shooter) is None:
            deck.play_attack(board, seat, card, shooter)
            return True
    for card in _kept(board, seat, "attack", "roll-modifier"):
        e = deck.face(board, card).effect
        if e["whose"] == "enemy" and deck.check_attack(board, seat, card, target) is None:
            deck.play_attack(board, seat, card, target)
            break
    return False


def fire_shot(board: Board, shooter: str, weapon: str, target: str | None, square: Loc | None, dice: Dice,
              planning: bool, attack: str) -> None:
    """A shot (8.v, 9.i) or a defensive shot (7) with the cards played for it (11.iv)."""
    if target is not None and not planning and answer_shot(board, shooter, target, dice):
        return
    bonus = deck.card_bonus(board, attack, shooter, target)
    if attack == "defensive-fire":
        assert target is not None
        combat.defensive_fire(board, shooter, target, weapon, dice, bonus)
    else:
        combat.shoot(board, shooter, weapon, dice, target, square, bonus)


def close_combat(board: Board, attacker: str, defender: str, dice: Dice, planning: bool) -> None:
    """8.vi with the cards: the defender's owner's kept Dirty Fighting (11.iv)."""
    if not planning:
        seat = board.owner(defender)
        for card in _kept(board, seat, "attack", "roll-modifier"):
            e = deck.face(board, card).effect
            if e["whose"] == "own" and e["attack"] == "close-combat" \
                    and deck.check_attack(board, seat, card, defender) is None:
                deck.play_attack(board, seat, card, defender)
                break
    bonus = deck.card_bonus(board, "close-combat", attacker, defender)
    enemy = deck.card_bonus(board, "close-combat", defender, attacker)
    combat.close_combat(board, attacker, defender, dice, bonus, enemy)


# -- set-up (3) ------------------------------------------------------------------------------------------------


def placeable(board: Board, seat: str) -> list[Loc]:
    """3: "li dispone nel proprio Block, ove desidera": the free Window and Interior squares of his block,
    residential first by address, then the others by level and column."""
    block = board.state.seat(seat).block
    data = board.ring.data.block(block)
    out: list[Loc] = []
    for number in sorted(data.addresses):
        out.append(board.ring.loc(block, data.addresses[number].label))
    for sq in data.squares:
        loc = board.ring.loc(block, sq.label)
        if loc not in out and not sq.is_open and loc.block == block:
            out.append(loc)
    return [loc for loc in out if not board.at(loc) and not board.collapsed(loc)]


def place_error(board: Board, seat: str, bid: str, loc: Loc | None, text: str) -> Message | None:
    if bid not in board.blockers or board.owner(bid) != seat:
        return msg("err-not-yours", blocker=bid)
    if board.blockers[bid].loc != READY:
        return msg("err-not-ready", blocker=bid)
    if loc is None:
        return msg("err-no-square", square=text)
    if loc.block != board.state.seat(seat).block or board.square(loc).is_open:
        return msg("err-place-block", square=loc, block=board.state.seat(seat).block)
    if board.at(loc):
        return msg("err-place-taken", square=loc)
    return None


def place(board: Board, bid: str, loc: Loc) -> None:
    """3: on the square chosen; an A or H symbol draws its counter at once, placed under the Blocker."""
    board.set_blocker(bid, loc=str(loc))
    board.note("note-placed", seat=board.owner(bid), blocker=bid, type=board.type(bid).name, square=loc)
    for symbol in board.blockers[bid].symbols:
        for _ in range(ROSTER.symbol(symbol).draws):
            movement.draw_counter(board, bid, ROSTER.symbol(symbol).pool)


def default_places(board: Board, seat: str) -> list[tuple[str, Loc]]:
    """The Blockers a set-up sheet left unplaced go to the free squares in ``placeable``'s order."""
    ready = sorted((b for b, x in board.blockers.items() if x.owner == seat and x.loc == READY),
                   key=lambda b: int(b.rsplit("-", 1)[-1]) if b.rsplit("-", 1)[-1].isdigit() else 0)
    free = placeable(board, seat)
    return list(zip(ready, free))


def run_items(board: Board, seat: str, items: Iterable[Item], dice: Dice, planning: bool) -> Runner:
    return Runner(board, seat, dice, planning).run(list(items))


__all__ = ["Runner", "PlanDice", "hazard_askers", "run_items", "fire_shot", "close_combat", "placeable", "default_places", "place",
           "fill_justice", "answer_shot", "COMBAT_STEP"]
