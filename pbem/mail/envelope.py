"""The order-mail envelope (architecture 2.3): the GAME … END block.

```
GAME k42
SEAT north 7fq2-mh3k-p9z1        # seat and its secret from the welcome mail
TURN 7                           # optional guard
... order lines ...
END
```

``parse_envelope`` never raises: everything it does not like becomes a problem
``(lineno, Message)``; line numbers count from the GAME line (= 1), 0 means "the mail".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from pbem.core.i18n import Message, msg

from .caps import MAX_TEXT
from .club import ClubCommand, find_command, parse_line
from .parse import cut_reply
from .quote import safe_quote

__all__ = [
    "COMMANDS",
    "MAX_LINE",
    "MAX_ORDER_LINES",
    "WARNING_KEYS",
    "Command",
    "Envelope",
    "normalise_secret",
    "parse_envelope",
]

_GAME = {"game", "partita"}
_END = {"end", "fine"}
_SEAT = {"seat", "posto"}
_TURN = {"turn", "turno"}

#: Command keywords (any case) → canonical name.
COMMANDS = {
    "help": "HELP", "aiuto": "HELP",
    "status": "STATUS", "stato": "STATUS",
    "map": "MAP", "mappa": "MAP",
    "history": "HISTORY", "storia": "HISTORY",
    "orders": "ORDERS", "ordini": "ORDERS",
    "secret": "SECRET", "segreto": "SECRET",
    "leave": "LEAVE", "lascia": "LEAVE",
}
_CONFIRM = {"confirm", "conferma"}
#: ``GM <secret>`` instead of SEAT: the game master's block (architecture 2.8).
_GM = {"gm", "arbitro"}
#: The game master's commands, read only in a block signed with GM (a seat's orders may use
#: these words): keyword → canonical name.
GM_COMMANDS = {
    "extend": "EXTEND", "proroga": "EXTEND",
    "pause": "PAUSE", "pausa": "PAUSE",
    "resume": "RESUME", "riprendi": "RESUME",
    "free": "FREE", "libera": "FREE",
    "approve": "APPROVE", "approva": "APPROVE",
    "replace": "REPLACE", "sostituisci": "REPLACE",
    "end": "END", "fine": "END",
    "announce": "ANNOUNCE", "annuncia": "ANNOUNCE",
}
#: How many words each game master's command takes after its keyword.
_GM_ARITY = {"EXTEND": 1, "PAUSE": 0, "RESUME": 0, "FREE": 1, "APPROVE": 1, "REPLACE": 2, "END": 1, "ANNOUNCE": 0}
_GM_ENDS = {"draw": "DRAW", "patta": "DRAW", "abandon": "ABANDON", "abbandono": "ABANDON"}
_NEW = {"new", "nuovo"}
#: ``PRESS <seat>[,<seat>…]|ALL`` in a seat's block (STAMPA … / STAMPA TUTTI): the lines up to END
#: are the message (`pbem.service.press`); ``HISTORY PRESS`` lists the seat's messages.
_PRESS = {"press", "stampa"}
#: Commands whose block lines, up to END, are a text (blank lines and '#' kept), not orders.
_TEXT_COMMANDS = ("ANNOUNCE", "PRESS")

#: Every word a block line's first word is looked up in (`_parse`): a line whose first word is
#: none of them is an order line, whatever the block's state.
_KEYWORDS = frozenset(_GAME | _END | _SEAT | _TURN | set(COMMANDS) | _GM | set(GM_COMMANDS) | _PRESS)

#: Order lines read from one block: more is not a turn's orders but junk (10 MB of lines
#: took seconds in a game's parser and gave 20,000 diagnostics in one reply). Beyond it
#: the block is refused whole, with ``envelope-too-many-lines``.
MAX_ORDER_LINES = 500
#: The longest order line read; a longer one is refused, quoted by a short prefix only.
MAX_LINE = 1_000

#: Problem keys that do not stop the mail from being used.
WARNING_KEYS = frozenset({"envelope-end-missing", "envelope-extra-block", "envelope-text-after-end"})

#: Possessive: nothing follows the prefix, so no state is kept to give characters back; the
#: plain group repeat kept one mark per "> " and cost 20 times as much on 100 KB as on 10 KB
#: on a loaded machine (tests/mail/test_growth.py).
_QUOTE = re.compile(r"^\s*+((?:>\s?+)++)")


class Command(NamedTuple):
    """A non-order request: HELP [kind] [topic], STATUS, MAP, HISTORY [n], ORDERS, SECRET NEW.

    A plain ``(name, arg)`` tuple; ``arg`` is the game kind for HELP and the turn number
    (as text) for HISTORY, else None.
    """

    name: str
    arg: str | None = None


@dataclass(frozen=True)
class Envelope:
    game: str | None = None
    seat: str | None = None
    secret: str | None = None
    turn: int | None = None
    command: Command | None = None
    order_lines: tuple[tuple[int, str], ...] = ()
    problems: tuple[tuple[int, Message], ...] = ()
    found: bool = False
    club: ClubCommand | None = None  # a club command (pbem.mail.club): alone in the text, or in a block without SEAT
    master: bool = False  # the block is signed ``GM <secret>``: the game master's (``command`` is a GM command)
    gm_secret: str | None = None

    @property
    def errors(self) -> tuple[tuple[int, Message], ...]:
        """Problems that make the mail unusable as it stands."""
        return tuple(p for p in self.problems if p[1].key not in WARNING_KEYS)

    @property
    def warnings(self) -> tuple[tuple[int, Message], ...]:
        return tuple(p for p in self.problems if p[1].key in WARNING_KEYS)

    @property
    def is_help_request(self) -> bool:
        return self.command is not None and self.command.name == "HELP"


def normalise_secret(secret: str) -> str:
    """``7FQ2 MH3K-p9z1`` → ``7fq2mh3kp9z1``: letters and digits only, lower case.

    Compare ``normalise_secret(stored) == envelope.secret``.
    """
    return "".join(ch for ch in secret.lower() if ch.isascii() and ch.isalnum())


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def _keyword(token: str) -> str:
    return token.rstrip(":").lower()


def _quote_depth(line: str) -> tuple[int, str]:
    if ">" not in line:  # the usual line: no quote marker, no match to try
        return 0, line
    m = _QUOTE.match(line)
    if not m:
        return 0, line
    prefix = m.group(1)
    return prefix.count(">"), line[m.end():]


def _find_block(lines: list[str]) -> tuple[int, int, list[str]] | None:
    """(start index, quote depth, block lines without quote prefix) of the first block.

    An unquoted GAME line wins over a quoted one.
    """
    for want_quoted in (False, True):
        for i, line in enumerate(lines):
            depth, body = _quote_depth(line)
            if (depth > 0) != want_quoted:
                continue
            tokens = _strip_comment(body).split(None, 1)  # the first word is all it looks at
            if tokens and _keyword(tokens[0]) in _GAME:
                return i, depth, lines[i:]
    return None


def parse_envelope(text: str) -> Envelope:
    """Find and read the GAME block in an order mail's text. Never raises."""
    try:
        return _parse(text)
    except Exception:  # pragma: no cover - a bug must not drop a player's mail
        return Envelope(problems=((0, msg("envelope-unreadable")),))


