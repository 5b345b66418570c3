"""Stored mail wakes the workers (PostgreSQL): the mailbox reader stores each mail
(`pbem.service.queue.store`) with a ``NOTIFY`` in the same transaction, delivered when it
commits; every other worker LISTENs on a connection of its own and claims the mail at once,
instead of finding it on its next try for the mailbox lease (`lease.TRY_SECONDS` later), so a
burst of mail is shared from its first mail on. A worker that handles no mail but sends it or
draws maps (``pbem serve --role outbox,maps``) listens instead for the work those make: a mail
queued (`pbem.service.outbox.enqueue`) or a turn's reports to draw (`announce`), and sends
each answer as it is queued instead of on its next look.

The listener runs in a thread (psycopg's blocking ``notifies``) and sets an asyncio event on
the worker's loop; a lost connection is made again after a second. A notice lost meanwhile
costs only the wait: the worker still looks at the queue every `lease.TRY_SECONDS`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from pbem.service.claims import shared

log = logging.getLogger(__name__)

CHANNEL = "pbem_inbound"
#: Mail queued to be sent, reports to be drawn.
WORK = "pbem_work"
#: The notice of `WORK`: a column of the statement that queues the work (`pbem.service.outbox`),
#: or a statement of its own (`announce`). Delivered when the transaction commits, one for all
#: of a transaction's (PostgreSQL folds the same notices into one).
NOTICE = func.pg_notify(WORK, "")


def channels(roles: Collection[str]) -> tuple[str, ...]:
    """What a worker of ``roles`` (`pbem.service.workers.ROLES`) listens for: stored mail when it
    handles mail (it sends and draws what its own mails made); else queued mail and reports to
    draw, when it sends or draws them."""
    if "inbox" in roles:
        return (CHANNEL,)
    return (WORK,) if {"outbox", "maps"} & set(roles) else ()


def announce(session: Session) -> None:
    """Wake the workers that send mail and draw maps when ``session`` commits (PostgreSQL)."""
    if shared(session.get_bind().engine):
        session.execute(select(NOTICE))


class Listener:
    """LISTEN for stored mail (or another of `channels`); `wait` returns when some came (or
    after ``timeout``)."""

    def __init__(self, engine: Engine, enabled: bool = True, channels: Sequence[str] = (CHANNEL,)) -> None:
        self.engine = engine
        self.channels = tuple(channels)
        # workers sharing a database (`claims.Claims.shared`), listening for something
        self.enabled = enabled and shared(engine) and bool(self.channels)
        self._event = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if not self.enabled or self._thread is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="pbem-stored-mail", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    async def wait(self, timeout: float) -> bool:
        """True when stored mail was announced (since the last wait), False after ``timeout``."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True

    def _wake(self) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._event.set)

    def _run(self) -> None:
        import psycopg

        url = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while not self._stop.is_set():
            conn: Any = None
            try:
                conn = psycopg.connect(url, autocommit=True)
                for channel in self.channels:
                    conn.execute(f"LISTEN {channel}")
                self._wake()  # mail stored before the LISTEN is looked for now
                while not self._stop.is_set():
                    if any(True for _ in conn.notifies(timeout=1.0, stop_after=1)):
                        self._wake()
            except Exception as exc:  # the database restarted or went away: listen again soon
                log.debug("stored-mail listener: %s; listening again in 1 s", exc)
                self._stop.wait(1.0)
            finally:
                if conn is not None:
                    conn.close()
