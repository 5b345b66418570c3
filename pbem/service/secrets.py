"""Seat secrets: shown once in the welcome mail, stored only as a salted hash."""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Callable

ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i
# The secrets are random (about 59 bits), not chosen passwords: guessing one from a leaked
# hash costs 2**58 tries whatever the work factor, which only adds log2(count) bits (1,000:
# 10 bits, 2**68 HMAC-SHA256 in all; 5,000 added 12.3 bits for five times the cost). The
# factor is modest so that every order mail stays cheap to check (~0.4 ms, not ~2 ms).
# Stored hashes carry their own count: those written at 5,000 still check.
_ITERATIONS = 1000


def new_secret(entropy: Callable[[int], bytes]) -> str:
    """Twelve characters in three groups (about 59 bits), e.g. ``7fq2-mh3k-p9z1``."""
    raw = entropy(12)
    chars = "".join(ALPHABET[b % len(ALPHABET)] for b in raw)
    return "-".join(chars[i:i + 4] for i in range(0, 12, 4))


def normalise(secret: str) -> str:
    """Players may type the secret in capitals, without dashes or with spaces."""
    return re.sub(r"[^0-9a-z]", "", secret.lower())


def hash_secret(secret: str, salt: bytes) -> str:
    digest = hashlib.pbkdf2_hmac("sha256", normalise(secret).encode(), salt, _ITERATIONS)
    return f"pbkdf2-sha256${_ITERATIONS}${salt.hex()}${digest.hex()}"


def check_secret(secret: str | None, stored: str) -> bool:
    if not secret or not stored:
        return False
    try:
        _scheme, iterations, salt_hex, digest_hex = stored.split("$")
        digest = hashlib.pbkdf2_hmac("sha256", normalise(secret).encode(), bytes.fromhex(salt_hex), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)
