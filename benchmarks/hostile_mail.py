"""Hostile mail figures (issues "Hostile mail" and "Security review"):

* the time of each pathological mail of the corpus through everything the inbound path does
  with a stranger's mail (read, classify, bounce, envelope), and the worst of them;
* how the cost of each inbound entry point, and of each pattern of ``pbem.mail`` and of the
  games' order parsers, grows from 10 KB to 100 KB of adversarial input (linear is about 10;
  the tests fail at 20). Figures only, no assertion.

    .venv/bin/python benchmarks/hostile_mail.py [--quick] [--patterns-all-units]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.mail.bounce import is_bounce, parse_bounce  # noqa: E402
from pbem.mail.classify import machine_reason  # noqa: E402
from pbem.mail.envelope import parse_envelope  # noqa: E402
from pbem.mail.parse import read_mail  # noqa: E402
from tests.mail import hostile  # noqa: E402


def _handle(raw: bytes) -> None:
    mail = read_mail(raw)
    machine_reason(mail, raw=raw)
    if is_bounce(mail):
        parse_bounce(mail, raw)
    parse_envelope(mail.text)


def corpus() -> None:
    print("Pathological mails (read + classify + bounce + envelope), best of 2:")
    worst = (0.0, "")
    for name, raw in hostile.pathological_mails():
        best = min(_timed(lambda: _handle(raw)) for _ in range(2))
        worst = max(worst, (best, name))
        cut = ", ".join(read_mail(raw).truncated) or "-"
        print(f"  {name:44s} {len(raw) / 1e6:6.2f} MB  {best * 1000:8.1f} ms   cut: {cut}")
    print(f"  worst time per mail: {worst[0] * 1000:.1f} ms ({worst[1]})")


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def growth(all_units: bool) -> None:
    print(f"Growth, 100 KB over 10 KB of adversarial input (CPU time; linear ~10, tests fail at {hostile.MAX_RATIO:.0f}):")
    worst = (0.0, "")
    for point in hostile.entry_points():
        small, large = point.make(hostile.SMALL), point.make(hostile.LARGE)
        ratio = hostile.growth(lambda: point.run(small), lambda: point.run(large))
        worst = max(worst, (ratio, point.name))
        print(f"  {point.name:52s} {ratio:6.1f}")
    units = hostile.UNITS if all_units else hostile.QUICK_UNITS
    for name, pattern in hostile.inbound_patterns():
        ratios = []
        for unit in units:
            small, large = hostile.grow(unit, hostile.SMALL), hostile.grow(unit, hostile.LARGE)
            ratios.append((hostile.growth(hostile.pattern_work(pattern, small),
                                          hostile.pattern_work(pattern, large), floor=0.001), unit))
        ratio, unit = max(ratios)
        worst = max(worst, (ratio, f"{name} on {unit!r}"))
        print(f"  {name:52s} {ratio:6.1f}  (worst on {unit!r})")
    print(f"  worst ratio: {worst[0]:.1f} ({worst[1]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the corpus only")
    parser.add_argument("--patterns-all-units", action="store_true",
                        help="every pattern on every adversarial unit (slower)")
    args = parser.parse_args()
    corpus()
    if not args.quick:
        growth(args.patterns_all_units)


if __name__ == "__main__":
    main()
