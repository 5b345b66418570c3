"""Reading bounces: RFC 3464 delivery status notifications and the common text bounces
(qmail, Exim, old Sendmail, webmail providers).

Pure functions: bytes (or an ``IncomingMail``) in, a ``Bounce`` out; never raises.

What a bounce tells us, as far as it can be read:

* the original mail's Message-ID — from the attached ``message/rfc822`` or
  ``text/rfc822-headers`` part, from a ``Message-ID:`` line of the copy pasted in the text,
  or (last) from the bounce's own In-Reply-To/References;
* our marker ``X-PBEM-Game`` of the original, when it was copied;
* each recipient: address, action (failed | delayed | delivered | relayed | expanded),
  RFC 3463 status code, the remote server's diagnostic, and whether the failure is
  permanent (the mail was given up on) or transient (still being retried).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message

from . import caps
from .address import find_address
from .parse import IncomingMail, decode_part, html_to_text, normalise_message_id

__all__ = ["MAX_BOUNCE_TEXT", "MAX_CANDIDATE_IDS", "MAX_RECIPIENTS", "Bounce", "BouncedRecipient", "is_bounce",
           "parse_bounce"]

#: A bounce's text is cut to this many characters before any pattern sees it: the
#: server's words and the copy of our headers come first; a poison "bounce" of 20,000
#: blank lines cost minutes in the patterns before they were linear.
MAX_BOUNCE_TEXT = 16_000
#: Candidate ids for the original mail, and recipients, read from one bounce.
MAX_CANDIDATE_IDS = 50
MAX_RECIPIENTS = 20

_FAILURE_ACTIONS = ("failed", "delayed")


@dataclass(frozen=True)
class BouncedRecipient:
    """One recipient of a delivery report."""

    address: str  # the final recipient, lower-case
    action: str  # failed | delayed | delivered | relayed | expanded
    status: str = ""  # RFC 3463 code ("5.1.1"), "" when the bounce gave none
    diagnostic: str = ""  # the remote server's words, unfolded
    original: str | None = None  # Original-Recipient, when given

    @property
    def permanent(self) -> bool:
        """The mail was given up on for this recipient (whatever the status class: a
        4.x.x that expired after days of retries is as final as a 5.x.x)."""
        return self.action == "failed"

    @property
    def failed(self) -> bool:
        return self.action in _FAILURE_ACTIONS


@dataclass(frozen=True)
class Bounce:
    """What a bounce says about one of our mails."""

    recipients: tuple[BouncedRecipient, ...]
    message_ids: tuple[str, ...] = ()  # candidates for the original Message-ID, best first
    game: str | None = None  # X-PBEM-Game of the original, when it was copied
    standard: bool = False  # an RFC 3464 report (else read from the text)
    reporting_mta: str = ""

    @property
    def message_id(self) -> str | None:
        return self.message_ids[0] if self.message_ids else None

    @property
    def failures(self) -> tuple[BouncedRecipient, ...]:
        return tuple(r for r in self.recipients if r.failed)

    @property
    def permanent(self) -> bool:
        return any(r.permanent for r in self.recipients)

    @property
    def status(self) -> str:
        first = self._first()
        return first.status if first else ""

    @property
    def diagnostic(self) -> str:
        first = self._first()
        return first.diagnostic if first else ""

    def _first(self) -> BouncedRecipient | None:
        failures = self.failures
        return failures[0] if failures else (self.recipients[0] if self.recipients else None)


# ------------------------------------------------------------------ recognising

_ROBOT = re.compile(r"^(mailer-daemon|mail-daemon|maildaemon|postmaster|mail\.?delivery[\w.-]*|"
                    r"microsoftexchange[0-9a-f]*)$", re.IGNORECASE)
_BOUNCE_SUBJECT = re.compile(
    r"undeliver|undelivered|delivery\s+status\s+notification|delivery\s+(has\s+)?fail|"
    r"delivery\s+failure|failure\s+notice|returned\s+(mail|to\s+sender)|mail\s+delivery\s+failed|"
    r"could\s+not\s+be\s+delivered|delayed\s+mail|delivery\s+delayed|non\s+recapitabil|"
    r"mancato\s+recapito|impossibile\s+recapitare|errore\s+(di|nella)\s+consegna|"
    r"consegna\s+non\s+riuscita|nicht\s+zustellbar|unzustellbar|non\s+remis|"
    r"[ée]chec\s+de\s+(la\s+)?(remise|distribution)|warning:\s+could\s+not\s+send", re.IGNORECASE)


def _report_type(mail: IncomingMail) -> str:
    value = (mail.header("content-type") or "").lower()
    m = re.search(r"report-type\s*=\s*\"?([a-z0-9._-]+)", value)
    return m.group(1) if m else ""


def is_bounce(mail: IncomingMail) -> bool:
    """A non-delivery (or delay) report, as opposed to an auto-reply or a read receipt.

    True for ``multipart/report; report-type=delivery-status``, for Exim's and Exchange's
    bounce headers, and for a mail from the null sender or a mailer daemon whose subject
    says that a mail could not be delivered.
    """
    if mail.content_type == "multipart/report":
        kind = _report_type(mail)
        if kind in ("delivery-status", "global-delivery-status"):
            return True
        if kind in ("disposition-notification", "feedback-report", "tlsrpt"):
            return False
    if mail.header("x-failed-recipients") is not None or mail.header("x-ms-exchange-message-is-ndr") is not None:
        return True
    local = (mail.sender or "").split("@", 1)[0].split("+", 1)[0]
    if mail.return_path == "" or _ROBOT.match(local):
        return bool(_BOUNCE_SUBJECT.search(mail.subject or "")) or bool(
            _BOUNCE_SUBJECT.search((mail.text or "")[:2000]))
    return False


# ---------------------------------------------------------------------- parsing

_STATUS = re.compile(r"(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d.])")
_SMTP_CODE = re.compile(r"(?:^|[\s:(\"'])([45][0-5]\d)[ -](?=[245]\.\d|[\w<#\"'])", re.MULTILINE)
# Line patterns: "^[ \t]*", never "^\s*" in MULTILINE mode (which runs over every blank line
# that follows each line start: quadratic in the number of blank lines).
_MSGID_LINE = re.compile(r"^[ \t]*(?:x-original-)?message-id[ \t]*:[ \t]*(?:\r?\n[ \t]+)?(<[^<>\s]+>)", re.IGNORECASE | re.MULTILINE)
_MARKER_LINE = re.compile(r"^[ \t]*x-pbem-game[ \t]*:[ \t]*(?:\r?\n[ \t]+)?(\S+)", re.IGNORECASE | re.MULTILINE)
_TRANSIENT_WORDS = re.compile(
    r"warning only|do not need to resend|will (be )?retr(y|ied)|still (being )?(retried|trying)|"
    r"not yet been delivered|has been delayed|delivery (is )?delayed|delayed mail|deferred|"
    r"temporar|ancora in corso|verr[aà] ritentat|ritardo nella consegna|non [eè] ancora stato recapitato",
    re.IGNORECASE)
_PERMANENT_WORDS = re.compile(
    r"permanent (error|fatal|failure)|failed permanently|given up|giving up|gave up|"
    r"not going to try again|retry timeout exceeded|errore permanente", re.IGNORECASE)
# Where the human-readable part of a text bounce ends and the copy of our mail begins.
_COPY_START = re.compile(
    r"^[ \t]*(-{2,}[ \t]*)?(below this line is a copy of the message|this is a copy of the message|"
    r"original message|returned message|the original message|undelivered message|"
    r"messaggio originale|copia del messaggio|transcript of session follows)", re.IGNORECASE | re.MULTILINE)


def parse_bounce(mail: IncomingMail, raw: bytes | None = None) -> Bounce | None:
    """Read a bounce; None when nothing in it names a failed (or delayed) recipient or an
    original mail. With ``raw`` the MIME parts are read (the delivery-status fields and the
    attached original); without it only the mail's text and headers."""
    try:
        return _parse(mail, raw)
    except Exception:  # pragma: no cover - a strange bounce must not break the inbox
        return None


