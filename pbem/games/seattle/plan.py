"""A side's orders for the current phase, checked and played on a `Board`.

`Planner` reads raw orders (from a text, or typed orders from a filed sheet) in the order the
phase needs them, checks each against the rules of that phase, and plays the deterministic
part on its board (moves, placements, removals, calls).  Choices a side leaves out where the
rules demand one (a removal, a placement, an event's choice) are filled in with the documented
default and written into the sheet, so the echo shows exactly what will happen.  The dice
parts (barricade tries, combats) are only checked here; `flow` plays them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.core.i18n import Message, msg
from pbem.core.rules import Diagnostic
from pbem.games.seattle.board import Board, other
from pbem.games.seattle.map import MAP
from pbem.games.seattle.orders import (
    Attack,
    Attrition,
    Barricade,
    Bureaucracy,
    Call,
    Choose,
    Decline,
    DefenceMunitions,
    Deploy,
    Escalate,
    Item,
    MoveTo,
    Order,
    Pass,
    Place,
    Points,
    Raw,
    Remove,
    Reserve,
    Targets,
)
from pbem.games.seattle.state import AUTH, AWAY, DEM, DESK, OUT, PILE, RESERVE, State
from pbem.games.seattle.tables import TABLES

#: Which keywords each phase takes from each side (besides the standing instructions and PASS).
ALLOWED: dict[tuple[str, str], tuple[str, ...]] = {
    ("setup", DEM): ("PLACE",),
    ("reinforcements", DEM): ("PLACE", "DECLINE", "CHOOSE", "REMOVE", "ATTRITION"),
    ("reinforcements", AUTH): ("DECLINE", "REMOVE", "BUREAUCRACY", "CALL", "ESCALATE"),
    ("demonstrator-movement", DEM): ("MOVE", "BARRICADE"),
    ("authority-reaction", AUTH): ("MOVE", "DEPLOY", "ESCALATE"),
    ("demonstrator-combat", DEM): ("ATTACK",),
    ("authority-movement", AUTH): ("MOVE", "RESERVE", "DEPLOY", "ESCALATE"),
    ("demonstrator-reaction", DEM): ("MOVE",),
    ("authority-combat", AUTH): ("ATTACK", "ESCALATE"),
}
STANDING = ("TARGETS", "POINTS", "DEFENCE", "PASS")
#: The order in which a phase's orders are played, whatever the order of the lines.
_PRIORITY = {"ESCALATE": 0, "CHOOSE": 1, "REMOVE": 2, "ATTRITION": 3, "BUREAUCRACY": 4, "DECLINE": 5, "PLACE": 6,
             "CALL": 7, "RESERVE": 8, "DEPLOY": 9, "MOVE": 10, "BARRICADE": 11, "ATTACK": 12}


def raw_of(order: Order) -> Raw:
    """A typed order back in the parser's form (a filed sheet is checked again on resolution)."""
    if isinstance(order, Place):
        return Raw("PLACE", (order.unit,), (order.area,))
    if isinstance(order, MoveTo):
        return Raw("MOVE", (order.unit,), order.path)
    if isinstance(order, Deploy):
        return Raw("DEPLOY", (order.unit,), (order.area,))
    if isinstance(order, Attack):
        return Raw("ATTACK", order.attackers, (), order.defenders, order.munitions, order.check, order.arrest)
    if isinstance(order, Targets):
        return Raw("TARGETS", order.items)
    if isinstance(order, Points):
        return Raw("POINTS", flag=order.side)
    if isinstance(order, DefenceMunitions):
        return Raw("DEFENCE", flag="on" if order.on else "off")
    if isinstance(order, (Escalate, Pass)):
        return Raw("ESCALATE" if isinstance(order, Escalate) else "PASS")
    keyword = {Decline: "DECLINE", Choose: "CHOOSE", Remove: "REMOVE", Attrition: "ATTRITION",
               Bureaucracy: "BUREAUCRACY", Call: "CALL", Reserve: "RESERVE", Barricade: "BARRICADE"}[type(order)]
    return Raw(keyword, (order.unit,))  # type: ignore[union-attr]


