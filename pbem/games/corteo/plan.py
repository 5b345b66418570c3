"""A side's orders for the current phase, checked and played in order on a `Board`.

Orders are played line by line, as the rulebook's player moves one unit at a time (4a): a unit's
lines must come together (it finishes before the next unit starts).  Checking a sheet when it is
filed plays it without dice, every throw read as "no effect"; the resolution plays it again with
the dice, and a line that a throw's result has made impossible is skipped and reported (not an
error: the player could not know).  What the rules demand and the sheet leaves out (set-up
placements, reinforcements placed, the Head, the combats every unit in contact must fight, 8a) is
filled in with the documented defaults and written into the sheet.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, lru_cache

from pbem.core.dice import Dice
from pbem.core.i18n import Message, msg
from pbem.core.rules import Diagnostic
from pbem.games.corteo import combat, mobiles, plan_scenario, throws
from pbem.games.corteo.board import Board, city, hexof, label_of, other, open_neighbours
from pbem.games.corteo.city import Hex, distance
from pbem.games.corteo.orders import (
    Activate,
    Helicopter,
    Attack,
    BarracksOrder,
    Build,
    Clear,
    Enter,
    HeadComponent,
    Heads,
    Item,
    Jam,
    Metro,
    Move,
    Order,
    Pass,
    Place,
    Push,
    Secret,
    Raw,
    Run,
    ThrowAt,
    Toward,
)
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.state import CORTEO, POTERE, RESERVE, Note, State, off_parts
from pbem.games.corteo.tables import TABLES
from pbem.games.corteo.units import counter

ALLOWED: dict[tuple[str, str], tuple[str, ...]] = {
    ("setup", CORTEO): ("PLACE", "HEAD", "FORMATION"),
    ("setup", POTERE): ("PLACE",),
    ("corteo-movement", CORTEO): ("RUN", "PLACE", "ENTER", "METRO", "MOVE", "THROW", "BARRICADE", "CLEAR", "JAM",
                                  "HEAD", "ACTIVATE"),
    ("corteo-combat", CORTEO): ("ATTACK",),
    ("potere-movement", POTERE): ("PLACE", "MOVE", "THROW", "CLEAR", "JAM", "HELICOPTER"),
    ("potere-combat", POTERE): ("ATTACK",),
}
STANDING = ("TOWARD", "PUSH", "BARRACKS", "PASS")


def raw_of(order: Order) -> Raw:
    """A typed order in the parser's form (a filed sheet is played again on resolution)."""
    if isinstance(order, (Place, Metro, Build, Clear, Enter)):
        keyword = {Place: "PLACE", Metro: "METRO", Build: "BARRICADE", Clear: "CLEAR", Enter: "ENTER"}[type(order)]
        return Raw(keyword, (order.unit,), (order.hex,))
    if isinstance(order, Move):
        return Raw("MOVE", (order.unit,), order.path)
    if isinstance(order, ThrowAt):
        return Raw("THROW", order.units, (order.hex,))
    if isinstance(order, Attack):
        return Raw("ATTACK", order.attackers, defenders=order.defenders, flag="advance" if order.advance else "")
    if isinstance(order, HeadComponent):
        return Raw("HEAD", flag=order.component)
    if isinstance(order, Heads):
        return Raw("HEAD", order.units)
    if isinstance(order, (Toward, Push, Jam)):
        return Raw({Toward: "TOWARD", Push: "PUSH", Jam: "JAM"}[type(order)], hexes=(order.hex,))
    if isinstance(order, BarracksOrder):
        return Raw("BARRACKS", numbers=order.numbers)
    if isinstance(order, Activate):
        return Raw("ACTIVATE", (order.unit,))
    if isinstance(order, Helicopter):
        return Raw("HELICOPTER", (order.unit,))
    if isinstance(order, Secret):
        return Raw("FORMATION", hexes=order.hexes)
    return Raw("RUN" if isinstance(order, Run) else "PASS")


