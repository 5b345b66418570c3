"""One daemon per database: a second `serve` on the same data refuses to start."""

from __future__ import annotations

import os

import pytest
from sqlmodel import SQLModel

from pbem.db.lock import DaemonLock
from pbem.db.session import make_engine
from pbem.errors import StorageError

URLS = ["sqlite"] + (["postgres"] if os.environ.get("PBEM_TEST_POSTGRES_URL") else [])


@pytest.mark.parametrize("backend", URLS)
def test_a_second_daemon_is_refused_until_the_first_stops(backend: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path}/pbem.sqlite" if backend == "sqlite" else os.environ["PBEM_TEST_POSTGRES_URL"]
    try:
        first_engine, second_engine = make_engine(url), make_engine(url)
    except StorageError as exc:
        pytest.skip(f"database not reachable: {exc}")
    # PostgreSQL: only a tool that must be alone asks for this (workers share it, tests/workers)
    exclusive = backend == "postgres"
    first, second = DaemonLock(first_engine, exclusive), DaemonLock(second_engine, exclusive)
    first.acquire()
    with pytest.raises(StorageError, match="another pbem daemon"):
        second.acquire()
    first.release()
    second.acquire()
    second.release()
    if backend == "postgres":
        SQLModel.metadata.drop_all(first_engine)
    first_engine.dispose()
    second_engine.dispose()
