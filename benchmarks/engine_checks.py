"""How long the Corteo and Kriegspiel engines take to check an order mail and to resolve a phase.

Run: ``.venv/bin/python benchmarks/engine_checks.py [--games N] [--game corteo|kriegspiel]``

Plays N seeded random games of each engine to the end (Corteo: its special rules, basic game and
scenarios in turn; random legal orders as the conformance suite writes them, the default orders now and
then, the verifiable dice) and times in CPU time, for every phase: ``parse_orders`` of the random text
(an order mail checked), ``parse_orders`` of the default orders' text (Corteo's deployment mail is
``default_orders``), ``parse_orders`` of the same seat's text of the phase before (a stale mail: mostly
refused, with diagnostics) and ``resolve``; after each phase, for each seat, ``view``, ``describe``
and ``template`` (what its report shows). It also times the check of the default sheet of a new
Corteo game in a loop (the figure of issue 17).

Prints the median, the 95th percentile and the mean in ms per step and stage, and a digest of
everything the engines returned (states, sheets with their diagnostics, dice rolls, views and texts): a speed-up of an
engine must leave the digest unchanged. The machine is noisy: compare figures of one run, not across
runs. A plain script: no assertions.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.core.codec import canonical_json  # noqa: E402
from pbem.core.dice import VerifiableDice, orders_digest  # noqa: E402
from pbem.core.rules import Sheet  # noqa: E402
from pbem.games.corteo import RULES as CORTEO  # noqa: E402
from pbem.games.kriegspiel import RULES as KRIEGSPIEL  # noqa: E402

ENGINES: dict[str, Any] = {"corteo": CORTEO, "kriegspiel": KRIEGSPIEL}
#: The options game ``seed`` is played with: seed modulo their number (Corteo: the special rules, the scenarios).
OPTIONS: dict[str, tuple[dict[str, str], ...]] = {
    "corteo": ({}, {"smoke": "yes", "short": "yes", "jams": "yes", "national": "yes"}, {"mode": "basic"},
               {"scenario": "internazionalista"}, {"scenario": "antifascista"}, {"scenario": "antirepressivo"},
               {"scenario": "sociale"}),
    "kriegspiel": ({},),
}
CAP = 300


def chooser(seed: int):  # type: ignore[no-untyped-def]
    counter = [0]

    def pick(n: int) -> int:
        counter[0] += 1
        return int.from_bytes(hashlib.sha256(f"bench:{seed}:{counter[0]}".encode()).digest()[:8], "big") % n

    return pick


def _sheet_text(rules: Any, sheet: Sheet) -> str:
    diags = [(d.line, d.text, d.message.key, sorted((k, str(v)) for k, v in d.message.args.items()),
              d.suggestion.key if d.suggestion else None,
              sorted((k, str(v)) for k, v in d.suggestion.args.items()) if d.suggestion else None, d.severity)
             for d in sheet.diagnostics]
    return repr((sheet.seat, canonical_json(rules.encode_orders(sheet.orders)), diags))


def _timed(times: list[float], call: Any) -> Any:
    t0 = time.process_time()
    out = call()
    times.append(time.process_time() - t0)
    return out


def play(name: str, seed: int, times: dict[str, dict[str, list[float]]], digest: Any) -> int:
    """One random game to the end; returns its number of phases."""
    rules = ENGINES[name]
    pick = chooser(seed)
    options = OPTIONS[name][seed % len(OPTIONS[name])]
    state = rules.new_game(rules.info.seats, options)
    counter = 0
    last_text: dict[str, str] = {}
    for number in range(CAP):
        phase = rules.phase(state)
        if not phase.awaiting and rules.outcome(state) is not None:
            return number
        sheets: dict[str, Sheet] = {}
        for seat in phase.awaiting:
            default = rules.default_orders(state, seat)
            checked = _timed(times["parse default"][phase.name],
                             lambda: rules.parse_orders(state, seat, default.canonical()))
            digest.update(_sheet_text(rules, checked).encode())
            if seat in last_text:
                stale = _timed(times["parse stale"][phase.name],
                               lambda: rules.parse_orders(state, seat, last_text[seat]))
                digest.update(_sheet_text(rules, stale).encode())
            if pick(8) == 0:
                sheet = default
            else:
                text = rules.random_orders(state, seat, pick)
                sheet = _timed(times["parse random"][phase.name], lambda: rules.parse_orders(state, seat, text))
                last_text[seat] = text
            digest.update(_sheet_text(rules, sheet).encode())
            sheets[seat] = sheet
        dice = VerifiableDice(b"bench", "b1", number, orders_digest({s: sh.canonical() for s, sh in sheets.items()}),
                              counter)
        state = _timed(times["resolve"][phase.name], lambda: rules.resolve(state, sheets, dice).state)
        counter = dice.next_counter
        digest.update(canonical_json(rules.encode_state(state)).encode())
        digest.update(repr(dice.record).encode())
        stage = rules.phase(state).name
        for number_of_seat, seat in enumerate(rules.info.seats):  # what the reports show each seat
            lang = ("en", "it")[(number_of_seat + seed) % 2]
            view = _timed(times["view"][stage], lambda: rules.view(state, seat))
            text = _timed(times["describe"][stage], lambda: rules.describe(view, lang))
            template = _timed(times["template"][stage], lambda: rules.template(state, seat, lang))
            digest.update(canonical_json(view).encode() + text.encode() + template.encode())
    return CAP


def corteo_default_loop(rounds: int) -> float:
    """ms per check of the default deployment sheet of a new Corteo game (both seats in turn)."""
    state = CORTEO.new_game(CORTEO.info.seats, {})
    texts = {seat: CORTEO.default_orders(state, seat).canonical() for seat in CORTEO.info.seats}
    t0 = time.process_time()
    for _ in range(rounds):
        for seat, text in texts.items():
            CORTEO.parse_orders(state, seat, text)
    return (time.process_time() - t0) * 1000 / (rounds * len(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--game", choices=tuple(ENGINES), action="append")
    parser.add_argument("--rounds", type=int, default=100, help="rounds of the Corteo default-sheet loop")
    args = parser.parse_args()
    if args.rounds and (not args.game or "corteo" in args.game):
        print(f"corteo: check of a new game's default deployment sheet: {corteo_default_loop(args.rounds):.2f} "
              f"ms CPU per check ({args.rounds} rounds x 2 seats)")
    for name in args.game or tuple(ENGINES):
        times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        digest = hashlib.sha256()
        lengths = [play(name, seed, times, digest) for seed in range(args.games)]
        print(f"{name}: {args.games} random games, {statistics.median(lengths):.0f} phases per game "
              f"(min {min(lengths)}, max {max(lengths)}); results digest {digest.hexdigest()[:16]}")
        print(f"  {'step':<15}{'stage':<18}{'n':>6}{'median ms':>11}{'p95 ms':>9}{'mean ms':>9}")
        for step, by_stage in times.items():
            for stage, values in sorted(by_stage.items()):
                ms = sorted(v * 1000 for v in values)
                p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
                print(f"  {step:<15}{stage:<18}{len(ms):>6}{statistics.median(ms):>11.2f}{p95:>9.2f}"
                      f"{statistics.fmean(ms):>9.2f}")


if __name__ == "__main__":
    main()
