"""Everything a stranger's mail reaches costs linear time (issue 24, item 2): each inbound
entry point and each pattern of ``pbem.mail`` (and, read-only, of the games' order
parsers) on adversarial input of 10 KB and 100 KB; the larger must cost under 20 times the
smaller (linear is about 10; the quadratic paths found were 100 and more)."""

from __future__ import annotations

import re

import pytest

from tests.mail import hostile

ENTRY_POINTS = {point.name: point for point in hostile.entry_points()}
PATTERNS = dict(hostile.inbound_patterns())


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_point_grows_linearly(name: str) -> None:
    point = ENTRY_POINTS[name]
    small, large = point.make(hostile.SMALL), point.make(hostile.LARGE)
    ratio = hostile.growth(lambda: point.run(small), lambda: point.run(large))
    assert ratio < hostile.MAX_RATIO, f"{name}: 100 KB costs {ratio:.1f} times 10 KB"


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_grows_linearly(name: str) -> None:
    pattern = PATTERNS[name]
    worst, unit_of_worst = 0.0, ""
    for unit in hostile.QUICK_UNITS:
        small, large = hostile.grow(unit, hostile.SMALL), hostile.grow(unit, hostile.LARGE)
        ratio = hostile.growth(hostile.pattern_work(pattern, small), hostile.pattern_work(pattern, large),
                               floor=0.001)
        if ratio > worst:
            worst, unit_of_worst = ratio, unit
    assert worst < hostile.MAX_RATIO, f"{name} on {unit_of_worst!r} x N: 100 KB costs {worst:.1f} times 10 KB"


def test_the_sweep_finds_the_patterns_that_were_quadratic() -> None:
    """The growth check itself: the bounce patterns of issue 24 as they were would fail it."""
    old = re.compile(r"^\s*(?:x-original-)?message-id\s*:\s*(<[^<>\s]+>)", re.IGNORECASE | re.MULTILINE)
    small, large = hostile.grow("\n", 500), hostile.grow("\n", 5_000)
    loops = 3
    ratio = hostile._seconds(hostile.pattern_work(old, large), loops) / hostile._seconds(
        hostile.pattern_work(old, small), loops)
    assert ratio > hostile.MAX_RATIO
    assert "pbem.mail.bounce._MSGID_LINE" in PATTERNS and "pbem.mail.parse._HDR_FROM" in PATTERNS
    assert any(name.startswith("pbem.games.") for name in PATTERNS) or not any(
        re.search(r"re\.compile", open(f"pbem/games/{kind}/orders.py", encoding="utf-8").read())
        for kind in ("arditi", "blockmania", "corteo", "kriegspiel", "seattle"))