def _message(mail: IncomingMail, raw: bytes | None) -> Message | None:
    """The mail's one parse when ``raw`` is the mail read (the service's case), else a
    parse of ``raw`` under the same caps."""
    if raw is None:
        return None
    if mail.parsed is not None and len(raw) == mail.size:
        return mail.parsed
    return caps.parse_message(raw)


def _parse(mail: IncomingMail, raw: bytes | None) -> Bounce | None:
    msg = _message(mail, raw)
    status_blocks: list[list[tuple[str, str]]] = []
    originals: list[Message] = []
    texts: list[str] = []
    if msg is not None:
        _walk(msg, status_blocks, originals, texts, top=True)
    if not texts:
        texts = [mail.text or ""]
    text = "\n".join(texts)[:MAX_BOUNCE_TEXT]

    ids: dict[str, None] = {}  # ordered, and a set
    game: str | None = None
    for original in originals:
        _add_id(ids, original.get("message-id"))
        if game is None and original.get("x-pbem-game") is not None:
            game = str(original.get("x-pbem-game")).strip() or None
    per_message: dict[str, str] = {}
    recipients: list[BouncedRecipient] = []
    for block in status_blocks:
        fields = {name.lower(): value for name, value in block}
        if ("final-recipient" in fields or "original-recipient" in fields) and len(recipients) < MAX_RECIPIENTS:
            recipients.append(_dsn_recipient(fields))
        for name in ("reporting-mta", "x-original-message-id"):
            if name in fields:
                per_message.setdefault(name, fields[name])
    _add_id(ids, per_message.get("x-original-message-id"))
    for found_id in _MSGID_LINE.finditer(text):
        _add_id(ids, found_id.group(1))
    if game is None:
        found = _MARKER_LINE.search(text)
        game = found.group(1) if found else None
    standard = bool(recipients)
    if not recipients:
        recipients = _text_recipients(mail, text)
    for value in (mail.in_reply_to, *reversed(mail.references)):
        _add_id(ids, value)
    if not recipients and not ids:
        return None
    return Bounce(recipients=tuple(recipients), message_ids=tuple(ids)[:MAX_CANDIDATE_IDS], game=game, standard=standard,
                  reporting_mta=_after_type(per_message.get("reporting-mta", "")))