@dataclass
class Planner:
    state: State
    seat: str
    dice: Dice | None = None  # None: checking a sheet (throws read as no effect)
    lenient: bool = False  # lines that are not legal are skipped (random orders)
    board: Board = field(init=False)
    orders: list[Order] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    spent: dict[str, Fraction] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)  # units whose turn of moving is over (4a)
    stopped: set[str] = field(default_factory=set)  # units that may not move on (ZOC, objective, metro)
    thrown: set[str] = field(default_factory=set)
    cleared: set[str] = field(default_factory=set)
    current: str | None = None
    running: bool = False
    reinforced: int = 0  # strength of the reinforcements placed (6c)
    placed: set[str] = field(default_factory=set)
    placed_kinds: dict[str, int] = field(default_factory=dict)  # how many of ``placed`` are of each unit type
    pieces_placed: set[str] = field(default_factory=set)  # D: mobile objectives placed at the set-up
    jam_tried: bool = False
    heads: tuple[str, ...] | None = None
    component: str | None = None
    secret: tuple[str, ...] | None = None  # D Sociale: the secret place of formation written at the set-up
    deployed: dict[str, str] = field(default_factory=dict)  # D Sociale: unit -> the deployment row it fills
    engaged: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.board = Board(self.state)
        self.running = False

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    @property
    def stage(self) -> str:
        return self.state.stage

    @property
    def resolving(self) -> bool:
        return self.dice is not None

    def err(self, item: Item | None, message: Message, hint: Message | None = None) -> None:
        if (self.resolving or self.lenient) and item is not None:
            # The position changed under the sheet (a throw's result): the line is skipped.
            self.board.notes.append(Note("note-skipped", (("line", item.text), ("why", message.key))))
            self.board.notes.append(Note(message.key, tuple((k, str(v)) for k, v in message.args.items()
                                                             if not hasattr(v, "key"))))
            return
        line, text = (item.line, item.text) if item else (0, "")
        self.diagnostics.append(Diagnostic(line, text, message, hint))

    # -- the sheet ---------------------------------------------------------------------------------
    def run(self, items: list[Item]) -> "Planner":
        allowed = ALLOWED.get((self.stage, self.seat))
        if allowed is None:
            self.err(None, msg("err-not-your-phase", phase=msg(f"phase-{self.stage}")))
            return self
        if self.stage.endswith("-movement"):
            self._start_movement()
        for item in sorted(items, key=lambda it: (_FIRST.get(it.raw.keyword, 1), it.line)):
            k = item.raw.keyword
            if k not in allowed and k not in STANDING:
                self.err(item, msg("err-not-now", keyword=k, phase=msg(f"phase-{self.stage}")),
                         msg("hint-allowed", keywords=", ".join(allowed + STANDING)))
                continue
            getattr(self, _HANDLERS.get(k) or f"_{k.lower()}")(item)
        if self.ok:
            self._finish()
        # One order for the sheet whatever the order of its lines (the canonical text); the
        # movement keeps the player's order (4a).
        self.orders.sort(key=lambda o: 0 if isinstance(o, Run) else 2 if isinstance(o, (Toward, Push, BarracksOrder, Pass)) else 1)
        return self

    def _start_movement(self) -> None:
        """Units due back from off the map come in at the start of the corteo's movement (8h);
        the power's panicked units turn face up at the start of its movement of the next hand
        (8g); C 13d units waiting roll again."""
        b = self.board
        if self.seat == POTERE:
            for u, x in list(b.units.items()):
                if x.panicked and x.panic_hand < self.state.hand:
                    b.units[u] = replace(x, panicked=False)

    # -- standing instructions ---------------------------------------------------------------------
    def _toward(self, item: Item) -> None:
        if self._hex(item, item.raw.hexes[0]) is not None:
            self.orders.append(Toward(item.raw.hexes[0]))

    def _push(self, item: Item) -> None:
        if self.seat != POTERE:
            self.err(item, msg("err-potere-only", keyword="PUSH"))
        elif self._hex(item, item.raw.hexes[0]) is not None:
            self.orders.append(Push(item.raw.hexes[0]))

    def _barracks(self, item: Item) -> None:
        if self.seat != CORTEO:
            self.err(item, msg("err-corteo-only", keyword="BARRACKS"))
            return
        known = {c.number for c in city().caserme}
        bad = [n for n in item.raw.numbers if n not in known]
        if bad:
            self.err(item, msg("err-no-caserma", number=bad[0]), msg("hint-caserme", numbers=" ".join(map(str, sorted(known)))))
            return
        self.orders.append(BarracksOrder(item.raw.numbers))

    def _pass(self, item: Item) -> None:
        self.orders.append(Pass())

    def _activate(self, item: Item) -> None:
        plan_scenario.activate(self, item)

    def _helicopter(self, item: Item) -> None:
        plan_scenario.helicopter(self, item)

    def _formation(self, item: Item) -> None:
        plan_scenario.secret(self, item)

    # -- helpers ----------------------------------------------------------------------------------
    def _hex(self, item: Item, label: str) -> Hex | None:
        h = hexof(label)
        if h is None:
            self.err(item, msg("err-not-a-hex", hex=label), msg("hint-hexes"))
        return h

    def _own(self, item: Item, uid: str, active: bool = True) -> bool:
        b = self.board
        if uid not in b.units:
            self.err(item, msg("err-no-unit", unit=uid))
            return False
        if b.side(uid) != self.seat:
            self.err(item, msg("err-not-yours", unit=uid))
            return False
        if active and not b.active(uid):
            self.err(item, msg("err-not-active", unit=uid, where=self._where(uid)))
            return False
        return True

    def _where(self, uid: str) -> Message:
        u = self.board.units[uid]
        if u.panicked:
            return msg("where-panicked")
        if u.waiting:
            return msg("where-waiting")
        if off_parts(u.loc):
            return msg("where-off")
        if hexof(u.loc):
            return msg("where-hex", hex=u.loc)
        return msg(f"where-{u.loc}")

    def _turn_of(self, item: Item, uid: str) -> bool:
        """4a: one unit at a time, each finishing before the next."""
        if self.current is not None and self.current != uid:
            self.finished.add(self.current)
        if uid in self.finished:
            self.err(item, msg("err-unit-done", unit=uid))
            return False
        self.current = uid
        return True

    def budget(self, uid: str) -> Fraction:
        t = self.board.type(uid)
        return Fraction(t.speed * (2 if self.running and self.seat == CORTEO else 1))

    def left(self, uid: str) -> Fraction:
        return self.budget(uid) - self.spent.get(uid, Fraction(0))

    # -- set-up (3a) and placements -------------------------------------------------------------------
    def _place(self, item: Item) -> None:
        uid, label = item.raw.units[0], item.raw.hexes[0]
        h = self._hex(item, label)
        if h is not None and uid in self.board.mobiles:
            plan_scenario.place_mobile(self, item, uid, h)
            return
        if h is None or not self._own(item, uid, active=False):
            return
        problem = self.check_place(uid, h)
        if problem:
            self.err(item, problem)
            return
        self.do_place(uid, h)

    def check_place(self, uid: str, h: Hex) -> Message | None:
        b = self.board
        u = b.units[uid]
        kind = b.type(uid).kind
        if uid in self.placed:
            return msg("err-placed-twice", unit=uid)
        sc = plan_scenario.of(self)
        if self.state.stage == "setup":
            if self.seat == CORTEO and b.counter(uid).set == "poc":
                problem = plan_scenario.check_setup_dissident(h)
                if problem:
                    return problem
            elif self.seat == CORTEO and sc is not None and sc.numbers.get("deploy"):
                problem = plan_scenario.check_deploy(self, sc, uid, h)  # D Sociale: split deployment
                if problem:
                    return problem
            elif self.seat == CORTEO:
                if u.waiting:
                    return msg("err-accused-place", unit=uid)  # D Antirepressivo: on trial
                if h not in start_hexes():
                    return msg("err-setup-start", hex=h.label, place=city().start)
            elif sc is not None:
                problem = plan_scenario.check_setup_power(self, sc, uid, h)
                if problem:
                    return problem
            else:
                if kind not in NUMBERS.setup:
                    return msg("err-setup-type", unit=uid)
                if kind == "piantoni" and city().objective_at(h) is None:
                    return msg("err-setup-objective", hex=h.label)
                if kind == "vigili" and not _near_places(h, NUMBERS.vigili_reach):
                    return msg("err-setup-vigili", hex=h.label, reach=NUMBERS.vigili_reach)
                if kind in ("celere", "carabinieri") and h not in city().caserma_set:
                    return msg("err-setup-caserma", hex=h.label)
                count = self.placed_kinds.get(kind, 0)
                if count >= NUMBERS.setup[kind]:
                    return msg("err-setup-count", kind=msg(f"unit-{kind}"), count=NUMBERS.setup[kind])
        elif self.seat == POTERE:
            if u.loc != RESERVE and not u.waiting:
                return msg("err-not-in-reserve", unit=uid)
            if u.loc == RESERVE and kind == "finanza":
                if not (self.state.has("national") and self.state.hand >= 4):
                    return msg("err-finanza")
                if any(b.type(x).kind != "finanza" for x in b.present(h, POTERE)):
                    return msg("err-finanza-alone", hex=h.label)  # 13d: "non possono cumularsi con altre"
            elif u.loc == RESERVE:
                due = reinforcement_due(self.state)
                if due is None:
                    return msg("err-no-reinforcements", hand=self.state.hand)
                if isinstance(due, int):
                    if self.reinforced + b.type(uid).power > due:
                        return msg("err-reinforcement-points", points=due, used=self.reinforced)
                else:
                    taken = self.placed_kinds.get(kind, 0)
                    if taken >= due.get(kind, 0):
                        return msg("err-reinforcement-type", kind=msg(f"unit-{kind}"))
            if h not in city().caserma_set:
                return msg("err-setup-caserma", hex=h.label)
            if b.mobile_on(h):
                return msg("err-mobile-hex", hex=h.label, piece=b.mobile_on(h))
            if kind != "finanza" and any(b.type(x).kind == "finanza" and (x in self.placed or b.units[x].waiting)
                                         for x in b.present(h, POTERE)):
                return msg("err-finanza-alone", hex=h.label)  # 13d: the Finanza placed there stands apart
            panicked_here = any(b.units[x].panicked for x in b.at(h, POTERE))
            if panicked_here and sum(1 for x in self.placed if b.loc(x) == h.label) >= 1:
                return msg("err-caserma-panic", hex=h.label)  # 6c
        else:
            if not (self.state.has("national") and self.state.hand >= 4 and b.counter(uid).set == "forestieri"):
                return msg("err-place-now", unit=uid)
            if u.loc != RESERVE and not u.waiting:
                return msg("err-not-in-reserve", unit=uid)
            if h not in city().metro_set:
                return msg("err-forestieri-metro", hex=h.label)
            if any(b.counter(x).set != "forestieri" for x in b.present(h, CORTEO)):
                return msg("err-forestieri-alone", hex=h.label)  # 13d
        problem = b.may_enter(uid, h)
        if problem is not None and not (self.seat == POTERE and b.terrain(h) == "caserma"):
            return problem
        if not b.stack_ok(uid, h):
            return msg("err-stack", hex=h.label)
        return None

    def do_place(self, uid: str, h: Hex) -> None:
        b = self.board
        setup = self.state.stage == "setup"
        self.placed.add(uid)
        kind = b.type(uid).kind
        self.placed_kinds[kind] = self.placed_kinds.get(kind, 0) + 1
        counter_set = b.counter(uid).set
        waiting = not setup and b.units[uid].loc == RESERVE and counter_set in ("forestieri", "finanza")
        presidio = setup and kind == "piantoni"
        waiting = waiting or (setup and counter_set == "poc")  # D: dissidents wait
        if waiting and self.dice is not None:  # 13d: "A questo punto ... tira il dado": even, in the game
            roll = self.dice.roll(TABLES.die, f"C 13d: does {uid} enter the game?")
            waiting = not TABLES.roll_succeeds("corteo-nazionale", roll)
        if not setup and self.seat == POTERE and b.type(uid).kind != "finanza":
            # 6c: the hand's reinforcement points; C 3a counts the power's forces "esclusa la
            # finanza", and 13d brings it in apart, so it never takes from them.
            self.reinforced += b.type(uid).power
        if setup and self.seat == CORTEO and self.state.scenario:
            plan_scenario.note_deploy(self, uid, h)  # D Sociale: only a scenario splits the deployment
        label = label_of(h)
        b.set_loc(uid, label, "place", waiting=waiting, presidio=presidio)
        self.orders.append(Place(uid, label))

    def _head(self, item: Item) -> None:
        b = self.board
        if self.stage == "setup":
            if not item.raw.flag:
                self.err(item, msg("err-head-component"))
                return
            comps = _base_components(tuple(b.units))
            if item.raw.flag not in comps:
                self.err(item, msg("err-head-unknown", component=item.raw.flag))
                return
            sc = plan_scenario.of(self)
            if sc is not None and item.raw.flag not in sc.heads:
                # D: "Testa di corteo possono essere solo le unità di ..."
                self.err(item, msg("err-head-scenario", component=item.raw.flag, heads=" ".join(sc.heads)))
                return
            self.component = item.raw.flag
            self.orders.append(HeadComponent(item.raw.flag))
            return
        if item.raw.flag:
            self.err(item, msg("err-head-fixed", component=self.state.head_component or "-"))
            return
        units = item.raw.units
        if len(units) > NUMBERS.heads or len(set(units)) != len(units):
            self.err(item, msg("err-heads-count", count=NUMBERS.heads))
            return
        for u in units:
            if not self._own(item, u) or b.counter(u).component != self.state.head_component:
                if u in b.units and b.side(u) == CORTEO:
                    self.err(item, msg("err-head-other", unit=u, component=self.state.head_component or "-"))
                return
        self.heads = tuple(units)
        self.orders.append(Heads(tuple(units)))

    # -- movement (4-6) ------------------------------------------------------------------------------
    def _run(self, item: Item) -> None:
        """5c: declared before any unit moves; not in hand 1; five in the game."""
        if self.running:
            self.err(item, msg("err-run-twice"))
        elif self.spent or self.current is not None:
            self.err(item, msg("err-run-first"))
        elif self.state.hand <= NUMBERS.no_run_hand:
            self.err(item, msg("err-run-hand-1"))
        elif self.state.runs_left <= 0:
            self.err(item, msg("err-no-runs"))
        else:
            self.running = True
            self.board.notes.append(Note("note-run", (("left", str(self.state.runs_left - 1)),)))
            self.orders.append(Run())

    def _enter(self, item: Item) -> None:
        """8h: back in the third hand after leaving, by a hex of the same edge (N, S: same part)."""
        uid, label = item.raw.units[0], item.raw.hexes[0]
        h = self._hex(item, label)
        if h is None or not self._own(item, uid, active=False) or not self._turn_of(item, uid):
            return
        problem = self.check_enter(uid, h)
        if problem:
            self.err(item, problem)
            return
        self.board.set_loc(uid, h.label, "enter")
        self.orders.append(Enter(uid, h.label))

    def check_enter(self, uid: str, h: Hex) -> Message | None:
        b = self.board
        parts = off_parts(b.loc(uid))
        if parts is None:
            return msg("err-not-off", unit=uid)
        edge, part, back = parts
        if back > self.state.hand:
            return msg("err-back-later", unit=uid, hand=back)
        if h not in city().edge_hexes(edge, part if edge in ("N", "S") else None):
            return msg("err-wrong-edge", hex=h.label, edge=edge, part=part)
        problem = b.may_enter(uid, h)
        if problem:
            return problem
        if not b.stack_ok(uid, h):
            return msg("err-stack", hex=h.label)
        return None

    def _metro(self, item: Item) -> None:
        """5b: a unit that ended a hand in the metro may start from any station."""
        uid, label = item.raw.units[0], item.raw.hexes[0]
        h = self._hex(item, label)
        if h is None or not self._own(item, uid) or not self._turn_of(item, uid):
            return
        b = self.board
        start = b.hex(uid)
        if self.spent.get(uid) or start not in city().metro_set:
            self.err(item, msg("err-metro-start", unit=uid))
            return
        if h not in city().metro_set:
            self.err(item, msg("err-not-metro", hex=h.label))
            return
        if not b.stack_ok(uid, h) or b.at(h, POTERE):
            self.err(item, msg("err-stack", hex=h.label))
            return
        b.set_loc(uid, h.label, "metro")
        self.spent.setdefault(uid, Fraction(0))
        self.orders.append(Metro(uid, h.label))

    def _move(self, item: Item) -> None:
        uid = item.raw.units[0]
        if uid in self.board.mobiles:
            plan_scenario.move_mobile(self, item)
            return
        if not self._own(item, uid) or not self._turn_of(item, uid):
            return
        b = self.board
        if uid in self.stopped:
            self.err(item, msg("err-stopped", unit=uid))
            return
        hexes = []
        for label in item.raw.hexes:
            h = self._hex(item, label)
            if h is None:
                return
            hexes.append(h)
        if b.units[uid].presidio:
            start = b.hex(uid)
            assert start is not None
            if len(hexes) != 1 or city().objective_at(hexes[0]) is None or distance(start, hexes[0]) != 1:
                self.err(item, msg("err-presidio", unit=uid))
                return
        left = self.left(uid)
        if len(hexes) == 1 and (b.hex(uid) is None or hexes[0] not in open_neighbours(b.hex(uid))):  # type: ignore[arg-type]
            reach = b.reachable(uid, left)
            if hexes[0] not in reach:
                self.err(item, msg("err-unreachable", unit=uid, hex=hexes[0].label, points=str(left)),
                         msg("hint-reach", hexes=_labels(reach, hexes[0])) if reach else None)
                return
            hexes = list(reach[hexes[0]])
        problem, cost = b.check_path(uid, hexes, left)
        if problem:
            reach = b.reachable(uid, left)
            self.err(item, problem, msg("hint-reach", hexes=_labels(reach)) if reach else None)
            return
        problem = plan_scenario.check_going_home(self, uid, hexes[-1])
        if problem:
            self.err(item, problem)
            return
        start = b.hex(uid)
        assert start is not None
        b.set_loc(uid, hexes[-1].label, "move", (start.label, *(h.label for h in hexes)))
        self.spent[uid] = self.spent.get(uid, Fraction(0)) + cost
        end = hexes[-1]
        if end in b.enemy_zoc(self.seat) or b.stops(uid, end):
            self.stopped.add(uid)
        if b.type(uid).kind == "piantoni" and city().objective_at(end) is not None and not b.units[uid].presidio:
            b.units[uid] = replace(b.units[uid], presidio=True)  # 6b: back on an objective, bound again
        self.orders.append(Move(uid, tuple(h.label for h in hexes)))
        plan_scenario.sweep(self, uid, tuple(hexes))

    def _throw(self, item: Item) -> None:
        """7: during movement, each throwing unit once, for half its points."""
        units = list(item.raw.units)
        target = self._hex(item, item.raw.hexes[0])
        if target is None or not all(self._own(item, u) for u in units) or not self._turn_of(item, units[0]):
            return
        b = self.board
        if len(units) > 2 or len({b.hex(u) for u in units}) > 1:
            self.err(item, msg("err-throw-stack"))
            return
        for u in units:
            if u in self.thrown:
                self.err(item, msg("err-thrown", unit=u))
                return
            if u in self.finished:
                self.err(item, msg("err-unit-done", unit=u))
                return
            half = self.budget(u) / 2
            if self.left(u) < half:
                self.err(item, msg("err-throw-points", unit=u, points=str(half)))
                return
        problem = b.throw_problem(units, target)
        if problem is None and throws.odds(b, units, target) is None:
            problem = msg("err-throw-weak", hex=target.label)
        if problem:
            self.err(item, problem)
            return
        for u in units:
            self.thrown.add(u)
            self.spent[u] = self.spent.get(u, Fraction(0)) + self.budget(u) / 2
        if self.dice is not None:
            throws.throw(b, units, target, self.dice)
        self.orders.append(ThrowAt(tuple(units), target.label))

    def _barricade(self, item: Item) -> None:
        """5d: 2 points, in a hex of the unit's ZOC the enemy does not occupy; 10 in all; never
        on objectives, crowded places, stairs, gardens or forbidden hexes."""
        uid = item.raw.units[0]
        h = self._hex(item, item.raw.hexes[0])
        if h is None or not self._own(item, uid) or not self._turn_of(item, uid):
            return
        b = self.board
        if self.seat != CORTEO:
            self.err(item, msg("err-corteo-only", keyword="BARRICADE"))
            return
        if b.barricades_left <= 0:
            self.err(item, msg("err-no-barricades"))
            return
        if self.left(uid) < NUMBERS.barricade_cost:
            self.err(item, msg("err-points", unit=uid, points=NUMBERS.barricade_cost))
            return
        if h not in b.zoc(uid):
            self.err(item, msg("err-not-in-zoc", unit=uid, hex=h.label))
            return
        terrain = b.terrain(h)
        if terrain in ("obiettivo", "affollato", "scale", "giardino", "caseggiato", "fiume") or b.blocked(h) \
                or b.at(h):
            self.err(item, msg("err-barricade-here", hex=h.label, terrain=msg(f"terrain-{terrain}")))
            return
        if self._near_presidential(item, h):
            return
        b.barricades[h.label] = self.state.hand
        b.barricades_left -= 1
        self.spent[uid] = self.spent.get(uid, Fraction(0)) + NUMBERS.barricade_cost
        b.notes.append(Note("note-barricade", (("unit", uid), ("hex", h.label))))
        self.orders.append(Build(uid, h.label))

    def _clear(self, item: Item) -> None:
        """5d: from the hand after it was built, 2 points, in the unit's ZOC, one per unit a turn
        (advanced game; never in the basic game); 13c: jams only by vigili."""
        uid = item.raw.units[0]
        h = self._hex(item, item.raw.hexes[0])
        if h is None or not self._own(item, uid) or not self._turn_of(item, uid):
            return
        b = self.board
        if uid in self.cleared:
            self.err(item, msg("err-cleared", unit=uid))
            return
        if self.left(uid) < NUMBERS.barricade_cost:
            self.err(item, msg("err-points", unit=uid, points=NUMBERS.barricade_cost))
            return
        if h not in b.zoc(uid) and h not in _all_neighbours(b, uid):
            self.err(item, msg("err-not-in-zoc", unit=uid, hex=h.label))
            return
        if h.label in b.jams:
            if b.type(uid).kind != "vigili":
                self.err(item, msg("err-jam-vigili"))
                return
            b.jams.discard(h.label)
        elif h.label in b.barricades:
            if self.state.mode == "basic":
                self.err(item, msg("err-clear-basic"))
                return
            if b.barricades[h.label] >= self.state.hand:
                self.err(item, msg("err-clear-new", hex=h.label))
                return
            del b.barricades[h.label]
            sc = plan_scenario.of(self)
            if sc is not None and sc.flag("barricades_reused"):
                b.barricades_left += 1  # D Sociale: "possono però essere riutilizzati senza limiti"
        else:
            self.err(item, msg("err-nothing-to-clear", hex=h.label))
            return
        self.cleared.add(uid)
        self.spent[uid] = self.spent.get(uid, Fraction(0)) + NUMBERS.barricade_cost
        b.notes.append(Note("note-cleared", (("unit", uid), ("hex", h.label))))
        self.orders.append(Clear(uid, h.label))

    def _jam(self, item: Item) -> None:
        h = self._hex(item, item.raw.hexes[0])
        if h is None:
            return
        if not self.state.has("jams"):
            self.err(item, msg("err-option", option="jams"))
            return
        if self.jam_tried:
            self.err(item, msg("err-jam-once"))
            return
        problem = throws.jam_problem(self.board, h)
        if problem:
            self.err(item, problem)
            return
        if self._near_presidential(item, h):
            return
        self.jam_tried = True
        if self.dice is not None:
            throws.try_jam(self.board, h, self.dice)
        self.orders.append(Jam(h.label))

    def _near_presidential(self, item: Item, h: Hex) -> bool:
        """D Internazionalista: "Entro 4 esa di distanza dal Corteo Presidenziale non si possono
        erigere barricate o ingorghi." True (and the line refused) when ``h`` is that close."""
        sc = plan_scenario.of(self)
        piece = mobiles.near_presidential(self.board, sc, h) if sc is not None else None
        if piece is not None and sc is not None:
            self.err(item, msg("err-near-presidential", hex=h.label, piece=piece, reach=sc.number("no_pieces_reach")))
            return True
        return False

    # -- combat (8) ------------------------------------------------------------------------------------
    def _attack(self, item: Item) -> None:
        b = self.board
        attackers: list[str] = []
        defenders: list[str] = []
        for uid in item.raw.units:
            if not self._own(item, uid):
                return
            for u in combat.group_of(b, uid):
                if u not in attackers:
                    attackers.append(u)
        for uid in item.raw.defenders:
            if uid not in b.units or b.side(uid) == self.seat or not b.active(uid):
                self.err(item, msg("err-not-enemy", unit=uid))
                return
            for u in combat.group_of(b, uid):
                if u not in defenders:
                    defenders.append(u)
        problem = self.check_attack(attackers, defenders)
        if problem:
            self.err(item, problem)
            return
        self.do_attack(attackers, defenders, item.raw.flag == "advance")

    def check_attack(self, attackers: list[str], defenders: list[str]) -> Message | None:
        b = self.board
        busy = [u for u in attackers + defenders if u in self.engaged]
        if busy:
            return msg("err-engaged", unit=busy[0])
        a_groups = _groups(b, attackers)
        d_groups = _groups(b, defenders)
        if len(a_groups) > 1 and len(d_groups) > 1:
            return msg("err-many-many")
        for ag in a_groups:
            for dg in d_groups:
                if not combat.can_fight(b, ag, dg):
                    return msg("err-not-in-contact", a=ag[0], d=dg[0])
        return None

    def do_attack(self, attackers: list[str], defenders: list[str], advance: bool) -> None:
        self.engaged.update(attackers)
        self.engaged.update(defenders)
        self.orders.append(Attack(tuple(attackers), tuple(defenders), advance))
        if self.dice is not None:
            live_a = [u for u in attackers if self.board.active(u)]
            live_d = [u for u in defenders if self.board.active(u)]
            if live_a and live_d and combat.can_fight(self.board, live_a, live_d):
                combat.fight(self.board, live_a, live_d, advance, self.dice)

    # -- what the sheet leaves out ------------------------------------------------------------------------
    def _finish(self) -> None:
        from pbem.games.corteo import defaults

        if self.current is not None:
            self.finished.add(self.current)
        defaults.complete(self)


