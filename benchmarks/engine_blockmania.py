"""How long the Block Mania engine takes to check a sheet and to resolve a phase, by stage.

Run: ``.venv/bin/python benchmarks/engine_blockmania.py [--games N] [--players P]``

Plays N seeded random games of P players to the end (the conformance suite's random legal orders, the
verifiable dice) and times, for every phase: ``parse_orders`` (the planner checking the sheet as a mail
arrives: movement searches, lines of fire), ``resolve`` (the phase played with the dice), ``view`` and
``describe`` (the report of one seat). Prints the median, the 95th percentile and the maximum in ms per
stage, and the phases per game. The machine is noisy: compare figures of one run, not across runs.
A plain script: no assertions.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.core.dice import VerifiableDice, orders_digest  # noqa: E402
from pbem.games.blockmania import RULES  # noqa: E402


def chooser(seed: int):  # type: ignore[no-untyped-def]
    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        return int.from_bytes(hashlib.sha256(f"bench:{seed}:{counter[0]}".encode()).digest()[:8], "big") % n

    return pick


def play(seed: int, players: int, times: dict[str, dict[str, list[float]]]) -> int:
    pick = chooser(seed)
    state = RULES.new_game(RULES.info.seats[:players], {})
    counter = 0
    for number in range(600):
        phase = RULES.phase(state)
        if not phase.awaiting and RULES.outcome(state) is not None:
            return number
        sheets = {}
        for seat in phase.awaiting:
            text = RULES.random_orders(state, seat, pick)
            t0 = time.perf_counter()
            sheets[seat] = RULES.parse_orders(state, seat, text)
            times["parse_orders"][phase.name].append(time.perf_counter() - t0)
        dice = VerifiableDice(b"bench", "b1", number, orders_digest({s: sh.canonical() for s, sh in sheets.items()}),
                              counter)
        t0 = time.perf_counter()
        state = RULES.resolve(state, sheets, dice).state
        times["resolve"][phase.name].append(time.perf_counter() - t0)
        counter = dice.next_counter
        seat = state.seats[0].name
        t0 = time.perf_counter()
        view = RULES.view(state, seat)
        times["view"][phase.name].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        RULES.describe(view, "en")
        times["describe"][phase.name].append(time.perf_counter() - t0)
    return 600


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    args = parser.parse_args()
    times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    lengths = [play(seed, args.players, times) for seed in range(args.games)]
    print(f"Block Mania engine, {args.games} random games of {args.players} players: "
          f"{statistics.median(lengths):.0f} phases per game (min {min(lengths)}, max {max(lengths)})")
    print(f"{'step':<14}{'stage':<16}{'n':>6}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}")
    for step, by_stage in times.items():
        for stage, values in sorted(by_stage.items()):
            ms = sorted(v * 1000 for v in values)
            p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
            print(f"{step:<14}{stage:<16}{len(ms):>6}{statistics.median(ms):>11.2f}{p95:>9.2f}{ms[-1]:>9.2f}")


if __name__ == "__main__":
    main()
