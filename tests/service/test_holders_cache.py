"""A seat's holders are read once per session (`holders._of_seat`): one order mail asks who may
act for the seat and then tells the team-mates, from one query. What the session changes since
(a holder made, one who left, a rollback) is seen, as when every question read the rows."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event
from sqlmodel import Session, select

from pbem.db.models import Seat
from pbem.service import games, holders
from pbem.service.context import Context

ANNA, BEPPE, CARLA = "anna@example.org", "beppe@example.org", "carla@example.org"


@pytest.fixture
def red(ctx: Context) -> Iterator[tuple[Session, Seat]]:
    red = games.SeatSpec.parse(f"red={ANNA},{BEPPE}:it")
    game_id = games.create(ctx, "duel", "Team duel", [red, games.SeatSpec("blue", CARLA)])
    with ctx.session() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.name == "red")).one()
        yield s, seat


@contextmanager
def _holder_reads(session: Session) -> Iterator[list[str]]:
    """The statements that read the holder table while in the block."""
    reads: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if "FROM holder" in statement:
            reads.append(statement)

    bind = session.get_bind()
    event.listen(bind, "before_cursor_execute", seen)
    try:
        yield reads
    finally:
        event.remove(bind, "before_cursor_execute", seen)


def test_find_then_tell_read_the_seat_once(red: tuple[Session, Seat]) -> None:
    s, seat = red
    with _holder_reads(s) as reads:
        anna = holders.find(s, seat, ANNA)
        assert anna is not None and anna.address == ANNA
        assert holders.find(s, seat, CARLA) is None  # not red's
        assert [h.address for h in holders.recipients(s, seat)] == [ANNA, BEPPE]
        assert [h.address for h in holders.active(s, seat)] == [ANNA, BEPPE]
    assert len(reads) == 1


def test_what_the_session_changes_is_seen(ctx: Context, red: tuple[Session, Seat]) -> None:
    s, seat = red
    assert [h.address for h in holders.recipients(s, seat)] == [ANNA, BEPPE]
    anna = holders.find(s, seat, ANNA)
    assert anna is not None
    anna.status = holders.LEFT  # the same object the list holds
    s.add(anna)
    assert [h.address for h in holders.recipients(s, seat)] == [BEPPE]
    assert holders.find(s, seat, ANNA) is None
    holders.make(s, ctx, seat, CARLA, "en")  # a holder made: the list is read again
    assert [h.address for h in holders.active(s, seat)] == [BEPPE, CARLA]
    gc.collect()  # Carla's object lives on in the list only (the session keeps its rows weakly)
    s.rollback()  # Carla's row is gone, Anna is active again
    assert [h.address for h in holders.active(s, seat)] == [ANNA, BEPPE]
    assert holders.find(s, seat, CARLA) is None


def test_a_new_transaction_reads_again(ctx: Context, red: tuple[Session, Seat]) -> None:
    s, seat = red
    assert [h.address for h in holders.recipients(s, seat)] == [ANNA, BEPPE]
    with ctx.session() as other:  # another mail (or worker) adds Carla to red
        other_seat = other.get(Seat, seat.id)
        assert other_seat is not None
        holders.make(other, ctx, other_seat, CARLA, "en")
        other.commit()
    s.commit()
    assert [h.address for h in holders.recipients(s, seat)] == [ANNA, BEPPE, CARLA]
