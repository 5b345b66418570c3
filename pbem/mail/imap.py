"""An IMAP inbox over aioimaplib 2.0, hardened as mail.md prescribes.

* every call is wrapped in ``asyncio.wait_for``; on a timeout, an OS error, an aborted
  or lost connection the client is thrown away and a new one is made (with backoff),
  logged in and the mailbox re-selected;
* UIDVALIDITY is compared on every select: after a change, UIDs handed out before are
  stale (``mark_seen`` ignores them) and the next ``fetch_new`` simply re-scans UNSEEN —
  the caller's dedupe key makes the re-scan harmless;
* bodies are fetched with ``BODY.PEEK[]`` by UID (never setting \\Seen), after checking
  ``RFC822.SIZE``; the UID may come before or after the literal;
* STARTTLS is a small shim (aioimaplib has none); implicit TLS passes an SSL context;
* a refused login raises MailPermanentError, never retried;
* ``fetch_new`` hands out at most ``max_batch`` mails (the oldest); ``wait`` returns at
  once while more unseen mail is waiting;
* a batch costs a fixed number of commands, not a few per mail: NOOP, ``UID SEARCH
  UNSEEN``, one ``UID FETCH`` of the sizes, one of the bodies (cut every ``fetch_bytes``),
  and one ``UID STORE`` for the whole batch (``mark_seen_many``, after the commits);
* ``wait`` uses IDLE (re-issued at least every ``idle_max`` seconds, 25 min by default)
  or, without IDLE, polls ``UID SEARCH UNSEEN`` every ``poll_interval`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import aioimaplib
from aioimaplib.aioimaplib import STOP_WAIT_SERVER_PUSH, Command

from pbem.errors import MailPermanentError, MailServerDownError, MailSetupError, MailTransientError

from .fetch import fetch
from .transport import FetchedMail

__all__ = ["ImapInbox", "uid_set"]

log = logging.getLogger(__name__)

Security = Literal["none", "starttls", "tls"]
T = TypeVar("T")

_FETCH_START = re.compile(rb"^\d+ FETCH \(", re.IGNORECASE)
_UID_RE = re.compile(rb"\bUID (\d+)", re.IGNORECASE)
_SIZE_RE = re.compile(rb"\bRFC822\.SIZE (\d+)", re.IGNORECASE)
_UIDVALIDITY_RE = re.compile(rb"\[UIDVALIDITY (\d+)\]", re.IGNORECASE)
_PUSH_RE = re.compile(rb"^\d+ (EXISTS|RECENT)\b", re.IGNORECASE)


class _ImapRefused(Exception):
    """A command got NO/BAD: treated like a broken connection (retry on a new one)."""


def uid_set(uids: list[int]) -> str:
    """``[101, 102, 103, 107]`` → ``"101:103,107"``."""
    ordered = sorted(set(uids))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}:{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def _chunks(uids: list[int], sizes: dict[int, int], limit: int) -> list[list[int]]:
    """UIDs in order, cut so that no chunk asks for much more than ``limit`` bytes (a chunk
    holds at least one mail): a batch of large mails is not one giant response."""
    chunks: list[list[int]] = []
    current: list[int] = []
    total = 0
    for uid in uids:
        if current and total + sizes[uid] > limit:
            chunks.append(current)
            current, total = [], 0
        current.append(uid)
        total += sizes[uid]
    if current:
        chunks.append(current)
    return chunks


def _parse_fetch(lines: list[Any]) -> list[tuple[int | None, int | None, bytes | None]]:
    """(uid, size, literal) per FETCH item; the UID may follow the literal."""
    records: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for item in lines:
        if isinstance(item, bytearray):
            if current is not None and current.get("literal") is None:
                current["literal"] = bytes(item)
            continue
        if not isinstance(item, bytes):
            continue
        if _FETCH_START.match(item):
            current = {"text": item, "literal": None}
            records.append(current)
        elif current is not None:
            current["text"] += b" " + item
    result = []
    for rec in records:
        uid = _UID_RE.search(rec["text"])
        size = _SIZE_RE.search(rec["text"])
        result.append((int(uid.group(1)) if uid else None,
                       int(size.group(1)) if size else None,
                       rec["literal"]))
    return result


def _fetch(client: aioimaplib.IMAP4, message_set: str, parts: str) -> Awaitable[Any]:
    """``UID FETCH``, its response read in linear time (`pbem.mail.fetch`)."""
    return fetch(client.protocol, message_set, parts, client.timeout)


def _search_uids(lines: list[Any]) -> list[int]:
    """UIDs from a SEARCH response as aioimaplib gives it: the untagged ``* SEARCH 1 2``
    arrives as ``b"1 2"`` (the name stripped), the last line is the tagged OK text."""
    uids: list[int] = []
    for line in lines[:-1]:
        if not isinstance(line, (bytes, bytearray)):
            continue
        data = bytes(line)
        if data[:6].upper() == b"SEARCH":
            data = data[6:]
        tokens = data.split()
        if tokens and all(tok.isdigit() for tok in tokens):
            uids.extend(int(tok) for tok in tokens)
    return sorted(set(uids))


def _check(response: Any, what: str) -> Any:
    if response.result != "OK":
        text = b" ".join(ln for ln in response.lines if isinstance(ln, bytes))
        raise _ImapRefused(f"{what}: {response.result} {text.decode('utf-8', 'replace')}")
    return response


def _fail_pending(client: aioimaplib.IMAP4, exc: Exception | None) -> None:
    proto = client.protocol
    commands = [proto.pending_sync_command, *proto.pending_async_commands.values()]
    for command in commands:
        if command is None:
            continue
        try:
            command._exception = aioimaplib.Abort(f"connection lost: {exc!r}")
            command.close(b"connection lost", "BYE")
        except Exception:  # pragma: no cover - best effort
            pass


async def _settle(task: "asyncio.Future[Any]") -> None:
    """End an IDLE task we no longer wait for and retrieve its outcome: a dropped connection
    fails it with aioimaplib's Abort, which asyncio would otherwise log as "Task exception
    was never retrieved" with a traceback on every server restart."""
    def retrieve(done: "asyncio.Future[Any]") -> None:
        if not done.cancelled() and done.exception() is not None:
            log.debug("IMAP IDLE ended with %r", done.exception())

    task.add_done_callback(retrieve)
    if not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=1.0)