def _add_id(ids: dict[str, None], value: object) -> None:
    if len(ids) >= MAX_CANDIDATE_IDS:
        return
    norm = normalise_message_id(str(value)[:1000]) if value else None
    if norm:
        ids.setdefault(norm)


def _walk(part: Message, blocks: list[list[tuple[str, str]]], originals: list[Message], texts: list[str],
          top: bool = False) -> None:
    ctype = part.get_content_type()
    if ctype in ("message/delivery-status", "message/global-delivery-status"):
        blocks.extend(_status_blocks(part))
        return
    if ctype in ("message/rfc822", "message/global", "text/rfc822-headers", "message/rfc822-headers",
                 "message/global-headers"):
        inner = _inner_message(part)
        if inner is not None:
            originals.append(inner)
        return
    if part.is_multipart():
        payload = part.get_payload()
        if isinstance(payload, list):
            for sub in payload:
                if isinstance(sub, Message):
                    _walk(sub, blocks, originals, texts)
        return
    if ctype == "text/plain" or (top and ctype.startswith("text/")):
        texts.append(decode_part(part)[:MAX_BOUNCE_TEXT])
    elif ctype == "text/html" and not texts:
        texts.append(html_to_text(decode_part(part)[:caps.MAX_HTML])[:MAX_BOUNCE_TEXT])


