"""Sealed mail is stored as it is on PostgreSQL (no compression tried on ciphertext): in a
database made fresh from the models and in one brought up by the revisions."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from pbem.db import schema
from pbem.db.models import UNCOMPRESSED
from pbem.db.session import make_engine
from tests.workers.harness import postgres_url


def _storage(engine) -> dict[tuple[str, str], str]:  # type: ignore[no-untyped-def]
    with engine.connect() as conn:
        return {(table, column): conn.execute(text(
            "SELECT attstorage FROM pg_attribute WHERE attrelid = CAST(:t AS regclass) AND attname = :c"),
            {"t": table, "c": column}).scalar_one() for table, column in UNCOMPRESSED}


@pytest.mark.parametrize("how", ["fresh", "revisions"])
def test_sealed_mail_is_stored_uncompressed(how: str) -> None:
    url = postgres_url()
    if how == "fresh":
        engine = make_engine(url, "create")
    else:
        from alembic import command

        engine = make_engine(url, "none")
        with engine.begin() as conn:
            command.upgrade(schema.alembic_config(conn), "head")
    try:
        assert set(_storage(engine).values()) == {"e"}  # EXTERNAL: out of line, never compressed
        assert schema.version(engine).state == "current"
    finally:
        engine.dispose()
