"""The operator's verbs on a real daemon: systemd's notify protocol, `pbem status`, Ctrl-C,
and the crash-and-restore drill (backup, destroy, restore, serve); `outbox drop` and the
failed-mail listing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pbem.cli import main
from tests.mail.servers import free_port


def pbem(*args: str, config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pbem", "--config", str(config), *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[database]\nurl = "sqlite:///var/pbem.sqlite"\n'
                    f'[mail]\npoll_seconds = 2\n[mail.embedded]\nimap_port = {free_port()}\n'
                    f'smtp_port = {free_port()}\nmaildir = "var/mail"\n[outbox]\ndrain_seconds = 1\n'
                    '[render]\nwidth = 400\n', encoding="utf-8")
    return path


def _messages(sock: socket.socket, want: set[str], timeout: float = 60.0) -> set[str]:
    seen: set[str] = set()
    end = time.monotonic() + timeout
    while not want <= seen and time.monotonic() < end:
        try:
            data = sock.recv(4096).decode()
        except socket.timeout:
            continue
        seen |= {line.split("=")[0] + "=" + line.split("=")[1] for line in data.splitlines() if "=" in line}
    return seen


def test_the_daemon_notifies_answers_status_stops_on_ctrl_c_and_survives_a_restore(config: Path,
                                                                                  tmp_path: Path) -> None:
    new = pbem("game", "new", "kriegspiel", "--name", "Drill", "--seat", "north=anna@localhost", "--seat",
               "south=bruno@localhost", config=config)
    assert new.returncode == 0, new.stderr
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(1.0)
    env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "WATCHDOG_USEC": "2000000"}
    proc = subprocess.Popen([sys.executable, "-m", "pbem", "--config", str(config), "--log-json", "serve"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        seen = _messages(notify, {"READY=1", "WATCHDOG=1"})
        assert {"READY=1", "WATCHDOG=1"} <= seen, seen
        end = time.monotonic() + 60
        while True:
            status = pbem("status", "--json", config=config)
            report = json.loads(status.stdout)
            if status.returncode == 0 or time.monotonic() > end:
                break
            time.sleep(0.5)
        assert status.returncode == 0 and report["healthy"], report
        assert report["checks"]["mailbox"]["ok"] and report["next_deadline"]
        end = time.monotonic() + 60
        while report["outbox_queued"] and time.monotonic() < end:  # the welcomes go out
            time.sleep(0.5)
            report = json.loads(pbem("status", "--json", config=config).stdout)
        assert report["outbox_queued"] == 0
        secret = _send_deployment(config)
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole process group
        _, err = proc.communicate(timeout=60)
        notify.close()
    assert proc.returncode == 0, err
    assert "pbem stopped" in err and "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "login_data" not in err
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]  # --log-json: every line
    accepted = [x for x in lines if "orders accepted" in x["message"]]
    assert len(accepted) == 1 and accepted[0]["game"] == "k1" and accepted[0]["seat"] == "north"
    assert isinstance(accepted[0]["mail"], int) and lines[-1]["message"] == "pbem stopped"
    assert secret not in err

    # The drill: a backup, the data lost, the backup put back, the daemon on it again.
    backup = tmp_path / "backups" / "pbem-backup.sqlite"
    done = pbem("backup", "--out", str(backup), config=config)
    assert done.returncode == 0, done.stderr
    assert backup.stat().st_mode & 0o777 == 0o600
    database = tmp_path / "var" / "pbem.sqlite"
    for path in database.parent.glob("pbem.sqlite*"):
        path.unlink()
    lost = pbem("game", "list", config=config)
    assert lost.returncode == 78 and "no database at" in lost.stderr
    shutil.copy(backup, database)  # docs/operations.md, "Restore"
    os.chmod(database, 0o600)
    assert pbem("db", "current", config=config).returncode == 0
    again = pbem("serve", "--once", config=config)
    assert again.returncode == 0, again.stderr
    assert "Drill" in pbem("game", "list", config=config).stdout
    sent = pbem("outbox", "list", "--status", "sent", config=config).stdout
    assert sent.count(" welcome ") == 2  # sent before the loss, not sent twice after it
    assert json.loads(again.stdout)["sent"] == 0


def _send_deployment(config: Path) -> str:
    """Anna reads her welcome and sends North's deployment, as test_serve does; returns her secret."""
    import email
    import email.policy
    import imaplib
    import re
    import smtplib
    import tomllib
    from email.message import EmailMessage

    ports = tomllib.loads(config.read_text(encoding="utf-8"))["mail"]["embedded"]

    def inbox() -> list[EmailMessage]:
        with imaplib.IMAP4("127.0.0.1", ports["imap_port"]) as imap:
            imap.login("anna@localhost", "pbem")
            imap.select("INBOX")
            out = []
            for num in imap.search(None, "ALL")[1][0].split():
                # the literal's part: an untagged update (a mail delivered meanwhile) may come first
                data = next(part[1] for part in imap.fetch(num, "(BODY.PEEK[])")[1] if isinstance(part, tuple))
                out.append(email.message_from_bytes(data, policy=email.policy.default))
            return out  # type: ignore[return-value]

    body = inbox()[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
    secret = re.search(r"SEAT north (\S+)", body).group(1)  # type: ignore[union-attr]
    order = EmailMessage()
    order["From"], order["To"], order["Subject"] = "anna@localhost", "pbem@localhost", "deployment"
    order.set_content("GAME k1\nSEAT north " + secret + "\nINFANTRY F10 G6 G7 G9 H5 H7 H8 H9 I6\n"
                      "CAVALRY G3 G4 H3 H4\nARTILLERY G8\nHORSE-ARTILLERY H6\nRELAY D3\nHORSE-RELAY F5\nEND\n")
    with smtplib.SMTP("127.0.0.1", ports["smtp_port"]) as smtp:
        smtp.send_message(order)
    end = time.monotonic() + 60
    while len(inbox()) < 2 and time.monotonic() < end:
        time.sleep(0.3)
    assert len(inbox()) == 2
    return secret


def test_outbox_drop_and_failed_mail(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--config", str(config)]
    assert main([*args, "game", "new", "kriegspiel", "--name", "x", "--seat", "north=anna@localhost",
                 "--seat", "south=bruno@localhost"]) == 0
    capsys.readouterr()
    assert main([*args, "outbox", "list", "--status", "queued"]) == 0
    first = capsys.readouterr().out.splitlines()[0].split()[-1]
    assert main([*args, "outbox", "drop", first]) == 0
    assert f"dropped {first}" in capsys.readouterr().out
    assert main([*args, "outbox", "drop", first]) == 65  # dropped already
    assert "only queued or failed mail" in capsys.readouterr().err
    assert main([*args, "outbox", "list", "--status", "dropped"]) == 0
    assert first in capsys.readouterr().out
    assert main([*args, "mail", "failed"]) == 0
    assert "no failed mail" in capsys.readouterr().out
    assert main([*args, "mail", "retry", "99"]) == 65
    assert "no inbound mail 99" in capsys.readouterr().err
