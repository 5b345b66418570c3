"""A real, persistent mail server on loopback for a fresh machine and for tests.

``EmbeddedMailServer`` runs in the current event loop:

* IMAP: pymap, with its on-disk ``maildir`` backend (``maildir=<dir>``) or its in-memory
  ``dict`` backend (``maildir=None``, for tests);
* SMTP: aiosmtpd, delivering each message byte-identical (plus ``Return-Path`` and
  ``Received`` headers on top) straight into the recipient's INBOX through pymap's own
  mailbox API, so IMAP sessions see it at once (IDLE pushes within milliseconds on the
  dict backend, within ~1 s on maildir).

Accounts are created on demand for any address at the configured local domains
(``user@localhost`` → account ``user``; ``user+tag@localhost`` → ``user``; the same
local part at two local domains is one account). Unknown domains get ``550`` unless a
``catch_all`` account is set.

**Every account's IMAP (and SMTP AUTH) password is the one shared ``password``.** This
is a development server for loopback only: anyone who can reach the port can read every
mailbox, so it refuses to bind anything but a loopback address (`loopback_only`) and says
so when it starts. Log in as ``user`` or ``user@<local domain>``.

Fault injection for tests: ``fail_next(code=451, count=1, stage="rcpt")`` and
``refuse(address, code=550)``; ``drop_connections()`` cuts every open connection;
``reset_uidvalidity(account)`` gives a dict-backend INBOX a new UIDVALIDITY.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import os
import re
import ssl
import tempfile
import uuid
from argparse import Namespace
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP as SMTPProtocol
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session
from proxyprotocol.reader import ProxyProtocolReader
from proxyprotocol.result import ProxyResultUnknown
from proxyprotocol.sock import SocketInfo
from pymap.backend.dict import Config as DictConfig
from pymap.backend.dict import DictBackend
from pymap.backend.dict import Identity as DictIdentity
from pymap.backend.dict import Login as DictLogin
import pymap.backend.maildir.io as maildir_io
from pymap.backend.maildir import Config as MaildirConfig
from pymap.backend.maildir import Identity as MaildirIdentity
from pymap.backend.maildir import Login as MaildirLogin
from pymap.backend.maildir import MaildirBackend
from pymap.concurrent import Subsystem
from pymap.context import subsystem as pymap_subsystem
from pymap.exceptions import AuthorizationFailure, InvalidAuth, UserNotFound
from pymap.imap import IMAPServer
from pymap.interfaces.login import IdentityInterface, LoginInterface
from pymap.parsing.message import AppendMessage
from pymap.user import UserMetadata
from pysasl.creds.server import ServerCredentials
from pysasl.hashing import Cleartext
from pysasl.identity import ClearIdentity

from pbem.errors import MailError

__all__ = ["Deliver", "EmbeddedMailServer", "Fault", "SmtpFront", "is_loopback", "loopback_only"]

log = logging.getLogger(__name__)

_ACCOUNT_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")



def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address literal (127.0.0.0/8, ::1); names are not resolved."""
    name = host.strip().strip("[]").lower()
    if name in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def loopback_only(host: str) -> str:
    """``host`` when it is loopback; else the `MailError` saying why the embedded server will not bind it."""
    if not is_loopback(host):
        raise MailError(f"the embedded mail server binds loopback only (127.0.0.1, ::1 or localhost), not {host!r}: "
                        "every mailbox shares one password, so anyone who reaches it reads every player's mail; "
                        "for a server others reach use mail.backend = \"remote\"")
    return host


#: ``deliver(mail_from, recipient_address, raw)``: store one message for one recipient.
Deliver = Callable[[str, str, bytes], Awaitable[None]]


@dataclass
class Fault:
    """An injected SMTP reply: ``count`` more times at ``stage`` ("mail", "rcpt", "data")."""

    code: int
    count: int
    stage: str
    text: str


def _reply(code: int, text: str) -> str:
    return f"{code} {text}"


