"""Where the data is and what the exit code says (issue: running it for real). Relative
paths in a configuration file are taken from the file's folder; only ``serve``, ``db
upgrade`` and ``game new`` make a database; exit codes follow sysexits (pbem.errors)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.cli import main
from pbem.db.lock import DaemonLock
from pbem.db.session import make_engine


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "PBEM_CONFIG"}
    environ["PYTHONPATH"] = str(Path(__file__).parents[2])
    return subprocess.run([sys.executable, "-m", "pbem", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**environ, **(env or {})})


@pytest.fixture
def club(tmp_path: Path) -> Path:
    """A configuration with relative paths, in a folder of its own."""
    folder = tmp_path / "club"
    folder.mkdir()
    config = folder / "pbem.toml"
    config.write_text('[database]\nurl = "sqlite:///data/pbem.sqlite"\n[render]\nwidth = 400\n', encoding="utf-8")
    return config


def test_relative_paths_follow_the_configuration_file(club: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    missing = run("--config", str(club), "game", "list", cwd=elsewhere)
    assert missing.returncode == 78, missing.stderr
    assert f"no database at {club.parent / 'data' / 'pbem.sqlite'}" in missing.stderr
    assert "Traceback" not in missing.stderr
    assert not (club.parent / "data").exists() and list(elsewhere.iterdir()) == []  # nothing was made

    new = run("--config", str(club), "game", "new", "kriegspiel", "--name", "Club game", "--seat",
              "north=anna@example.org", "--seat", "south=bruno@example.org", cwd=elsewhere)
    assert new.returncode == 0, new.stderr
    database = club.parent / "data" / "pbem.sqlite"
    assert database.exists() and list(elsewhere.iterdir()) == []
    assert (database.stat().st_mode & 0o777, database.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    key = club.parent / "data" / "pbem.key"
    assert key.exists() and key.stat().st_mode & 0o777 == 0o600  # the key for data at rest, beside it

    listed = run("game", "list", cwd=tmp_path, env={"PBEM_CONFIG": str(club)})
    assert listed.returncode == 0 and "Club game" in listed.stdout, listed.stderr


def test_a_missing_default_configuration_says_where_it_looked(tmp_path: Path) -> None:
    done = run("game", "list", cwd=tmp_path)
    assert done.returncode == 78
    assert f"no configuration file at {tmp_path / 'config' / 'pbem.toml'}" in done.stderr
    assert list(tmp_path.iterdir()) == []  # and no ./var/pbem.sqlite either
    named = run("--config", str(tmp_path / "nope.toml"), "game", "list", cwd=tmp_path)
    assert named.returncode == 78 and "configuration file not found" in named.stderr


def test_version_and_usage(tmp_path: Path) -> None:
    from pbem import __version__

    version = run("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"pbem {__version__}"
    usage = run("game", "frobnicate", cwd=tmp_path)
    assert usage.returncode == 64 and "invalid choice" in usage.stderr
    bad_option = run("--config", str(tmp_path / "x.toml"), "game", "new", "kriegspiel", "--name", "x",
                     "--option", "novalue", cwd=tmp_path)
    assert bad_option.returncode in (64, 78)  # the file is read first: 78, it is missing


def test_a_second_daemon_is_told_to_try_later(club: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """75 (temporary): systemd may restart it; a broken configuration (78) it should not."""
    engine = make_engine(f"sqlite:///{club.parent / 'data' / 'pbem.sqlite'}")
    lock = DaemonLock(engine)
    lock.acquire()
    try:
        assert main(["--config", str(club), "serve", "--once"]) == 75
        assert "another pbem daemon is already serving" in capsys.readouterr().err
    finally:
        lock.release()
        engine.dispose()


def test_bad_input_and_bad_configuration_differ(club: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(club), "game", "new", "chess", "--name", "x"]) == 65
    assert "unknown game kind" in capsys.readouterr().err
    broken = club.parent / "broken.toml"
    broken.write_text('[database]\nurl = "sqlite:///data/pbem.sqlite"\n[games]\ndeadline = "soon"\n',
                      encoding="utf-8")
    assert main(["--config", str(broken), "game", "list"]) == 78
    assert "games.deadline" in capsys.readouterr().err
