"""Reply limits, the loop breakers, counted from the outbox on a real database: two
budgets apart, so that mail nobody authenticated never spends what belongs to a player."""

from __future__ import annotations

import dataclasses
import logging

from sqlalchemy import event

from pbem.config import LimitsConfig
from pbem.service import inbound, limits, mailer
from pbem.service.context import Context
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome


def set_limits(ctx: Context, **values: int) -> None:
    ctx.config = dataclasses.replace(ctx.config, limits=dataclasses.replace(LimitsConfig(), **values))


def queue(ctx: Context, to: str, kind: str, n: int = 1) -> None:
    with ctx.session() as s:
        for i in range(n):
            mailer.queue(s, ctx, to=to, subject=f"[pbem] — {kind} {i}", text="x", kind=kind, game=None)
        s.commit()


def allowed(ctx: Context, address: str, kind: str = limits.AUTHENTICATED) -> bool:
    with ctx.session() as s:
        return limits.allow(s, ctx, address, kind)


def test_answers_to_players_count_apart_from_everything_else(ctx, clock):  # type: ignore[no-untyped-def]
    set_limits(ctx, per_sender_per_hour=3, global_per_hour=100)
    for kind in ("report", "welcome", "reminder", "notice", "refusal", limits.STRANGER):
        queue(ctx, "anna@example.org", kind, 5)
    assert allowed(ctx, "anna@example.org")  # nothing a stranger caused counts against anna
    queue(ctx, "anna@example.org", limits.AUTHENTICATED, 3)
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


def test_strangers_get_one_answer_a_day_and_notices_are_never_limited(ctx, clock):  # type: ignore[no-untyped-def]
    assert allowed(ctx, "eve@example.net", limits.STRANGER)
    queue(ctx, "eve@example.net", limits.STRANGER)
    assert not allowed(ctx, "eve@example.net", limits.STRANGER)
    assert allowed(ctx, "eve@example.net", limits.AUTHENTICATED)  # a player's own budget is untouched
    assert allowed(ctx, "eve@example.net", "refusal")
    clock.advance(hours=23, minutes=59)
    assert not allowed(ctx, "eve@example.net", limits.STRANGER)
    clock.advance(minutes=1, seconds=1)
    assert allowed(ctx, "eve@example.net", limits.STRANGER)
    set_limits(ctx, strangers_per_hour=0)
    assert not allowed(ctx, "someone@example.net", limits.STRANGER)
    set_limits(ctx, stranger_per_day=0)
    assert not allowed(ctx, "someone@example.net", limits.STRANGER)


def test_rows_of_the_same_transaction_count(ctx):  # type: ignore[no-untyped-def]
    set_limits(ctx, per_sender_per_hour=2)
    with ctx.session() as s:
        for _ in range(2):
            assert limits.allow_reply(s, ctx, "anna@example.org")
            mailer.queue(s, ctx, to="anna@example.org", subject="s", text="x", kind="reply", game=None)
        assert not limits.allow_reply(s, ctx, "anna@example.org")
        s.rollback()


