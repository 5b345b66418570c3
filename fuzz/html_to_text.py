"""Fuzz ``html_to_text``: any text, no exception, never longer than its input."""

from __future__ import annotations

from _harness import instrumented, run

with instrumented():
    from pbem.mail.htmltext import html_to_text


def test_one_input(data: bytes) -> None:
    doc = data.decode("utf-8", "replace")
    text = html_to_text(doc)
    assert len(text) <= len(doc) and html_to_text(doc) == text


if __name__ == "__main__":
    run(test_one_input)
