"""Seat secrets: shown once in the welcome mail, stored only as a salted hash."""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
from collections import OrderedDict
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


#: Seat and game-master secrets found right lately, by their stored hash: a SHA-256 of the stored
#: hash and the secret, never the secret. A player's next mail is checked with one SHA-256, not
#: the hash's PBKDF2 rounds (~0.25 ms, a twelfth of an order mail's handling). A wrong secret
#: is never remembered, so guessing costs the full check every time; a hash that changes (a new
#: secret) is a new key. What a dump of the daemon's memory would give an attacker is no more
#: than the mails in flight give: they carry their secrets in plain text.
_REMEMBERED: OrderedDict[str, bytes] = OrderedDict()
_REMEMBERED_MAX = 4096
_REMEMBERED_LOCK = threading.Lock()


def _token(secret: str, stored: str) -> bytes:
    return hashlib.sha256(stored.encode() + b"\0" + normalise(secret).encode()).digest()


def check_seat_secret(secret: str | None, stored: str) -> bool:
    """`check_secret` for the secrets every order mail carries (a seat's, a game master's),
    with the secrets found right lately remembered (`_REMEMBERED`). Not for one-time codes."""
    if not secret or not stored:
        return False
    token = _token(secret, stored)
    with _REMEMBERED_LOCK:
        known = _REMEMBERED.get(stored)
        if known is not None:
            _REMEMBERED.move_to_end(stored)
    if known is not None and hmac.compare_digest(known, token):
        return True
    if not check_secret(secret, stored):
        return False
    with _REMEMBERED_LOCK:
        _REMEMBERED[stored] = token
        _REMEMBERED.move_to_end(stored)
        while len(_REMEMBERED) > _REMEMBERED_MAX:
            _REMEMBERED.popitem(last=False)
    return True
