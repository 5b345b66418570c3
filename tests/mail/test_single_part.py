"""A single-part mail read without the feed parser (`pbem.mail.single`) is the message the
``email`` package's parser makes of it, under both policies the service reads mail with (the
capped one of `pbem.mail.caps` and ``compat32`` for the copy kept): the same header pairs,
payload, defects and caps noted, on generated mails of every shape the split tells apart
(folded lines, odd line breaks, Unix From lines, defective lines, multipart and message types);
and any mail it is not sure of is left to the parser."""

from __future__ import annotations

import email
import email.policy
import io
from email.generator import BytesGenerator
from email.message import Message
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pbem.mail import caps, single
from pbem.mail.parse import read_mail
from pbem.service import atrest

ORDER_MAIL = (b"From: corteo@localhost\nTo: pbem@localhost\nSubject: orders\n"
              b"Message-ID: <1.2@localhost>\nContent-Type: text/plain; charset=\"utf-8\"\n"
              b"Content-Transfer-Encoding: 7bit\nMIME-Version: 1.0\n\nGAME c1\nSEAT corteo 38ww-r9kb-rcte\nEND\n")

_HEADERS = st.sampled_from([
    "From: red@example.org", "To: pbem@example.org", "Subject: orders", "Subject: =?utf-8?q?citt=C3=A0?=",
    "Subject: città", "Subject: " + "long words " * 12, "Subject:", "Subject:  two  blanks ", "X-Tab:\tvalue",
    "Content-Type: text/plain", 'Content-Type: text/plain; charset="utf-8"', "Content-Type: text/plain; charset=latin-1",
    "Content-Type: TEXT/HTML", "Content-Type: text", "Content-Type: text/plain/x", "Content-Type: application/pdf",
    "Content-Type: multipart/alternative; boundary=XX", "Content-Type: multipart/mixed", "Content-Type: message/rfc822",
    "Content-Type: message/delivery-status", "Content-Type: multipart_signed/x", "Content-Type: Message/Partial",
    "Content-Type: text/plain; " + "; ".join(f"p{i}=v" for i in range(40)),
    "Content-Transfer-Encoding: 7bit", "Content-Transfer-Encoding: quoted-printable", "Content-Transfer-Encoding: base64",
    "MIME-Version: 1.0", "Message-ID: <a.b@example.org>", "References: " + " ".join(f"<{i}@x>" for i in range(60)),
    " folded continuation", "\tfolded tab", " ", "From nobody Mon Jan  1 00:00:00 2024", "From red", ": no name",
    "no colon here", "Bad Name: x", "X-Empty:", "X:", "Seat: north 7fq2-mh3k-p9z1", "X-CR: a\rb", "X-Eight: café",
    "--XX", "",
])
_BODY = st.sampled_from([
    "GAME k1", "SEAT north 7fq2-mh3k-p9z1", "END", "From here on", ">From", "\n", "\r\n", "\r", "città", "=C3=A0",
    "--XX", "--XX--", "Content-Type: text/plain", " ", "\t", "x",
])
_BREAKS = st.sampled_from(["\n", "\r\n", "\r\n", "\n", "\r"])


@st.composite
def mails(draw: st.DrawFn) -> bytes:
    """A head of generated lines, most with plain breaks, a blank line (mostly), a body."""
    lines = draw(st.lists(st.tuples(_HEADERS, _BREAKS), max_size=10))
    head = "".join(line + brk for line, brk in lines)
    blank = draw(st.sampled_from(["\n", "\r\n", "", "\n"]))
    body = "".join(draw(st.lists(_BODY, max_size=20)))
    return (head + blank + body).encode(draw(st.sampled_from(["utf-8", "latin-1"])), "replace")


