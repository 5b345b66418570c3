"""Who plays whom in a league's round: pure functions of the players, their scores and
the rounds already played (no database, no clock, no chance), so a round is the same
whenever it is paired again from the same facts.

Round robin (docs/club.md, "Leagues"):
* two seats a game: the circle method (Berger tables), every pair meets once, the first seat
  shared out evenly; an odd number of players gives one bye a round, each player one in all;
* as many seats as players: one game a round with everybody, the seats turning round one
  place each round, so over the rounds each player takes each seat once.

Swiss: the players in order of score (then the order they joined) are paired top down, each
with the nearest in the order they have not met; a pairing that repeats is made only when
no round without one exists (searched with a bounded backtrack). With more seats a game,
tables are filled the same way, each next player being the nearest in score with the fewest
earlier meetings with the table. Byes go to the lowest scores that had none.

Seats (Swiss): at each table the first seat goes to the player who has had it least, and
so on down the seats, so the first player is balanced over the rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Mapping, Sequence

from pbem.errors import UserError

ROUND_ROBIN, SWISS = "round-robin", "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
#: How many partial pairings the Swiss search tries before it allows a repeated pairing.
SEARCH_BUDGET = 20000


@dataclass(frozen=True)
class Round:
    """A round: the tables (player ids in seat order) and the byes."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...] = ()


@dataclass
class History:
    """What earlier rounds did, as pairing needs it."""

    scores: dict[int, float] = field(default_factory=dict)
    met: dict[frozenset[int], int] = field(default_factory=dict)  # pairs of players: games together
    seats: dict[int, list[int]] = field(default_factory=dict)  # player: times at each seat index
    byes: set[int] = field(default_factory=set)

    def meetings(self, a: int, b: int) -> int:
        return self.met.get(frozenset((a, b)), 0)

    def seat_count(self, player: int, index: int) -> int:
        counts = self.seats.get(player, [])
        return counts[index] if index < len(counts) else 0


def check(fmt: str, players: int, seats: int, rounds: int, min_seats: int) -> None:
    """A league that its format can play: enough players, a possible number of rounds."""
    if fmt not in FORMATS:
        raise UserError(f"a league's format is {' or '.join(FORMATS)}, not {fmt!r}")
    if fmt == ROUND_ROBIN:
        if seats > 2 and players != seats:
            raise UserError(f"a round robin of {seats}-seat games needs exactly {seats} players (everybody in every "
                            f"game), not {players}; use --format swiss for more")
        if players < seats or players < 2:
            raise UserError(f"a round robin of {seats}-seat games needs at least {max(seats, 2)} players, not {players}")
        most = default_rounds(fmt, players, seats)
        if rounds > most:
            raise UserError(f"a round robin of {players} players has {most} rounds, not {rounds}")
        return
    if players < 2 * seats:
        raise UserError(f"a Swiss league of {seats}-seat games needs at least {2 * seats} players (two games a "
                        f"round), not {players}")
    if seats == 2 and rounds >= players:
        raise UserError(f"{rounds} Swiss rounds among {players} players would repeat pairings: at most "
                        f"{players - 1} rounds")
    if rounds < 1:
        raise UserError("a league plays at least one round")
    del min_seats


def default_rounds(fmt: str, players: int, seats: int) -> int:
    """Round robin: every pair once (or each seat once); Swiss: enough rounds to single out a winner."""
    if fmt == ROUND_ROBIN:
        if seats > 2:
            return players
        return players - 1 if players % 2 == 0 else players
    return max(1, min(math.ceil(math.log2(max(players, 2))), players - 1))


