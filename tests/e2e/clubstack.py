"""A club's own mail stack on loopback, set up as docs/deploy.md tells an administrator:
Postfix (an MX-style listener on port "25" and submission with STARTTLS + SASL through
Dovecot, sender-login checks, ``recipient_delimiter = +``, delivery to Dovecot over LMTP,
DSNs for unknown users) and Dovecot (IMAPS only, passwd-file users), one certificate
signed by the club's own (self-signed) CA. Every port is picked free; every process runs
from a throw-away directory and is killed on ``stop()`` (also after a failure).

Needs root (Postfix and Dovecot drop privileges to their own users) and Debian's
``postfix``, ``dovecot-imapd`` and ``dovecot-lmtpd`` (scripts/install-postfix.sh,
scripts/install-dovecot.sh). ``StackUnavailable`` says what is missing.
"""

from __future__ import annotations

import os
import shutil
import signal
import smtplib
import socket
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.mail.servers import dovecot_binary, free_port, real_clock_env

DOMAIN = "club.test"
HOSTNAME = "mail.club.test"
#: Mailboxes (address -> password). The bounce address is an alias of the service's mailbox.
USERS = {"pbem@club.test": "pbem-secret", "anna@club.test": "anna-pw", "bruno@club.test": "bruno-pw",
         "gm@club.test": "gm-pw"}
BOUNCES = "pbem-bounces@club.test"
POSTFIX = "/usr/sbin/postfix"


class StackUnavailable(RuntimeError):
    """Postfix or Dovecot is not installed, or the test does not run as root."""


def postfix_binary() -> str | None:
    return POSTFIX if os.path.exists(POSTFIX) else None


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def make_ca(folder: Path) -> tuple[Path, Path, Path]:
    """The club's CA (self-signed) and the mail server's certificate signed by it, valid for
    127.0.0.1 and mail.club.test; returns (ca.pem, cert.pem, key.pem)."""
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "key.pem", "req.csr", "cert.pem"))
    ext = folder / "san.ext"
    ext.write_text(f"subjectAltName=IP:127.0.0.1,DNS:{HOSTNAME}\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "3650",
        "-subj", "/CN=Club PBEM test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={HOSTNAME}")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial", "-out", str(cert),
        "-days", "3650", "-extfile", str(ext))
    os.chmod(key, 0o644)  # read by Postfix's and Dovecot's unprivileged processes in this test only
    return ca, cert, key


_DOVECOT = """\
# Dovecot for a club (docs/deploy.md), in a temp dir
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
instance_name = pbem-club-{name}
protocols = imap lmtp
listen = 127.0.0.1
ssl = required
ssl_cert = <{cert}
ssl_key = <{key}
disable_plaintext_auth = yes
auth_mechanisms = plain login
auth_failure_delay = 0
auth_username_format = %Lu
default_internal_user = dovecot
default_internal_group = dovecot
default_login_user = dovenull
mail_location = maildir:~/Maildir
first_valid_uid = 65534
last_valid_uid = 65534
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {root}/users
}}
userdb {{
  driver = passwd-file
  args = {root}/users
}}
service imap-login {{
  inet_listener imap {{
    port = 0
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
    ssl = yes
  }}
}}
service lmtp {{
  unix_listener {queue}/private/dovecot-lmtp {{
    user = postfix
    group = postfix
    mode = 0600
  }}
}}
service auth {{
  unix_listener {queue}/private/auth {{
    user = postfix
    group = postfix
    mode = 0660
  }}
}}
protocol lmtp {{
  postmaster_address = postmaster@{domain}
}}
"""

_MAIN_CF = """\
# Postfix for a club (docs/deploy.md), in a temp dir
compatibility_level = 3.6
queue_directory = {queue}
data_directory = {data}
mail_owner = postfix
setgid_group = postdrop
maillog_file = {root}/maillog
maillog_file_prefixes = {root}
myhostname = {hostname}
mydomain = {domain}
myorigin = $mydomain
mydestination =
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.1/32
alias_maps =
alias_database =
smtp_dns_support_level = disabled
biff = no
delay_warning_time = 0
# the domain's mailboxes live in Dovecot, delivered over LMTP
virtual_mailbox_domains = {domain}
virtual_mailbox_maps = texthash:{etc}/vmailbox
virtual_alias_maps = texthash:{etc}/virtual
virtual_transport = lmtp:unix:private/dovecot-lmtp
# pbem+token@ reaches pbem@ (reply tokens)
recipient_delimiter = +
# TLS with the club's certificate; logins checked by Dovecot
smtpd_tls_cert_file = {cert}
smtpd_tls_key_file = {key}
smtpd_tls_security_level = may
smtpd_sasl_type = dovecot
smtpd_sasl_path = private/auth
smtpd_relay_restrictions = permit_sasl_authenticated, reject_unauth_destination
# a login may send only as the addresses listed for it (pbem: its address and its bounce address)
smtpd_sender_login_maps = texthash:{etc}/senders
"""

