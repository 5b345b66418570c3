"""The reply-header and quote readings skip the usual line with one cheap look (`parse._MAYBE_HEADER`,
a line without ">" in `envelope._quote_depth`): what they find is what the full reading (kept below
as the reference) found, on generated texts of reply headers, quotes and their near misses."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.mail import envelope, parse

_QUOTE = re.compile(r"^\s*+((?:>\s?+)++)")


def ref_reply_header_at(lines: list[str], i: int) -> bool:
    line = lines[i]
    if line.lstrip().startswith(">"):
        return False
    for start, end in ((parse._IT_START, parse._IT_END), (parse._EN_START, parse._EN_END)):
        if start.match(line):
            joined = ""
            for j in range(i, min(i + 3, len(lines))):
                joined = (joined + " " + lines[j]).strip()
                if end.search(joined):
                    return True
                if j > i and not lines[j].strip():
                    break
    if parse._ORIGINAL.match(line):
        return True
    if parse._HDR_FROM.match(line) or parse._UNDERSCORES.match(line):
        nxt = [lines[j] for j in range(i + 1, min(i + 5, len(lines))) if lines[j].strip()]
        if parse._UNDERSCORES.match(line):
            return bool(nxt) and bool(parse._HDR_FROM.match(nxt[0]))
        return sum(1 for n in nxt[:3] if parse._HDR_NEXT.match(n)) >= 2
    return False


def ref_quote_depth(line: str) -> tuple[int, str]:
    m = _QUOTE.match(line)
    if not m:
        return 0, line
    return m.group(1).count(">"), line[m.end():]


_PIECES = st.sampled_from([
    "On", "on", "ON", "Il", "il", "İl", "wrote:", "ha scritto:", "ha  scritto", "Mon, 3 Feb", "<a@b.it>",
    "-----Original Message-----", "--", "---", "- -", "----- Messaggio originale -----", "--original message--", "Forwarded message",
    "__________", "_________", "____________________", "From:", "from :", "FROM", "ſrom:", "Da:", "da", "*From:*",
    "** Da:", "*", "Sent:", "Inviato:", "Date:", "To:", "A:", "Subject:", "Oggetto:", "Cc:", "GAME k1", "SEAT red x",
    "END", ">", "> ", ">>", " ", "  ", "\t", "\u00a0", "\u3000", "\x1f", "\x0c", "x", "é", "\n", "\n", "\n", "\n",
])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_TEXTS)
@example("On Mon, 3 Feb 2025 Red <r@x.it>\nwrote:\n> x")
@example("\u00a0il 3 feb Rossi ha scritto:\n")
@example("__________\nFrom: a\nSent: b\nTo: c")
@example("** From: a\n*Sent:* b\nSubject: c\n")
@example(" Da: Rossi\nInviato: lunedì\nA: me")
@example("--Messaggio originale--")
def test_reply_headers_and_quotes_are_found_as_before(text: str) -> None:
    lines = text.split("\n")
    assert [parse._reply_header_at(lines, i) for i in range(len(lines))] == \
        [ref_reply_header_at(lines, i) for i in range(len(lines))]
    assert [envelope._quote_depth(line) for line in lines] == [ref_quote_depth(line) for line in lines]
