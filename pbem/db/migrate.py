"""Additive schema upgrades: columns added to a table since a database was created.

`create_all` makes missing tables but never touches existing ones, so a server updated
to a version with a new column would fail on its old database. Until a change needs more
than new columns (then: a real migration tool), every new column must be nullable or
have a scalar default, and `upgrade` adds it in place.

Data steps run after the columns: `seed_holders` gives every seat from before teams its
first holder (the seat's own address, secret hash and language). Each step is
idempotent and safe to run at every start.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.engine import Engine
from sqlalchemy.schema import Column
from sqlmodel import SQLModel

from pbem.errors import StorageError

log = logging.getLogger(__name__)


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise StorageError(f"cannot add a column with the default {value!r} in place")


def _column_sql(engine: Engine, column: Column[Any]) -> str:
    kind = column.type.compile(dialect=engine.dialect)
    sql = f'"{column.name}" {kind}'
    arg = getattr(column.default, "arg", None)
    default = None if callable(arg) else arg
    if default is None and not column.nullable and column.type.python_type is str:
        default = ""
    if default is not None:
        sql += f" DEFAULT {_literal(default)}"
        if not column.nullable:
            sql += " NOT NULL"
    elif not column.nullable:
        raise StorageError(f"new column {column.table.name}.{column.name} needs a default or NULL")
    return sql


def upgrade(engine: Engine) -> list[str]:
    """Add the model's columns that the database lacks; returns what was added."""
    inspector = inspect(engine)
    existing_tables = set(inspector.get_table_names())
    added: list[str] = []
    with engine.begin() as conn:
        for table in SQLModel.metadata.sorted_tables:
            if table.name not in existing_tables:
                continue
            have = {c["name"] for c in inspector.get_columns(table.name)}
            for column in table.columns:
                if column.name in have:
                    continue
                conn.execute(text(f'ALTER TABLE "{table.name}" ADD COLUMN {_column_sql(engine, column)}'))
                added.append(f"{table.name}.{column.name}")
    for name in added:
        log.warning("database upgraded: added column %s", name)
    return added


#: A seat without any holder row is a seat from before teams: its own columns are its
#: one player. Holder rows are never deleted, so this never matches a seat made since.
_SEED_HOLDERS = """
INSERT INTO holder (seat_id, game_id, player_id, address, secret_hash, language, status, joined_at)
SELECT seat.id, seat.game_id, seat.player_id, lower(seat.address), seat.secret_hash, seat.language, 'active',
       (SELECT game.created_at FROM game WHERE game.id = seat.game_id)
FROM seat
WHERE NOT EXISTS (SELECT 1 FROM holder WHERE holder.seat_id = seat.id)
"""


def seed_holders(engine: Engine) -> int:
    """Give each seat from before teams its first holder; returns how many were made.

    Two servers starting at once may both try: the unique (seat, address) of `holder`
    refuses the second copy, and the loser finds the work done."""
    try:
        with engine.begin() as conn:
            made = conn.execute(text(_SEED_HOLDERS)).rowcount or 0
    except IntegrityError:
        log.info("holders of older seats were made by another process meanwhile")
        return 0
    if made:
        log.warning("database upgraded: %d seat(s) from before teams now have their player as first holder", made)
    return made
