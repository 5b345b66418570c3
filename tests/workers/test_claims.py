"""The claims and the mailbox lease on PostgreSQL, seen from two workers in one process
(each with connections of its own): what one holds the other skips, and a holder that
dies (its connection ends) leaves the work to the other at once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from sqlalchemy import event
from sqlmodel import select

from pbem.config import from_mapping
from pbem.db.models import InboundMail, OutboxMail
from pbem.db.session import make_engine
from pbem.errors import ConfigError
from pbem.service import claims, games
from pbem.service.claims import Claims
from pbem.service.context import Context, ManualClock
from pbem.service.lease import MailboxLease
from pbem.service.workers import ROLES, parse_roles
from tests.workers.harness import postgres_url


@pytest.fixture
def two(tmp_path) -> Iterator[tuple[Context, Context]]:  # type: ignore[no-untyped-def]
    url = postgres_url()
    cfg = from_mapping({"render": {"width": 300}, "security": {"key_file": str(tmp_path / "pbem.key")}}, "claims")
    clock = ManualClock(datetime(2026, 11, 29, 20, 0, tzinfo=UTC))
    first = Context(engine=make_engine(url), config=cfg, clock=clock)
    second = Context(engine=make_engine(url, "none"), config=cfg, clock=clock)
    games.create(first, "kriegspiel", "Claims", [games.SeatSpec("north", "nora@players.example"),
                                                 games.SeatSpec("south", "sandro@players.example")])
    yield first, second
    first.engine.dispose()
    second.engine.dispose()


def test_the_mailbox_lease_is_one_workers_and_passes_on_when_it_dies(two: tuple[Context, Context]) -> None:
    a, b = MailboxLease(two[0].engine), MailboxLease(two[1].engine)
    assert a.hold() and a.hold()  # held, and held again
    assert not b.hold() and not b.held
    assert a._conn is not None
    a._conn.invalidate()  # the worker's connection ends as a killed process's does
    a._conn = None
    _released(two[1], claims.MAILBOX, 0)
    assert b.hold() and b.held
    assert not a.hold()
    b.release()
    assert a.hold()
    a.release()


def _taken(ctx: Context, mine: Claims) -> list[int]:
    """The due outbox rows this worker claims and finds still due under its claims, as a
    drain's round takes them (`outbox._listed`, `outbox._under_claims`)."""
    from pbem.service import outbox

    rows, taken = outbox._listed(ctx, 100, mine, False, 16)
    return [row.id for row in outbox._under_claims(ctx, rows, taken, mine)[0]]


def test_an_outbox_row_is_sent_by_one_worker(two: tuple[Context, Context]) -> None:
    ctx_a, ctx_b = two
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)
    with ctx_a.session() as s:
        row_id = s.exec(OutboxMail.__table__.select()).first().id  # type: ignore[attr-defined]
    assert row_id in _taken(ctx_a, a)
    assert row_id not in _taken(ctx_b, b)  # a sends it now
    with ctx_a.session() as s:  # a records it as sent, then lets go
        row = s.get(OutboxMail, row_id)
        assert row is not None
        row.status = "sent"
        s.add(row)
        s.commit()
    a.give_back_all(claims.OUTBOX)
    assert b.take(claims.OUTBOX, row_id)  # free now
    b.give_back(claims.OUTBOX, row_id)
    assert row_id not in _taken(ctx_b, b)  # but sent: not sent again
    a.close()
    b.close()


def test_a_dead_workers_claim_is_taken_over(two: tuple[Context, Context]) -> None:
    ctx_a, ctx_b = two
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)
    with ctx_a.session() as s:
        row_id = s.exec(OutboxMail.__table__.select()).first().id  # type: ignore[attr-defined]
    assert row_id in _taken(ctx_a, a)
    a._conn.invalidate()  # killed: the connection, and the lock with it, is gone
    _released(ctx_b, claims.OUTBOX, row_id)
    assert row_id in _taken(ctx_b, b)
    b.close()