def test_an_answer_queued_under_its_caps_is_counted_by_its_own_insert(ctx, caplog):  # type: ignore[no-untyped-def]
    """`mailer.queue` with a budget: the INSERT … SELECT queues the answer only while every cap
    has room, counting the rows of its own transaction and the other address's apart, and a
    cap reached is logged as `allow` logs it. One statement an answer (issue 17, the floor)."""
    set_limits(ctx, per_sender_per_hour=2, global_per_hour=3)
    seen: list[str] = []
    event.listen(ctx.engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    with caplog.at_level(logging.WARNING, logger="pbem.service.limits"), ctx.session() as s:
        got = [mailer.queue(s, ctx, to="Anna@Example.org", subject="s", text="x", kind=limits.AUTHENTICATED,
                            game=None, budget=limits.budget(ctx, "anna@example.org", limits.AUTHENTICATED))
               for _ in range(3)]
        assert got[0] is not None and got[1] is not None and got[2] is None  # her two; the third refused
        assert len([q for q in seen if "INSERT INTO outbox" in q]) == 3
        # each answer queued counted in its minute's tally: on PostgreSQL by the statement that
        # queues it (WITH queued AS (INSERT …) …), on SQLite by one statement more
        bumps = [q for q in seen if q.lstrip().startswith("INSERT INTO answer_tally")]
        assert len(bumps) == (2 if ctx.engine.dialect.name == "sqlite" else 0), seen
        counted_apart = [q for q in seen if "count(" in q and "INSERT INTO" not in q]
        assert len(counted_apart) == 1, seen  # only to say which cap the third reached
        s.commit()
    assert [m for m in caplog.messages if "suppressed" in m] == \
        ["reply to anna@example.org suppressed: 2 answers to this player in the last hour reach the limit (2)"]
    assert len(outbox(ctx, to="Anna@Example.org")) == 2
    with ctx.session() as s:  # the global cap: Anna's two and Bob's first
        got = [mailer.queue(s, ctx, to="bob@example.org", subject="s", text="x", kind=limits.AUTHENTICATED,
                            game=None, budget=limits.budget(ctx, "bob@example.org", limits.AUTHENTICATED))
               for _ in range(2)]
        assert got[0] is not None and got[1] is None
        s.commit()
    assert caplog.messages[-1] == \
        "reply to bob@example.org suppressed: 3 answers to authenticated mail in the last hour reach the limit (3)"
    set_limits(ctx, per_sender_per_hour=0)
    with ctx.session() as s:  # a cap of 0: nothing counted, nothing queued
        seen.clear()
        assert mailer.queue(s, ctx, to="carl@example.org", subject="s", text="x", kind=limits.STRANGER, game=None,
                            budget=limits.budget(ctx, "carl@example.org", limits.AUTHENTICATED)) is None
        assert seen == []
    assert len(outbox(ctx, kind=limits.AUTHENTICATED)) == 3


def test_a_zero_limit_means_no_answers(ctx):  # type: ignore[no-untyped-def]
    set_limits(ctx, per_sender_per_hour=0)
    assert not allowed(ctx, "anna@example.org")
    set_limits(ctx, global_per_hour=0)
    assert not allowed(ctx, "anna@example.org")


def echo_robot_mail(n: int, subject: str) -> bytes:
    """An autoresponder that marks itself with nothing (no Auto-Submitted, no Precedence,
    a normal From and Return-Path) and answers every mail, ours included."""
    return player_mail("echo@robot.example", f"Thank you for your mail ({n}). We will answer soon.\n",
                       subject=f"Re: {subject}" if subject else "Hello", message_id=f"<echo-{n}@robot.example>",
                       headers=[("Return-Path", "<echo@robot.example>")])


def test_a_loop_with_an_unmarked_autoresponder_gets_one_answer_a_day(ctx, clock, caplog):  # type: ignore[no-untyped-def]
    subject = ""
    with caplog.at_level(logging.WARNING, logger="pbem.service.limits"):
        for n in range(40):  # the robot answers each of our answers at once
            handled = inbound.handle(ctx, echo_robot_mail(n, subject))
            assert handled.status == "refused"  # no GAME block: a person would get an answer
            answers = outbox(ctx, to="echo@robot.example")
            if answers:
                subject = answers[-1].subject
            clock.advance(seconds=30)
    assert [r.kind for r in outbox(ctx, to="echo@robot.example")] == [limits.STRANGER]
    assert sum("suppressed" in r.getMessage() for r in caplog.records) == 39
    clock.advance(days=1)  # a day later it may be told once more
    for n in range(40, 50):
        inbound.handle(ctx, echo_robot_mail(n, subject))
    assert len(outbox(ctx, to="echo@robot.example")) == 2


def test_strangers_spend_their_own_cap_never_the_players_answers(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    set_limits(ctx, per_sender_per_hour=2, strangers_per_hour=4)
    for n in range(6):  # six different strangers, one mail each
        inbound.handle(ctx, player_mail(f"stranger{n}@example.net", "hello?\n"))
    assert [len(outbox(ctx, to=f"stranger{n}@example.net")) for n in range(6)] == [1, 1, 1, 1, 0, 0]
    for n in range(5):  # forged mail "from" red: HELP, no block, an unknown game
        inbound.handle(ctx, player_mail(RED, ["HELP", "hello", "GAME zz999\nSEAT red x\nEND"][n % 3]))
    assert outbox(ctx, to=RED, kind="reply") == []
    # the seats' orders are applied and each sender gets the confirmation it is owed
    for seat, addr in (("red", RED), ("blue", BLUE)):
        handled = inbound.handle(ctx, player_mail(addr, order_block(game_id, seat, secrets[seat], ["PLAY 2"])))
        assert handled.status == "orders"
    assert len(outbox(ctx, to=RED, kind="reply")) == 1 and len(outbox(ctx, to=BLUE, kind="reply")) == 1
    assert len(outbox(ctx, to=RED, kind="report")) == 1 and len(outbox(ctx, to=BLUE, kind="report")) == 1


def test_secret_new_is_answered_outside_every_limit(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    set_limits(ctx, per_sender_per_hour=0, global_per_hour=0, stranger_per_day=0, strangers_per_hour=0)
    mail = player_mail(RED, f"GAME {game_id}\nSEAT red {secrets['red']}\nSECRET NEW\nEND\n")
    assert inbound.handle(ctx, mail).status == "command"
    answers = outbox(ctx, to=RED, kind="reply")
    assert len(answers) == 1
    new = secret_from_welcome(text_of(answers[0]))
    assert new != secrets["red"]
    # the new secret works, the old one no longer does (and nothing else is answered: the limits are 0)
    old = player_mail(RED, order_block(game_id, "red", secrets["red"], ["PLAY 2"]))
    assert inbound.handle(ctx, old).status == "refused"
    assert inbound.handle(ctx, player_mail(RED, order_block(game_id, "red", new, ["PLAY 2"]))).status == "orders"


def test_everybodys_cap_counts_by_the_minute_and_its_first_minute_whole(ctx, clock):  # type: ignore[no-untyped-def]
    """The cap on everybody's answers adds up the minutes' tally (`AnswerTally`): an answer
    counts until its minute has left the hour, at most a minute more than the hour (the
    loop breaker errs on the side of fewer answers); a player's own cap stays exact."""
    set_limits(ctx, per_sender_per_hour=100, global_per_hour=3)
    clock.advance(seconds=61 - ctx.now().second)  # one second into a minute
    queue(ctx, "anna@example.org", limits.AUTHENTICATED, 2)
    clock.advance(seconds=30)
    queue(ctx, "bruno@example.org", limits.AUTHENTICATED)
    assert not allowed(ctx, "carl@example.org")
    with ctx.session() as s:
        assert limits.replies_in_window(s, ctx) == 3
        assert limits.replies_in_window(s, ctx, "anna@example.org") == 2
    clock.advance(minutes=60)  # 60 min 30 s after the first two: their minute is still the hour's first
    with ctx.session() as s:
        assert limits.replies_in_window(s, ctx, "anna@example.org") == 0  # exact: out of her hour
    assert not allowed(ctx, "carl@example.org")
    clock.advance(seconds=30)  # the next minute: the three left the window together
    assert allowed(ctx, "carl@example.org")


def test_the_tally_keeps_the_hour_and_forgets_the_rest(ctx, clock):  # type: ignore[no-untyped-def]
    from sqlmodel import select

    from pbem.db.models import AnswerTally

    queue(ctx, "anna@example.org", limits.STRANGER)
    queue(ctx, "anna@example.org", "report")  # not a limited kind: never tallied
    clock.advance(minutes=30)
    queue(ctx, "anna@example.org", limits.AUTHENTICATED, 2)
    clock.advance(minutes=45)
    assert limits.forget_tally(ctx) == 1  # the stranger's answer, 75 minutes ago
    with ctx.session() as s:
        kept = [(r.kind, r.n) for r in s.exec(select(AnswerTally))]
        assert kept == [(limits.AUTHENTICATED, 2)]
        assert limits.replies_in_window(s, ctx) == 2
    assert limits.forget_tally(ctx) == 0


def test_two_workers_answering_at_once_never_wait_for_each_other(ctx):  # type: ignore[no-untyped-def]
    """Each connection tallies its answers in a row of its own (PostgreSQL: the backend), so
    the second of two open transactions queues its answer without waiting for the first to
    commit; their answers add up once both have."""
    from sqlalchemy import text

    set_limits(ctx, per_sender_per_hour=10, global_per_hour=10)
    with ctx.session() as first, ctx.session() as second:
        for session, to in ((first, "anna@example.org"), (second, "bruno@example.org")):
            if ctx.engine.dialect.name == "postgresql":
                session.execute(text("SET LOCAL lock_timeout = '2s'"))  # a shared row would wait, then fail
            assert mailer.queue(session, ctx, to=to, subject="s", text="x", kind=limits.AUTHENTICATED, game=None,
                                budget=limits.budget(ctx, to, limits.AUTHENTICATED)) is not None
            if ctx.engine.dialect.name == "sqlite":
                session.commit()  # one writer at a time: the file's lock, not the tally's
        first.commit()
        second.commit()
    with ctx.session() as s:
        assert limits.replies_in_window(s, ctx) == 2


def test_everybodys_count_reads_the_minutes_not_the_hours_answers(ctx, clock):  # type: ignore[no-untyped-def]
    """300 answers in one minute are one row of the tally: the check on every answer reads
    the window's minutes (at most 61 a connection), not its answers (issue 17: 0.3 µs an
    answer, on every answer, when the count read the outbox)."""
    import json

    from sqlalchemy import text

    with ctx.session() as s:
        for n in range(300):
            mailer.queue(s, ctx, to=f"p{n}@example.org", subject="s", text="x", kind=limits.AUTHENTICATED, game=None)
        s.commit()
    clock.advance(minutes=2)
    queue(ctx, "anna@example.org", limits.AUTHENTICATED)
    with ctx.session() as s:
        stmt = limits.window_query(ctx, limits.AUTHENTICATED, limits.WINDOW)
        assert s.execute(stmt).scalar_one() == 301
        sql = str(stmt.compile(s.get_bind(), compile_kwargs={"literal_binds": True}))
        if ctx.engine.dialect.name == "postgresql":
            plan = s.execute(text(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")).scalar()
            plan = plan if isinstance(plan, list) else json.loads(plan)

            def read(node):  # type: ignore[no-untyped-def]
                return (node.get("Actual Rows", 0) if node.get("Relation Name") else 0) + \
                    sum(read(child) for child in node.get("Plans", []))

            assert read(plan[0]["Plan"]) == 2  # two rows: the 300 of one transaction, then one
        else:
            plan = " ".join(str(row[-1]) for row in s.execute(text(f"EXPLAIN QUERY PLAN {sql}")))
            assert "answer_tally" in plan and "outbox" not in plan, plan
