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

A batch is read ahead (`Inspector.ahead`): the worker is handed the next mails (a few
dozen KB at most) while the daemon handles the one it has read, so the reading costs the
daemon no waiting. Each mail keeps its own budget, counted from the moment the worker
starts reading it (the worker says so, on the system-wide monotonic clock). `Inspector.poll`
tells, without waiting, whether a mail's answer is there already: the daemon then handles the
mail in the same hop as its receipt, and only waits (`Inspector.check`, the database free
meanwhile) for a mail still being read.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import multiprocessing.connection
import pickle
import signal
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from pbem.mail.envelope import Envelope
    from pbem.mail.parse import IncomingMail

log = logging.getLogger(__name__)

__all__ = ["Inspector", "Reading", "inspect"]

#: How long a new worker may take to start (imports) before the budget applies without it.
START_SECONDS = 60.0
#: How many bytes of the next mails the worker may be handed ahead of the one awaited: the
#: pipe holds them all, so that handing them never blocks on a worker stuck on a mail.
AHEAD_BYTES = 32 * 1024


@dataclass(frozen=True)
class Reading:
    """What `inspect` read of a mail from a person (no machine's), handed back to the daemon
    so that it does not read the mail a second time: the mail as `read_mail` gives it (but
    its ``parsed`` tree, which `IncomingMail.__reduce__` leaves behind) and its envelope."""

    mail: IncomingMail
    envelope: Envelope


def inspect(raw: bytes) -> Reading | None:
    """Read a mail the way `pbem.service.inbound.handle` will, without a database: every
    step a stranger's bytes reach before the service decides what the mail is. A mail from
    a person comes back read (`Reading`); a machine's (None) is read again by the daemon,
    which records it (a bounce needs its parsed tree)."""
    from pbem.mail.bounce import is_bounce, parse_bounce
    from pbem.mail.classify import machine_reason
    from pbem.mail.envelope import parse_envelope
    from pbem.mail.parse import read_mail

    mail = read_mail(raw)
    if machine_reason(mail, raw=raw):
        if is_bounce(mail):
            parse_bounce(mail, raw)
        return None
    return Reading(mail, parse_envelope(mail.text))


def _target(name: str) -> Callable[[bytes], Any]:
    module, _, attr = name.partition(":")
    found = getattr(importlib.import_module(module), attr)
    assert callable(found)
    return found  # type: ignore[no-any-return]