def _state(msg: Message) -> dict[str, Any]:
    """Everything a parse leaves in a message but its policy, defects by kind and text."""
    state = {k: v for k, v in vars(msg).items() if k not in ("policy", "defects")}
    state["defects"] = [(type(d), str(d)) for d in msg.defects]
    if isinstance(msg._payload, list):  # type: ignore[attr-defined]  # parts (the parser's), compared alike
        state["_payload"] = [_state(part) for part in msg._payload]  # type: ignore[attr-defined]
    state["type"] = type(msg)
    return state


def _capped(notes: list[str]) -> Any:
    return caps._policy(notes)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mails())
@example(ORDER_MAIL)
@example(b"Subject: x\r\n\r\nbody")
@example(b"Subject: x\n folded\n\tagain\n\nbody\r\nmore\rlast")
def test_a_single_part_mail_is_the_parsers(raw: bytes) -> None:
    raw = bytes(bytearray(raw))  # a new object: the split of an earlier example is not this one's
    for make in (lambda notes: email.policy.compat32, _capped):
        fast_notes: list[str] = []
        fast = single.parse(raw, make(fast_notes))
        if fast is None:
            continue
        slow_notes: list[str] = []
        slow = email.message_from_bytes(raw, policy=make(slow_notes))
        assert _state(fast) == _state(slow)
        assert fast_notes == slow_notes
        assert not fast.is_multipart() and fast.get_content_maintype() not in ("multipart", "message")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mails())
@example(ORDER_MAIL)
def test_the_service_reads_a_mail_as_the_parser_did(raw: bytes) -> None:
    """`caps.parse_message` and `read_mail` with the split and without it (every mail to the parser)."""
    fast_notes: list[str] = []
    fast, fast_mail = caps.parse_message(raw, fast_notes), read_mail(raw)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(single, "parse", lambda raw, policy: None)
        slow_notes: list[str] = []
        slow, slow_mail = caps.parse_message(raw, slow_notes), read_mail(raw)
    assert _state(fast) == _state(slow) and fast_notes == slow_notes
    assert fast_mail == slow_mail


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mails(), st.sampled_from([atrest._KEPT, atrest._KEPT_CRLF]))
@example(ORDER_MAIL, atrest._KEPT)
def test_a_text_part_is_written_as_the_generator_writes_it(raw: bytes, policy: Any) -> None:
    msg = single.parse(bytes(bytearray(raw)), email.policy.compat32)
    if msg is None or msg.get_content_maintype() != "text":
        return
    buf = io.BytesIO()
    BytesGenerator(buf, mangle_from_=False, policy=policy).flatten(msg)
    assert atrest._flat_text(msg, policy) == buf.getvalue()


@pytest.mark.parametrize("raw", [
    ORDER_MAIL, ORDER_MAIL.replace(b"\n", b"\r\n"), b"Subject: x\n folded\n\nbody", b"X: a\n\n",
    b"Content-Type: application/pdf\n\n%PDF",
])
def test_the_usual_mail_is_split(raw: bytes) -> None:
    assert single.parse(raw, email.policy.compat32) is not None
    assert single.parse(raw, _capped([])) is not None


@pytest.mark.parametrize("raw", [
    b"From nobody Mon Jan  1 00:00:00 2024\nSubject: x\n\nbody",  # a Unix From line
    b" folded\nSubject: x\n\nbody",  # a first line continuing nothing
    b"Subject: x\nno colon\n\nbody",  # the body begins without a blank line
    b": x\n\nbody", b"Subject: x\rTo: y\n\nbody", b"Subject: x\n", b"\nbody", b"",
    b"Content-Type: multipart/mixed; boundary=X\n\n--X\n\nx\n--X--\n", b"Content-Type: message/rfc822\n\nSubject: y\n\nz",
])
def test_any_other_mail_is_left_to_the_parser(raw: bytes) -> None:
    assert single.parse(raw, email.policy.compat32) is None


def test_the_split_of_the_last_mail_is_kept_for_its_next_reader() -> None:
    raw = bytes(bytearray(ORDER_MAIL))
    first = single.split(raw)
    assert single.split(raw) is first
    assert single.split(bytes(bytearray(ORDER_MAIL))) == first  # equal bytes, another object: split again
