"""A mutable working copy of the position, with the rule checks that every step shares.

The parser's checks, the resolution, the order template and the random orders all play on a
`Board`, so they agree by construction.  Checks return a `Message` (why not) or ``None``;
the matching methods apply the change and keep the record for the report.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from pbem.core.i18n import Message, msg
from pbem.games.seattle.map import MAP
from pbem.games.seattle.state import (
    AUTH,
    AWAY,
    DEM,
    OUT,
    PILE,
    RESERVE,
    BarricadeTry,
    Combat,
    Move,
    PhaseLog,
    State,
    Unit,
    Visibility,
)
from pbem.games.seattle.tables import TABLES, UnitType, add_visibility

#: Events that keep a faction still, and when (4.1).
_STILL = {"anarchists-argue": "turn", "costume-broke": "turn", "lunch-break": "demonstrator-turn"}


def unit_type(unit_id: str) -> UnitType:
    """The type of a counter id ("AN3" -> anarchists); KeyError for an unknown id."""
    code = unit_id.rstrip("0123456789")
    number = unit_id[len(code):]
    t = TABLES.by_code(code)
    if t is None or not number.isdigit() or not 1 <= int(number) <= t.count or number.startswith("0"):
        raise KeyError(unit_id)
    return t


def side_of(unit_id: str) -> str:
    return unit_type(unit_id).side


def other(side: str) -> str:
    return AUTH if side == DEM else DEM


def all_counters() -> tuple[Unit, ...]:
    """Every counter of the counter list, off the map and available (set-up starts here)."""
    return tuple(Unit(uid, t.key, PILE) for t in TABLES.units for uid in t.ids())


class Board:
    """The position being played: unit locations, barricades, the indexes, the record."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.loc: dict[str, str] = {u.id: u.loc for u in state.units}
        self.types: dict[str, str] = {u.id: u.type for u in state.units}
        self.barricades: set[str] = set(state.barricades)
        self.vis = {DEM: state.vis_dem, AUTH: state.vis_auth}
        self.escalation = state.escalation
        self.morale_loss = state.morale_loss
        self.phase2_full_from = state.phase2_full_from
        self.engaged: set[str] = set(state.engaged)
        self.moves: list[Move] = []
        self.barricade_tries: list[BarricadeTry] = []
        self.combats: list[Combat] = []
        self.visibility: list[Visibility] = []
        self.notes: list[tuple[str, str]] = []
        self.rolls: list[tuple[str, int]] = []

    # -- reading the position ---------------------------------------------------------------
    def type(self, unit_id: str) -> UnitType:
        return TABLES.unit(self.types[unit_id])

    def side(self, unit_id: str) -> str:
        return self.type(unit_id).side

    def kind(self, unit_id: str) -> str:
        return self.type(unit_id).kind

    def units(self, side: str | None = None, loc: str | None = None) -> list[str]:
        """Counter ids in id order (type order, then number), filtered by side and location."""
        return [u for u in self.loc
                if (side is None or self.side(u) == side) and (loc is None or self.loc[u] == loc)]

    def on_map(self, unit_id: str) -> bool:
        return MAP.has_area(self.loc[unit_id])

    def at(self, area: str, side: str | None = None) -> list[str]:
        return self.units(side, area)

    def enemies_at(self, area: str, side: str) -> list[str]:
        return self.at(area, other(side))

    def crowds_at(self, area: str) -> int:
        return sum(1 for u in self.at(area, DEM) if self.kind(u) == "crowd")

    def map_units(self, side: str) -> list[str]:
        return [u for u in self.units(side) if self.on_map(u)]

    def contact_areas(self) -> list[str]:
        """Areas holding units of both sides (6.1: the only places of combat), in map order."""
        return [a for a in MAP.area_ids if self.at(a, DEM) and self.at(a, AUTH)]

    def in_force(self, key: str) -> bool:
        ev = self.state.event
        return ev is not None and ev.key == key and ev.turn == self.state.turn

    def reaction_limit(self, side: str) -> int:
        """5.1 and the reinforcement table: how many units the side may move in reaction."""
        return TABLES.reinforcement(self.vis[side]).reaction

    # -- movement -------------------------------------------------------------------------------
    def still_by_event(self, unit_id: str, demonstrator_turn: bool) -> str | None:
        """The event keeping this unit from moving, if any (events 21, 23, 25)."""
        for key, when in _STILL.items():
            ev = TABLES.events[[e.key for e in TABLES.events].index(key)]
            if self.in_force(key) and ev.faction == self.types[unit_id] and (when == "turn" or demonstrator_turn):
                return key
        return None

    def check_path(self, unit_id: str, path: list[str] | tuple[str, ...], limit: int | None = None) -> Message | None:
        """5.0: along the lines, one area per movement point; entering an area with enemy units
        ends the move (a unit starting with enemies may leave them)."""
        start = self.loc[unit_id]
        side = self.side(unit_id)
        steps = self.type(unit_id).move if limit is None else limit
        if not path:
            return msg("err-path-empty", unit=unit_id)
        if len(path) > steps:
            return msg("err-too-far", unit=unit_id, move=steps, count=len(path))
        here = start
        for i, there in enumerate(path):
            if not MAP.linked(here, there):
                return msg("err-not-linked", a=msg(f"area-{here}"), b=msg(f"area-{there}"),
                           links=_area_list(MAP.neighbours(here)))
            if self.enemies_at(there, side) and i < len(path) - 1:
                return msg("err-stop-enemy", unit=unit_id, area=msg(f"area-{there}"))
            here = there
        return None

    def reachable(self, unit_id: str, limit: int | None = None) -> dict[str, tuple[str, ...]]:
        """Every area the unit may end its move in, with a shortest legal path (5.0)."""
        start = self.loc[unit_id]
        side = self.side(unit_id)
        steps = self.type(unit_id).move if limit is None else limit
        paths: dict[str, tuple[str, ...]] = {start: ()}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if len(paths[here]) >= steps or (here != start and self.enemies_at(here, side)):
                continue
            for there in MAP.neighbours(here):
                if there not in paths:
                    paths[there] = paths[here] + (there,)
                    queue.append(there)
        paths.pop(start)
        return paths

    def move(self, unit_id: str, path: tuple[str, ...], kind: str = "move") -> None:
        start = self.loc[unit_id]
        self.loc[unit_id] = path[-1]
        self.moves.append(Move(unit_id, (start, *path), kind))

    def put(self, unit_id: str, where: str, kind: str) -> None:
        """A counter changes place off the lines (placed, withdrawn, called, ...)."""
        start = self.loc[unit_id]
        self.loc[unit_id] = where
        self.moves.append(Move(unit_id, (start, where), kind))

    def crowding(self) -> list[str]:
        """Areas breaking 5.2 (more than two Crowds)."""
        return [a for a in MAP.area_ids if self.crowds_at(a) > TABLES.rules.crowds_per_area]

    # -- visibility ---------------------------------------------------------------------------
    def add_vis(self, side: str, delta: int, reason: str, count: int = 1) -> None:
        """2.3: an index never goes below zero; the points below zero go to the other side."""
        if delta == 0:
            return
        own, rival = add_visibility(self.vis[side], self.vis[other(side)], delta)
        self.vis[side], self.vis[other(side)] = own, rival
        self.visibility.append(Visibility(side, delta, reason, count))

    # -- removals ---------------------------------------------------------------------------
    def withdraw(self, unit_id: str, kind: str = "withdrawn") -> None:
        """Temporarily removed (6.4): Demonstrators off the map by type, Authorities to the Pool."""
        self.put(unit_id, RESERVE if self.side(unit_id) == AUTH else PILE, kind)

    def remove(self, unit_id: str) -> None:
        """Removed permanently (6.3 A and X)."""
        self.put(unit_id, OUT, "removed")

    def night_away(self, unit_id: str) -> None:
        self.put(unit_id, AWAY, "away")

    # -- the result -------------------------------------------------------------------------
    def log(self, phase: str) -> PhaseLog:
        return PhaseLog(self.state.turn, phase, tuple(self.moves), tuple(self.barricade_tries),
                        tuple(self.combats), tuple(self.visibility), tuple(self.notes), tuple(self.rolls))

    def frozen(self, phase: str, keep_log: bool, **changes: object) -> State:
        """The new state; ``keep_log``: add this phase's record to the ones since the last
        phase a player answered (server steps), else start a new record."""
        units = tuple(Unit(u, self.types[u], self.loc[u]) for u in self.loc)
        log = (self.state.log if keep_log else ()) + (self.log(phase),)
        new = replace(self.state, units=units, barricades=tuple(sorted(self.barricades)),
                      vis_dem=self.vis[DEM], vis_auth=self.vis[AUTH], escalation=self.escalation,
                      morale_loss=self.morale_loss, phase2_full_from=self.phase2_full_from,
                      engaged=tuple(sorted(self.engaged)), log=log[-12:])
        return replace(new, **changes)  # type: ignore[arg-type]


def _area_list(ids: tuple[str, ...] | list[str]) -> str:
    return ", ".join(ids)
