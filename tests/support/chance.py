"""A seeded chooser for the engines' random legal orders in tests (no ``random``: SHA-256 in counter
mode, so a test plays the same game every run)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable


def chooser(label: str) -> Callable[[int], int]:
    """``pick(n)``: an index in ``range(n)``, the same sequence for the same ``label``."""
    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        return int.from_bytes(hashlib.sha256(f"{label}:{counter[0]}".encode()).digest()[:8], "big") % n

    return pick
