"""The narrow mail interfaces the service uses, and in-memory twins for fast tests.

``Inbox`` is the work list of unseen mail: the caller fetches, processes, commits its
database transaction and only then calls ``mark_seen``. ``Outgoing`` sends one rendered
mail and reports, per recipient, whether the server took it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from pbem.errors import MailPermanentError, MailTransientError

__all__ = [
    "FetchedMail",
    "Inbox",
    "MemoryInbox",
    "MemoryOutgoing",
    "Outgoing",
    "RecipientResult",
    "SendResult",
    "SendStatus",
    "SentMail",
]

SendStatus = Literal["sent", "transient", "permanent"]


@dataclass(frozen=True)
class FetchedMail:
    """One unseen mail from an inbox.

    ``raw`` is None when the mail is larger than the inbox's ``max_size``: then only
    its size is known (``too_large`` is True) and the body was never downloaded.
    ``uidvalidity`` is the mailbox's UIDVALIDITY when the UID was handed out (0 for
    inboxes without one); a UID is meaningless under another UIDVALIDITY.
    """

    uid: int
    raw: bytes | None
    size: int
    too_large: bool = False
    uidvalidity: int = 0
    head: bytes | None = None  # of a mail too large to download: its From lines, to answer a player


@dataclass(frozen=True)
class RecipientResult:
    """What the server said about one recipient."""

    status: SendStatus
    code: int
    text: str = ""


@dataclass(frozen=True)
class SendResult:
    """Per-recipient outcome of one send; ``response`` is the server's reply to DATA."""

    recipients: Mapping[str, RecipientResult]
    response: str = ""

    @property
    def sent(self) -> tuple[str, ...]:
        return tuple(r for r, res in self.recipients.items() if res.status == "sent")

    @property
    def transient(self) -> tuple[str, ...]:
        return tuple(r for r, res in self.recipients.items() if res.status == "transient")

    @property
    def permanent(self) -> tuple[str, ...]:
        return tuple(r for r, res in self.recipients.items() if res.status == "permanent")

    @property
    def all_sent(self) -> bool:
        return all(res.status == "sent" for res in self.recipients.values())

    def __getitem__(self, recipient: str) -> RecipientResult:
        return self.recipients[recipient]


@runtime_checkable
class Inbox(Protocol):
    """A mailbox whose unseen mail is the work list."""

    async def connect(self) -> None:
        """Open the connection (idempotent). Raises MailPermanentError on a refused login."""
        ...

    async def fetch_new(self) -> list[FetchedMail]:
        """Every unseen mail, oldest first, without setting \\Seen."""
        ...

    async def mark_seen(self, uid: int) -> None:
        """Set \\Seen on one mail; call only after the database commit."""
        ...

    async def mark_seen_many(self, uids: list[int]) -> None:
        """Set \\Seen on several mails at once; call only after every one's commit."""
        ...

    async def wait(self, timeout: float) -> None:
        """Return when new mail may have arrived, or after ``timeout`` seconds."""
        ...

    async def close(self) -> None:
        ...


@runtime_checkable
class Outgoing(Protocol):
    """Something that hands a rendered mail to a mail server."""

    async def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> SendResult:
        """Send ``raw`` to ``recipients`` with envelope sender ``mail_from``.

        Returns per-recipient results when at least one recipient was accepted (or the
        refusals were mixed). Raises MailTransientError when nothing could be sent for a
        temporary reason (timeout, refused connection, 4xx for every recipient) and
        MailPermanentError for a permanent one (5xx for every recipient, failed login).
        """
        ...


