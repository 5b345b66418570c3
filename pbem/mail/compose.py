"""Building the mails the server sends (architecture 2.4, mail.md "What we send")."""

from __future__ import annotations

import base64
import binascii
import email.errors
import email.policy
import email.utils
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import _encoded_words  # type: ignore[attr-defined]  # the package's own encoder (`_encoded`)
from email import _header_value_parser, quoprimime
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage
from typing import Literal

__all__ = ["MARKER_HEADER", "MAX_REFERENCES", "Attachment", "compose", "fold_ids", "reply_subject"]

#: Our own marker header: a mail carrying it that comes back in is never answered.
MARKER_HEADER = "X-PBEM-Game"

#: Ids written in References: the first of the thread and the latest ones (RFC 5322 3.6.4).
MAX_REFERENCES = 20
#: The longest id written: an SMTP line holds 998 characters, the header name included.
_MAX_ID = 900
_FOLD_AT = 78



class _Headers(HeaderRegistry):
    """The package's header registry, each header class made once: the package makes a new
    class (``type(...)``) for every header it sets, the largest part of setting one."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = super().__getitem__(name)
        return made


#: `email.policy.SMTP` with `_Headers`: the same bytes (tests/mail/test_compose_direct.py).
_POLICY = email.policy.SMTP.clone(header_factory=_Headers())

_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|r|rif|aw|sv|vs|antw)\s*(?:\[\d+\]\s*)?:\s*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Attachment:
    """A file to attach; with ``inline_cid`` (and an HTML body) it is shown inline.

    The HTML refers to it as ``<img src="cid:{inline_cid}">``.
    """

    filename: str
    content_type: str
    data: bytes
    inline_cid: str | None = None


def reply_subject(subject: str, prefix: str = "Re:") -> str:
    """``"Re: R: RE: orders"`` → ``"Re: orders"``: one reply prefix, never stacked."""
    base = _REPLY_PREFIX.sub("", subject or "").strip()
    return f"{prefix} {base}".strip()


def _split_type(content_type: str) -> tuple[str, str]:
    maintype, _, subtype = content_type.partition("/")
    maintype = maintype.strip().lower() or "application"
    subtype = subtype.split(";", 1)[0].strip().lower() or "octet-stream"
    return maintype, subtype


def _clean_id(value: str) -> str | None:
    """``<local@domain>`` as it may be written raw in a header, or None (whitespace, brackets
    inside, non-ASCII or too long: such an id cannot be written without encoding it)."""
    text = value.strip()
    if not text.startswith("<"):
        text = f"<{text}>"
    inner = text[1:-1]
    if not text.endswith(">") or not inner or len(text) > _MAX_ID or not _ID_CHARS.issuperset(inner):
        return None
    return text


#: What an id written raw holds between its brackets: printable ASCII but for space and ``<>``.
_ID_CHARS = frozenset(chr(c) for c in range(0x21, 0x7F)) - {"<", ">"}


def fold_ids(name: str, ids: Sequence[str]) -> str:
    """The value of an id header (In-Reply-To, References) folded between ids, never inside
    one and never encoded: the ids are written as they are, whatever their length (an
    Outlook id of 88 characters came back as an encoded word, and clients did not thread)."""
    lines: list[str] = []
    line = f"{name}:"
    for item in ids:
        if len(line) + 1 + len(item) > _FOLD_AT and line != f"{name}:":
            lines.append(line)
            line = ""
        line = f"{line} {item}"
    lines.append(line)
    value = "\r\n".join(lines)
    return value[len(name) + 2:]


#: A header value the email package would write back exactly as given: printable ASCII words
#: with single spaces, no encoded word. Such a value is set raw (`_set`): parsing it into the
#: package's header objects was most of the cost of composing a reply (issue 17, the floor).
#: Checked by one pass over the characters, not by patterns (a subject may carry a player's words).
_PRINTABLE = frozenset(chr(c) for c in range(0x21, 0x7F))
#: An address header written raw: ``addr@domain`` or ``"Display Name" <addr@domain>``.
_DISPLAY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,()_-")
#: A display name's word written unquoted (``email.utils.formataddr`` leaves such names bare).
_ATOM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_PRINTABLE_OR_SPACE = _PRINTABLE | {" "}
_LOCAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+=-")
_DOMAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_ADDRESS_HEADERS = frozenset({"from", "to", "cc", "reply-to", "sender"})


def _plain_value(value: str) -> bool:
    """Printable ASCII words joined by single spaces."""
    return (value != "" and value[0] != " " and value[-1] != " " and "  " not in value
            and _PRINTABLE_OR_SPACE.issuperset(value))


def _plain_address(value: str) -> bool:
    """``addr@domain``, ``"Display Name" <addr@domain>`` or ``Display Name <addr@domain>`` (words
    of letters, digits, ``_`` and ``-``), nothing else."""
    if value.startswith('"'):
        end = value.find('" <', 1)
        if end < 0 or not value.endswith(">") or not _DISPLAY.issuperset(value[1:end]):
            return False
        value = value[end + 3:-1]
    elif value.endswith(">"):
        end = value.find(" <")
        if end <= 0 or not all(word and _ATOM.issuperset(word) for word in value[:end].split(" ")):
            return False
        value = value[end + 2:-1]
    local, at, domain = value.partition("@")
    return (at == "@" and local != "" and domain != "" and _LOCAL.issuperset(local)
            and _DOMAIN.issuperset(domain))


def _plain(name: str, value: str) -> bool:
    """Whether ``value`` may be written raw: it needs no folding, no encoding and no quoting."""
    if len(name) + 2 + len(value) > _FOLD_AT or "=?" in value or not _plain_value(value):
        return False
    if name.lower() in _ADDRESS_HEADERS:
        return _plain_address(value)
    return True


def _set(msg: EmailMessage, name: str, value: str) -> None:
    """Add a header: raw when the package would write it unchanged (the same bytes, see
    tests/mail/test_compose_raw.py), else through its header classes (encoded, folded)."""
    if _plain(name, value):
        msg.set_raw(name, value)
    else:
        msg[name] = value


def _cid(value: str) -> str:
    return "<" + value.strip().strip("<>") + ">"


#: Attachments laid in after the mail is written (`_laid_in`): the email package encodes base64
#: 57 bytes a line in Python, then splits and writes the text line by line and searches it for
#: the boundary; for a report's map that was most of composing it (issue 17, the deadline storm).
_LAY_IN = True


def _attach(msg: EmailMessage, att: Attachment, cid: str | None, later: dict[bytes, bytes]) -> None:
    """``msg.add_attachment`` of ``att``; with `_LAY_IN` the part holds a one-line placeholder
    whose line ``later`` maps to the base64 the package would write (`base64.encodebytes`: 57
    bytes a line, as the package's encoder at the SMTP policy's 78 characters), CRLF ended.
    Base64 holds no line starting with ``--``, so the boundary drawn is the same either way."""
    maintype, subtype = _split_type(att.content_type)
    if not _LAY_IN:
        msg.add_attachment(att.data, maintype, subtype, filename=att.filename, cid=cid)
        return
    part = _plain_part(msg, maintype, subtype, att.filename) if cid is None else None
    if part is None:
        msg.add_attachment(b"", maintype, subtype, filename=att.filename, cid=cid)  # the same headers
        part = _parts(msg)[-1]
    assert part["Content-Transfer-Encoding"] == "base64"
    mark = f"pbem-laid-in-{os.urandom(12).hex()}"
    part.set_payload(mark + "\n")
    later[f"{mark}\r\n".encode("ascii")] = _base64_lines(att.data)


#: A file name and a content type written raw in an attachment's headers (`_plain_part`).
_FILENAME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_TYPE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.+-")


def _plain_part(msg: EmailMessage, maintype: str, subtype: str, filename: str) -> EmailMessage | None:
    """What ``msg.add_attachment(b"", maintype, subtype, filename=filename)`` adds, its headers
    set raw, as the package writes them (`_set`; tests/mail/test_compose_laid_in.py): a
    short file name of plain characters only; None otherwise (the package adds it)."""
    disposition = f'attachment; filename="{filename}"'
    if (not filename or not all(c in _FILENAME for c in filename) or len(disposition) + 21 > _FOLD_AT
            or not all(c in _TYPE for c in maintype + subtype)):
        return None
    if msg.get_content_type() != "multipart/mixed":
        msg.make_mixed()
    part = EmailMessage(policy=msg.policy)
    part.set_raw("Content-Type", f"{maintype}/{subtype}")
    part.set_raw("Content-Transfer-Encoding", "base64")
    part.set_raw("Content-Disposition", disposition)
    part.set_raw("MIME-Version", "1.0")
    msg.attach(part)
    return part


def _parts(msg: EmailMessage) -> list[EmailMessage]:
    parts = msg.get_payload()
    assert isinstance(parts, list)
    return [p for p in parts if isinstance(p, EmailMessage)]


def _base64_lines(data: bytes) -> bytes:
    """`base64.encodebytes` with CRLF: 76 characters (57 bytes) a line, each line ended."""
    text = binascii.b2a_base64(data, newline=False)
    return b"".join(text[i:i + 76] + b"\r\n" for i in range(0, len(text), 76))


def _laid_in(raw: bytes, later: dict[bytes, bytes]) -> bytes | None:
    """``raw`` with every placeholder line replaced by its base64; None when a placeholder is not
    found exactly once (a text quoting it: the caller writes the mail the package's way)."""
    if not later:
        return raw
    if any(raw.count(mark) != 1 for mark in later):
        return None
    for mark, data in later.items():
        raw = raw.replace(mark, data, 1)
    return raw


#: Direct writing of a text-only mail (`_direct`); off: every mail through the email package.
_DIRECT = True
#: What ``set_content(text, charset="utf-8", cte="quoted-printable")`` adds, as the package writes it.
_TEXT_HEADERS = (b'Content-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n'
                 b"MIME-Version: 1.0\r\n\r\n")
#: Header names with a class of their own in the package (addresses, dates, ids, MIME); any
#: other, and Subject, is unstructured text (`_fold_text`).
_STRUCTURED = frozenset(_POLICY.header_factory.registry) - {"subject"}  # type: ignore[attr-defined]
_MAX_LINE = 78


def _steal_space(lines: list[str]) -> str:
    """The package's ``_steal_trailing_WSP_if_exists``."""
    if lines[-1] and lines[-1][-1] == " ":
        lines[-1] = lines[-1][:-1]
        return " "
    return ""


def _encoded(text: str, lines: list[str], last_ew: int | None) -> int:
    """The package's ``_fold_as_ew`` (utf-8, words that may be combined): ``text`` written as
    encoded words at the end of ``lines``, joined to the one begun at ``last_ew``."""
    if last_ew is not None:
        text = str(_header_value_parser.get_unstructured(lines[-1][last_ew:] + text))
        lines[-1] = lines[-1][:last_ew]
    if text[0] in " \t":
        if len(lines[-1]) == _MAX_LINE:
            lines.append(_steal_space(lines))
        lines[-1] += text[0]
        text = text[1:]
    trailing = ""
    if text[-1] in " \t":
        trailing, text = text[-1], text[:-1]
    new_last_ew = len(lines[-1]) if last_ew is None else last_ew
    chrome = len("utf-8") + 7
    while text:
        room = _MAX_LINE - len(lines[-1])
        if room - chrome <= 0:
            lines.append(" ")
            continue
        word = text[:room - chrome]
        encoded = _encoded_words.encode(word, charset="utf-8")
        while len(encoded) > room:
            word = word[:-1]
            encoded = _encoded_words.encode(word, charset="utf-8")
        lines[-1] += encoded
        text = text[len(word):]
        if text:
            lines.append(" ")
            new_last_ew = len(lines[-1])
    lines[-1] += trailing
    return new_last_ew


def _fold_text(name: str, value: str) -> str | None:
    """An unstructured header folded and encoded as the package's header classes do (its
    ``_refold_parse_tree`` on the words of ``value``), for printable words between single
    spaces and no ``=?``; None for any other value (the package folds it)."""
    if (not value or len(name) > 40 or "=?" in value or value[0] == " " or value[-1] == " " or "  " in value
            or not value.isprintable()):
        return None
    lines = [f"{name}: "]
    ascii_only = value.isascii()
    if ascii_only and len(value) <= _MAX_LINE - len(lines[-1]):
        return f"{name}: {value}\r\n"
    if ascii_only and len(value) + 1 <= _MAX_LINE:
        lines.append(_steal_space(lines) + value)
        return "\r\n".join(lines) + "\r\n"
    parts: list[str] = []
    for word in value.split(" "):
        parts += (" ", word)
    parts.reverse()
    parts.pop()  # the space before the first word
    last_ew: int | None = None
    encode = False
    while parts:
        part = parts.pop()
        if not part.isascii():
            encode = True
        if encode:
            last_ew = _encoded(part, lines, last_ew)
            encode = False
            continue
        if len(part) <= _MAX_LINE - len(lines[-1]):
            lines[-1] += part
            continue
        if len(part) + 1 <= _MAX_LINE:
            newline = _steal_space(lines)
            if newline or part == " ":
                lines.append(newline + part)
                last_ew = None
                continue
        parts.append(part)  # too long for a line of its own: encoded, so that it may be cut
        encode = True
    return "\r\n".join(lines) + "\r\n"


def _header_line(name: str, value: str, raw: bool) -> str:
    """One header as the package writes it (``as_bytes`` with ``refold_source="none"``)."""
    if raw or _plain(name, value):
        return f"{name}: " + "\r\n".join(value.splitlines()) + "\r\n"
    folded = _fold_text(name, value) if name.lower() not in _STRUCTURED else None
    if folded is None:
        folded = _POLICY.header_factory(name, value).fold(policy=_POLICY)
    return folded


def _direct(headers: Sequence[tuple[str, str, bool]], text: str) -> bytes | None:
    """The bytes the package writes for a text-only mail with ``headers`` (name, value, set
    raw) and ``text`` as quoted-printable UTF-8, written without building the message; None
    when a header is one it would refuse or treat apart (a repeated name, a line break, a
    MIME header): the caller then builds it the package's way."""
    names = {name.lower() for name, _, _ in headers}
    if (len(names) != len(headers) or "mime-version" in names or any(n.startswith("content-") for n in names)
            or any(not raw and len(value.splitlines()) > 1 for _, value, raw in headers)):
        return None
    try:
        head = "".join(_header_line(name, value, raw) for name, value, raw in headers).encode("ascii")
        body = b"\n".join(text.encode("utf-8").splitlines()) + b"\n"
    except (ValueError, email.errors.MessageError):  # the package's own way raises it again, as it did
        return None
    payload = quoprimime.body_encode(body.decode("latin-1"), _MAX_LINE)
    return head + _TEXT_HEADERS + payload.replace("\n", "\r\n").encode("ascii")


def compose(
    *,
    sender: str,
    to: str | Sequence[str],
    subject: str,
    text: str,
    html: str | None = None,
    attachments: Sequence[Attachment] = (),
    message_id: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    auto_submitted: Literal["auto-generated", "auto-replied"] = "auto-generated",
    game_id: str | None = None,
    domain: str,
    date: datetime | None = None,
    extra_headers: Sequence[tuple[str, str]] = (),
) -> tuple[str, bytes]:
    """Render one outgoing mail; returns ``(message_id, raw bytes with CRLF)``.

    Text is quoted-printable UTF-8; attachments are base64 (byte-exact through SMTP and
    IMAP). Inline attachments go into a multipart/related next to the HTML; without an
    HTML body they are attached. ``Auto-Submitted``, ``X-Auto-Response-Suppress`` and our
    marker header ``X-PBEM-Game`` (the game id, or ``-``) are always set.
    """
    policy = _POLICY
    if message_id is None:
        message_id = email.utils.make_msgid(domain=domain)
    elif not message_id.startswith("<"):
        message_id = f"<{message_id}>"
    recipients = [to] if isinstance(to, str) else list(to)
    headers = [("From", sender, False), ("To", ", ".join(recipients), False), ("Subject", subject, False),
               ("Date", email.utils.format_datetime(date or datetime.now(UTC)), False),
               ("Message-ID", message_id, False)]
    parent = _clean_id(in_reply_to) if in_reply_to else None
    if parent:  # set raw: the header classes would encode a long id
        headers.append(("In-Reply-To", fold_ids("In-Reply-To", [parent]), True))
    refs = list(dict.fromkeys(r for r in (_clean_id(x) for x in references if x) if r))
    if parent and parent not in refs:
        refs.append(parent)
    if len(refs) > MAX_REFERENCES:
        refs = refs[:1] + refs[len(refs) - MAX_REFERENCES + 1:]
    if refs:
        headers.append(("References", fold_ids("References", refs), True))
    headers += [("Auto-Submitted", auto_submitted, False), ("X-Auto-Response-Suppress", "All", False),
                (MARKER_HEADER, game_id or "-", False), *((name, value, False) for name, value in extra_headers)]

    if not text.endswith("\n"):
        text += "\n"
    if _DIRECT and html is None and not attachments:
        direct = _direct(headers, text)
        if direct is not None:
            return message_id, direct
    msg = EmailMessage(policy=policy)
    for name, value, as_is in headers:
        if as_is:
            msg.set_raw(name, value)
        else:
            _set(msg, name, value)
    msg.set_content(text, subtype="plain", charset="utf-8", cte="quoted-printable")
    inline = [a for a in attachments if a.inline_cid and html is not None]
    attached = [a for a in attachments if a not in inline]
    if html is not None:
        msg.add_alternative(html, subtype="html", charset="utf-8", cte="quoted-printable")
        if inline:
            html_part = next(p for p in msg.iter_parts()
                             if p.get_content_type() == "text/html")
            for att in inline:
                maintype, subtype = _split_type(att.content_type)
                assert att.inline_cid is not None
                html_part.add_related(att.data, maintype, subtype, cid=_cid(att.inline_cid),
                                      filename=att.filename, disposition="inline")
    later: dict[bytes, bytes] = {}
    for att in attached:
        _attach(msg, att, _cid(att.inline_cid) if att.inline_cid else None, later)
    # raw headers (the ids) are written as folded above, never refolded into encoded words
    raw = _laid_in(msg.as_bytes(policy=policy.clone(refold_source="none")), later)
    if raw is None:
        for part, att in zip(_parts(msg)[-len(attached):], attached):
            part.set_payload(base64.encodebytes(att.data).decode("ascii"))
        raw = msg.as_bytes(policy=policy.clone(refold_source="none"))
    return message_id, raw