@cache
def start_hexes() -> frozenset[Hex]:
    """The hexes of the corteo's place of formation (3a), as a set of the City's own Hex objects (those
    ``hexof`` gives): a lookup finds its key by identity, without comparing fields."""
    return frozenset(hexof(h.label) or h for h in city().place_hexes(city().start))


@lru_cache(maxsize=64)
def _base_components(ids: tuple[str, ...]) -> frozenset[str | None]:
    """The components of the corteo's base counters among ``ids`` (3a: the Head chosen at the set-up):
    a game's roster, read once rather than scanned for every HEAD line."""
    return frozenset(counter(u).component for u in ids if counter(u).side == CORTEO and counter(u).set == "base")


@cache
def _near_places(h: Hex, reach: int) -> bool:
    """Whether ``h`` lies within ``reach`` of a metro, barracks or objective hex (3a: the vigili)."""
    return any(distance(h, x) <= reach for x in city().metro_hexes + city().caserma_hexes + city().objective_hexes)


def _labels(reach: dict[Hex, tuple[Hex, ...]], near: Hex | None = None) -> str:
    """The hexes a unit reaches, the nearest to ``near`` (the hex asked for) first."""
    labels = sorted(reach, key=lambda h: (distance(h, near) if near else 0, h.row, h.col))
    return " ".join(h.label for h in labels[:30]) + (" ..." if len(labels) > 30 else "")