def _serve(conn: multiprocessing.connection.Connection, target: str) -> None:
    """The worker: one mail at a time from the pipe; ("start", when) as it begins reading
    it, ("ok", what it read: a `Reading` or None) when it is read. Ctrl-C reaches the
    terminal's whole process group: the daemon stops the worker itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    work = _target(target)
    conn.send("ready")
    while True:
        try:
            raw = conn.recv_bytes()
        except (EOFError, OSError):  # the daemon is gone
            return
        conn.send(("start", time.monotonic()))
        read = None
        try:
            read = work(raw)
        except Exception:  # the daemon's own reading records the failure
            pass
        try:
            conn.send(("ok", read if isinstance(read, Reading) else None))
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):  # pickled before a byte is sent
            conn.send(("ok", None))  # read in its budget all the same: the daemon reads it again


class Inspector:
    """A worker process that reads mails under a deadline. ``target`` (``module:function``)
    is what it runs on each mail: `inspect` unless a test says otherwise."""

    def __init__(self, seconds: float, target: str = f"{__name__}:inspect") -> None:
        self.seconds = seconds
        self.target = target
        self._proc: Any = None
        self._conn: multiprocessing.connection.Connection | None = None
        self._guard = threading.Lock()
        self._queue: deque[bytes] = deque()  # the batch's next mails, not handed to the worker yet
        self._queue_lock = threading.Lock()  # `ahead` never waits for a mail being read
        self._sent: deque[bytes] = deque()  # handed to the worker, its answer not read yet
        self._sent_bytes = 0
        self._started: float | None = None  # when the worker said it began the oldest mail handed
        #: The last mail read and what the worker read of it, until the daemon takes it (`reading`).
        self._last: tuple[bytes, Reading | None] | None = None
        self._last_lock = threading.Lock()  # `reading` never waits for a mail being read

    def ahead(self, raws: Sequence[bytes]) -> None:
        """The mails about to be checked, in order: the worker reads the next ones while
        the daemon handles the one it has read. Does no I/O (the next `check` hands them)."""
        if self.seconds > 0:
            with self._queue_lock:
                self._queue = deque(raws)

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
        self._sent.clear()
        self._sent_bytes = 0
        self._started = None
        with self._last_lock:
            self._last = None

    def _hand(self, raw: bytes) -> None:
        assert self._conn is not None
        self._conn.send_bytes(raw)
        self._sent.append(raw)
        self._sent_bytes += len(raw)

    def _top_up(self) -> None:
        """Hand the worker the batch's next mails while they fit in `AHEAD_BYTES`."""
        with self._queue_lock:
            while self._queue and self._sent_bytes + len(self._queue[0]) <= AHEAD_BYTES:
                self._hand(self._queue.popleft())

    def _await(self) -> str | None:
        """The answer for the oldest mail handed: None when read in its budget, else why
        not (the worker is then gone). The budget runs from the worker's own start."""
        assert self._conn is not None
        size = len(self._sent[0])
        # the mail's own budget once the worker said when it started, until then from now
        deadline = (time.monotonic() if self._started is None else self._started) + self.seconds
        try:
            while self._conn.poll(max(0.0, deadline - time.monotonic())):
                if self._receive():
                    return None
                assert self._started is not None
                deadline = self._started + self.seconds
        except (EOFError, OSError) as exc:  # the worker died on this mail
            self._stop()
            log.warning("the mail reader died on a mail of %d bytes: %s", size, exc)
            return f"reading it stopped the reader ({type(exc).__name__})"
        self._stop()
        log.warning("a mail of %d bytes took more than %g s to read: not read", size, self.seconds)
        return f"reading it took more than {self.seconds:g} s"

    def _receive(self) -> bool:
        """One message from the worker about the oldest mail handed: True when it is read
        ("ok"), False when it began ("start", when: kept for its budget)."""
        assert self._conn is not None
        message = self._conn.recv()
        if message[0] == "ok":
            raw = self._sent.popleft()
            self._sent_bytes -= len(raw)
            self._started = None
            with self._last_lock:
                self._last = (raw, message[1])
            return True
        self._started = message[1]
        return False

    def reading(self, raw: bytes) -> Reading | None:
        """What the worker read of ``raw``, once `poll` or `check` said it was read in its
        budget (None: a machine's mail, another mail read since, or no worker): taken, so
        that it is never handed out twice. Never waits."""
        with self._last_lock:
            last, self._last = self._last, None
        if last is None or not (last[0] is raw or last[0] == raw):
            return None
        return last[1]

    def _answered(self) -> bool:
        """True when the answer for the oldest mail handed is there, read without waiting."""
        assert self._conn is not None
        while self._conn.poll(0):
            if self._receive():
                return True
        return False

    def poll(self, raw: bytes) -> tuple[bool, str | None]:
        """``(True, verdict)`` when the answer for ``raw`` is there already, the verdict
        `check` would give (None: read within its budget); ``(False, None)`` when it is not:
        then `check` waits for it. Never waits, does no work for the daemon: it only reads
        what the worker said, so the daemon may call it while it holds the database."""
        if self.seconds <= 0:
            return True, None
        if not self._guard.acquire(blocking=False):
            return False, None
        try:
            if self._conn is None:
                return False, None
            try:
                # answers for mails the caller skipped: dropped when they are there (`check` waits for the rest)
                while self._sent and not (self._sent[0] is raw or self._sent[0] == raw):
                    if not self._answered():
                        return False, None
                if not self._sent or not self._answered():
                    return False, None  # not handed yet, or still being read
            except (EOFError, OSError):
                return False, None  # the worker died: `check` says so, and replaces it
            try:
                self._top_up()  # the next mails, in the room this one's answer freed
            except (EOFError, OSError):
                pass  # the next answer tells what happened to the worker
            return True, None
        finally:
            self._guard.release()

    def check(self, raw: bytes) -> str | None:
        """None when the mail is read within the budget, else why not (for the record).
        Blocking: call it from a thread. A budget of 0 or less checks nothing."""
        if self.seconds <= 0:
            return None
        with self._guard:
            if self._conn is None and not self._start():
                return None
            # Mails handed ahead but never asked about (the caller skipped them): their answers
            # are read and dropped, each within its own budget (a worker stuck on one is replaced).
            while self._sent and not (self._sent[0] is raw or self._sent[0] == raw):
                self._await()
                if self._conn is None and not self._start():
                    return None
            if not self._sent:
                with self._queue_lock:
                    while self._queue:  # this mail, and those before it the caller skipped
                        head = self._queue.popleft()
                        if head is raw or head == raw:
                            break
                try:
                    self._hand(raw)
                except (EOFError, OSError) as exc:
                    self._stop()
                    log.warning("the mail reader died on a mail of %d bytes: %s", len(raw), exc)
                    return f"reading it stopped the reader ({type(exc).__name__})"
            try:
                self._top_up()
            except (EOFError, OSError):
                pass  # the answer for this mail tells what happened to the worker
            return self._await()

    def close(self) -> None:
        with self._guard:
            self._stop()
        with self._queue_lock:
            self._queue.clear()
