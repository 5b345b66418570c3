"""Typed orders and the syntax of order texts (legality is checked in `turn`).

A turn is the path of the corteo's front, written as the squares it enters, in order::

    PATH 23 24 29 34          # PERCORSO; the keyword may be left out: 23 24 29 34
    PATH 24 JUMP 34           # a jump over the number on 29; JUMP (SALTA) may be left out
    ALONG 2 BACK              # LUNGO 2 INDIETRO: the committee moves 2 squares along its corteo
    ALONG TO 41               # LUNGO A 41: the same, naming the square it goes to
    F F L J R                 # or relative to the facing: forward, left, right, jump (A S D SALTA)
    STAY                      # FERMO / PASS: the corteo stays put
    AUTO                      # let the server choose a move

Keywords are case-insensitive, English or Italian (``data/keywords.toml``). Spaces, ``-``,
``,``, ``;``, ``>``, ``/`` and ``:`` separate words, so ``23-24-29`` is ``23 24 29``.
The canonical form is English upper case: ``PATH 24 JUMP 34 35``, ``ALONG 2 BACK``, ``STAY``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import TypeAlias

from pbem.core.i18n import msg
from pbem.core.orders import order_lines, unknown_word
from pbem.core.rules import Diagnostic
from pbem.games.arditi.board import BOARD

# -- typed orders (what a sheet holds, after checking) -------------------------------


@dataclass(frozen=True)
class Move:
    """One square entered by the front of the corteo; ``jump``: over the number before it."""

    square: int
    jump: bool = False


@dataclass(frozen=True)
class Path:
    moves: tuple[Move, ...]

    def canonical(self) -> str:
        return " ".join(["PATH"] + [("JUMP " if m.jump else "") + str(m.square) for m in self.moves])


@dataclass(frozen=True)
class Along:
    count: int
    forward: bool

    def canonical(self) -> str:
        return f"ALONG {self.count} {'FORWARD' if self.forward else 'BACK'}"


@dataclass(frozen=True)
class Stay:
    def canonical(self) -> str:
        return "STAY"


Order: TypeAlias = Path | Along | Stay
ORDER_TYPES: tuple[type, ...] = (Path, Move, Along, Stay)

# -- what the parser reads (before checking against the position) ----------------------

#: A path token: ("sq", 23) a square entered, ("jump", 34) a jump landing on 34,
#: ("rel", "F"|"L"|"R"|"J") a step forward, left, right or a jump straight ahead.
Token: TypeAlias = tuple[str, int | str]


@dataclass(frozen=True)
class RawPath:
    tokens: tuple[Token, ...]


@dataclass(frozen=True)
class RawAlong:
    count: int | None = None
    forward: bool | None = None
    target: int | None = None  # ALONG TO 41


@dataclass(frozen=True)
class Auto:
    pass


Raw: TypeAlias = RawPath | RawAlong | Stay | Auto


@dataclass(frozen=True)
class Item:
    """One order with the line it came from (line 0: not from a text)."""

    line: int
    text: str
    order: Raw


def raw_of(order: Order) -> Raw:
    """A typed order back in the parser's form (to check it again)."""
    if isinstance(order, Path):
        return RawPath(tuple(("jump" if m.jump else "sq", m.square) for m in order.moves))
    if isinstance(order, Along):
        return RawAlong(order.count, order.forward)
    return order


# -- keywords ------------------------------------------------------------------------


def _load_keywords() -> tuple[dict[str, str], dict[str, str]]:
    text = resources.files("pbem.games.arditi.data").joinpath("keywords.toml").read_text("utf-8")
    data = tomllib.loads(text)
    words: dict[str, str] = {}
    relative: dict[str, str] = {}
    for canonical, spellings in data.items():
        if canonical == "relative":
            for d, names in spellings.items():
                for name in names:
                    relative[name.upper()] = d
            continue
        for name in spellings:
            words.setdefault(name.upper(), canonical)
    return words, relative


KEYWORDS, RELATIVE = _load_keywords()
#: Words that start an order line.
_HEADS = {"PATH", "JUMP", "ALONG", "STAY", "AUTO", "DIRECTIONS"}
_HEAD_WORDS = sorted(w for w, k in KEYWORDS.items() if k in _HEADS and len(w) > 2)
_RELATIVE_LETTERS = {w for w in RELATIVE if len(w) == 1}
_SEPARATORS = re.compile(r"[\s,;>/:\u2010-\u2015\u2192-]+")
_NUMBER = re.compile(r"[0-9]{1,6}")
MAX_ITEMS = 40


def _words(text: str) -> list[str]:
    return [w for w in _SEPARATORS.split(text.upper()) if w]


