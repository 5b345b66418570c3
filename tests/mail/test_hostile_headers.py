"""Issue 20 items 4, 5, 7 and issue 24 items 6, 7, 9 at the mail layer: one From address,
ids written as ids, caps that cut and say so, nothing quoted back long or reversed."""

from __future__ import annotations

import re

import pytest

from pbem.core.i18n import Catalog, msg
from pbem.mail import caps
from pbem.mail.auth import check_authentication_results
from pbem.mail.bounce import MAX_CANDIDATE_IDS, parse_bounce
from pbem.mail.compose import MAX_REFERENCES, compose
from pbem.mail.envelope import MAX_LINE, MAX_ORDER_LINES, parse_envelope
from pbem.mail.parse import read_mail
from pbem.mail.quote import safe_quote

OUTLOOK = "<AM9PR07MB7201C3E4A5B6D7E8F90A1B2C3D4E5F6A7B8C9@AM9PR07MB7201.eurprd07.prod.outlook.com>"
GMAIL = "<CAJ7ztqB1xP3kQ9vZ8mYw2nH5rT6uL4sD0fG_aE+Oi3cVbN1m=Q@mail.gmail.com>"
APPLE = "<8F2C4A1E-5B7D-4C9E-A3F6-2D8B1E0C7A94@icloud.com>"


def _from(value: str) -> bytes:
    return f"From: {value}\r\nTo: pbem@localhost\r\nSubject: orders\r\n\r\nGAME k1\r\nEND\r\n".encode()


# ------------------------------------------------------------------- one From

@pytest.mark.parametrize("value, sender, problem", [
    ("alice@example.org, evil@example.net", None, "from-not-one"),
    ("Alice <alice@example.org>, Evil <evil@example.net>", None, "from-not-one"),
    ("friends: alice@example.org;", None, "from-not-one"),
    ("carla@example.org <evil@example.net>", "evil@example.net", None),
    ('"carla@example.org" <evil@example.net>', "evil@example.net", None),
    ("=?utf-8?q?carla=40localhost?=", None, "from-unreadable"),
    ("=?utf-8?q?carla=40example.org?= <evil@example.net>", "evil@example.net", None),
    ('"Doe, John" <John@Example.ORG>', "john@example.org", None),
    ("alice@example.org (Alice, at home)", "alice@example.org", None),
    ("a" * 40_000, None, "from-unreadable"),
])
def test_exactly_one_from_address(value: str, sender: str | None, problem: str | None) -> None:
    mail = read_mail(_from(value))
    assert (mail.sender, mail.sender_problem) == (sender, problem)


def test_a_display_name_is_decoded_but_never_the_address() -> None:
    mail = read_mail(_from("=?utf-8?q?carla=40example.org?= <evil@example.net>"))
    assert mail.sender_name == "carla@example.org" and mail.sender == "evil@example.net"


def test_two_from_lines_keep_the_first_address_and_the_problem() -> None:
    mail = read_mail(b"From: alice@example.org\r\n" + _from("evil@example.net"))
    assert (mail.sender, mail.sender_problem) == ("alice@example.org", "from-not-one")
    assert read_mail(b"Subject: x\r\n\r\nhi\r\n").sender_problem == "from-missing"


def test_every_new_key_has_both_languages() -> None:
    catalog = Catalog.from_package("pbem.mail")
    keys = ["from-missing", "from-not-one", "from-unreadable", "mail-cut-header", "mail-cut-parts",
            "mail-cut-text", "mail-cut-html", "envelope-too-many-lines", "envelope-line-too-long"]
    for key in keys:
        assert catalog.has(key, "en") and catalog.has(key, "it")
        en, it = (catalog.text(msg(key, limit=500, text="x"), lang) for lang in ("en", "it"))
        assert en != it
    assert "One From address required" in catalog.text(msg("from-not-one"), "en")


# --------------------------------------------------------------------- threading

