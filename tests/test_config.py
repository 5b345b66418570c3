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
    # relative paths are taken from the file's folder: the data lands in the checkout's var/
    assert embedded.mail.backend == "embedded"
    assert Path(embedded.database.url.removeprefix("sqlite:///")).resolve() == ROOT / "var" / "pbem.sqlite"
    assert Path(embedded.mail.embedded.maildir).resolve() == ROOT / "var" / "mail"
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
    ({"outbox": {"connections": 0}}, "outbox.connections must be between 1 and 100, not 0"),
])
def test_mistakes_are_named(data: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=message):
        from_mapping(data, "test")


# Issue 24.11: every mistake of a file is a ConfigError naming the file and the key, never a traceback.

def test_a_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_bytes('[server]\nname = "Citt\xe0"\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match=r"pbem\.toml: not UTF-8 text \(byte \d+"):
        load(path)


@pytest.mark.parametrize(("table", "key", "value"), [("mail", "poll_seconds", "inf"), ("mail", "poll_seconds", "nan"),
                                                     ("mail", "max_size", "-inf"), ("render", "width", "nan"),
                                                     ("outbox", "drain_seconds", "+inf")])
def test_inf_and_nan_where_a_number_goes(tmp_path: Path, table: str, key: str, value: str) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(f"[{table}]\n{key} = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"pbem\.toml: {table}\.{key} must be a finite number"):
        load(path)


def test_a_fraction_where_a_whole_number_goes(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text("[mail.embedded]\nimap_port = 1143.5\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mail\.embedded\.imap_port must be a whole number"):
        load(path)


@pytest.mark.parametrize("text", ["99999999999h", "9" * 40 + "d", "3651d", "1" + "0" * 30])
def test_a_duration_too_long_is_named_with_its_key(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match="longer than 3650 days"):
        parse_duration(text)
    path = tmp_path / "pbem.toml"
    path.write_text(f'[games]\ndeadline = "{text}"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"pbem\.toml: games\.deadline: duration .* is longer than 3650 days"):
        load(path)
    path.write_text(f'[outbox]\ngive_up = "{text}"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"outbox\.give_up: duration"):
        load(path)


def test_ten_years_is_still_a_duration() -> None:
    assert parse_duration("3650d") == timedelta(days=3650)


def test_a_huge_duration_on_the_command_line_is_a_user_error(tmp_path: Path) -> None:
    from pbem.cli import main

    config = tmp_path / "pbem.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n', encoding="utf-8")
    for deadline in ("99999999999h", "9" * 300 + "h"):
        code = main(["--config", str(config), "game", "new", "kriegspiel", "--name", "x", "--seat",
                     "north=a@example.org", "--seat", "south=b@example.org", "--deadline", deadline])
        assert code == 65  # EX_DATAERR
    from pbem.errors import UserError
    from pbem.service.games import _duration

    with pytest.raises(UserError, match="deadline: duration '99999999999h' is longer than 3650 days"):
        _duration("deadline", "99999999999h")
