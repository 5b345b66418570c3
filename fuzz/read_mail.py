"""Fuzz ``read_mail`` and the classifier: any bytes are a mail, read under the caps, the
same way twice, never an exception."""

from __future__ import annotations

from _harness import instrumented, run

with instrumented():
    from pbem.mail import caps
    from pbem.mail.bounce import is_bounce
    from pbem.mail.classify import machine_reason
    from pbem.mail.parse import read_mail


def test_one_input(data: bytes) -> None:
    mail = read_mail(data)
    assert len(mail.text) <= caps.MAX_TEXT and len(mail.references) <= caps.MAX_IDS
    assert mail.html is None or len(mail.html) <= caps.MAX_HTML
    machine_reason(mail, raw=data)
    is_bounce(mail)
    assert read_mail(data) == mail


if __name__ == "__main__":
    run(test_one_input)
