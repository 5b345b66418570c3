"""pbem's PostgreSQL connections make `pbem.db.cursor.Cursor`: a result's ``description`` is
made once for each shape of result a connection sees (its columns' names, types, modifiers
and sizes), the same columns as psycopg's own, a new list each time; a result of another
shape is described anew, and the kept descriptions are bounded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import Engine

import psycopg._cursor_base as cursor_base
from pbem.db import cursor as described
from pbem.db.session import make_engine
from tests.workers.harness import postgres_url


@pytest.fixture
def engine() -> Iterator[Engine]:
    made = make_engine(postgres_url(), "none")
    yield made
    made.dispose()


@pytest.fixture
def columns_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many `psycopg.Column` objects psycopg's description made."""
    made = [0]
    real = cursor_base.Column

    def counted(cur: Any, index: int) -> Any:
        made[0] += 1
        return real(cur, index)

    monkeypatch.setattr(cursor_base, "Column", counted)
    return made


def _plain(dsn: str, sql: str) -> list[tuple[str, int]]:
    with psycopg.connect(dsn) as conn:
        cur = conn.cursor()
        cur.execute(sql)
        return [(c.name, c.type_code) for c in cur.description or []]


WIDE = "SELECT 1 AS id, 'a'::text AS name, now() AS at, 2.5::numeric(5, 2) AS score, NULL::varchar(12) AS tag"


def test_a_shape_seen_again_is_described_without_a_column_made(engine: Engine, columns_made: list[int]) -> None:
    with engine.connect() as conn:
        dbapi = conn.connection.driver_connection
        cur = dbapi.cursor()  # type: ignore[union-attr]
        assert isinstance(cur, described.Cursor)
        columns_made[0] = 0  # those of the connection's first statements (SQLAlchemy's own) left out
        cur.execute(WIDE)
        first = cur.description
        assert columns_made[0] == 5
        cur.execute(WIDE.replace("1 AS id", "7 AS id"))  # another statement, the same shape
        again = cur.description
        assert columns_made[0] == 5  # kept: no Column made
        assert again is not first and [(c.name, c.type_code, c.internal_size) for c in again] == \
            [(c.name, c.type_code, c.internal_size) for c in first]
    dsn = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    assert [(c.name, c.type_code) for c in first] == _plain(dsn, WIDE)  # psycopg's own columns


def test_another_shape_is_described_anew_and_results_without_rows_as_psycopg_says(engine: Engine) -> None:
    with engine.connect() as conn:
        cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        cur.execute("SELECT 1 AS x")
        assert [(c.name, c.type_code) for c in cur.description] == [("x", 23)]  # int4
        cur.execute("SELECT 'one'::text AS x")  # the same name, another type
        assert [(c.name, c.type_code) for c in cur.description] == [("x", 25)]  # text
        cur.execute("SELECT 1::int8 AS x, 2::int8 AS y")
        assert [c.name for c in cur.description] == ["x", "y"]
        cur.execute("CREATE TEMP TABLE t (v int)")
        assert cur.description is None  # no rows, no columns
        cur.execute("SELECT")  # rows of no columns
        assert cur.description == []
        # through SQLAlchemy, which reads the description of every statement
        from sqlalchemy import text
        assert conn.execute(text("SELECT 3 AS n, 'z' AS s")).mappings().one() == {"n": 3, "s": "z"}


def test_the_kept_descriptions_are_bounded(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(described, "_KEPT_MAX", 2)
    with engine.connect() as conn:
        dbapi = conn.connection.driver_connection
        cur = dbapi.cursor()  # type: ignore[union-attr]
        for n in range(1, 6):
            cur.execute(f"SELECT {', '.join(f'{i} AS c{i}' for i in range(n))}")
            assert len(cur.description) == n
            assert len(dbapi.__dict__[described._KEPT]) <= 2
