"""Suite-wide set-up: one PostgreSQL database per test worker.

The suite runs on several workers (pytest-xdist). Tests that use PostgreSQL drop and
create the schema of the database in ``PBEM_TEST_POSTGRES_URL``; two workers sharing it
would drop each other's tables. Each worker gets its own database beside that one
(``test`` becomes ``test_gw0``, ``test_gw1``…), created when missing.
"""

from __future__ import annotations

import os

import pytest


def _worker_database(url: str, worker: str) -> str:
    import psycopg
    from psycopg import sql
    from sqlalchemy.engine import make_url

    base = make_url(url)
    name = f"{base.database or 'test'}_{worker}"
    dsn = base.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return base.set(database=name).render_as_string(hide_password=False)


def pytest_configure(config: pytest.Config) -> None:
    # PBEM_TEST_PG_TAG: a name of its own for a second run beside this one on one server
    tag = os.environ.get("PBEM_TEST_PG_TAG", "")
    worker = tag + os.environ.get("PYTEST_XDIST_WORKER", "") if tag else os.environ.get("PYTEST_XDIST_WORKER")
    url = os.environ.get("PBEM_TEST_POSTGRES_URL")
    if not worker or not url:
        return
    try:
        os.environ["PBEM_TEST_POSTGRES_URL"] = _worker_database(url, worker)
    except Exception:  # no PostgreSQL answers: the tests that need it skip themselves
        pass