def _parse(text: str) -> Envelope:
    text = str(text)[:MAX_TEXT].replace("\r\n", "\n").replace("\r", "\n")
    own, rest = cut_reply(text)
    all_lines = text.split("\n")
    own_count = len(own.split("\n")) if rest else len(all_lines)
    # the sender's own words first; the quoted rest only when they hold no block
    found = _find_block(all_lines[:own_count])
    limit = own_count
    if found is None and rest:
        found = _find_block(all_lines[own_count:])
        if found is not None:
            found = (found[0] + own_count, found[1], [])
        limit = len(all_lines)
    if found is None:
        return _no_block(all_lines[:own_count])
    start, depth, _ = found
    # a block runs to END even across what looked like a reply header; without END it
    # stops where the quoted reply begins
    block_lines = all_lines[start:]
    block_limit = limit - start
    if not _has_end(block_lines, depth):
        block_lines = block_lines[:block_limit]

    problems: list[tuple[int, Message]] = []
    game: str | None = None
    seat: str | None = None
    secret: str | None = None
    turn: int | None = None
    command: Command | None = None
    orders: list[tuple[int, str]] = []
    master = False
    gm_secret: str | None = None
    ended = False
    end_lineno = 0
    last_lineno = 1

    for offset, raw_line in enumerate(block_lines):
        lineno = offset + 1
        line_depth, body = _quote_depth(raw_line) if ">" in raw_line else (0, raw_line)
        if depth:
            if line_depth < depth:
                if not body.strip() and line_depth == 0 and offset + 1 < len(block_lines):
                    # a blank line inside a quoted block (some clients drop the marker)
                    nd, _ = _quote_depth(block_lines[offset + 1])
                    if nd >= depth:
                        continue
                break  # the quote ended
            if line_depth > depth:
                continue  # a quote inside the quote
        elif line_depth:
            continue  # quoted lines inside an unquoted block are ignored
        content = _strip_comment(body)
        if command is not None and command.name in _TEXT_COMMANDS and content.lower() not in _END:
            # the announcement's or the message's own words up to END, blank lines and '#' kept
            if len(body) > MAX_LINE or len(orders) >= MAX_ORDER_LINES:
                problems.append((lineno, msg("envelope-too-many-lines", limit=MAX_ORDER_LINES)))
                break
            orders.append((lineno, body.rstrip()))
            continue
        if not content:
            continue
        last_lineno = lineno
        tokens = content.split()
        key = _keyword(tokens[0])
        if lineno == 1 or key in _KEYWORDS:  # else the usual order line: no keyword to look for
            if lineno == 1:
                if len(tokens) < 2:
                    problems.append((lineno, msg("envelope-game-missing-id")))
                else:
                    game = tokens[1]
                    if len(tokens) > 2:
                        problems.append((lineno, msg("envelope-extra-text", keyword="GAME",
                                                     text=safe_quote(" ".join(tokens[2:])))))
                continue
            if key in _END and len(tokens) == 1:
                ended = True
                end_lineno = lineno
                break
            if key in _GAME:
                problems.append((lineno, msg("envelope-game-duplicate")))
                continue
            if key in _SEAT:
                if seat is not None:
                    problems.append((lineno, msg("envelope-seat-duplicate")))
                elif len(tokens) < 2:
                    problems.append((lineno, msg("envelope-seat-missing")))
                else:
                    seat = tokens[1]
                    if len(tokens) < 3:
                        problems.append((lineno, msg("envelope-secret-missing", seat=safe_quote(seat))))
                    else:
                        secret = normalise_secret("".join(tokens[2:])) or None
                        if secret is None:
                            problems.append((lineno, msg("envelope-secret-missing", seat=safe_quote(seat))))
                continue
            if key in _TURN:
                if turn is not None:
                    problems.append((lineno, msg("envelope-turn-duplicate")))
                elif len(tokens) != 2 or not tokens[1].isdigit() or not tokens[1].isascii():
                    problems.append((lineno, msg("envelope-turn-not-number",
                                                 text=safe_quote(" ".join(tokens[1:])))))
                else:
                    turn = int(tokens[1])
                continue
            if key in _GM:
                if master or seat is not None:
                    problems.append((lineno, msg("envelope-gm-duplicate")))
                elif len(tokens) < 2 or not normalise_secret("".join(tokens[1:])):
                    master = True
                    problems.append((lineno, msg("envelope-gm-secret-missing")))
                else:
                    master, gm_secret = True, normalise_secret("".join(tokens[1:]))
                continue
            if master and key in GM_COMMANDS:
                parsed = _gm_command(GM_COMMANDS[key], tokens, lineno, problems)
                if parsed is not None:
                    if command is not None:
                        problems.append((lineno, msg("envelope-command-duplicate", first=command.name,
                                                     second=parsed.name)))
                    else:
                        command = parsed
                continue
            if key in _PRESS and not master:
                if command is not None:
                    problems.append((lineno, msg("envelope-command-duplicate", first=command.name, second="PRESS")))
                    continue
                command = Command("PRESS", " ".join(tokens[1:]) or None)
                if len(tokens) < 2:
                    problems.append((lineno, msg("envelope-press-to-missing")))
                if orders:  # orders and a message in one block: each goes in a mail of its own
                    problems.append((orders[0][0], msg("envelope-command-with-orders", command="PRESS")))
                continue
            if key in COMMANDS:
                parsed = _command(COMMANDS[key], tokens, lineno, problems)
                if parsed is not None:
                    if command is not None:
                        problems.append((lineno, msg("envelope-command-duplicate",
                                                     first=command.name, second=parsed.name)))
                    else:
                        command = parsed
                continue
        if len(content) > MAX_LINE:
            problems.append((lineno, msg("envelope-line-too-long", limit=MAX_LINE, text=safe_quote(content))))
            continue
        if len(orders) >= MAX_ORDER_LINES:
            problems.append((lineno, msg("envelope-too-many-lines", limit=MAX_ORDER_LINES)))
            break
        orders.append((lineno, content))
    if not ended and not any(p[1].key == "envelope-too-many-lines" for p in problems):
        problems.append((last_lineno, msg("envelope-end-missing")))

    if ended:
        # anything meaningful after END in the same text is ignored; say so only if it
        # looks like orders were meant to go on (another keyword line right after).
        tail = block_lines[end_lineno:block_limit]
        for extra in tail:
            d, body = _quote_depth(extra)
            if d != depth:
                continue
            tokens = _strip_comment(body).split()
            if tokens and _keyword(tokens[0]) in _GAME:
                problems.append((end_lineno, msg("envelope-extra-block")))
                break
    if seat is None and command is None and orders and not master:
        club = parse_line(orders[0][1], game)  # GAME g / JOIN / END: a club command, not orders
        if club is not None:
            return Envelope(game=game, club=club, found=True)
    if command is not None and orders and command.name not in _TEXT_COMMANDS:  # an announcement's lines are its text
        problems.append((orders[0][0], msg("envelope-command-with-orders", command=command.name)))
    if game is not None and command is None and seat is None and not master:
        problems.append((1, msg("envelope-seat-missing")))
    if master and seat is not None:
        problems.append((1, msg("envelope-gm-duplicate")))
    if master:
        return Envelope(game=game, command=command, order_lines=tuple(orders), problems=tuple(problems),
                        found=True, master=True, gm_secret=gm_secret)
    return Envelope(game=game, seat=seat, secret=secret, turn=turn, command=command,
                    order_lines=tuple(orders), problems=tuple(problems), found=True)


