"""The outbox's drain reads a row's bytes only when it sends that row: the due rows are listed
without them, a sent row is recorded without reading them again (issue 17: every read of
``raw`` is a Fernet decryption). What is sent, and what the rows say after, stays the same."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.db import sealed
from pbem.db.models import OutboxMail
from pbem.mail.transport import MemoryOutgoing
from pbem.service import outbox
from pbem.service.claims import Claims
from pbem.service.context import Context, ManualClock


def _queue(ctx: Context, count: int, kind: str = "reply", fresh: bool = False) -> list[int]:
    """``count`` rows queued; unless ``fresh``, as another process queued them (their bytes
    are read from the database when they are sent, not known from `outbox.enqueue`)."""
    with ctx.session() as s:
        rows = [outbox.enqueue(s, ctx, message_id=f"<drain-{i}@pbem.test>",
                               raw=f"Subject: {i}\r\n\r\nbody {i}\r\n".encode(), recipients=[f"p{i}@players.example"],
                               subject=str(i), kind=kind, game_id=None) for i in range(count)]
        s.commit()
    if not fresh:
        outbox._FRESH.pop(ctx.engine, None)
    return rows


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every value the key opened (each one a decryption)."""
    seen: list[bytes] = []
    plain = sealed.Keyring.open

    def counting(self: sealed.Keyring, token: bytes) -> bytes:
        data = plain(self, token)
        seen.append(data)
        return data

    monkeypatch.setattr(sealed.Keyring, "open", counting)
    return seen


@pytest.mark.parametrize("with_claims", [False, True])
def test_each_row_is_decrypted_once_and_sent_once(ctx: Context, clock: ManualClock, opened: list[bytes],
                                                  with_claims: bool) -> None:
    ids = _queue(ctx, 7)
    clock.advance(seconds=5)
    out = MemoryOutgoing()
    claims = Claims(ctx.engine) if with_claims else None
    opened.clear()
    assert asyncio.run(outbox.drain(ctx, out, limit=3, claims=claims)) == 7
    assert sorted(opened) == sorted(m.raw for m in out.sent)  # the bytes of each sent row, read once
    assert [m.raw for m in out.sent] == [f"Subject: {i}\r\n\r\nbody {i}\r\n".encode() for i in range(7)]  # oldest first
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail).where(col(OutboxMail.id).in_(ids)).order_by(col(OutboxMail.id))))
    assert [(r.status, r.attempts, r.last_error) for r in rows] == [("sent", 1, "")] * 7
    assert {r.sent_at for r in rows} == {clock()}
    assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == 0  # nothing twice
    assert len(out.sent) == 7
    if claims is not None:
        claims.close()


@pytest.mark.parametrize("fresh", [False, True], ids=["queued elsewhere", "queued by this worker"])
def test_a_row_that_left_the_queue_after_the_listing_is_not_sent(ctx: Context, monkeypatch: pytest.MonkeyPatch,
                                                                 fresh: bool) -> None:
    """The claim reads the row again, its bytes known to this worker or not: one sent (or
    failed) by another since `_listed` listed it is skipped."""
    first, second = _queue(ctx, 2, fresh=fresh)
    plain = outbox._listed

    def listed_then_sent(c: Context, limit: int, claims: Claims | None, own_first: bool,
                         want: int) -> tuple[list[Any], list[int]]:
        got = plain(c, limit, claims, own_first, want)
        with c.session() as s:  # another worker sends the first meanwhile
            row = s.get(OutboxMail, first)
            assert row is not None
            row.status = "sent"
            s.add(row)
            s.commit()
        return got

    monkeypatch.setattr(outbox, "_listed", listed_then_sent)
    out = MemoryOutgoing()
    claims = Claims(ctx.engine)
    assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == 1
    claims.close()
    assert [m.recipients for m in out.sent] == [("p1@players.example",)]
    with ctx.session() as s:
        assert s.get(OutboxMail, second).attempts == 1  # type: ignore[union-attr]
        assert s.get(OutboxMail, first).attempts == 0  # type: ignore[union-attr]


