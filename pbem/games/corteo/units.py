"""The counters in play, with their ids.

The seed's counters carry only colours and acronyms; ids are ours: the corteo's are the
component's code and a number (``MOV1``, ``AUT3``), strongest counters first; the power's are
the type's code and a number (``CE4`` celere, ``BL1`` blindati).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final

from pbem.games.corteo.tables import TABLES, UnitType

CORTEO, POTERE = "corteo", "potere"
SEATS: Final = (CORTEO, POTERE)

#: Counter ids' prefixes (ours).
COMPONENT_CODES: Final = {"MOV": "MOV", "AUTOP": "AUT", "LC": "LC", "DP": "DP", "RAD": "RAD", "FEM": "FEM",
                          "ML": "ML", "ANARCHICI": "ANA", "GRUPPETTI": "GRU", "ZOMBIES": "ZOM", "POC": "POC"}
TYPE_CODES: Final = {"blindati": "BL", "celere": "CE", "lacrimogeni": "LA", "carabinieri": "CA",
                     "piantoni": "PI", "vigili": "VI", "finanza": "FI"}
FORESTIERI_CODE: Final = "FOR"


@dataclass(frozen=True)
class Counter:
    id: str
    type: str  # unit type key of tables.toml
    side: str
    component: str | None  # corteo: the political component (C 1a)
    set: str  # the counter set it belongs to

    @property
    def unit(self) -> UnitType:
        return TABLES.unit(self.type)


def counters(sets: tuple[str, ...]) -> tuple[Counter, ...]:
    """Every counter of the given sets, in a stable order (corteo by component, strongest first)."""
    out: list[Counter] = []
    numbers: dict[str, int] = {}
    for key in sets:
        cs = TABLES.counter_set(key)
        rows = sorted(cs.counters, key=lambda c: (-c.unit.speed, -c.unit.power))
        if cs.side == CORTEO:
            rows = sorted(rows, key=lambda c: list(COMPONENT_CODES).index(c.component or "MOV"))
        for c in rows:
            if cs.side == CORTEO:
                code = FORESTIERI_CODE if key == "forestieri" else COMPONENT_CODES[c.component or "MOV"]
            else:
                code = TYPE_CODES[c.unit.key]
            for _ in range(c.count):
                numbers[code] = numbers.get(code, 0) + 1
                out.append(Counter(f"{code}{numbers[code]}", c.unit.key, cs.side, c.component, key))
    return tuple(out)


#: Every counter set, in the order that numbers the ids (a scenario's MOV asterisk units follow the base MOV).
ALL_SETS: Final = ("base", "potere", "forestieri", "finanza", "asterisco", "poc")


@cache
def roster(national: bool, extra: tuple[str, ...] = ()) -> dict[str, Counter]:
    """The counters of a game: the base corteo and the power (C 3a), plus C 13d's when chosen and a
    scenario's own sets (D: the asterisk MOV units, the POC dissidents)."""
    wanted = {"base", "potere", *extra} | ({"forestieri", "finanza"} if national else set())
    full = _full()
    return {uid: c for uid, c in full.items() if c.set in wanted}


@cache
def _full() -> dict[str, Counter]:
    return {c.id: c for c in counters(ALL_SETS)}


def counter(unit_id: str) -> Counter:
    full = _full()
    if unit_id not in full:
        raise KeyError(unit_id)
    return full[unit_id]