@dataclass
class Planner:
    state: State
    seat: str
    board: Board = field(init=False)
    orders: list[Order] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # units given an order in this sheet
    arrivals: list[str] = field(default_factory=list)  # Demonstrator units still to place
    chosen: int = 0
    removed: int = 0
    attrition: bool = False
    bureaucracy: bool = False
    barricade_areas: set[str] = field(default_factory=set)
    moved: int = 0  # reaction moves so far
    escalate: bool = False

    def __post_init__(self) -> None:
        self.board = Board(self.state)
        p = self.state.pending
        if p is not None and self.seat == DEM:
            self.arrivals = list(p.arrivals)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    @property
    def stage(self) -> str:
        return self.state.stage

    def err(self, item: Item | None, message: Message, hint: Message | None = None) -> None:
        line, text = (item.line, item.text) if item else (0, "")
        self.diagnostics.append(Diagnostic(line, text, message, hint))

    # -- the sheet ---------------------------------------------------------------------------------
    def run(self, items: list[Item]) -> "Planner":
        allowed = ALLOWED.get((self.stage, self.seat))
        if allowed is None:
            self.err(None, msg("err-not-your-phase", phase=msg(f"phase-{self.stage}")))
            return self
        ordered = sorted(items, key=lambda it: (_PRIORITY.get(it.raw.keyword, 99), it.line))
        for item in ordered:
            k = item.raw.keyword
            if k not in allowed and k not in STANDING:
                self.err(item, msg("err-not-now", keyword=k, phase=msg(f"phase-{self.stage}")),
                         msg("hint-allowed", keywords=", ".join(allowed + STANDING)))
                continue
            getattr(self, f"_{k.lower()}")(item)
        if self.ok:
            self._finish()
        # One order for the sheet whatever the order of the lines (the canonical text).
        self.orders.sort(key=lambda o: _PRIORITY.get(raw_of(o).keyword, 99))
        return self

    def _finish(self) -> None:
        """What the phase requires that the sheet left out: the documented defaults."""
        if self.stage in ("setup", "reinforcements") and self.seat == DEM:
            self._default_dem_reinforcements()
        elif self.stage == "reinforcements":
            self._default_auth_reinforcements()
        if self.stage in ("setup", "reinforcements", "demonstrator-movement", "demonstrator-reaction"):
            for area in self.board.crowding():
                self.err(None, msg("err-stacking", area=msg(f"area-{area}"), max=TABLES.rules.crowds_per_area))

    # -- units named in orders ---------------------------------------------------------------
    def expand(self, words: tuple[str, ...]) -> list[str]:
        """``AN 2`` -> ``AN AN``; ids and single types as written."""
        out: list[str] = []
        for w in words:
            if w.isdigit() and out:
                out.extend([out[-1]] * (min(int(w), 30) - 1))
            else:
                out.append(w)
        return out

    def pick(self, item: Item, word: str, candidates: list[str], what: Message) -> str | None:
        """The counter a word names among ``candidates`` (an id, or a type: its first one free)."""
        free = [u for u in candidates if u not in self.used]
        if word[-1].isdigit():
            if word in free:
                return word
            where = self._where(word)
            self.err(item, msg("err-unit-not-here", unit=word, what=what, where=where),
                     msg("hint-candidates", units=_ids(free)) if free else None)
            return None
        from pbem.games.seattle.orders import KINDS

        for u in free:
            if self.board.type(u).code == word or KINDS.get(word) == self.board.kind(u):
                return u
        self.err(item, msg("err-no-such-left", code=word, what=what),
                 msg("hint-candidates", units=_ids(free)) if free else None)
        return None

    def _where(self, word: str) -> Message:
        if word not in self.board.loc:
            return msg("where-unknown")
        loc = self.board.loc[word]
        if MAP.has_area(loc):
            return msg("where-area", area=msg(f"area-{loc}"))
        if word in self.used:
            return msg("where-ordered")
        return msg(f"where-{loc.split(':')[0]}")

    # -- standing instructions, PASS, ESCALATE --------------------------------------------------
    def _targets(self, item: Item) -> None:
        self.orders.append(Targets(item.raw.units))

    def _points(self, item: Item) -> None:
        if self.seat != AUTH:
            self.err(item, msg("err-authorities-only", keyword="POINTS"))
            return
        self.orders.append(Points(item.raw.flag))

    def _defence(self, item: Item) -> None:
        if self.seat != AUTH:
            self.err(item, msg("err-authorities-only", keyword="DEFENCE"))
            return
        self.orders.append(DefenceMunitions(item.raw.flag == "on"))

    def _pass(self, item: Item) -> None:
        self.orders.append(Pass())

    def _escalate(self, item: Item) -> None:
        """7.3: Phase 2 once an Authority unit was removed by a morale check; Phase 3 after a
        whole turn in Phase 2; never back, never past 3."""
        b = self.board
        if self.escalate:
            self.err(item, msg("err-escalate-twice"))
            return
        if b.escalation == 1 and not b.morale_loss:
            self.err(item, msg("err-escalate-2"))
            return
        if b.escalation == 2 and (b.phase2_full_from is None or self.state.turn < b.phase2_full_from + 1):
            self.err(item, msg("err-escalate-3", turn=(b.phase2_full_from or self.state.turn) + 1))
            return
        if b.escalation >= 3:
            self.err(item, msg("err-escalate-max"))
            return
        self.escalate = True
        escalate(b, self.stage, self.state.turn)
        self.orders.append(Escalate())

    # -- set-up and reinforcements (4.2) -------------------------------------------------------
    def _place(self, item: Item) -> None:
        area = item.raw.areas[0]
        for word in self.expand(item.raw.units):
            unit = self.pick(item, word, self.arrivals, msg("what-arriving"))
            if unit is None:
                continue
            problem = self.check_place(unit, area)
            if problem:
                self.err(item, problem, msg("hint-place-areas", areas=", ".join(self.place_areas(unit))))
                continue
            self.used.add(unit)
            self.arrivals.remove(unit)
            self.board.put(unit, area, "place")
            self.orders.append(Place(unit, area))

    def check_place(self, unit: str, area: str) -> Message | None:
        b = self.board
        if self.stage == "setup" and not MAP.area(area).is_core:
            return msg("err-setup-core", area=msg(f"area-{area}"))
        if self.stage != "setup" and b.at(area, AUTH):
            return msg("err-place-authorities", area=msg(f"area-{area}"))
        if b.kind(unit) == "crowd" and b.crowds_at(area) >= TABLES.rules.crowds_per_area:
            return msg("err-stacking", area=msg(f"area-{area}"), max=TABLES.rules.crowds_per_area)
        return None

    def place_areas(self, unit: str) -> list[str]:
        """Where ``unit`` may be placed now, best first (the default placement): areas without
        Demonstrators before the others (each core area held scores once, 3.4), then by
        exposure, fewest Demonstrators first, map order."""
        b = self.board
        ok = [a for a in MAP.areas if self.check_place(unit, a.id) is None]
        ok.sort(key=lambda a: (bool(b.at(a.id, DEM)), -a.exposure, len(b.at(a.id, DEM)), MAP.area_ids.index(a.id)))
        return [a.id for a in ok]

    def _decline(self, item: Item) -> None:
        p = self.state.pending
        if self.seat == DEM:
            for word in self.expand(item.raw.units):
                unit = self.pick(item, word, self.arrivals, msg("what-arriving"))
                if unit is not None:
                    self.used.add(unit)
                    self.arrivals.remove(unit)
                    self.board.put(unit, PILE, "decline")
                    self.orders.append(Decline(unit))
            return
        for word in self.expand(item.raw.units):
            unit = self.pick(item, word, list(p.spd_arrivals) if p else [], msg("what-spd-arriving"))
            if unit is not None:
                self.used.add(unit)
                self.orders.append(Decline(unit))

    def choose_candidates(self) -> list[str]:
        p = self.state.pending
        b = self.board
        kinds = ("group", "crowd") if p is not None and p.choose_crowds else ("group",)
        # Not a unit this sheet took off the map: it left in this phase and cannot come back in it.
        return [u for u in b.units(DEM, PILE) if b.kind(u) in kinds and u not in self.arrivals and u not in self.used]

    def _choose(self, item: Item) -> None:
        p = self.state.pending
        for word in self.expand(item.raw.units):
            if p is None or self.chosen >= p.choose:
                self.err(item, msg("err-choose-count", count=p.choose if p else 0))
                return
            unit = self.pick(item, word, self.choose_candidates(), msg("what-choose"))
            if unit is not None:
                self.do_choose(unit)

    def do_choose(self, unit: str) -> None:
        self.chosen += 1
        self.arrivals.append(unit)
        self.orders.append(Choose(unit))

    def remove_candidates(self) -> list[str]:
        b = self.board
        if self.seat == DEM:
            units = [u for u in b.map_units(DEM) if b.kind(u) == "group"]
        else:
            units = [u for u in b.units(AUTH) if b.type(u).key == "spd" and (b.on_map(u) or b.loc[u] == RESERVE)]
        # The default order: the Reserve Pool first, then the least exposed areas.
        return sorted(units, key=lambda u: (b.loc[u] != RESERVE, _exposure(b.loc[u]), u))

    def _remove(self, item: Item) -> None:
        p = self.state.pending
        need = (p.group_removals if self.seat == DEM else p.spd_removals) if p else 0
        for word in self.expand(item.raw.units):
            if self.removed >= need:
                self.err(item, msg("err-remove-count", count=need))
                return
            unit = self.pick(item, word, self.remove_candidates(), msg("what-remove"))
            if unit is not None:
                self.do_remove(unit)

    def do_remove(self, unit: str) -> None:
        self.removed += 1
        self.used.add(unit)
        self.board.put(unit, PILE, "remove")
        self.orders.append(Remove(unit))

    def attrition_candidates(self) -> list[str]:
        """Event 51-53: a Crowd on the map, or one back from the night (7.1) still to be placed;
        not one the table has just drawn (declining it would cost nothing)."""
        b = self.board
        units = [u for u in b.map_units(DEM) if b.kind(u) == "crowd" and u not in self.used]
        units += [u for u in self.arrivals if b.kind(u) == "crowd" and b.loc[u] == AWAY]
        return sorted(units, key=lambda u: (_exposure(b.loc[u]), u))

    def _attrition(self, item: Item) -> None:
        p = self.state.pending
        if p is None or not p.attrition or self.attrition:
            self.err(item, msg("err-no-attrition"))
            return
        unit = self.pick(item, item.raw.units[0], self.attrition_candidates(), msg("what-crowd-on-map"))
        if unit is not None:
            self.do_attrition(unit)

    def do_attrition(self, unit: str) -> None:
        self.attrition = True
        self.used.add(unit)
        if unit in self.arrivals:
            self.arrivals.remove(unit)
        self.board.put(unit, PILE, "attrition")
        self.orders.append(Attrition(unit))

    def bureaucracy_candidates(self) -> list[str]:
        b = self.board
        p = self.state.pending
        arriving = set(p.spd_arrivals) if p else set()
        units = [u for u in b.units(AUTH) if b.type(u).key == "spd" and b.loc[u] not in (OUT, DESK)]
        order = {PILE: 0, RESERVE: 1}
        return sorted(units, key=lambda u: (u in arriving, order.get(b.loc[u], 2), _exposure(b.loc[u]), u))

    def _bureaucracy(self, item: Item) -> None:
        p = self.state.pending
        if p is None or not p.bureaucracy or self.bureaucracy:
            self.err(item, msg("err-no-bureaucracy"))
            return
        unit = self.pick(item, item.raw.units[0], self.bureaucracy_candidates(), msg("what-spd"))
        if unit is not None:
            self.do_bureaucracy(unit)

    def do_bureaucracy(self, unit: str) -> None:
        self.bureaucracy = True
        self.used.add(unit)
        self.board.put(unit, DESK, "desk")
        self.orders.append(Bureaucracy(unit))

    def call_candidates(self) -> list[str]:
        """4.22: any available SPD, WSP, NGMP (WSP and NGMP not in escalation Phase 1)."""
        b = self.board
        p = self.state.pending
        arriving = set(p.spd_arrivals) if p else set()
        allowed = TABLES.escalation_phase(b.escalation).emergency_wsp_ngmp
        return [u for u in b.units(AUTH, PILE) if u not in arriving and (allowed or b.type(u).key == "spd")]

    def _call(self, item: Item) -> None:
        for word in self.expand(item.raw.units):
            code = word.rstrip("0123456789")
            if code in ("WSP", "NG") and not TABLES.escalation_phase(self.board.escalation).emergency_wsp_ngmp:
                self.err(item, msg("err-call-phase-1", unit=word))
                continue
            unit = self.pick(item, word, self.call_candidates(), msg("what-available"))
            if unit is not None:
                self.used.add(unit)
                self.board.put(unit, arrival_of(self.state, unit), "call")
                self.orders.append(Call(unit))

    def _default_dem_reinforcements(self) -> None:
        p = self.state.pending
        if p is None:
            return
        if self.stage == "reinforcements":
            while self.chosen < p.choose:
                cands = self.choose_candidates()
                if not cands:
                    break
                self.do_choose(cands[0])
            while self.removed < p.group_removals:
                cands = [u for u in self.remove_candidates() if u not in self.used]
                if not cands:
                    break
                self.do_remove(cands[0])
            if p.attrition and not self.attrition:
                cands = self.attrition_candidates()
                if cands:
                    self.do_attrition(cands[0])
        for unit in list(self.arrivals):
            areas = self.place_areas(unit)
            self.used.add(unit)
            self.arrivals.remove(unit)
            if areas:
                self.board.put(unit, areas[0], "place")
                self.orders.append(Place(unit, areas[0]))
            else:
                self.board.put(unit, PILE, "decline")
                self.orders.append(Decline(unit))

    def _default_auth_reinforcements(self) -> None:
        p = self.state.pending
        if p is None:
            return
        while self.removed < p.spd_removals:
            cands = [u for u in self.remove_candidates() if u not in self.used]
            if not cands:
                break
            self.do_remove(cands[0])
        if p.bureaucracy and not self.bureaucracy:
            cands = [u for u in self.bureaucracy_candidates() if u not in self.used]
            if cands:
                self.do_bureaucracy(cands[0])
        for unit in p.spd_arrivals:
            if unit not in self.used:
                self.board.put(unit, RESERVE, "arrive")

    # -- movement (5.0, 5.1) and barricades (7.2) ----------------------------------------------
    def reaction(self) -> bool:
        return self.stage.endswith("-reaction")

    def movable(self) -> list[str]:
        """Units this side may move now (5.0, 5.1, events 21, 23, 25)."""
        b = self.board
        dem_turn = self.stage.startswith("demonstrator")
        units = [u for u in b.map_units(self.seat) if u not in self.used
                 and b.still_by_event(u, dem_turn) is None]
        if self.reaction() and self.seat == DEM:
            units = [u for u in units if b.kind(u) == "group"]
        return units

    def _move(self, item: Item) -> None:
        b = self.board
        words = self.expand(item.raw.units)
        if len(words) != 1:
            self.err(item, msg("err-one-unit", keyword="MOVE"))
            return
        word = words[0]
        if word[-1].isdigit() and word in b.loc and b.on_map(word) and b.side(word) == self.seat:
            still = b.still_by_event(word, self.stage.startswith("demonstrator"))
            if still:
                self.err(item, msg("err-still", unit=word, event=msg(f"event-{still}")))
                return
        if self.reaction() and self.moved >= b.reaction_limit(self.seat):
            self.err(item, msg("err-reaction-limit", limit=b.reaction_limit(self.seat)))
            return
        limit = TABLES.rules.reaction_move if self.reaction() else None
        candidates = self.movable()
        if not word[-1].isdigit() and len(item.raw.areas) == 1:
            # A type or kind (MOVE GROUP westlake): the first such unit that can get there.
            able = [u for u in candidates if item.raw.areas[0] in b.reachable(u, limit)]
            candidates = able + [u for u in candidates if u not in able]
        unit = self.pick(item, word, candidates, msg("what-movable"))
        if unit is None:
            return
        path = tuple(item.raw.areas)
        if len(path) == 1 and not MAP.linked(b.loc[unit], path[0]) and path[0] != b.loc[unit]:
            reach = b.reachable(unit, limit)
            if path[0] not in reach:
                self.err(item, msg("err-unreachable", unit=unit, area=msg(f"area-{path[0]}"),
                                   move=limit or b.type(unit).move),
                         msg("hint-reachable", areas=", ".join(sorted(reach))) if reach else None)
                return
            path = reach[path[0]]
        problem = b.check_path(unit, path, limit)
        if problem:
            reach = b.reachable(unit, limit)
            self.err(item, problem, msg("hint-reachable", areas=", ".join(sorted(reach))) if reach else None)
            return
        self.used.add(unit)
        self.moved += 1
        b.move(unit, path, "react" if self.reaction() else "move")
        self.orders.append(MoveTo(unit, path))

    def _reserve(self, item: Item) -> None:
        for word in self.expand(item.raw.units):
            unit = self.pick(item, word, self.board.map_units(AUTH), msg("what-on-map"))
            if unit is not None:
                self.used.add(unit)
                self.board.put(unit, RESERVE, "reserve")
                self.orders.append(Reserve(unit))

    def _deploy(self, item: Item) -> None:
        """5.0: from the Reserve Pool to any area; 5.1: one unit per reaction."""
        area = item.raw.areas[0]
        for word in self.expand(item.raw.units):
            if self.reaction() and self.moved >= self.board.reaction_limit(AUTH):
                self.err(item, msg("err-reaction-limit", limit=self.board.reaction_limit(AUTH)))
                return
            pool = [u for u in self.board.units(AUTH, RESERVE)]
            unit = self.pick(item, word, pool, msg("what-in-pool"))
            if unit is not None:
                self.used.add(unit)
                self.moved += 1
                self.board.put(unit, area, "deploy")
                self.orders.append(Deploy(unit, area))

    def _barricade(self, item: Item) -> None:
        """7.2: instead of moving, in escalation Phase 2 or 3; one per area; 6 markers."""
        b = self.board
        if not TABLES.escalation_phase(b.escalation).barricades:
            self.err(item, msg("err-barricade-phase"))
            return
        for word in self.expand(item.raw.units):
            unit = self.pick(item, word, [u for u in b.map_units(DEM)], msg("what-on-map"))
            if unit is None:
                continue
            area = b.loc[unit]
            if area in b.barricades:
                self.err(item, msg("err-barricade-there", area=msg(f"area-{area}")))
                continue
            if len(b.barricades | self.barricade_areas) >= TABLES.markers[0].count and area not in self.barricade_areas:
                self.err(item, msg("err-barricade-none-left", count=TABLES.markers[0].count))
                continue
            self.used.add(unit)
            self.barricade_areas.add(area)
            self.orders.append(Barricade(unit))

    # -- combat (6.1, 6.2) ---------------------------------------------------------------------
    def attackers(self) -> list[str]:
        """Units that may attack now: on the map with enemies, not yet in a combat (6.1), not
        kept out by an event (23: Organised Labour; 43-44: Crowds, in the Demonstrator turn)."""
        b = self.board
        out = []
        for u in b.map_units(self.seat):
            if u in b.engaged or u in self.used or not b.enemies_at(b.loc[u], self.seat):
                continue
            if self.seat == DEM and b.in_force("lunch-break") and b.type(u).key == "organised-labour":
                continue
            if self.seat == DEM and b.in_force("non-violent-protest") and b.kind(u) == "crowd":
                continue
            out.append(u)
        return out

    def _attack(self, item: Item) -> None:
        b = self.board
        raw = item.raw
        if raw.areas:
            area = raw.areas[0]
            attackers = [u for u in self.attackers() if b.loc[u] == area]
            defenders = [u for u in b.enemies_at(area, self.seat) if u not in b.engaged and u not in self.used]
            if not attackers or not defenders:
                self.err(item, msg("err-attack-nothing", area=msg(f"area-{area}")))
                return
        else:
            attackers = []
            named = [d for d in raw.defenders if d[-1].isdigit() and d in b.loc]
            there = {b.loc[d] for d in named}
            for word in self.expand(raw.units):
                # A type or kind (ATTACK GROUP ON SPD1): first the units where the named enemies are.
                free = [u for u in self.attackers() if u not in attackers]
                free.sort(key=lambda u: b.loc[u] not in there)
                unit = self.pick(item, word, free, msg("what-attacker"))
                if unit is None:
                    return
                attackers.append(unit)
            area = b.loc[attackers[0]]
            defenders = []
            enemies = [u for u in b.enemies_at(area, self.seat) if u not in b.engaged and u not in self.used]
            for word in self.expand(raw.defenders):
                unit = self.pick(item, word, [u for u in enemies if u not in defenders], msg("what-defender", area=msg(f"area-{area}")))
                if unit is None:
                    return
                defenders.append(unit)
        if any(b.loc[u] != area for u in attackers):
            self.err(item, msg("err-attack-one-area"))
            return
        if self.seat == DEM and b.in_force("faction-friction") and len({b.types[u] for u in attackers}) > 1:
            self.err(item, msg("err-friction"))
            return
        munitions: tuple[str, ...] = ()
        if raw.munitions:
            if self.seat != AUTH:
                self.err(item, msg("err-authorities-only", keyword="MUNITIONS"))
                return
            if not TABLES.escalation_phase(b.escalation).special_munitions:
                self.err(item, msg("err-munitions-phase-1"))
                return
            if b.in_force("lost-the-key"):
                self.err(item, msg("err-munitions-key"))
                return
            munitions = tuple(attackers) if raw.munitions == ("ALL",) else tuple(raw.munitions)
            if any(u not in attackers for u in munitions):
                self.err(item, msg("err-munitions-attackers"))
                return
        for choice in (raw.check, raw.arrest):
            if choice is not None and choice not in defenders:
                self.err(item, msg("err-choice-defender", unit=choice), msg("hint-candidates", units=_ids(defenders)))
                return
        self.used.update(attackers)
        self.used.update(defenders)
        self.orders.append(Attack(tuple(attackers), tuple(defenders), munitions, raw.check, raw.arrest))