@pytest.mark.parametrize("parent", [OUTLOOK, GMAIL, APPLE])
def test_in_reply_to_and_references_are_the_ids_folded_never_encoded(parent: str) -> None:
    assert len(OUTLOOK) >= 88  # as long as Outlook's
    _, raw = compose(sender="pbem@localhost", to="anna@example.org", subject="Re: orders", text="ok",
                     domain="localhost", in_reply_to=parent, references=[GMAIL, APPLE, OUTLOOK])
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert b"=?" not in head
    assert f"\r\nIn-Reply-To: {parent}\r\n".encode() in head
    refs = re.search(rb"\r\nReferences:((?:[^\r]|\r\n )*)\r\n", head)
    assert refs is not None
    assert refs.group(1).split() == [GMAIL.encode(), APPLE.encode(), OUTLOOK.encode()]
    assert all(len(line) <= 998 for line in head.split(b"\r\n"))
    back = read_mail(raw)
    assert back.in_reply_to == parent.replace(parent.rpartition("@")[2], parent.rpartition("@")[2].lower())


def test_references_keep_the_first_and_the_latest_and_drop_what_cannot_be_written() -> None:
    ids = [f"<{i}@example.org>" for i in range(100)] + ["<bad id@x>", "<évil@x>", "<a\r\nBcc: x@y>"]
    _, raw = compose(sender="pbem@localhost", to="a@example.org", subject="s", text="t", domain="localhost",
                     references=ids)
    head = raw.split(b"\r\n\r\n", 1)[0].decode()
    written = re.search(r"\r\nReferences:((?:[^\r]|\r\n )*)\r\n", head)
    assert written is not None
    kept = written.group(1).split()
    assert len(kept) == MAX_REFERENCES and kept[0] == "<0@example.org>" and kept[-1] == "<99@example.org>"
    assert "Bcc" not in head and "évil" not in head


# ------------------------------------------------------------------------- caps

def test_a_parameter_bomb_is_cut_and_named() -> None:
    raw = b"From: a@example.org\r\nContent-Type: text/plain; " + b"a=b; " * 20_000 + b"\r\n\r\nGAME k1\r\n"
    mail = read_mail(raw)
    assert "mail-cut-header" in mail.truncated and mail.sender == "a@example.org"
    assert (mail.header("content-type") or "").count(";") <= caps.MAX_PARAMETERS
    assert "GAME k1" in mail.text


def test_encoded_words_are_capped_but_the_subject_kept() -> None:
    raw = b"From: a@example.org\r\nSubject: " + b"=?utf-8?q?a?= " * 20_000 + b"\r\n\r\nhi\r\n"
    mail = read_mail(raw)
    assert mail.subject == "a" * caps.MAX_ENCODED_WORDS and "mail-cut-header" in mail.truncated


def test_references_keep_the_first_and_latest_ids() -> None:
    refs = " ".join(f"<{i}@x.org>" for i in range(2_000))
    mail = read_mail(f"From: a@example.org\r\nReferences: {refs}\r\n\r\nhi\r\n".encode())
    assert len(mail.references) == caps.MAX_IDS
    assert mail.references[0] == "<0@x.org>" and mail.references[-1] == "<1999@x.org>"


def test_parts_and_nesting_are_capped() -> None:
    parts = "".join(f"--B\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n" for i in range(5_000)) + "--B--\r\n"
    mail = read_mail(f"From: a@example.org\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n{parts}".encode())
    assert "mail-cut-parts" in mail.truncated and mail.text.strip() == "part 0"
    assert mail.parsed is not None and sum(1 for _ in mail.parsed.walk()) <= caps.MAX_PARTS + 1
    nested = "".join(f"--B{i}\r\nContent-Type: multipart/mixed; boundary=B{i + 1}\r\n\r\n" for i in range(3_000))
    deep = read_mail(f"From: a@example.org\r\nContent-Type: multipart/mixed; boundary=B0\r\n\r\n{nested}".encode())
    assert "mail-cut-parts" in deep.truncated and deep.sender == "a@example.org"
    assert deep.parsed is not None and sum(1 for _ in deep.parsed.walk()) <= caps.MAX_MULTIPARTS + 1


