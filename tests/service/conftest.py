"""Service tests run on a real SQLite file, and on PostgreSQL too when
PBEM_TEST_POSTGRES_URL is set (skipped cleanly only where no PostgreSQL answers)."""

from __future__ import annotations

import hashlib
import os
from datetime import datetime, timezone
from typing import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

from pbem.config import from_mapping
from pbem.core import registry
from pbem.db.session import make_engine
from pbem.service.context import Context, ManualClock

registry.register("duel", "tests.support.duel:RULES")

START = datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc)


def _backends() -> list[str]:
    out = ["sqlite"]
    if os.environ.get("PBEM_TEST_POSTGRES_URL"):
        out.append("postgres")
    return out


#: A test played on the SQLite file only (as tests/e2e/mailstack.py's): a whole game whose
#: PostgreSQL path (row locks on the game, the report jobs, the sequences) is the same code for
#: every game kind and is taken by test_corteo_game.py and test_conformance_service.py's
#: Kriegspiel on PostgreSQL; its mail is the same on both databases.
sqlite_only = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
#: A test of what PostgreSQL alone does (the workers' claims): run on PostgreSQL, never skipped
#: on SQLite (without PBEM_TEST_POSTGRES_URL its parameter set is empty).
postgres_only = pytest.mark.parametrize("db_url", [b for b in _backends() if b == "postgres"], indirect=True)


class CountingEntropy:
    """Deterministic 'random' bytes so that tests can recompute secrets and seeds."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, size: int) -> bytes:
        self.n += 1
        out = b""
        while len(out) < size:
            out += hashlib.sha256(f"test-entropy-{self.n}-{len(out)}".encode()).digest()
        return out[:size]


#: Per test process: the PostgreSQL schema as this process last made it (columns, indexes,
#: sequences), by database URL; a test finding it unchanged only empties the tables.
_MADE: dict[str, tuple[frozenset[tuple[str, ...]], tuple[str, ...]]] = {}

_SHAPE = text("""
    SELECT 'column', c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull::text
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0
       AND NOT a.attisdropped
    UNION ALL
    SELECT 'index', tablename, indexname, indexdef, '' FROM pg_indexes WHERE schemaname = current_schema()
    UNION ALL
    SELECT 'sequence', relname, '', '', '' FROM pg_class
     WHERE relnamespace = current_schema()::regnamespace AND relkind = 'S'
""")


def _shape(engine: Engine) -> tuple[frozenset[tuple[str, ...]], tuple[str, ...]]:
    with engine.connect() as conn:
        rows = frozenset(tuple(r) for r in conn.execute(_SHAPE))
    return rows, tuple(sorted(r[1] for r in rows if r[0] == "sequence"))


def fresh_postgres(url: str) -> None:
    """An empty pbem database at ``url``, as a new one: the tables dropped and made again the
    first time in this process (or when something else changed them since: tests/db,
    tests/workers use the same database), else only their rows deleted and their id
    sequences restarted (about 50 ms instead of a second of DDL, for each of some 250 tests)."""
    try:
        engine = make_engine(url)
    except Exception as exc:  # no PostgreSQL answers on this machine
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    try:
        made = _MADE.get(url)
        if made is not None and _shape(engine) == made:
            try:
                with engine.begin() as conn:
                    for table in reversed(SQLModel.metadata.sorted_tables):
                        conn.execute(table.delete())
                    for seq in made[1]:
                        conn.execute(text("SELECT setval(CAST(:s AS regclass), 1, false)"), {"s": f'"{seq}"'})
                return
            except Exception:  # a table or a key this process did not make: start over below
                pass
        _MADE.pop(url, None)
        SQLModel.metadata.drop_all(engine)
        SQLModel.metadata.create_all(engine)
        _MADE[url] = _shape(engine)
    finally:
        engine.dispose()


@pytest.fixture(params=_backends())
def db_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/pbem.sqlite"
        return
    url = os.environ["PBEM_TEST_POSTGRES_URL"]
    fresh_postgres(url)
    yield url


@pytest.fixture
def clock() -> Iterator[ManualClock]:
    from tests.support import players

    manual = ManualClock(START)
    players.clock = manual  # the players' mails are dated by the test's clock
    yield manual
    players.clock = None


@pytest.fixture
def ctx(db_url: str, clock: ManualClock) -> Iterator[Context]:
    cfg = from_mapping({"games": {"deadline": "48h", "reminders": ["24h", "2h"]},
                        "render": {"width": 400}}, "test")
    engine = make_engine(db_url)
    yield Context(engine=engine, config=cfg, clock=clock, entropy=CountingEntropy())
    engine.dispose()


@pytest.fixture
def duel(ctx: Context) -> tuple[str, dict[str, str]]:
    """A Duel between red (English) and blue (Italian), and their secrets from the welcome mails."""
    from pbem.service import games
    from tests.service.helpers import BLUE, RED, outbox, text_of
    from tests.support.players import secret_from_welcome

    game_id = games.create(ctx, "duel", "Test duel", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    secrets = {seat: secret_from_welcome(text_of(outbox(ctx, to=addr, kind="welcome")[0]))
               for seat, addr in (("red", RED), ("blue", BLUE))}
    return game_id, secrets
