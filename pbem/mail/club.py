"""The club's commands (architecture 2.8): mail without a seat, the sender known by address.

```
GAMES                          PARTITE
JOIN <game> [<seat>]           ENTRA <partita> [<posto>]
TAKEOVER <game> <seat>         SUBENTRA <partita> <posto>
CONFIRM <code>                 CONFERMA <codice>
ABSENCE <from> <to> | CANCEL   ASSENZA <dal> <al> | ANNULLA      (YYYY-MM-DD, inclusive)
SET ZONE <tz>                  IMPOSTA FUSO <fuso>
SET LANGUAGE <en|it>           IMPOSTA LINGUA <en|it>
SET NAME <name>                IMPOSTA NOME <nome>            (the rest of the line, up to 40 characters)
WATCH <game> / UNWATCH <game>  OSSERVA <partita> / SMETTI <partita>
JOIN LEAGUE <league>           ENTRA LEGA <lega>
STANDINGS <league>             CLASSIFICA <lega>
```

One command per mail: alone on a line of the mail's own text, or inside a ``GAME … END``
block without ``SEAT`` (there JOIN and TAKEOVER may leave out the game: the block's).
Each command is a typed value; a recognised keyword with bad arguments is a `Malformed`
naming the reason, so the answer can say exactly what was wrong. Reading is one pass over
whitespace-split tokens: no regular expression, linear in the text, never raises.

A name is shown to the other players (``Anna <anna@example.org>``): it is the rest of the
line after ``SET NAME`` (before a ``#``), its runs of spaces made one, at most `MAX_NAME`
characters, with no control or format character (no line breaks, no direction overrides)
and none of ``<``, ``>``, ``@`` (a name never reads as an address).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
import unicodedata
from typing import Any, Iterable, Union

__all__ = [
    "CancelAbsence", "ClubCommand", "Confirm", "Games", "Join", "Malformed", "SetAbsence", "SetLanguage",
    "SetName", "SetZone", "Takeover", "Unwatch", "Watch", "JoinLeague", "Standings", "KEYWORDS", "MAX_NAME", "MAX_WORD", "find_command", "parse_line",
]

#: The longest game id, seat name, code or zone read; a longer word is refused, not cut.
MAX_WORD = 64
#: The longest name a player may take (SET NAME), in characters.
MAX_NAME = 40
#: How many lines of a mail are looked at for a command standing alone.
MAX_LINES = 200

#: First keywords (any case, a trailing colon allowed) → canonical name.
KEYWORDS = {
    "games": "GAMES", "partite": "GAMES",
    "join": "JOIN", "entra": "JOIN",
    "takeover": "TAKEOVER", "subentra": "TAKEOVER",
    "confirm": "CONFIRM", "conferma": "CONFIRM",
    "absence": "ABSENCE", "assenza": "ABSENCE",
    "set": "SET", "imposta": "SET",
    "watch": "WATCH", "osserva": "WATCH",
    "unwatch": "UNWATCH", "smetti": "UNWATCH",
    "standings": "STANDINGS", "classifica": "STANDINGS",
}
#: JOIN LEAGUE / ENTRA LEGA: the second word that makes a JOIN a league's.
_LEAGUE = {"league", "lega"}
#: The Italian first keywords.
_ITALIAN = {"partite", "entra", "subentra", "conferma", "assenza", "imposta", "osserva", "smetti", "classifica"}
_CANCEL = {"cancel", "annulla"}
_ZONE = {"zone", "fuso", "timezone"}
_LANGUAGE = {"language", "lingua"}
_LANGUAGES = {"en", "it"}
_NAME = {"name", "nome"}
#: Characters a name may not hold besides control and format ones: a name never reads as an address.
_NOT_IN_NAME = frozenset("<>@")


#: The language of the keyword the sender used ("it" for PARTITE, ENTRA…, "" for English):
#: how to answer a sender we do not know yet. Not part of a command's identity.
def _lang() -> Any:
    return field(default="", compare=False, repr=False)


@dataclass(frozen=True)
class Games:
    """GAMES: open games with free seats, seats open for takeover, the sender's games."""

    lang: str = _lang()


@dataclass(frozen=True)
class Join:
    """JOIN <game> [<seat>]: ask for a seat (any free one when no seat is named)."""

    game: str
    seat: str | None = None
    lang: str = _lang()


@dataclass(frozen=True)
class Takeover:
    """TAKEOVER <game> <seat>: ask for an abandoned or freed seat."""

    game: str
    seat: str
    lang: str = _lang()


@dataclass(frozen=True)
class Confirm:
    """CONFIRM <code>: the one-time code, normalised (letters and digits, lower case)."""

    code: str
    lang: str = _lang()


