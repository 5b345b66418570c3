"""Fuzz ``parse_bounce``: any bytes read as a bounce give a bounded report or None."""

from __future__ import annotations

from _harness import instrumented, run

with instrumented():
    from pbem.mail.bounce import MAX_CANDIDATE_IDS, MAX_RECIPIENTS, parse_bounce
    from pbem.mail.parse import read_mail


def test_one_input(data: bytes) -> None:
    mail = read_mail(data)
    found = parse_bounce(mail, data)
    if found is not None:
        assert len(found.recipients) <= MAX_RECIPIENTS and len(found.message_ids) <= MAX_CANDIDATE_IDS
    assert parse_bounce(mail, data) == found
    parse_bounce(mail)  # the text-only reading too


if __name__ == "__main__":
    run(test_one_input)
