"""The mailbox reader: of the workers on one PostgreSQL database, exactly one at a time
fetches the inbox, so that a mail is never taken by two of them (each would think the
other had died on it, `pbem.service.receipt`).

The lease is a session-level advisory lock held on a connection of its own. PostgreSQL
drops it the moment that connection ends — a worker killed with -9 closes its socket —
and the other workers try for it every `TRY_SECONDS`: one of them takes the mailbox over
within seconds. A holder checks its connection before each pass over the inbox: one
that lost it (the database restarted) has lost the lease too, and tries again.

On SQLite there is one daemon (`pbem.db.lock`): it always holds the lease.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine

from pbem.service.claims import MAILBOX, shared

log = logging.getLogger(__name__)

#: How often a worker without the lease tries for it (the takeover time after a death).
TRY_SECONDS = 2.0


class MailboxLease:
    def __init__(self, engine: Engine, workers: str = "shared") -> None:
        self.engine = engine
        self.shared = shared(engine) and workers == "shared"  # one daemon: it reads the mailbox
        self._conn: Any = None

    @property
    def held(self) -> bool:
        return not self.shared or self._conn is not None

    def hold(self) -> bool:
        """True when this worker reads the mailbox now (taking the lease if it is free)."""
        if not self.shared:
            return True
        if self._conn is not None:
            try:
                self._conn.execute(text("SELECT 1"))
                return True
            except Exception:  # the connection, and with it the lease, is gone
                log.warning("the mailbox lease was lost with its database connection; trying again")
                self._drop()
        conn = None
        try:
            conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            got = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k, 0)"), {"k": MAILBOX}).scalar())
        except Exception:
            log.debug("the mailbox lease could not be tried", exc_info=True)
            got = False
        if not got:
            if conn is not None:
                conn.close()
            return False
        self._conn = conn
        log.info("this worker reads the mailbox now")
        return True

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                log.debug("closing the lease connection failed", exc_info=True)

    def release(self) -> None:
        if self._conn is not None:
            try:
                self._conn.execute(text("SELECT pg_advisory_unlock(:k, 0)"), {"k": MAILBOX})
            except Exception:
                log.debug("releasing the mailbox lease failed", exc_info=True)
            self._drop()
