"""Replaying a game from its log: the initial state, each phase's orders, the dice.

Used by `pbem verify` (from an archive file) and by the archive export (to draw the
map of every turn). The log is the truth; the stored state is only a cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from pbem.core.codec import canonical_json, sha256_hex
from pbem.core.dice import RecordingDice, Roll, VerifiableDice, commitment, orders_digest
from pbem.core.rules import Rules, Sheet
from pbem.errors import RulesError, VerifyError


class ReplayDice(RecordingDice):
    """Dice that give back the recorded values while the seed is still secret; they
    check that the engine asks for the same dice, in the same order, for the same purpose."""

    def __init__(self, recorded: Sequence[Roll], phase: int, start: int) -> None:
        super().__init__(phase, start)
        self._recorded = list(recorded)

    def _value(self, counter: int, sides: int) -> int:
        """The recorded die, checked before an engine sees it: its number is the one the rules
        roll (no shifted or repeated index), its sides are theirs and its value is on the die."""
        index = counter - (self._recorded[0].counter if self._recorded else counter)
        if not 0 <= index < len(self._recorded):
            raise VerifyError(f"phase {self.phase}: the rules roll die #{counter}, which was never recorded")
        r = self._recorded[index]
        if r.counter != counter:
            raise VerifyError(f"phase {self.phase}: the rules roll die #{counter}, the record has #{r.counter} there")
        if r.sides != sides:
            raise VerifyError(f"phase {self.phase}: die #{counter} was recorded as d{r.sides}, the rules roll d{sides}")
        if not 1 <= r.value <= sides:
            raise VerifyError(f"phase {self.phase}: die #{counter} was recorded as {r.value}, which no d{sides} shows")
        return r.value


@dataclass(frozen=True)
class Step:
    """One resolved phase, replayed."""

    phase: Mapping[str, Any]
    before: Any
    after: Any
    sheets: Mapping[str, Sheet]
    rolls: tuple[Roll, ...]
    events: tuple[Any, ...]


def state_hash(rules: Rules, state: Any) -> str:
    return sha256_hex(canonical_json(rules.encode_state(state)))


def recorded_rolls(phase: Mapping[str, Any]) -> list[Roll]:
    return [Roll(int(c), int(phase["seq"]), str(p), int(s), int(v)) for c, p, s, v in phase.get("rolls", [])]


def replay(rules: Rules, data: Mapping[str, Any]) -> Iterator[Step]:
    """Yield every resolved phase of an archive, checking each against its record.

    Raises `VerifyError` naming the first thing that does not agree.
    """
    game = data["game"]
    seed_hex = game.get("seed")
    seed = bytes.fromhex(seed_hex) if seed_hex else None
    if seed is not None and commitment(seed) != game["commitment"]:
        raise VerifyError("the revealed seed does not match the dice commitment mailed at the start")
    state = rules.decode_state(data["initial_state"])
    counter = 0
    for phase in data["phases"]:
        if phase.get("resolved_at") is None:
            break
        seq, turn = int(phase["seq"]), int(phase["turn"])
        where = f"phase {seq} (turn {turn}, {phase['name']})"
        expected = rules.phase(state)
        if expected.turn != turn or expected.name != phase["name"]:
            raise VerifyError(f"{where}: the rules expect turn {expected.turn} ({expected.name}) here")
        sheets: dict[str, Sheet] = {}
        for seat, text in sorted(phase["orders"].items()):
            if seat not in expected.awaiting:
                raise VerifyError(f"{where}: orders from {seat}, who was not awaited")
            sheet = rules.parse_orders(state, seat, text)
            if not sheet.ok:
                bad = next(d for d in sheet.diagnostics if d.is_error)
                raise VerifyError(f"{where}: the orders of {seat} are not legal (line {bad.line}: {bad.text!r}, {bad.message.key})")
            if sheet.canonical() != text:
                raise VerifyError(f"{where}: the orders of {seat} are not in canonical form")
            sheets[seat] = sheet
        if set(sheets) != set(expected.awaiting):
            raise VerifyError(f"{where}: orders for {sorted(sheets)}, but the rules await {sorted(expected.awaiting)}")
        digest = orders_digest({s: sheets[s].canonical() for s in sheets})
        if digest != phase["digest"]:
            raise VerifyError(f"{where}: the orders digest does not match the orders on file "
                              f"(recorded {phase['digest'][:16]}…, orders give {digest[:16]}…)")
        recorded = recorded_rolls(phase)
        dice: RecordingDice
        if seed is not None:
            dice = VerifiableDice(seed, game["id"], seq, digest, counter)
        else:
            dice = ReplayDice(recorded, seq, counter)
        try:
            result = rules.resolve(state, sheets, dice)
        except RulesError as exc:
            raise VerifyError(f"{where}: the rules refuse to resolve it: {exc}") from exc
        got = [(r.counter, r.purpose, r.sides, r.value) for r in dice.record]
        want = [(r.counter, r.purpose, r.sides, r.value) for r in recorded]
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            g = got[first] if first < len(got) else None
            w = want[first] if first < len(want) else None
            raise VerifyError(f"{where}: die {first} of the phase: recorded {w}, recomputed {g}")
        after = result.state
        if state_hash(rules, after) != phase["state_hash"]:
            raise VerifyError(f"{where}: replaying the orders gives another position than the one recorded")
        counter = dice.next_counter
        yield Step(phase, state, after, sheets, tuple(dice.record), tuple(result.events))
        state = after
