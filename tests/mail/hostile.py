"""Hostile input for the inbound path: adversarial strings that grow, and a corpus of
pathological mails. Shared by the growth and corpus tests and ``benchmarks/hostile_mail.py``.

Growth is measured, never timed against a clock: the same work on 10 KB and on 100 KB of
input, the larger must cost under ``MAX_RATIO`` times the smaller (linear work costs about
10 times). Each figure is the best of a few runs, each run repeated until it lasts a few
milliseconds, so that a busy machine does not make a linear path look quadratic.
"""

from __future__ import annotations

import base64
import gc
import importlib
import pkgutil
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pbem.games
import pbem.mail
from pbem.mail import address, bounce, caps, classify, envelope, htmltext, parse, quote
from pbem.mail.auth import check_authentication_results

SMALL = 10_000
LARGE = 100_000
MAX_RATIO = 20.0

#: What a stranger can repeat: blanks, line ends, dashes, tag starts, near-addresses,
#: parameters, encoded words, quote markers, reply prefixes, status-code look-alikes.
#: The benchmark runs every pattern on all of them; the tests on ``QUICK_UNITS``.
UNITS: tuple[str, ...] = (
    " ", "\n", " \n", "\t\n", "-", "-\n", "<a", "</", "<?", "<!--", "a", "a@", "a@a.", "a.", "=?", "a=b; ",
    "=?utf-8?q?a?= ", "> ", "re: ", "\"", "a=\"", "4.4.", "<a@a ", "message-id: <a@a>\n", ":",
)

QUICK_UNITS: tuple[str, ...] = (" ", "\n", " \n", "-", "<a", "a@", "a=\"", "=?utf-8?q?a?= ", "> ", ":", "re: ")


