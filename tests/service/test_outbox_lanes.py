"""The outbox sends on several connections at once (``outbox.connections``, `outbox.lanes`):
each recipient's mails on one lane, in the order they were queued; every row sent once and
recorded once, with one worker or two on one PostgreSQL database (the claims of the rows on
the wire are never given back by another row's claim). Over a real SMTP server and a slow
connection: tests/faults/test_outbox_connections.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from sqlmodel import col, select

from pbem.db.models import OutboxMail
from pbem.mail.transport import MemoryOutgoing, SendResult
from pbem.service import outbox
from pbem.service.claims import OUTBOX, Claims
from pbem.service.context import Context, ManualClock
from tests.service.conftest import postgres_only


def _rows(*recipients: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(id=i, recipients_json=json.dumps([r])) for i, r in enumerate(recipients, 1)]


def test_each_recipients_mails_keep_their_lane_and_order() -> None:
    dealt = outbox.lanes(_rows("a", "b", "a", "c", "d", "b", "e", "a"), 3)
    assert [[r.id for r in lane] for lane in dealt] == [[1, 3, 8], [2, 5, 6], [4, 7]]
    for lane in dealt:
        assert [r.id for r in lane] == sorted(r.id for r in lane)
    owners = {r.recipients_json: i for i, lane in enumerate(dealt) for r in lane}
    assert len(owners) == 5 and sum(len(lane) for lane in dealt) == 8


def test_no_more_lanes_than_rows_or_connections() -> None:
    assert [len(lane) for lane in outbox.lanes(_rows("a", "b"), 4)] == [1, 1]
    assert [len(lane) for lane in outbox.lanes(_rows("a", "a", "a"), 4)] == [3]  # one player: one lane
    assert [len(lane) for lane in outbox.lanes(_rows("a", "b", "c"), 1)] == [3]
    assert outbox.lanes([], 4) == []


@dataclass
class _Slow(MemoryOutgoing):
    """A server on the other side of a network: each mail takes a few turns of the loop, so
    the lanes' sends overlap; ``connections`` as an `SmtpSender` says them."""

    connections: int = 3
    in_flight: int = 0
    most: int = 0

    async def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> SendResult:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            for _ in range(3):
                await asyncio.sleep(0)
            return await super().send(mail_from, recipients, raw)
        finally:
            self.in_flight -= 1


def _queue(ctx: Context, count: int, players: int) -> None:
    with ctx.session() as s:
        for i in range(count):
            outbox.enqueue(s, ctx, message_id=f"<lane-{i}@pbem.test>", raw=f"Subject: {i}\r\n\r\n{i}\r\n".encode(),
                           recipients=[f"p{i % players}@players.example"], subject=str(i), kind="report",
                           game_id=None)
        s.commit()


def _order_by_player(sent: Sequence[object]) -> dict[str, list[int]]:
    got: dict[str, list[int]] = {}
    for mail in sent:
        got.setdefault(mail.recipients[0], []).append(int(mail.raw.split(b"\r\n")[0].split()[-1]))  # type: ignore[attr-defined]
    return got


def test_a_drain_sends_on_its_lanes_at_once_each_row_once(ctx: Context, clock: ManualClock) -> None:
    _queue(ctx, 20, players=7)
    out = _Slow()
    claims = Claims(ctx.engine)
    try:
        assert asyncio.run(outbox.drain(ctx, out, limit=8, claims=claims)) == 20
        assert out.most == 3  # three mails on the wire at once, never more
        assert len({m.raw for m in out.sent}) == 20  # each row once
        for player, numbers in _order_by_player(out.sent).items():
            assert numbers == sorted(numbers), player  # a player's mails in the order they were queued
        with ctx.session() as s:
            rows = list(s.exec(select(OutboxMail)))
        assert {(r.status, r.attempts) for r in rows} == {("sent", 1)}
        assert not claims._busy  # nothing left on the wire
        assert asyncio.run(outbox.drain(ctx, out, claims=claims)) == 0
    finally:
        claims.close()


def test_a_refused_mail_on_one_lane_leaves_the_others_going(ctx: Context) -> None:
    """A 5xx is that mail's fate: the other lanes (and the rest of its own) go on."""
    _queue(ctx, 9, players=3)
    out = _Slow()
    out.refuse("p1@players.example")
    assert asyncio.run(outbox.drain(ctx, out)) == 6
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
    assert [r.status for r in rows] == ["sent", "failed", "sent"] * 3


@dataclass
class _Broken(_Slow):
    """A bug on the way to one player's server: an error that is no mail error."""

    async def send(self, mail_from: str, recipients: Sequence[str], raw: bytes) -> SendResult:
        if recipients[0] == "p1@players.example":
            await asyncio.sleep(0)
            raise RuntimeError("a bug")
        return await super().send(mail_from, recipients, raw)


def test_a_lane_that_fails_stops_the_others_before_the_drain_gives_back_its_claims(ctx: Context) -> None:
    """The error goes up as before, and only once no other lane has a mail on the wire: the
    drain gives back every claim but the sent rows' (another worker may then send them)."""
    _queue(ctx, 12, players=4)
    out = _Broken()
    claims = Claims(ctx.engine)
    try:
        with pytest.raises(RuntimeError, match="a bug"):
            asyncio.run(outbox.drain(ctx, out, claims=claims))
        assert out.in_flight == 0 and not claims._busy
        with ctx.session() as s:
            rows = list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
        sent = {r.id for r in rows if r.status == "sent"}
        assert {(r.status, r.attempts) for r in rows if r.id not in sent} == {("queued", 0)}
        assert {row for kind, row in claims._held if kind == OUTBOX} <= sent
    finally:
        claims.close()


@postgres_only
def test_two_workers_drain_the_same_rows_on_their_lanes_each_row_once(ctx: Context, clock: ManualClock) -> None:
    """Two workers (a `Claims` each, so a connection and advisory locks each), three lanes
    each, over the same due rows at the same time: every row goes out once, from one of them."""
    _queue(ctx, 40, players=11)
    first, second = _Slow(), _Slow()
    one, two = Claims(ctx.engine), Claims(ctx.engine)

    async def both() -> list[int]:
        return list(await asyncio.gather(outbox.drain(ctx, first, limit=10, claims=one),
                                         outbox.drain(ctx, second, limit=10, claims=two)))

    try:
        counts = asyncio.run(both())
        assert sum(counts) == 40 and min(counts) > 0, counts  # both took a share
        sent = [m.raw for m in first.sent + second.sent]
        assert len(sent) == len(set(sent)) == 40
        with ctx.session() as s:
            assert {(r.status, r.attempts) for r in s.exec(select(OutboxMail))} == {("sent", 1)}
        assert not one._busy and not two._busy
        assert all(kind == OUTBOX for kind, _ in one._held | two._held)
    finally:
        one.close()
        two.close()