def escalate(board: Board, stage: str, turn: int) -> None:
    """Up one escalation phase (7.3); a turn counts as wholly in Phase 2 when Phase 2 began in
    its reinforcement phase (before either player turn)."""
    board.escalation += 1
    if board.escalation == 2:
        board.phase2_full_from = turn if stage == "reinforcements" else turn + 1
    board.notes.append(("note-escalation", str(board.escalation)))


def arrival_of(state: State, unit: str) -> str:
    """Where an emergency unit called now goes (4.22): the Reserve Pool at once (SPD) or the turn
    track (WSP, NGMP: two turns later), one turn earlier or later under events 31-34."""
    from pbem.games.seattle.state import track

    t = TABLES.unit(Board(state).types[unit])
    delay = TABLES.rules.emergency_delay[t.key]
    ev = state.event
    if ev is not None and ev.turn == state.turn:
        delay += next(e.arrival_delay for e in TABLES.events if e.key == ev.key)
    delay = max(0, delay)
    return RESERVE if delay == 0 else track(state.turn + delay)


def _exposure(loc: str) -> int:
    return MAP.area(loc).exposure if MAP.has_area(loc) else -1


def _ids(units: list[str]) -> str:
    return " ".join(units[:24]) + (" ..." if len(units) > 24 else "")


def plan_items(state: State, seat: str, items: list[Item]) -> Planner:
    return Planner(state, seat).run(items)


def plan_orders(state: State, seat: str, orders: tuple[Order, ...]) -> Planner:
    items = [Item(0, o.canonical(), raw_of(o)) for o in orders]
    return Planner(state, seat).run(items)


__all__ = ["AWAY", "Planner", "plan_items", "plan_orders", "escalate", "arrival_of", "other"]
