"""What every game's order parser shares: order texts are read line by line, `#`
starts a comment, blank lines do not count, and lines keep their numbers so that
diagnostics name the line the player wrote."""

from __future__ import annotations

from typing import Iterator


def strip_comment(raw: str) -> str:
    return raw.split("#", 1)[0].strip()


def order_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, the line without its comment) for every line with content."""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = strip_comment(raw)
        if line:
            yield number, line
