"""The reply-header and quote readings skip the usual line with one cheap look (`parse._MAYBE_HEADER`;
`parse.cut_reply` finds the lines to look at by one scan, `parse._MAYBE_HEADER_LINE`;
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


def ref_cut_reply(text: str) -> tuple[str, str]:
    lines = text.split("\n")
    for i in range(len(lines)):
        if ref_reply_header_at(lines, i):
            return "\n".join(lines[:i]), "\n".join(lines[i:])
    return text, ""


@settings(max_examples=1500, deadline=None)
@given(_TEXTS)
@example("x\n\u00a0il 3 feb Rossi ha scritto:\n")
@example("il\nOn\t3 Feb\n wrote:")
@example("a\n\x1f\x0c-- x\n*\n")
def test_the_reply_is_cut_where_the_line_by_line_reading_cut_it(text: str) -> None:
    """`parse.cut_reply` tries only the lines `parse._MAYBE_HEADER_LINE` finds in one scan."""
    assert parse.cut_reply(text) == ref_cut_reply(text)


def ref_has_end(block_lines: list[str], depth: int) -> bool:
    for line in block_lines[1:]:
        line_depth, body = ref_quote_depth(line)
        if depth and line_depth < depth and body.strip():
            return False
        if line_depth != depth:
            continue
        tokens = body.split("#", 1)[0].strip().split()
        if len(tokens) == 1 and tokens[0].rstrip(":").lower() in ("end", "fine"):
            return True
        if tokens and tokens[0].rstrip(":").lower() in ("game", "partita"):
            return False
    return False


_BLOCK = st.sampled_from(["GAME k1", "game: k1", "PARTITA", "END", "end:", "FINE x", "END # done", "# END", "PLACE a",
                          ">", "> ", ">>", " ", "\t", "ſnd", "\u212aEND", "", "\n", "\n", "\n"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(_BLOCK, max_size=30).map("".join), st.integers(0, 2))
def test_the_end_of_a_block_is_found_as_before(text: str, depth: int) -> None:
    """`envelope._has_end` reads each line's first word only (``split(None, 1)``)."""
    lines = text.split("\n")
    assert envelope._has_end(lines, depth) == ref_has_end(lines, depth)
