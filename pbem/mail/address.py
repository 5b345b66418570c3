"""Reading the From address: exactly one mailbox, read from the raw header, in linear time.

The docs promise one From address (mail.md "Who sent this?"): a header naming two
(``alice@…, evil@…``) has no sender, because a DMARC-checking server and we might read
different ones. The address is the one in angle brackets when there are any — a display
name that looks like an address (``carla@… <evil@…>``) is only a name — and an encoded
word is never an address (``=?utf-8?q?carla=40localhost?=`` names nobody): the header is
read before any decoding.

The address is None unless the first From line names exactly one mailbox; with several
From lines the first one's address is kept (the service refuses the mail, and may tell
that address), and the problem is set whenever the mail does not have exactly one From
line with exactly one address. ``sender_problem`` keys (texts in ``messages.toml``):
``from-missing`` (no From header),
``from-not-one`` (several addresses, a group, or several From headers),
``from-unreadable`` (no address could be read).
"""

from __future__ import annotations

import email.header
from dataclasses import dataclass

__all__ = ["FromAddress", "find_address", "parse_from", "parse_mailbox", "split_mailboxes"]


@dataclass(frozen=True)
class FromAddress:
    """The sender as read from the From header(s)."""

    name: str
    address: str | None  # lower-case, None when there is no single readable address
    problem: str | None = None


def split_mailboxes(value: str) -> tuple[list[str], bool]:
    """Split an address list at its top-level commas (not inside quotes, comments or angle
    brackets); also says whether a group (``name: …;``) was seen. One pass over the text."""
    items: list[str] = []
    start = 0
    quoted = False
    escaped = False
    comment = 0
    angle = False
    group = False
    for i, ch in enumerate(value):
        if escaped:
            escaped = False
        elif ch == "\\" and (quoted or comment):
            escaped = True
        elif quoted:
            quoted = ch != '"'
        elif comment:
            comment += 1 if ch == "(" else -1 if ch == ")" else 0
        elif ch == '"':
            quoted = True
        elif ch == "(":
            comment = 1
        elif ch == "<":
            angle = True
        elif ch == ">":
            angle = False
        elif not angle and ch in ":;":
            group = True
        elif not angle and ch == ",":
            items.append(value[start:i])
            start = i + 1
    items.append(value[start:])
    return [item for item in items if item.strip()], group


def parse_mailbox(item: str) -> tuple[str, str | None]:
    """``"Name" <a@b>`` → (``Name``, ``a@b``); the address is None when it is not one.

    The display name is returned undecoded (encoded words as they are); comments are
    dropped, except that ``a@b (Name)`` gives the comment as the name.
    """
    outside: list[str] = []
    comments: list[str] = []
    angles: list[str] = []
    current: list[str] = []
    quoted = False
    escaped = False
    comment = 0
    in_angle = False
    for ch in item:
        if escaped:
            (comments if comment else current).append(ch)
            escaped = False
        elif ch == "\\" and (quoted or comment):
            escaped = True
        elif comment:
            if ch == "(":
                comment += 1
            elif ch == ")":
                comment -= 1
                if comment == 0:
                    comments.append(" ")
                    continue
            if comment:
                comments.append(ch)
        elif quoted:
            if ch == '"':
                quoted = False
            else:
                current.append(ch)
        elif ch == '"':
            quoted = True
        elif ch == "(":
            comment = 1
        elif ch == "<" and not in_angle:
            outside.append("".join(current))
            current = []
            in_angle = True
        elif ch == ">" and in_angle:
            angles.append("".join(current))
            current = []
            in_angle = False
        else:
            current.append(ch)
    if in_angle:  # "Alice <alice@example.org" (no closing bracket): still her address
        angles.append("".join(current))
    else:
        outside.append("".join(current))
    name = " ".join(" ".join(outside).split())
    if len(angles) > 1:
        return name, None
    if angles:
        return name, _valid(angles[0])
    address = _valid(name)
    return (" ".join("".join(comments).split()) if address else name), address


def _valid(text: str) -> str | None:
    """A plain addr-spec (``local@domain``), lower-cased; None for anything else."""
    addr = text.strip()
    if ":" in addr and addr.startswith("@"):  # an obsolete source route: <@relay:a@b>
        addr = addr.split(":", 1)[1]
    if not addr or "=?" in addr or any(ch.isspace() for ch in addr):
        return None
    local, at, domain = addr.rpartition("@")
    if not at or not local or not domain or "@" in local:
        return None
    if any(ch in '<>()[],;:\\"' for ch in local):
        return None
    if domain.startswith(".") or domain.endswith(".") or ".." in domain:
        return None
    if not all(ch.isalnum() or ch in ".-_" for ch in domain):
        return None
    return addr.lower()


def _decoded(name: str) -> str:
    if "=?" not in name:
        return name
    try:
        return str(email.header.make_header(email.header.decode_header(name)))
    except Exception:
        return name


def parse_from(values: tuple[str, ...] | list[str]) -> FromAddress:
    """The sender of a mail from its raw (undecoded, unfolded) From header values."""
    if not values:
        return FromAddress("", None, "from-missing")
    items, group = split_mailboxes(values[0])
    if group or len(items) > 1:
        return FromAddress(_decoded(parse_mailbox(items[0])[0]) if items else "", None, "from-not-one")
    if not items:
        return FromAddress("", None, "from-not-one" if len(values) > 1 else "from-unreadable")
    name, address = parse_mailbox(items[0])
    if len(values) > 1:
        # several From lines: the first one's address is kept, so that a refusal can still
        # reach the seat's registered address when it is that one, but the problem stands
        return FromAddress(_decoded(name), address, "from-not-one")
    return FromAddress(_decoded(name), address, None if address else "from-unreadable")


_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$%&'*+/=?^_`{|}~-")


def _domain_char(ch: str) -> bool:
    return ch.isalnum() or ch in "-_"


def find_address(text: str) -> str | None:
    """The first ``local@domain.tld`` inside free text, lower-cased; linear (each ``@`` looks
    left and right only up to the previous and next ``@``)."""
    pos = text.find("@")
    while pos >= 0:
        left = pos
        while left > 0 and (text[left - 1] in _LOCAL or text[left - 1].isalnum()):
            left -= 1
        right = pos + 1
        labels = 0
        while right < len(text):
            start = right
            while right < len(text) and _domain_char(text[right]):
                right += 1
            if right == start:
                break
            labels += 1
            if right < len(text) and text[right] == "." and right + 1 < len(text) and _domain_char(text[right + 1]):
                right += 1
                continue
            break
        if left < pos and labels >= 2:
            return text[left:right].lower()
        pos = text.find("@", max(pos + 1, right))
    return None
