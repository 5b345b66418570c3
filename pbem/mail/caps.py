"""Caps on the work one inbound mail may cause, and the one parse of its MIME structure.

The standard ``email`` package is not linear on what a stranger can send: a Content-Type
with thousands of parameters, a From of thousands of encoded words, thousands of parts or
deeply nested multiparts each cost seconds to minutes (issues "Hostile mail" and "Security
review"). Everything here is linear in the size of the mail and bounded by the figures
below; a mail over a cap is still read (cut at the cap) and the cut is named by a key of
``messages.toml`` (``mail-cut-*``) so that the service can tell the sender.

Figures, and what each protects:

* ``MAX_HEADER_BYTES`` — the top header block (a real one is a few KB of Received lines);
  ``MAX_HEADER_FIELDS`` — the header fields decoded for the service;
* ``MAX_FIELD`` / ``MAX_ADDRESS_FIELD`` — one header's value (``From``, ``To``… are parsed
  by the address grammar, the costliest one);
* ``MAX_PARAMETERS`` — parameters of Content-Type / Content-Disposition;
* ``MAX_ENCODED_WORDS`` — ``=?…?=`` words in one header;
* ``MAX_IDS`` — message ids kept from References (the first and the latest ones);
* ``MAX_MULTIPARTS`` — multipart containers (``boundary=`` declarations), which bounds the
  nesting depth; ``MAX_PARTS`` — boundary lines, which bounds the number of parts;
  ``MAX_STATUS_GROUPS`` — the groups of a delivery-status part (the parser makes each a
  message of its own: a "bounce" of 5,000 recipients cost seconds);
* ``MAX_TEXT`` / ``MAX_HTML`` — the characters of the body text read, and of the HTML
  handed to the HTML-to-text conversion (an order block is a few KB).
"""

from __future__ import annotations

import email
import email.headerregistry
import email.policy
import logging
import re
from email.message import EmailMessage, Message
from typing import Any

from . import single

__all__ = [
    "ADDRESS_HEADERS",
    "MAX_ADDRESS_FIELD",
    "MAX_ENCODED_WORDS",
    "MAX_FIELD",
    "MAX_HEADER_BYTES",
    "MAX_HEADER_FIELDS",
    "MAX_HTML",
    "MAX_IDS",
    "MAX_MULTIPARTS",
    "MAX_PARAMETERS",
    "MAX_PARTS",
    "MAX_STATUS_GROUPS",
    "MAX_TEXT",
    "cap_raw",
    "parse_message",
    "parse_text",
]

log = logging.getLogger(__name__)

MAX_HEADER_BYTES = 128 * 1024
MAX_HEADER_FIELDS = 1_000
MAX_FIELD = 8 * 1024
MAX_ADDRESS_FIELD = 4 * 1024
MAX_PARAMETERS = 32
MAX_ENCODED_WORDS = 64
MAX_IDS = 50
MAX_MULTIPARTS = 32
MAX_PARTS = 100
MAX_STATUS_GROUPS = 50
MAX_TEXT = 200_000
MAX_HTML = 500_000

#: Headers read with the address grammar by the ``email`` package.
ADDRESS_HEADERS = frozenset({"from", "sender", "reply-to", "to", "cc", "bcc", "resent-from", "resent-sender",
                              "resent-to", "resent-cc", "resent-bcc", "return-path", "disposition-notification-to"})
_PARAMETER_HEADERS = frozenset({"content-type", "content-disposition"})
_ID_HEADERS = frozenset({"references", "in-reply-to"})


def _nth(text: str, needle: str, n: int) -> int:
    """Index of the ``n``-th occurrence (1-based) of ``needle`` in ``text``, or -1."""
    pos = -1
    for _ in range(n):
        pos = text.find(needle, pos + 1)
        if pos < 0:
            return -1
    return pos