def round_robin(players: Sequence[int], seats: int, number: int, history: History) -> Round:
    """Round ``number`` (1-based) of a round robin among ``players`` (in the order they joined)."""
    n = len(players)
    if seats > 2:
        shift = (number - 1) % n
        return Round((tuple(players[(i + shift) % n] for i in range(n)),))
    ring: list[int | None] = list(players) + ([None] if n % 2 else [])
    m = len(ring)
    r = (number - 1) % (m - 1)
    fixed, others = ring[m - 1], ring[: m - 1]
    # Berger: the fixed place alternates its seat; the others pair as (r + i, r - i), which
    # gives every pair once and each player (but the fixed one) as many first seats as second.
    pairs = [(others[r], fixed) if r % 2 == 0 else (fixed, others[r])]
    pairs += [(others[(r + i) % (m - 1)], others[(r - i) % (m - 1)]) for i in range(1, m // 2)]
    tables: list[tuple[int, ...]] = []
    byes: list[int] = []
    for a, b in pairs:
        if a is None or b is None:
            byes.append(a if a is not None else b)  # type: ignore[arg-type]
            continue
        tables.append((a, b))
    del history
    return Round(tuple(tables), tuple(byes))


def standing_order(players: Sequence[int], history: History) -> list[int]:
    """Best score first; equal scores in the order the players joined."""
    joined = {p: i for i, p in enumerate(players)}
    return sorted(players, key=lambda p: (-history.scores.get(p, 0.0), joined[p]))


def swiss(players: Sequence[int], seats: int, min_seats: int, history: History) -> Round:
    """The next Swiss round."""
    order = standing_order(players, history)
    spare = len(order) % seats
    byes: list[int] = []
    if spare and spare < min_seats:
        # the lowest scores without a bye yet sit out (then the lowest of all)
        candidates = [p for p in reversed(order) if p not in history.byes] + [p for p in reversed(order)
                                                                             if p in history.byes]
        byes = candidates[:spare]
        order = [p for p in order if p not in byes]
    if seats == 2:
        pairs = _pair(order, history, allow_repeats=False) or _pair(order, history, allow_repeats=True)
        assert pairs is not None
        return Round(tuple(place(p, history) for p in pairs), tuple(byes))
    return Round(tuple(place(t, history) for t in _tables(order, seats, history)), tuple(byes))


def _pair(order: list[int], history: History, allow_repeats: bool) -> list[tuple[int, int]] | None:
    """Pairs down the order, each with the nearest not met (or, allowing repeats, met least)."""
    budget = [SEARCH_BUDGET]

    def search(rest: list[int]) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        top, others = rest[0], rest[1:]
        partners = list(others)
        if allow_repeats:
            partners.sort(key=lambda q: history.meetings(top, q))  # stable: nearest first among the least met
        for q in partners:
            if not allow_repeats and history.meetings(top, q):
                continue
            found = search([p for p in others if p != q])
            if found is not None:
                return [(top, q), *found]
            if allow_repeats:
                break  # greedy is enough once repeats are allowed
        return None

    return search(order)


def _tables(order: list[int], seats: int, history: History) -> list[tuple[int, ...]]:
    """Tables of ``seats`` down the order (the last one smaller when players are left over)."""
    rest = list(order)
    tables: list[tuple[int, ...]] = []
    while rest:
        table = [rest.pop(0)]
        while len(table) < seats and rest:
            best = min(range(len(rest)), key=lambda i: (sum(history.meetings(rest[i], p) for p in table), i))
            table.append(rest.pop(best))
        tables.append(tuple(table))
    return tables


def place(table: Sequence[int], history: History) -> tuple[int, ...]:
    """The table's players in seat order: each seat, from the first, to the player who has had
    it least (then the one who sat furthest back so far, then the table's order)."""
    rest = list(table)
    out: list[int] = []
    for index in range(len(table)):
        def key(i: int) -> tuple[int, int, int]:
            p = rest[i]
            earlier = sum(history.seat_count(p, j) for j in range(index))
            return (history.seat_count(p, index), -earlier, i)

        out.append(rest.pop(min(range(len(rest)), key=key)))
    return tuple(out)


def record(history: History, table: Sequence[int], points: Mapping[int, float] | None) -> None:
    """Add a table of a round to the history: meetings, seats, and its points when known."""
    for a, b in combinations(table, 2):
        key = frozenset((a, b))
        history.met[key] = history.met.get(key, 0) + 1
    for index, p in enumerate(table):
        counts = history.seats.setdefault(p, [])
        counts.extend([0] * (index + 1 - len(counts)))
        counts[index] += 1
    for p, value in (points or {}).items():
        history.scores[p] = history.scores.get(p, 0.0) + value