def _has_end(block_lines: list[str], depth: int) -> bool:
    """Whether the block ends with END before the quote ends or another block starts. Each
    line is looked at once, by its first word (``split(None, 1)``: the other words are only
    counted, and one more is enough)."""
    for line in block_lines[1:]:
        line_depth, body = _quote_depth(line) if ">" in line else (0, line)
        if depth and line_depth < depth and body.strip():
            return False  # the quote ended first
        if line_depth != depth:
            continue
        words = body.split("#", 1)[0].split(None, 1)
        if not words:
            continue
        key = words[0].rstrip(":").lower()
        if key in _END and len(words) == 1:
            return True
        if key in _GAME:
            return False  # another block starts: this one has no END
    return False


def _gm_command(name: str, tokens: list[str], lineno: int, problems: list[tuple[int, Message]]) -> Command | None:
    """One of the game master's commands with exactly its words (``END DRAW``, ``REPLACE red a@b.c``)."""
    args = tokens[1:]
    if len(args) != _GM_ARITY[name]:
        problems.append((lineno, msg("envelope-gm-arguments", command=name, count=_GM_ARITY[name],
                                     text=safe_quote(" ".join(tokens)))))
        return None
    if name == "END":
        end = _GM_ENDS.get(args[0].lower())
        if end is None:
            problems.append((lineno, msg("envelope-gm-end", text=safe_quote(args[0]))))
            return None
        return Command(name, end)
    return Command(name, " ".join(args) or None)