def test_rows_to_skip_are_never_locked_however_many(two: tuple[Context, Context]) -> None:
    """The claims tried on a listing skip the rows they are told to skip before the lock is
    tried (`claims._try_unless`): with three or more of them PostgreSQL evaluated the lock
    first, and a row this worker held was locked twice, so that giving it back once left it
    held for good."""
    from pbem.service import mailer

    ctx_a, ctx_b = two
    with ctx_a.session() as s:
        for i in range(5):
            mailer.queue(s, ctx_a, to=f"p{i}@players.example", subject="s", text="x", kind="reply", game=None)
        s.commit()
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)
    first = _taken(ctx_a, a)
    assert len(first) >= 6
    held = first[:4]
    a.give_back_some(claims.OUTBOX, first[4:])
    for row_id in held:  # still at work on them: the next listing must skip them
        assert (claims.OUTBOX, row_id) in a._busy
    assert set(_taken(ctx_a, a)) == set(first[4:])
    a.give_back_all(claims.OUTBOX)
    for row_id in first:  # each given back once, and free
        assert b.take(claims.OUTBOX, row_id), row_id
    a.close()
    b.close()


def test_a_game_being_resolved_is_skipped_not_waited_for(two: tuple[Context, Context]) -> None:
    ctx_a, ctx_b = two
    with ctx_a.session() as sa, ctx_b.session() as sb:
        assert claims.claim_game(sa, "k1") is not None
        assert claims.claim_game(sb, "k1") is None  # SKIP LOCKED: at once, no wait
        assert claims.once_at_a_time(sa, claims.REMINDERS)
        assert not claims.once_at_a_time(sb, claims.REMINDERS)
        sa.rollback()
        assert claims.claim_game(sb, "k1") is not None


def test_roles() -> None:
    assert parse_roles("all") == frozenset(ROLES)
    assert parse_roles("maps, outbox") == {"maps", "outbox"}
    with pytest.raises(ConfigError, match="unknown role mapz"):
        parse_roles("mapz")


def _released(ctx: Context, kind: int, row_id: int) -> None:
    """Wait until the server has ended a dead worker's backend, and its claim with it: a
    connection closed by its client is ended by the server a moment later, and a claim
    tried in that moment is still the dead worker's (a live worker tries again later)."""
    from sqlalchemy import text

    held = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = :k AND objid = :r"
                " AND objsubid = 2")
    for _ in range(500):
        with ctx.engine.connect() as conn:
            if not conn.execute(held, {"k": kind, "r": row_id}).scalar():
                return
        time.sleep(0.01)
    raise AssertionError(f"claim {kind}/{row_id} still held")


def test_a_stored_mail_is_handled_by_one_worker_and_retried_once_after_deaths(two: tuple[Context, Context]) -> None:
    """pbem.service.queue: the reader stores, a worker claims; a worker that dies with it
    leaves it to the next (one more try), two deaths make it an error, never read again."""
    from pbem.service import queue

    ctx_a, ctx_b = two
    raw = b"From: nora@players.example\r\nTo: pbem@localhost\r\nSubject: hi\r\n\r\nHELP\r\n"
    assert queue.store(ctx_a, raw) is None
    assert queue.store(ctx_a, raw) is None  # fetched again before it was handled: stored once
    a, b, c = Claims(ctx_a.engine), Claims(ctx_b.engine), Claims(ctx_b.engine)
    [claimed] = queue.claim(ctx_a, a)
    assert claimed.raw == raw and not claimed.retry
    assert queue.claim(ctx_b, b) == []  # a is at it
    a._conn.invalidate()  # a dies with it
    _released(ctx_b, claims.INBOUND, claimed.row_id)
    [again] = queue.claim(ctx_b, b)
    assert again.row_id == claimed.row_id and again.retry
    with ctx_b.session() as s:
        assert (row := s.get(InboundMail, claimed.row_id)) is not None and row.status == "retrying"
    b._conn.invalidate()  # and b too
    _released(ctx_b, claims.INBOUND, claimed.row_id)
    assert queue.claim(ctx_b, c) == []
    with ctx_b.session() as s:
        row = s.get(InboundMail, claimed.row_id)
        assert row is not None and row.status == "error" and row.held is None
    c.close()


