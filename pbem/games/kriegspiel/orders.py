"""Typed orders and the syntax of order texts (legality is checked in `deploy`/`turn`).

Keywords are case-insensitive, English or Italian; the canonical form is English
upper-case.  ``-``, ``_``, ``>``, ``,`` and ``;`` separate words like spaces do, so
``G6-G7`` is ``G6 G7`` and ``horse_artillery`` is ``HORSE ARTILLERY``.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import TypeAlias

from pbem.core.i18n import Message, msg
from pbem.core.orders import order_lines
from pbem.core.rules import Diagnostic
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.units import UNITS


@dataclass(frozen=True)
class Deploy:
    kind: str
    square: str

    def canonical(self) -> str:
        return f"{UNITS[self.kind].keyword} {self.square}"


@dataclass(frozen=True)
class Move:
    origin: str
    path: tuple[str, ...]  # squares entered; may lack the intermediate before checking

    def canonical(self) -> str:
        return " ".join(("MOVE", self.origin) + self.path)


@dataclass(frozen=True)
class Attack:
    target: str

    def canonical(self) -> str:
        return f"ATTACK {self.target}"


@dataclass(frozen=True)
class Draw:
    def canonical(self) -> str:
        return "DRAW"


@dataclass(frozen=True)
class Resign:
    def canonical(self) -> str:
        return "RESIGN"


@dataclass(frozen=True)
class Pass:
    def canonical(self) -> str:
        return "PASS"


Order: TypeAlias = Deploy | Move | Attack | Draw | Resign | Pass
ORDER_TYPES: tuple[type, ...] = (Deploy, Move, Attack, Draw, Resign, Pass)


@dataclass(frozen=True)
class Item:
    """One order with the line it came from (line 0: not from a text)."""

    line: int
    text: str
    order: Order


def _load_keywords() -> dict[tuple[str, ...], str]:
    """Phrase (tuple of words) -> "deploy:<kind>" or a turn keyword (MOVE, ATTACK...)."""
    text = resources.files("pbem.games.kriegspiel.data").joinpath("keywords.toml").read_text("utf-8")
    table: dict[tuple[str, ...], str] = {}
    for canonical, words in tomllib.loads(text).items():
        for word in words:
            table[tuple(_words(word))] = canonical
    for kind, spec in UNITS.items():
        for word in (spec.keyword, spec.keyword_it) + spec.aliases:
            table[tuple(_words(word))] = f"deploy:{kind}"
    return table


_SEPARATORS = re.compile(r"[\s\-_>,;:\u2010-\u2015\u2192]+")


def _words(text: str) -> list[str]:
    return [w for w in _SEPARATORS.split(text.upper()) if w]


KEYWORDS = _load_keywords()
_LONGEST = max(len(k) for k in KEYWORDS)
_ALL_WORDS = sorted({" ".join(k) for k in KEYWORDS})
_SQUARE_LIKE = re.compile(r"([A-Z])0*([0-9]{1,6})")


#: How far off the board a written square may lie and still be answered with the nearest one: a
#: square one or two steps beyond the edge is a slip ("U7", "G26"); "J55" is no neighbour of J25.
HINT_REACH = 2


def square_hint(token: str) -> str | None:
    """For a token like ``U7`` or ``G26``: the nearest square of the board, if it is near in the
    board's sense (at most `HINT_REACH` steps away), else None."""
    m = _SQUARE_LIKE.fullmatch(token)
    if not m:
        return None
    letter, number = m.group(1), int(m.group(2))
    wanted = ord(letter) - ord("A")
    row = min(max(wanted, 0), BOARD.rows - 1)
    col = min(max(number, 1), BOARD.cols)
    if max(abs(wanted - row), abs(number - col)) > HINT_REACH:
        return None
    return f"{BOARD.row_letters[row]}{col}"


def _square_error(line: int, text: str, token: str) -> Diagnostic:
    hint = square_hint(token)
    return Diagnostic(line, text, msg("err-not-a-square", token=token,
                                      last_row=BOARD.row_letters[-1], cols=BOARD.cols),
                      msg("hint-square", square=hint) if hint else None)


def _match_keyword(words: list[str]) -> tuple[str | None, int]:
    for n in range(min(_LONGEST, len(words)), 0, -1):
        found = KEYWORDS.get(tuple(words[:n]))
        if found:
            return found, n
    return None, 0


def parse_text(text: str) -> tuple[list[Item], list[Diagnostic]]:
    """Split an order text into orders, line by line; never raises."""
    items: list[Item] = []
    diags: list[Diagnostic] = []
    for number, line in order_lines(text):
        orders, problems = _parse_line(number, line)
        items.extend(Item(number, line, o) for o in orders)
        diags.extend(problems)
    return items, diags


def _squares(number: int, line: str, tokens: list[str]) -> tuple[list[str], list[Diagnostic]]:
    names: list[str] = []
    diags: list[Diagnostic] = []
    for tok in tokens:
        sq = BOARD.parse(tok)
        if sq is None:
            diags.append(_square_error(number, line, tok))
        else:
            names.append(BOARD.name(sq))
    return names, diags


def _parse_line(number: int, line: str) -> tuple[list[Order], list[Diagnostic]]:
    words = _words(line)
    if not words:
        return [], [Diagnostic(number, line, msg("err-unknown-order", word=line[:20]),
                               msg("hint-order-forms"))]
    keyword, used = _match_keyword(words)
    args = words[used:]
    if keyword is None:
        if all(_SQUARE_LIKE.fullmatch(w) for w in words):
            if len(words) in (2, 3):
                keyword, args = "MOVE", words
            else:
                return [], [Diagnostic(number, line, msg("err-square-alone", square=words[0]),
                                       msg("hint-square-alone", square=words[0]))]
        else:
            close = difflib.get_close_matches(words[0][:30], _ALL_WORDS, n=1, cutoff=0.6)
            hint: Message = (msg("hint-did-you-mean", word=close[0]) if close
                             else msg("hint-order-forms"))
            return [], [Diagnostic(number, line, msg("err-unknown-order", word=words[0][:20]), hint)]
    if keyword.startswith("deploy:"):
        kind = keyword.split(":", 1)[1]
        if not args:
            return [], [Diagnostic(number, line, msg("err-deploy-needs-square",
                                                     keyword=UNITS[kind].keyword),
                                   msg("hint-example", example=f"{UNITS[kind].keyword} G6"))]
        names, diags = _squares(number, line, args)
        return [Deploy(kind, n) for n in names], diags
    if keyword == "MOVE":
        names, diags = _squares(number, line, args)
        if diags:
            return [], diags
        if len(names) not in (2, 3):
            return [], [Diagnostic(number, line, msg("err-move-form"),
                                   msg("hint-example", example="MOVE G6 G7 / MOVE G3 H4 I5"))]
        return [Move(names[0], tuple(names[1:]))], []
    if keyword == "ATTACK":
        names, diags = _squares(number, line, args)
        if diags:
            return [], diags
        if len(names) != 1:
            return [], [Diagnostic(number, line, msg("err-attack-form"),
                                   msg("hint-example", example="ATTACK K15"))]
        return [Attack(names[0])], []
    simple: dict[str, Order] = {"DRAW": Draw(), "RESIGN": Resign(), "PASS": Pass()}
    if args:
        return [], [Diagnostic(number, line, msg("err-no-arguments", keyword=keyword),
                               msg("hint-example", example=keyword))]
    return [simple[keyword]], []
