"""Typed orders and the syntax of Corteo's order texts (legality is checked in `plan`).

One order per line, Italian or English keywords (``data/keywords.toml``), any case; ``#``
starts a comment.  Hexes are written as on the map's edges: row letter and column, ``K12``.

    PLACE MOV1 C3                 # set-up: a unit on a hex (PIAZZA); the power's reinforcements too
    HEAD MOV                      # set-up: the component at the Head (TESTA)
    RUN                           # the corteo runs this hand (CORSA, 5c)
    MOVE MOV1 D4 E4 F5            # the hexes entered, in order (MUOVI); or MOVE MOV1 TO F5
    METRO AUT2 O19                # from the metro, start at another station (5b)
    THROW AUT1 AT H7              # a throw at the unit(s) in H7 (LANCIA ... SU); THROW AUT1 AUT2 AT H7
    BARRICADE LC1 F6              # build a barricade in a hex of the unit's ZOC (5d)
    CLEAR CE3 K12                 # remove a barricade (or, vigili, a jam) in the unit's ZOC
    JAM K20                       # try a jam on a viale hex (13c)
    ENTER MOV4 A12                # back on the map from off the map (8h)
    HEAD MOV1 MOV2                # the two Head units of this hand (10)
    ATTACK MOV1 MOV2 ON CE4 ADVANCE   # a combat (ATTACCA ... SU ... AVANZA)
    TOWARD K12 / PUSH Y30 / BARRACKS 3 1    # standing instructions
    ACTIVATE POC1                 # D Antifascista: a dissident in a Head unit's ZOC rolls to join (ATTIVA)
    FORMATION D2 D3 ... D11       # D Sociale: the secret place of formation, at least 11 grey hexes (FORMAZIONE)
    HELICOPTER MOV14              # D Antirepressivo: the power flies an accused to the prison (ELICOTTERO)
    MOVE PRE1 M21 M22             # D: the power moves a mobile objective (PRE, COM) like a unit
    PASS
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from pbem.core.i18n import Message, msg
from pbem.core.orders import fold as _fold, load_keywords, read_lines, unknown_word
from pbem.core.rules import Diagnostic

MAX_ITEMS = 120

# -- typed orders -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    unit: str
    hex: str

    def canonical(self) -> str:
        return f"PLACE {self.unit} {self.hex}"


@dataclass(frozen=True)
class HeadComponent:
    component: str

    def canonical(self) -> str:
        return f"HEAD {self.component}"


@dataclass(frozen=True)
class Heads:
    units: tuple[str, ...]

    def canonical(self) -> str:
        return " ".join(["HEAD", *self.units])


@dataclass(frozen=True)
class Run:
    def canonical(self) -> str:
        return "RUN"


@dataclass(frozen=True)
class Move:
    unit: str
    path: tuple[str, ...]

    def canonical(self) -> str:
        return " ".join(["MOVE", self.unit, *self.path])


@dataclass(frozen=True)
class Metro:
    unit: str
    hex: str

    def canonical(self) -> str:
        return f"METRO {self.unit} {self.hex}"


@dataclass(frozen=True)
class ThrowAt:
    units: tuple[str, ...]
    hex: str

    def canonical(self) -> str:
        return " ".join(["THROW", *self.units, "AT", self.hex])


@dataclass(frozen=True)
class Build:
    unit: str
    hex: str

    def canonical(self) -> str:
        return f"BARRICADE {self.unit} {self.hex}"


@dataclass(frozen=True)
class Clear:
    unit: str
    hex: str

    def canonical(self) -> str:
        return f"CLEAR {self.unit} {self.hex}"


@dataclass(frozen=True)
class Jam:
    hex: str

    def canonical(self) -> str:
        return f"JAM {self.hex}"


@dataclass(frozen=True)
class Enter:
    unit: str
    hex: str

    def canonical(self) -> str:
        return f"ENTER {self.unit} {self.hex}"


@dataclass(frozen=True)
class Attack:
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    advance: bool = False

    def canonical(self) -> str:
        return " ".join(["ATTACK", *self.attackers, "ON", *self.defenders] + (["ADVANCE"] if self.advance else []))


@dataclass(frozen=True)
class Toward:
    hex: str

    def canonical(self) -> str:
        return f"TOWARD {self.hex}"


@dataclass(frozen=True)
class Push:
    hex: str

    def canonical(self) -> str:
        return f"PUSH {self.hex}"


@dataclass(frozen=True)
class BarracksOrder:
    numbers: tuple[int, ...]

    def canonical(self) -> str:
        return " ".join(["BARRACKS", *map(str, self.numbers)])


@dataclass(frozen=True)
class Activate:
    unit: str

    def canonical(self) -> str:
        return f"ACTIVATE {self.unit}"


@dataclass(frozen=True)
class Helicopter:
    unit: str

    def canonical(self) -> str:
        return f"HELICOPTER {self.unit}"


@dataclass(frozen=True)
class Secret:
    """D Sociale: "il giocatore-corteo deve scrivere su un foglio il nome del luogo su cui intende
    formare il corteo"; written as its hexes (they identify it "con certezza")."""

    hexes: tuple[str, ...]

    def canonical(self) -> str:
        return " ".join(["FORMATION", *self.hexes])