def _groups(board: Board, units: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    among = set(units)
    grouped: set[str] = set()  # the units of the groups in ``out``
    for u in units:
        if u in grouped:
            continue
        out.append([v for v in combat.group_of(board, u) if v in among] or [u])
        grouped.update(out[-1])
    return out


def _all_neighbours(board: Board, uid: str) -> tuple[Hex, ...]:
    h = board.hex(uid)
    return open_neighbours(h) if h is not None else ()


def reinforcement_due(state: State) -> int | dict[str, int] | None:
    """6c / B 5: the points (advanced) or the units (basic) the power brings in this hand; a
    scenario's order of service (D) names the units."""
    sc = plan_scenario.scenario(state.scenario)
    if sc is not None and sc.flag("all_at_start"):
        return None  # D Sociale: "il giocatore-potere dispone le sue unità prima che cominci il gioco"
    if sc is not None and sc.reinforcements:
        listed = sc.reinforcements.get(state.hand)
        return dict(listed) if listed is not None else None
    if state.mode == "advanced":
        return NUMBERS.reinforcement_points.get(state.hand)
    units = NUMBERS.reinforcement_units.get(state.hand)
    return dict(units) if units is not None else None


#: Each keyword's method (``_place`` for PLACE), named once.
_HANDLERS = {k: f"_{k.lower()}" for keys in ALLOWED.values() for k in keys} | {k: f"_{k.lower()}" for k in STANDING}
_FIRST = {"RUN": 0, "TOWARD": 2, "PUSH": 2, "BARRACKS": 2, "PASS": 2, "HEAD": 1}


def plan_items(state: State, seat: str, items: list[Item], dice: Dice | None = None) -> Planner:
    return Planner(state, seat, dice).run(items)


def plan_orders(state: State, seat: str, orders: tuple[Order, ...], dice: Dice | None = None) -> Planner:
    items = [Item(0, o.canonical(), raw_of(o)) for o in orders]
    return Planner(state, seat, dice).run(items)


__all__ = ["Planner", "plan_items", "plan_orders", "reinforcement_due", "other"]
