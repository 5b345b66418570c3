"""Pairing as pure functions (pbem.service.pairing; docs/club.md, "Leagues"): the circle
method with byes and balanced first seats, Swiss without repeats while a round without one
exists and with them when none does, tables of three seats with byes for the lowest scores."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from pbem.service import pairing


def test_round_robin_of_five_every_pair_once_one_bye_each_first_seats_balanced() -> None:
    players = [1, 2, 3, 4, 5]
    history = pairing.History()
    met: Counter[frozenset[int]] = Counter()
    byes: Counter[int] = Counter()
    firsts: Counter[int] = Counter()
    assert pairing.default_rounds(pairing.ROUND_ROBIN, 5, 2) == 5
    for number in range(1, 6):
        plan = pairing.round_robin(players, 2, number, history)
        assert len(plan.tables) == 2 and len(plan.byes) == 1
        for table in plan.tables:
            met[frozenset(table)] += 1
            firsts[table[0]] += 1
            pairing.record(history, table, None)
        byes.update(plan.byes)
    assert set(met) == {frozenset(p) for p in combinations(players, 2)} and set(met.values()) == {1}
    assert byes == Counter({p: 1 for p in players})
    assert set(firsts.values()) == {2}  # four games each: two as the first player


def test_swiss_avoids_repeats_until_none_is_possible() -> None:
    history = pairing.History()
    players = [1, 2, 3, 4]
    seen: list[frozenset[int]] = []
    for _ in range(3):  # three rounds of four: every pair once, no repeat
        plan = pairing.swiss(players, 2, 2, history)
        for table in plan.tables:
            seen.append(frozenset(table))
            pairing.record(history, table, {table[0]: 1.0, table[1]: 0.0})
    assert len(seen) == len(set(seen)) == 6
    plan = pairing.swiss(players, 2, 2, history)  # a fourth round must repeat: it still pairs everybody
    assert sorted(p for t in plan.tables for p in t) == players


def test_swiss_pairs_by_score() -> None:
    history = pairing.History(scores={1: 0.0, 2: 2.0, 3: 2.0, 4: 1.0, 5: 1.0, 6: 0.0})
    plan = pairing.swiss([1, 2, 3, 4, 5, 6], 2, 2, history)
    assert [frozenset(t) for t in plan.tables] == [frozenset((2, 3)), frozenset((4, 5)), frozenset((1, 6))]


def test_swiss_tables_of_three_with_a_bye_for_the_lowest_score() -> None:
    history = pairing.History(scores={p: float(10 - p) for p in range(1, 9)})
    plan = pairing.swiss(list(range(1, 9)), 3, 2, history)  # eight players, three seats, two at the least
    assert plan.byes == () and [sorted(t) for t in plan.tables] == [[1, 2, 3], [4, 5, 6], [7, 8]]
    history = pairing.History(scores={p: float(10 - p) for p in range(1, 8)}, byes={7})
    plan = pairing.swiss(list(range(1, 8)), 3, 3, history)  # seven: one sits out, the lowest without a bye
    assert plan.byes == (6,) and [sorted(t) for t in plan.tables] == [[1, 2, 3], [4, 5, 7]]
