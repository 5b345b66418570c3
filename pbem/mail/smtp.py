"""Sending through an SMTP server (aiosmtplib), mapped to the Outgoing contract.

aiosmtplib 5.1 failure map (mail.md) → what the caller sees:

* some recipients refused → ``SendResult`` with per-recipient statuses (no exception);
* every recipient refused → MailTransientError (all 4xx) / MailPermanentError (all 5xx),
  mixed codes → ``SendResult``;
* DATA refused → 4xx transient, 5xx permanent; MAIL FROM refused → 4xx transient,
  5xx MailSetupError (the envelope sender is the same for every mail: a setting);
* the server cannot be used at all — the server's state, never one mail's fate, each with
  a ``fix`` for the administrator: bad login (535 …), certificate not trusted, no STARTTLS
  → MailSetupError (a MailPermanentError); refused connection, unknown host, timeouts
  while connecting → MailServerDownError (a MailTransientError);
* disconnects during the transaction → MailTransientError;
* read timeout after DATA was sent → MailMaybeDeliveredError (a MailTransientError):
  the mail may have gone, a retry may duplicate it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
import ssl
import time
from collections.abc import Sequence
from typing import Literal

import aiosmtplib
from aiosmtplib.email import quote_address

from pbem.errors import (
    MailMaybeDeliveredError,
    MailPermanentError,
    MailServerDownError,
    MailServerError,
    MailSetupError,
    MailTransientError,
)

from .transport import RecipientResult, SendResult, SendStatus

__all__ = ["SmtpSender"]

log = logging.getLogger(__name__)

Security = Literal["none", "starttls", "tls"]


def _status(code: int) -> SendStatus:
    return "transient" if 400 <= code < 500 or code < 200 else "permanent"


#: A kept connection used again within this many seconds goes on without a NOOP first: the
#: mails of one drain follow each other on it at once, and a NOOP before each would be one
#: round trip of five (`SmtpSender._reusable`). One idle longer is checked as before.
CHECK_IDLE_AFTER = 2.0


@functools.lru_cache(maxsize=4096)
def _quoted(address: str) -> bytes:
    """``<address>`` as aiosmtplib's MAIL and RCPT write it (its own quoting, so the same
    bytes), parsed once an address: the sender is the same for every mail."""
    return quote_address(address).encode("ascii")


class _Gone(MailTransientError):
    """A kept connection was gone when MAIL FROM was written: nothing was offered on it."""


def _raise_for(code: int, text: str, what: str) -> None:
    message = f"{what}: {code} {text}".strip()
    if 400 <= code < 500:
        raise MailTransientError(message)
    raise MailPermanentError(message)


class SmtpSender:
    """Outgoing over SMTP. A connection that sent a mail is kept for the next ``send``
    (checked with NOOP first when it was idle more than `CHECK_IDLE_AFTER` seconds; one the
    server dropped before MAIL FROM was answered is replaced and the mail offered again on a
    new one: nothing was offered on the old); any failure closes it, so a mail is never
    retried on a connection in an unknown state. ``close()`` ends it. ``connections``: how
    many mails it is meant to carry at once (each ``send`` on a connection of its own, the
    outbox's lanes: `pbem.service.outbox.lanes`), and so how many connections it keeps.

    ``security``: "none" (plain, e.g. loopback), "starttls" (required, port 587 style) or
    "tls" (implicit TLS, port 465 style). ``ssl_context`` overrides certificate checks
    (tests with a self-signed certificate pass one with their CA loaded). ``local_hostname``
    is the name given in EHLO (``mail.smtp.helo_name``); ``setting`` names the configuration
    section in the hints of a failure (``MailServerError.fix``).
    """

    def __init__(
        self,
        host: str,
        port: int,
        username: str | None = None,
        password: str | None = None,
        security: Security = "none",
        timeout: float = 30.0,
        *,
        ssl_context: ssl.SSLContext | None = None,
        local_hostname: str | None = None,
        setting: str = "mail.smtp",
        connections: int = 1,
    ) -> None:
        if security not in ("none", "starttls", "tls"):
            raise ValueError(f"security must be none, starttls or tls, not {security!r}")
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.security = security
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.local_hostname = local_hostname
        self.setting = setting
        self.connections = max(1, connections)
        #: The kept connections, each with the time.monotonic() it last answered; the newest last.
        self._idle: list[tuple[aiosmtplib.SMTP, float]] = []

    async def _reusable(self) -> tuple[aiosmtplib.SMTP | None, bool]:
        """A kept connection (the newest) if the server still answers, else None; and whether
        it was taken unchecked (used again at once, `CHECK_IDLE_AFTER`)."""
        while self._idle:
            client, since = self._idle.pop()
            if client.is_connected:
                break
        else:
            return None, False
        if time.monotonic() - since < CHECK_IDLE_AFTER:
            return client, True
        try:
            await asyncio.wait_for(client.noop(), timeout=min(self.timeout, 5.0))
            return client, False
        except Exception:
            client.close()
            return None, False

    async def close(self) -> None:
        kept, self._idle = self._idle, []
        for client, _since in kept:
            if client.is_connected:
                try:
                    await asyncio.wait_for(client.quit(), timeout=min(self.timeout, 5.0))
                except Exception:
                    client.close()

    def _client(self) -> aiosmtplib.SMTP:
        return aiosmtplib.SMTP(
            hostname=self.host,
            port=self.port,
            username=self.username,
            password=self.password,
            timeout=self.timeout,
            use_tls=self.security == "tls",
            start_tls=True if self.security == "starttls" else False,
            tls_context=self.ssl_context,
            local_hostname=self.local_hostname,
        )

    async def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> SendResult:
        recipients = list(recipients)
        if not recipients:
            raise ValueError("send() needs at least one recipient")
        reused, unchecked = await self._reusable()
        client = reused or self._client()
        try:
            if reused is None:
                await self._connect(client)
            try:
                result = await self._transaction(client, mail_from, recipients, raw)
            except _Gone:
                if not unchecked:
                    raise
                client.close()  # dropped while idle: MAIL FROM was not answered, nothing offered
                client = self._client()
                await self._connect(client)
                result = await self._transaction(client, mail_from, recipients, raw)
        except BaseException:
            # After a failure (a stalled DATA above all) QUIT would wait a whole timeout again.
            if client.is_connected:
                client.close()
            raise
        if client.is_connected:
            if len(self._idle) < self.connections:
                self._idle.append((client, time.monotonic()))  # kept for the next mail
            else:
                try:
                    await client.quit()
                except Exception:
                    client.close()
        return result

    async def _connect(self, client: aiosmtplib.SMTP) -> None:
        try:
            await client.connect()
        except Exception as exc:
            raise self._connect_failure(exc) from exc

    @property
    def server(self) -> str:
        """How logs and the status output name this server."""
        return f"SMTP {self.host}:{self.port}"

    def _connect_failure(self, exc: BaseException) -> MailServerError:
        """What went wrong before any mail was offered, and what to fix: the server's state."""
        where, at = self.setting, f"{self.host}:{self.port}"
        causes: list[BaseException] = []
        seen: BaseException | None = exc
        while seen is not None and len(causes) < 5:
            causes.append(seen)
            seen = seen.__cause__ or seen.__context__
        cert = next((c for c in causes if isinstance(c, ssl.SSLCertVerificationError)), None)
        if cert is not None:
            return MailSetupError(
                f"TLS certificate of SMTP {at} not trusted: {cert.verify_message or cert}",
                f"set {where}.ca_file to the CA certificate that signed the server's certificate "
                f"(or to the certificate itself), and check that {where}.host is a name the "
                f"certificate carries")
        if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
            return MailSetupError(
                f"SMTP login refused for {self.username!r} at {at}: {exc.code} {exc.message}",
                f"check the user and password in the environment variables named by "
                f"{where}.username_env and {where}.password_env")
        tls = next((c for c in causes if isinstance(c, ssl.SSLError)), None)
        if tls is not None:
            return MailSetupError(
                f"TLS failure with SMTP {at}: {tls}",
                f"check {where}.security for this port (\"tls\" on 465, \"starttls\" on 587)")
        if isinstance(exc, aiosmtplib.SMTPNotSupported):
            return MailSetupError(
                f"SMTP {at}: {exc}",
                f"check {where}.security for this port (\"tls\" on 465, \"starttls\" on 587) "
                f"and whether the server needs a login ({where}.username_env)")
        dns = next((c for c in causes if isinstance(c, socket.gaierror)), None)
        if dns is not None:
            return MailServerDownError(
                f"cannot connect to SMTP {at}: the name does not resolve ({dns})",
                f"check {where}.host and the machine's DNS")
        if isinstance(exc, aiosmtplib.SMTPResponseException):
            text = f"SMTP {at} refused us: {exc.code} {exc.message}"
            if 400 <= exc.code < 500:
                return MailServerDownError(text, "the server is busy or unwell: it is tried again")
            return MailSetupError(text, f"read the server's answer; check {where}.username_env and "
                                        f"{where}.security")
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
            return MailServerDownError(
                f"cannot connect to SMTP {at}: no answer ({exc})",
                f"check that the server runs and {where}.host and {where}.port are right "
                f"(a firewall that drops packets looks like this)")
        return MailServerDownError(
            f"cannot connect to SMTP {at}: {exc}",
            f"check that the server runs and listens on {where}.host and {where}.port")

    async def _transaction(self, client: aiosmtplib.SMTP, mail_from: str,
                           recipients: list[str], raw: bytes) -> SendResult:
        phase = "MAIL FROM"
        try:
            options: list[str] = []
            if client.supports_extension("size"):
                options.append(f"SIZE={len(raw)}")
            try:
                await _mail(client, mail_from, options)
            except aiosmtplib.SMTPResponseException as exc:
                if exc.code >= 500:  # the same envelope sender for every mail: a setting
                    raise MailSetupError(
                        f"SMTP {self.host}:{self.port} refused the sender {mail_from!r}: "
                        f"{exc.code} {exc.message}",
                        f"allow the SMTP login to send as {mail_from} (server.bounce_address; "
                        f"Postfix: smtpd_sender_login_maps), or log in ({self.setting}.username_env)"
                    ) from exc
                _raise_for(exc.code, exc.message, f"sender {mail_from!r} refused")
            phase = "RCPT TO"
            results: dict[str, RecipientResult] = {}
            for rcpt in recipients:
                try:
                    reply = await _rcpt(client, rcpt)
                except aiosmtplib.SMTPResponseException as exc:
                    results[rcpt] = RecipientResult(_status(exc.code), exc.code, exc.message)
                else:
                    results[rcpt] = RecipientResult("sent", reply.code, reply.message)
            accepted = [r for r, res in results.items() if res.status == "sent"]
            if not accepted:
                await self._rset(client)
                codes = [res.code for res in results.values()]
                detail = "; ".join(f"{r}: {res.code} {res.text}" for r, res in results.items())
                if all(400 <= c < 500 for c in codes):
                    raise MailTransientError(f"all recipients refused: {detail}")
                if all(c >= 500 for c in codes):
                    raise MailPermanentError(f"all recipients refused: {detail}")
                return SendResult(results, "")
            phase = "DATA"
            try:
                response = await _data(client, raw)
            except aiosmtplib.SMTPResponseException as exc:
                _raise_for(exc.code, exc.message, "message refused after DATA")
                raise  # pragma: no cover
        except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError,
                OSError, TimeoutError) as exc:
            if phase == "MAIL FROM" and isinstance(exc, (aiosmtplib.SMTPServerDisconnected, ConnectionError)):
                raise _Gone(f"SMTP {self.host}:{self.port} failed during {phase}: {exc!r}") from exc
            if phase == "DATA":
                raise MailMaybeDeliveredError(
                    f"SMTP {self.host}:{self.port} stopped answering after the message data; "
                    f"the mail may have been delivered: {exc!r}") from exc
            raise MailTransientError(
                f"SMTP {self.host}:{self.port} failed during {phase}: {exc!r}") from exc
        except aiosmtplib.SMTPNotSupported as exc:
            raise MailPermanentError(f"SMTP {self.host}:{self.port}: {exc}") from exc
        except (MailTransientError, MailPermanentError):
            raise
        except aiosmtplib.SMTPException as exc:
            raise MailTransientError(f"SMTP {self.host}:{self.port} failed: {exc!r}") from exc
        for rcpt in accepted:
            results[rcpt] = RecipientResult("sent", response.code, response.message)
        if len(accepted) != len(recipients):
            log.info("SMTP partial refusal: %s", {k: (v.code, v.text) for k, v in
                                                 results.items() if v.status != "sent"})
        return SendResult(results, f"{response.code} {response.message}")

    @staticmethod
    async def _rset(client: aiosmtplib.SMTP) -> None:
        try:
            await client.rset()
        except Exception:
            pass


