"""The configuration for a club's real mail server, wired end to end: IMAP with implicit
TLS, SMTP with STARTTLS, credentials from environment variables, the club's own CA."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import pytest

from pbem.app import App
from pbem.config import from_mapping
from pbem.errors import ConfigError
from pbem.mail.embedded import EmbeddedMailServer
from pbem.service import games
from tests.support.players import player_mail


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


async def test_remote_backend_over_tls_with_env_credentials(certificate, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = EmbeddedMailServer(tls_context=context)
    await server.start()
    try:
        monkeypatch.setenv("CLUB_IMAP_USER", "pbem@localhost")
        monkeypatch.setenv("CLUB_IMAP_PASSWORD", "pbem")
        monkeypatch.setenv("CLUB_SMTP_PASSWORD", "pbem")
        cfg = from_mapping({
            "database": {"url": f"sqlite:///{tmp_path}/pbem.sqlite"},
            "render": {"width": 400, "workers": 0},
            "mail": {"backend": "remote",
                     "imap": {"host": "localhost", "port": server.imaps_port, "security": "tls",
                              "username_env": "CLUB_IMAP_USER", "password_env": "CLUB_IMAP_PASSWORD",
                              "ca_file": str(cert)},
                     "smtp": {"host": "localhost", "port": server.smtp_port, "security": "starttls",
                              "username_env": "CLUB_IMAP_USER", "password_env": "CLUB_SMTP_PASSWORD",
                              "ca_file": str(cert)}}}, "test")
        app = App.from_config(cfg)
        games.create(app.ctx, "kriegspiel", "Remote", [games.SeatSpec("north", "anna@localhost"),
                                                       games.SeatSpec("south", "bruno@localhost")])
        await server.deliver("pbem@localhost", player_mail("anna@localhost", "HELP"))
        summary = await app.run_once()
        assert summary["handled"] == {"command": 1} and summary["sent"] == 3  # 2 welcomes + the help
        subjects = [raw for _uid, raw, _seen in await server.messages("anna")]
        assert len(subjects) == 2
    finally:
        await server.stop()


def test_a_missing_credential_is_a_clear_error(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    monkeypatch.delenv("NOPE_PASSWORD", raising=False)
    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp_path}/pbem.sqlite"}, "mail": {"backend": "remote", "imap": {"host": "h", "password_env": "NOPE_PASSWORD"},
                                 "smtp": {"host": "h"}}}, "test")
    with pytest.raises(ConfigError, match="NOPE_PASSWORD"):
        App.from_config(cfg)
