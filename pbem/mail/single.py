"""A single-part mail read without the ``email`` package's feed parser.

An order mail is one text part under a few plain header lines. The feed parser reads it line by
line through a generator, which was most of the cost of reading it, and the mail was read so
twice: once for the service (`pbem.mail.caps.parse_message`), once for the copy kept
(`pbem.service.atrest.redact_mail`). Here the header block is split once, by one bounded cache
shared by both, and each builds its message from it: the very message the parser builds
(the same header pairs, made by the policy's own ``header_source_parse``, and the same
payload). Any mail the split is not sure of (a multipart or message/* type, a line the parser
reads as a defect, a lone CR, a Unix From line, no blank line after the headers) is None here:
the caller gives it to the parser (tests/mail/test_single_part.py compares the two).
"""

from __future__ import annotations

import re
from email.message import Message
from email.policy import Policy
from typing import NamedTuple

__all__ = ["Split", "parse", "split"]

#: A header field's first line, as the feed parser's ``headerRE`` reads it (a name of printable
#: ASCII but the colon, then the colon), with at least one character of name (an empty one is
#: a defect). Matched at a line's start; never tried inside a run it has read (linear at every
#: position too).
_FIELD = re.compile(r"(?<![\041-\071\073-\176])[\041-\071\073-\176]++:")


class Split(NamedTuple):
    """A mail cut where the feed parser cuts it: each header field's source lines (with their
    line breaks), and the payload (the text after the blank line, as it came)."""

    fields: tuple[tuple[str, ...], ...]
    body: str


def _split(raw: bytes) -> Split | None:
    text = raw.decode("ascii", "surrogateescape")  # as the parser decodes bytes
    fields: list[list[str]] = []
    pos = 0
    while True:
        end = text.find("\n", pos)
        if end < 0:
            return None  # no blank line after the headers: the parser's defect path
        line = text[pos:end + 1]
        cr = line.find("\r")
        if cr >= 0 and cr != len(line) - 2:
            return None  # a lone CR is a line break to the parser
        if line in ("\n", "\r\n"):
            if not fields:
                return None
            return Split(tuple(tuple(f) for f in fields), text[end + 1:])
        if line[0] in " \t":
            if not fields:
                return None  # a first line that continues nothing: a defect
            fields[-1].append(line)
        elif line.startswith("From ") or _FIELD.match(line) is None:
            return None  # a Unix From line, or a line that ends the headers without a blank line
        else:
            fields.append([line])
        pos = end + 1


#: The last split: `caps.parse_message` and `atrest.redact_mail` read the same bytes one after
#: the other. The bytes object itself is kept, so that ``is`` is a sound test (no other object
#: can take its place while it is held); one mail at most, swapped whole (threads see either).
_LAST: tuple[bytes, Split | None] | None = None


def split(raw: bytes) -> Split | None:
    """The mail's header fields and payload as the feed parser cuts them, or None when it is
    not sure to; the last mail's split is kept for the next reader of the same bytes."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is raw:
        return last[1]
    found = _split(raw)
    _LAST = (raw, found)
    return found


def parse(raw: bytes, policy: Policy) -> Message | None:
    """The message ``email.message_from_bytes(raw, policy=policy)`` makes of a single-part mail,
    made from `split`; None for any other mail (a multipart or message/* type above all)."""
    found = split(raw)
    if found is None:
        return None
    factory = getattr(policy, "message_factory", None) or Message
    msg: Message = factory(policy=policy)
    source_parse = policy.header_source_parse
    for lines in found.fields:
        msg.set_raw(*source_parse(list(lines)))
    if msg.get_content_maintype() in ("multipart", "message"):
        return None
    msg.set_payload(found.body)
    return msg