class MemoryInbox:
    """An in-memory twin of an IMAP inbox (UIDs start at 101, like pymap)."""

    def __init__(self, *, max_size: int = 10_000_000, uidvalidity: int = 1) -> None:
        self.max_size = max_size
        self.uidvalidity = uidvalidity
        self._next_uid = 101
        self._mails: dict[int, bytes] = {}
        self._seen: set[int] = set()
        self._arrived = asyncio.Event()
        self.connected = False
        self.closed = False

    def deliver(self, raw: bytes) -> int:
        """Put a mail into the inbox (unseen); returns its UID."""
        uid = self._next_uid
        self._next_uid += 1
        self._mails[uid] = bytes(raw)
        self._arrived.set()
        return uid

    def is_seen(self, uid: int) -> bool:
        return uid in self._seen

    @property
    def unseen_uids(self) -> list[int]:
        return sorted(uid for uid in self._mails if uid not in self._seen)

    async def connect(self) -> None:
        self.connected = True
        self.closed = False

    async def fetch_new(self) -> list[FetchedMail]:
        self._arrived.clear()
        result = []
        for uid in self.unseen_uids:
            raw = self._mails[uid]
            if len(raw) > self.max_size:
                result.append(FetchedMail(uid, None, len(raw), True, self.uidvalidity))
            else:
                result.append(FetchedMail(uid, raw, len(raw), False, self.uidvalidity))
        return result

    async def mark_seen(self, uid: int) -> None:
        if uid in self._mails:
            self._seen.add(uid)

    async def mark_seen_many(self, uids: list[int]) -> None:
        for uid in uids:
            await self.mark_seen(uid)  # one by one: a test that breaks mark_seen breaks this too

    async def wait(self, timeout: float) -> None:
        if self.unseen_uids and self._arrived.is_set():
            return
        try:
            await asyncio.wait_for(self._arrived.wait(), timeout)
        except TimeoutError:
            pass

    async def close(self) -> None:
        self.closed = True
        self.connected = False


@dataclass(frozen=True)
class SentMail:
    mail_from: str
    recipients: tuple[str, ...]
    raw: bytes


@dataclass
class _Fault:
    code: int
    count: int
    text: str


@dataclass
class MemoryOutgoing:
    """An in-memory twin of an SMTP sender that records what it was given.

    ``fail_next(code)`` makes the next sends fail for every recipient (4xx raises
    MailTransientError, 5xx MailPermanentError); ``refuse(address, code)`` refuses one
    recipient for good.
    """

    sent: list[SentMail] = field(default_factory=list)
    _faults: list[_Fault] = field(default_factory=list)
    _refused: dict[str, int] = field(default_factory=dict)

    def fail_next(self, code: int = 451, count: int = 1, text: str = "try again later") -> None:
        self._faults.append(_Fault(code, count, text))

    def refuse(self, address: str, code: int = 550) -> None:
        self._refused[address.lower()] = code

    async def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> SendResult:
        if not recipients:
            raise ValueError("send() needs at least one recipient")
        if self._faults:
            fault = self._faults[0]
            fault.count -= 1
            if fault.count <= 0:
                self._faults.pop(0)
            message = f"{fault.code} {fault.text}"
            if 400 <= fault.code < 500:
                raise MailTransientError(message)
            raise MailPermanentError(message)
        results: dict[str, RecipientResult] = {}
        accepted: list[str] = []
        for rcpt in recipients:
            code = self._refused.get(rcpt.lower())
            if code is None:
                results[rcpt] = RecipientResult("sent", 250, "OK")
                accepted.append(rcpt)
            else:
                status: SendStatus = "transient" if 400 <= code < 500 else "permanent"
                results[rcpt] = RecipientResult(status, code, "refused")
        if not accepted:
            codes = {r.code for r in results.values()}
            if all(400 <= c < 500 for c in codes):
                raise MailTransientError(f"all recipients refused: {sorted(codes)}")
            if all(c >= 500 for c in codes):
                raise MailPermanentError(f"all recipients refused: {sorted(codes)}")
            return SendResult(results, "")
        self.sent.append(SentMail(mail_from, tuple(accepted), bytes(raw)))
        return SendResult(results, "250 OK")

    def to(self, address: str) -> list[SentMail]:
        """The mails sent to ``address`` (case-insensitive), oldest first."""
        return [m for m in self.sent if address.lower() in (r.lower() for r in m.recipients)]
