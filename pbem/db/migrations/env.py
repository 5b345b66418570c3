"""Alembic's environment: always run from `pbem.db.schema`, which hands over an open
connection (``config.attributes["connection"]``); there is no alembic.ini."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from pbem.db import models  # noqa: F401  (registers the tables: the target of autogenerate)

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=SQLModel.metadata,
                  render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
                  compare_type=True)
with context.begin_transaction():
    context.run_migrations()
