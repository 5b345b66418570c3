"""How often each side wins Corteo's scenarios (rulebook D) when nobody plays well.

Run: ``.venv/bin/python benchmarks/corteo_scenarios.py [--games N] [--scenario KEY ...]``

The rulebook warns that "gli scenari non hanno un retroterra di sperimentazione di gioco che
garantisca la certezza delle proporzioni fra i livelli di vittoria": the scenarios were never
play-tested. This script plays N games per scenario under two policies and prints what it sees:

- ``defaults``: both sides file empty sheets, so only what the rules demand happens (placements,
  reinforcements, the combats every unit in contact must fight; the mobile objectives stay put);
- ``random``: both sides file the random legal orders of the conformance playouts (the power's
  motorcade drifts East, the rally's pieces toward the barracks, now and then anywhere).

For each: the wins of each side and the draws, the victory levels, the mean final score and the
mean scenario points of each side, and the seconds a game took; for Sociale also in how many games
the Corteo formed and how many weak units went home on average. Dice and choices are seeded by the
game's number, so a run repeats exactly. Neither policy is a player: the figures say how the
scenario's points are balanced against doing nothing and against noise, not who would win a real
game. A plain script: no assertions.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from collections import Counter

from pbem.core.dice import VerifiableDice, orders_digest
from pbem.games.corteo import RULES
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.scenario import scenarios
from pbem.games.corteo.state import State


def play(key: str, policy: str, number: int) -> tuple[State, float]:
    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        digest = hashlib.sha256(f"{key}:{policy}:{number}:{counter[0]}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % n

    start = time.perf_counter()
    state = RULES.new_game(RULES.info.seats, {"scenario": key})
    rolls = 0
    for phase_number in range(200):
        if RULES.outcome(state) is not None:
            break
        phase = RULES.phase(state)
        if policy == "random":
            sheets = {s: RULES.parse_orders(state, s, RULES.random_orders(state, s, pick)) for s in phase.awaiting}
        else:
            sheets = {s: RULES.default_orders(state, s) for s in phase.awaiting}
        seed = f"bench-{key}-{policy}-{number}".encode()
        dice = VerifiableDice(seed, "g", phase_number, orders_digest({s: x.canonical() for s, x in sheets.items()}),
                              rolls)
        state = RULES.resolve(state, sheets, dice).state
        rolls = dice.next_counter
    return state, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=4, help="games per scenario and policy (default 4)")
    parser.add_argument("--scenario", action="append", choices=sorted(scenarios()), help="only these")
    parser.add_argument("--policy", action="append", choices=("defaults", "random"), help="only these")
    args = parser.parse_args(argv)
    print(f"{'scenario':18} {'policy':9} {'games':>5} {'corteo':>6} {'draw':>5} {'potere':>6} "
          f"{'final':>7} {'sc.C':>6} {'sc.P':>6} {'s/game':>7}  levels")
    for key in args.scenario or sorted(scenarios()):
        for policy in args.policy or ("defaults", "random"):
            winners: Counter[str] = Counter()
            levels: Counter[str] = Counter()
            finals, corteo_pts, potere_pts, seconds = [], [], [], []
            formed, home = 0, []
            for number in range(args.games):
                state, took = play(key, policy, number)
                r = state.result
                if r is None:
                    winners["unfinished"] += 1
                    continue
                winners[NUMBERS.winner(r.level) or "draw"] += 1
                levels[r.level] += 1
                finals.append(r.final)
                corteo_pts.append(state.scored("corteo"))
                potere_pts.append(state.scored("potere"))
                seconds.append(took)
                formed += state.knows("was-formed")
                home.append(sum(1 for u in state.units if u.loc == "home"))
            mean = (lambda xs: statistics.fmean(xs) if xs else float("nan"))
            print(f"{key:18} {policy:9} {args.games:5d} {winners['corteo']:6d} {winners['draw']:5d} "
                  f"{winners['potere']:6d} {mean(finals):7.1f} {mean(corteo_pts):6.1f} {mean(potere_pts):6.1f} "
                  f"{mean(seconds):7.2f}  " + ", ".join(f"{k} {v}" for k, v in sorted(levels.items()))
                  + (f"; formed {formed}, gone home {mean(home):.1f}" if key == "sociale" else ""))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