@dataclass(frozen=True)
class SetAbsence:
    """ABSENCE <from> <to>: days away, both inclusive (the service refuses past or reversed dates)."""

    start: date
    end: date
    lang: str = _lang()


@dataclass(frozen=True)
class CancelAbsence:
    """ABSENCE CANCEL: the sender's absences to come are withdrawn."""

    lang: str = _lang()


@dataclass(frozen=True)
class SetZone:
    """SET ZONE <tz>: the sender's own time zone (checked against the zone database by the service)."""

    zone: str
    lang: str = _lang()


@dataclass(frozen=True)
class SetLanguage:
    """SET LANGUAGE <en|it>."""

    language: str
    lang: str = _lang()


@dataclass(frozen=True)
class SetName:
    """SET NAME <name>: how the other players read the sender (checked here, see the module's notes)."""

    name: str
    lang: str = _lang()


@dataclass(frozen=True)
class Watch:
    """WATCH <game>: follow a game one does not play in, as an observer (`pbem.service.observers`)."""

    game: str
    lang: str = _lang()


@dataclass(frozen=True)
class Unwatch:
    """UNWATCH <game>: stop following it."""

    game: str
    lang: str = _lang()


@dataclass(frozen=True)
class JoinLeague:
    """JOIN LEAGUE <league>: sign up for an open league (`pbem.service.leagues`)."""

    league: str
    lang: str = _lang()


@dataclass(frozen=True)
class Standings:
    """STANDINGS <league>: the league's standings."""

    league: str
    lang: str = _lang()


@dataclass(frozen=True)
class Malformed:
    """A club keyword with arguments that do not fit. ``reason``: a key under ``club.bad.``;
    ``text``: the offending word (to be quoted safely), or ""."""

    command: str
    reason: str
    text: str = ""
    lang: str = _lang()


ClubCommand = Union[Games, Join, Takeover, Confirm, SetAbsence, CancelAbsence, SetZone, SetLanguage, SetName, Watch,
                    Unwatch, JoinLeague, Standings, Malformed]


def _keyword(token: str) -> str:
    return token.rstrip(":").lower()


def _name(word: str) -> bool:
    """A game id or seat name: ASCII letters, digits, ``-`` and ``_``."""
    return 0 < len(word) <= MAX_WORD and word.isascii() and all(ch.isalnum() or ch in "-_" for ch in word)


def _date(word: str) -> date | None:
    """Strictly ``YYYY-MM-DD``."""
    if len(word) != 10 or not word.isascii() or word[4] != "-" or word[7] != "-":
        return None
    if not (word[:4] + word[5:7] + word[8:]).isdigit():
        return None
    try:
        return date(int(word[:4]), int(word[5:7]), int(word[8:]))
    except ValueError:
        return None


def _zone_word(word: str) -> bool:
    return 0 < len(word) <= MAX_WORD and word.isascii() and all(ch.isalnum() or ch in "/_+-" for ch in word)


def _display_name(text: str) -> SetName | Malformed:
    """SET NAME's argument: the text after NAME, checked in one pass over its characters."""
    raw = text.strip()
    if not raw:
        return Malformed("SET NAME", "name-missing")
    if len(raw) > 4 * MAX_NAME:  # far too long even with its spaces made one: not looked at further
        return Malformed("SET NAME", "name-long", raw)
    for ch in raw:
        kind = unicodedata.category(ch)
        if kind[0] == "C" or kind in ("Zl", "Zp") or ch in _NOT_IN_NAME:
            return Malformed("SET NAME", "name-chars", ch if ch in _NOT_IN_NAME else f"U+{ord(ch):04X}")
    name = " ".join(raw.split())
    return SetName(name) if len(name) <= MAX_NAME else Malformed("SET NAME", "name-long", name)


def parse_line(line: str, game: str | None = None) -> ClubCommand | None:
    """The club command on one line, or None when the line does not start with a club
    keyword. ``game``: the enclosing block's game, used by JOIN/TAKEOVER that name none."""
    # At most the keyword, three words and the rest: a command never needs more, and a long
    # line of words is not cut into a list of all of them (SET NAME takes the rest as it is).
    body = line.split("#", 1)[0]
    tokens = body.split(None, 4)
    if not tokens:
        return None
    name = KEYWORDS.get(_keyword(tokens[0]))
    if name is None:
        return None
    args = tokens[1:]
    if len(args) == 4:
        args[3] = args[3].split(None, 1)[0]  # only ever quoted as "unexpected <word>"
    lang = "it" if _keyword(tokens[0]) in _ITALIAN else ""
    try:
        if name == "SET" and args and _keyword(args[0]) in _NAME:
            rest = body.split(None, 2)
            found: ClubCommand | None = _display_name(rest[2] if len(rest) > 2 else "")
        else:
            found = _parse(name, args, game)
    except Exception:  # pragma: no cover - a bug must not drop a player's mail
        found = Malformed(name, "unreadable")
    return replace(found, lang=lang) if found is not None and lang else found


