"""The redaction of the inbound mail we keep (`pbem.service.atrest`) reads SEAT lines from one
scan of the text when its lines break plainly, and each part's text once: the copy kept is
byte for byte the one the line-by-line reading gave (kept below as the reference) on generated
mails of every shape the fast path distinguishes (line breaks, quotes, charsets, encodings, parts),
single-part mails read and written without the email package's parser and generator included."""

from __future__ import annotations

import base64
import email
import email.policy
import io
import quopri
import sys
from email.generator import BytesGenerator
from email.message import Message

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pbem.service import atrest
from tests.mail import test_single_part as single_part

# ------------------------------------------------------------------ the reference (as it was)

_SEAT_WORDS = {"seat", "posto"}


def ref_seat_line(line: str) -> tuple[str, str] | None:
    body = line.lstrip(" \t>")
    words = body.split()
    if len(words) < 2 or words[0].rstrip(":").lower() not in _SEAT_WORDS:
        return None
    if len(words) == 2:
        if not any(ch.isdigit() or ch == "-" for ch in words[1]):
            return None
        return line[:len(line) - len(body)] + f"{words[0]} {atrest.MARKER}", words[1]
    secret = " ".join(words[2:]).split("#", 1)[0].strip() or " ".join(words[2:])
    return line[:len(line) - len(body)] + f"{words[0]} {words[1]} {atrest.MARKER}", secret


def ref_secrets_in(text: str) -> list[str]:
    found: set[str] = set()
    for line in text.splitlines():
        seat = ref_seat_line(line)
        if seat is not None:
            found.add(seat[1])
            found.update(w for w in seat[1].split() if len(w) >= 4)
    return sorted(found, key=len, reverse=True)


def ref_redact_text(text: str, secrets: list[str]) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        ending = line[len(line.rstrip("\r\n")):]
        seat = ref_seat_line(line.rstrip("\r\n"))
        out.append(seat[0] + ending if seat is not None else line)
    redacted = "".join(out)
    for secret in secrets:
        redacted = redacted.replace(secret, atrest.MARKER)
    return redacted


def _ref_text_of(part: Message) -> str | None:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return None
    try:
        return payload.decode(part.get_content_charset() or "utf-8", "replace")
    except LookupError:
        return payload.decode("utf-8", "replace")


def _ref_redact_part(part: Message, secrets: list[str]) -> None:
    text = _ref_text_of(part)
    if text is None:
        return
    redacted = ref_redact_text(text, secrets)
    if redacted == text:
        return
    cte = str(part.get("Content-Transfer-Encoding", "7bit")).strip().lower()
    charset = part.get_content_charset() or "utf-8"
    try:
        data = redacted.encode(charset)
    except (LookupError, UnicodeEncodeError):
        charset, data = "utf-8", redacted.encode("utf-8")
    if cte not in ("7bit", "8bit") or (cte == "7bit" and not data.isascii()):
        cte, data = "quoted-printable", quopri.encodestring(data)
    if "Content-Transfer-Encoding" in part:
        part.replace_header("Content-Transfer-Encoding", cte)
    else:
        part["Content-Transfer-Encoding"] = cte
    if part.get_content_charset() and part.get_content_charset() != charset:
        part.set_param("charset", charset)
    part.set_payload(data.decode("ascii", "surrogateescape"))


def _ref_has_seat_line(data: bytes) -> bool:
    for line in data.decode("utf-8", "replace").splitlines():
        seat = ref_seat_line(line)
        if seat is not None and seat[1] != atrest.MARKER:
            return True
    return False


def ref_redact_mail(raw: bytes, text: str = "") -> bytes:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        parts = [p for p in msg.walk() if not p.is_multipart() and p.get_content_maintype() == "text"]
        found = set(ref_secrets_in(text))
        for part in parts:
            found.update(ref_secrets_in(_ref_text_of(part) or ""))
        secrets = sorted(found, key=len, reverse=True)[:20]
        for part in parts:
            _ref_redact_part(part, secrets)
        buf = io.BytesIO()
        linesep = "\r\n" if b"\r\n" in raw[:4096] else "\n"
        BytesGenerator(buf, mangle_from_=False, policy=atrest._KEPT.clone(linesep=linesep)).flatten(msg)
        out = buf.getvalue()
    except Exception:
        return atrest._headers_only(raw)
    if len(found) > 20 or any(s.encode("utf-8") in out for s in secrets) or _ref_has_seat_line(out):
        return atrest._headers_only(raw)
    return out


# ------------------------------------------------------------------------------ generators

#: Pieces of lines: the words and markers the SEAT reading turns on, and every kind of line break.
_PIECES = st.sampled_from([
    "SEAT", "seat", "Seat:", "POSTO", "posto:", "SEATS", "se", "po", "PLACE", "north", "sud", "7fq2-mh3k-p9z1",
    "7FQ2", "MH3K", "p9z1", "abc", "x", "# note", "#", ">", "> ", ">>", " ", "  ", "\t", ":", "-", "1",
    "\n", "\n", "\n", "\r\n", "\r\n", "\r", "\x1f", "\x0b", "\x0c", "\x1c", "\x1e", "\x85", "\u2028", "\u00a0", "\u3000",
    "é", "città", "ſeat", "\u212aey", "END", "GAME k1",
])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)


