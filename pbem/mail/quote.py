"""Quoting a stranger's words back: short, on one line, with no bidi controls.

A bad 1 MB order line must not come back as a 2 MB reply, and right-to-left overrides
must not make "‮htuos" read "south" in the answer (issue "Hostile mail", item 7). Every
text a mail quotes back from an inbound mail goes through ``safe_quote``.
"""

from __future__ import annotations

__all__ = ["BIDI_CONTROLS", "QUOTE_LIMIT", "safe_quote"]

#: How many characters of a stranger's text are ever quoted back.
QUOTE_LIMIT = 80

#: Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), the marks
#: U+200E/U+200F and the Arabic letter mark U+061C.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")

_ELLIPSIS = "…"


def safe_quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """At most ``limit`` characters of ``text`` (then "…"), on one line, each bidi control
    shown as U+FFFD and other control characters as spaces. Linear; never raises."""
    head = str(text)[:limit + 1]  # one more than shown tells whether anything was cut
    out: list[str] = []
    for ch in head[:limit]:
        if ch in BIDI_CONTROLS:
            out.append("\ufffd")
        elif ch in "\r\n\t\v\f" or (ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0):
            out.append(" ")
        else:
            out.append(ch)
    quoted = "".join(out)
    return quoted + _ELLIPSIS if len(head) > limit or len(str(text)) > limit else quoted
