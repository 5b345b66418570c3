"""`pbem serve` on embedded defaults as a user starts it: a real process with the
on-disk (maildir) mail server; a player uses Python's stock smtplib and imaplib as
any mail client would, and gets the welcome and the answer to an order mail."""

from __future__ import annotations

import email
import email.policy
import email.utils
import imaplib
import re
import smtplib
import subprocess
import sys
import time
from email.message import EmailMessage
from pathlib import Path

from tests.mail.servers import free_port


def _wait_port(port: int, proc: subprocess.Popen[str], timeout: float = 30.0) -> None:
    import socket

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"pbem serve exited: {proc.stderr.read() if proc.stderr else ''}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"port {port} never opened")


def _inbox(port: int, user: str, want: int, timeout: float = 30.0) -> list[EmailMessage]:
    end = time.monotonic() + timeout
    while True:
        with imaplib.IMAP4("127.0.0.1", port) as imap:
            imap.login(user, "pbem")
            imap.select("INBOX")
            _, data = imap.search(None, "ALL")
            msgs = []
            for num in data[0].split():
                _, parts = imap.fetch(num, "(BODY.PEEK[])")
                # the literal's (head, bytes); an unsolicited FETCH of flags (a mail delivered
                # meanwhile) may come first, as a plain line
                raw = next(part[1] for part in parts if isinstance(part, tuple))
                msgs.append(email.message_from_bytes(raw, policy=email.policy.default))
        if len(msgs) >= want or time.monotonic() > end:
            return msgs  # type: ignore[return-value]
        time.sleep(0.3)


def test_serve_on_embedded_defaults(tmp_path: Path) -> None:
    imap_port, smtp_port = free_port(), free_port()
    config = tmp_path / "pbem.toml"
    config.write_text(
        f'[database]\nurl = "sqlite:///{tmp_path}/var/pbem.sqlite"\n'
        f'[mail]\npoll_seconds = 2\n[mail.embedded]\nimap_port = {imap_port}\nsmtp_port = {smtp_port}\n'
        f'maildir = "{tmp_path}/var/mail"\n[outbox]\ndrain_seconds = 1\n[render]\nwidth = 400\n', encoding="utf-8")
    new = subprocess.run([sys.executable, "-m", "pbem", "--config", str(config), "game", "new", "kriegspiel",
                          "--name", "Served", "--seat", "north=anna@localhost", "--seat", "south=bruno@localhost"],
                         capture_output=True, text=True, timeout=60)
    assert new.returncode == 0, new.stderr
    proc = subprocess.Popen([sys.executable, "-m", "pbem", "--config", str(config), "serve"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_port(smtp_port, proc)
        _wait_port(imap_port, proc)
        welcome = _inbox(imap_port, "anna@localhost", 1)
        assert welcome and "welcome" in str(welcome[0]["Subject"])
        body = welcome[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
        secret = re.search(r"SEAT north (\S+)", body).group(1)  # type: ignore[union-attr]
        order = EmailMessage()
        order["From"], order["To"], order["Subject"] = "anna@localhost", "pbem@localhost", "my deployment"
        order["Message-ID"] = email.utils.make_msgid(domain="localhost")
        order.set_content("GAME k1\nSEAT north " + secret + "\nINFANTRY F10 G6 G7 G9 H5 H7 H8 H9 I6\n"
                          "CAVALRY G3 G4 H3 H4\nARTILLERY G8\nHORSE-ARTILLERY H6\nRELAY D3\nHORSE-RELAY F5\nEND\n")
        with smtplib.SMTP("127.0.0.1", smtp_port) as smtp:
            smtp.send_message(order)
        mails = _inbox(imap_port, "anna@localhost", 2)
        assert len(mails) == 2, [m["Subject"] for m in mails]
        receipt = mails[1]
        assert "accepted" in str(receipt["Subject"]) and receipt["In-Reply-To"]
        assert "Receipt:" in receipt.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode in (0, -15)
    assert (tmp_path / "var" / "mail").exists()  # the mail server keeps its mail on disk
