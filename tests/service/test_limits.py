"""Reply limits, the last loop breaker: counted from the outbox on a real database.

Until the lead wires ``limits.allow_reply`` into ``Reply.send``, the ``wired`` fixture
applies it the way the wiring will (a reply or refusal is queued only when allowed).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.config import LimitsConfig
from pbem.service import inbound, limits, mailer
from pbem.service.context import Context
from pbem.service.replies import Reply
from tests.service.helpers import BLUE, RED, outbox
from tests.support.players import order_block, player_mail


def set_limits(ctx: Context, per_sender: int, everybody: int) -> None:
    ctx.config = dataclasses.replace(ctx.config, limits=LimitsConfig(per_sender_per_hour=per_sender,
                                                                     global_per_hour=everybody))


@pytest.fixture
def wired(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``Reply.send`` as it will be wired: ``if not limits.allow_reply(...): return``."""
    original = Reply.send

    def send(self: Reply, to: str, subject_what: str, text: str, **kw: Any) -> None:
        if not limits.allow_reply(self.session, self.ctx, to):
            return
        original(self, to, subject_what, text, **kw)

    monkeypatch.setattr(Reply, "send", send)
    yield


def queue(ctx: Context, to: str, kind: str, n: int = 1) -> None:
    with ctx.session() as s:
        for i in range(n):
            mailer.queue(s, ctx, to=to, subject=f"[pbem] — {kind} {i}", text="x", kind=kind, game=None)
        s.commit()


def allowed(ctx: Context, address: str) -> bool:
    with ctx.session() as s:
        return limits.allow_reply(s, ctx, address)


def test_replies_and_refusals_count_reports_and_the_rest_do_not(ctx, clock):  # type: ignore[no-untyped-def]
    set_limits(ctx, per_sender=3, everybody=100)
    for kind in ("report", "welcome", "reminder", "notice"):
        queue(ctx, "anna@example.org", kind, 5)
    assert allowed(ctx, "anna@example.org")
    queue(ctx, "anna@example.org", "reply", 2)
    assert allowed(ctx, "anna@example.org")
    queue(ctx, "anna@example.org", "refusal")
    assert not allowed(ctx, "anna@example.org")
    assert not allowed(ctx, "ANNA@Example.org")  # addresses compare without case
    assert allowed(ctx, "bruno@example.org")  # the limit is per address
    with ctx.session() as s:
        assert limits.replies_in_window(s, ctx, "anna@example.org") == 3
        assert limits.replies_in_window(s, ctx) == 3
    clock.advance(minutes=59)
    assert not allowed(ctx, "anna@example.org")
    clock.advance(minutes=1, seconds=1)  # the window slides: an hour later they no longer count
    assert allowed(ctx, "anna@example.org")


def test_rows_of_the_same_transaction_count(ctx):  # type: ignore[no-untyped-def]
    set_limits(ctx, per_sender=2, everybody=100)
    with ctx.session() as s:
        for _ in range(2):
            assert limits.allow_reply(s, ctx, "anna@example.org")
            mailer.queue(s, ctx, to="anna@example.org", subject="s", text="x", kind="reply", game=None)
        assert not limits.allow_reply(s, ctx, "anna@example.org")
        s.rollback()


def test_a_zero_limit_means_no_answers(ctx):  # type: ignore[no-untyped-def]
    set_limits(ctx, per_sender=0, everybody=100)
    assert not allowed(ctx, "anna@example.org")
    set_limits(ctx, per_sender=5, everybody=0)
    assert not allowed(ctx, "anna@example.org")


def echo_robot_mail(n: int, subject: str) -> bytes:
    """An autoresponder that marks itself with nothing (no Auto-Submitted, no Precedence,
    a normal From and Return-Path) and answers every mail, ours included."""
    return player_mail("echo@robot.example", f"Thank you for your mail ({n}). We will answer soon.\n",
                       subject=f"Re: {subject}" if subject else "Hello", message_id=f"<echo-{n}@robot.example>",
                       headers=[("Return-Path", "<echo@robot.example>")])


def test_a_loop_with_an_unmarked_autoresponder_gets_at_most_the_limit(ctx, clock, wired, caplog):  # type: ignore[no-untyped-def]
    set_limits(ctx, per_sender=3, everybody=100)
    subject = ""
    with caplog.at_level(logging.WARNING, logger="pbem.service.limits"):
        for n in range(40):  # the robot answers each of our answers at once
            handled = inbound.handle(ctx, echo_robot_mail(n, subject))
            assert handled.status == "refused"  # no GAME block: a person would get an answer
            answers = outbox(ctx, to="echo@robot.example")
            if answers:
                subject = answers[-1].subject
            clock.advance(seconds=30)
    assert len(outbox(ctx, to="echo@robot.example")) == 3
    assert sum("suppressed" in r.getMessage() for r in caplog.records) == 37
    clock.advance(hours=1)  # an hour later it may be told again, as much as the limit
    for n in range(40, 50):
        inbound.handle(ctx, echo_robot_mail(n, subject))
    assert len(outbox(ctx, to="echo@robot.example")) == 6


def test_the_global_limit_stops_answers_but_never_reports(ctx, duel, wired):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    set_limits(ctx, per_sender=10, everybody=4)
    for n in range(6):  # six different strangers, one mail each
        inbound.handle(ctx, player_mail(f"stranger{n}@example.net", "hello?\n"))
    assert [len(outbox(ctx, to=f"stranger{n}@example.net")) for n in range(6)] == [1, 1, 1, 1, 0, 0]
    # the seats' orders are still applied and the turn resolves; only the answers wait
    for seat, addr in (("red", RED), ("blue", BLUE)):
        handled = inbound.handle(ctx, player_mail(addr, order_block(game_id, seat, secrets[seat], ["PLAY 2"])))
        assert handled.status == "orders"
    assert outbox(ctx, to=RED, kind="reply") == [] and outbox(ctx, to=BLUE, kind="reply") == []
    assert len(outbox(ctx, to=RED, kind="report")) == 1 and len(outbox(ctx, to=BLUE, kind="report")) == 1
