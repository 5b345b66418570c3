"""Reading what players send: raw bytes in, one tolerant ``IncomingMail`` out.

``read_mail`` never raises, whatever the bytes: a mail that cannot be understood still
gets a dedupe key, a (possibly empty) text and the headers that could be read.
"""

from __future__ import annotations

import codecs
import dataclasses
import email.header
import email.utils
import hashlib
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from email.message import EmailMessage, Message
from types import MappingProxyType

from . import caps
from .address import find_address, parse_from, parse_mailbox, split_mailboxes
from .htmltext import html_to_text

__all__ = [
    "IncomingMail",
    "decode_part",
    "html_to_text",
    "normalise_message_id",
    "written_message_id",
    "raw_header_values",
    "read_mail",
    "strip_quotes",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IncomingMail:
    """A received mail, decoded as far as it can be.

    ``headers`` maps lower-case header names to every value (decoded to str) in order.
    ``sender`` is the bare From address, lower-cased (None when missing or unreadable);
    ``return_path`` is the Return-Path address, ``""`` for the null sender ``<>`` and None
    when the header is absent.

    ``sender_problem`` says why there is no sender (a key of ``messages.toml``:
    ``from-missing``, ``from-not-one``, ``from-unreadable``; see ``pbem.mail.address``);
    ``truncated`` lists the caps the mail hit (``mail-cut-*`` keys, see ``pbem.mail.caps``):
    it was read only up to them. ``parsed`` is the one parse of the raw bytes, kept so that
    the classifier and the bounce reader need not parse the mail again; it takes no part in
    equality or repr.
    """

    message_id: str | None
    dedupe_key: str
    sender: str | None
    sender_name: str
    return_path: str | None
    subject: str
    date: datetime | None
    in_reply_to: str | None
    references: tuple[str, ...]
    headers: Mapping[str, tuple[str, ...]]
    size: int
    text: str
    content_type: str = "text/plain"
    html: str | None = None
    attachments: tuple[tuple[str, str, int], ...] = field(default=())
    sender_problem: str | None = None
    truncated: tuple[str, ...] = ()
    parsed: Message | None = field(default=None, compare=False, repr=False)
    #: The Message-ID exactly as the sender's client wrote it (``message_id`` has its domain
    #: lower-cased, for matching): replies name their parent by this one, so that clients
    #: which compare ids letter by letter (Outlook's upper-case hosts) thread them.
    written_id: str | None = None

    def header(self, name: str) -> str | None:
        """The first value of a header (case-insensitive name), or None."""
        values = self.headers.get(name.lower())
        return values[0] if values else None

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled without ``parsed`` (the mail reader's process hands its reading to the
        daemon, `pbem.service.budget.Reading`; a parse tree would cost more to send than to
        make), its headers as a plain dict (a mapping proxy cannot be pickled)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "parsed"}
        fields["headers"] = dict(self.headers)
        return (_unpickled, (fields,))


def _unpickled(fields: dict[str, Any]) -> IncomingMail:
    return IncomingMail(**{**fields, "headers": MappingProxyType(fields["headers"])})


# ---------------------------------------------------------------------------- ids

_MSGID_RE = re.compile(r"<([^<>\s]+)>")


def normalise_message_id(value: str | None) -> str | None:
    """``<Local@Example.COM>`` → ``<Local@example.com>``; None for empty values.

    Whitespace and folding are removed; a value without angle brackets is wrapped; the
    domain part is lower-cased (the local part is case-sensitive by the RFC).
    """
    if not value:
        return None
    text = "".join(str(value).split())
    if not text:
        return None
    match = _MSGID_RE.search(text)
    core = match.group(1) if match else text.strip("<>")
    if not core:
        return None
    local, at, domain = core.rpartition("@")
    if at:
        core = f"{local}@{domain.lower()}"
    return f"<{core}>"


def written_message_id(value: str | None) -> str | None:
    """The Message-ID as written (whitespace and folding removed), or None where it does
    not name the same id as `normalise_message_id` reads."""
    normal = normalise_message_id(value)
    if normal is None:
        return None
    text = "".join(str(value).split())
    match = _MSGID_RE.search(text)
    core = match.group(1) if match else text.strip("<>")
    written = f"<{core}>"
    return written if normalise_message_id(written) == normal else normal


