"""The time budget of one inbound mail: its reading runs first in a worker process with a
deadline, so that no mail — however it was built — can hold the daemon.

Everything a mail sets off before the database is touched (parsing the MIME tree,
decoding, HTML to text, the machine classifier, a bounce's report, the order block) is
pure: `Inspector.check` runs it in a separate process and waits at most
``limits.mail_seconds``. A mail that does not finish in time is never read in the daemon
itself: the worker is killed and replaced, and the caller records the mail as over budget
(`pbem.service.inbound.over_budget`). A mail that finishes is then handled in the daemon
as usual, its reading already known to fit. The worker is started once and kept; it exits
with the daemon (its pipe closes).
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import multiprocessing.connection
import signal
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)

__all__ = ["Inspector", "inspect"]

#: How long a new worker may take to start (imports) before the budget applies without it.
START_SECONDS = 60.0


def inspect(raw: bytes) -> None:
    """Read a mail the way `pbem.service.inbound.handle` will, without a database: every
    step a stranger's bytes reach before the service decides what the mail is."""
    from pbem.mail.bounce import is_bounce, parse_bounce
    from pbem.mail.classify import machine_reason
    from pbem.mail.envelope import parse_envelope
    from pbem.mail.parse import read_mail

    mail = read_mail(raw)
    if machine_reason(mail, raw=raw):
        if is_bounce(mail):
            parse_bounce(mail, raw)
        return
    parse_envelope(mail.text)


def _target(name: str) -> Callable[[bytes], Any]:
    module, _, attr = name.partition(":")
    found = getattr(importlib.import_module(module), attr)
    assert callable(found)
    return found  # type: ignore[no-any-return]


def _serve(conn: multiprocessing.connection.Connection, target: str) -> None:
    """The worker: one mail at a time from the pipe, "ok" back when it is read. Ctrl-C
    reaches the terminal's whole process group: the daemon stops the worker itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    work = _target(target)
    conn.send("ready")
    while True:
        try:
            raw = conn.recv_bytes()
        except (EOFError, OSError):  # the daemon is gone
            return
        try:
            work(raw)
        except Exception:  # the daemon's own reading records the failure
            pass
        conn.send("ok")


class Inspector:
    """A worker process that reads mails under a deadline. ``target`` (``module:function``)
    is what it runs on each mail: `inspect` unless a test says otherwise."""

    def __init__(self, seconds: float, target: str = f"{__name__}:inspect") -> None:
        self.seconds = seconds
        self.target = target
        self._proc: Any = None
        self._conn: multiprocessing.connection.Connection | None = None
        self._guard = threading.Lock()

    def _start(self) -> bool:
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        proc = context.Process(target=_serve, args=(child, self.target), daemon=True, name="pbem-mail-reader")
        proc.start()
        child.close()
        if not parent.poll(START_SECONDS):
            log.error("the mail reader did not start in %.0f s: mails are read without a time budget", START_SECONDS)
            proc.kill()
            return False
        parent.recv()
        self._proc, self._conn = proc, parent
        return True

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None

    def check(self, raw: bytes) -> str | None:
        """None when the mail is read within the budget, else why not (for the record).
        Blocking: call it from a thread. A budget of 0 or less checks nothing."""
        if self.seconds <= 0:
            return None
        with self._guard:
            if self._conn is None and not self._start():
                return None
            assert self._conn is not None
            try:
                self._conn.send_bytes(raw)
                if self._conn.poll(self.seconds):
                    self._conn.recv()
                    return None
            except (EOFError, OSError) as exc:  # the worker died on this mail
                self._stop()
                log.warning("the mail reader died on a mail of %d bytes: %s", len(raw), exc)
                return f"reading it stopped the reader ({type(exc).__name__})"
            self._stop()
            log.warning("a mail of %d bytes took more than %g s to read: not read", len(raw), self.seconds)
            return f"reading it took more than {self.seconds:g} s"

    def close(self) -> None:
        with self._guard:
            self._stop()
