"""What a sent mail costs the database (issue 17): the statements of a drain, on SQLite and on
PostgreSQL with the claims of several workers; and that the claims taken in fewer statements
still keep two workers off the same row.

A drain takes the due rows a few at a time (`outbox.TAKE_PER_CONNECTION` for each connection it
sends on): one listing that claims them (on PostgreSQL, in the same statement), one read of them
all under their claims, then each row's mark: ``2 + n`` statements for ``n`` rows taken at once,
all on the claims' own connection (none from the pool, no COMMIT: each statement commits
itself). A sent row's claim is kept (the row is sent, nobody takes it again) and given back by
the worker's next statement (a mark, or the next listing), not by a statement of its own."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy import event, text
from sqlmodel import col, select

from pbem.db.models import OutboxMail
from pbem.mail.transport import MemoryOutgoing
from pbem.service import claims as claims_module
from pbem.service import outbox
from pbem.service.claims import Claims
from pbem.service.context import Context, ManualClock
from tests.service.conftest import postgres_only


def _queue(ctx: Context, count: int, start: int = 0) -> list[int]:
    """``count`` rows queued by this worker (their bytes known: `outbox.fresh`)."""
    with ctx.session() as s:
        rows = [outbox.enqueue(s, ctx, message_id=f"<stmt-{i}@pbem.test>", raw=f"Subject: {i}\r\n\r\n{i}\r\n".encode(),
                               recipients=[f"p{i}@players.example"], subject=str(i), kind="reply", game_id=None)
                for i in range(start, start + count)]
        s.commit()
    return rows


class Counted:
    """The statements, pool checkouts and COMMITs on an engine while counting."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.checkouts = 0
        self.commits = 0


@pytest.fixture
def counted(ctx: Context) -> Iterator[Counted]:
    seen = Counted()

    def statement(conn, cursor, sql, params, context, many) -> None:  # type: ignore[no-untyped-def]
        seen.statements.append(sql)

    def checkout(*args: object) -> None:
        seen.checkouts += 1

    def commit(conn) -> None:  # type: ignore[no-untyped-def]
        seen.commits += 1

    event.listen(ctx.engine, "before_cursor_execute", statement)
    event.listen(ctx.engine.pool, "checkout", checkout)
    event.listen(ctx.engine, "commit", commit)
    yield seen
    event.remove(ctx.engine, "before_cursor_execute", statement)
    event.remove(ctx.engine.pool, "checkout", checkout)
    event.remove(ctx.engine, "commit", commit)


def _statuses(ctx: Context, ids: list[int]) -> list[tuple[str, int]]:
    with ctx.session() as s:
        rows = s.exec(select(OutboxMail).where(col(OutboxMail.id).in_(ids)).order_by(col(OutboxMail.id)))
        return [(r.status, r.attempts) for r in rows]


@pytest.mark.parametrize("count, statements", [(1, 2 + 1), (3, 2 + 3), (5, (2 + 4) + (2 + 1))])
def test_a_drain_of_n_rows_costs_2_plus_n_statements_a_round_on_the_claims_connection(
        ctx: Context, clock: ManualClock, counted: Counted, count: int, statements: int) -> None:
    """One connection: four rows a round (`outbox.TAKE_PER_CONNECTION`); five rows take two."""
    claims = Claims(ctx.engine)
    out = MemoryOutgoing()
    assert outbox.TAKE_PER_CONNECTION == 4 and not hasattr(out, "connections")
    _queue(ctx, 1, start=100)
    assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == 1  # the claims' connection opened, a claim kept
    ids = _queue(ctx, count)
    counted.statements.clear()
    counted.checkouts = counted.commits = 0
    assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == count
    assert len(counted.statements) == statements, "\n".join(counted.statements)
    assert counted.checkouts == 0 and counted.commits == 0  # the claims' own connection, autocommit
    assert _statuses(ctx, ids) == [("sent", 1)] * count
    assert [m.raw for m in out.sent[1:]] == [f"Subject: {i}\r\n\r\n{i}\r\n".encode() for i in range(count)]
    claims.close()


def test_rows_another_worker_queued_are_read_with_their_bytes_under_the_claims(
        ctx: Context, clock: ManualClock, counted: Counted) -> None:
    """Rows this process did not queue (their bytes not in memory: another worker's, or queued
    before a restart) are read, and their bytes decrypted, by the one read under the claims."""
    claims = Claims(ctx.engine)
    out = MemoryOutgoing()
    _queue(ctx, 1, start=100)
    assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == 1
    ids = _queue(ctx, 3)
    outbox._FRESH.clear()
    counted.statements.clear()
    assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == 3
    assert len(counted.statements) == 2 + 3, "\n".join(counted.statements)
    assert [m.raw for m in out.sent[1:]] == [f"Subject: {i}\r\n\r\n{i}\r\n".encode() for i in range(3)]
    assert _statuses(ctx, ids) == [("sent", 1)] * 3
    claims.close()


