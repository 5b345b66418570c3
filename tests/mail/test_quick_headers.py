"""The headers `pbem.mail.caps.quick_header` makes without the ``email`` grammar (a plain
Content-Type, Message-ID, Content-Transfer-Encoding, MIME-Version: every order mail's) are the
ones ``email.policy.default`` makes: the same text, classes, attributes, defects, parse tree and
folding, on generated values and their near misses; and a mail reads the same with them."""

from __future__ import annotations

import email.policy
import pickle
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.mail import caps
from pbem.mail.parse import read_mail

_NAMES = ["Content-Type", "content-type", "CONTENT-TYPE", "Message-ID", "Message-Id", "Content-Transfer-Encoding",
          "MIME-Version", "Mime-Version", "Subject", "Content-Disposition"]

_PIECES = st.sampled_from([
    "text", "TEXT", "plain", "Plain", "multipart", "mixed", "html", "/", ";", "; ", ";  ", " ", "\t", "=", '"', "\\",
    "charset", "Charset", "CHARSET", "boundary", "name", "format", "flowed", "utf-8", "UTF-8", "iso-8859-1",
    "----=_Part_1.2", "=?utf-8?q?x?=", "=?", "*", "*0", "'", "%", "(c)", "<", ">", "@", ".", "..", "a", "b1", "x+y",
    "localhost", "example.org", "7bit", "8BIT", "quoted-printable", "base64", "1", "0", "01", "2", "é", ",", "[", "]",
    "\u00a0", "x_y", "-",
])
_VALUES = st.lists(_PIECES, max_size=14).map("".join)

#: Plain values of each kind: the quick reading must take them (the comparison is not empty).
PLAIN = [
    ("Content-Type", 'text/plain; charset="utf-8"'),
    ("Content-Type", "text/plain; charset=utf-8; format=flowed"),
    ("Content-Type", 'multipart/alternative; boundary="----=_Part_12_34.5678"'),
    ("Content-Type", "TEXT/Plain;Charset=ISO-8859-1"),
    ("Content-Type", 'text/plain; name=""'),
    ("Content-Type", "text/html"),
    ("Message-ID", "<179569086400.19348.6782905441877262967@localhost>"),
    ("Message-Id", "<CAF+x=y_z@mail.gmail.com>"),
    ("Content-Transfer-Encoding", "7bit"),
    ("Content-Transfer-Encoding", "Quoted-Printable"),
    ("MIME-Version", "1.0"),
    ("MIME-Version", "01.00"),
]


def _same(name: str, value: str) -> None:
    quick = caps.quick_header(name, value)
    if quick is None:
        return
    stock: Any = caps._REGISTRY(name, value)
    assert str(quick) == str(stock)
    assert type(quick).__name__ == type(stock).__name__ and type(quick).__bases__[1:] == type(stock).__bases__
    quick_attrs: dict[str, Any] = {k: v for k, v in vars(quick).items() if k not in ("_tree", "_source")}
    stock_attrs: dict[str, Any] = {k: v for k, v in vars(stock).items() if k != "_parse_tree"}
    assert quick_attrs == stock_attrs
    assert quick.defects == stock.defects == ()
    assert quick._parse_tree.ppstr() == stock._parse_tree.ppstr()
    for policy in (email.policy.default, email.policy.SMTP, email.policy.default.clone(max_line_length=30)):
        assert quick.fold(policy=policy) == stock.fold(policy=policy)
    assert str(pickle.loads(pickle.dumps(quick))) == str(stock)


@pytest.mark.parametrize("name, value", PLAIN)
def test_plain_values_are_read_quickly_as_the_grammar_reads_them(name: str, value: str) -> None:
    assert caps.quick_header(name, value) is not None
    _same(name, value)


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(_NAMES), _VALUES)
@example("Content-Type", "text/plain; charset=utf-8; Charset=latin1")
@example("Content-Type", 'text/plain; charset="a=?utf-8?q?x?="')
@example("Content-Type", "text/plain;")
@example("Message-ID", "<a..b@c>")
@example("MIME-Version", "1.0 (produced by x)")
def test_a_quick_header_is_the_one_the_grammar_makes(name: str, value: str) -> None:
    _same(name, value)


_HEADS = st.lists(st.tuples(st.sampled_from(_NAMES[:-2] + ["X-Note"]), _VALUES), max_size=6)


@settings(max_examples=300, deadline=None)
@given(_HEADS, st.sampled_from(["text/plain", 'multipart/mixed; boundary="b1"', "text/html; charset=utf-8"]))
def test_a_mail_reads_the_same_with_quick_headers(heads: list[tuple[str, str]], ctype: str) -> None:
    lines = ["From: red@example.org", f"Content-Type: {ctype}"] + [f"{n}: {v}" for n, v in heads]
    body = "--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nGAME k1\r\n--b1--\r\n" if "b1" in ctype else "GAME k1\r\n"
    raw = ("\r\n".join(lines) + "\r\n\r\n" + body).encode("utf-8")
    quick = read_mail(raw)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(caps, "quick_header", lambda name, value: None)
        slow = read_mail(raw)
    assert quick == slow
    assert quick.parsed is not None and slow.parsed is not None
    try:
        written = slow.parsed.as_bytes()
    except Exception as exc:  # the package cannot write some mails back (8-bit headers): neither can the quick one
        with pytest.raises(type(exc)):
            quick.parsed.as_bytes()
    else:
        assert quick.parsed.as_bytes() == written
    assert _values(quick.parsed) == _values(slow.parsed)


def _values(msg: Any) -> list[str]:
    """Each header's text, or the error the package raises reading it (a Message-ID of "<")."""
    out = []
    for index in range(len(msg)):
        try:
            out.append(str(msg.policy.header_fetch_parse(*msg._headers[index])))
        except Exception as exc:
            out.append(type(exc).__name__)
    return out


@pytest.mark.parametrize("name", sorted(caps._PLAIN_VALUES))
def test_the_plain_value_patterns_grow_linearly(name: str) -> None:
    """Each plain-value pattern, every match at every position, on hostile runs of 10 KB and 100 KB
    (tests/mail/test_growth.py's rule; the dictionary's patterns are not in its sweep)."""
    from tests.mail import hostile

    pattern = caps._PLAIN_VALUES[name]
    for unit in ("a", "se", "a/a", "; a=", '; a="', "<a.", "1.", "a@"):
        small, large = hostile.grow(unit, hostile.SMALL), hostile.grow(unit, hostile.LARGE)
        ratio = hostile.growth(hostile.pattern_work(pattern, small), hostile.pattern_work(pattern, large), floor=0.001)
        assert ratio < hostile.MAX_RATIO, f"{name} on {unit!r}: 100 KB costs {ratio:.1f} times 10 KB"