@dataclass(frozen=True)
class Pass:
    def canonical(self) -> str:
        return "PASS"


Order: TypeAlias = (Place | HeadComponent | Heads | Run | Move | Metro | ThrowAt | Build | Clear | Jam | Enter
                    | Attack | Toward | Push | BarracksOrder | Activate | Helicopter | Secret | Pass)
ORDER_TYPES: tuple[type, ...] = (Place, HeadComponent, Heads, Run, Move, Metro, ThrowAt, Build, Clear, Jam, Enter,
                                 Attack, Toward, Push, BarracksOrder, Activate, Helicopter, Secret, Pass)
STANDING = (Toward, Push, BarracksOrder)

# -- the parser's form ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Raw:
    keyword: str
    units: tuple[str, ...] = ()
    hexes: tuple[str, ...] = ()
    defenders: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()
    flag: str = ""


@dataclass(frozen=True)
class Item:
    line: int
    text: str
    raw: Raw



KEYWORDS = load_keywords("pbem.games.corteo.data")
_HEADS = ("PLACE", "HEAD", "RUN", "MOVE", "METRO", "THROW", "BARRICADE", "CLEAR", "JAM", "ENTER", "ATTACK",
          "TOWARD", "PUSH", "BARRACKS", "ACTIVATE", "HELICOPTER", "FORMATION", "PASS")
_HEAD_OF = {w: k for k in _HEADS for w in KEYWORDS[k]}
_HEAD_WORDS = sorted(w for w in _HEAD_OF if len(w) > 2)
_SEPARATORS = re.compile(r"[\s,;>/:\u2192-]+")
_HEX = re.compile(r"[A-Z][0-9]{1,2}")
_UNIT = re.compile(r"[A-Z]{2,3}[0-9]{1,2}")
COMPONENT_WORDS = {"MOV": "MOV", "AUTOP": "AUTOP", "AUT": "AUTOP", "LC": "LC", "DP": "DP", "RAD": "RAD",
                   "FEM": "FEM", "FEMMINISTE": "FEM", "ML": "ML", "ANARCHICI": "ANARCHICI", "ANA": "ANARCHICI",
                   "GRUPPETTI": "GRUPPETTI", "GRU": "GRUPPETTI", "ZOMBIES": "ZOMBIES", "ZOM": "ZOMBIES"}


def is_word(word: str, key: str) -> bool:
    return word in KEYWORDS[key]


def is_hex(word: str) -> bool:
    return bool(_HEX.fullmatch(word))


def is_unit(word: str) -> bool:
    """A unit id (``MOV1``): two or three letters, so never a hex (one letter)."""
    return _UNIT.fullmatch(word) is not None


Problem: TypeAlias = tuple[Message, Message | None]


def _words(text: str) -> list[str]:
    return [w for w in _SEPARATORS.split(_fold(text)) if w]


def parse_text(text: str) -> tuple[list[Item], list[Diagnostic]]:
    return read_lines(text, _parse_line, Item)


