"""A pooled PostgreSQL connection is pinged at checkout only after `PING_AFTER` seconds
unused (`pbem.db.session.ping_when_idle`): a dead one that sat idle is replaced before any
work sees it, as with ``pool_pre_ping``, while a busy worker's checkouts cost no round trip."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import create_engine, exc, text
from sqlalchemy.engine import Engine, make_url

from pbem.db.session import PING_AFTER, ping_when_idle
from tests.workers.harness import postgres_url


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _engine(url: str, clock: Clock) -> Engine:
    engine = create_engine(make_url(url).set(drivername="postgresql+psycopg"), pool_size=1, max_overflow=0)
    ping_when_idle(engine, clock)
    return engine


def _backend(engine: Engine) -> Any:
    with engine.connect() as conn:
        return conn.execute(text("SELECT pg_backend_pid()")).scalar_one()


def _terminate(url: str, pid: int) -> None:
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as admin:
        # with a timeout, it returns once the backend is gone (not only signalled)
        assert admin.execute("SELECT pg_terminate_backend(%s, 10000)", (pid,)).fetchone() == (True,)


@pytest.fixture
def dead() -> Iterator[tuple[Engine, Clock, int]]:
    """A pool of one connection, just returned, whose backend is then terminated."""
    url = postgres_url()
    clock = Clock()
    engine = _engine(url, clock)
    try:
        pid = _backend(engine)
        _terminate(url, pid)
        yield engine, clock, pid
    finally:
        engine.dispose()


def test_an_idle_connection_that_died_is_replaced_before_use(dead: tuple[Engine, Clock, int]) -> None:
    engine, clock, pid = dead
    clock.now += PING_AFTER  # unused that long: pinged at checkout, found dead, replaced
    assert _backend(engine) != pid


def test_a_connection_in_steady_use_is_not_pinged(dead: tuple[Engine, Clock, int]) -> None:
    engine, clock, pid = dead
    clock.now += PING_AFTER / 2  # used a moment ago: handed out as it is, no round trip first
    with pytest.raises(exc.OperationalError):  # the work itself meets the dead link
        _backend(engine)
    assert _backend(engine) != pid  # and the pool replaces it then