def _payload_text(part: Message) -> str:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if isinstance(data, (bytes, bytearray)):
        return bytes(data).decode("utf-8", errors="replace")
    payload = part.get_payload()
    if isinstance(payload, str):
        return payload
    if isinstance(payload, list):
        return "\n\n".join(str(p) if isinstance(p, Message) else "" for p in payload)
    return ""


def _status_blocks(part: Message) -> list[list[tuple[str, str]]]:
    payload = part.get_payload()
    if isinstance(payload, list) and payload and all(isinstance(p, Message) for p in payload):
        blocks = [[(str(k), _unfold(str(v))) for k, v in p.items()] for p in payload if isinstance(p, Message)]
        # a DSN written without the blank line between its groups parses as one block
        return _split_merged(blocks)
    return _split_merged(_parse_fields(_payload_text(part)))


def _split_merged(blocks: list[list[tuple[str, str]]]) -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for block in blocks:
        current: list[tuple[str, str]] = []
        for name, value in block:
            if name.lower() == "final-recipient" and any(n.lower() == "final-recipient" for n, _ in current):
                out.append(current)
                current = []
            current.append((name, value))
        if current:
            out.append(current)
    return out


def _parse_fields(text: str) -> list[list[tuple[str, str]]]:
    blocks: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if not line.strip():
            if current:
                blocks.append(current)
                current = []
            continue
        if line[:1] in (" ", "\t") and current:
            name, value = current[-1]
            current[-1] = (name, f"{value} {line.strip()}")
            continue
        name, sep, value = line.partition(":")
        if sep and name.strip() and " " not in name.strip():
            current.append((name.strip(), value.strip()))
    if current:
        blocks.append(current)
    return blocks


def _unfold(value: str) -> str:
    return " ".join(value.split())


def _after_type(value: str) -> str:
    """``rfc822; a@b`` → ``a@b``; ``dns; mx.example`` → ``mx.example``."""
    _, sep, rest = value.partition(";")
    return (rest if sep else value).strip()


def _address(value: str) -> str:
    text = _after_type(value).strip().strip("<>").strip()[:1000]
    return find_address(text) or text.lower()


def _dsn_recipient(fields: dict[str, str]) -> BouncedRecipient:
    final = fields.get("final-recipient") or fields.get("original-recipient") or ""
    original = fields.get("original-recipient")
    status_field = fields.get("status", "")
    found = _STATUS.search(status_field)
    diagnostic = _after_type(fields.get("diagnostic-code", "")) if fields.get("diagnostic-code") else ""
    if not found and diagnostic:
        found = _STATUS.search(diagnostic)
    status = ".".join(found.groups()) if found else ""
    action = fields.get("action", "").strip().lower().split()[0] if fields.get("action", "").strip() else ""
    if not action:
        action = {"5": "failed", "4": "delayed", "2": "delivered"}.get(status[:1], "failed")
    return BouncedRecipient(address=_address(final), action=action, status=status,
                            diagnostic=_unfold(diagnostic)[:1000],
                            original=_address(original) if original else None)


# ----------------------------------------------------------------- text bounces

# the local part holds no "@": with one, "<a@a@a@…" backtracked quadratically within a line
_QMAIL_RCPT = re.compile(r"^<([^<>\s@]+@[^<>\s]+)>:", re.MULTILINE)  # qmail, Postfix's text
_EXIM_FAILED = re.compile(r"following address(?:\(es\)|es)? failed:[ \t]*\r?\n", re.IGNORECASE)
_SENDMAIL_FATAL = "the following addresses had permanent fatal errors"
_RCPT_PHRASE = re.compile(
    r"(?:wasn't delivered to|was not delivered to|could not be delivered to|delivery to the following "
    r"recipients? failed(?: permanently)?:?|failed to deliver to|recapitare il messaggio a(?: questi destinatari"
    r"(?: o gruppi)?)?:?|non [eè] stato recapitato a|destinatari(?:o)?:)\s*<?([\w.!#$%&'*+/=?^`{|}~-]+@[\w.-]+\w)",
    re.IGNORECASE)


