"""What the administrator sees when a mail server cannot be used (issue 23): ``pbem serve
--once`` exits 3 and its status names the server and the setting to fix; ``pbem outbox list``
shows the waiting mail with the server's answer; ``pbem outbox retry`` queues failed mail again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import Session

from pbem.cli import main
from pbem.db.models import OutboxMail
from pbem.db.session import make_engine
from tests.mail.servers import free_port


def _rows(listing: str, status: str) -> int:
    """Rows of ``pbem outbox list`` in this state (its lines: id, status, kind, ...)."""
    return sum(1 for line in listing.splitlines() if line.split()[1:2] == [status] and line.split()[0].isdigit())


def _config(tmp_path: Path) -> Path:
    closed = free_port()  # nothing listens here: "connection refused"
    path = tmp_path / "pbem.toml"
    path.write_text(
        f'[server]\naddress = "pbem@club.test"\nbounce_address = "pbem-bounces@club.test"\n'
        f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n'
        f'[render]\nwidth = 400\nworkers = 0\n'
        f'[mail]\nbackend = "remote"\n'
        f'[mail.imap]\nhost = "127.0.0.1"\nport = {closed}\nsecurity = "none"\n'
        f'[mail.smtp]\nhost = "127.0.0.1"\nport = {closed}\nsecurity = "none"\n', encoding="utf-8")
    return path


def test_serve_once_exits_non_zero_and_says_what_to_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(_config(tmp_path))
    assert main(["--config", config, "game", "new", "kriegspiel", "--name", "Club",
                 "--seat", "north=anna@players.test", "--seat", "south=bruno@players.test"]) == 0
    capsys.readouterr()

    assert main(["--config", config, "serve", "--once"]) == 69  # EX_UNAVAILABLE
    status = json.loads(capsys.readouterr().out)
    assert status["sent"] == 0
    assert [e.split(":")[0] for e in status["errors"]] == ["inbox", "outbox"]
    (server,) = status["servers"]
    assert server["ok"] is False and server["server"].startswith("SMTP 127.0.0.1:")
    assert "Connect call failed" in server["error"] and "mail.smtp.host" in server["fix"]

    assert main(["--config", config, "outbox", "list"]) == 0
    listing = capsys.readouterr().out
    assert _rows(listing, "queued") == 2 and listing.count("cannot connect to SMTP") == 1  # the probe's row

    engine = make_engine(f"sqlite:///{tmp_path}/pbem.sqlite")
    with Session(engine) as s:  # as the old outbox did after a failed login: every welcome failed
        s.execute(update(OutboxMail).values(status="failed"))
        s.commit()
    engine.dispose()
    assert main(["--config", config, "outbox", "list", "--status", "failed"]) == 0
    assert _rows(capsys.readouterr().out, "failed") == 2
    assert main(["--config", config, "outbox", "retry", "--kind", "welcome"]) == 0
    out = capsys.readouterr().out
    assert out.count("requeued <") == 2 and "2 mail(s) queued again" in out
    assert main(["--config", config, "outbox", "list", "--status", "queued"]) == 0
    assert _rows(capsys.readouterr().out, "queued") == 2