def parse_text(text: str) -> tuple[list[Item], list[Diagnostic]]:
    """Split an order text into orders, line by line; never raises."""
    items: list[Item] = []
    diags: list[Diagnostic] = []
    for number, line in order_lines(text):
        order, problems = _parse_line(number, line)
        if order is not None:
            items.append(Item(number, line[:120], order))
        diags.extend(problems)
    return items, diags


def _square(number: int, line: str, word: str) -> tuple[int | None, Diagnostic | None]:
    value = int(word)
    if BOARD.is_square(value):
        return value, None
    hint = msg("hint-squares", size=BOARD.size)
    return None, Diagnostic(number, line, msg("err-not-a-square", token=word, size=BOARD.size), hint)


def _unknown(number: int, line: str, word: str) -> Diagnostic:
    return Diagnostic(number, line, *unknown_word(word, _HEAD_WORDS))


def _path_tokens(number: int, line: str, words: list[str]) -> tuple[list[Token], list[Diagnostic]]:
    tokens: list[Token] = []
    diags: list[Diagnostic] = []
    i = 0
    while i < len(words):
        w = words[i]
        if _NUMBER.fullmatch(w):
            sq, d = _square(number, line, w)
            if d:
                diags.append(d)
            elif sq is not None:
                tokens.append(("sq", sq))
        elif KEYWORDS.get(w) == "JUMP" and i + 1 < len(words) and _NUMBER.fullmatch(words[i + 1]):
            sq, d = _square(number, line, words[i + 1])
            if d:
                diags.append(d)
            elif sq is not None:
                tokens.append(("jump", sq))
            i += 1
        elif w in RELATIVE:
            tokens.append(("rel", RELATIVE[w]))
        elif len(w) > 1 and all(ch in _RELATIVE_LETTERS for ch in w):
            tokens.extend(("rel", RELATIVE[ch]) for ch in w)
        else:
            diags.append(_unknown(number, line, w))
        i += 1
    return tokens, diags


def _parse_along(number: int, line: str, args: list[str]) -> tuple[Raw | None, list[Diagnostic]]:
    example = msg("hint-example", example=msg("example-along"))
    count: int | None = None
    forward: bool | None = None
    target: int | None = None
    i = 0
    while i < len(args):
        w = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if (KEYWORDS.get(w) == "TO" or w == "A") and nxt is not None and _NUMBER.fullmatch(nxt):
            sq, d = _square(number, line, nxt)
            if d:
                return None, [d]
            target = sq
            i += 2
            continue
        if _NUMBER.fullmatch(w) and count is None:
            count = int(w)
        elif KEYWORDS.get(w) == "FORWARD" or w == "A":
            forward = True
        elif KEYWORDS.get(w) == "BACK":
            forward = False
        else:
            return None, [Diagnostic(number, line, msg("err-along-form"), example)]
        i += 1
    if target is not None and count is None and forward is None:
        return RawAlong(target=target), []
    if count is None or forward is None or target is not None:
        return None, [Diagnostic(number, line, msg("err-along-form"), example)]
    if count < 1 or count > 99:
        return None, [Diagnostic(number, line, msg("err-along-count"), example)]
    return RawAlong(count, forward), []


def _parse_line(number: int, line: str) -> tuple[Raw | None, list[Diagnostic]]:
    words = _words(line)
    if not words:
        return None, [Diagnostic(number, line, msg("err-unknown-word", word=line[:20]), msg("hint-order-forms"))]
    head = KEYWORDS.get(words[0])
    if head in ("STAY", "AUTO"):
        if len(words) > 1:
            return None, [Diagnostic(number, line, msg("err-no-arguments", keyword=head),
                                     msg("hint-example", example=words[0].upper()))]
        return (Stay() if head == "STAY" else Auto()), []
    if head == "ALONG":
        return _parse_along(number, line, words[1:])
    if head in ("PATH", "DIRECTIONS"):
        words = words[1:]
        if not words:
            return None, [Diagnostic(number, line, msg("err-path-empty"),
                                     msg("hint-example", example=msg("example-path")))]
    elif not (_NUMBER.fullmatch(words[0]) or head == "JUMP" or words[0] in RELATIVE
              or all(ch in _RELATIVE_LETTERS for ch in words[0])):
        return None, [_unknown(number, line, words[0])]
    tokens, diags = _path_tokens(number, line, words)
    if diags:
        return None, diags
    if not tokens:
        return None, [Diagnostic(number, line, msg("err-path-empty"),
                                 msg("hint-example", example=msg("example-path")))]
    return RawPath(tuple(tokens)), []
