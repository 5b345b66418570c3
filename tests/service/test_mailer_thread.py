"""A mail to a player learns its Reply-To, its thread's root and whether the root is used from one
statement (`pbem.service.threads.at`, issue 17), with the answers of `tokens.reply_to_for`,
`threads.root_for` and `threads.taken` asked one by one."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import Session, select

from pbem.db.models import Game, Holder, Seat
from pbem.service import games, holders, mailer, threads, tokens
from pbem.service.context import Context

RED, BLUE, BOTH = "red@localhost", "blue@localhost", "both@localhost"
ADDRESSES = [RED, BLUE, BOTH, " Red@LocalHost ", "RED@localhost", "nobody@localhost", "blue@localhost "]
SEATS = [None, "red", "blue", "green"]


def _tokens(ctx: Context, on: bool) -> Context:
    security = dataclasses.replace(ctx.config.security, reply_tokens=on)
    return dataclasses.replace(ctx, config=dataclasses.replace(ctx.config, security=security))


def _one_by_one(session: Session, ctx: Context, game: Game, to: str, seat: str | None) -> tuple[Any, ...]:
    reply_to = tokens.reply_to_for(session, ctx, game, to)
    root = threads.root_for(session, game, to, ctx.config.server.domain, seat)
    return reply_to, root, threads.taken(session, root) if root is not None else None


def _at_once(session: Session, ctx: Context, game: Game, to: str, seat: str | None) -> tuple[Any, ...]:
    """`mailer._thread` asked both ways (the root's use wanted or not) gives the same answers."""
    reply_to, root, used = mailer._thread(session, ctx, game, to, None, seat, queued=True)
    assert mailer._thread(session, ctx, game, to, None, seat, queued=False) == (reply_to, root, None)
    return reply_to, root, (used if used is not None else threads.taken(session, root)) if root is not None else None


@pytest.fixture
def two_games(ctx: Context) -> list[str]:
    """Two Duels: red and blue; both seats held by one player (a player of two seats)."""
    return [games.create(ctx, "duel", "one", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")]),
            games.create(ctx, "duel", "two", [games.SeatSpec("red", BOTH), games.SeatSpec("blue", BOTH)])]


@pytest.mark.parametrize("tokens_on", [False, True])
def test_the_same_answers_as_asked_one_by_one(ctx: Context, two_games: list[str], tokens_on: bool) -> None:
    ctx = _tokens(ctx, tokens_on)
    with Session(ctx.engine) as session:
        for game_id in two_games:
            game = session.get(Game, game_id)
            assert game is not None
            for to in ADDRESSES:
                for seat in SEATS:
                    assert _at_once(session, ctx, game, to, seat) == _one_by_one(session, ctx, game, to, seat)
        # a removed holder, a root not used yet (a holder added back has a new row) and a seat
        # whose name the root spells otherwise (the statement cannot tell: taken is asked)
        red = session.exec(select(Holder).where(Holder.game_id == two_games[0], Holder.address == RED)).one()
        red.status = "removed"
        blue_seat = session.exec(select(Seat).where(Seat.game_id == two_games[0], Seat.name == "blue")).one()
        blue_seat.name = "blue team/ü"
        assert blue_seat.id is not None
        session.add(Holder(seat_id=blue_seat.id, game_id=two_games[0], player_id=red.player_id, address=RED))
        session.flush()
        game = session.get(Game, two_games[0])
        assert game is not None
        for to in ADDRESSES:
            for seat in [*SEATS, "blue team/ü"]:
                assert _at_once(session, ctx, game, to, seat) == _one_by_one(session, ctx, game, to, seat)
        answered = mailer._thread(session, ctx, game, BLUE, None, "blue team/ü", queued=True)
        assert answered[1] is not None and answered[2] is None  # not told by the statement: asked
        session.rollback()


def test_a_mail_to_a_player_reads_its_thread_in_one_statement(ctx: Context, two_games: list[str]) -> None:
    """A root already used (the welcome) and one free are told apart without asking `taken`."""
    with Session(ctx.engine) as session:
        game = session.get(Game, two_games[0])
        assert game is not None
        seen: list[str] = []
        listen = lambda *args: seen.append(args[2])  # noqa: E731
        event.listen(ctx.engine, "before_cursor_execute", listen)
        try:
            reply_to, root, used = mailer._thread(session, ctx, game, RED, None, "red", queued=True)
        finally:
            event.remove(ctx.engine, "before_cursor_execute", listen)
        assert len(seen) == 1, seen
        assert reply_to is None and root is not None and used is True
        red = session.exec(select(Holder).where(Holder.game_id == game.id, Holder.address == RED)).one()
        seat = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.name == "blue")).one()
        assert seat.id is not None
        session.add(Holder(seat_id=seat.id, game_id=game.id, player_id=red.player_id, address=RED))
        session.flush()
        assert mailer._thread(session, ctx, game, RED, None, "blue", queued=True)[2] is False
        session.rollback()


@pytest.mark.parametrize("tokens_on", [False, True])
def test_an_answer_reuses_the_seat_the_transaction_read(ctx: Context, two_games: list[str], tokens_on: bool) -> None:
    """An order mail's answer: its seat and holders were read by the transaction (identify), so
    the answer's thread costs no statement (with tokens on, the Reply-To is still read)."""
    ctx = _tokens(ctx, tokens_on)
    with Session(ctx.engine) as session:
        game = session.get(Game, two_games[1])
        assert game is not None
        seats = [session.exec(select(Seat).where(Seat.game_id == game.id, Seat.name == name)).one()
                 for name in ("red", "blue")]  # held, as identify's seat is (the identity map is weak)
        for seat in seats:
            holders.everyone(session, seat)
        for to in ADDRESSES:
            for name in SEATS[1:]:
                want = _one_by_one(session, ctx, game, to, name)[:2] + (None,)
                got, statements = _counted(ctx, lambda: mailer._thread(session, ctx, game, to, None, name,
                                                                       queued=False))
                assert got == want
                # no statement for the seats read before, unless tokens are on; the green seat is not
                # in the game: asked (and not found)
                assert statements == (1 if name == "green" or tokens_on else 0), (to, name)
                given, statements = _counted(ctx, lambda: mailer._thread(session, ctx, game, to, "pbem+given@localhost",
                                                                         name, queued=False))
                assert given == ("pbem+given@localhost", *want[1:])
                assert statements == (1 if name == "green" else 0), (to, name)


def _counted(ctx: Context, call: Callable[[], Any]) -> tuple[Any, int]:
    seen: list[str] = []
    listen = lambda *args: seen.append(args[2])  # noqa: E731
    event.listen(ctx.engine, "before_cursor_execute", listen)
    try:
        return call(), len(seen)
    finally:
        event.remove(ctx.engine, "before_cursor_execute", listen)