def cap_value(name: str, value: str, notes: list[str] | None = None) -> str:
    """One header value cut to the caps (linear); a cut appends its key to ``notes``."""
    key = name.strip().lower()
    cut = False
    if key in _ID_HEADERS:
        ids = value.split()
        if len(ids) > MAX_IDS:  # RFC 5322 3.6.4: keep the first and the latest
            value = " ".join(ids[:1] + ids[len(ids) - MAX_IDS + 1:])
            cut = True
        if len(value) > MAX_FIELD:
            value = value[len(value) - MAX_FIELD:]
            cut = True
    limit = MAX_ADDRESS_FIELD if key in ADDRESS_HEADERS else MAX_FIELD
    if len(value) > limit:
        value = value[:limit]
        cut = True
    at = _nth(value, "=?", MAX_ENCODED_WORDS + 1)
    if at >= 0:
        value = value[:at]
        cut = True
    if key in _PARAMETER_HEADERS:
        at = _nth(value, ";", MAX_PARAMETERS + 1)
        if at >= 0:
            value = value[:at]
            cut = True
    if cut and notes is not None:
        log.info("header %s cut to the caps", key[:40])
        _note(notes, "mail-cut-header")
    return value


def _note(notes: list[str], key: str) -> None:
    if key not in notes:
        notes.append(key)


class Registry(email.headerregistry.HeaderRegistry):
    """The ``email`` package's header registry, with the class of each header name made
    once: the stock one builds a new class (``type(...)``) for every header it reads,
    which was most of the cost of reading a header. Same classes, same parse."""

    def __init__(self, use_default_map: bool = True) -> None:
        super().__init__(use_default_map=use_default_map)
        self._classes: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        key = name.lower()
        cls = self._classes.get(key)
        if cls is None:
            cls = self._classes[key] = super().__getitem__(key)
        return cls

    def map_to_type(self, name: str, cls: type) -> None:
        super().map_to_type(name, cls)
        self._classes.pop(name.lower(), None)


#: Shared by every parse: a header's class depends on its name only.
_REGISTRY = Registry()


# ------------------------------------------------------------- plain header values

class _LaterTree:
    """Mixin of the header classes `quick_header` makes: the parse tree is made from the value
    when first asked for (only folding the header asks; reading it never does)."""

    _source: str

    @property
    def _parse_tree(self) -> Any:
        tree = self.__dict__.get("_tree")
        if tree is None:
            tree = self.__dict__["_tree"] = type(self).value_parser(self._source)  # type: ignore[attr-defined]
        return tree

    @_parse_tree.setter
    def _parse_tree(self, tree: Any) -> None:
        self.__dict__["_tree"] = tree


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
#: Values the ``email`` grammar reads with no defect, and whose reading is known without it:
#: a bare type with plain parameters (a token, or a quoted string of printable ASCII without
#: quote or backslash: written back quoted); a message id of dot-atoms; a token; a version.
#: Each fully matched, with no repeat that can give characters back, and never tried again
#: inside a run it has read (linear, at every position too).
_PLAIN_VALUES: dict[str, re.Pattern[str]] = {
    "content-type": re.compile(
        r"(?<![A-Za-z0-9.+_-])([A-Za-z0-9][A-Za-z0-9.+_-]*+)/([A-Za-z0-9][A-Za-z0-9.+_-]*+)"
        r"((?:; ?[A-Za-z][A-Za-z0-9_-]*+=(?:[A-Za-z0-9._+-]++|\"[ !#-\[\]-~]*+\"))*+)"),
    "message-id": re.compile(rf"<{_ATEXT}(?:\.{_ATEXT})*+@[A-Za-z0-9-]++(?:\.[A-Za-z0-9-]++)*+>"),
    "content-transfer-encoding": re.compile(r"[A-Za-z0-9-]++"),
    "mime-version": re.compile(r"([0-9]{1,9})\.([0-9]{1,9})"),
}
_PARAMETER = re.compile(r'; ?([A-Za-z][A-Za-z0-9_-]*+)=(?:([A-Za-z0-9._+-]++)|"([ !#-\[\]-~]*+)")')
#: Per header class of the registry, its quick twin (same bases, and the tree made later).
_QUICK: dict[type, type] = {}


