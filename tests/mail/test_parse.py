from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.parse import html_to_text, normalise_message_id, read_mail, strip_quotes

from . import samples


def test_latin1_quoted_printable_with_rfc2047_headers() -> None:
    mail = read_mail(samples.LATIN1_QP)
    assert mail.sender == "nicolo@example.it"
    assert mail.sender_name == "Nicolò Bianchi"
    assert mail.subject == "Ordini per la città"
    assert "per la città." in mail.text
    assert mail.text.rstrip().endswith("Nicolò")
    assert mail.message_id == "<ABC123@mail.example.it>"
    assert mail.dedupe_key == mail.message_id
    assert mail.return_path == "nicolo@example.it"
    assert mail.date == datetime(2025, 2, 3, 10, 15, tzinfo=timezone(timedelta(hours=1)))
    assert mail.date is not None and mail.date.tzinfo is not None
    assert mail.size == len(samples.LATIN1_QP)
    assert (mail.header("CONTENT-TYPE") or "").startswith("text/plain; charset=")


def test_windows_1252_html_only() -> None:
    mail = read_mail(samples.CP1252_HTML_ONLY)
    assert "Voilà mes ordres – merci…" in mail.text
    lines = mail.text.splitlines()
    assert "GAME k42" in lines and "C3 attack D4" in lines and "END" in lines
    assert "color" not in mail.text and "alert" not in mail.text
    assert "old quoted text" not in mail.text
    assert mail.html is not None and "<blockquote>" in mail.html


def test_gmail_italian_reply_prefers_plain_text_and_strip_quotes_cuts_header() -> None:
    mail = read_mail(samples.GMAIL_IT_REPLY)
    assert mail.in_reply_to == "<report-3@localhost>"
    assert mail.references == ("<welcome@localhost>", "<report-3@localhost>")
    assert mail.subject == "Re: [pbem] k42 turno 3 — rapporto"
    assert "> GAME k42" in mail.text
    own = strip_quotes(mail.text)
    assert own.splitlines() == ["PARTITA k42", "POSTO nord 7fq2-mh3k-p9z1", "TURNO 3", "A1-B2",
                                "FINE"]
    # the HTML alternative alone also loses the Gmail quote container
    text = html_to_text(mail.html or "")
    assert "PARTITA k42" in text and "ha scritto" not in text and "GAME" not in text


def test_outlook_italian_reply_block_is_cut() -> None:
    mail = read_mail(samples.OUTLOOK_IT_REPLY)
    assert mail.subject == "R: [pbem] k42 turno 3"
    own = strip_quotes(mail.text)
    assert own.splitlines() == ["PARTITA k42", "POSTO sud 1234-5678-9abc", "STATO", "FINE", "",
                                "Giulia"]
    assert "mercoledì" in mail.text


def test_strip_quotes_english_and_signature() -> None:
    text = ("ORDERS\n\n-- \nAnna, the general\nsecond sig line\n")
    assert strip_quotes(text) == "ORDERS"
    text = ("STATUS\n\nOn Wed, 5 Feb 2025 at 10:00, pbem <pbem@localhost>\nwrote:\n> old\n")
    assert strip_quotes(text) == "STATUS"
    text = ("MAP\n\n-----Original Message-----\nFrom: pbem\nSent: today\nTo: me\nSubject: x\n\n"
            "GAME k1\n")
    assert strip_quotes(text) == "MAP"
    text = ("MAP\nFrom: pbem <pbem@localhost>\nSent: Wednesday\nTo: Anna\nSubject: [pbem]\n")
    assert strip_quotes(text) == "MAP"
    text = "Il 05/02/2025 10:00, pbem ha scritto:\n> x\n"
    assert strip_quotes("AIUTO\n" + text) == "AIUTO"
    # an ordinary line starting with "On" or "From:" is kept
    assert strip_quotes("On the left flank\nFrom: me to you\nA1-B2") == (
        "On the left flank\nFrom: me to you\nA1-B2")


def test_missing_message_id_uses_a_hash() -> None:
    mail = read_mail(samples.NO_MESSAGE_ID)
    assert mail.message_id is None
    assert mail.dedupe_key.startswith("content:") and len(mail.dedupe_key) == 8 + 64
    assert read_mail(samples.NO_MESSAGE_ID).dedupe_key == mail.dedupe_key
    # A second delivery adds its own trace headers: still the same mail.
    redelivered = b"Received: from mx2 by mx1; Sun, 22 Nov 2026 01:00:00 +0000\r\nReturn-Path: <a@b.c>\r\n"
    assert read_mail(redelivered + samples.NO_MESSAGE_ID).dedupe_key == mail.dedupe_key
    assert mail.date is None and mail.return_path is None
    assert mail.text.strip() == "HELP"


def test_message_id_normalisation() -> None:
    assert normalise_message_id(" <A.b@Host.COM> ") == "<A.b@host.com>"
    assert normalise_message_id("A.b@Host.COM") == "<A.b@host.com>"
    assert normalise_message_id("<abc@x\r\n .y>") == "<abc@x.y>"
    assert normalise_message_id("") is None
    assert normalise_message_id(None) is None


