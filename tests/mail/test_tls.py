"""STARTTLS (the aioimaplib shim) and implicit TLS, with a throw-away certificate."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pbem.errors import MailPermanentError
from pbem.mail.embedded import EmbeddedMailServer
from pbem.mail.imap import ImapInbox
from pbem.mail.smtp import SmtpSender

RAW = b"From: a@localhost\r\nSubject: tls\r\nMessage-ID: <tls@localhost>\r\n\r\nover TLS\r\n"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True)
    return cert, key


@pytest.fixture
async def tls_server(certificate: tuple[Path, Path]) -> AsyncIterator[EmbeddedMailServer]:
    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = EmbeddedMailServer(tls_context=context)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _client_context(cert: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(cert))


async def test_starttls_and_implicit_tls(tls_server: EmbeddedMailServer,
                                         certificate: tuple[Path, Path]) -> None:
    trusted = _client_context(certificate[0])
    assert tls_server.smtps_port and tls_server.imaps_port
    smtp_starttls = SmtpSender("127.0.0.1", tls_server.smtp_port, "a", "pbem", "starttls",
                               timeout=5, ssl_context=trusted)
    assert (await smtp_starttls.send("a@localhost", ["pbem@localhost"], RAW)).all_sent
    smtp_tls = SmtpSender("127.0.0.1", tls_server.smtps_port, "a", "pbem", "tls", timeout=5,
                          ssl_context=trusted)
    assert (await smtp_tls.send("a@localhost", ["pbem@localhost"], RAW)).all_sent

    for security, port in (("starttls", tls_server.imap_port), ("tls", tls_server.imaps_port)):
        inbox = ImapInbox("127.0.0.1", port, "pbem", "pbem", security,  # type: ignore[arg-type]
                          timeout=5, ssl_context=trusted)
        fetched = await inbox.fetch_new()
        assert len(fetched) == 2 and all(m.raw and m.raw.endswith(RAW) for m in fetched)
        assert inbox.idle_supported  # capabilities were read again after TLS
        await inbox.close()


async def test_untrusted_certificate_is_permanent(tls_server: EmbeddedMailServer) -> None:
    for security, port in (("starttls", tls_server.imap_port), ("tls", tls_server.imaps_port)):
        inbox = ImapInbox("127.0.0.1", port, "pbem", "pbem", security,  # type: ignore[arg-type]
                          timeout=5)
        with pytest.raises(MailPermanentError, match="TLS"):
            await inbox.connect()
        await inbox.close()
    sender = SmtpSender("127.0.0.1", tls_server.smtp_port, security="starttls", timeout=5)
    with pytest.raises(MailPermanentError, match="TLS"):
        await sender.send("a@localhost", ["pbem@localhost"], RAW)


async def test_starttls_missing_is_permanent() -> None:
    server = EmbeddedMailServer()
    await server.start()
    try:
        inbox = ImapInbox("127.0.0.1", server.imap_port, "pbem", "pbem", "starttls", timeout=5)
        with pytest.raises(MailPermanentError, match="STARTTLS"):
            await inbox.connect()
        await inbox.close()
    finally:
        await server.stop()
