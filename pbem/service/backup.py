"""`pbem backup --out FILE`: a consistent copy of the database while the daemon runs.

SQLite: the online backup API (a snapshot of one moment, whatever the daemon writes
meanwhile), into a file made 0600. PostgreSQL: ``pg_dump --format=custom``. The key for
data at rest is never in the copy (docs/operations.md: back it up apart; without it the
unrevealed dice seeds of running games cannot be read). Restoring is documented there.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url

from pbem.db.session import sqlite_path
from pbem.errors import NoDatabaseError, StorageError, UserError

log = logging.getLogger(__name__)


def _private(path: Path) -> None:
    """Make ``path`` empty and readable by us alone before anything is written to it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)


def backup(url: str, out: Path) -> str:
    """Write the copy; returns what was done, in words."""
    if out.exists() and out.is_dir():
        raise UserError(f"--out {out} is a folder: name a file")
    source = sqlite_path(url)
    if source is not None:
        if not source.exists():
            raise NoDatabaseError(f"no database at {source}")
        if out.resolve() == source.resolve():
            raise UserError("--out is the database itself")
        _private(out)
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        dst = sqlite3.connect(out)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        except sqlite3.Error as exc:
            raise StorageError(f"backup of {source} failed: {exc}") from exc
        finally:
            dst.close()
            src.close()
        return f"SQLite database {source} copied to {out}"
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise UserError(f"backup knows SQLite and PostgreSQL, not {parsed.get_backend_name()}")
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        raise StorageError("pg_dump not found: install the PostgreSQL client (Debian: postgresql-client)")
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = parsed.password  # never on the command line, where ps shows it
    plain = parsed.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    _private(out)
    done = subprocess.run([pg_dump, "--format=custom", "--no-owner", f"--file={out}", f"--dbname={plain}"],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise StorageError(f"pg_dump failed: {done.stderr.strip()[:500]}")
    return f"PostgreSQL database {parsed.database} dumped to {out} (pg_restore reads it)"
