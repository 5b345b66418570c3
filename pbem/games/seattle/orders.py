"""Typed orders and the syntax of order texts (legality is checked in `plan`).

One order per line; keywords in English or Italian (``data/keywords.toml``), any case::

    PLACE OL3 westlake            # set-up and reinforcements: a counter (or a type: PLACE AN ...)
    DECLINE AT7                   # an arriving unit stays off the map (4.21); Authorities: an SPD
    CHOOSE AN 2                   # event 11-16: the units chosen, by type
    REMOVE AN2                    # a removal the table imposes (4.21)
    ATTRITION PR4 / BUREAUCRACY SPD9     # events 51-53, 54-56
    CALL WSP 2                    # emergency reinforcements (4.22), by type or by id
    MOVE AN3 kingdome pioneer-square waterfront   # the areas entered, in order
    MOVE AN3 waterfront           # or just where to: the shortest legal path is taken
    RESERVE SPD2 / DEPLOY SPD2 westlake           # Authorities: to and from the Reserve Pool
    BARRICADE OL3                 # instead of moving (7.2)
    ATTACK SPD1 SPD2 ON AN1 AN2 MUNITIONS ALL CHECK AN1 ARREST AN2   # 6.1-6.3
    ATTACK westlake               # every unit of yours there on every enemy unit there
    TARGETS AN AT OL              # standing: whom you pick when a result lets you choose (6.3)
    POINTS AUTHORITIES            # standing (Authorities): +2 to you, or DEMONSTRATORS: -2 to them
    DEFENCE MUNITIONS ON          # standing (Authorities): special munitions when attacked
    ESCALATE                      # Authorities: up one escalation phase (7.3)
    PASS

Areas are written as their ids (``pike-place-market``), a unique beginning (``pike``), or
their names with spaces (``Pike Place Market``, ``Hotel Westin``).  The canonical form is
English upper case with ids: ``MOVE AN3 KINGDOME PIONEER-SQUARE``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from pbem.core.i18n import Catalog, Message, msg
from pbem.core.orders import fold as _fold, load_keywords, read_lines, unknown_word
from pbem.core.rules import Diagnostic
from pbem.games.seattle.map import MAP
from pbem.games.seattle.tables import TABLES

MAX_ITEMS = 80

# -- typed orders (what a sheet holds, after checking) -------------------------------------


@dataclass(frozen=True)
class Place:
    unit: str
    area: str

    def canonical(self) -> str:
        return f"PLACE {self.unit} {self.area.upper()}"


@dataclass(frozen=True)
class Decline:
    unit: str

    def canonical(self) -> str:
        return f"DECLINE {self.unit}"


@dataclass(frozen=True)
class Choose:
    unit: str

    def canonical(self) -> str:
        return f"CHOOSE {self.unit}"


@dataclass(frozen=True)
class Remove:
    unit: str

    def canonical(self) -> str:
        return f"REMOVE {self.unit}"


@dataclass(frozen=True)
class Attrition:
    unit: str

    def canonical(self) -> str:
        return f"ATTRITION {self.unit}"


@dataclass(frozen=True)
class Bureaucracy:
    unit: str

    def canonical(self) -> str:
        return f"BUREAUCRACY {self.unit}"


@dataclass(frozen=True)
class Call:
    unit: str

    def canonical(self) -> str:
        return f"CALL {self.unit}"


@dataclass(frozen=True)
class MoveTo:
    unit: str
    path: tuple[str, ...]  # the areas entered, in order

    def canonical(self) -> str:
        return " ".join(["MOVE", self.unit] + [a.upper() for a in self.path])


@dataclass(frozen=True)
class Reserve:
    unit: str

    def canonical(self) -> str:
        return f"RESERVE {self.unit}"


@dataclass(frozen=True)
class Deploy:
    unit: str
    area: str

    def canonical(self) -> str:
        return f"DEPLOY {self.unit} {self.area.upper()}"


@dataclass(frozen=True)
class Barricade:
    unit: str

    def canonical(self) -> str:
        return f"BARRICADE {self.unit}"


@dataclass(frozen=True)
class Attack:
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    munitions: tuple[str, ...] = ()  # Authority attackers using special munitions (6.2)
    check: str | None = None  # the defender who takes the morale check on an MC (6.3)
    arrest: str | None = None  # the defender removed on an A (6.3)

    def canonical(self) -> str:
        words = ["ATTACK", *self.attackers, "ON", *self.defenders]
        if self.munitions:
            words += ["MUNITIONS", *self.munitions]
        if self.check:
            words += ["CHECK", self.check]
        if self.arrest:
            words += ["ARREST", self.arrest]
        return " ".join(words)


@dataclass(frozen=True)
class Targets:
    items: tuple[str, ...]  # codes or ids

    def canonical(self) -> str:
        return " ".join(["TARGETS", *self.items])


@dataclass(frozen=True)
class Points:
    side: str  # "authorities" | "demonstrators"

    def canonical(self) -> str:
        return f"POINTS {self.side.upper()}"


@dataclass(frozen=True)
class DefenceMunitions:
    on: bool

    def canonical(self) -> str:
        return f"DEFENCE MUNITIONS {'ON' if self.on else 'OFF'}"


@dataclass(frozen=True)
class Escalate:
    def canonical(self) -> str:
        return "ESCALATE"


@dataclass(frozen=True)
class Pass:
    def canonical(self) -> str:
        return "PASS"


Order: TypeAlias = (Place | Decline | Choose | Remove | Attrition | Bureaucracy | Call | MoveTo | Reserve | Deploy
                    | Barricade | Attack | Targets | Points | DefenceMunitions | Escalate | Pass)
ORDER_TYPES: tuple[type, ...] = (Place, Decline, Choose, Remove, Attrition, Bureaucracy, Call, MoveTo, Reserve,
                                 Deploy, Barricade, Attack, Targets, Points, DefenceMunitions, Escalate, Pass)
STANDING_TYPES = (Targets, Points, DefenceMunitions)

# -- what the parser reads (before checking against the position) -----------------------------


@dataclass(frozen=True)
class Raw:
    """One order line as read: the keyword and its words (units and areas still unresolved).

    ``units``: unit words (ids like AN3 or types like AN, with a count after a type);
    ``areas``: areas resolved to ids; ``extra``: keyword-specific parts."""

    keyword: str
    units: tuple[str, ...] = ()
    areas: tuple[str, ...] = ()
    defenders: tuple[str, ...] = ()
    munitions: tuple[str, ...] = ()
    check: str | None = None
    arrest: str | None = None
    flag: str = ""


@dataclass(frozen=True)
class Item:
    line: int
    text: str
    raw: Raw


KEYWORDS = load_keywords("pbem.games.seattle.data")
_HEADS = ("PLACE", "DECLINE", "CHOOSE", "REMOVE", "ATTRITION", "BUREAUCRACY", "CALL", "MOVE", "RESERVE", "DEPLOY",
          "BARRICADE", "ATTACK", "TARGETS", "POINTS", "DEFENCE", "ESCALATE", "PASS")
_HEAD_OF = {w: k for k in _HEADS for w in KEYWORDS[k]}
_HEAD_WORDS = sorted(w for w in _HEAD_OF if len(w) > 2)
_SEPARATORS = re.compile(r"[\s,;>/:\u2192]+")
_UNIT = re.compile(r"([A-Z]{2,4})([0-9]{0,3})")
CODES = {t.code for t in TABLES.units}
#: Words for "any unit of this kind" (2.1): PLACE CROWD westlake places the next arriving Crowd.
KINDS = {w: k.lower() for k in ("GROUP", "CROWD") for w in KEYWORDS[k]}


def is_word(word: str, key: str) -> bool:
    return word in KEYWORDS[key]


# -- areas --------------------------------------------------------------------------------


def _area_key(text: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", _fold(text))


def _area_names() -> dict[str, str]:
    """Every way of writing an area (id, English and Italian name), folded -> area id."""
    cat = Catalog.from_package("pbem.games.seattle.data")
    names: dict[str, str] = {}
    for a in MAP.areas:
        names[_area_key(a.id)] = a.id
        for lang in ("en", "it"):
            names.setdefault(_area_key(cat.text(msg(f"area-{a.id}"), lang)), a.id)
    return names


AREA_NAMES = _area_names()


def find_area(words: list[str]) -> tuple[str | None, int, list[str]]:
    """The area written at the start of ``words``: (id, words used, candidates when ambiguous).

    The longest run of words naming an area wins; then a unique beginning of a name."""
    for n in range(min(len(words), 5), 0, -1):
        key = _area_key("".join(words[:n]))
        if key in AREA_NAMES:
            return AREA_NAMES[key], n, []
    if not words:
        return None, 0, []
    key = _area_key(words[0])
    if len(key) >= 3:
        hits = sorted({a for k, a in AREA_NAMES.items() if k.startswith(key)})
        if len(hits) == 1:
            return hits[0], 1, []
        return None, 0, hits
    return None, 0, []


# -- parsing -------------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return [w for w in _SEPARATORS.split(_fold(text)) if w]


def is_unit_word(word: str) -> bool:
    if word in KINDS:
        return True
    m = _UNIT.fullmatch(word)
    return bool(m) and m.group(1) in CODES if m else False


def parse_text(text: str) -> tuple[list[Item], list[Diagnostic]]:
    """Split an order text into raw orders, line by line; never raises."""
    return read_lines(text, _parse_line, Item)


Problem: TypeAlias = tuple[Message, Message | None]


def _unknown(word: str) -> Problem:
    return unknown_word(word, _HEAD_WORDS)


def _unit_type_word(word: str) -> bool:
    m = _UNIT.fullmatch(word)
    return bool(m) and not m.group(2)  # type: ignore[union-attr]


def _unit_words(words: list[str]) -> tuple[list[str], list[str]]:
    """Unit words at the start (ids, types, a count after a type), and the rest."""
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if is_unit_word(w):
            out.append(w)
        elif w.isdigit() and out and (out[-1] in KINDS or _unit_type_word(out[-1])):
            out.append(w)
        else:
            break
        i += 1
    return out, words[i:]


def _areas_of(words: list[str]) -> tuple[list[str], Problem | None]:
    """The areas named by ``words``; "to"/"verso"/"in" between them are skipped."""
    areas: list[str] = []
    i = 0
    while i < len(words):
        area, used, cands = find_area(words[i:])
        if area is None and not cands and (is_word(words[i], "TO") or is_word(words[i], "IN")):
            i += 1
            continue
        if area is None:
            if cands:
                return areas, (msg("err-area-ambiguous", word=words[i][:30].lower(), areas=", ".join(cands)), None)
            return areas, (msg("err-unknown-area", word=words[i][:30].lower()), msg("hint-areas"))
        areas.append(area)
        i += used
    return areas, None


def _parse_line(line: str) -> tuple[Raw | None, Problem | None]:
    words = _words(line)
    if not words:
        return None, None
    head = _HEAD_OF.get(words[0])
    rest = words[1:]
    if head is None:
        if is_unit_word(words[0]):
            head, rest = "MOVE", words  # "AN3 westlake": a move
        else:
            return None, _unknown(words[0])
    if head in ("ESCALATE", "PASS"):
        if rest:
            return None, (msg("err-no-arguments", keyword=head), None)
        return Raw(head), None
    if head == "POINTS":
        if len(rest) == 1 and is_word(rest[0], "AUTHORITIES"):
            return Raw(head, flag="authorities"), None
        if len(rest) == 1 and is_word(rest[0], "DEMONSTRATORS"):
            return Raw(head, flag="demonstrators"), None
        return None, (msg("err-points-form"), None)
    if head == "DEFENCE":
        if len(rest) == 2 and is_word(rest[0], "MUNITIONS") and (is_word(rest[1], "YES") or is_word(rest[1], "OFF")):
            return Raw(head, flag="on" if is_word(rest[1], "YES") else "off"), None
        return None, (msg("err-defence-form"), None)
    if head == "TARGETS":
        units, left = _unit_words(rest)
        if not units or left or any(w.isdigit() for w in units):
            return None, (msg("err-targets-form"), msg("hint-codes", codes=" ".join(sorted(CODES))))
        return Raw(head, units=tuple(units)), None
    if head == "ATTACK":
        return _parse_attack(rest)
    units, left = _unit_words(rest)
    if not units:
        return None, (msg("err-needs-unit", keyword=head), msg("hint-codes", codes=" ".join(sorted(CODES))))
    if head in ("MOVE", "PLACE", "DEPLOY"):
        areas, problem = _areas_of(left)
        if problem:
            return None, problem
        if not areas:
            return None, (msg("err-needs-area", keyword=head), msg("hint-areas"))
        if head != "MOVE" and len(areas) > 1:
            return None, (msg("err-one-area", keyword=head), None)
        return Raw(head, units=tuple(units), areas=tuple(areas)), None
    if left:
        return None, (msg("err-extra-words", keyword=head, word=left[0][:20].lower()), None)
    return Raw(head, units=tuple(units)), None


def _parse_attack(rest: list[str]) -> tuple[Raw | None, Problem | None]:
    """``ATTACK <units> ON <units> [MUNITIONS ALL|<units>] [CHECK <unit>] [ARREST <unit>]`` or
    ``ATTACK <area>`` (everything of yours there on everything of theirs there)."""
    if rest and not is_unit_word(rest[0]) and not is_word(rest[0], "ALL"):
        start = 1 if is_word(rest[0], "IN") and len(rest) > 1 else 0
        area, used, cands = find_area(rest[start:])
        if area is None:
            if cands:
                return None, (msg("err-area-ambiguous", word=rest[start][:30].lower(), areas=", ".join(cands)), None)
            return None, (msg("err-attack-form"), msg("hint-attack"))
        extra = rest[start + used:]
        raw = Raw("ATTACK", areas=(area,))
        return _attack_tail(raw, extra)
    attackers, left = _unit_words(rest)
    if not attackers or not left or not is_word(left[0], "ON"):
        return None, (msg("err-attack-form"), msg("hint-attack"))
    defenders, left = _unit_words(left[1:])
    if not defenders:
        return None, (msg("err-attack-form"), msg("hint-attack"))
    return _attack_tail(Raw("ATTACK", units=tuple(attackers), defenders=tuple(defenders)), left)


def _attack_tail(raw: Raw, words: list[str]) -> tuple[Raw | None, Problem | None]:
    munitions: tuple[str, ...] = ()
    check = arrest = None
    i = 0
    while i < len(words):
        w = words[i]
        if is_word(w, "MUNITIONS"):
            if i + 1 < len(words) and is_word(words[i + 1], "ALL"):
                munitions, i = ("ALL",), i + 2
                continue
            units, _ = _unit_words(words[i + 1:])
            munitions = tuple(units) if units else ("ALL",)
            i += 1 + len(units)
        elif is_word(w, "CHECK") and i + 1 < len(words) and is_unit_word(words[i + 1]):
            check, i = words[i + 1], i + 2
        elif is_word(w, "ARREST") and i + 1 < len(words) and is_unit_word(words[i + 1]):
            arrest, i = words[i + 1], i + 2
        else:
            return None, (msg("err-attack-form"), msg("hint-attack"))
    return Raw(raw.keyword, raw.units, raw.areas, raw.defenders, munitions, check, arrest), None