def test_a_retried_row_keeps_its_count_and_is_sent_later(ctx: Context, clock: ManualClock,
                                                         opened: list[bytes]) -> None:
    (row_id,) = _queue(ctx, 1)
    out = MemoryOutgoing()
    out.fail_next(451)
    opened.clear()
    assert asyncio.run(outbox.drain(ctx, out)) == 0
    assert len(opened) == 1  # read to be sent; recording the refusal does not read it again
    with ctx.session() as s:
        row = s.get(OutboxMail, row_id)
        assert row is not None and row.status == "queued" and row.attempts == 1 and "451" in row.last_error
    clock.advance(hours=1)
    assert asyncio.run(outbox.drain(ctx, out)) == 1
    with ctx.session() as s:
        row = s.get(OutboxMail, row_id)
        assert row is not None and (row.status, row.attempts, row.last_error) == ("sent", 2, "")


def test_a_refused_row_fails_without_reading_its_bytes_again(ctx: Context, opened: list[bytes]) -> None:
    (row_id,) = _queue(ctx, 1)
    out = MemoryOutgoing()
    out.fail_next(554)
    opened.clear()
    assert asyncio.run(outbox.drain(ctx, out)) == 0
    assert len(opened) == 1
    with ctx.session() as s:
        row = s.get(OutboxMail, row_id)
        assert row is not None and (row.status, row.attempts) == ("failed", 1) and "554" in row.last_error
        assert row.raw == b"Subject: 0\r\n\r\nbody 0\r\n"  # the bytes are kept as they were


@pytest.mark.parametrize("with_claims", [False, True])
def test_rows_this_worker_queued_are_sent_without_reading_them_back(ctx: Context, clock: ManualClock,
                                                                    opened: list[bytes], with_claims: bool) -> None:
    """The reply a worker has just queued goes out as queued, not read back and decrypted;
    the same bytes as the row's, each row once, the rows recorded as for any other."""
    ids = _queue(ctx, 5, fresh=True)
    with ctx.session() as s:  # queued, then rolled back: never sent, its bytes not kept
        outbox.enqueue(s, ctx, message_id="<gone@pbem.test>", raw=b"Subject: gone\r\n\r\n", recipients=["x@y.example"],
                       subject="gone", kind="reply", game_id=None)
        s.flush()
        s.rollback()
    clock.advance(seconds=5)
    out = MemoryOutgoing()
    claims = Claims(ctx.engine) if with_claims else None
    opened.clear()
    assert asyncio.run(outbox.drain(ctx, out, limit=2, claims=claims)) == 5
    assert opened == []  # nothing decrypted
    assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == 0  # nothing twice
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail).where(col(OutboxMail.id).in_(ids)).order_by(col(OutboxMail.id))))
        assert [m.raw for m in out.sent] == [r.raw for r in rows]  # the bytes on record, oldest first
        assert {(r.status, r.attempts, r.last_error) for r in rows} == {("sent", 1, "")}
        assert s.exec(select(OutboxMail).where(OutboxMail.message_id == "<gone@pbem.test>")).first() is None
    assert outbox.fresh(ctx, rows[0]) is None  # forgotten once sent
    if claims is not None:
        claims.close()


def test_kept_bytes_serve_only_their_own_row(ctx: Context, opened: list[bytes]) -> None:
    """Bytes kept under a row id serve only the row of that Message-ID: a row by another
    process under the same id (a database made again) is read from the database."""
    (row_id,) = _queue(ctx, 1, fresh=True)
    kept = outbox._FRESH[ctx.engine]
    kept[row_id] = ("<other@pbem.test>", b"not these bytes")
    out = MemoryOutgoing()
    opened.clear()
    assert asyncio.run(outbox.drain(ctx, out)) == 1
    assert [m.raw for m in out.sent] == [b"Subject: 0\r\n\r\nbody 0\r\n"] and len(opened) == 1
