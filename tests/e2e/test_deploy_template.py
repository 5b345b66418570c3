"""deploy/pbem.remote.toml is what a club copies (docs/deploy.md): it loads, it carries every
setting a club must think about (every key of the configuration but the embedded server's),
and the secrets it names are read from the environment when the database or the mail servers
are opened."""

from __future__ import annotations

import dataclasses
import socket
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem import config as config_mod
from pbem.config import Config, ConfigError, from_mapping, helo_name

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "pbem.remote.toml"


def _keys(cls: type, prefix: str = "") -> set[str]:
    out: set[str] = set()
    defaults = cls()
    for f in dataclasses.fields(cls):
        if f.name == "source":
            continue
        value = getattr(defaults, f.name)
        if dataclasses.is_dataclass(value):
            out |= _keys(type(value), f"{prefix}{f.name}.")
        else:
            out.add(prefix + f.name)
    return out


def _written(data: dict[str, Any], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for key, value in data.items():
        if isinstance(value, dict):
            out |= _written(value, f"{prefix}{key}.")
        else:
            out.add(prefix + key)
    return out


def test_the_template_loads_and_carries_every_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    data = tomllib.loads(TEMPLATE.read_text(encoding="utf-8"))
    cfg = from_mapping(data, str(TEMPLATE))
    assert cfg.server.game_master and cfg.server.name == "Club PBEM"
    assert cfg.mail.backend == "remote" and cfg.mail.smtp.security == "starttls" and cfg.mail.imap.security == "tls"
    assert cfg.security.reply_tokens is True
    expected = {k for k in _keys(Config) if not k.startswith("mail.embedded.")}
    # keys of the shared server section that mean nothing on one side: no EHLO name for IMAP,
    # no mailbox for SMTP
    expected -= {"mail.imap.helo_name", "mail.smtp.mailbox"}
    missing = sorted(expected - _written(data))
    assert missing == [], f"deploy/pbem.remote.toml lacks {missing} (every setting a club must think about)"

    monkeypatch.setenv("PBEM_DB_PASSWORD", "s3cret/with:odd@chars")
    url = cfg.database.resolved().url
    assert url.startswith("postgresql://pbem:") and url.endswith("@127.0.0.1:5432/pbem")
    from sqlalchemy.engine import make_url

    assert make_url(url).password == "s3cret/with:odd@chars"


def test_the_database_secret_is_read_when_the_database_is_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLUB_DB_URL", raising=False)
    cfg = from_mapping({"database": {"url_env": "CLUB_DB_URL"}}, "test")  # loading needs no secret
    with pytest.raises(ConfigError, match="CLUB_DB_URL is not set"):
        cfg.database.resolved()
    monkeypatch.setenv("CLUB_DB_URL", "postgresql://pbem:pw@db.club.test/pbem")
    assert cfg.database.resolved().url == "postgresql://pbem:pw@db.club.test/pbem"
    with pytest.raises(ConfigError, match="url_env or password_env"):
        from_mapping({"database": {"url_env": "A", "password_env": "B"}}, "test")


@pytest.mark.parametrize(("fqdn", "expected"), [("pbem-host.club.example.org", "pbem-host.club.example.org"),
                                                ("localhost", "club.example.org"),
                                                ("vm", "club.example.org"),
                                                ("localhost.localdomain", "club.example.org")])
def test_the_ehlo_name_is_never_localhost(monkeypatch: pytest.MonkeyPatch, fqdn: str, expected: str) -> None:
    monkeypatch.setattr(socket, "getfqdn", lambda *a: fqdn)
    cfg = from_mapping({"server": {"address": "pbem@club.example.org"}}, "test")
    assert helo_name(cfg) == expected
    named = from_mapping({"server": {"address": "pbem@club.example.org"},
                          "mail": {"smtp": {"helo_name": "mx1.club.example.org"}}}, "test")
    assert helo_name(named) == "mx1.club.example.org"
    with pytest.raises(ConfigError, match="mail.smtp.helo_name"):
        from_mapping({"mail": {"imap": {"helo_name": "x"}}}, "test")
    assert config_mod.helo_name is helo_name