def quick_header(name: str, value: str) -> Any:
    """The header ``email.policy.default`` (our registry) makes of ``name: value``, made
    without its grammar when the value is plain (`_PLAIN_VALUES`): the same text, class
    bases and attributes, its parse tree made only if it is folded. None for any other
    value (tests/mail/test_quick_headers.py compares the two on generated values)."""
    key = name.lower()
    pattern = _PLAIN_VALUES.get(key)
    if pattern is None or not value.isascii():
        return None
    match = pattern.fullmatch(value)
    if match is None or "=?" in value:
        return None
    attributes: dict[str, Any] = {}
    text = value
    if key == "content-type":
        params: dict[str, str] = {}
        written: list[str] = []
        for found in _PARAMETER.finditer(match.group(3)):
            attribute = found.group(1)
            if attribute.lower() in params:
                return None  # a duplicate: the grammar notes a defect
            given = found.group(2) if found.group(2) is not None else found.group(3)
            params[attribute.lower()] = given
            written.append(f'{attribute}="{given}"' if given else attribute)  # as the grammar writes them back
        if written:
            text = f"{match.group(1)}/{match.group(2)}; " + "; ".join(written)
        attributes = {"_params": params, "_maintype": match.group(1).lower(), "_subtype": match.group(2).lower()}
    elif key == "content-transfer-encoding":
        attributes = {"_cte": value.lower()}
    elif key == "mime-version":
        major, minor = int(match.group(1)), int(match.group(2))
        attributes = {"_version": f"{major}.{minor}", "_major": major, "_minor": minor}
    stock = _REGISTRY[name]
    cls = _QUICK.get(stock)
    if cls is None:
        cls = _QUICK[stock] = type(stock.__name__, (_LaterTree, *stock.__bases__), {})
    header: Any = str.__new__(cls, text)
    header.__dict__.update(_name=name, _defects=[], _source=value, **attributes)
    return header


def unstructured(policy: object, name: str) -> bool:
    """Whether ``policy`` (one of `parse_message`'s) reads header ``name`` with the
    unstructured grammar (a Subject, a Received; not a Date or a Content-Type)."""
    return (getattr(policy, "header_factory", None) is _REGISTRY
            and issubclass(_REGISTRY[name], email.headerregistry.UnstructuredHeader))


class _CappedPolicy(email.policy.EmailPolicy):
    """``email.policy.default`` whose headers are cut to the caps as they are read, in
    every part: the costly header grammar never sees more than the caps allow. Each
    header value is parsed once per mail (``cap_fetched``): the service asks one part for
    its Content-Type a dozen times (the parser, ``get_body``, the charset, the classifier)."""

    cap_notes: list[str] | None = None
    cap_fetched: dict[tuple[str, str], Any] | None = None

    def header_source_parse(self, sourcelines: list[str]) -> tuple[str, str]:
        name, value = super().header_source_parse(sourcelines)
        return name, cap_value(name, value, self.cap_notes)

    def header_fetch_parse(self, name: str, value: str) -> Any:
        fetched = self.cap_fetched
        if fetched is None or hasattr(value, "name"):
            return super().header_fetch_parse(name, value)
        key = (name, value)
        header = fetched.get(key)
        if header is None:
            header = quick_header(name, value) if self.header_factory is _REGISTRY else None
            if header is None:
                header = super().header_fetch_parse(name, value)
            fetched[key] = header
        return header


def _policy(notes: list[str]) -> email.policy.EmailPolicy:
    base: Any = _CappedPolicy(header_factory=_REGISTRY)
    capped: email.policy.EmailPolicy = base.clone(cap_notes=notes, cap_fetched={})
    return capped


# ----------------------------------------------------------------- raw structure

def _header_end(raw: bytes) -> int:
    """Index just past the blank line ending the top header block, or -1."""
    ends = [i for i in (raw.find(b"\n\n"), raw.find(b"\n\r\n")) if i >= 0]
    if raw.startswith((b"\n", b"\r\n")):
        return 0
    return min(ends) if ends else -1


def _line_start(raw: bytes, pos: int) -> int:
    return raw.rfind(b"\n", 0, pos) + 1


def _boundaries(raw: bytes, lower: bytes, notes: list[str]) -> tuple[set[bytes], int]:
    """The declared boundaries, and where the mail must be cut (len(raw) when it need not)."""
    found: set[bytes] = set()
    count = 0
    pos = lower.find(b"boundary=")
    while pos >= 0:
        count += 1
        if count > MAX_MULTIPARTS:
            _note(notes, "mail-cut-parts")
            return found, _line_start(raw, pos)
        start = pos + len(b"boundary=")
        if raw[start:start + 1] == b'"':
            end = raw.find(b'"', start + 1, start + 202)
            value = raw[start + 1:end] if end > 0 else b""
        else:
            end = start
            while end < len(raw) and end - start < 200 and raw[end] not in b" \t\r\n;\"":
                end += 1
            value = raw[start:end]
        if value:
            found.add(value)
        pos = lower.find(b"boundary=", start)
    return found, len(raw)


