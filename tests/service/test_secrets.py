"""Seat secrets: the stored hash carries its own work factor (pbem.service.secrets)."""

from __future__ import annotations

import hashlib

from pbem.service import secrets


def test_a_hash_written_at_another_count_still_checks() -> None:
    """A holder row from a release that hashed with 5,000 iterations keeps working after the
    factor changed: the count is read from the row, not from the code."""
    salt = bytes(range(16))
    digest = hashlib.pbkdf2_hmac("sha256", b"7fq2mh3kp9z1", salt, 5000)
    stored = f"pbkdf2-sha256$5000${salt.hex()}${digest.hex()}"
    assert secrets.check_secret("7FQ2-MH3K-P9Z1", stored)
    assert not secrets.check_secret("7fq2-mh3k-p9z2", stored)


def test_new_hashes_use_the_current_count_and_check() -> None:
    stored = secrets.hash_secret("7fq2-mh3k-p9z1", b"\x01" * 16)
    scheme, count, salt, digest = stored.split("$")
    assert (scheme, int(count)) == ("pbkdf2-sha256", secrets._ITERATIONS)
    assert secrets.check_secret("7fq2 mh3k p9z1", stored)
    assert not secrets.check_secret("", stored) and not secrets.check_secret("7fq2-mh3k-p9z1", "garbage")
