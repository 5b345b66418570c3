"""Test players: mails as a person's client would write them, and reading replies."""

from __future__ import annotations

import email
import email.policy
import email.utils
import itertools
import re
from email.message import EmailMessage
from datetime import datetime
from typing import Callable, Iterable

_counter = itertools.count(1)
#: Where a test's players read the time from (the test's clock), so that their Date headers
#: agree with the server's manual clock; None: the real time.
clock: Callable[[], datetime] | None = None


def player_mail(sender: str, body: str, *, to: str = "pbem@localhost", subject: str = "orders",
                message_id: str | None = None, headers: Iterable[tuple[str, str]] = (),
                date: datetime | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    when = date or (clock() if clock is not None else None)
    msg["Date"] = email.utils.format_datetime(when) if when is not None else email.utils.formatdate()
    msg["Message-ID"] = message_id or f"<player-{next(_counter)}-{abs(hash(body)) % 10**8}@example.org>"
    for name, value in headers:
        msg[name] = value
    msg.set_content(body)
    return msg.as_bytes(policy=email.policy.SMTP)


def order_block(game: str, seat: str, secret: str, lines: Iterable[str], turn: int | None = None) -> str:
    parts = ["Hello,", "", f"GAME {game}", f"SEAT {seat} {secret}"]
    if turn is not None:
        parts.append(f"TURN {turn}")
    parts += list(lines)
    parts += ["END", "", "-- ", "a player"]
    return "\n".join(parts)


def parse(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


def body_text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    return part.get_content() if part is not None else ""


def attachments(msg: EmailMessage) -> dict[str, bytes]:
    out = {}
    for part in msg.iter_attachments():
        name = part.get_filename() or ""
        out[name] = part.get_payload(decode=True)
    return out


def secret_from_welcome(text: str) -> str:
    m = re.search(r"([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})", text)
    assert m, "no secret in the welcome mail"
    return m.group(1)
