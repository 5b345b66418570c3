"""Properties of every inbound entry point (issue 24, item 10), for any input hypothesis
finds: never raises, the same answer twice, and within the budget (the caps hold whatever
the input). Mail-shaped inputs are built from the pieces attackers use."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail import caps
from pbem.mail.bounce import MAX_CANDIDATE_IDS, MAX_RECIPIENTS, is_bounce, parse_bounce
from pbem.mail.classify import machine_reason
from pbem.mail.compose import compose
from pbem.mail.envelope import MAX_ORDER_LINES, parse_envelope
from pbem.mail.htmltext import html_to_text
from pbem.mail.parse import read_mail
from pbem.mail.quote import BIDI_CONTROLS

PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_PIECES = st.sampled_from([
    "From: ", "anna@example.org", "<", ">", ",", "=?utf-8?q?a=40b?=", "=?x?b?!!?=", "\r\n", "\n", "\n ", " ",
    "Content-Type: multipart/mixed; boundary=B", "--B", "--B--", "Content-Type: text/html", "<a", "</", "<!--",
    "Message-ID: <m@x>", "References: <a@b> <c@d>", "a=b; ", "Final-Recipient: rfc822; a@x.org", "Action: failed",
    "Content-Type: message/delivery-status", "MAILER-DAEMON@mx", "Subject: Undelivered", "GAME k1", "SEAT a s",
    "END", "> ", "\u202e", "\xff", "Content-Transfer-Encoding: base64", "Content-Transfer-Encoding: quoted-printable",
    "=ZZ", "X-PBEM-Game: k1", "charset=x-unknown",
])
MAILS = st.one_of(
    st.binary(max_size=2_000),
    st.lists(_PIECES, max_size=80).map(lambda xs: "".join(xs).encode("utf-8", "surrogateescape")),
)
TEXTS = st.one_of(st.text(max_size=2_000), st.lists(_PIECES, max_size=80).map("".join))


@PROFILE
@given(MAILS)
def test_read_mail_classify_and_bounce_never_raise_and_agree_with_themselves(raw: bytes) -> None:
    mail = read_mail(raw)
    assert read_mail(raw) == mail
    reason = machine_reason(mail, raw=raw)
    assert machine_reason(read_mail(raw), raw=raw) == reason
    found = parse_bounce(mail, raw)
    assert parse_bounce(read_mail(raw), raw) == found
    assert is_bounce(mail) in (True, False)
    assert len(mail.text) <= caps.MAX_TEXT and len(mail.references) <= caps.MAX_IDS
    if found is not None:
        assert len(found.recipients) <= MAX_RECIPIENTS and len(found.message_ids) <= MAX_CANDIDATE_IDS
    assert (mail.sender is None) == (mail.sender_problem is not None and mail.sender_problem != "from-not-one") or (
        mail.sender_problem == "from-not-one")


@PROFILE
@given(st.integers(min_value=0, max_value=400), st.integers(min_value=0, max_value=400))
def test_the_budget_holds_whatever_the_counts(params: int, words: int) -> None:
    raw = ("From: a@example.org\r\nSubject: " + "=?utf-8?q?a?= " * words + "\r\nContent-Type: text/plain; "
           + "a=b; " * params + "\r\n\r\nGAME k1\r\n").encode()
    mail = read_mail(raw)
    assert mail.subject == "a" * min(words, caps.MAX_ENCODED_WORDS)
    assert (mail.header("content-type") or "").count(";") <= caps.MAX_PARAMETERS
    assert ("mail-cut-header" in mail.truncated) == (params + 1 > caps.MAX_PARAMETERS or words > caps.MAX_ENCODED_WORDS)
    assert mail.sender == "a@example.org" and "GAME k1" in mail.text


@PROFILE
@given(TEXTS)
def test_parse_envelope_never_raises_and_quotes_briefly(text: str) -> None:
    env = parse_envelope(text)
    assert parse_envelope(text) == env
    assert len(env.order_lines) <= MAX_ORDER_LINES
    for _, problem in env.problems:
        for value in problem.args.values():
            assert not isinstance(value, str) or (len(value) <= 81 and not set(value) & BIDI_CONTROLS)


@PROFILE
@given(TEXTS)
def test_html_to_text_never_raises_never_grows(doc: str) -> None:
    text = html_to_text(doc)
    assert html_to_text(doc) == text and len(text) <= len(doc)


@PROFILE
@given(st.text(st.characters(blacklist_categories=("Cc", "Cs")) | st.just("\n"), min_size=1, max_size=200), st.lists(st.from_regex(r"<[A-Za-z0-9.$_=+-]{1,120}@[a-z0-9.-]{1,60}>",
                                                                  fullmatch=True), max_size=30))
def test_compose_round_trip_keeps_text_and_ids(text: str, ids: list[str]) -> None:
    _, raw = compose(sender="pbem@localhost", to="anna@example.org", subject="s", text=text, domain="localhost",
                     in_reply_to=ids[-1] if ids else None, references=ids)
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert b"=?" not in head and all(len(line) <= 998 for line in head.split(b"\r\n"))
    back = read_mail(raw)
    assert back.text.rstrip("\n") == text.rstrip("\n")  # C0/C1 controls aside (read as cp1252 on purpose)
    if ids:
        want = ids[-1].rpartition("@")
        assert back.in_reply_to == want[0] + "@" + want[2].lower()