def cap_raw(raw: bytes, notes: list[str] | None = None) -> bytes:
    """The mail cut to the structural caps (header bytes, multiparts, parts); linear.

    The cut mail is still a mail: the parser reads an unterminated multipart as far as it
    goes. Keys of the cuts are appended to ``notes``.
    """
    notes = [] if notes is None else notes
    head_end = _header_end(raw)
    head_len = len(raw) if head_end < 0 else head_end
    if head_len > MAX_HEADER_BYTES:
        # cut inside the line: its header is kept in part (and cut further to the caps)
        rest = raw[head_end + 1:] if head_end >= 0 else b""
        raw = raw[:MAX_HEADER_BYTES].rstrip(b"\r") + b"\n" + rest
        _note(notes, "mail-cut-header")
    lower = raw.lower()
    found, cut_at = _boundaries(raw, lower, notes)
    if found:
        seen = 0
        pos = 0 if raw.startswith(b"--") else raw.find(b"\n--")
        while 0 <= pos < cut_at:
            start = pos if pos == 0 and raw.startswith(b"--") else pos + 1
            end = raw.find(b"\n", start)
            line = raw[start + 2:end if end >= 0 else len(raw)].rstrip(b" \t\r")
            if line in found or (line.endswith(b"--") and line[:-2] in found):
                seen += 1
                if seen > MAX_PARTS:
                    _note(notes, "mail-cut-parts")
                    cut_at = start
                    break
            if end < 0:
                break
            pos = raw.find(b"\n--", end)
    raw = raw[:cut_at] if cut_at < len(raw) else raw
    return _cap_status_groups(raw, notes)


def _cap_status_groups(raw: bytes, notes: list[str]) -> bytes:
    """Delivery-status parts keep their first ``MAX_STATUS_GROUPS`` groups."""
    lower = raw.lower()
    pos = lower.find(b"delivery-status")
    pieces: list[bytes] = []
    done = 0
    while pos >= 0:
        head_end = raw.find(b"\n\n", pos)
        head_end_crlf = raw.find(b"\n\r\n", pos)
        ends = [i for i in (head_end, head_end_crlf) if i >= 0]
        if not ends:
            break
        body = min(ends) + 1
        stop = raw.find(b"\n--", body)
        stop = len(raw) if stop < 0 else stop
        groups = 0
        line = body
        cut = -1
        while line < stop:
            nl = raw.find(b"\n", line, stop)
            if nl < 0:
                break
            if raw[line:nl].strip() == b"":
                groups += 1
                if groups > MAX_STATUS_GROUPS:
                    cut = nl
                    break
            line = nl + 1
        if cut >= 0:
            pieces.append(raw[done:cut])
            done = stop
            _note(notes, "mail-cut-parts")
        pos = lower.find(b"delivery-status", max(stop, pos + 1))
    if not pieces:
        return raw
    pieces.append(raw[done:])
    return b"".join(pieces)


def parse_message(raw: bytes, notes: list[str] | None = None) -> Message:
    """Parse raw mail bytes once, under the caps; never raises (an unreadable mail is an
    empty message)."""
    notes = [] if notes is None else notes
    try:
        capped, policy = cap_raw(bytes(raw), notes), _policy(notes)
        # a single-part mail is made without the feed parser: the same message (pbem.mail.single)
        msg = single.parse(capped, policy)
        return msg if msg is not None else email.message_from_bytes(capped, policy=policy)
    except Exception:
        log.debug("unparseable mail", exc_info=True)
        return EmailMessage()


def parse_text(text: str, notes: list[str] | None = None) -> Message | None:
    """Parse a mail given as text (an attached original, a pasted copy) under the caps."""
    notes = [] if notes is None else notes
    try:
        data = text.encode("utf-8", "surrogateescape")
        return email.message_from_bytes(cap_raw(data, notes), policy=_policy(notes))
    except Exception:
        return None
