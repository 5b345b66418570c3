"""The database engine: SQLite (WAL, foreign keys) or PostgreSQL, same tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, SQLModel, create_engine

from pbem.db import models  # noqa: F401  (registers the tables)
from pbem.db.migrate import seed_holders, upgrade
from pbem.errors import StorageError


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def make_engine(url: str) -> Engine:
    """Create the engine and the tables; a SQLite file gets its folder made."""
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy raises ArgumentError with a terse text
        raise StorageError(f"not a database URL: {url!r}") from exc
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        engine = create_engine(parsed, pool_pre_ping=True)
    try:
        SQLModel.metadata.create_all(engine)
        upgrade(engine)
        seed_holders(engine)
    except Exception as exc:
        raise StorageError(f"cannot open the database {parsed.render_as_string(hide_password=True)}: {exc}") from exc
    return engine


def session(engine: Engine) -> Session:
    return Session(engine, expire_on_commit=False)