async def _mail(client: aiosmtplib.SMTP, sender: str, options: list[str]) -> aiosmtplib.SMTPResponse:
    """``client.mail``: the same command and answers, the address quoted once (`_quoted`)."""
    if client.is_ehlo_or_helo_needed:
        return await client.mail(sender, options=options)
    response = await client.execute_command(b"MAIL", b"FROM:" + _quoted(sender),
                                            *[option.encode("ascii") for option in options])
    if response.code != 250:
        raise aiosmtplib.SMTPSenderRefused(response.code, response.message, sender)
    return response


async def _rcpt(client: aiosmtplib.SMTP, recipient: str) -> aiosmtplib.SMTPResponse:
    """``client.rcpt``, as `_mail`."""
    if client.is_ehlo_or_helo_needed:
        return await client.rcpt(recipient)
    response = await client.execute_command(b"RCPT", b"TO:" + _quoted(recipient))
    if response.code not in (250, 251):
        raise aiosmtplib.SMTPRecipientRefused(response.code, response.message, recipient)
    return response


def _as_is(raw: bytes) -> bool:
    """True when DATA sends ``raw`` unchanged but for the final dot: every line ends in CRLF
    (as `pbem.mail.compose` writes them), the last too, and none starts with a dot."""
    return (raw.endswith(b"\r\n") and not raw.startswith(b".") and b"\n." not in raw
            and raw.count(b"\r\n") == raw.count(b"\n") == raw.count(b"\r"))


async def _data(client: aiosmtplib.SMTP, raw: bytes) -> aiosmtplib.SMTPResponse:
    """``client.data(raw)``: the same DATA, the same bytes, the same answers and errors. A
    message that needs no rewriting (`_as_is`) is written as it is: aiosmtplib rewrites every
    line end and every leading dot with two regular expressions, about 15 ms of CPU a MB of
    a report's maps, to the same bytes. Its protocol's own command lock and reads; on a
    version without them, ``client.data``."""
    protocol = client.protocol
    lock = getattr(protocol, "_command_lock", None)
    if protocol is None or lock is None or not hasattr(protocol, "_response_pending") or not _as_is(raw):
        return await client.data(raw)
    try:
        async with lock:
            protocol._response_pending = True  # as aiosmtplib's execute_data_command
            protocol.write(b"DATA\r\n")
            start = await protocol.read_response(timeout=client.timeout)
            if start.code != 354:
                raise aiosmtplib.SMTPDataError(start.code, start.message)
            protocol._response_pending = True
            protocol.write(raw + b".\r\n")
            response = await protocol.read_response(timeout=client.timeout)
            if response.code != 250:
                raise aiosmtplib.SMTPDataError(response.code, response.message)
            return response
    except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError):
        client.close()
        raise
