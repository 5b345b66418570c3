"""Turn a database made by this release back into one of release 0.1.0 (before migrations),
for tests that build the old state with today's service code: no alembic version, and only
the tables and columns of the first revision's frozen schema."""

from __future__ import annotations

import importlib

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine


def as_release_0_1(engine: Engine, drop: tuple[str, ...] = ()) -> None:
    """Drop what came after release 0.1.0 (and the tables in ``drop``, e.g. ``holder`` for a
    database from before teams), then the version table: the next open adopts it."""
    baseline = importlib.import_module("pbem.db.migrations.versions.0001_baseline").metadata()
    cascade = " CASCADE" if engine.dialect.name == "postgresql" else ""
    found = inspect(engine)
    tables = set(found.get_table_names())
    newer = [t for t in tables if t not in baseline.tables and t != "alembic_version"] + list(drop)
    columns = {t: [c["name"] for c in found.get_columns(t)] for t in tables & set(baseline.tables) - set(drop)}
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.execute(text("PRAGMA foreign_keys=OFF"))
        for table in newer:
            conn.execute(text(f'DROP TABLE IF EXISTS "{table}"{cascade}'))
        for table, names in columns.items():
            for name in names:
                if name not in baseline.tables[table].c:
                    conn.execute(text(f'ALTER TABLE "{table}" DROP COLUMN "{name}"'))
        conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    engine.dispose()