def test_a_stored_row_is_the_models_and_done_releases_the_claim(two: tuple[Context, Context]) -> None:
    """queue.store writes the row the model makes (every default), one row for a mail fetched
    twice; queue.done drops the sealed copy of a handled mail and releases the claim in the
    same statement: the other worker may take it at once, and finds the mail handled."""
    from pbem.service import queue
    from pbem.service.receipt import receipt_key

    ctx_a, ctx_b = two
    raw = b"From: nora@players.example\r\nTo: pbem@localhost\r\nSubject: hi\r\n\r\nHELP\r\n"
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)
    assert queue.store(ctx_a, raw, a) is None and queue.store(ctx_a, raw, a) is None
    with ctx_b.session() as s:
        rows = list(s.exec(select(InboundMail).where(InboundMail.dedupe_key == receipt_key(raw))))
    assert len(rows) == 1
    row = rows[0]
    expected = InboundMail(id=row.id, dedupe_key=receipt_key(raw), size=len(raw), received_at=ctx_a.now(),
                           status="stored", held=raw)
    assert row.model_dump() == expected.model_dump()
    assert queue.claim(ctx_a, a) == [queue.Claimed(row.id, raw, False, ctx_a.now())]  # its time, for inbound.handle
    with ctx_b.session() as s:  # what inbound.handle commits
        got = s.get(InboundMail, row.id)
        assert got is not None
        got.status = "command"
        s.add(got)
        s.commit()
    queue.done(ctx_a, a, [row.id])
    assert not [h for h in a._held if h[0] == claims.INBOUND]
    assert b.take(claims.INBOUND, row.id)  # released
    assert queue.claim(ctx_b, Claims(ctx_b.engine)) == []  # handled: nothing to claim
    with ctx_b.session() as s:
        done = s.get(InboundMail, row.id)
        assert done is not None and done.held is None and done.status == "command"
    assert queue.store(ctx_a, raw, a) is not None  # handled already: a duplicate now
    a.close()
    b.close()


def _stored(ctx: Context, n: int) -> list[bytes]:
    from pbem.service import queue

    raws = [f"From: nora@players.example\r\nTo: pbem@localhost\r\nSubject: {i}\r\n\r\nHELP\r\n".encode()
            for i in range(n)]
    for raw in raws:
        assert queue.store(ctx, raw) is None
    return raws


def _statuses(ctx: Context) -> dict[bytes, tuple[str, bool]]:
    """Each stored mail's status, and whether its sealed copy is kept, by its receipt key."""

    with ctx.session() as s:
        return {row.dedupe_key: (row.status, row.held is not None) for row in s.exec(select(InboundMail))}


def test_a_worker_claims_a_batch_and_another_the_next(two: tuple[Context, Context]) -> None:
    """queue.claim: up to BATCH stored mails in order, marked processing; a second worker
    takes the ones after, never one of the first's."""
    from pbem.service import queue

    ctx_a, ctx_b = two
    raws = _stored(ctx_a, queue.BATCH + 3)
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)
    first = queue.claim(ctx_a, a)
    second = queue.claim(ctx_b, b)
    assert [c.raw for c in first] == raws[:queue.BATCH]
    assert [c.raw for c in second] == raws[queue.BATCH:]
    assert queue.claim(ctx_b, b, 1) == []  # every one is claimed
    assert {status for status, _held in _statuses(ctx_a).values()} == {"processing"}
    a.close()
    b.close()


def test_a_mail_claimed_and_never_handed_over_is_given_back_as_it_was(two: tuple[Context, Context]) -> None:
    """A worker stopped before it handed a claimed mail to its handling (queue.release) leaves
    it as it found it: stored (a mail on its last try: processing, its one more try kept), its
    sealed copy kept; the next worker handles it. A mail handed over whose handling failed
    (queue.done, its row still processing) keeps its copy too, tried again as after a death;
    only a mail whose outcome is committed loses it."""
    from pbem.service import queue
    from pbem.service.receipt import receipt_key

    ctx_a, ctx_b = two
    raws = _stored(ctx_a, 3)
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)
    handled, failed, untried = queue.claim(ctx_a, a)
    with ctx_b.session() as s:  # what inbound.handle commits for the first; the second's failed
        got = s.get(InboundMail, handled.row_id)
        assert got is not None
        got.status = "orders"
        s.add(got)
        s.commit()
    queue.done(ctx_a, a, [handled.row_id, failed.row_id])
    queue.release(ctx_a, a, [untried.row_id])
    assert not a._held
    after = _statuses(ctx_b)
    assert after[receipt_key(raws[0])] == ("orders", False)
    assert after[receipt_key(raws[1])] == ("processing", True)
    assert after[receipt_key(raws[2])] == ("stored", True)
    again = queue.claim(ctx_b, b)
    assert [(c.raw, c.retry) for c in again] == [(raws[1], True), (raws[2], False)]
    queue.release(ctx_b, b, [c.row_id for c in again])  # stopped again before either was handed over
    after = _statuses(ctx_b)
    assert after[receipt_key(raws[1])] == ("processing", True)  # its one more try is still to come
    assert after[receipt_key(raws[2])] == ("stored", True)
    a.close()
    b.close()


