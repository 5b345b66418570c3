"""The SQL an order mail costs (issue 17, the floor): a bounded number of statements, the
same for the first mail of a new database as for a mail among many games and mails, and
the reply limits counted on an index, not by reading the outbox."""

from __future__ import annotations

from typing import Iterator

from sqlalchemy import event, text

from pbem.service import games, inbound, receipt
from pbem.service.context import Context
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

#: Statements for one order mail that files orders (receipt, dedupe, game, seat, holder,
#: phase, sheets, the reply limits, the reply, the commit; 28 before they were cut, then 21;
#: 17 since the receipt is one INSERT, the mail's row one UPDATE … RETURNING, the two reply
#: limits one SELECT and the game read with its phase; 11 since the sender's player is read
#: with the game, the game's seats and the phase's sheets once (for the seat, the sheet on
#: file, the sheet it supersedes and whether every seat is in) and the answer's thread from
#: the holders and seat the transaction holds (`mailer`): 15 were counted here before; 9 since
#: the game's seats, their holders and the phase's sheets on file are one statement: 11 before;
#: 7 since the reply limits are counted by the INSERT that queues the reply and the mail's row is
#: filled in with its outcome by one UPDATE after the work; the game's lock taken alone, then the
#: game read with its phase, seats, their holders and the phase's sheets, `inbound.read_game`:
#: two statements, as before). The reply counted in its minute's tally (`AnswerTally`, for the
#: cap on everybody's answers) by the statement that queues it on PostgreSQL; on SQLite (one
#: daemon, the database a file beside it) by one statement more.
BOUND = {"postgresql": 7, "sqlite": 8}


class Counter:
    """Counts the statements the engine sends while it listens."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.statements: list[str] = []

    def __enter__(self) -> "Counter":
        event.listen(self.ctx.engine, "before_cursor_execute", self._count)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(self.ctx.engine, "before_cursor_execute", self._count)

    def _count(self, conn, cursor, statement, params, context, executemany) -> None:  # type: ignore[no-untyped-def]
        self.statements.append(statement)


def _new_duel(ctx: Context, n: int) -> tuple[str, str, str]:
    """A Duel with its own two players; returns its id, red's address and red's secret."""
    red, blue = f"red{n}@example.org", f"blue{n}@example.org"
    game_id = games.create(ctx, "duel", f"duel {n}", [games.SeatSpec("red", red), games.SeatSpec("blue", blue)])
    welcome = [r for r in outbox(ctx, to=red, kind="welcome") if r.game_id == game_id][0]
    return game_id, red, secret_from_welcome(text_of(welcome))


def _order_mail(ctx: Context, game_id: str, red: str, secret: str, play: int = 3) -> list[str]:
    """Red files its orders by mail; the statements that took, from receipt to commit."""
    raw = player_mail(red, order_block(game_id, "red", secret, [f"PLAY {play}"]))
    with Counter(ctx) as counter:
        got = receipt.receive(ctx, raw)
        handled = inbound.handle(ctx, raw, got.row_id, got.received_at)  # as the daemon hands it over
    assert handled.status == "orders", handled
    return counter.statements


def _games(ctx: Context, count: int, start: int) -> Iterator[tuple[str, str, str]]:
    for n in range(start, start + count):
        yield _new_duel(ctx, n)


def test_an_order_mail_costs_the_same_statements_in_a_full_database(ctx: Context) -> None:
    first = _order_mail(ctx, *_new_duel(ctx, 0))
    assert len(first) <= BOUND[ctx.engine.dialect.name], f"{len(first)} statements:\n" + "\n".join(first)
    for game_id, red, secret in _games(ctx, 20, 1):  # 20 more games, each with orders and a reply
        _order_mail(ctx, game_id, red, secret)
        _order_mail(ctx, game_id, red, secret, play=2)  # and orders replaced
    later = _order_mail(ctx, *_new_duel(ctx, 99))
    assert len(later) == len(first), "\n".join(later)
    assert len(outbox(ctx, kind="reply")) >= 41


def test_the_reply_limits_are_counted_on_an_index(ctx: Context) -> None:
    """The hourly counts run on every answer: one address's reads its index's rows of the
    window, everybody's the tally's minutes on its key (`AnswerTally`), never the whole outbox
    (which holds every report and welcome ever sent)."""
    from pbem.service import limits

    with ctx.session() as session:
        compiled = {who: limits.window_query(ctx, limits.AUTHENTICATED, limits.WINDOW, who, cap=100)
                    .compile(session.get_bind(), compile_kwargs={"literal_binds": True})
                    for who in (None, "Red@Example.org")}
        for who, stmt in compiled.items():
            if session.get_bind().dialect.name == "sqlite":
                plan = " ".join(str(row[-1]) for row in session.execute(text(f"EXPLAIN QUERY PLAN {stmt}")))
                assert "USING" in plan and "INDEX" in plan and "SCAN outbox" not in plan, (who, plan)
            else:
                session.execute(text("SET LOCAL enable_seqscan = off"))
                plan = " ".join(str(row[0]) for row in session.execute(text(f"EXPLAIN {stmt}")))
                assert "Index" in plan and "Seq Scan" not in plan, (who, plan)
