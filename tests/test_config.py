"""The configuration files shipped with the project load, and mistakes are named."""

from __future__ import annotations

import tomllib
from datetime import timedelta
from pathlib import Path

import pytest

from pbem.config import ConfigError, from_mapping, load, parse_duration

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_configurations_load() -> None:
    embedded = load(ROOT / "config" / "pbem.toml")
    assert embedded.mail.backend == "embedded" and embedded.database.url.startswith("sqlite:///var/")
    remote = from_mapping(tomllib.loads((ROOT / "deploy" / "pbem.remote.toml").read_text()), "remote")
    assert remote.mail.backend == "remote" and remote.mail.smtp.security == "starttls"


@pytest.mark.parametrize(("text", "expected"), [("72h", timedelta(hours=72)), ("1h30m", timedelta(minutes=90)),
                                                 ("2d", timedelta(days=2)), ("45s", timedelta(seconds=45)),
                                                 ("12", timedelta(hours=12))])
def test_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(("data", "message"), [
    ({"mail": {"bakend": "embedded"}}, "unknown key mail.bakend"),
    ({"games": {"deadline": "soon"}}, "not a duration"),
    ({"server": {"timezone": "Mars/Olympus"}}, "unknown time zone"),
    ({"mail": {"backend": "remote"}}, "mail.imap.host is empty"),
    ({"security": {"require_dmarc": True}}, "trusted_authserv_id"),
    ({"render": {"workers": "two"}}, "render.workers must be a number"),
])
def test_mistakes_are_named(data: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=message):
        from_mapping(data, "test")
