"""What every game's order parser shares: order texts are read line by line, `#`
starts a comment, blank lines do not count, and lines keep their numbers so that
diagnostics name the line the player wrote."""

from __future__ import annotations

import difflib
import functools
import tomllib
import unicodedata
from importlib import resources
from typing import Any, Callable, Iterator, Sequence, TypeVar

from pbem.core.i18n import Message, msg
from pbem.core.rules import Diagnostic, Sheet


def fold(word: str) -> str:
    """Upper case without accents: players write "più", "PIU" or "Più" alike (keywords are compared folded)."""
    upper = word.upper()
    if upper.isascii():
        return upper  # NFKD leaves ASCII as it is, and ASCII has no combining marks
    decomposed = unicodedata.normalize("NFKD", upper)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def strip_comment(raw: str) -> str:
    return raw.split("#", 1)[0].strip()


def order_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, the line without its comment) for every line with content."""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = strip_comment(raw)
        if line:
            yield number, line


_Item = TypeVar("_Item")


def read_lines(text: str, parse_line: Callable[[str], tuple[Any, tuple[Message, Message | None] | None]],
               item: Callable[[int, str, Any], _Item]) -> tuple[list[_Item], list[Diagnostic]]:
    """Every order line through ``parse_line``: what it reads becomes an item, what it cannot read a
    diagnostic naming the line (either keeps the line's first 120 characters); never raises."""
    items: list[_Item] = []
    diags: list[Diagnostic] = []
    for number, line in order_lines(text):
        read, problem = parse_line(line)
        if problem is not None:
            diags.append(Diagnostic(number, line[:120], problem[0], problem[1]))
        elif read is not None:
            items.append(item(number, line[:120], read))
    return items, diags


def load_keywords(package: str) -> dict[str, tuple[str, ...]]:
    """A game's ``keywords.toml``: each canonical keyword -> its spellings (English and Italian), folded
    as the parsers fold what players write."""
    text = resources.files(package).joinpath("keywords.toml").read_text("utf-8")
    return {k: tuple(fold(w) for w in v) for k, v in tomllib.loads(text).items()}


def unknown_word(word: str, keywords: Sequence[str]) -> tuple[Message, Message]:
    """A line that begins with no keyword: the error, and as its hint the nearest keyword (a slip like
    "MUVOI") or else the order forms."""
    close = difflib.get_close_matches(word[:30], keywords, n=1, cutoff=0.6)
    return msg("err-unknown-word", word=word[:20]), (msg("hint-did-you-mean", word=close[0]) if close
                                                    else msg("hint-order-forms"))


def checked_sheet(seat: str, text: object, *, seats: Sequence[str], awaiting: Sequence[str], phase: Message,
                  parse: Callable[[str], tuple[list[Any], list[Diagnostic]]], plan: Callable[[list[Any]], Any],
                  max_items: int, empty: Any) -> Sheet:
    """The common frame of ``parse_orders`` for engines built on a line parser and a planner:
    an unknown seat, a sheet too long, lines that do not read, a seat not awaited now are refused
    before the planner checks the orders; ``empty`` stands for a sheet with nothing in it; a bug
    reaches the player as an internal-error diagnostic, never as a crash."""
    try:
        if seat not in seats:
            return Sheet(seat, (), (Diagnostic(0, "", msg("err-unknown-seat", seat=str(seat)[:20])),))
        items, diags = parse(text if isinstance(text, str) else "")
        if len(items) > max_items:
            return Sheet(seat, (), (Diagnostic(0, "", msg("err-too-long", max=max_items)),))
        if diags:
            return Sheet(seat, (), tuple(sorted(diags, key=lambda d: d.line)))
        if seat not in awaiting:
            return Sheet(seat, (), (Diagnostic(0, "", msg("err-not-your-phase", phase=phase)),))
        planner = plan(items)
        orders = tuple(planner.orders) if planner.ok else ()
        return Sheet(seat, orders or ((empty,) if planner.ok else ()), tuple(planner.diagnostics))
    except Exception as exc:  # noqa: BLE001 - a bug must not reach the player as a crash
        return Sheet(seat, (), (Diagnostic(0, "", msg("err-internal", error=type(exc).__name__)),))


@functools.lru_cache(maxsize=32)
def keyword_pairs(package: str) -> dict[str, str]:
    """English keyword -> its Italian form, from a game's ``keywords.toml`` (each list: the English
    keyword first, the Italian one second) and, where the game has them, the ``keyword`` /
    ``keyword_it`` pairs of its ``units.toml``."""
    folder = resources.files(package)
    out: dict[str, str] = {}
    for name in ("keywords.toml", "units.toml"):
        path = folder.joinpath(name)
        if not path.is_file():
            continue
        for value in tomllib.loads(path.read_text(encoding="utf-8")).values():
            if isinstance(value, list) and len(value) > 1 and all(isinstance(w, str) for w in value):
                out[fold(value[0])] = value[1].upper()
            elif isinstance(value, dict) and isinstance(value.get("keyword"), str) and value.get("keyword_it"):
                out[fold(value["keyword"])] = str(value["keyword_it"]).upper()
    return out


def echo(canonical: str, written: str, pairs: dict[str, str], lang: str = "en") -> str:
    """The accepted orders as the player wrote them: in Italian keywords (``MUOVI``) when the
    player's own lines began with Italian ones, in English when they began with English ones;
    when no line decides (a word both languages share, as ``AUTO``), in the reader's ``lang``."""
    italian_words = {fold(w) for w in pairs.values()}
    italian, english = italian_words - set(pairs), set(pairs) - italian_words
    heads = [fold(line.split()[0]) for _n, line in order_lines(written) if line.split()]
    if any(h in italian for h in heads):
        pass
    elif any(h in english for h in heads) or lang != "it":
        return canonical
    out = []
    for line in canonical.splitlines():
        head, _, rest = line.partition(" ")
        word = pairs.get(fold(head))
        out.append(f"{word} {rest}".rstrip() if word else line)
    return "\n".join(out)