class SmtpFront:
    """An aiosmtpd SMTP listener on loopback that hands each accepted message to
    ``deliver`` once per recipient. ``accepts(address)`` says whether a recipient is
    served here. Used by the embedded server and by the Dovecot test layer (which
    delivers over LMTP).
    """

    def __init__(
        self,
        deliver: Deliver,
        accepts: Callable[[str], bool],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        hostname: str = "localhost",
        password: str | None = None,
        tls_context: ssl.SSLContext | None = None,
        smtps_port: int | None = None,
        data_size_limit: int = 64 * 1024 * 1024,
    ) -> None:
        self._deliver = deliver
        self._accepts = accepts
        self.host = host
        self.port = port
        self.hostname = hostname
        self.password = password
        self.tls_context = tls_context
        self.smtps_port = smtps_port
        self.data_size_limit = data_size_limit
        self._servers: list[asyncio.AbstractServer] = []
        self._protocols: set[SMTPProtocol] = set()
        self._faults: list[Fault] = []
        self._refused: dict[str, int] = {}
        self.received: int = 0

    # ------------------------------------------------------------ fault injection

    def fail_next(self, code: int = 451, count: int = 1, stage: str = "rcpt",
                  text: str | None = None) -> None:
        """Answer the next ``count`` commands of ``stage`` (mail|rcpt|data) with ``code``."""
        if stage not in ("mail", "rcpt", "data"):
            raise ValueError("stage must be mail, rcpt or data")
        default = "4.7.1 Try again later (injected)" if code < 500 else "5.7.1 Refused (injected)"
        self._faults.append(Fault(code, count, stage, text or default))

    def refuse(self, address: str, code: int = 550, text: str | None = None) -> None:
        """Refuse RCPT TO this address (case-insensitive) from now on."""
        self._refused[address.lower()] = code

    def clear_faults(self) -> None:
        self._faults.clear()
        self._refused.clear()

    def _take_fault(self, stage: str) -> str | None:
        for fault in self._faults:
            if fault.stage == stage:
                fault.count -= 1
                if fault.count <= 0:
                    self._faults.remove(fault)
                return _reply(fault.code, fault.text)
        return None

    # ------------------------------------------------------------- aiosmtpd hooks

    async def handle_MAIL(self, server: SMTPProtocol, session: Session, envelope: Envelope,
                          address: str, mail_options: list[str]) -> str:
        fault = self._take_fault("mail")
        if fault:
            return fault
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server: SMTPProtocol, session: Session, envelope: Envelope,
                          address: str, rcpt_options: list[str]) -> str:
        fault = self._take_fault("rcpt")
        if fault:
            return fault
        code = self._refused.get(address.lower())
        if code is not None:
            status = "5.1.1" if code >= 500 else "4.2.0"
            return _reply(code, f"{status} <{address}> refused (injected)")
        if not self._accepts(address):
            return _reply(550, f"5.1.2 <{address}>: domain not served here")
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: SMTPProtocol, session: Session,
                          envelope: Envelope) -> str:
        fault = self._take_fault("data")
        if fault:
            return fault
        raw = envelope.original_content or b""
        if isinstance(envelope.content, bytes) and not raw:
            raw = envelope.content
        mail_from = envelope.mail_from or ""
        try:
            for rcpt in envelope.rcpt_tos:
                await self._deliver(mail_from, rcpt, raw)
        except Exception:
            log.exception("local delivery failed")
            return "451 4.3.0 Local delivery failed, try again later"
        self.received += 1
        return "250 2.0.0 OK delivered"

    def _authenticate(self, server: SMTPProtocol, session: Session, envelope: Envelope,
                            mechanism: str, auth_data: Any) -> AuthResult:
        ok = (isinstance(auth_data, LoginPassword) and self.password is not None
              and auth_data.password.decode("utf-8", "replace") == self.password)
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    # --------------------------------------------------------------- lifecycle

    def _factory(self) -> SMTPProtocol:
        kwargs: dict[str, Any] = {}
        if self.password is not None:
            kwargs.update(authenticator=self._authenticate, auth_require_tls=False)
        proto = _TrackedSMTP(self, self, hostname=self.hostname, ident="pbem embedded",
                             tls_context=self.tls_context, data_size_limit=self.data_size_limit,
                             loop=asyncio.get_running_loop(), **kwargs)
        return proto

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(self._factory, self.host, self.port)
        self.port = server.sockets[0].getsockname()[1]
        self._servers.append(server)
        if self.tls_context is not None and self.smtps_port is not None:
            tls_server = await loop.create_server(self._factory, self.host, self.smtps_port,
                                                  ssl=self.tls_context)
            self.smtps_port = tls_server.sockets[0].getsockname()[1]
            self._servers.append(tls_server)

    def drop_connections(self) -> None:
        for proto in list(self._protocols):
            transport = proto.transport
            if transport is not None:
                transport.abort()  # type: ignore[attr-defined]
        self._protocols.clear()

    async def stop(self) -> None:
        for server in self._servers:
            server.close()
        self.drop_connections()
        for server in self._servers:
            try:
                await asyncio.wait_for(server.wait_closed(), 2)
            except (TimeoutError, Exception):
                pass
        self._servers.clear()


