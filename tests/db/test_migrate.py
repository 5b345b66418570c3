"""A database made by an older version gains the new columns in place, with the rows kept."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import create_engine, inspect, text

from pbem.db.session import make_engine


def _old_database(url: str) -> None:
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.execute(text('DROP TABLE IF EXISTS "player" CASCADE' if url.startswith("postgresql") else 'DROP TABLE IF EXISTS "player"'))
        conn.execute(text('CREATE TABLE player (id INTEGER PRIMARY KEY, address VARCHAR NOT NULL, '
                          'name VARCHAR NOT NULL, language VARCHAR NOT NULL)'))
        conn.execute(text("INSERT INTO player (id, address, name, language) VALUES (1, 'a@b.c', 'Anna', 'it')"))
    engine.dispose()


URLS = ["sqlite"] + (["postgres"] if os.environ.get("PBEM_TEST_POSTGRES_URL") else [])


@pytest.mark.parametrize("backend", URLS)
def test_new_columns_are_added_to_an_old_database(backend: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path}/old.sqlite" if backend == "sqlite" else os.environ["PBEM_TEST_POSTGRES_URL"]
    if backend == "postgres":
        from sqlmodel import SQLModel

        try:
            engine = make_engine(url)
        except Exception as exc:
            pytest.skip(f"PostgreSQL not reachable: {exc}")
        SQLModel.metadata.drop_all(engine)
        engine.dispose()
    _old_database(url)
    engine = make_engine(url)
    columns = {c["name"] for c in inspect(engine).get_columns("player")}
    assert {"bouncing_since", "bounce_notified_at"} <= columns
    with engine.connect() as conn:
        row = conn.execute(text("SELECT address, language, bouncing_since FROM player")).one()
    assert tuple(row) == ("a@b.c", "it", None)
    make_engine(url).dispose()  # a second start changes nothing
    engine.dispose()