_MASTER_CF = """\
127.0.0.1:{smtp_port} inet n - n - - smtpd
127.0.0.1:{submission_port} inet n - n - - smtpd
  -o syslog_name=postfix/submission
  -o smtpd_tls_security_level=encrypt
  -o smtpd_sasl_auth_enable=yes
  -o smtpd_tls_auth_only=yes
  -o smtpd_reject_unlisted_recipient=no
  -o smtpd_client_restrictions=permit_sasl_authenticated,reject
  -o smtpd_sender_restrictions=reject_sender_login_mismatch
  -o smtpd_recipient_restrictions=permit_sasl_authenticated,reject
pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
tlsmgr unix - - n 1000? 1 tlsmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
proxywrite unix - - n - 1 proxymap
smtp unix - - n - - smtp
relay unix - - n - - smtp
showq unix n - n - - showq
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
lmtp unix - - n - - lmtp
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
"""


@dataclass
class ClubStack:
    """Postfix + Dovecot for ``club.test`` in one temp dir (see the module docstring)."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="pbem-club-")))
    smtp_port: int = 0  # the MX listener: players' mail comes in here, no login
    submission_port: int = 0  # STARTTLS + SASL: pbem sends here
    imaps_port: int = 0
    ca: Path = Path()
    dovecot: subprocess.Popen[bytes] | None = None
    postfix: subprocess.Popen[bytes] | None = None

    @property
    def etc(self) -> Path:
        return self.root / "postfix" / "etc"

    @property
    def queue(self) -> Path:
        return self.root / "postfix" / "queue"

    def start(self) -> None:
        missing = [name for name, found in (("postfix", postfix_binary()), ("dovecot", dovecot_binary()),
                                            ("openssl", shutil.which("openssl"))) if not found]
        if missing:
            raise StackUnavailable(f"not installed: {', '.join(missing)} (scripts/install-postfix.sh, "
                                   "scripts/install-dovecot.sh)")
        if os.geteuid() != 0:
            raise StackUnavailable("Postfix and Dovecot need root to run as their own users")
        os.chmod(self.root, 0o755)
        self.smtp_port, self.submission_port, self.imaps_port = free_port(), free_port(), free_port()
        tls = self.root / "tls"
        tls.mkdir(mode=0o755)
        self.ca, cert, key = make_ca(tls)
        self._configure_postfix(cert, key)
        self._configure_dovecot(cert, key)
        self.start_dovecot()
        self.start_postfix()

    # ----------------------------------------------------------------- Postfix

    def _configure_postfix(self, cert: Path, key: Path) -> None:
        base = self.root / "postfix"
        data = base / "data"
        for folder in (self.etc, self.queue, data):
            folder.mkdir(parents=True, mode=0o755)
            os.chmod(folder, 0o755)
        os.chown(data, _uid("postfix"), _gid("postfix"))
        values = dict(root=base, etc=self.etc, queue=self.queue, data=data, hostname=HOSTNAME, domain=DOMAIN,
                      cert=cert, key=key, smtp_port=self.smtp_port, submission_port=self.submission_port)
        (self.etc / "main.cf").write_text(_MAIN_CF.format(**values))
        (self.etc / "master.cf").write_text(_MASTER_CF.format(**values))
        (self.etc / "vmailbox").write_text("".join(f"{a} ok\n" for a in USERS))
        (self.etc / "virtual").write_text(f"{BOUNCES} pbem@{DOMAIN}\n")
        (self.etc / "senders").write_text(
            "".join(f"{a} {a}\n" for a in USERS) + f"{BOUNCES} pbem@{DOMAIN}\n")
        # creates the queue's folders with Postfix's owners and modes
        self._postfix("check")

    def _postfix(self, command: str) -> None:
        done = subprocess.run([POSTFIX, "-c", str(self.etc), command], capture_output=True,
                              env=real_clock_env(), timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"postfix {command} failed: {done.stderr!r}\n{self.maillog()}")

    def start_postfix(self, timeout: float = 20.0) -> None:
        """``postfix start-fg``: the master stays our child until ``stop_postfix``."""
        self.postfix = subprocess.Popen([POSTFIX, "-c", str(self.etc), "start-fg"], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=real_clock_env(), start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.postfix.poll() is not None:
                raise RuntimeError(f"postfix exited: {self.maillog()}")
            if _listening(self.smtp_port) and _listening(self.submission_port):
                return
            time.sleep(0.05)
        raise RuntimeError(f"postfix did not start in {timeout}s: {self.maillog()}")

    def _master_pid(self) -> int | None:
        try:
            return int((self.queue / "pid" / "master.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def stop_postfix(self) -> None:
        """Stop Postfix as ``postfix stop`` does (SIGTERM to the master); the queue stays."""
        pid = self._master_pid()
        if pid is not None:
            _signal_group(pid, signal.SIGTERM)
        if self.postfix is not None:
            try:
                self.postfix.wait(10)
            except subprocess.TimeoutExpired:
                _signal_group(self.postfix.pid, signal.SIGKILL)
                self.postfix.wait(5)
        if pid is not None:
            _signal_group(pid, signal.SIGKILL)  # whatever did not end with its master
        (self.queue / "pid" / "master.pid").unlink(missing_ok=True)
        self.postfix = None
        deadline = time.monotonic() + 10
        while (_listening(self.submission_port) or _listening(self.smtp_port)) and time.monotonic() < deadline:
            time.sleep(0.05)

    def maillog(self) -> str:
        path = self.root / "postfix" / "maillog"
        return path.read_text(errors="replace") if path.exists() else ""

    # ----------------------------------------------------------------- Dovecot

    def _configure_dovecot(self, cert: Path, key: Path) -> None:
        base = self.root / "dovecot"
        for sub in ("", "run", "state", "mail"):
            (base / sub).mkdir(exist_ok=True, mode=0o755)
            os.chmod(base / sub, 0o755)
        os.chown(base / "mail", 65534, 65534)
        lines = []
        for address, password in USERS.items():
            local, _, domain = address.partition("@")
            lines.append(f"{address}:{{PLAIN}}{password}:65534:65534::{base}/mail/{domain}/{local}::\n")
        (base / "users").write_text("".join(lines))
        os.chmod(base / "users", 0o644)
        (base / "dovecot.conf").write_text(_DOVECOT.format(
            root=base, name=self.root.name, cert=cert, key=key, imaps_port=self.imaps_port, queue=self.queue,
            domain=DOMAIN))

    def start_dovecot(self, timeout: float = 20.0) -> None:
        binary = dovecot_binary()
        assert binary is not None
        base = self.root / "dovecot"
        with open(base / "stderr.txt", "ab") as stderr:
            self.dovecot = subprocess.Popen([binary, "-F", "-c", str(base / "dovecot.conf")],
                                            stdout=subprocess.DEVNULL, stderr=stderr, env=real_clock_env(),
                                            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.dovecot.poll() is not None:
                raise RuntimeError(f"dovecot exited: {self.dovecot_log()}")
            if _listening(self.imaps_port) and (self.queue / "private" / "dovecot-lmtp").exists():
                return
            time.sleep(0.05)
        raise RuntimeError(f"dovecot did not start in {timeout}s: {self.dovecot_log()}")

    def stop_dovecot(self) -> None:
        if self.dovecot is not None and self.dovecot.poll() is None:
            _signal_group(self.dovecot.pid, signal.SIGKILL)
            self.dovecot.wait(5)
        self.dovecot = None

    def dovecot_log(self) -> str:
        parts = []
        for name in ("stderr.txt", "dovecot.log"):
            path = self.root / "dovecot" / name
            if path.exists():
                parts.append(path.read_text(errors="replace")[-4000:])
        return "\n".join(parts)

    # ----------------------------------------------------------------- clients

    def client_context(self) -> ssl.SSLContext:
        """What a player's mail client trusts: the club's CA."""
        return ssl.create_default_context(cafile=str(self.ca))

    def deliver_from_outside(self, mail_from: str, rcpt: str, raw: bytes) -> None:
        """A player's mail arriving from the internet at the MX (port "25", no login)."""
        with smtplib.SMTP("127.0.0.1", self.smtp_port, local_hostname="players.example", timeout=20) as smtp:
            refused = smtp.sendmail(mail_from, [rcpt], raw)
        if refused:
            raise RuntimeError(f"refused: {refused}")

    def stop(self) -> None:
        try:
            self.stop_postfix()
        finally:
            self.stop_dovecot()
            shutil.rmtree(self.root, ignore_errors=True)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _uid(name: str) -> int:
    import pwd

    return pwd.getpwnam(name).pw_uid


def _gid(name: str) -> int:
    import grp

    return grp.getgrnam(name).gr_gid
