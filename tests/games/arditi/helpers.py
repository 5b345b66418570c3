"""Helpers for Arditi rules tests: positions built by hand, played through the engine."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pbem.core.dice import RecordingDice
from pbem.core.rules import Sheet
from pbem.games.arditi import RULES
from pbem.games.arditi.state import Corteo, Guard, Party, State

SEATS = ("red", "blue", "green", "yellow", "white", "black")


class LoopDice(RecordingDice):
    """Dice that return the given values in a loop (clamped to the die), recording purposes."""

    def __init__(self, values: Sequence[int] = (1,), phase: int = 0) -> None:
        super().__init__(phase)
        self._values = list(values) or [1]
        self._i = 0

    def _value(self, counter: int, sides: int) -> int:
        v = self._values[self._i % len(self._values)]
        self._i += 1
        return max(1, min(sides, v))


def corteo(*squares: int, committee: int = 0, behind: int | None = None) -> Corteo:
    return Corteo(tuple(squares), committee, behind if len(squares) == 1 else None)


def position(cortei: Mapping[str, Corteo], *, numbers: Iterable[int] = (), roll: int = 6,
             to_move: str | None = None, headless: Mapping[str, Sequence[Sequence[int]]] | None = None,
             arrested: Mapping[str, int] | None = None, guards: Iterable[tuple[str, int | None]] = (),
             bag: Iterable[int] | None = None, waiting: Iterable[int] = (), round: int = 3,
             max_rounds: int = 40, stage: str = "move") -> State:
    """A move-phase state: ``cortei`` in seat order, the given numbers on the board."""
    seats = tuple(s for s in SEATS if s in cortei)
    headless = headless or {}
    arrested = arrested or {}
    parties = tuple(Party(s, cortei[s].squares[-1], cortei[s], tuple(tuple(h) for h in headless.get(s, ())),
                          (), arrested.get(s, 0)) for s in seats)
    numbers = tuple(sorted(numbers))
    used = set(numbers) | set(waiting) | {p.home for p in parties}
    if bag is None:
        bag = [n for n in range(1, 91) if n not in used]
    if stage != "move":
        to_move = None
    elif to_move is None:
        to_move = seats[0]
    return State("1", seats, max_rounds, stage=stage, round=round, to_move=to_move,
                 roll=roll if stage == "move" else None, bag=tuple(sorted(bag)), numbers=numbers,
                 waiting=tuple(sorted(waiting)), parties=parties,
                 guards=tuple(Guard(p, sq) for p, sq in guards))


def sheet(state: State, text: str, seat: str | None = None) -> Sheet:
    return RULES.parse_orders(state, seat or state.to_move or "red", text)


def keys(s: Sheet, severity: str | None = None) -> list[str]:
    return [d.message.key for d in s.diagnostics if severity is None or d.severity == severity]


def play(state: State, text: str, dice: Sequence[int] = (1,), seat: str | None = None) -> State:
    """Parse and resolve one move (the orders must be legal); the dice loop over ``dice``."""
    s = sheet(state, text, seat)
    assert s.ok, [(d.line, d.message.key, dict(d.message.args)) for d in s.diagnostics]
    return RULES.resolve(state, {s.seat: s}, LoopDice(dice)).state


def resolve_server(state: State, dice: Sequence[int] = (1,)) -> tuple[State, LoopDice]:
    """Resolve a phase that awaits nobody (set-up, police)."""
    d = LoopDice(dice)
    return RULES.resolve(state, {}, d).state, d


def squares(state: State, seat: str) -> tuple[int, ...]:
    return state.party(seat).corteo.squares


def chooser(seed: int):
    """A deterministic ``pick(n)`` (SHA-256 in counter mode), like the conformance suite's."""
    import hashlib

    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        digest = hashlib.sha256(f"arditi:{seed}:{counter[0]}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % n

    return pick


def random_game(seed: int = 0, seats: Sequence[str] = SEATS, phases: int = 400,
                options: Mapping[str, str] | None = None, defaults: Iterable[str] = ()):
    """Yield every state of a random game with verifiable dice, server phases resolved at once;
    the seats in ``defaults`` always get their default orders (as if abandoned)."""
    from pbem.core.dice import VerifiableDice, orders_digest

    pick = chooser(seed)
    absent = set(defaults)
    state = RULES.new_game(seats, options or {})
    counter = 0
    yield state
    for number in range(phases):
        phase = RULES.phase(state)
        if RULES.outcome(state) is not None:
            return
        sheets = {}
        for seat in phase.awaiting:
            if seat in absent:
                sheets[seat] = RULES.default_orders(state, seat)
            else:
                sheets[seat] = RULES.parse_orders(state, seat, RULES.random_orders(state, seat, pick))
            assert sheets[seat].ok, [d.message.key for d in sheets[seat].diagnostics]
        texts = {s: sh.canonical() for s, sh in sheets.items()}
        dice = VerifiableDice(b"arditi tests", "a1", number, orders_digest(texts), counter)
        state = RULES.resolve(state, sheets, dice).state
        counter = dice.next_counter
        yield state
