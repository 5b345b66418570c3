#!/usr/bin/env python3
"""Design check of Corteo's combat and throw tables (docs/games/corteo.md, "Tables").

The rulebook gives the odds columns, the rounding and the results (C 7b, C 7c, C 8a, C 8d) but not the
cells, printed on the lost map. This script reads ``pbem/games/corteo/data/tables.toml`` through the
loader and prints, as Markdown:

1. per combat column the exact chance of each result and derived measures;
2. per throw column the same, with the C 13b short throw;
3. the columns of the counter mix's single-unit fights and throws;
4. a seeded Monte Carlo of random fights (stacks, many-against-one, QP and crowded hexes) resolved
   through the table's own lookups, compared with the exact figures;
5. a seeded Monte Carlo of a 10-hand "contested march" (a Corteo force in contact with a blocker,
   both obliged to attack every turn, C 8a and C 6a), for the game's pace;
6. the design goals, PASS or FAIL. The exit status is 1 if any goal fails.

Deterministic: no clock, fixed seed (``--seed``, default 1979).

Usage: .venv/bin/python scripts/corteo_tables_simulation.py [--seed 1979] [--fights 120000] [--games 20000]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from pbem.games.corteo.tables import TABLES, Odds, Tables

HANDS = 10  # C 3: ten hands
BOXED = Fraction(1, 6)  # assumed chance that a losing corteo unit has no legal hex to retreat to (C 8f)
CASCADE = 6  # assumed corteo units caught in a panic cascade (C 8e: every adjacent unit, transitively)


def pct(x: Fraction | float) -> str:
    return f"{100 * float(x):5.1f}%"


def sixths(x: Fraction) -> str:
    return f"{x * 6}/6" if (x * 6).denominator == 1 else str(x)


# -- 1. combat ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CombatFigures:
    odds: Odds
    ap: Fraction
    ar: Fraction
    dr: Fraction
    dp: Fraction

    @property
    def wins(self) -> Fraction:  # the defender leaves its hex: the attacker may advance (C 8d)
        return self.dr + self.dp

    @property
    def loses(self) -> Fraction:
        return self.ap + self.ar

    @property
    def shift(self) -> Fraction:  # expected hexes the front moves towards the defender
        return self.wins - self.loses


def combat_figures(t: Tables) -> list[CombatFigures]:
    out = []
    for odds in t.combat.columns:
        d = t.combat.distribution(odds)
        out.append(CombatFigures(odds, d["AP"], d["AR"], d["DR"], d["DP"]))
    return out


def print_combat(figs: list[CombatFigures]) -> None:
    print("### Combat: probabilities per column (exact)\n")
    print("| odds | AP | AR | DR | DP | attacker advances (defender leaves) | front shift (hexes) |")
    print("|---|---|---|---|---|---|---|")
    for f in figs:
        print(f"| {f.odds} | {pct(f.ap)} | {pct(f.ar)} | {pct(f.dr)} | {pct(f.dp)} | {pct(f.wins)} | "
              f"{float(f.shift):+.2f} |")
    print()
    print("A corteo unit that loses is arrested only if it cannot retreat (C 8f): the chance of arrest of a "
          "boxed-in corteo defender is the 'attacker advances' figure; a panic cascades to the whole "
          "connected Corteo (C 8e). A power unit that cannot retreat panics instead (C 8g).")
    print()
    print(f"Expected units lost per combat of one unit against one, with a losing corteo unit boxed in "
          f"{BOXED} of the time and a cascade of {CASCADE} units (assumptions, C 8e, C 8f):\n")
    print("| odds | power attacks: corteo arrests | power attacks: power units to barracks | "
          "corteo attacks: corteo arrests | corteo attacks: power units to barracks |")
    print("|---|---|---|---|---|")
    for f in figs:
        p_arrests = BOXED * (f.dr + CASCADE * f.dp)
        p_barracks = f.ap + BOXED * f.ar
        c_arrests = BOXED * (f.ar + CASCADE * f.ap)
        c_barracks = f.dp + BOXED * f.dr
        print(f"| {f.odds} | {float(p_arrests):.3f} | {float(p_barracks):.3f} | {float(c_arrests):.3f} | "
              f"{float(c_barracks):.3f} |")
    print()


# -- 2. throws ------------------------------------------------------------------------------------


def print_throws(t: Tables) -> None:
    print("### Throws: probabilities per column (exact)\n")
    print("| odds | NE | R1 | R2 | P2 | any effect | hexes pushed | short throw (13b) face | "
          "13b: plain miss / short |")
    print("|---|---|---|---|---|---|---|---|---|")
    for odds in t.throw.columns:
        d = t.throw.distribution(odds)
        effect = 1 - d["NE"]
        hexes = d["R1"] + 2 * (d["R2"] + d["P2"])
        face = t.throw.short_face(odds)
        miss = Fraction(face - 1, t.die)
        print(f"| {odds} | {pct(d['NE'])} | {pct(d['R1'])} | {pct(d['R2'])} | {pct(d['P2'])} | {pct(effect)} | "
              f"{float(hexes):.2f} | {face} | {pct(miss)} / {pct(Fraction(1, t.die))} |")
    print()


# -- 3. matchups -------------------------------------------------------------------------------------


def print_matchups(t: Tables) -> None:
    corteo = [u for u in t.units if u.side == "corteo"]
    potere = [u for u in t.units if u.side == "potere" and u.key != "finanza"]
    win = {f.odds: f.wins for f in combat_figures(t)}
    print("### Single units: combat column and the attacker's chance to win (C 8a)\n")
    print("| corteo attacks → | " + " | ".join(f"{u.key} {u.power}" for u in potere) + " |")
    print("|---" * (len(potere) + 1) + "|")
    for c in corteo:
        cells = [f"{t.combat.odds(c.power, p.power)} {pct(win[t.combat.odds(c.power, p.power)])}" for p in potere]
        print(f"| {c.key} | " + " | ".join(cells) + " |")
    print()
    print("| power attacks → | " + " | ".join(f"{u.key} {u.power}" for u in corteo) + " |")
    print("|---" * (len(corteo) + 1) + "|")
    for p in potere:
        cells = [f"{t.combat.odds(p.power, c.power)} {pct(win[t.combat.odds(p.power, c.power)])}" for c in corteo]
        print(f"| {p.key} | " + " | ".join(cells) + " |")
    print()
    print("### Throws: column by thrower and target (C 7b; '—' = below 1-2, no throw)\n")
    throwers = [(u.key, u.power) for u in t.units if u.throws]
    throwers += [(f"2 x {u.key}", 2 * u.power) for u in t.units if u.throws and u.power == 6]
    for side in ("potere", "corteo"):
        targets = [u for u in t.units if u.side == side and u.key != "finanza"]
        print("| thrower ↓ target → | " + " | ".join(f"{u.key} {u.power}" for u in targets) + " |")
        print("|---" * (len(targets) + 1) + "|")
        for name, power in throwers:
            if (t.unit(name.split()[-1]).side == side):
                continue
            cells = []
            for u in targets:
                odds = t.throw.column(power, u.power)
                cells.append("—" if odds is None else f"{odds} {pct(1 - t.throw.distribution(odds)['NE'])}")
            print(f"| {name} {power} | " + " | ".join(cells) + " |")
        print()


# -- 4. random fights through the lookups ----------------------------------------------------------------


def random_fights(t: Tables, rng: random.Random, n: int) -> float:
    """Random stacks and many-against-one fights (C 8b, C 9) on random hexes (C 8c), resolved with
    ``odds`` and ``result``; returns the largest gap between observed and exact frequencies, in
    standard errors of the observed frequency."""
    pools = {side: [u for u in t.units if u.side == side] for side in ("corteo", "potere")}
    hexes = [h for h in t.terrain if h.combat == "normal" and h.no_combat_for is None]
    seen: dict[Odds, Counter[str]] = {o: Counter() for o in t.combat.columns}
    for _ in range(n):
        attacker = rng.choice(("corteo", "potere"))
        defender = "potere" if attacker == "corteo" else "corteo"
        strengths = []
        for side, most in ((attacker, 4), (defender, 2)):
            total = Fraction(0)
            for _ in range(rng.randint(1, most)):
                total += rng.choice(pools[side]).power * rng.choice(hexes).factor(side)
            strengths.append(total)
        odds = t.combat.odds(strengths[0], strengths[1])
        seen[odds][t.combat.result(odds, rng.randint(1, t.die))] += 1
    print("### Monte Carlo of random fights through the table's lookups\n")
    print("| odds | fights | share of the fights | largest gap to the exact figures | in standard errors |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for odds, tally in seen.items():
        fights = sum(tally.values())
        gap = z = 0.0
        for code, p in t.combat.distribution(odds).items():
            if fights and 0 < p < 1:
                diff = abs(tally[code] / fights - float(p))
                gap, z = max(gap, diff), max(z, diff / math.sqrt(float(p * (1 - p)) / fights))
        worst = max(worst, z)
        print(f"| {odds} | {fights} | {pct(Fraction(fights, n))} | {gap:.4f} | {z:.2f} |")
    print()
    return worst


# -- 5. the contested march ---------------------------------------------------------------------------------


@dataclass
class MarchOutcome:
    shift: float
    broken: float
    broken_first_hand: float
    routs: float
    arrests: float


def march(t: Tables, corteo: int, potere: int, rng: random.Random, games: int) -> MarchOutcome:
    """A Corteo force and a power blocker in contact for ten hands. Each hand the corteo attacks
    (rounded for the power), then the power, which may not leave the corteo's ZOC (C 6a), attacks
    (rounded for the corteo). Retreats move the front one hex (the winner advances, C 8d); the power's
    panic sends the blocker to the barracks: the road is open (C 8g); a corteo panic is a rout (C 8e);
    a losing corteo unit is arrested when boxed in (C 8f)."""
    c_odds, p_odds = t.combat.odds(corteo, potere), t.combat.odds(potere, corteo)
    shift = broken = first = routs = arrests = 0
    for _ in range(games):
        for hand in range(1, HANDS + 1):
            r = t.combat.result(c_odds, rng.randint(1, t.die))
            if r == "DP":
                broken += 1
                first += hand == 1
                break
            shift += {"DR": 1, "AR": -1, "AP": -1}[r]
            if r in ("AR", "AP"):
                arrests += sum(rng.random() < BOXED for _ in range(CASCADE if r == "AP" else 1))
                routs += r == "AP"
            r = t.combat.result(p_odds, rng.randint(1, t.die))
            if r == "AP":
                broken += 1
                first += hand == 1
                break
            shift += {"AR": 1, "DR": -1, "DP": -1}[r]
            if r in ("DR", "DP"):
                arrests += sum(rng.random() < BOXED for _ in range(CASCADE if r == "DP" else 1))
                routs += r == "DP"
    return MarchOutcome(shift / games, broken / games, first / games, routs / games, arrests / games)


MARCHES = [(2, 6), (2, 4), (4, 4), (6, 4), (8, 4), (12, 4), (24, 4)]


def print_marches(t: Tables, rng: random.Random, games: int) -> dict[tuple[int, int], MarchOutcome]:
    print(f"### Contested march: {HANDS} hands in contact, {games} games per line (seeded)\n")
    print("| corteo v power | corteo attacks at | power attacks at | hexes gained | blocker broken "
          "(in 10 hands / in hand 1) | corteo routs | corteo arrests |")
    print("|---|---|---|---|---|---|---|")
    out = {}
    for c, p in MARCHES:
        m = march(t, c, p, rng, games)
        out[(c, p)] = m
        print(f"| {c} v {p} | {t.combat.odds(c, p)} | {t.combat.odds(p, c)} | {m.shift:+.2f} | "
              f"{pct(m.broken)} / {pct(m.broken_first_hand)} | {m.routs:.2f} | {m.arrests:.2f} |")
    print()
    return out


# -- 6. design goals --------------------------------------------------------------------------------------


def goals(t: Tables, mc_gap: float, marches: dict[tuple[int, int], MarchOutcome]) -> list[tuple[str, bool]]:
    figs = {f.odds: f for f in combat_figures(t)}
    cols = list(t.combat.columns)
    o = Odds.parse
    th = {odds: t.throw.distribution(odds) for odds in t.throw.columns}

    def dominance(a: CombatFigures, b: CombatFigures) -> bool:
        return b.ap <= a.ap and b.ap + b.ar <= a.ap + a.ar and b.dp >= a.dp

    def mirrored(odds: Odds) -> bool:
        a, b = figs[odds], figs[odds.mirror()]
        return (a.ap, a.ar, a.dr, a.dp) == (b.dp, b.dr, b.ar, b.ap)

    def throw_dominance() -> bool:
        tc = list(t.throw.columns)
        order = ("NE", "R1", "R2", "P2")
        return all(sum(th[b][c] for c in order[k:]) >= sum(th[a][c] for c in order[k:])
                   for a, b in zip(tc, tc[1:]) for k in range(1, 4))

    checks: list[tuple[str, Callable[[], bool]]] = [
        ("C1 every combat has a loser: no NE, AR/DR/AP/DP only (C 3a, C 8d)",
         lambda: all(f.ap + f.ar + f.dr + f.dp == 1 for f in figs.values())),
        ("C2 better odds are never worse for the attacker (first-order dominance, column by column)",
         lambda: all(dominance(figs[a], figs[b]) for a, b in zip(cols, cols[1:]))),
        ("C3 1-1 is even: the attacker wins exactly 1/2",
         lambda: figs[o("1-1")].wins == Fraction(1, 2)),
        ("C4 column 1-n is column n-1 seen from the other side", lambda: all(mirrored(c) for c in cols)),
        ("C5 the end columns are certain: 5-1 always a defender result, 1-5 always an attacker result (C 8d)",
         lambda: figs[o("5-1")].wins == 1 and figs[o("1-5")].wins == 0),
        ("C6 no panic of the loser below 3-1 (the cascade of C 8e and the arrests of C 8f need concentration)",
         lambda: all(figs[c].dp == 0 for c in cols if c.ratio < 3)),
        ("C7 3-1 usually pushes the defender back: at least 5/6", lambda: figs[o("3-1")].wins >= Fraction(5, 6)),
        ("C8 panic is never certain: at most 1/2 even at 5-1",
         lambda: all(f.dp <= Fraction(1, 2) for f in figs.values())),
        ("C9 each step from 1-2 to 3-1 adds 1/6 to the attacker's chance",
         lambda: [figs[o(x)].wins for x in ("1-2", "1-1", "2-1", "3-1")]
         == [Fraction(k, 6) for k in (2, 3, 4, 5)]),
        ("T1 every throw column starts with NE, the C 13b short throw, and has an effect",
         lambda: all(t.throw.cells(c)[0] == "NE" and 1 <= t.throw.short_face(c) < t.die for c in t.throw.columns)),
        ("T2 C 7c's example: 6/6 on 4/4 is 1-1, die 4 -> R1", lambda: t.throw.resolve(6, 4, 4) == "R1"),
        ("T3 better throw odds are never worse for the thrower (dominance)", throw_dominance),
        ("T4 a throw is never stronger than a combat at the same odds (it risks nothing, C 7c)",
         lambda: all(1 - th[c]["NE"] <= figs[c].wins and th[c]["P2"] <= figs[c].dp for c in t.throw.columns)),
        ("T5 tear-gas panic (C 7c: it moves the whole Corteo) only from 3-1",
         lambda: all(th[c]["P2"] == 0 for c in t.throw.columns if c.ratio < 3)),
        ("T6 a 1-1 throw is a coin: effect 1/2", lambda: 1 - th[o("1-1")]["NE"] == Fraction(1, 2)),
        ("M1 the Monte Carlo through the lookups agrees with the exact figures (gaps under 4 standard errors)",
         lambda: mc_gap < 4),
        ("G1 equal forces hold: no blocker broken and the front does not move on average",
         lambda: figs[o("1-1")].dp == 0 and abs(marches[(4, 4)].shift) < 0.1 and marches[(4, 4)].broken == 0),
        ("G2 pace: a 2:1 Corteo gains 4 to 8 hexes in 10 contested hands, a 1:2 one loses as much",
         lambda: 4 <= marches[(8, 4)].shift <= 8 and -8 <= marches[(2, 4)].shift <= -4),
        ("G3 the Head (5:1 and more) opens the road in its first hand at least 3 times in 4",
         lambda: marches[(24, 4)].broken_first_hand >= 0.72),
        ("G4 a 3:1 Corteo breaks a blocker within the game at least 9 times in 10",
         lambda: marches[(12, 4)].broken >= 0.9),
        ("G5 no panic cascade (C 8e) unless a side concentrates 3:1: no routs in the marches from 1:2 to 2:1",
         lambda: all(marches[k].routs == 0 for k in ((2, 4), (4, 4), (6, 4), (8, 4)))
         and marches[(2, 6)].routs > 0),
    ]
    return [(name, bool(check())) for name, check in checks]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1979)
    ap.add_argument("--fights", type=int, default=120_000)
    ap.add_argument("--games", type=int, default=20_000)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"<!-- printed by scripts/corteo_tables_simulation.py --seed {args.seed} --fights {args.fights} "
          f"--games {args.games} -->\n")
    figs = combat_figures(TABLES)
    print_combat(figs)
    print_throws(TABLES)
    print_matchups(TABLES)
    gap = random_fights(TABLES, rng, args.fights)
    marches = print_marches(TABLES, rng, args.games)
    print("### Design goals\n")
    results = goals(TABLES, gap, marches)
    for name, ok in results:
        print(f"- {'PASS' if ok else 'FAIL'} {name}")
    return 0 if all(ok for _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
