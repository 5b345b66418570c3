"""Sending through an SMTP server (aiosmtplib), mapped to the Outgoing contract.

aiosmtplib 5.1 failure map (mail.md) → what the caller sees:

* some recipients refused → ``SendResult`` with per-recipient statuses (no exception);
* every recipient refused → MailTransientError (all 4xx) / MailPermanentError (all 5xx),
  mixed codes → ``SendResult``;
* MAIL FROM / DATA refused → 4xx transient, 5xx permanent (530: STARTTLS required);
* bad login (535 …) → MailPermanentError; certificate errors → MailPermanentError;
* connect refused, timeouts, disconnects → MailTransientError;
* read timeout after DATA was sent → MailMaybeDeliveredError (a MailTransientError):
  the mail may have gone, a retry may duplicate it.
"""

from __future__ import annotations

import asyncio

import logging
import ssl
from collections.abc import Sequence
from typing import Literal

import aiosmtplib

from pbem.errors import (
    MailMaybeDeliveredError,
    MailPermanentError,
    MailTransientError,
)

from .transport import RecipientResult, SendResult, SendStatus

__all__ = ["SmtpSender"]

log = logging.getLogger(__name__)

Security = Literal["none", "starttls", "tls"]


def _status(code: int) -> SendStatus:
    return "transient" if 400 <= code < 500 or code < 200 else "permanent"


def _raise_for(code: int, text: str, what: str) -> None:
    message = f"{what}: {code} {text}".strip()
    if 400 <= code < 500:
        raise MailTransientError(message)
    raise MailPermanentError(message)


class SmtpSender:
    """Outgoing over SMTP. A connection that sent a mail is kept for the next ``send``
    (checked with NOOP first, replaced when the server dropped it); any failure closes it,
    so a mail is never retried on a connection in an unknown state. ``close()`` ends it.

    ``security``: "none" (plain, e.g. loopback), "starttls" (required, port 587 style) or
    "tls" (implicit TLS, port 465 style). ``ssl_context`` overrides certificate checks
    (tests with a self-signed certificate pass one with their CA loaded).
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
        self._idle: aiosmtplib.SMTP | None = None

    async def _reusable(self) -> aiosmtplib.SMTP | None:
        """The kept connection if the server still answers, else None."""
        client, self._idle = self._idle, None
        if client is None or not client.is_connected:
            return None
        try:
            await asyncio.wait_for(client.noop(), timeout=min(self.timeout, 5.0))
            return client
        except Exception:
            client.close()
            return None

    async def close(self) -> None:
        client, self._idle = self._idle, None
        if client is not None and client.is_connected:
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
        reused = await self._reusable()
        client = reused or self._client()
        try:
            try:
                if reused is None:
                    await client.connect()
            except aiosmtplib.SMTPAuthenticationError as exc:
                raise MailPermanentError(
                    f"SMTP login refused for {self.username!r} at {self.host}:{self.port}: "
                    f"{exc.code} {exc.message}") from exc
            except aiosmtplib.SMTPResponseException as exc:
                _raise_for(exc.code, exc.message, f"SMTP {self.host}:{self.port} refused us")
            except ssl.SSLCertVerificationError as exc:
                raise MailPermanentError(
                    f"TLS certificate of {self.host}:{self.port} not trusted: {exc}") from exc
            except ssl.SSLError as exc:
                raise MailPermanentError(f"TLS failure with {self.host}:{self.port}: {exc}") from exc
            except aiosmtplib.SMTPNotSupported as exc:
                raise MailPermanentError(f"SMTP {self.host}:{self.port}: {exc}") from exc
            except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                raise MailTransientError(
                    f"cannot connect to SMTP {self.host}:{self.port}: {exc!r}") from exc
            result = await self._transaction(client, mail_from, recipients, raw)
        except BaseException:
            # After a failure (a stalled DATA above all) QUIT would wait a whole timeout again.
            if client.is_connected:
                client.close()
            raise
        if client.is_connected:
            if self._idle is None:
                self._idle = client  # kept for the next mail
            else:
                try:
                    await client.quit()
                except Exception:
                    client.close()
        return result

    async def _transaction(self, client: aiosmtplib.SMTP, mail_from: str,
                           recipients: list[str], raw: bytes) -> SendResult:
        phase = "MAIL FROM"
        try:
            options: list[str] = []
            if client.supports_extension("size"):
                options.append(f"SIZE={len(raw)}")
            try:
                await client.mail(mail_from, options=options)
            except aiosmtplib.SMTPResponseException as exc:
                _raise_for(exc.code, exc.message, f"sender {mail_from!r} refused")
            phase = "RCPT TO"
            results: dict[str, RecipientResult] = {}
            for rcpt in recipients:
                try:
                    reply = await client.rcpt(rcpt)
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
                response = await client.data(raw)
            except aiosmtplib.SMTPResponseException as exc:
                _raise_for(exc.code, exc.message, "message refused after DATA")
                raise  # pragma: no cover
        except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError,
                OSError, TimeoutError) as exc:
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
