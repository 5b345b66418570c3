"""One daemon per SQLite database: two `pbem serve` against the same file would both send
the outbox (duplicate mails) and both poll the mailbox. SQLite: an exclusive lock on a file
beside the database; a second daemon is refused (`DaemonLockedError`, exit 75).

On PostgreSQL several daemons share the work (`pbem.service.claims`, `pbem.service.lease`):
no lock is taken here. ``exclusive=True`` (a tool that must be alone with the database)
takes the old session advisory lock, held on a connection of its own.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url

from pbem.errors import DaemonLockedError

_ADVISORY_KEY = 0x7062656D  # "pbem"


class DaemonLock:
    def __init__(self, engine: Engine, exclusive: bool = False) -> None:
        self.engine = engine
        self.exclusive = exclusive
        self._conn: Any = None
        self._fd: int | None = None

    def acquire(self) -> None:
        url = make_url(str(self.engine.url))
        if url.get_backend_name() == "postgresql":
            if not self.exclusive:
                return  # the workers share this database
            conn = self.engine.connect()
            got = conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": _ADVISORY_KEY}).scalar()
            conn.commit()
            if not got:
                conn.close()
                raise DaemonLockedError("another pbem daemon is already serving this database")
            self._conn = conn
            return
        database = url.database or ""
        if not database or database == ":memory:":
            return
        path = Path(database).with_suffix(".daemon.lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise DaemonLockedError(f"another pbem daemon is already serving {database} (lock {path})") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._conn is not None:
            try:
                self._conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _ADVISORY_KEY})
                self._conn.close()
            finally:
                self._conn = None
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