def _human_part(text: str) -> str:
    m = _COPY_START.search(text)
    return text[:m.start()] if m else text


def _text_recipients(mail: IncomingMail, text: str) -> list[BouncedRecipient]:
    human = _human_part(text)
    addresses: list[str] = []

    def add(value: str) -> None:
        addr = value.strip().strip("<>.,;:").lower()
        if "@" in addr and addr not in addresses:
            addresses.append(addr)

    for header in mail.headers.get("x-failed-recipients", ()):
        for piece in header.split(","):
            add(piece)
    for found in _QMAIL_RCPT.findall(human):
        add(found)
    exim = _EXIM_FAILED.search(human)
    if exim:
        for line in _paragraph(human, exim.end()):
            if line[:1] in (" ", "\t") and not line.startswith(("    ", "\t\t")):
                first = line.split()[0]
                if "@" in first:
                    add(first)
    for found in _sendmail_fatal(human):
        add(found)
    for found in _RCPT_PHRASE.findall(human):
        add(found)
    if not addresses:
        return []
    del addresses[MAX_RECIPIENTS:]
    permanent = bool(_PERMANENT_WORDS.search(human))
    transient = not permanent and bool(_TRANSIENT_WORDS.search(human))
    out = []
    for addr in addresses:
        status, diagnostic = _text_status(human, addr)
        if permanent or transient:
            action = "failed" if permanent else "delayed"
        else:  # no words either way: the status class decides; a bare failure notice is final
            action = "delayed" if status[:1] == "4" else "failed"
        out.append(BouncedRecipient(address=addr, action=action, status=status, diagnostic=diagnostic))
    return out


def _paragraph(text: str, start: int) -> list[str]:
    """The non-blank lines from ``start`` up to the next blank line."""
    lines: list[str] = []
    for line in text[start:].split("\n"):
        line = line.rstrip("\r")
        if not line.strip():
            break
        lines.append(line)
    return lines


def _sendmail_fatal(human: str) -> list[str]:
    """Old Sendmail: "----- The following addresses had permanent fatal errors -----" and
    the address on the next non-blank line."""
    found: list[str] = []
    lower = human.lower()
    pos = lower.find(_SENDMAIL_FATAL)
    while pos >= 0 and len(found) < MAX_RECIPIENTS:
        end = human.find("\n", pos)
        if end < 0:
            break
        nxt = next((line for line in human[end + 1:end + 2001].split("\n") if line.strip()), "")
        token = nxt.split()[0].strip("<>") if nxt.strip() else ""
        if "@" in token:
            found.append(token)
        pos = lower.find(_SENDMAIL_FATAL, end)
    return found


def _text_status(human: str, address: str) -> tuple[str, str]:
    """The status code and diagnostic line nearest to the recipient's mention."""
    lines = human.split("\n")
    start = next((i for i, line in enumerate(lines) if address in line.lower()), 0)
    window = lines[start:start + 12] + lines[:start]
    for line in window:
        m = _STATUS.search(line)
        if m:
            return ".".join(m.groups()), _unfold(line)[:1000]
    for line in window:
        m = _SMTP_CODE.search(line)
        if m:
            return f"{m.group(1)[0]}.0.0", _unfold(line)[:1000]
    rest = lines[start].lower().split(address, 1)[-1].strip(" <>:\t") if lines else ""
    detail = _unfold(lines[start].split(":", 1)[-1]) if rest else ""
    following = next((_unfold(line) for line in lines[start + 1:start + 4] if line.strip()), "")
    return "", " ".join(x for x in (detail, following) if x)[:1000]


def _inner_message(part: Message) -> Message | None:
    payload = part.get_payload()
    if isinstance(payload, list) and payload and isinstance(payload[0], Message):
        return payload[0]
    text = _payload_text(part)
    if not text.strip():
        return None
    return caps.parse_text(text.lstrip("\r\n")[:caps.MAX_HEADER_BYTES])