def _parse(name: str, args: list[str], game: str | None) -> ClubCommand | None:
    if name == "GAMES":
        return Malformed(name, "extra", args[0]) if args else Games()
    if name == "JOIN" and args and _keyword(args[0]) in _LEAGUE:
        return _league(name, args[1:], JoinLeague)
    if name == "STANDINGS":
        return _league(name, args, Standings)
    if name == "JOIN":
        if not args and game is None:
            return Malformed(name, "game-missing")
        if game is not None and (not args or args[0].lower() != game.lower()):
            args = [game, *args]  # inside GAME g: JOIN [<seat>]
        if len(args) > 2:
            return Malformed(name, "extra", args[2])
        bad = next((a for a in args if not _name(a)), None)
        if bad is not None:
            return Malformed(name, "name", bad)
        return Join(args[0].lower(), args[1].lower() if len(args) > 1 else None)
    if name == "TAKEOVER":
        if game is not None and (not args or args[0].lower() != game.lower()):
            args = [game, *args]
        if not args:
            return Malformed(name, "game-missing")
        if len(args) < 2:
            return Malformed(name, "seat-missing")
        if len(args) > 2:
            return Malformed(name, "extra", args[2])
        bad = next((a for a in args if not _name(a)), None)
        if bad is not None:
            return Malformed(name, "name", bad)
        return Takeover(args[0].lower(), args[1].lower())
    if name in ("WATCH", "UNWATCH"):
        if game is not None and (not args or args[0].lower() != game.lower()):
            args = [game, *args]  # inside GAME g: WATCH
        if not args:
            return Malformed(name, "game-missing")
        if len(args) > 1:
            return Malformed(name, "extra", args[1])
        if not _name(args[0]):
            return Malformed(name, "name", args[0])
        return Watch(args[0].lower()) if name == "WATCH" else Unwatch(args[0].lower())
    if name == "CONFIRM":
        if not args:
            return Malformed(name, "code-missing")
        word = "".join(args)
        if len(word) > MAX_WORD or not word.isascii():
            return Malformed(name, "code", word)
        code = "".join(ch for ch in word.lower() if ch.isalnum())
        return Confirm(code) if code else Malformed(name, "code", word)
    if name == "ABSENCE":
        if len(args) == 1 and _keyword(args[0]) in _CANCEL:
            return CancelAbsence()
        if len(args) < 2:
            return Malformed(name, "dates-missing")
        if len(args) > 2:
            return Malformed(name, "extra", args[2])
        start, end = _date(args[0]), _date(args[1])
        if start is None:
            return Malformed(name, "date", args[0])
        if end is None:
            return Malformed(name, "date", args[1])
        return SetAbsence(start, end)
    # SET ZONE <tz> / SET LANGUAGE <en|it>
    if not args:
        return Malformed(name, "set-what")
    what = _keyword(args[0])
    rest = args[1:]
    if what in _ZONE:
        if len(rest) != 1:
            return Malformed("SET ZONE", "extra" if rest else "zone-missing", rest[1] if len(rest) > 1 else "")
        return SetZone(rest[0]) if _zone_word(rest[0]) else Malformed("SET ZONE", "zone", rest[0])
    if what in _LANGUAGE:
        if len(rest) != 1:
            return Malformed("SET LANGUAGE", "extra" if rest else "language-missing", rest[1] if len(rest) > 1 else "")
        lang = rest[0].lower()
        return SetLanguage(lang) if lang in _LANGUAGES else Malformed("SET LANGUAGE", "language", rest[0])
    return Malformed(name, "set-what", args[0])


def _league(name: str, args: list[str], kind: type[JoinLeague] | type[Standings]) -> ClubCommand:
    """JOIN LEAGUE <league> / STANDINGS <league>: one league id."""
    if not args:
        return Malformed(name, "league-missing")
    if len(args) > 1:
        return Malformed(name, "extra", args[1])
    return kind(args[0].lower()) if _name(args[0]) else Malformed(name, "name", args[0])


def find_command(lines: Iterable[str]) -> ClubCommand | None:
    """The first club command standing on a line of its own among ``lines`` (the mail's own
    text, quoted lines skipped), looking at most at `MAX_LINES` lines. A well-formed command
    wins over an earlier line that only starts with a keyword; failing one, that line's
    `Malformed` is the answer."""
    first_bad: Malformed | None = None
    for i, line in enumerate(lines):
        if i >= MAX_LINES:
            break
        if line.lstrip().startswith(">"):
            continue
        found = parse_line(line)
        if isinstance(found, Malformed):
            first_bad = first_bad or found  # "Join us on Friday" in a greeting: a later line may be the command
        elif found is not None:
            return found
    return first_bad
