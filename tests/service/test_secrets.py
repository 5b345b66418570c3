"""Seat secrets: the stored hash carries its own work factor (pbem.service.secrets)."""

from __future__ import annotations

import hashlib

import pytest

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


def test_a_seat_secret_found_right_is_checked_again_without_pbkdf2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every order mail carries its seat's secret: once found right it is remembered (a SHA-256
    of it and the stored hash, never the secret), so the next mail costs no PBKDF2 rounds. A
    wrong secret is never remembered (each guess costs the full check), and a new hash is a
    new key."""
    stored = secrets.hash_secret("7fq2-mh3k-p9z1", b"\x02" * 16)
    rounds: list[int] = []
    plain = hashlib.pbkdf2_hmac

    def counting(*args: object) -> bytes:
        rounds.append(1)
        return plain(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(secrets.hashlib, "pbkdf2_hmac", counting)
    monkeypatch.setattr(secrets, "_REMEMBERED", secrets.OrderedDict())  # nothing remembered from other tests
    assert secrets.check_seat_secret("7FQ2 MH3K P9Z1", stored) and len(rounds) == 1
    assert secrets.check_seat_secret("7fq2-mh3k-p9z1", stored) and len(rounds) == 1  # remembered
    assert stored in secrets._REMEMBERED and b"7fq2mh3kp9z1" not in secrets._REMEMBERED[stored]
    for guess in ("7fq2-mh3k-p9z2", "7fq2-mh3k-p9z2", ""):
        assert not secrets.check_seat_secret(guess, stored)
    assert len(rounds) == 3  # two real guesses, each checked in full; the empty one never reaches it
    other = secrets.hash_secret("7fq2-mh3k-p9z1", b"\x03" * 16)  # the same secret under a new salt
    assert secrets.check_seat_secret("7fq2-mh3k-p9z1", other) and len(rounds) == 5  # hashed once, checked once


def test_the_remembered_secrets_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_REMEMBERED_MAX", 3)
    monkeypatch.setattr(secrets, "_REMEMBERED", secrets.OrderedDict())
    hashes = [secrets.hash_secret("abcd-efgh-jkmn", bytes([i]) * 16) for i in range(5)]
    for stored in hashes:
        assert secrets.check_seat_secret("abcd-efgh-jkmn", stored)
    assert list(secrets._REMEMBERED) == hashes[2:]  # the oldest forgotten first
