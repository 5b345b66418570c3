"""Every hot query on an index (PostgreSQL's EXPLAIN): the cost of one order mail and of one
turn must not grow with the number of games in the database (benchmarks/big_database.py
prints the figures). Sequential scans are priced out (``enable_seqscan = off``): a query
that still scans a table has no index it could use."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import any_, or_, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import array
from sqlmodel import col, select

from pbem.db.models import Game, Holder, InboundMail, OutboxMail, PhaseRow, Player, ReportJob, Seat, SheetRow
from pbem.db.session import make_engine
from pbem.service import limits
from tests.workers.harness import postgres_url

NOW = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)

#: The queries of one order mail, one turn, the outbox and the workers' claims.
HOT: dict[str, Any] = {
    "inbound mail by its dedupe key": select(InboundMail).where(InboundMail.dedupe_key == "receipt:x"),
    "player by address": select(Player).where(Player.address == "anna@example.org"),
    "game by id, claimed": select(Game).where(Game.id == "k1").with_for_update(skip_locked=True),
    "seats of a game": select(Seat).where(Seat.game_id == "k1"),
    "holders of a seat": select(Holder).where(Holder.seat_id == 1),
    "sheets of a phase": select(SheetRow).where(SheetRow.game_id == "k1", SheetRow.phase_seq == 3),
    "phases of a game": select(PhaseRow).where(PhaseRow.game_id == "k1").order_by(col(PhaseRow.seq)),
    "due outbox rows": select(OutboxMail).where(OutboxMail.status == "queued",
                                                col(OutboxMail.next_attempt_at) <= NOW)
    .order_by(col(OutboxMail.id)).limit(100),
    # `outbox._PENDING_OWN`: this worker's rows first (ids bound as an array), the others' once stale
    "due outbox rows, this worker's first": select(OutboxMail).where(
        OutboxMail.status == "queued", col(OutboxMail.next_attempt_at) <= NOW,
        or_(col(OutboxMail.id) == any_(array([1, 2])), col(OutboxMail.created_at) <= NOW))
    .order_by(col(OutboxMail.id)).limit(100),
    "pending report jobs": select(ReportJob.id).where(ReportJob.status == "pending")
    .order_by(col(ReportJob.id)).limit(64),
    "open phases of active games (deadlines)": select(Game, PhaseRow).where(
        Game.status == "active", PhaseRow.game_id == Game.id, PhaseRow.seq == Game.phase_seq,
        col(PhaseRow.resolved_at).is_(None)),
    # every answer's caps (`limits._counts`): everybody's from the tally's minutes, one address's
    # from its outbox rows
    "answer caps": select(limits._window("reply", NOW - HOUR, None, None).scalar_subquery(),
                          limits._window("reply", NOW - HOUR, '["anna@example.org"]', 60).scalar_subquery()),
}


def _plan(conn: Any, stmt: Any) -> list[str]:
    sql = str(stmt.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))
    rows = conn.execute(text("EXPLAIN (FORMAT JSON) " + sql)).scalar()
    plan = rows if isinstance(rows, list) else json.loads(rows)
    nodes: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        nodes.append(f"{node['Node Type']} {node.get('Relation Name', '')}".strip())
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    return nodes


@pytest.fixture(scope="module")
def engine() -> Any:
    from sqlmodel import SQLModel

    url = postgres_url()
    eng = make_engine(url, "none")
    SQLModel.metadata.create_all(eng)
    yield eng
    eng.dispose()
    postgres_url()  # emptied again: tables made without the revisions would stop the next `upgrade`


@pytest.mark.parametrize("name", sorted(HOT))
def test_hot_query_is_on_an_index(engine: Any, name: str) -> None:
    with engine.connect() as conn:
        conn.execute(text("SET enable_seqscan = off"))
        nodes = _plan(conn, HOT[name])
    scans = [n for n in nodes if "Scan" in n]
    assert scans, nodes
    assert not [n for n in scans if n.startswith("Seq Scan")], f"{name}: {nodes}"


def test_a_query_without_an_index_is_caught(engine: Any) -> None:
    """The check itself: a filter on a column with no index shows as a sequential scan."""
    with engine.connect() as conn:
        conn.execute(text("SET enable_seqscan = off"))
        nodes = _plan(conn, select(OutboxMail).where(OutboxMail.subject == "hello"))
    assert any(n.startswith("Seq Scan") for n in nodes), nodes


def test_the_waiting_mails_are_listed_on_their_own_index(engine: Any) -> None:
    """A worker's claim lists the stored mails still waiting, in order (`pbem.service.queue`):
    on the partial index that holds only them, not along the primary key past every mail ever
    handled (which no sequential scan would have betrayed: the key's index scan filtered them)."""
    from pbem.service import queue

    rows = [{"dedupe_key": f"receipt:{i}", "status": "orders" if i < 5000 else "stored", "note": ""}
            for i in range(5010)]
    with engine.begin() as conn:
        conn.execute(InboundMail.__table__.insert(), rows)  # type: ignore[attr-defined]
        conn.execute(text("ANALYZE inbound"))
    try:
        sql = str(queue._WAITING.listed.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))
        with engine.connect() as conn:
            plan = conn.execute(text("EXPLAIN (FORMAT JSON) " + sql)).scalar()
        found: list[str] = []

        def walk(node: dict[str, Any]) -> None:
            found.extend([node["Index Name"]] if "Index Name" in node else [])
            for child in node.get("Plans", []):
                walk(child)

        walk((plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"])
        assert found == ["ix_inbound_waiting"], plan
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM inbound"))


def test_the_waiting_index_names_the_queues_statuses() -> None:
    from pbem.db.models import WAITING_MAIL
    from pbem.service import queue

    assert WAITING_MAIL == f"status IN ({', '.join(repr(status) for status in queue.WAITING)})"
