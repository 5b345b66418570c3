"""Fuzz ``parse_envelope``: any text gives an envelope whose quotes are short and clean."""

from __future__ import annotations

from _harness import instrumented, run

with instrumented():
    from pbem.mail.envelope import MAX_ORDER_LINES, parse_envelope
    from pbem.mail.quote import BIDI_CONTROLS


def test_one_input(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    env = parse_envelope(text)
    assert len(env.order_lines) <= MAX_ORDER_LINES
    for _, problem in env.problems:
        for value in problem.args.values():
            assert not isinstance(value, str) or (len(value) <= 81 and not set(value) & BIDI_CONTROLS)
    assert parse_envelope(text) == env


if __name__ == "__main__":
    run(test_one_input)
