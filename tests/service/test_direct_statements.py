"""The order mail's statements run as their compiled SQL on the DBAPI cursor (`pbem.db.direct`,
issue 17: half the floor): the same rows and values as `Connection.execute` gives, the seal of
the engine's own key, SQLAlchemy's errors, and every statement heard by the engine's listeners
(the statement counts of tests/service/test_mail_queries.py and of the benchmarks)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.config import from_mapping
from pbem.db import direct
from pbem.db.models import InboundMail, OutboxMail
from pbem.db.session import make_engine
from pbem.service import inbound, limits, outbox, receipt, turns
from pbem.service.claims import shared
from pbem.service.context import Context


def _row(ctx: Context, n: int, raw: bytes) -> dict[str, object]:
    now = ctx.now()
    return {"message_id": f"<direct-{n}@example.org>", "game_id": None, "kind": "reply", "mail_from": "pbem@localhost",
            "recipients_json": f'["player{n}@example.org"]', "subject": f"answer {n}", "raw": raw, "status": "queued",
            "attempts": 0, "next_attempt_at": now, "last_error": "", "created_at": now, "sent_at": None,
            "bounced_at": None, "bounce_status": "", "bounce_diagnostic": ""}


def _insert(ctx: Context) -> object:
    return outbox._queueing(None, shared(ctx.engine), False)  # the plain row, no tally


def test_a_direct_statement_writes_and_reads_as_connection_execute(ctx: Context) -> None:
    raw = b"Subject: answer\r\n\r\nyour orders are on file\r\n"
    with ctx.session() as session:
        conn = session.connection()
        on_postgres = shared(ctx.engine)
        minute = {"minute": limits.minute_of(ctx.now())}
        tallied = outbox._queueing(None, on_postgres, on_postgres)  # an answer: its minute tallied
        ours = direct.rows(conn, tallied, {**_row(ctx, 1, raw), **minute})[0][0]
        theirs = conn.execute(tallied, {**_row(ctx, 2, raw), **minute}).scalar_one()
        assert isinstance(ours, int) and theirs == ours + 1
        if not on_postgres:  # SQLite: the tally bumped by a statement of its own
            direct.rows(conn, outbox._BUMP, {"kind": "reply", **minute})
            conn.execute(outbox._BUMP, {"kind": "reply", **minute})
        # sealed with the engine's key on disk, opened on reading, as the column's type does it
        stored = {i: bytes(v) for i, v in conn.execute(text("SELECT id, raw FROM outbox WHERE id IN (:a, :b)"),
                                                       {"a": ours, "b": theirs})}
        assert stored[ours].startswith(b"sealed1:") and raw not in stored[ours]
        assert session.get(OutboxMail, ours).raw == session.get(OutboxMail, theirs).raw == raw  # type: ignore[union-attr]
        # a SELECT: the same counts
        stmt = limits._counts((False, True))
        params = {"kind0": "reply", "since0": limits.minute_of(ctx.now() - timedelta(hours=1)), "cap0": 100,
                  "kind1": "reply", "since1": ctx.now() - timedelta(hours=1), "recipient1": '["player1@example.org"]',
                  "cap1": 100}
        assert direct.rows(conn, stmt, params) == [tuple(conn.execute(stmt, params).one())] == [(2, 1)]
        session.commit()


def test_a_returned_time_is_processed_as_the_columns_type_says(ctx: Context) -> None:
    """The mail's row filled in (`inbound._FILL`) returns its receipt's time: aware, in UTC."""
    got = receipt.receive(ctx, b"From: red@example.org\r\nSubject: x\r\n\r\nhello\r\n")
    assert got.row_id is not None
    with ctx.session() as session:
        fields = {"new_dedupe_key": "key-1", "new_message_id": "<m1@example.org>", "new_sender": "red@example.org",
                  "new_subject": "x", "new_size": 40, "new_raw": b"hello"}
        rows = direct.rows(session.connection(), inbound._FILL, {"row_id": got.row_id, **fields})
        assert rows == [(ctx.now(),)] and rows[0][0].utcoffset() == timedelta(0)
        assert direct.rows(session.connection(), inbound._FILL, {"row_id": got.row_id + 99, **fields}) == []
        session.commit()
    with ctx.session() as session:
        row = session.get(InboundMail, got.row_id)
        assert row is not None and row.dedupe_key == "key-1" and row.received_at == ctx.now()


def test_a_key_taken_is_sqlalchemys_integrity_error_and_the_connection_goes_on(ctx: Context) -> None:
    params = {"key": "receipt:same", "size": 10, "at": ctx.now()}
    with ctx.session() as session:
        first = direct.rows(session.connection(), receipt._RECEIVE, params)[0][0]
        session.commit()
    with ctx.engine.connect() as conn:  # one connection throughout
        with pytest.raises(IntegrityError):
            direct.rows(conn, receipt._RECEIVE, params)
        conn.rollback()
        # the same connection, its cursor closed by the error: a new one is taken
        again = direct.rows(conn, receipt._RECEIVE, {**params, "key": "receipt:other"})[0][0]
        assert again > first
        conn.commit()


def test_the_engines_listeners_hear_every_direct_statement(ctx: Context) -> None:
    with ctx.session() as session:  # the key attached (what that reads is not ours to count)
        session.connection()
    heard: list[str] = []
    listen = lambda conn, cursor, statement, *rest: heard.append(statement)  # noqa: E731
    event.listen(ctx.engine, "before_cursor_execute", listen)
    try:
        with ctx.session() as session:
            direct.rows(session.connection(), _insert(ctx), _row(ctx, 3, b"x"))
            direct.rows(session.connection(), _insert(ctx), _row(ctx, 4, b"y"))
            session.commit()
    finally:
        event.remove(ctx.engine, "before_cursor_execute", listen)
    assert len(heard) == 2 and all(s.startswith("INSERT INTO outbox") for s in heard)


def test_a_statement_with_a_list_parameter_is_refused(ctx: Context) -> None:
    with ctx.session() as session:
        for _ in range(2):  # the refusal is kept: refused again without compiling
            with pytest.raises(direct.Refused, match="ids"):
                direct.rows(session.connection(), turns._SUPERSEDE, {"ids": [1, 2]})


def test_named_rows_read_as_connection_executes_rows(ctx: Context) -> None:
    """``named``: the rows as named tuples, read by the columns' keys as `Connection.execute`'s
    rows are (the claims' statements read ``row.id``, ``row.held``); a text statement's rows
    (no typed columns: `pbem.service.queue`'s INSERT … RETURNING) by the cursor's names, not lost."""
    raw = b"Subject: answer\r\n\r\nnamed\r\n"
    with ctx.session() as session:
        conn = session.connection()
        row_id = direct.rows(conn, _insert(ctx), _row(ctx, 7, raw), named=True)[0].id
        stmt = select(OutboxMail.id, OutboxMail.subject, OutboxMail.created_at).where(OutboxMail.id == row_id)
        [ours] = direct.rows(conn, stmt, {})
        [named] = direct.rows(conn, stmt, {}, named=True)
        [theirs] = conn.execute(stmt).all()
        assert named == ours == tuple(theirs) and named._asdict() == dict(theirs._mapping)
        assert (named.id, named.subject, named.created_at) == (row_id, "answer 7", ctx.now())
        returning = text("INSERT INTO setting (name, value) VALUES (:name, '') RETURNING name, value")
        assert direct.rows(conn, returning, {"name": "direct.test"}) == [("direct.test", "")]
        [named] = direct.rows(conn, returning, {"name": "direct.test2"}, named=True)
        assert (named.name, named.value) == ("direct.test2", "")
        assert direct.rows(conn, text("UPDATE setting SET value = '' WHERE name = :name"), {"name": "x"}) == []
        session.rollback()


def test_a_connection_made_again_gets_a_cursor_of_its_own(ctx: Context) -> None:
    """A pooled connection's record outlives its DBAPI connection (invalidated, then made
    again): the cursor kept for the old one is never used on the new (it is kept in the DBAPI
    connection's ``info``, not the record's)."""
    with ctx.session() as session:
        direct.rows(session.connection(), _insert(ctx), _row(ctx, 5, b"x"))
        session.commit()
        session.connection().invalidate()
    with ctx.session() as session:
        assert direct.rows(session.connection(), _insert(ctx), _row(ctx, 6, b"y"))[0][0] > 0
        session.commit()


def test_each_engine_seals_with_its_own_key(tmp_path: Path) -> None:
    """The statements are compiled once for each engine (dialect), not once for each kind of
    database: a sealed column's processor seals with its own engine's key."""
    raws = {}
    contexts = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        url = f"sqlite:///{folder}/pbem.db"
        cfg = from_mapping({"database": {"url": url}, "security": {"key_file": str(folder / "pbem.key")}}, "test")
        contexts.append(Context(engine=make_engine(url), config=cfg))
    try:
        for n, ctx in enumerate(contexts):
            raws[n] = f"mail {n}".encode()
            with ctx.session() as session:
                direct.rows(session.connection(), outbox._queueing(None, False, False), _row(ctx, n, raws[n]))
                session.commit()
        for n, ctx in enumerate(contexts):
            with ctx.session() as session:
                rows = [r.raw for r in session.exec(select(OutboxMail)).all()]
            assert rows == [raws[n]]  # opened with this engine's key: sealed with it
    finally:
        for ctx in contexts:
            ctx.engine.dispose()