def _temp_files_in(folder: Path) -> None:
    """pymap's maildir writes each index file to a temporary file in the system's temp folder
    and renames it into the maildir: across two filesystems (a container's volume, systemd's
    PrivateTmp) the rename fails (EXDEV) and every login ends in a server error. Its temporary
    files are made in the maildir instead (the same filesystem as their destination)."""
    maildir_io.NamedTemporaryFile = functools.partial(tempfile.NamedTemporaryFile, dir=str(folder))  # type: ignore[assignment]


class _QuietSession(Session):
    """aiosmtpd itself sets its deprecated ``login_data`` on every login, and logs a
    deprecation warning each time; we never read it, so the attribute is kept silently."""

    @property  # type: ignore[override]
    def login_data(self) -> Any:
        return self._login_data

    @login_data.setter
    def login_data(self, value: Any) -> None:
        self._login_data = value


class _TrackedSMTP(SMTPProtocol):
    def __init__(self, front: SmtpFront, handler: Any, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self._front = front
        front._protocols.add(self)

    def _create_session(self) -> Session:
        return _QuietSession(self.loop)

    def connection_lost(self, error: Exception | None) -> None:
        self._front._protocols.discard(self)
        super().connection_lost(error)


class _SharedPasswordLogin(LoginInterface):
    """pymap login: any account at a local domain, one shared password."""

    def __init__(self, server: EmbeddedMailServer) -> None:
        super().__init__()
        self._server = server

    @property
    def tokens(self) -> Any:
        return self._server._backend_login().tokens

    async def authenticate(self, credentials: ServerCredentials) -> IdentityInterface:
        account = self._server.account_for_login(credentials.authcid)
        if account is None or not credentials.verify(
                ClearIdentity(credentials.authcid, self._server.password)):
            await asyncio.sleep(0.05)
            raise InvalidAuth()
        await self._server.ensure_account(account)
        return self._server._identity(account)

    async def authorize(self, authenticated: IdentityInterface,
                        authzid: str) -> IdentityInterface:
        if authzid and self._server.account_for_login(authzid) != authenticated.name:
            raise AuthorizationFailure()
        return authenticated


class EmbeddedMailServer:
    """pymap IMAP + aiosmtpd SMTP on loopback, in the running event loop.

    Ports 0 pick free ports; after ``start()`` the bound ports are in ``imap_port`` and
    ``smtp_port`` (and ``imaps_port`` / ``smtps_port`` when ``tls_context`` is given: then
    IMAP and SMTP also offer STARTTLS). A stopped server can be started again on the same
    ports with its data (the dict backend keeps it in memory, maildir on disk).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        imap_port: int = 0,
        smtp_port: int = 0,
        maildir: str | os.PathLike[str] | None = None,
        domains: Sequence[str] = ("localhost",),
        password: str = "pbem",
        hostname: str = "localhost",
        catch_all: str | None = None,
        tls_context: ssl.SSLContext | None = None,
        imaps_port: int | None = None,
        smtps_port: int | None = None,
    ) -> None:
        self.host = loopback_only(host)
        self.imap_port = imap_port
        self.maildir = Path(maildir) if maildir is not None else None
        self.domains = tuple(d.lower().strip() for d in domains)
        self.password = password
        self.hostname = hostname
        self.catch_all = catch_all.lower() if catch_all else None
        self.tls_context = tls_context
        self.imaps_port = imaps_port if imaps_port is not None else (0 if tls_context else None)
        self.smtp = SmtpFront(
            self._deliver_smtp, self.accepts, host=host, port=smtp_port, hostname=hostname,
            password=password, tls_context=tls_context,
            smtps_port=smtps_port if smtps_port is not None else (0 if tls_context else None))
        self._backend: DictBackend | MaildirBackend | None = None
        self._imap_servers: list[asyncio.AbstractServer] = []
        self._imap_writers: set[asyncio.StreamWriter] = set()
        self._imap_tasks: set[asyncio.Task[Any]] = set()
        self._stack: AsyncExitStack | None = None
        self._running = False

    # ----------------------------------------------------------------- addresses

    @property
    def smtp_port(self) -> int:
        return self.smtp.port

    @property
    def smtps_port(self) -> int | None:
        return self.smtp.smtps_port

    @property
    def running(self) -> bool:
        return self._running

    def _split(self, address: str) -> tuple[str, str] | None:
        address = address.strip().strip("<>").lower()
        local, at, domain = address.rpartition("@")
        if not at:
            return None
        return local.split("+", 1)[0], domain

    def account_for(self, address: str) -> str | None:
        """The local account an address delivers to, or None when not served here."""
        parts = self._split(address)
        if parts is None:
            return None
        local, domain = parts
        if domain in self.domains and _ACCOUNT_RE.match(local):
            return local
        return self.catch_all

    def accepts(self, address: str) -> bool:
        return self.account_for(address) is not None

    def account_for_login(self, name: str) -> str | None:
        name = name.strip().lower()
        if "@" in name:
            parts = self._split(name)
            if parts is None or parts[1] not in self.domains:
                return None
            name = parts[0]
        name = name.split("+", 1)[0]
        return name if _ACCOUNT_RE.match(name) else None

    def address(self, account: str) -> str:
        """``account@<first local domain>``."""
        return f"{account}@{self.domains[0]}"

    # ------------------------------------------------------------------ backend

    async def _make_backend(self) -> DictBackend | MaildirBackend:
        args = Namespace(passlib_cfg=None, proxy_protocol=None, inherited_sockets=None,
                         debug=False)
        common: dict[str, Any] = dict(
            host=self.host, port=self.imap_port, subsystem=Subsystem.for_asyncio(),
            cpu_subsystem=Subsystem.for_asyncio(), hash_context=Cleartext(),
            tls_enabled=self.tls_context is not None, reject_dnsbl=False,
            invalid_user_sleep=0.05, bad_command_limit=20,
        )
        if self.tls_context is not None:
            common["ssl_context"] = self.tls_context
        if self.maildir is None:
            config = DictConfig(args, demo_data=False, demo_user="\x00nobody",
                                demo_password=os.urandom(16).hex(), **common)
            return DictBackend(DictLogin(config), config)
        self.maildir.mkdir(parents=True, exist_ok=True)
        _temp_files_in(self.maildir)
        mconfig = MaildirConfig(args, base_dir=str(self.maildir), layout="++", colon=None,
                                **common)
        return MaildirBackend(MaildirLogin(mconfig), mconfig)

    def _backend_login(self) -> Any:
        assert self._backend is not None, "server not started"
        return self._backend.login

    def _identity(self, account: str) -> Any:
        backend = self._backend
        assert backend is not None, "server not started"
        if isinstance(backend, DictBackend):
            return DictIdentity(account, backend.login, None, frozenset())
        return MaildirIdentity(backend.config, backend.login.tokens, account, None, frozenset())

    async def ensure_account(self, account: str) -> None:
        """Create the account (and its INBOX) if it does not exist yet."""
        backend = self._backend
        assert backend is not None, "server not started"
        if isinstance(backend, DictBackend):
            if account not in backend.login.users_dict:
                backend.login.users_dict[account] = UserMetadata(backend.config, account)
            return
        identity = self._identity(account)
        try:
            await identity.get()
        except UserNotFound:
            await identity.set(UserMetadata(backend.config, account))

    async def deliver(self, address: str, raw: bytes, mail_from: str = "") -> None:
        """Put ``raw`` into the INBOX of the account ``address`` maps to (unseen, recent).

        Raises ValueError for an address not served here. SMTP uses the same path.
        """
        account = self.account_for(address)
        if account is None:
            raise ValueError(f"{address!r} is not served by this server")
        await self.ensure_account(account)
        token = pymap_subsystem.set(self._backend.config.subsystem)  # type: ignore[union-attr]
        try:
            identity = self._identity(account)
            async with identity.new_session() as session:
                mailbox = await session.mailbox_set.get_mailbox("INBOX")
                await mailbox.append(AppendMessage(bytes(raw)), recent=True)
        finally:
            pymap_subsystem.reset(token)

    async def _deliver_smtp(self, mail_from: str, rcpt: str, raw: bytes) -> None:
        now = format_datetime(datetime.now(UTC))
        trace = (f"Return-Path: <{mail_from}>\r\n"
                 f"Received: from loopback by {self.hostname} (pbem embedded) "
                 f"for <{rcpt}>; {now}\r\n").encode("utf-8", "replace")
        await self.deliver(rcpt, trace + raw, mail_from)

    async def messages(self, account_or_address: str) -> list[tuple[int, bytes, bool]]:
        """(uid, raw, seen) of every message in an INBOX, read through the backend."""
        account = (self.account_for(account_or_address) if "@" in account_or_address
                   else self.account_for_login(account_or_address))
        if account is None:
            return []
        await self.ensure_account(account)
        result: list[tuple[int, bytes, bool]] = []
        identity = self._identity(account)
        async with identity.new_session() as session:
            mailbox = await session.mailbox_set.get_mailbox("INBOX")
            from pymap.parsing.specials import FetchRequirement
            from pymap.parsing.specials.flag import Seen
            async for message in mailbox.messages():
                loaded = await message.load_content(FetchRequirement.CONTENT)
                content = loaded.content
                data = bytes(content) if content is not None else b""
                result.append((message.uid, data, Seen in message.permanent_flags))
        return sorted(result)

    async def reset_uidvalidity(self, account: str) -> int:
        """Dict backend only: replace the INBOX with a copy under a new UIDVALIDITY
        (UIDs renumbered, flags kept), as after a server migration. Returns the new value.
        Existing IMAP sessions keep the old mailbox until they reconnect."""
        backend = self._backend
        if not isinstance(backend, DictBackend):
            raise NotImplementedError("reset_uidvalidity needs the in-memory backend")
        from pymap.backend.dict.mailbox import MailboxData
        await self.ensure_account(account)
        identity = self._identity(account)
        async with identity.new_session() as session:
            mailbox_set = session.mailbox_set
            old = mailbox_set._inbox
            new = MailboxData(mailbox_set._content_cache, mailbox_set._thread_cache)
            while new.uid_validity == old.uid_validity:  # pragma: no cover - random clash
                new = MailboxData(mailbox_set._content_cache, mailbox_set._thread_cache)
            new._max_uid = old._max_uid + 100
            async for message in old.messages():
                await old.copy(message.uid, new)
            mailbox_set._inbox = new
            return new.uid_validity

    # ---------------------------------------------------------------- lifecycle

    async def _on_imap(self, callback: Any, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._imap_writers.add(writer)
        if task is not None:
            self._imap_tasks.add(task)
        try:
            await callback(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:
            log.debug("IMAP connection ended with an error", exc_info=True)
        finally:
            self._imap_writers.discard(writer)
            if task is not None:
                self._imap_tasks.discard(task)

    async def start(self) -> None:
        if self._running:
            return
        if self._backend is None:
            self._backend = await self._make_backend()
        backend = self._backend
        config = backend.config
        token = pymap_subsystem.set(config.subsystem)
        try:
            imap_server = IMAPServer(_SharedPasswordLogin(self), config)
            proxy = ProxyProtocolReader(config.proxy_protocol)

            async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                # what pymap's ProxyProtocolReader callback does, but in this task (so a
                # stop can cancel the connection): no PROXY header on loopback
                try:
                    result = await asyncio.wait_for(proxy.read(reader), 3)
                except Exception as exc:
                    result = ProxyResultUnknown(exc)
                sock_info = SocketInfo.get(writer, result, unique_id=uuid.uuid4().bytes)
                await imap_server(reader, writer, sock_info)

            async def on_connect(reader: asyncio.StreamReader,
                                 writer: asyncio.StreamWriter) -> None:
                await self._on_imap(serve, reader, writer)

            server = await asyncio.start_server(on_connect, self.host, self.imap_port)
            self.imap_port = server.sockets[0].getsockname()[1]
            self._imap_servers.append(server)
            if self.tls_context is not None and self.imaps_port is not None:
                tls_server = await asyncio.start_server(on_connect, self.host, self.imaps_port,
                                                        ssl=self.tls_context)
                self.imaps_port = tls_server.sockets[0].getsockname()[1]
                self._imap_servers.append(tls_server)
            await self.smtp.start()
        except BaseException:
            await self._close_imap()
            raise
        finally:
            pymap_subsystem.reset(token)
        self._running = True
        log.info("embedded mail server: IMAP %s:%s, SMTP %s:%s, domains %s, %s; loopback only: "
                 "every account shares one password, anyone on this machine who knows it reads every mailbox",
                 self.host, self.imap_port, self.host, self.smtp_port, ",".join(self.domains),
                 f"maildir {self.maildir}" if self.maildir else "in memory")

    def drop_connections(self) -> None:
        """Cut every open IMAP and SMTP connection (the listeners stay up)."""
        for writer in list(self._imap_writers):
            transport = writer.transport
            transport.abort()  # type: ignore[attr-defined]
        for task in list(self._imap_tasks):
            task.cancel()
        self.smtp.drop_connections()

    async def _close_imap(self) -> None:
        for server in self._imap_servers:
            server.close()
        tasks = list(self._imap_tasks)
        for writer in list(self._imap_writers):
            writer.transport.abort()  # type: ignore[attr-defined]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        for server in self._imap_servers:
            try:
                await asyncio.wait_for(server.wait_closed(), 2)
            except (TimeoutError, Exception):
                pass
        self._imap_servers.clear()

    async def stop(self) -> None:
        """Stop listening and cut every connection; the data stays (start() again)."""
        if not self._running:
            return
        self._running = False
        await self.smtp.stop()
        await self._close_imap()

    async def __aenter__(self) -> EmbeddedMailServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ----------------------------------------------------------- fault injection

    def fail_next(self, code: int = 451, count: int = 1, stage: str = "rcpt",
                  text: str | None = None) -> None:
        """The next ``count`` SMTP commands at ``stage`` (mail|rcpt|data) get ``code``."""
        self.smtp.fail_next(code, count, stage, text)

    def refuse(self, address: str, code: int = 550) -> None:
        """SMTP refuses RCPT TO ``address`` with ``code`` from now on."""
        self.smtp.refuse(address, code)

    def clear_faults(self) -> None:
        self.smtp.clear_faults()