def test_unknown_charset_and_mislabelled_text() -> None:
    raw = (b"From: a@b.c\r\nMessage-ID: <u1@b.c>\r\nContent-Type: text/plain; charset=x-klingon\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\ncitt\xc3\xa0\r\n")
    assert read_mail(raw).text.strip() == "città"
    raw = (b"From: a@b.c\r\nContent-Type: text/plain; charset=us-ascii\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\ncitt\xe0 \x96 ok\r\n")
    assert read_mail(raw).text.strip() == "città – ok"
    raw = (b"From: a@b.c\r\nContent-Type: text/plain; charset=utf-8\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\nperch\xe9\r\n")
    assert read_mail(raw).text.strip() == "perché"


def test_return_path_null_sender() -> None:
    mail = read_mail(samples.DSN_BOUNCE)
    assert mail.return_path == ""
    assert mail.content_type == "multipart/report"
    assert "could not be delivered" in mail.text


def test_garbage_does_not_raise() -> None:
    for raw in (b"", b"\x00\xff\xfe", b"From: <<<@@@>>>\r\n\r\n", b"Content-Type: multipart/mixed\r\n\r\n",
                b"Date: yesterday\r\nMessage-ID: <>\r\n\r\nx",
                b"Content-Type: text/plain; charset=\"\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!"):
        mail = read_mail(raw)
        assert mail.dedupe_key
        assert isinstance(mail.text, str)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_read_mail_never_raises_on_bytes(raw: bytes) -> None:
    mail = read_mail(raw)
    assert mail.size == len(raw)
    assert mail.dedupe_key


_header_lines = st.sampled_from([
    b"From: ", b"To: ", b"Subject: ", b"Date: ", b"Message-ID: ", b"References: ",
    b"In-Reply-To: ", b"Return-Path: ", b"Content-Type: ", b"Content-Transfer-Encoding: ",
    b"MIME-Version: 1.0", b"Content-Type: multipart/mixed; boundary=b", b"--b", b"--b--",
    b"Content-Type: text/html; charset=", b"=?utf-8?q?", b"=?iso-8859-1?b?", b"<p>", b"<blockquote>",
    b"", b"\xff\xfe", b"=E0", b"<", b">", b"@",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_header_lines, st.binary(max_size=30)), max_size=25))
def test_read_mail_never_raises_on_mail_like_bytes(parts: list[tuple[bytes, bytes]]) -> None:
    raw = b"\r\n".join(a + b for a, b in parts)
    mail = read_mail(raw)
    assert isinstance(mail.text, str)


def test_outlook_en_dash_in_an_iso_8859_1_header_is_read_as_windows_1252() -> None:
    # Outlook declares ISO-8859-1 and sends Windows-1252 punctuation (=96 is an en dash).
    raw = (b"From: a@example.org\r\nSubject: =?ISO-8859-1?Q?turno_7_=96_ordini?=\r\n"
           b"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
           b"GAME k1 =96 ok\r\n")
    mail = read_mail(raw)
    assert mail.subject == "turno 7 \u2013 ordini"
    assert "GAME k1 \u2013 ok" in mail.text


def test_the_text_of_an_attached_mail_is_not_taken_as_the_mail_s_own() -> None:
    # HTML-only mail with a forwarded mail attached: its plain text (a welcome with a secret)
    # must not become this mail's text.
    inner = (b"From: pbem@localhost\r\nSubject: [pbem] k1 welcome\r\nContent-Type: text/plain\r\n\r\n"
             b"GAME k1\r\nSEAT north 7fq2-mh3k-p9z1\r\nEND\r\n")
    raw = (b"From: a@example.org\r\nSubject: Fwd\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\nContent-Type: text/html\r\n\r\n"
           b"<p>see below</p>\r\n--XX\r\nContent-Type: message/rfc822\r\n\r\n" + inner + b"\r\n--XX--\r\n")
    mail = read_mail(raw)
    assert "see below" in mail.text and "7fq2" not in mail.text


_HEADER_TEXT = st.lists(st.one_of(st.text(alphabet=[chr(c) for c in range(32, 127)] + ["\t"], max_size=12),
                                  st.sampled_from(["=?utf-8?q?caf=C3=A9?=", "=?iso-8859-1?b?Y2Fm6Q==?=", "=?", "?=",
                                                   "=?bogus?q?x?=", "(c)", '"q"', "\\", " "])), max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["Subject", "X-Note", "Received", "Comments", "Keywords"]), _HEADER_TEXT)
def test_unstructured_headers_read_as_the_email_package_reads_them(name: str, pieces: list[str]) -> None:
    """read_mail reads plain ASCII values without the header grammar and each value once a
    mail: the text is the stock ``email.policy.default`` reading all the same."""
    import email
    import email.policy

    value = "".join(pieces)
    raw = f"From: a@example.org\r\n{name}: {value}\r\n\r\nbody\r\n".encode("ascii")
    stock = str(email.message_from_bytes(raw, policy=email.policy.default)[name])
    expected = "".join(ch if ch.isprintable() or ch == "\t" else " " for ch in stock).strip()
    assert read_mail(raw).headers[name.lower()] == (expected,)


def test_a_parts_content_type_is_read_the_same_each_time() -> None:
    """The header values of one mail are parsed once and shared: every reading of a
    part's Content-Type gives the same type, parameters and charset."""
    mail = read_mail(samples.LATIN1_QP)
    assert mail.parsed is not None
    first, again = mail.parsed["Content-Type"], mail.parsed["Content-Type"]
    assert first is again and first.params == again.params
    assert mail.parsed.get_content_charset() == first.params["charset"].lower()
    assert mail.parsed.get_content_type() == "text/plain"
