"""The database engine: SQLite (WAL, foreign keys) or PostgreSQL, same tables.

``schema`` says what opening may do to the database (`pbem.db.schema`): ``"upgrade"``
makes or upgrades it (the library's default: tests, the demo, ``pbem db upgrade``),
``"create"`` makes a missing one but refuses one that needs an upgrade (``serve``, ``game
new``), ``"require"`` only opens an existing, current one (every other command), ``"none"``
opens whatever is there (``db current``, ``status``), ``"open"`` the same but makes a
missing SQLite file (``db upgrade``, which then runs `pbem.db.schema.upgrade`). A SQLite file and its folder are made
0600 / 0700: they hold the game's secrets.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import event, exc
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from pbem.db import models  # noqa: F401  (registers the tables)
from pbem.errors import NoDatabaseError, PbemError, StorageError

Schema = Literal["upgrade", "create", "require", "none", "open"]
MAKERS = "`pbem serve`, `pbem db upgrade` or `pbem game new` make one"


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


#: A pooled PostgreSQL connection unused this long (seconds) is pinged before it is handed
#: out, so that a server restart or a dropped link shows there, not in a mail's transaction.
#: One in steady use is not: ``pool_pre_ping`` cost a round trip at every checkout, ~0.75 ms of
#: a worker's CPU for every mail (benchmarks/mail_throughput.py, py-spy).
PING_AFTER = 5.0


def ping_when_idle(engine: Engine, clock: Callable[[], float] = time.monotonic) -> None:
    """Ping a connection at checkout when it has not been used for `PING_AFTER` seconds
    (or never): a dead one is then replaced by the pool (DisconnectionError), as with
    ``pool_pre_ping``, without a round trip for each unit of work of a busy worker."""

    @event.listens_for(engine, "checkin")
    def used(_dbapi_conn: Any, record: Any) -> None:
        record.info["pbem_used"] = clock()

    @event.listens_for(engine, "checkout")
    def check(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        last = record.info.get("pbem_used")
        if last is not None and clock() - last < PING_AFTER:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)  # what pool_pre_ping sends (no transaction left open)
        except Exception as error:
            raise exc.DisconnectionError(f"a pooled connection did not answer: {error}") from error


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None: another database, or SQLite in memory)."""
    try:
        parsed = make_url(url)
    except Exception:
        return None
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def _private_file(path: Path) -> None:
    """Make the SQLite file (and its folder) before SQLite does, readable by us alone."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, mode=0o700)
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))


def make_engine(url: str, schema: Schema = "upgrade") -> Engine:
    """The engine, with the schema handled as ``schema`` says (module docstring)."""
    from pbem.db import schema as versions

    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy raises ArgumentError with a terse text
        raise StorageError(f"not a database URL: {url!r}") from exc
    where = parsed.render_as_string(hide_password=True)
    path = sqlite_path(url)
    if parsed.get_backend_name() == "sqlite":
        if path is not None:
            if not path.exists() and schema in ("require", "none"):
                raise NoDatabaseError(f"no database at {path.resolve()} ({MAKERS})")
            _private_file(path)
            where = str(path)
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        connect_args = {}
        if parsed.get_driver_name() == "psycopg":  # psycopg only where the URL asks for it (an extra)
            from pbem.db.cursor import Cursor

            connect_args["cursor_factory"] = Cursor  # each result's description made once
        engine = create_engine(parsed, connect_args=connect_args)
        ping_when_idle(engine)
    if schema in ("none", "open"):
        return engine
    try:
        if schema == "upgrade":
            versions.upgrade(engine)
            return engine
        state = versions.version(engine).state
        if state == "empty" and schema == "create":
            versions.create(engine)
        elif state == "empty":
            raise NoDatabaseError(f"no pbem tables in the database {where} ({MAKERS})")
        else:
            versions.require_current(engine, where)
    except PbemError:
        engine.dispose()
        raise
    except Exception as exc:
        engine.dispose()
        raise StorageError(f"cannot open the database {where}: {exc}") from exc
    return engine


def session(engine: Engine) -> Session:
    return Session(engine, expire_on_commit=False)