def _unknown(word: str) -> Problem:
    return unknown_word(word, _HEAD_WORDS)


def _split(words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Units, hexes and other words, in order of appearance."""
    units: list[str] = []
    hexes: list[str] = []
    rest: list[str] = []
    unit_word, hex_word = _UNIT.fullmatch, _HEX.fullmatch
    for w in words:
        if unit_word(w):
            units.append(w)
        elif hex_word(w):
            hexes.append(w)
        else:
            rest.append(w)
    return units, hexes, rest


def _parse_line(line: str) -> tuple[Raw | None, Problem | None]:
    words = _words(line)
    if not words:
        return None, None
    head = _HEAD_OF.get(words[0])
    rest = words[1:]
    if head is None:
        if is_unit(words[0]):
            head, rest = "MOVE", words
        else:
            return None, _unknown(words[0])
    if head in ("ACTIVATE", "HELICOPTER"):
        if len(rest) == 1 and is_unit(rest[0]):
            return Raw(head, units=(rest[0],)), None
        return None, (msg("err-one-unit", keyword=head), None)
    if head == "FORMATION":
        if rest and all(is_hex(w) for w in rest) and len(rest) <= 60:
            return Raw(head, hexes=tuple(rest)), None
        return None, (msg("err-secret-form"), None)
    if head in ("RUN", "PASS"):
        return (Raw(head), None) if not rest else (None, (msg("err-no-arguments", keyword=head), None))
    if head == "HEAD":
        if len(rest) == 1 and rest[0] in COMPONENT_WORDS:
            return Raw("HEAD", flag=COMPONENT_WORDS[rest[0]]), None
        if rest and all(is_unit(w) for w in rest):
            return Raw("HEAD", units=tuple(rest)), None
        return None, (msg("err-head-form"), msg("hint-components", components=" ".join(sorted(set(COMPONENT_WORDS.values())))))
    if head == "BARRACKS":
        if rest and all(w.isdigit() for w in rest):
            return Raw(head, numbers=tuple(int(w) for w in rest)), None
        return None, (msg("err-barracks-form"), None)
    if head in ("TOWARD", "PUSH", "JAM"):
        if len(rest) == 1 and is_hex(rest[0]):
            return Raw(head, hexes=(rest[0],)), None
        return None, (msg("err-one-hex", keyword=head), None)
    if head == "ATTACK":
        on = next((i for i, w in enumerate(rest) if is_word(w, "AT")), None)
        if on is None:
            return None, (msg("err-attack-form"), msg("hint-attack"))
        attackers, defenders, tail = rest[:on], rest[on + 1:], []
        while defenders and is_word(defenders[-1], "ADVANCE"):
            tail.append(defenders.pop())
        if not attackers or not defenders or not all(is_unit(w) for w in attackers + defenders):
            return None, (msg("err-attack-form"), msg("hint-attack"))
        return Raw(head, units=tuple(attackers), defenders=tuple(defenders), flag="advance" if tail else ""), None
    if head == "THROW":
        on = next((i for i, w in enumerate(rest) if is_word(w, "AT")), None)
        units, hexes = (rest[:on], rest[on + 1:]) if on is not None else _split(rest)[:2]
        if not units or not all(is_unit(w) for w in units) or len(hexes) != 1 or not is_hex(hexes[0]):
            return None, (msg("err-throw-form"), msg("hint-throw"))
        return Raw(head, units=tuple(units), hexes=(hexes[0],)), None
    units, hexes, other = _split(rest)
    if other:
        other = [w for w in other if not is_word(w, "TO")]
    if other:
        return None, (msg("err-extra-words", keyword=head, word=other[0][:20]), None)
    if len(units) != 1:
        return None, (msg("err-one-unit", keyword=head), None)
    if head == "MOVE":
        if not hexes:
            return None, (msg("err-needs-hex", keyword=head), msg("hint-hexes"))
        return Raw(head, units=tuple(units), hexes=tuple(hexes)), None
    if len(hexes) != 1:
        return None, (msg("err-one-hex", keyword=head), msg("hint-hexes"))
    return Raw(head, units=tuple(units), hexes=tuple(hexes)), None