class ImapInbox:
    """Inbox over IMAP (see the module docstring for the guarantees)."""

    def __init__(
        self,
        host: str,
        port: int,
        username: str,
        password: str,
        security: Security = "none",
        mailbox: str = "INBOX",
        timeout: float = 30.0,
        use_idle: bool = True,
        max_size: int = 10_000_000,
        *,
        ssl_context: ssl.SSLContext | None = None,
        idle_max: float = 25 * 60.0,
        poll_interval: float = 30.0,
        retries: int = 3,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        max_batch: int = 200,
        fetch_bytes: int = 8_000_000,
        setting: str = "mail.imap",
    ) -> None:
        if security not in ("none", "starttls", "tls"):
            raise ValueError(f"security must be none, starttls or tls, not {security!r}")
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.security = security
        self.mailbox = mailbox
        self.timeout = timeout
        self.use_idle = use_idle
        self.max_size = max_size
        self.ssl_context = ssl_context
        self.idle_max = min(idle_max, 25 * 60.0)
        self.poll_interval = poll_interval
        self.retries = retries
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.max_batch = max(1, max_batch)
        self.fetch_bytes = max(1, fetch_bytes)  # bodies asked for in one UID FETCH, at most (about)
        self.setting = setting  # the configuration section named in the hints of a failure
        self.uidvalidity: int | None = None
        self.uidvalidity_changes = 0
        self.reconnects = 0
        self._client: aioimaplib.IMAP4 | None = None
        self._lost: asyncio.Event | None = None
        self._handed: dict[int, int] = {}
        self._max_uid_seen = 0
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()  # set by every other call: ends a running wait()
        self._connected_once = False
        self._trouble_since: float | None = None  # one WARNING when trouble starts, one INFO when over

    # ------------------------------------------------------------------ plumbing

    @property
    def connected(self) -> bool:
        return self._client is not None and not (self._lost and self._lost.is_set())

    @property
    def idle_supported(self) -> bool:
        return self._client is not None and self._client.has_capability("IDLE")

    def _tls_context(self) -> ssl.SSLContext:
        return self.ssl_context or ssl.create_default_context(ssl.Purpose.SERVER_AUTH)

    async def _timed(self, awaitable: Awaitable[T], timeout: float | None = None) -> T:
        return await asyncio.wait_for(awaitable, timeout or self.timeout)

    async def _open(self) -> aioimaplib.IMAP4:
        lost = asyncio.Event()
        holder: list[aioimaplib.IMAP4] = []

        def on_lost(exc: Exception | None) -> None:
            # aioimaplib leaves pending commands hanging until their timeout: fail them now
            lost.set()
            if holder:
                _fail_pending(holder[0], exc)

        client = aioimaplib.IMAP4(
            host=self.host, port=self.port, timeout=self.timeout, conn_lost_cb=on_lost,
            ssl_context=self._tls_context() if self.security == "tls" else None)
        holder.append(client)
        try:
            try:
                await self._timed(client.wait_hello_from_server())
            except ssl.SSLError as exc:
                raise self._tls_failure(exc) from exc
            if self.security == "starttls":
                await self._starttls(client)
            response = await self._timed(client.login(self.username, self.password))
            if response.result != "OK":
                text = b" ".join(ln for ln in response.lines if isinstance(ln, bytes))
                raise MailSetupError(
                    f"IMAP login refused for {self.username!r} at {self.host}:{self.port}: "
                    f"{response.result} {text.decode('utf-8', 'replace')}",
                    f"check the user and password in the environment variables named by "
                    f"{self.setting}.username_env and {self.setting}.password_env")
            # capabilities recorded at login may be junk: ask again
            await self._timed(client.protocol.capability())
            response = await self._timed(client.select(self.mailbox))
            if response.result != "OK":
                raise MailPermanentError(
                    f"cannot select IMAP mailbox {self.mailbox!r}: {response.result} "
                    f"{response.lines!r}")
        except BaseException:
            self._abandon(client)
            raise
        self._note_uidvalidity(response.lines)
        self._lost = lost
        return client

    async def _starttls(self, client: aioimaplib.IMAP4) -> None:
        proto = client.protocol
        if "STARTTLS" not in proto.capabilities:
            raise MailPermanentError(
                f"IMAP {self.host}:{self.port} does not offer STARTTLS")
        command = Command("STARTTLS", proto.new_tag(), loop=proto.loop)
        response = await self._timed(proto.execute(command))
        if response.result != "OK":
            raise MailPermanentError(f"IMAP STARTTLS refused: {response.lines!r}")
        loop = asyncio.get_running_loop()
        try:
            transport = await self._timed(loop.start_tls(
                proto.transport, proto, self._tls_context(), server_hostname=self.host))
        except ssl.SSLError as exc:
            raise self._tls_failure(exc) from exc
        if transport is None:  # pragma: no cover - only if the loop refuses
            raise MailTransientError("STARTTLS: no transport")
        proto.transport = transport
        await self._timed(proto.capability())

    def _tls_failure(self, exc: ssl.SSLError) -> MailSetupError:
        at = f"{self.host}:{self.port}"
        if isinstance(exc, ssl.SSLCertVerificationError):
            return MailSetupError(
                f"TLS certificate of IMAP {at} not trusted: {exc.verify_message or exc}",
                f"set {self.setting}.ca_file to the CA certificate that signed the server's "
                f"certificate (or to the certificate itself), and check that {self.setting}.host "
                f"is a name the certificate carries")
        return MailSetupError(f"TLS failure with IMAP {at}: {exc}",
                              f"check {self.setting}.security for this port (\"tls\" on 993, "
                              f"\"starttls\" on 143)")

    def _note_uidvalidity(self, lines: list[Any]) -> None:
        value = None
        for line in lines:
            if isinstance(line, bytes):
                m = _UIDVALIDITY_RE.search(line)
                if m:
                    value = int(m.group(1))
        if value is None:
            return
        if self.uidvalidity is not None and value != self.uidvalidity:
            self.uidvalidity_changes += 1
            self._max_uid_seen = 0
            log.warning("IMAP %s UIDVALIDITY changed %s → %s: old UIDs are stale, "
                        "re-scanning UNSEEN", self.mailbox, self.uidvalidity, value)
        self.uidvalidity = value

    def _abandon(self, client: aioimaplib.IMAP4) -> None:
        try:
            if client._idle_waiter is not None:
                client._idle_waiter.cancel()
            for task in list(client.tasks) + list(client.protocol.tasks):
                task.cancel()
            if not client._client_task.done():
                client._client_task.cancel()
            transport = client.protocol.transport
            if transport is not None:
                transport.close()
        except Exception:  # pragma: no cover - best effort
            log.debug("error while dropping an IMAP client", exc_info=True)

    def _discard(self) -> None:
        if self._client is not None:
            self._abandon(self._client)
        self._client = None
        self._lost = None

    def _trouble(self, what: str, exc: BaseException | None) -> None:
        """Log the start of an outage once (a server restart must not flood the log)."""
        if self._trouble_since is None:
            self._trouble_since = time.monotonic()
            log.warning("IMAP %s:%s: %s%s; reconnecting with backoff (mail waits on the server)",
                        self.host, self.port, what, f": {exc!r}" if exc is not None else "")
        else:
            log.debug("IMAP %s:%s: %s: %r", self.host, self.port, what, exc)

    def _recovered(self) -> None:
        if self._trouble_since is not None:
            log.info("IMAP %s:%s answers again (after %.0f s); mailbox %s selected", self.host, self.port,
                     time.monotonic() - self._trouble_since, self.mailbox)
            self._trouble_since = None

    async def _ensure(self) -> aioimaplib.IMAP4:
        if self._client is not None and self._lost is not None and self._lost.is_set():
            self._trouble("the connection was lost", None)
            self._discard()
        if self._client is None:
            if self._connected_once:
                self.reconnects += 1
            self._client = await self._open()
            self._connected_once = True
        return self._client

    async def _run(self, op: Callable[[aioimaplib.IMAP4], Awaitable[T]], what: str) -> T:
        delay = self.backoff_initial
        last: BaseException | None = None
        for attempt in range(self.retries + 1):
            try:
                client = await self._ensure()
                result = await op(client)
                self._recovered()
                return result
            except MailPermanentError:
                self._discard()  # a setting to fix: the caller reports it (with the fix), not retried here
                raise
            except Exception as exc:  # timeouts, OSError, aioimaplib aborts, NO/BAD
                last = exc
                self._discard()
                self._trouble(f"{what} failed (attempt {attempt + 1}/{self.retries + 1})", exc)
                if attempt < self.retries:
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, self.backoff_max)
        raise MailServerDownError(
            f"IMAP {what} at {self.host}:{self.port} failed after {self.retries + 1} "
            f"attempts: {last!r}", self._fix_for(last)) from last

    def _fix_for(self, exc: BaseException | None) -> str:
        """What an administrator should check when the server cannot be reached."""
        where = self.setting
        if isinstance(exc, socket.gaierror):
            return f"the name {self.host!r} does not resolve: check {where}.host and the machine's DNS"
        if isinstance(exc, ConnectionRefusedError):
            return f"nothing listens there: check that the server runs, and {where}.host and {where}.port"
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
            return (f"no answer: check {where}.host and {where}.port (a firewall that drops packets looks "
                    f"like this) and {where}.security")
        return f"check that the server runs, and {where}.host, {where}.port and {where}.security"

    # -------------------------------------------------------------------- Inbox

    async def connect(self) -> None:
        self._wake.set()
        async with self._lock:
            async def noop(client: aioimaplib.IMAP4) -> None:
                return None
            await self._run(noop, "connect")

    async def _unseen(self, client: aioimaplib.IMAP4) -> list[int]:
        # NOOP first: some servers (pymap) search only the messages the session has
        # already been told about; NOOP delivers the pending EXISTS updates.
        _check(await self._timed(client.noop()), "NOOP")
        response = _check(await self._timed(client.uid_search("UNSEEN", charset=None)),
                          "UID SEARCH UNSEEN")
        return _search_uids(response.lines)

    async def fetch_new(self) -> list[FetchedMail]:
        self._wake.set()
        async with self._lock:
            return await self._run(self._fetch_new, "fetch")

    async def _fetch_new(self, client: aioimaplib.IMAP4) -> list[FetchedMail]:
        uids = (await self._unseen(client))[: self.max_batch]
        if not uids:
            return []
        response = _check(await self._timed(_fetch(client, uid_set(uids), "(UID RFC822.SIZE)")),
                          "UID FETCH sizes")
        sizes = {uid: size for uid, size, _ in _parse_fetch(response.lines)
                 if uid is not None and size is not None}
        validity = self.uidvalidity or 0
        wanted = [uid for uid in uids if uid in sizes and sizes[uid] <= self.max_size]
        bodies: dict[int, bytes] = {}
        for chunk in _chunks(wanted, sizes, self.fetch_bytes):
            bodies.update(await self._fetch_bodies(client, chunk, sum(sizes[uid] for uid in chunk)))
        result: list[FetchedMail] = []
        for uid in uids:
            size = sizes.get(uid)
            if size is None:
                continue  # expunged meanwhile
            if size > self.max_size:
                log.info("IMAP UID %s is %d bytes (> %d): not fetched", uid, size, self.max_size)
                result.append(FetchedMail(uid, None, size, True, validity, await self._fetch_from(client, uid)))
            else:
                raw = bodies.get(uid)
                if raw is None:
                    continue  # expunged meanwhile
                result.append(FetchedMail(uid, raw, len(raw), False, validity))
            self._handed[uid] = validity
            self._max_uid_seen = max(self._max_uid_seen, uid)
        return result

    async def _fetch_from(self, client: aioimaplib.IMAP4, uid: int) -> bytes | None:
        """The From lines of a mail too large to download (to tell a player it was not read)."""
        try:
            response = _check(await self._timed(
                _fetch(client, str(uid), "(UID BODY.PEEK[HEADER.FIELDS (FROM)])")), f"UID FETCH {uid} FROM")
        except (MailPermanentError, MailTransientError) as exc:
            log.info("IMAP UID %s: its From could not be fetched: %s", uid, exc)
            return None
        for got_uid, _, literal in _parse_fetch(response.lines):
            if got_uid == uid and literal is not None:
                return literal[:65536]
        return None

    async def _fetch_bodies(self, client: aioimaplib.IMAP4, uids: list[int], total: int) -> dict[int, bytes]:
        """The bodies of several mails in one ``UID FETCH`` (a UID set): one round trip for
        a batch, not one per mail; the timeout grows with the bytes asked for."""
        timeout = self.timeout + total / 50_000
        response = _check(await self._timed(
            _fetch(client, uid_set(uids), "(UID RFC822.SIZE BODY.PEEK[])"), timeout),
            f"UID FETCH {uid_set(uids)}")
        asked = set(uids)
        return {uid: literal for uid, _, literal in _parse_fetch(response.lines)
                if uid in asked and literal is not None}

    async def mark_seen(self, uid: int) -> None:
        await self.mark_seen_many([uid])

    async def mark_seen_many(self, uids: list[int]) -> None:
        """Set \\Seen on several mails in one ``UID STORE`` (call after their commits)."""
        if not uids:
            return
        self._wake.set()
        async with self._lock:
            await self._run(lambda client: self._store_seen(client, uids), f"mark {uid_set(uids)} seen")

    async def _store_seen(self, client: aioimaplib.IMAP4, uids: list[int]) -> None:
        fresh = []
        for uid in uids:
            handed = self._handed.get(uid)
            if handed is not None and self.uidvalidity is not None and handed != self.uidvalidity:
                log.warning("IMAP UID %s belongs to UIDVALIDITY %s (now %s): not flagged; the "
                            "mail will come back under a new UID", uid, handed, self.uidvalidity)
                self._handed.pop(uid, None)
            else:
                fresh.append(uid)
        if not fresh:
            return
        _check(await self._timed(client.uid("store", uid_set(fresh), "+FLAGS.SILENT", r"(\Seen)")),
               f"UID STORE {uid_set(fresh)}")
        for uid in fresh:
            self._handed.pop(uid, None)

    async def wait(self, timeout: float) -> None:
        """Return when new mail may have arrived, or after ``timeout`` seconds.

        Also returns early when another call (fetch_new, mark_seen, close) is made on this
        inbox meanwhile, so a running IDLE never blocks them. Never raises for transient
        trouble (it then waits, at most ``backoff_max`` seconds, and returns).
        """
        deadline = time.monotonic() + max(0.0, timeout)
        try:
            async with self._lock:
                self._wake.clear()
                client = await self._run(self._timed_ready, "wait")
                if await self._has_new(client):
                    return
                if self.use_idle and client.has_capability("IDLE"):
                    while time.monotonic() < deadline:
                        if await self._idle_once(client, deadline):
                            return
                        if self._wake.is_set() or self._lost is None or self._lost.is_set():
                            return
                        if await self._has_new(client):
                            return
                    return
            await self._poll(deadline)
        except MailPermanentError:
            raise
        except MailTransientError as exc:
            self._trouble("waiting for mail failed", exc)
            await self._sleep(min(deadline - time.monotonic(), self.backoff_max))
        except Exception as exc:
            self._trouble("waiting for mail failed", exc)
            self._discard()
            await self._sleep(min(deadline - time.monotonic(), self.backoff_max))

    async def _sleep(self, seconds: float) -> bool:
        """Sleep unless woken; True when woken by another call."""
        if seconds <= 0:
            return self._wake.is_set()
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
            return True
        except TimeoutError:
            return False

    async def _timed_ready(self, client: aioimaplib.IMAP4) -> aioimaplib.IMAP4:
        return client

    async def _has_new(self, client: aioimaplib.IMAP4) -> bool:
        uids = await self._run(self._unseen, "search")
        return any(uid > self._max_uid_seen for uid in uids)

    async def _idle_once(self, client: aioimaplib.IMAP4, deadline: float) -> bool:
        """One IDLE round; True when the server pushed EXISTS/RECENT."""
        lost = self._lost
        queue = client.protocol.idle_queue
        while not queue.empty():
            queue.get_nowait()
        span = min(deadline - time.monotonic(), self.idle_max)
        if span <= 0:
            return False
        try:
            idle_task = await self._timed(client.idle_start(timeout=span + self.timeout))
        except Exception as exc:
            log.info("IMAP IDLE could not start: %r", exc)
            self._discard()
            return True
        pushed = False
        try:
            end = time.monotonic() + span
            while True:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    break
                push = asyncio.ensure_future(queue.get())
                woken = asyncio.ensure_future(self._wake.wait())
                waiters: set[asyncio.Future[Any]] = {push, woken}
                lost_wait = asyncio.ensure_future(lost.wait()) if lost else None
                if lost_wait is not None:
                    waiters.add(lost_wait)
                done, _ = await asyncio.wait(waiters, timeout=remaining,
                                             return_when=asyncio.FIRST_COMPLETED)
                for fut in waiters:
                    if fut not in done:
                        fut.cancel()
                if lost_wait is not None and lost_wait in done:
                    self._trouble("the connection was lost during IDLE", None)
                    self._discard()
                    return True
                if push not in done:
                    break  # timed out or woken by another call
                lines = push.result()
                if lines == STOP_WAIT_SERVER_PUSH:
                    break
                if any(isinstance(ln, bytes) and _PUSH_RE.match(ln) for ln in lines):
                    pushed = True
                    break
        finally:
            current: Any = self._client
            if current is not None and current is client:
                try:
                    current.idle_done()
                    await self._timed(idle_task)
                except Exception as exc:
                    log.info("IMAP IDLE did not end cleanly: %r", exc)
                    self._discard()
                    pushed = True
            await _settle(idle_task)
        return pushed

    async def _poll(self, deadline: float) -> None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if await self._sleep(min(self.poll_interval, remaining)):
                return
            async with self._lock:
                client = await self._run(self._timed_ready, "poll")
                if await self._has_new(client):
                    return

    async def close(self) -> None:
        self._wake.set()
        async with self._lock:
            client = self._client
            if client is None:
                return
            try:
                if self._lost is None or not self._lost.is_set():
                    await asyncio.wait_for(client.logout(), min(self.timeout, 5.0))
            except Exception:
                pass
            finally:
                self._discard()
