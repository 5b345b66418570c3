"""The embedded mail server shares one password between every mailbox (issue 24.8): it binds
loopback only - any other address is refused before a port opens, naming the remote backend -
and says so when it starts."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pbem.cli import main
from pbem.errors import MailError
from pbem.mail.embedded import EmbeddedMailServer, is_loopback


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.org", "", "127.0.0.1.nip.io"])
def test_any_bind_but_loopback_is_refused(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(MailError, match="loopback only.*shares one password.*remote"):
        EmbeddedMailServer(host=host)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_addresses_are_taken(host: str) -> None:
    assert is_loopback(host)


async def test_it_says_so_at_start_up(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="pbem.mail.embedded"):
        async with EmbeddedMailServer() as server:
            assert server.running
    assert any("loopback only" in r.getMessage() and "shares one password" in r.getMessage() for r in caplog.records)


def test_pbem_serve_on_a_public_address_stops_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n'
                      f'[mail.embedded]\nhost = "0.0.0.0"\nimap_port = 0\nsmtp_port = 0\nmaildir = "{tmp_path}/mail"\n',
                      encoding="utf-8")
    assert main(["--config", str(config), "serve", "--once"]) == 69  # EX_UNAVAILABLE: no mail server
    assert "binds loopback only" in capsys.readouterr().err