def test_a_small_mail_is_not_cut() -> None:
    mail = read_mail(_from("Anna <anna@example.org>"))
    assert mail.truncated == () and mail.sender_problem is None


def test_html_and_text_are_capped() -> None:
    html = "<p>GAME k1</p>" + "<a" * 400_000
    raw = (b"From: a@example.org\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html.encode())
    mail = read_mail(raw)
    assert mail.html is not None and len(mail.html) == caps.MAX_HTML and "mail-cut-html" in mail.truncated
    assert mail.text.startswith("GAME k1") and len(mail.text) <= caps.MAX_TEXT
    long = read_mail(b"From: a@example.org\r\n\r\n" + b"GAME k1\r\n" * 100_000)
    assert len(long.text) == caps.MAX_TEXT and "mail-cut-text" in long.truncated


def test_the_mail_is_parsed_once_and_the_parse_is_not_part_of_equality() -> None:
    raw = _from("anna@example.org")
    first, second = read_mail(raw), read_mail(raw)
    assert first == second and first.parsed is not second.parsed and "parsed" not in repr(first)


def test_a_bounce_of_many_ids_keeps_a_bounded_list() -> None:
    body = "".join(f"Message-ID: <{i}@club.example>\n" for i in range(20_000))
    raw = ("From: MAILER-DAEMON@mx.example\nSubject: Undelivered Mail Returned to Sender\n\n"
           "<anna@example.org>: mailbox full\n\n" + body).encode()
    found = parse_bounce(read_mail(raw), raw)
    assert found is not None and len(found.message_ids) <= MAX_CANDIDATE_IDS
    assert found.message_ids[0] == "<0@club.example>" and found.recipients[0].address == "anna@example.org"


# ------------------------------------------------------------------ auth results

def test_dmarc_pass_without_header_from_is_no_pass() -> None:
    ours = "mx.pbem.example"
    assert check_authentication_results([f"{ours}; dmarc=pass"], ours, "example.org") == "dmarc-failed"
    assert check_authentication_results([f"{ours}; dmarc=pass header.from=example.org"], ours, "example.org") is None


# ------------------------------------------------------------- quoting, envelope

def test_safe_quote_is_short_on_one_line_and_without_bidi_controls() -> None:
    assert safe_quote("\u202ehtuos") == "\ufffdhtuos"
    assert safe_quote("a\r\nb\x00c") == "a  b c"
    assert safe_quote("x" * 1_000_000) == "x" * 80 + "…"
    assert safe_quote("x" * 80) == "x" * 80
    for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c":
        assert ch not in safe_quote(f"a{ch}b")


def test_envelope_caps_order_lines_and_quotes_short() -> None:
    many = "GAME k1\nSEAT red s3cr3t\n" + "A1-B2\n" * (MAX_ORDER_LINES + 1) + "END\n"
    env = parse_envelope(many)
    assert [p[1].key for p in env.errors] == ["envelope-too-many-lines"]
    assert len(env.order_lines) == MAX_ORDER_LINES
    assert len(parse_envelope(many.replace("A1-B2\n", "", 2)).errors) == 0
    long = parse_envelope("GAME k1\nSEAT red s3cr3t\n" + "x" * 1_000_000 + "\nEND\n")
    (lineno, problem), = long.errors
    assert problem.key == "envelope-line-too-long" and problem.args["limit"] == MAX_LINE
    assert len(problem.args["text"]) == 81 and long.order_lines == ()
    bidi = parse_envelope("GAME k1 \u202ehtuos" + "y" * 500 + "\nSEAT red s\nEND")
    (_, extra), = bidi.warnings + bidi.errors
    assert "\u202e" not in extra.args["text"] and len(extra.args["text"]) <= 81