def test_only_ascii_letters_lower_case_to_the_letters_of_seat_and_posto() -> None:
    """`_seat_line` rejects a line by the first two letters of its first word, lower-cased:
    sound only if no other character lower-cases to one of these letters."""
    letters = set("seatpo")
    odd = [hex(c) for c in range(sys.maxunicode + 1)
           if letters & set(chr(c).lower()) and not (chr(c).isascii() and chr(c).isalpha())]
    assert odd == []


@settings(max_examples=1500, deadline=None)
@given(_TEXTS)
@example("\x1fSEAT north 7fq2-mh3k-p9z1\nPLACE x\n")
@example("> \tposto: sud 7FQ2 MH3K # mine\r\n>> SEAT\x1f7fq2\r\n")
@example("SEAT north 7fq2\rSEAT south 8abc\x0bseat x 1-2\u2028POSTO a b")
def test_seat_lines_are_read_as_line_by_line(text: str) -> None:
    assert [atrest._seat_line(line) for line in text.splitlines()] == [ref_seat_line(line) for line in text.splitlines()]
    assert atrest.secrets_in(text) == ref_secrets_in(text)
    secrets = ref_secrets_in(text)
    assert atrest.redact_text(text, secrets) == ref_redact_text(text, secrets)
    assert atrest.redact_text(text, []) == ref_redact_text(text, [])
    data = text.encode("utf-8")
    assert atrest._has_seat_line(data) == _ref_has_seat_line(data)


_CHARSETS = st.sampled_from([None, "utf-8", "us-ascii", "iso-8859-1", "windows-1252", "x-unknown"])
_CTES = st.sampled_from([None, "7bit", "8bit", "quoted-printable", "base64"])


def _encode(body: str, charset: str | None, cte: str | None) -> tuple[str, bytes]:
    try:
        data = body.encode(charset or "utf-8")
    except (LookupError, UnicodeEncodeError):
        data = body.encode("utf-8")
    if cte == "base64":
        return cte, base64.encodebytes(data)
    if cte == "quoted-printable":
        return cte, quopri.encodestring(data)
    return cte or "", data


@st.composite
def _mails(draw: st.DrawFn) -> tuple[bytes, str]:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    headers = ["From: red@example.org", "To: pbem@example.org", draw(st.sampled_from([
        "Subject: orders", "Subject: Re: [pbem] k1 turn 7", "Subject: =?utf-8?q?citt=C3=A0?= ordini",
        "Subject: " + "long words " * 12, "Subject: two  blanks", "Seat: north 7fq2-mh3k-p9z1"])),
        "Message-ID: <a.b@example.org>"]
    bodies = draw(st.lists(st.tuples(_TEXTS, _CHARSETS, _CTES, st.sampled_from(["plain", "html"])),
                           min_size=1, max_size=3))
    head = nl.join(headers) + nl
    first_text = bodies[0][0]
    if len(bodies) == 1 and draw(st.booleans()):
        text, charset, cte, sub = bodies[0]
        cte_name, data = _encode(text, charset, cte)
        ctype = f"Content-Type: text/{sub}" + (f'; charset="{charset}"' if charset else "")
        head += ctype + nl + (f"Content-Transfer-Encoding: {cte_name}{nl}" if cte_name else "") + nl
        return head.encode("utf-8") + data, first_text
    head += f"MIME-Version: 1.0{nl}Content-Type: multipart/alternative; boundary=XX{nl}{nl}"
    out = head.encode("utf-8")
    for text, charset, cte, sub in bodies:
        cte_name, data = _encode(text, charset, cte)
        part = f"--XX{nl}Content-Type: text/{sub}" + (f"; charset={charset}" if charset else "") + nl
        part += (f"Content-Transfer-Encoding: {cte_name}{nl}" if cte_name else "") + nl
        out += part.encode("ascii") + data + nl.encode("ascii")
    return out + f"--XX--{nl}".encode("ascii"), first_text


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mails(), st.booleans())
def test_the_copy_kept_is_the_one_the_line_by_line_redaction_kept(mail: tuple[bytes, str], with_text: bool) -> None:
    raw, text = mail
    given_text = text.replace("\r\n", "\n").replace("\r", "\n") if with_text else ""
    assert atrest.redact_mail(raw, given_text) == ref_redact_mail(raw, given_text)


def test_the_seat_line_scan_grows_linearly() -> None:
    """`atrest._MAYBE_SEAT` (outside the package tests/mail/test_growth.py sweeps) on hostile runs."""
    from tests.mail import hostile

    for unit in ("\n", " \n", "> ", "\nse", "\n>", "\n\t", "se", "\r\n", "\nSEAT a b"):
        small, large = hostile.grow(unit, hostile.SMALL), hostile.grow(unit, hostile.LARGE)
        ratio = hostile.growth(hostile.pattern_work(atrest._MAYBE_SEAT, small),
                               hostile.pattern_work(atrest._MAYBE_SEAT, large), floor=0.001)
        assert ratio < hostile.MAX_RATIO, f"{unit!r}: 100 KB costs {ratio:.1f} times 10 KB"


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(single_part.mails(), st.booleans())
@example(single_part.ORDER_MAIL, True)
def test_a_single_part_mail_is_kept_as_the_email_package_kept_it(raw: bytes, with_text: bool) -> None:
    """Read by `pbem.mail.single` and written by `atrest._flat_text` when it is one text part with
    headers the split is sure of; the copy kept is the package's (folded, 8-bit and odd headers too)."""
    text = raw.decode("utf-8", "replace").partition("\n\n")[2] if with_text else ""
    assert atrest.redact_mail(raw, text) == ref_redact_mail(raw, text)