def grow(unit: str, size: int) -> str:
    """``unit`` repeated to ``size`` characters."""
    return (unit * (size // len(unit) + 1))[:size]


# ----------------------------------------------------------------------- measuring

def _seconds(fn: Callable[[], object], loops: int) -> float:
    """CPU seconds of ``loops`` calls: this thread's own time, so that neither other work on
    a busy machine nor another thread of this process (a mail server an earlier test left
    running in the same test worker) counts. The garbage collector waits meanwhile: a full
    collection walks every object the test session holds, a cost of the session's size
    that lands on whichever call happens to trigger it, not of the input's. Nothing is
    collected before, either: disabled, it cannot run inside the timing, and a collection
    before each timing cost more than the timings (~20 ms each, three a unit and size)."""
    gc.disable()
    try:
        start = time.thread_time()
        for _ in range(loops):
            fn()
        return time.thread_time() - start
    finally:
        gc.enable()


def _loops(fn: Callable[[], object], floor: float) -> int:
    once = _seconds(fn, 1)
    return max(1, min(1 << 14, int(floor / max(once, 1e-7)) + 1))


def growth(small: Callable[[], object], large: Callable[[], object], *, best_of: int = 3,
           floor: float = 0.002) -> float:
    """Cost of ``large`` over cost of ``small``, each repeated so that the small one lasts
    about ``floor`` CPU seconds. One quick round first; a ratio over half the limit is
    measured again, the best of ``best_of`` rounds for each size, the sizes taking turns."""
    loops = _loops(small, floor)
    ratio = _seconds(large, loops) / max(_seconds(small, loops), 1e-9)
    if ratio < MAX_RATIO / 2:
        return ratio
    smalls: list[float] = []
    larges: list[float] = []
    for _ in range(best_of):  # in turn, so that a busy spell of the machine weighs on both sizes alike
        smalls.append(_seconds(small, loops))
        larges.append(_seconds(large, loops))
    ratio = min(larges) / max(min(smalls), 1e-9)
    if ratio >= MAX_RATIO and floor < 0.05:  # again, longer (up to 50 ms): a loaded machine, or real
        return growth(small, large, best_of=best_of + 2, floor=floor * 5)
    return ratio


# ----------------------------------------------------------------------- patterns

def _modules(package: object) -> Iterator[object]:
    path = getattr(package, "__path__")
    for info in pkgutil.walk_packages(path, getattr(package, "__name__") + "."):
        if info.name.rsplit(".", 1)[-1] in ("embedded", "imap", "smtp", "transport"):
            continue  # the network layer: no pattern there sees a mail's text
        yield importlib.import_module(info.name)


def inbound_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every compiled pattern at module level in ``pbem.mail`` and in the games' order
    parsers (``pbem.games.*.orders``, checked, never changed here)."""
    found: dict[str, re.Pattern[str]] = {}
    modules = list(_modules(pbem.mail))
    modules += [m for m in _modules(pbem.games) if getattr(m, "__name__", "").endswith(".orders")]
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                found[f"{getattr(module, '__name__')}.{name}"] = value
    return sorted(found.items())


def pattern_work(pattern: re.Pattern[str], text: str) -> Callable[[], object]:
    """The most a caller can ask of a pattern: every match at every position."""
    return lambda: sum(1 for _ in pattern.finditer(text))


# --------------------------------------------------------------------- entry points

def _mail(headers: str, body: str = "hi\n") -> bytes:
    return (headers + "\n\n" + body).encode("utf-8", "surrogateescape")


def _bounce_mail(body: str) -> bytes:
    return _mail("From: MAILER-DAEMON@mx.example\nSubject: Undelivered Mail Returned to Sender\n"
                 "Message-ID: <b@mx.example>", body)


def _html_mail(html: str) -> bytes:
    data = base64.encodebytes(html.encode("utf-8")).decode("ascii")
    return _mail("From: anna@example.org\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n"
                 "Content-Transfer-Encoding: base64", data)


def _parts(n: int) -> str:
    return "".join("--B\nContent-Type: text/plain\n\nx\n" for _ in range(n)) + "--B--\n"


def _nested(n: int) -> str:
    return "".join(f"--B{i}\nContent-Type: multipart/mixed; boundary=B{i + 1}\n\n" for i in range(n)) + "x\n"


def _read(raw: bytes) -> object:
    return parse.read_mail(raw)


def _bounce(raw: bytes) -> object:
    mail = parse.read_mail(raw)
    return bounce.parse_bounce(mail, raw)


def _classify(raw: bytes) -> object:
    mail = parse.read_mail(raw)
    return classify.machine_reason(mail, raw=raw), bounce.is_bounce(mail)


@dataclass(frozen=True)
class EntryPoint:
    """One path a stranger's bytes reach, given an input of about ``size`` characters."""

    name: str
    make: Callable[[int], object]
    run: Callable[[object], object]


def _text(fn: Callable[[str], object]) -> Callable[[object], object]:
    return lambda value: fn(str(value))


def _raw(fn: Callable[[bytes], object]) -> Callable[[object], object]:
    return lambda value: fn(value if isinstance(value, bytes) else str(value).encode())


def entry_points() -> list[EntryPoint]:
    """The inbound entry points with the input that hurt each of them (issues 20 and 24)."""
    points = [
        EntryPoint("read_mail: Content-Type a=b; parameters",
                   lambda n: _mail("From: a@example.org\nContent-Type: text/plain; " + grow("a=b; ", n)), _raw(_read)),
        EntryPoint("read_mail: encoded words in From",
                   lambda n: _mail("From: " + grow("=?utf-8?q?a?= ", n) + "<a@example.org>"), _raw(_read)),
        EntryPoint("read_mail: encoded words in Subject",
                   lambda n: _mail("From: a@example.org\nSubject: " + grow("=?utf-8?q?a?= ", n)), _raw(_read)),
        EntryPoint("read_mail: From without @",
                   lambda n: _mail("From: " + grow("a", n)), _raw(_read)),
        EntryPoint("read_mail: From of near-addresses",
                   lambda n: _mail("From: " + grow("a@a@", n)), _raw(_read)),
        EntryPoint("read_mail: To of many addresses",
                   lambda n: _mail("From: a@example.org\nTo: " + grow("a@b.c, ", n)), _raw(_read)),
        EntryPoint("read_mail: References of many ids",
                   lambda n: _mail("From: a@example.org\nReferences: " + grow("<a1@x>\n ", n)), _raw(_read)),
        EntryPoint("read_mail: many header lines",
                   lambda n: _mail("From: a@example.org\n" + grow("X-A: b\n", n).rstrip("\n")), _raw(_read)),
        EntryPoint("read_mail: many parts",
                   lambda n: _mail("From: a@example.org\nContent-Type: multipart/mixed; boundary=B",
                                   _parts(n // 32)), _raw(_read)),
        EntryPoint("read_mail: nested multiparts",
                   lambda n: _mail("From: a@example.org\nContent-Type: multipart/mixed; boundary=B0",
                                   _nested(n // 52)), _raw(_read)),
        EntryPoint("read_mail: HTML <a runs", lambda n: _html_mail(grow("<a", n)), _raw(_read)),
        EntryPoint("read_mail: blank lines", lambda n: _mail("From: a@example.org", grow("\n", n)), _raw(_read)),
        EntryPoint("classify: blank lines and reply headers",
                   lambda n: _mail("From: a@example.org", grow("On x wrote:\n\n", n)), _raw(_classify)),
        EntryPoint("classify: re: prefixes of a Subject", lambda n: grow("re: ", n),
                   _text(classify._subject_prefixes)),
        EntryPoint("parse_bounce: blank lines", lambda n: _bounce_mail(grow("\n", n)), _raw(_bounce)),
        EntryPoint("parse_bounce: blank-looking lines", lambda n: _bounce_mail(grow(" \n", n)), _raw(_bounce)),
        EntryPoint("parse_bounce: dashes", lambda n: _bounce_mail(grow("-", n)), _raw(_bounce)),
        EntryPoint("parse_bounce: Message-ID lines",
                   lambda n: _bounce_mail(grow("Message-ID: <a@b>\n", n)), _raw(_bounce)),
        EntryPoint("parse_bounce: near-addresses", lambda n: _bounce_mail("<" + grow("a@", n)), _raw(_bounce)),
        EntryPoint("parse_bounce: sendmail dashes",
                   lambda n: _bounce_mail(grow("-", n) + " the following addresses had permanent fatal errors "),
                   _raw(_bounce)),
        EntryPoint("parse_envelope: order lines", lambda n: "GAME k1\nSEAT a b\n" + grow("x\n", n), _text(envelope.parse_envelope)),
        EntryPoint("parse_envelope: one long line", lambda n: "GAME k1\nSEAT a b\n" + grow("x", n), _text(envelope.parse_envelope)),
        EntryPoint("parse_envelope: quote markers", lambda n: "> GAME k1\n" + grow("> > \n", n), _text(envelope.parse_envelope)),
        EntryPoint("parse_envelope: blanks", lambda n: grow(" ", n) + "\nGAME k1\nEND", _text(envelope.parse_envelope)),
        EntryPoint("strip_quotes: dashes and underscores", lambda n: grow("--\n__________\n", n), _text(parse.strip_quotes)),
        EntryPoint("html_to_text: <a", lambda n: grow("<a", n), _text(htmltext.html_to_text)),
        EntryPoint("html_to_text: </", lambda n: grow("</", n), _text(htmltext.html_to_text)),
        EntryPoint("html_to_text: <?", lambda n: grow("<?", n), _text(htmltext.html_to_text)),
        EntryPoint("html_to_text: <!--", lambda n: grow("<!--", n), _text(htmltext.html_to_text)),
        EntryPoint("html_to_text: <!--x>", lambda n: grow("<!--x>", n), _text(htmltext.html_to_text)),
        EntryPoint("html_to_text: <a x=\"", lambda n: grow("<a x=\"", n) + ">", _text(htmltext.html_to_text)),
        EntryPoint("html_to_text: <script", lambda n: grow("<script>", n), _text(htmltext.html_to_text)),
        EntryPoint("html_to_text: tags", lambda n: grow("<p class=a>x</p>", n), _text(htmltext.html_to_text)),
        EntryPoint("parse_from: commas in quotes", lambda n: '"' + grow("a,", n), _text(lambda v: address.parse_from((v,)))),
        EntryPoint("parse_from: comments", lambda n: grow("(a", n), _text(lambda v: address.parse_from((v,)))),
        EntryPoint("find_address: near-addresses", lambda n: grow("a@a.", n), _text(address.find_address)),
        EntryPoint("normalise_message_id: long", lambda n: "<" + grow("a@", n), _text(parse.normalise_message_id)),
        EntryPoint("safe_quote: bidi", lambda n: grow("\u202e", n), _text(quote.safe_quote)),
        EntryPoint("content_key: header lines", lambda n: grow("a: b\n ", n).encode(), _raw(parse.content_key)),
        EntryPoint("authentication results: blanks",
                   lambda n: grow(" ", n), _text(lambda v: check_authentication_results([v], "mx.example", "a.org"))),
    ]
    for kind in ("arditi", "blockmania", "corteo", "kriegspiel", "seattle"):
        orders = importlib.import_module(f"pbem.games.{kind}.orders")
        for unit, label in (("x" * 49 + "\n", "junk lines"), (" ", "blanks"), ("a-", "one long line"), ("1 ", "numbers")):
            points.append(EntryPoint(f"{kind} parse_text: {label}", lambda n, u=unit: grow(u, n),
                                     _text(orders.parse_text)))
    return points


# --------------------------------------------------------------------- the corpus

def _multipart(ctype: str, boundary: str, parts: list[str]) -> str:
    body = "".join(f"--{boundary}\n{p}\n" for p in parts) + f"--{boundary}--\n"
    return f"Content-Type: {ctype}; boundary={boundary}\n\n{body}"


def pathological_mails() -> Iterator[tuple[str, bytes]]:
    """Mails no client writes and an attacker would: each one is handled under the caps."""
    head = "From: anna@example.org\nTo: pbem@localhost\nMessage-ID: <h@example.org>\nSubject: orders\n"
    yield "nested multiparts x2000", (head + "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B0\n\n"
                                      + _nested(2000)).encode()
    yield "parts x20000", (head + "Content-Type: multipart/mixed; boundary=B\n\n" + _parts(20_000)).encode()
    yield "parameter bomb", (head.replace("Subject: orders\n", "") + "Content-Type: text/plain; "
                             + "a=b; " * 20_000 + "\n\nGAME k1\nEND\n").encode()
    yield "disposition parameter bomb", (head + "Content-Type: multipart/mixed; boundary=B\n\n--B\n"
                                         "Content-Disposition: attachment; " + "a=b; " * 20_000
                                         + "\n\nx\n--B--\n").encode()
    yield "encoded words in From", ("From: " + "=?utf-8?q?a?= " * 20_000 + "<a@example.org>\nSubject: x\n\nhi\n").encode()
    yield "encoded words in Subject", (head.replace("Subject: orders", "Subject: " + "=?utf-8?q?a?= " * 20_000)
                                       + "\nhi\n").encode()
    yield "From of 40,000 characters without @", ("From: " + "a" * 40_000 + "\n\nhi\n").encode()
    yield "References x20000", (head + "References: " + " ".join(f"<{i}@x>" for i in range(20_000))
                                + "\n\nhi\n").encode()
    yield "HTML bomb <a x100000", _html_mail("<a" * 100_000)
    yield "HTML bomb </ x100000", _html_mail("</" * 100_000)
    yield "HTML bomb <!-- x50000", _html_mail("<!--x>" * 50_000)
    yield "HTML 5 MB of tags", _html_mail("<p class=gmail_quote><b>x</b></p>" * 150_000)
    yield "one 5 MB line", (head + "\n" + "GAME k1 " + "x" * 5_000_000 + "\n").encode()
    yield "500,000 order lines", (head + "\nGAME k1\nSEAT a b\n" + "x\n" * 500_000 + "END\n").encode()
    yield "broken base64", (head + "Content-Transfer-Encoding: base64\n\n" + "!!!*" * 100_000 + "\n").encode()
    yield "broken quoted-printable", (head + "Content-Transfer-Encoding: quoted-printable\n\n" + "=Z=\n" * 100_000).encode()
    yield "undeclared 8-bit and unknown charset", (head + "Content-Type: text/plain; charset=x-nothing\n\n").encode() + (
        b"\xff\xfe\x80" * 300_000)
    yield "headers only, 2 MB", (head + "X-A: " + "b" * 2_000_000).encode()
    yield "bounce of 25,000 blank lines", _bounce_mail("\n" * 25_000)
    yield "bounce of 20,000 Message-ID lines", _bounce_mail("".join(f"Message-ID: <{i}@x>\n" for i in range(20_000)))
    yield "bounce of dashes", _bounce_mail("-" * 200_000 + "\nthe following addresses had permanent fatal errors\n")
    yield "DSN with 5,000 recipients", (
        "From: MAILER-DAEMON@mx.example\nSubject: Undelivered\nMIME-Version: 1.0\n"
        + _multipart("multipart/report; report-type=delivery-status", "R", [
            "Content-Type: text/plain\n\nfailed",
            "Content-Type: message/delivery-status\n\nReporting-MTA: dns; mx\n\n"
            + "".join(f"Final-Recipient: rfc822; a{i}@x.org\nAction: failed\nStatus: 5.1.1\n\n" for i in range(5_000)),
        ])).encode()
    yield "10 MB mail", (head + "Content-Type: text/plain\n\n" + ("GAME k1 x\n" * 1_000_000)).encode()
