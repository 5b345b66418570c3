"""Dice the players can verify (architecture 2.5).

At game start the server draws a secret seed and publishes ``commitment(seed)``.
Every die is derived from the seed, the game id, the phase (its gap-free sequence number in the game), a gap-free counter that
runs through the whole game, and the digest of the orders accepted for that phase:
the server cannot steer a roll after seeing the orders (the seed is fixed) and the
players cannot predict one (the seed is secret until the end).  Each roll is
recorded with its purpose; ``derive`` recomputes any of them.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Iterable, Mapping, Protocol

from pbem.core.codec import canonical_json, sha256_hex
from pbem.errors import RulesError

SCHEME = "pbem-dice-v1"
_SPACE = 1 << 64


@dataclass(frozen=True)
class Roll:
    """One die: its place in the game's sequence, why it was rolled, and its value."""

    counter: int
    phase: int
    purpose: str
    sides: int
    value: int


class Dice(Protocol):
    """What an engine may ask of chance."""

    def roll(self, sides: int, purpose: str) -> int: ...

    def rolls(self, sides: int, count: int, purpose: str) -> tuple[int, ...]: ...


def commitment(seed: bytes) -> str:
    """SHA-256 of the seed, mailed to every seat before the first roll."""
    return hashlib.sha256(seed).hexdigest()


def orders_digest(sheets: Mapping[str, str]) -> str:
    """Digest of the accepted orders of one phase: seat -> canonical order text."""
    return sha256_hex(canonical_json({seat: sheets[seat] for seat in sorted(sheets)}))


def derive(seed: bytes, game: str, phase: int, counter: int, digest: str, sides: int) -> int:
    """The value of die number ``counter``: uniform in 1..sides, by rejection sampling."""
    if sides < 2:
        raise RulesError(f"a die needs at least 2 sides, not {sides}")
    limit = _SPACE - (_SPACE % sides)
    attempt = 0
    while True:
        label = f"{SCHEME}|{game}|{phase}|{counter}|{digest}|{sides}|{attempt}"
        mac = hmac.new(seed, label.encode("utf-8"), hashlib.sha256).digest()
        x = int.from_bytes(mac[:8], "big")
        if x < limit:
            return x % sides + 1
        attempt += 1


class RecordingDice:
    """Base for dice that keep the list of what they rolled."""

    def __init__(self, phase: int, start: int = 0) -> None:
        self.phase = phase
        self.next_counter = start
        self.record: list[Roll] = []

    def _value(self, counter: int, sides: int) -> int:
        raise NotImplementedError

    def roll(self, sides: int, purpose: str) -> int:
        value = self._value(self.next_counter, sides)
        self.record.append(Roll(self.next_counter, self.phase, purpose, sides, value))
        self.next_counter += 1
        return value

    def rolls(self, sides: int, count: int, purpose: str) -> tuple[int, ...]:
        return tuple(self.roll(sides, purpose) for _ in range(count))


class VerifiableDice(RecordingDice):
    """The server's dice for one phase of one game."""

    def __init__(self, seed: bytes, game: str, phase: int, digest: str, start: int) -> None:
        super().__init__(phase, start)
        self._seed = seed
        self.game = game
        self.digest = digest

    def _value(self, counter: int, sides: int) -> int:
        return derive(self._seed, self.game, self.phase, counter, self.digest, sides)


class ScriptedDice(RecordingDice):
    """Dice that return given values in order: for rules tests of exact situations."""

    def __init__(self, values: Iterable[int], phase: int = 0, start: int = 0) -> None:
        super().__init__(phase, start)
        self._values = list(values)

    def _value(self, counter: int, sides: int) -> int:
        if not self._values:
            raise RulesError("scripted dice ran out of values")
        value = self._values.pop(0)
        if not 1 <= value <= sides:
            raise RulesError(f"scripted value {value} is not a d{sides}")
        return value


def check_rolls(seed: bytes, game: str, digest_by_phase: Mapping[int, str], rolls: Iterable[Roll]) -> str | None:
    """Recompute recorded rolls; the first mismatch as text, or None when all agree.

    Counters must run gap-free from 0 through the whole game.
    """
    expected = 0
    for r in rolls:
        if r.counter != expected:
            return f"roll counter {r.counter} where {expected} was expected (phase {r.phase})"
        digest = digest_by_phase.get(r.phase)
        if digest is None:
            return f"roll {r.counter} belongs to phase {r.phase}, which has no orders digest"
        value = derive(seed, game, r.phase, r.counter, digest, r.sides)
        if value != r.value:
            return (f"roll {r.counter} (phase {r.phase}, {r.purpose}): recorded {r.value}, "
                    f"seed gives {value}")
        expected += 1
    return None
