"""The database's schema version (Alembic, `pbem/db/migrations`).

A fresh database is made from the models and stamped with the newest revision (Alembic's
way of starting a database); an existing one is only ever changed by ``pbem db upgrade``,
which runs the revisions it lacks. A database from before Alembic has tables but no
version: the first revision adopts it. The daemon and every other command refuse a
database whose version is not the newest, naming the command that fixes it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

from pbem.db import models  # noqa: F401  (registers the tables)
from pbem.errors import SchemaError

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

log = logging.getLogger(__name__)

SCRIPTS = "pbem.db:migrations"
UPGRADE_HINT = "run `pbem db upgrade` (after `pbem backup --out FILE`)"
#: A revision's file: its number first (`pbem.db.revision` writes ``NNNN_<slug>.py``).
_NUMBERED = re.compile(r"([0-9]{4})_[a-z0-9_]*\.py")


def alembic_config(connection: Connection | None = None) -> AlembicConfig:
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", SCRIPTS)
    cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


@lru_cache(maxsize=1)
def head() -> str:
    """The newest revision this release knows: the highest number in the versions folder
    (the same as Alembic's head: tests/db/test_schema.py)."""
    folder = resources.files("pbem.db").joinpath("migrations", "versions")
    numbers = [m.group(1) for entry in folder.iterdir() if (m := _NUMBERED.fullmatch(entry.name))]
    assert numbers, "no revisions in pbem/db/migrations/versions"
    return max(numbers)


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
        tables = set(inspect(conn).get_table_names())
        rev = _on_record(conn) if "alembic_version" in tables else None
    newest = head()
    if rev is None:
        return Version("legacy" if tables - {"alembic_version"} else "empty", None, newest)
    if rev == newest:
        return Version("current", rev, newest)
    known = {s.revision for s in scripts().walk_revisions()}
    return Version("behind" if rev in known else "ahead", rev, newest)


def _on_record(conn: Connection) -> str | None:
    """The revision the database is stamped with (Alembic's table: one row, or none)."""
    found = [row[0] for row in conn.execute(text("SELECT version_num FROM alembic_version"))]
    if len(found) > 1:  # branches: Alembic's own reading says which (none in pbem's history)
        from alembic.runtime.migration import MigrationContext

        return MigrationContext.configure(conn).get_current_revision()
    return found[0] if found else None


def create(engine: Engine) -> None:
    """Make every table of the models in an empty database and stamp it with the newest
    revision; another process doing the same at once is harmless (create_all checks)."""
    from alembic.runtime.migration import MigrationContext

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