def test_a_mail_that_kills_its_worker_twice_takes_no_other_mail_of_its_batch_with_it(
        two: tuple[Context, Context]) -> None:
    """A worker dies in the middle of a batch, twice on the same mail (a mail that crashes
    the process): that mail becomes an error, never read again; the others of its batch,
    never begun, are each handled: a dead worker's mails are taken back one at a time, with
    the stored ones after them, so that no two of them share the next death."""
    from pbem.service import queue
    from pbem.service.receipt import receipt_key

    ctx_a, ctx_b = two
    poison, *others = _stored(ctx_a, 4)
    first = Claims(ctx_a.engine)
    assert [c.raw for c in queue.claim(ctx_a, first)] == [poison, *others]
    first._conn.invalidate()  # dies on the first mail
    _released(ctx_b, claims.INBOUND, 1)
    second = Claims(ctx_b.engine)
    again = queue.claim(ctx_b, second)
    assert [(c.raw, c.retry) for c in again] == [(poison, True)]  # the one in hand alone
    second._conn.invalidate()  # dies on it again
    _released(ctx_b, claims.INBOUND, again[0].row_id)
    handled = []
    for _ in range(len(others) + 1):
        worker = Claims(ctx_b.engine)
        batch = queue.claim(ctx_b, worker)
        if not batch:
            break
        handled += [c.raw for c in batch]
        with ctx_b.session() as s:  # what inbound.handle commits
            for c in batch:
                row = s.get(InboundMail, c.row_id)
                assert row is not None
                row.status = "orders"
                s.add(row)
            s.commit()
        queue.done(ctx_b, worker, [c.row_id for c in batch])
        worker.close()
    assert handled == others
    after = _statuses(ctx_b)
    assert after[receipt_key(poison)] == ("error", False)
    assert [after[receipt_key(raw)] for raw in others] == [("orders", False)] * len(others)