def _id_list(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    found = _MSGID_RE.findall("".join(value.split("\n")))
    result: dict[str, None] = {}  # ordered, and a set: 20,000 ids were quadratic in a list
    for item in found:
        norm = normalise_message_id(f"<{item}>")
        if norm:
            result.setdefault(norm)
    return tuple(result)


# ------------------------------------------------------------------------ headers

def _header_values(msg: Message, notes: list[str] | None = None) -> dict[str, tuple[str, ...]]:
    headers: dict[str, list[str]] = {}
    try:
        items = msg.raw_items() if isinstance(msg, EmailMessage) else msg.items()
        names = [(name, raw) for name, raw in items]
    except Exception:  # pragma: no cover - defensive
        names = []
    if len(names) > caps.MAX_HEADER_FIELDS:
        names = names[:caps.MAX_HEADER_FIELDS]
        if notes is not None:
            notes.append("mail-cut-header")
    for index, (name, raw) in enumerate(names):
        value = _decode_header_value(msg, index, raw)
        headers.setdefault(str(name).lower(), []).append(value)
    return {k: tuple(v) for k, v in headers.items()}


#: Address headers are shown as unstructured text: the address grammar of the ``email``
#: package costs about a millisecond per address, and the From address is read elsewhere.
_AS_TEXT = caps.Registry(use_default_map=False)


def _plain(value: object) -> bool:
    """A value the unstructured header grammar gives back as it is (ASCII, no encoded
    word): read without it."""
    return isinstance(value, str) and value.isascii() and "=?" not in value


def _decode_header_value(msg: Message, index: int, raw: object) -> str:
    try:
        policy = msg.policy
        name, value = msg._headers[index]  # type: ignore[attr-defined]
        if str(name).lower() in caps.ADDRESS_HEADERS and isinstance(value, str):
            value = "".join(value.splitlines())
            text = value if _plain(value) else str(_AS_TEXT(name, value))
        elif _plain(value) and caps.unstructured(policy, name):
            text = value.replace("\r", "").replace("\n", "")
        else:
            text = str(policy.header_fetch_parse(name, value))
    except Exception:
        try:
            text = str(email.header.make_header(email.header.decode_header(str(raw))))
        except Exception:
            text = str(raw)
    text = _c1_as_cp1252(text.replace("\r", "").replace("\n", " "))
    if not text.isprintable():  # the usual header is: no walk over its characters
        text = "".join(ch if ch.isprintable() or ch == "\t" else " " for ch in text)
    return text.strip()


def raw_header_values(msg: Message, name: str) -> tuple[str, ...]:
    """Every value of a header as it was sent (unfolded, nothing decoded): the From
    address is read from this, never from the decoded text."""
    wanted = name.lower()
    try:
        items = msg.raw_items() if isinstance(msg, EmailMessage) else msg.items()
        return tuple("".join(str(value).splitlines()).strip() for key, value in items
                     if str(key).lower() == wanted)
    except Exception:  # pragma: no cover - defensive
        return ()


def _return_path(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip()
    if text in ("<>", "", "< >"):
        return ""
    items, _ = split_mailboxes(text)
    addr = parse_mailbox(items[0])[1] if items else None
    if addr is None:
        addr = find_address(text)
    if addr is None:
        return text.strip("<> ").lower()
    return addr


def _parse_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except Exception:
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when


# --------------------------------------------------------------------------- body

def _charset_ok(name: str) -> bool:
    try:
        codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return False
    return True


def decode_part(part: Message) -> str:
    """The text of one MIME part with the fallbacks players' clients need.

    Declared charset first; an unknown charset is read as UTF-8 with replacement; if
    replacement characters appear that the bytes did not contain, retry as UTF-8 and then
    as cp1252 (the usual lie: ``us-ascii`` or ``iso-8859-1`` declared, Windows text sent).
    """
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if payload is None:
        try:
            raw = part.get_payload()
        except Exception:
            return ""
        if isinstance(raw, str):
            payload = raw.encode("utf-8", "surrogateescape")
        else:
            return ""
    if not isinstance(payload, (bytes, bytearray)):
        return ""
    data = bytes(payload)
    try:
        declared = part.get_content_charset() or "us-ascii"
    except Exception:
        declared = "us-ascii"
    charset = declared if _charset_ok(declared) else "utf-8"
    if charset.lower().replace("_", "-") in ("us-ascii", "ascii", "ansi-x3.4-1968"):
        charset = "utf-8"  # ascii is a subset; 8-bit bytes are usually UTF-8 or cp1252
    try:
        text = data.decode(charset, errors="replace")
    except Exception:
        text = data.decode("utf-8", errors="replace")
    if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
        for fallback in ("utf-8", "cp1252"):
            try:
                text = data.decode(fallback)
                break
            except UnicodeDecodeError:
                continue
        else:
            text = data.decode("cp1252", errors="replace")
    return _c1_as_cp1252(text).replace("\r\n", "\n").replace("\r", "\n")


_C1 = re.compile("[\x80-\x9f]")


def _c1_as_cp1252(text: str) -> str:
    """C1 control characters in text declared ISO-8859-1 are Windows-1252 punctuation
    (Outlook's en dash is =96), as browsers read them."""
    if not _C1.search(text):
        return text
    return _C1.sub(_cp1252_char, text)


def _cp1252_char(match: re.Match[str]) -> str:
    try:
        return bytes([ord(match.group())]).decode("cp1252")
    except UnicodeDecodeError:  # the five bytes cp1252 leaves undefined stay as they were
        return match.group()


# ------------------------------------------------------------------- quotes / sigs

_IT_START = re.compile(r"^\s*il\s", re.IGNORECASE)
_IT_END = re.compile(r"ha\s+scritto\s*(?::\s*)?$", re.IGNORECASE)
_EN_START = re.compile(r"^\s*on\s", re.IGNORECASE)
_EN_END = re.compile(r"wrote\s*(?::\s*)?$", re.IGNORECASE)
_ORIGINAL = re.compile(
    r"^\s*-{2,}\s*(original message|messaggio originale|forwarded message|"
    r"messaggio inoltrato)\s*-{2,}\s*$", re.IGNORECASE)
_UNDERSCORES = re.compile(r"^\s*_{10,}\s*$")
# never two "\s*" with only an optional part between them: "\s*\**\s*" tried every split
# of a line of blanks between the two (quadratic)
_HDR_FROM = re.compile(r"^\s*(?:\*+\s*)?(from|da)\s*:", re.IGNORECASE)
_HDR_NEXT = re.compile(
    r"^\s*(?:\*+\s*)?(sent|inviato|date|data|to|a|subject|oggetto|cc)\s*:", re.IGNORECASE)


#: What every reply header's first line starts with (a prefix of each pattern above, same
#: flags): a line that does not is none, read with one match instead of six. Never tried
#: inside a run of blanks it has read (linear at every position too).
_MAYBE_HEADER = re.compile(r"(?<!\s)\s*+(?:il\s|on\s|-{2}|_{10}|\*|from|da)", re.IGNORECASE)


#: `_MAYBE_HEADER` at the start of each line of a whole text (a line's blanks are the blanks
#: but "\n"): the lines a reply header may start at, found by one scan instead of one match a
#: line. Possessive, and no piece matches a "\n": linear, each try within one line.
_MAYBE_HEADER_LINE = re.compile(r"^[^\S\n]*+(?:il[^\S\n]|on[^\S\n]|-{2}|_{10}|\*|from|da)",
                                re.IGNORECASE | re.MULTILINE)


def _reply_header_at(lines: list[str], i: int) -> bool:
    line = lines[i]
    if not _MAYBE_HEADER.match(line) or line.lstrip().startswith(">"):
        return False
    for start, end in ((_IT_START, _IT_END), (_EN_START, _EN_END)):
        if start.match(line):
            joined = ""
            for j in range(i, min(i + 3, len(lines))):
                joined = (joined + " " + lines[j]).strip()
                if end.search(joined):
                    return True
                if j > i and not lines[j].strip():
                    break
    if _ORIGINAL.match(line):
        return True
    if _HDR_FROM.match(line) or _UNDERSCORES.match(line):
        nxt = [lines[j] for j in range(i + 1, min(i + 5, len(lines))) if lines[j].strip()]
        if _UNDERSCORES.match(line):
            return bool(nxt) and bool(_HDR_FROM.match(nxt[0]))
        return sum(1 for n in nxt[:3] if _HDR_NEXT.match(n)) >= 2
    return False


def cut_reply(text: str) -> tuple[str, str]:
    """Split ``text`` at the first reply header (Gmail, Outlook, Thunderbird, Apple).

    Returns (own part, quoted rest); the rest is "" when no header was found.
    """
    lines = text.split("\n")
    i = at = 0
    for found in _MAYBE_HEADER_LINE.finditer(text):  # the lines `_reply_header_at` may say yes to
        i += text.count("\n", at, found.start())
        at = found.start()
        if _reply_header_at(lines, i):
            return "\n".join(lines[:i]), "\n".join(lines[i:])
    return text, ""


def strip_quotes(text: str) -> str:
    """The sender's own words: cut at a reply header or a ``-- `` signature line, drop
    ``>`` quoted lines and trailing blank lines."""
    own, _ = cut_reply(text.replace("\r\n", "\n").replace("\r", "\n"))
    kept: list[str] = []
    for line in own.split("\n"):
        if line in ("-- ", "--"):
            break
        if line.lstrip().startswith(">"):
            continue
        kept.append(line.rstrip())
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)


# ----------------------------------------------------------------------- read_mail

def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:
        return "text/plain"


def _is_attachment(part: Message) -> bool:
    try:
        disposition = (part.get_content_disposition() or "").lower()
    except Exception:
        disposition = ""
    return disposition == "attachment"


def _own_parts(msg: Message) -> Iterator[Message]:
    """The mail's own parts: never inside an attached mail (message/rfc822), whose text is
    somebody else's (a forwarded welcome carries a seat's secret)."""
    yield msg
    if msg.is_multipart() and not _content_type(msg).startswith("message/"):
        payload = msg.get_payload()
        if isinstance(payload, list):
            for sub in payload:
                if isinstance(sub, Message) and not _content_type(sub).startswith("message/"):
                    yield from _own_parts(sub)


def _pick_bodies(msg: Message) -> tuple[Message | None, Message | None]:
    plain: Message | None = None
    html: Message | None = None
    if isinstance(msg, EmailMessage):
        try:
            plain = msg.get_body(preferencelist=("plain",))
        except Exception:
            plain = None
        try:
            html = msg.get_body(preferencelist=("html",))
        except Exception:
            html = None
    if plain is None or html is None:
        try:
            parts = list(_own_parts(msg))
        except Exception:
            parts = [msg]
        for part in parts:
            ctype = _content_type(part)
            if _is_attachment(part):
                continue
            if plain is None and ctype == "text/plain":
                plain = part
            elif html is None and ctype == "text/html":
                html = part
    return plain, html


def _attachments(msg: Message) -> tuple[tuple[str, str, int], ...]:
    result = []
    try:
        for part in msg.walk():
            if part.is_multipart():
                continue
            try:
                filename = part.get_filename()
            except Exception:
                filename = None
            if filename is None and not _is_attachment(part):
                continue
            try:
                data = part.get_payload(decode=True) or b""
            except Exception:
                data = b""
            result.append((str(filename or ""), _content_type(part), len(data)))
    except Exception:
        pass
    return tuple(result)


#: The headers the author's client writes; each delivery adds its own trace headers
#: (Received, Return-Path, Delivered-To) on top, which must not change the key.
_AUTHOR_HEADERS = (b"from", b"sender", b"to", b"cc", b"subject", b"date", b"in-reply-to", b"references",
                   b"content-type", b"content-transfer-encoding")


def content_key(raw: bytes) -> str:
    """The dedupe key of a mail without a Message-ID: the author's headers and the body,
    so that the same mail delivered twice (with new trace headers) has the same key."""
    head, sep, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    if not sep:
        head, body = b"", head
    fields: dict[bytes, list[list[bytes]]] = {}  # pieces joined once: += on bytes was quadratic
    current: bytes | None = None
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t") and current is not None:
            fields[current][-1].append(line.strip())
            continue
        name, colon, value = line.partition(b":")
        current = name.strip().lower() if colon else None
        if current is not None:
            fields.setdefault(current, []).append([value.strip()])
    h = hashlib.sha256()
    for name in _AUTHOR_HEADERS:
        for pieces in fields.get(name, []):
            h.update(name + b":" + b" ".join(pieces) + b"\n")
    h.update(b"\n" + body)
    return "content:" + h.hexdigest()


def read_mail(raw: bytes) -> IncomingMail:
    """Parse one raw mail, once, under the caps of ``pbem.mail.caps``; never raises."""
    raw = bytes(raw)
    notes: list[str] = []
    msg = caps.parse_message(raw, notes)
    headers = _header_values(msg, notes)

    def first(name: str) -> str | None:
        values = headers.get(name)
        return values[0] if values else None

    message_id = normalise_message_id(first("message-id"))
    author = parse_from(raw_header_values(msg, "from"))
    plain, html_part = _pick_bodies(msg)
    html_text = decode_part(html_part) if html_part is not None else None
    if html_text is not None and len(html_text) > caps.MAX_HTML:
        html_text = html_text[:caps.MAX_HTML]
        notes.append("mail-cut-html")
    if plain is not None:
        text = decode_part(plain)
    elif html_text is not None:
        text = html_to_text(html_text)
    else:
        text = ""
    if msg.is_multipart() is False and not text and _content_type(msg).startswith("text/"):
        text = decode_part(msg)
    if len(text) > caps.MAX_TEXT:
        text = text[:caps.MAX_TEXT]
        notes.append("mail-cut-text")
    in_reply = _id_list(first("in-reply-to"))
    return IncomingMail(
        message_id=message_id,
        written_id=written_message_id(first("message-id")),
        dedupe_key=message_id or content_key(raw),
        sender=author.address,
        sender_name=author.name,
        return_path=_return_path(first("return-path")),
        subject=first("subject") or "",
        date=_parse_date(first("date")),
        in_reply_to=in_reply[0] if in_reply else None,
        references=_id_list(" ".join(headers.get("references", ()))),
        headers=MappingProxyType(headers),
        size=len(raw),
        text=text,
        content_type=_content_type(msg),
        html=html_text,
        attachments=_attachments(msg),
        sender_problem=author.problem,
        truncated=tuple(dict.fromkeys(notes)),
        parsed=msg,
    )
