"""The database's schema version (Alembic, `pbem/db/migrations`).

A fresh database is made from the models and stamped with the newest revision (Alembic's
way of starting a database); an existing one is only ever changed by ``pbem db upgrade``,
which runs the revisions it lacks. A database from before Alembic has tables but no
version: the first revision adopts it. The daemon and every other command refuse a
database whose version is not the newest, naming the command that fixes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

from pbem.db import models  # noqa: F401  (registers the tables)
from pbem.errors import SchemaError

log = logging.getLogger(__name__)

SCRIPTS = "pbem.db:migrations"
UPGRADE_HINT = "run `pbem db upgrade` (after `pbem backup --out FILE`)"


def alembic_config(connection: Connection | None = None) -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", SCRIPTS)
    cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def head() -> str:
    """The newest revision this release knows."""
    rev = scripts().get_current_head()
    assert rev is not None
    return rev


@dataclass(frozen=True)
class Version:
    """Where a database stands: ``empty`` (no tables), ``legacy`` (tables from before
    migrations), ``behind``, ``current`` or ``ahead`` (made by a newer release)."""

    state: str
    revision: str | None
    head: str

    def text(self) -> str:
        if self.state == "empty":
            return "empty (no tables yet)"
        if self.state == "legacy":
            return f"from before migrations (no version); newest is {self.head}: {UPGRADE_HINT}"
        if self.state == "behind":
            return f"{self.revision}; newest is {self.head}: {UPGRADE_HINT}"
        if self.state == "ahead":
            return f"{self.revision}, unknown to this release (newest {self.head}): made by a newer pbem"
        return f"{self.revision} (newest)"


def version(engine: Engine) -> Version:
    with engine.connect() as conn:
        rev = MigrationContext.configure(conn).get_current_revision()
        tables = set(inspect(conn).get_table_names())
    newest = head()
    if rev is None:
        return Version("legacy" if tables - {"alembic_version"} else "empty", None, newest)
    if rev == newest:
        return Version("current", rev, newest)
    known = {s.revision for s in scripts().walk_revisions()}
    return Version("behind" if rev in known else "ahead", rev, newest)


def create(engine: Engine) -> None:
    """Make every table of the models in an empty database and stamp it with the newest
    revision; another process doing the same at once is harmless (create_all checks)."""
    SQLModel.metadata.create_all(engine)
    with engine.begin() as conn:
        context = MigrationContext.configure(conn)
        if context.get_current_revision() is None:
            context.stamp(scripts(), head())
    log.info("database created at revision %s", head())


def upgrade(engine: Engine) -> tuple[Version, Version]:
    """Bring the database to the newest revision (an empty one is created); returns the
    version before and after."""
    from alembic import command

    before = version(engine)
    if before.state == "ahead":
        raise SchemaError(f"database version {before.text()}")
    if before.state == "empty":
        create(engine)
    elif before.state != "current":
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "head")
        log.warning("database upgraded from %s to %s", before.revision or "before migrations", head())
    return before, version(engine)


def require_current(engine: Engine, where: str) -> None:
    """Refuse a database that is not at the newest revision (``where`` names it)."""
    now = version(engine)
    if now.state != "current":
        raise SchemaError(f"the database {where} is {now.text()}")
