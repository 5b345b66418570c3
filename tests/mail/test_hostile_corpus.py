"""A corpus of pathological mails, generated here (issue 20, "What to deliver"): nested
multiparts, parameter bombs, HTML bombs, long lines, broken encodings, 10 MB. Each one goes
through everything the inbound path does with a stranger's mail — read, classify, bounce,
envelope — and comes out handled, within the caps, the same way twice."""

from __future__ import annotations

import pytest

from pbem.mail import caps
from pbem.mail.bounce import MAX_CANDIDATE_IDS, MAX_RECIPIENTS, is_bounce, parse_bounce
from pbem.mail.classify import machine_reason
from pbem.mail.envelope import MAX_ORDER_LINES, parse_envelope
from pbem.mail.parse import read_mail
from tests.mail import hostile

CORPUS = dict(hostile.pathological_mails())


def _handle(raw: bytes) -> tuple[object, ...]:
    mail = read_mail(raw)
    reason = machine_reason(mail, raw=raw)
    found = parse_bounce(mail, raw) if is_bounce(mail) else None
    env = parse_envelope(mail.text)
    return mail, reason, found, env


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_pathological_mail_is_handled_under_the_caps(name: str) -> None:
    raw = CORPUS[name]
    mail, reason, found, env = _handle(raw)
    assert mail.size == len(raw) and mail.dedupe_key
    assert len(mail.text) <= caps.MAX_TEXT and (mail.html is None or len(mail.html) <= caps.MAX_HTML)
    assert len(mail.references) <= caps.MAX_IDS and len(mail.attachments) <= caps.MAX_PARTS
    assert sum(len(v) for v in mail.headers.values()) <= caps.MAX_HEADER_FIELDS
    assert all(len(v) <= caps.MAX_FIELD for values in mail.headers.values() for v in values)
    assert mail.parsed is not None and sum(1 for _ in mail.parsed.walk()) <= caps.MAX_PARTS + caps.MAX_MULTIPARTS
    if found is not None:
        assert len(found.recipients) <= MAX_RECIPIENTS and len(found.message_ids) <= MAX_CANDIDATE_IDS
    assert len(env.order_lines) <= MAX_ORDER_LINES
    assert all(len(str(v)) <= 81 for _, problem in env.problems for v in problem.args.values())
    if len(raw) < 1_000_000:  # the same answer twice (the big ones once: they cost the most)
        assert _handle(raw)[1:] == (reason, found, env) and read_mail(raw) == mail


@pytest.mark.parametrize("name, cut", [
    ("nested multiparts x2000", "mail-cut-parts"), ("parts x20000", "mail-cut-parts"),
    ("parameter bomb", "mail-cut-header"), ("encoded words in From", "mail-cut-header"),
    ("HTML 5 MB of tags", "mail-cut-html"), ("DSN with 5,000 recipients", "mail-cut-parts"), ("headers only, 2 MB", "mail-cut-header"),
    ("10 MB mail", "mail-cut-text"), ("References x20000", "mail-cut-header"),
])
def test_the_cut_is_named(name: str, cut: str) -> None:
    assert cut in read_mail(CORPUS[name]).truncated


def test_the_poison_bounces_are_read_as_bounces() -> None:
    for name in ("bounce of 25,000 blank lines", "bounce of 20,000 Message-ID lines", "DSN with 5,000 recipients"):
        mail = read_mail(CORPUS[name])
        assert is_bounce(mail), name
    dsn = CORPUS["DSN with 5,000 recipients"]
    found = parse_bounce(read_mail(dsn), dsn)
    assert found is not None and len(found.recipients) == MAX_RECIPIENTS and found.recipients[0].address == "a0@x.org"


def test_the_order_lines_beyond_the_cap_are_refused_with_a_reason() -> None:
    env = parse_envelope(read_mail(CORPUS["500,000 order lines"]).text)
    assert env.game == "k1" and [p[1].key for p in env.errors] == ["envelope-too-many-lines"]