def test_the_claims_kept_are_those_of_the_last_drain_only(ctx: Context, clock: ManualClock) -> None:
    """A sent row's claim is kept past its drain, and let go by the next (on SQLite only in the
    worker's memory): a daemon that drains all day holds no more than one drain's rows."""
    claims = Claims(ctx.engine)
    for at in range(3):
        ids = _queue(ctx, 3, start=10 * at)
        assert asyncio.run(outbox.drain(ctx, MemoryOutgoing(), claims=claims)) == 3
        assert set(claims.holding(claims_module.OUTBOX)) <= set(ids)
    claims.close()


@postgres_only
def test_a_sent_rows_claim_is_kept_then_given_back_by_the_next_listing(ctx: Context, clock: ManualClock) -> None:
    a, b = Claims(ctx.engine), Claims(ctx.engine)  # two workers: a connection each
    ids = _queue(ctx, 3)
    assert asyncio.run(outbox.drain(ctx, MemoryOutgoing(), claims=a)) == 3
    assert a._held == {(claims_module.OUTBOX, ids[-1])}  # the last sent row's, kept
    assert b.take(claims_module.OUTBOX, ids[0]) and b.take(claims_module.OUTBOX, ids[1])  # given back on the way
    assert not b.take(claims_module.OUTBOX, ids[-1])
    (later,) = _queue(ctx, 1, start=3)
    assert asyncio.run(outbox.drain(ctx, MemoryOutgoing(), claims=a)) == 1
    assert a._held == {(claims_module.OUTBOX, later)}
    assert b.take(claims_module.OUTBOX, ids[-1])  # given back by the listing
    a.close()
    b.close()


@postgres_only
def test_a_row_another_worker_holds_is_skipped_and_sent_once_later(ctx: Context, clock: ManualClock,
                                                                   counted: Counted) -> None:
    """The listing tries to claim the second row, which b holds (b is sending it): a skips it
    and sends the first and the third; when b gives it back unsent, a's next drain sends it,
    once."""
    a, b = Claims(ctx.engine), Claims(ctx.engine)
    ids = _queue(ctx, 3)
    assert b.take(claims_module.OUTBOX, ids[1])
    a.execute(ctx, text("SELECT 1"))  # a's connection opened
    out = MemoryOutgoing()
    counted.statements.clear()
    assert asyncio.run(outbox.drain(ctx, out, claims=a)) == 2
    # the listing (claims the first and the third), their read under the claims, two marks
    assert len(counted.statements) == 4, "\n".join(counted.statements)
    assert [m.recipients for m in out.sent] == [("p0@players.example",), ("p2@players.example",)]
    assert _statuses(ctx, ids) == [("sent", 1), ("queued", 0), ("sent", 1)]
    b.give_back(claims_module.OUTBOX, ids[1])
    assert asyncio.run(outbox.drain(ctx, out, claims=a)) == 1
    assert asyncio.run(outbox.drain(ctx, out, claims=a)) == 0
    assert [m.recipients for m in out.sent][2:] == [("p1@players.example",)]
    assert _statuses(ctx, ids) == [("sent", 1)] * 3
    a.close()
    b.close()


@postgres_only
def test_a_row_the_listing_claimed_is_read_again_under_the_claim(ctx: Context, clock: ManualClock,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing claims its rows in the statement that read them: a row another worker sent
    between that statement's snapshot and the claim is caught by the read under the claims."""
    a = Claims(ctx.engine)
    first, second = _queue(ctx, 2)
    listed = Claims.listed

    def then_sent(self: Claims, c: Context, stmt: object, params: dict[str, object], kind: int,
                  want: int) -> tuple[list[object], list[int]]:
        got = listed(self, c, stmt, params, kind, want)
        with c.session() as s:  # another worker sent the first and gave its claim back meanwhile
            row = s.get(OutboxMail, first)
            assert row is not None
            row.status, row.attempts = "sent", 1
            s.add(row)
            s.commit()
        return got

    monkeypatch.setattr(Claims, "listed", then_sent)
    out = MemoryOutgoing()
    assert asyncio.run(outbox.drain(ctx, out, claims=a)) == 1
    assert [m.recipients for m in out.sent] == [("p1@players.example",)]
    assert _statuses(ctx, [first, second]) == [("sent", 1), ("sent", 1)]
    a.close()


def test_the_outbox_list_reads_no_mail(ctx: Context) -> None:
    """``pbem outbox list`` shows a line a mail: none of its bytes, so none are read (a welcome
    with its map is ~300 KB, each decrypted for nothing)."""
    _queue(ctx, 3)
    columns: list[list[str]] = []

    def _read(conn, cursor, statement, params, context, executemany) -> None:  # type: ignore[no-untyped-def]
        columns.append([d[0] for d in cursor.description or ()])

    event.listen(ctx.engine, "after_cursor_execute", _read)
    try:
        rows = outbox.listing(ctx, limit=2)
    finally:
        event.remove(ctx.engine, "after_cursor_execute", _read)
    assert [r.message_id for r in rows] == ["<stmt-2@pbem.test>", "<stmt-1@pbem.test>"]
    assert columns and not any("raw" in c for c in columns), columns