def _command(name: str, tokens: list[str], lineno: int,
             problems: list[tuple[int, Message]]) -> Command | None:
    args = tokens[1:]
    if name == "SECRET":
        if len(args) == 1 and args[0].lower() in _NEW:
            return Command("SECRET NEW")
        problems.append((lineno, msg("envelope-secret-new-expected", text=safe_quote(" ".join(tokens)))))
        return None
    if name == "MAP" and len(args) == 1 and args[0].lower() in ("zoc", "zone"):
        return Command("MAP", "zoc")  # the map with the zones of control drawn (Corteo)
    if name == "LEAVE":
        # Leaving a game is final: only "LEAVE CONFIRM" does it; plain LEAVE asks to confirm.
        if len(args) == 1 and args[0].lower() in _CONFIRM:
            return Command("LEAVE", "CONFIRM")
        if args:
            problems.append((lineno, msg("envelope-extra-text", keyword=name, text=safe_quote(" ".join(args)))))
        return Command("LEAVE")
    if name == "HELP":
        # HELP, HELP <kind>, HELP <topic> (in a game block), HELP <kind> <topic>.
        if len(args) > 2:
            problems.append((lineno, msg("envelope-extra-text", keyword=name,
                                         text=safe_quote(" ".join(args[2:])))))
        return Command(name, " ".join(a.lower() for a in args[:2]) if args else None)
    if name == "HISTORY":
        if not args:
            return Command(name)
        if args[0].lower() in _PRESS:
            if len(args) > 1:
                problems.append((lineno, msg("envelope-extra-text", keyword="HISTORY PRESS",
                                             text=safe_quote(" ".join(args[1:])))))
            return Command(name, "PRESS")
        if not (args[0].isascii() and args[0].isdigit()):
            problems.append((lineno, msg("envelope-history-not-number", text=safe_quote(args[0]))))
            return Command(name)
        if len(args) > 1:
            problems.append((lineno, msg("envelope-extra-text", keyword=name,
                                         text=safe_quote(" ".join(args[1:])))))
        return Command(name, str(int(args[0])))
    if args:
        problems.append((lineno, msg("envelope-extra-text", keyword=name, text=safe_quote(" ".join(args)))))
    return Command(name)


def _no_block(lines: list[str]) -> Envelope:
    for line in lines:
        depth, body = _quote_depth(line)
        if depth:
            continue
        content = _strip_comment(body)
        if not content:
            continue
        tokens = content.split(None, 3)  # HELP takes at most two words: a long line is never cut up whole
        if COMMANDS.get(_keyword(tokens[0])) == "HELP" and len(tokens) <= 3:
            arg = " ".join(t.lower() for t in tokens[1:]) or None
            return Envelope(command=Command("HELP", arg))
        break
    club = find_command(lines)
    if club is not None:
        return Envelope(club=club)
    return Envelope(problems=((0, msg("envelope-no-game-block")),))