def test_the_reader_stores_a_batch_in_few_statements(two: tuple[Context, Context],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """queue.store_many: a statement for every STORE_ROWS mails; a mail fetched twice in one
    batch is stored once (twice in one statement: no error, no statement more), one handled
    already is a duplicate, one still waiting is left to its worker (one statement more each
    to say which)."""
    from sqlalchemy import event

    from pbem.service import queue
    from pbem.service.receipt import receipt_key

    ctx_a, _ = two
    monkeypatch.setattr(queue, "STORE_ROWS", 3)
    handled, waiting, *new = _stored(ctx_a, 2) + [f"From: x@y.example\r\nSubject: n{i}\r\n\r\nHELP\r\n".encode()
                                                 for i in range(4)]
    with ctx_a.session() as s:
        row = s.exec(select(InboundMail).where(InboundMail.dedupe_key == receipt_key(handled))).one()
        row.status = "orders"
        s.add(row)
        s.commit()
    statements: list[str] = []
    event.listen(ctx_a.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    got = queue.store_many(ctx_a, [new[0], new[0], handled, new[1], waiting, new[2], new[3]])
    assert [g.status if g is not None else None for g in got] == [None, None, "duplicate", None, None, None, None]
    assert got[2] is not None and got[2].inbound_id == row.id
    inserts = [st for st in statements if "INSERT" in st]
    assert len(inserts) == 3 and len(statements) == 3 + 2, [s[:60] for s in statements]  # 7 mails, 3 a statement; the two on record looked up
    assert [status for status, _held in _statuses(ctx_a).values()].count("stored") == 1 + 4


def test_the_mark_of_a_sent_row_gives_back_the_claims_done_with(two: tuple[Context, Context]) -> None:
    """`Claims.outbox_sent`: the row marked sent, and every claim of the kind this worker is
    done with given back, in one statement; the marked row's own claim is kept (given back in
    that statement, it would be free before the mark is committed)."""
    from pbem.service import outbox

    ctx_a, ctx_b = two
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)
    with ctx_a.session() as s:
        row_id = s.exec(OutboxMail.__table__.select()).first().id  # type: ignore[attr-defined]
    assert all(a.take(claims.OUTBOX, r) for r in (901, 902, 903)) and a.take(claims.OUTBOX, row_id)
    statements: list[str] = []
    event.listen(ctx_a.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    a.outbox_sent(ctx_a, outbox._SENT, {"row_id": row_id, "now": ctx_a.now()}, row_id)
    assert len(statements) == 1
    assert a._held == {(claims.OUTBOX, row_id)}
    assert all(b.take(claims.OUTBOX, r) for r in (901, 902, 903))  # given back
    assert not b.take(claims.OUTBOX, row_id)  # kept
    with ctx_b.session() as s:
        assert s.get(OutboxMail, row_id).status == "sent"  # type: ignore[union-attr]
    a.close()
    b.close()


def test_a_seats_mail_reads_what_another_worker_committed_while_it_waited_for_the_game(
        two: tuple[Context, Context]) -> None:
    """`inbound.read_game` takes the game's lock in a statement of its own and reads the rest in
    the next: a worker whose mail waited for the lock reads what the worker that held it
    committed meanwhile, the sheet it filed and the secret it changed. One statement that locked
    and read would have read them as they were when it began (READ COMMITTED): each seat's mail
    would miss the other's sheet, and the turn would never resolve (issue 17, two workers)."""
    import threading

    from pbem.db.models import Seat, SheetRow
    from pbem.service import inbound

    ctx_a, ctx_b = two
    seen: dict[str, object] = {}

    def south() -> None:
        with ctx_b.session() as sb:
            _, seats, sheets = inbound.read_game(sb, "k1", "sandro@players.example")
            seen.update(sheets=[r.seat for r in sheets], hashes={s.name: s.secret_hash for s in seats})
            sb.rollback()

    with ctx_a.session() as sa:
        game, seats, sheets = inbound.read_game(sa, "k1", "nora@players.example")  # north's mail holds the lock
        assert sheets == [] and {s.name for s in seats} == {"north", "south"}
        waiting = threading.Thread(target=south)
        waiting.start()
        time.sleep(0.5)
        assert waiting.is_alive() and not seen  # south's mail waits for the game
        sa.add(SheetRow(game_id="k1", phase_seq=game.phase_seq, seat="north", receipt="r1", received_at=ctx_a.now()))
        north = next(s for s in seats if s.name == "north")
        north.secret_hash = "a new secret"
        sa.add(north)
        sa.commit()
    waiting.join(30)
    assert seen == {"sheets": ["north"], "hashes": {"north": "a new secret", "south": seen["hashes"]["south"]}}  # type: ignore[index]
    with ctx_b.session() as sb:
        assert sb.exec(select(Seat.secret_hash).where(Seat.name == "north")).one() == "a new secret"


def test_while_mail_is_handled_each_worker_lists_its_own_answers_first(two: tuple[Context, Context]) -> None:
    """A drain while a batch is handled (`outbox._listed` with ``own_first``) lists the answers
    this worker queued and leaves those another worker queued in the last `outbox.OWN_FIRST`
    to it (each sends its own from memory; they no longer race for each other's rows); an
    older one is anybody's, and the drain at the end of a batch lists everybody's."""
    from pbem.service import mailer, outbox

    ctx_a, ctx_b = two
    a, b = Claims(ctx_a.engine), Claims(ctx_b.engine)

    def answer(ctx: Context, to: str) -> int:
        with ctx.session() as s:
            message_id = mailer.queue(s, ctx, to=to, subject="s", text="x", kind="reply", game=None)
            s.commit()
            row = s.exec(select(OutboxMail).where(OutboxMail.message_id == message_id)).one()
        assert row.id is not None
        return row.id

    def listed(ctx: Context, mine: Claims, own_first: bool) -> set[int]:
        got = {row.id for row in outbox._listed(ctx, 100, mine, own_first, 100)[0]}
        mine.give_back_all(claims.OUTBOX)  # the listing's claims
        return got

    of_a, of_b = answer(ctx_a, "nora@players.example"), answer(ctx_b, "sandro@players.example")
    assert of_a in listed(ctx_a, a, True) and of_b not in listed(ctx_a, a, True)
    assert of_b in listed(ctx_b, b, True) and of_a not in listed(ctx_b, b, True)
    assert {of_a, of_b} <= listed(ctx_a, a, False) and {of_a, of_b} <= listed(ctx_b, b, False)
    clock = ctx_a.clock
    assert isinstance(clock, ManualClock)
    clock.advance(seconds=outbox.OWN_FIRST.total_seconds() + 1)  # its worker may be dead: anybody's
    assert {of_a, of_b} <= listed(ctx_a, a, True) and {of_a, of_b} <= listed(ctx_b, b, True)
    a.close()
    b.close()
