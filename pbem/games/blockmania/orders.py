"""Typed orders and the syntax of Block Mania's order texts (legality is checked in `plan`).

One order per line, English or Italian keywords (``data/keywords.toml``), any case; ``#`` starts a
comment.  Squares are written ``curie:D6`` or, in the writer's own block, ``D6``; Blockers by id
(``red-3``), counters by id (``spit-gun-2``), cards by their number in the hand (``12``).

    PLACE red-3 D4                         # set-up (3)
    JUSTICE 12 ON blue-2 red-4 BLOCK keaton AT curie:D6     # Final Phase, first of the sheet (12.ii)
    NEW                                    # a new Blocker, 4 CP (5.ii)
    ACTIVATE red-3                         # 5.iii (MOVE activates it too)
    MOVE red-3 D5 D6 curie:G9              # each square one move from the last (6)
    PICKUP red-3 DISCARD spit-gun-2        # 6.x
    GIVE red-3 spit-gun-2 TO red-4         # 6.x
    SETUP red-3 / ARM red-3                # 6.xi heavy weapon, QR Demo Charge
    PLAY 7 ON red-3 AT curie:D6            # a card (11)
    CONTINUE                               # the Command Phase goes on after this sheet
    FIRE blue-2 AT red-3 WITH spit-gun-1 / HOLD blue-2      # Defensive Fire (7), when asked
    SHOOT red-3 AT blue-2 WITH heavy-laser-1 / SHOOT red-3 AT keaton:D5   # 8.v, 9.i
    FIGHT red-3 blue-2 / LOOT red-3 [DISCARD spit-gun-2 …] / SCRAWL red-3 / BURN red-3 / DOUSE red-3 keaton:D5    # 8.vi-8.x
    DEFENSIVE FIRE NEAREST|STRONGEST|NEVER|ASK / INTERCEPT ON|OFF / HAZARDS ASK|KEPT
    KEEP 12 / DROP 12 / DISCARD 12
    PASS
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from pbem.core.i18n import Message, msg
from pbem.core.orders import fold as _fold, load_keywords, read_lines, unknown_word
from pbem.core.rules import Diagnostic

MAX_ITEMS = 80


# -- typed orders -----------------------------------------------------------------------------------------


def _words(*parts: object) -> str:
    return " ".join(str(p) for p in parts if p not in (None, "", ()))


@dataclass(frozen=True)
class Place:
    blocker: str
    square: str

    def canonical(self) -> str:
        return _words("PLACE", self.blocker, self.square)


@dataclass(frozen=True)
class Justice:
    card: int
    targets: tuple[str, ...] = ()
    block: str = ""
    square: str = ""

    def canonical(self) -> str:
        on = ("ON", *self.targets) if self.targets else ()
        return _words("JUSTICE", self.card, *on, *(("BLOCK", self.block) if self.block else ()),
                      *(("AT", self.square) if self.square else ()))


@dataclass(frozen=True)
class New:
    def canonical(self) -> str:
        return "NEW"


@dataclass(frozen=True)
class Activate:
    blocker: str

    def canonical(self) -> str:
        return _words("ACTIVATE", self.blocker)


@dataclass(frozen=True)
class Move:
    blocker: str
    squares: tuple[str, ...]

    def canonical(self) -> str:
        return _words("MOVE", self.blocker, *self.squares)


@dataclass(frozen=True)
class PickUp:
    blocker: str
    discard: str = ""

    def canonical(self) -> str:
        return _words("PICKUP", self.blocker, *(("DISCARD", self.discard) if self.discard else ()))


@dataclass(frozen=True)
class Give:
    giver: str
    counter: str
    receiver: str

    def canonical(self) -> str:
        return _words("GIVE", self.giver, self.counter, "TO", self.receiver)


@dataclass(frozen=True)
class SetUp:
    blocker: str

    def canonical(self) -> str:
        return _words("SETUP", self.blocker)


@dataclass(frozen=True)
class Arm:
    blocker: str

    def canonical(self) -> str:
        return _words("ARM", self.blocker)


@dataclass(frozen=True)
class Play:
    card: int
    blocker: str = ""
    squares: tuple[str, ...] = ()

    def canonical(self) -> str:
        return _words("PLAY", self.card, *(("ON", self.blocker) if self.blocker else ()),
                      *(("AT", *self.squares) if self.squares else ()))


@dataclass(frozen=True)
class Continue:
    def canonical(self) -> str:
        return "CONTINUE"


@dataclass(frozen=True)
class Fire:
    shooter: str
    target: str
    weapon: str = ""

    def canonical(self) -> str:
        return _words("FIRE", self.shooter, "AT", self.target, *(("WITH", self.weapon) if self.weapon else ()))


@dataclass(frozen=True)
class Hold:
    shooter: str

    def canonical(self) -> str:
        return _words("HOLD", self.shooter)


@dataclass(frozen=True)
class Shoot:
    shooter: str
    target: str  # a Blocker id or a square
    weapon: str = ""

    def canonical(self) -> str:
        return _words("SHOOT", self.shooter, "AT", self.target, *(("WITH", self.weapon) if self.weapon else ()))


@dataclass(frozen=True)
class Fight:
    attacker: str
    defender: str

    def canonical(self) -> str:
        return _words("FIGHT", self.attacker, self.defender)


@dataclass(frozen=True)
class Loot:
    blocker: str
    discard: tuple[str, ...] = ()  # carried counters to put back first if the loot is too much (6.x)

    def canonical(self) -> str:
        return _words("LOOT", self.blocker, *(("DISCARD", *self.discard) if self.discard else ()))


@dataclass(frozen=True)
class Scrawl:
    blocker: str

    def canonical(self) -> str:
        return _words("SCRAWL", self.blocker)


@dataclass(frozen=True)
class Burn:
    blocker: str

    def canonical(self) -> str:
        return _words("BURN", self.blocker)


@dataclass(frozen=True)
class Douse:
    blocker: str
    square: str

    def canonical(self) -> str:
        return _words("DOUSE", self.blocker, self.square)


@dataclass(frozen=True)
class Pass:
    def canonical(self) -> str:
        return "PASS"


@dataclass(frozen=True)
class DefensiveFire:
    policy: str  # nearest | strongest | never | ask

    def canonical(self) -> str:
        return _words("DEFENSIVE FIRE", self.policy.upper())


@dataclass(frozen=True)
class Intercept:
    on: bool

    def canonical(self) -> str:
        return _words("INTERCEPT", "ON" if self.on else "OFF")


@dataclass(frozen=True)
class Hazards:
    ask: bool  # a decision phase when a Blocker I could strike has moved; else only the kept cards

    def canonical(self) -> str:
        return _words("HAZARDS", "ASK" if self.ask else "KEPT")


@dataclass(frozen=True)
class Keep:
    card: int

    def canonical(self) -> str:
        return _words("KEEP", self.card)


@dataclass(frozen=True)
class Drop:
    card: int

    def canonical(self) -> str:
        return _words("DROP", self.card)


@dataclass(frozen=True)
class Discard:
    card: int

    def canonical(self) -> str:
        return _words("DISCARD", self.card)


Order: TypeAlias = (Place | Justice | New | Activate | Move | PickUp | Give | SetUp | Arm | Play | Continue | Fire
                    | Hold | Shoot | Fight | Loot | Scrawl | Burn | Douse | Pass | DefensiveFire | Intercept | Hazards
                    | Keep | Drop | Discard)
ORDER_TYPES: tuple[type, ...] = (Place, Justice, New, Activate, Move, PickUp, Give, SetUp, Arm, Play, Continue, Fire,
                                 Hold, Shoot, Fight, Loot, Scrawl, Burn, Douse, Pass, DefensiveFire, Intercept, Hazards,
                                 Keep, Drop, Discard)
#: Standing instructions: any sheet of the seat, applied at once, kept until changed.
STANDING: tuple[type, ...] = (DefensiveFire, Intercept, Hazards, Keep, Drop, Discard)
COMMAND: tuple[type, ...] = (Justice, New, Activate, Move, PickUp, Give, SetUp, Arm, Play, Continue)
COMBAT: tuple[type, ...] = (Shoot, Fight, Loot, Scrawl, Burn, Douse, Play)


# -- the parser -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    line: int
    text: str
    order: Order



KEYWORDS = load_keywords("pbem.games.blockmania.data")
_HEADS = ("PLACE", "JUSTICE", "NEW", "ACTIVATE", "MOVE", "PICKUP", "GIVE", "SETUP", "ARM", "PLAY", "CONTINUE",
          "FIRE", "HOLD", "SHOOT", "FIGHT", "LOOT", "SCRAWL", "BURN", "DOUSE", "PASS", "DEFENSIVE", "INTERCEPT",
          "HAZARDS", "KEEP", "DROP", "DISCARD")
#: (words of the keyword, head), longest first, so that "DEFENSIVE FIRE" wins over "FIRE"
_HEAD_FORMS = sorted(((tuple(w.split()), k) for k in _HEADS for w in KEYWORDS[k]), key=lambda f: -len(f[0]))
_HEAD_WORDS = sorted({" ".join(f) for f, _ in _HEAD_FORMS if len(" ".join(f)) > 2})
_SQUARE = re.compile(r"(?:[A-Z]+:)?[A-Z][0-9]{1,2}")
_ID = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+")
Problem: TypeAlias = tuple[Message, Message | None]


def is_word(word: str, key: str) -> bool:
    return word in KEYWORDS[key]


def is_square(word: str) -> bool:
    return bool(_SQUARE.fullmatch(word))


def is_id(word: str) -> bool:
    return bool(_ID.fullmatch(word))


def square_text(word: str) -> str:
    """``CURIE:D6`` -> ``curie:D6``; ``D6`` stays (the planner reads it in the writer's block)."""
    if ":" in word:
        block, label = word.split(":", 1)
        return f"{block.lower()}:{label}"
    return word


def parse_text(text: str) -> tuple[list[Item], list[Diagnostic]]:
    return read_lines(text, parse_line, Item)


def _unknown(word: str) -> Problem:
    return unknown_word(word, _HEAD_WORDS)


def _head(words: list[str]) -> tuple[str | None, list[str]]:
    for form, key in _HEAD_FORMS:
        if tuple(words[:len(form)]) == form:
            return key, words[len(form):]
    return None, words


def _card(word: str) -> int | None:
    w = word.lstrip("#")
    return int(w) if w.isdigit() and 0 < int(w) < 1000 else None


def _form(keyword: str) -> Problem:
    return msg("err-form", keyword=keyword), msg(f"hint-{keyword.lower()}")


def _split_at(rest: list[str], key: str) -> tuple[list[str], list[str] | None]:
    """The words before the first ``key`` word and those after it (None if there is none)."""
    for i, w in enumerate(rest):
        if is_word(w, key):
            return rest[:i], rest[i + 1:]
    return rest, None


def parse_line(line: str) -> tuple[Order | None, Problem | None]:
    """One line to one order, or what is wrong with it.  Words are split on blanks and commas."""
    words = [w for w in re.split(r"[\s,;]+", _fold(line)) if w]
    if not words:
        return None, None
    head, rest = _head(words)
    if head is None:
        return None, _unknown(words[0])
    try:
        order = _parse(head, rest)
    except (ValueError, IndexError):
        order = None
    if order is None:
        return None, _form(head)
    return order, None


def _one_id(rest: list[str]) -> str | None:
    return rest[0].lower() if len(rest) == 1 and is_id(rest[0]) else None


def _parse(head: str, rest: list[str]) -> Order | None:  # noqa: C901 - one branch per order form
    if head in ("NEW", "CONTINUE", "PASS"):
        if rest:
            return None
        return New() if head == "NEW" else Continue() if head == "CONTINUE" else Pass()
    if head in ("ACTIVATE", "SETUP", "ARM", "SCRAWL", "BURN", "HOLD"):
        bid = _one_id(rest)
        if bid is None:
            return None
        kinds: dict[str, type[Activate | SetUp | Arm | Scrawl | Burn | Hold]] = {
            "ACTIVATE": Activate, "SETUP": SetUp, "ARM": Arm, "SCRAWL": Scrawl, "BURN": Burn, "HOLD": Hold}
        return kinds[head](bid)
    if head in ("KEEP", "DROP", "DISCARD"):
        card = _card(rest[0]) if len(rest) == 1 else None
        if card is None:
            return None
        return Keep(card) if head == "KEEP" else Drop(card) if head == "DROP" else Discard(card)
    if head == "PLACE":
        rest = [w for w in rest if not is_word(w, "AT") and not is_word(w, "TO")]
        if len(rest) == 2 and is_id(rest[0]) and is_square(rest[1]):
            return Place(rest[0].lower(), square_text(rest[1]))
        return None
    if head == "MOVE":
        rest = [w for w in rest if not is_word(w, "TO")]
        if len(rest) >= 2 and is_id(rest[0]) and all(is_square(w) for w in rest[1:]):
            return Move(rest[0].lower(), tuple(square_text(w) for w in rest[1:]))
        return None
    if head == "LOOT":
        before, after = _split_at(rest, "DISCARD")
        bid = _one_id(before)
        if bid is None or (after is not None and not (after and all(is_id(w) for w in after))):
            return None
        return Loot(bid, tuple(w.lower() for w in after or ()))
    if head == "PICKUP":
        before, after = _split_at(rest, "DISCARD")
        bid = _one_id(before)
        if bid is None or (after is not None and _one_id(after) is None):
            return None
        return PickUp(bid, _one_id(after) or "" if after is not None else "")
    if head == "GIVE":
        before, after = _split_at(rest, "TO")
        if len(before) == 2 and all(is_id(w) for w in before) and after is not None and _one_id(after):
            return Give(before[0].lower(), before[1].lower(), after[0].lower())
        return None
    if head == "DOUSE":
        rest = [w for w in rest if not is_word(w, "AT")]
        if len(rest) == 2 and is_id(rest[0]) and is_square(rest[1]):
            return Douse(rest[0].lower(), square_text(rest[1]))
        return None
    if head == "FIGHT":
        rest = [w for w in rest if not is_word(w, "AT") and not is_word(w, "WITH")]
        if len(rest) == 2 and all(is_id(w) for w in rest):
            return Fight(rest[0].lower(), rest[1].lower())
        return None
    if head in ("FIRE", "SHOOT"):
        before, after = _split_at(rest, "AT")
        if after is None or len(before) != 1 or not is_id(before[0]):
            return None
        target, weapon = _split_at(after, "WITH")
        if len(target) != 1 or (weapon is not None and _one_id(weapon) is None):
            return None
        wid = weapon[0].lower() if weapon else ""
        if head == "FIRE":
            return Fire(before[0].lower(), target[0].lower(), wid) if is_id(target[0]) else None
        if is_id(target[0]):
            return Shoot(before[0].lower(), target[0].lower(), wid)
        return Shoot(before[0].lower(), square_text(target[0]), wid) if is_square(target[0]) else None
    if head == "PLAY":
        card = _card(rest[0]) if rest else None
        if card is None:
            return None
        tail = rest[1:]
        blocker, squares = "", []
        while tail:
            w = tail.pop(0)
            if is_word(w, "AT") and tail and is_id(tail[0]) and not blocker:
                blocker = tail.pop(0).lower()
            elif is_word(w, "AT") and tail and is_square(tail[0]):
                while tail and is_square(tail[0]):
                    squares.append(square_text(tail.pop(0)))
            else:
                return None
        return Play(card, blocker, tuple(squares))
    if head == "JUSTICE":
        card = _card(rest[0]) if rest else None
        if card is None:
            return None
        tail = rest[1:]
        targets: list[str] = []
        block = square = ""
        while tail:
            w = tail.pop(0)
            if is_word(w, "BLOCK") and tail and tail[0].isalpha():
                block = tail.pop(0).lower()
            elif is_word(w, "AT") and tail and is_square(tail[0]) and not is_id(tail[0]):
                square = square_text(tail.pop(0))
            elif is_word(w, "AT") and tail and is_id(tail[0]):
                while tail and is_id(tail[0]):
                    targets.append(tail.pop(0).lower())
            else:
                return None
        return Justice(card, tuple(targets), block, square)
    if head == "DEFENSIVE":
        rest = [w for w in rest if not is_word(w, "FIRE")]
        for key in ("NEAREST", "STRONGEST", "NEVER", "ASK"):
            if " ".join(rest) in KEYWORDS[key]:
                return DefensiveFire(key.lower())
        return None
    if head == "HAZARDS":
        if len(rest) == 1 and rest[0] in KEYWORDS["ASK"]:
            return Hazards(True)
        if len(rest) == 1 and rest[0] in KEYWORDS["KEPT"]:
            return Hazards(False)
        return None
    if head == "INTERCEPT":
        if len(rest) == 1 and rest[0] in KEYWORDS["ON"]:
            return Intercept(True)
        if len(rest) == 1 and rest[0] in KEYWORDS["OFF"]:
            return Intercept(False)
        return None
    return None


__all__ = ["Order", "ORDER_TYPES", "STANDING", "COMMAND", "COMBAT", "Item", "parse_text", "parse_line",
           "MAX_ITEMS", "is_square", "is_id"] + [t.__name__ for t in ORDER_TYPES]
