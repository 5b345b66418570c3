"""An order mail reads its game with its seats, each seat's holders and the current phase's sheets
on file in one statement (`inbound.read_game`, issue 17), and supersedes a replaced sheet by id
with one core UPDATE (`turns.file_sheet` given those rows). Checked against the general reads
(`store.seats`, `holders.everyone` read afresh, `store.sheets_of_phase`) and against
`turns.file_sheet` reading for itself, on random sequences of sheets filed and replaced, with
team seats of several holders (some of whom left) and with commits between the steps."""

from __future__ import annotations

import random
from typing import Any

from sqlmodel import col, select

from pbem.db.models import Holder, SheetRow
from pbem.service import games, holders, inbound, store, teams, turns
from pbem.service.context import Context


def _duel(ctx: Context, n: int, team: int) -> str:
    game_id = games.create(ctx, "duel", f"table {n}", [games.SeatSpec("red", f"red{n}@example.org"),
                                                       games.SeatSpec("blue", f"blue{n}@example.org")])
    for k in range(team):  # red plays as a team; one of them left
        teams.add(ctx, game_id, "red", games.HolderSpec(f"mate{k}.{n}@example.org"))
    if team > 1:
        with ctx.session() as session:
            gone = session.exec(select(Holder).where(Holder.address == f"mate0.{n}@example.org")).one()
            gone.status, gone.left_at = holders.LEFT, ctx.now()
            session.add(gone)
            session.commit()
    return game_id


def _general(session: Any, game_id: str, seq: int) -> tuple[Any, ...]:
    seats = store.seats(session, game_id)
    of_seat = {s.id: [h.id for h in session.exec(select(Holder).where(Holder.seat_id == s.id)
                                                 .order_by(col(Holder.id)))] for s in seats}
    sheets = [(r.id, r.seat, r.receipt, r.sender, r.mail_date) for r in store.sheets_of_phase(session, game_id, seq)]
    return [s.id for s in seats], of_seat, sheets


def _step(ctx: Context, game_id: str, seat_name: str, play: int, one_read: bool) -> None:
    with ctx.session() as session:
        game, seats, sheets = inbound.read_game(session, game_id, f"{seat_name}@example.org")
        rules, state = store.rules_of(game), store.state_of(game)
        phase_row = store.current_phase(session, game)
        assert phase_row is not None
        seat_ids, of_seat, general_sheets = _general(session, game_id, phase_row.seq)
        assert [s.id for s in seats] == seat_ids
        assert {s.id: [h.id for h in holders.everyone(session, s)] for s in seats} == of_seat  # kept, no SQL
        assert [tuple(r) for r in sheets] == general_sheets
        earlier = [r for r in sheets if r.seat == seat_name]
        sheet = rules.parse_orders(state, seat_name, f"PLAY {play}")
        turns.file_sheet(session, ctx, game, rules, phase_row.seq, sheet, raw_text=f"PLAY {play}", source="mail",
                         sender=f"{seat_name}@example.org", inbound_id=play, mail_date=ctx.now(),
                         earlier=earlier if one_read else None)
        if play % 2:
            session.commit()
        else:
            session.flush()
            assert [r.canonical for r in store.sheets_of_phase(session, game_id, phase_row.seq)
                    if r.seat == seat_name] == [f"PLAY {play}"]
            session.commit()


def _sheets(ctx: Context, game_id: str) -> list[tuple[Any, ...]]:
    with ctx.session() as session:
        rows = session.exec(select(SheetRow).where(SheetRow.game_id == game_id).order_by(col(SheetRow.id)))
        return [(r.phase_seq, r.seat, r.canonical, r.superseded, r.sender) for r in rows]


def test_one_read_of_seats_holders_and_sheets_answers_as_the_general_reads(ctx: Context) -> None:
    rng = random.Random(3)
    for n in range(6):
        team = n % 3
        one, general = _duel(ctx, 2 * n, team), _duel(ctx, 2 * n + 1, team)
        for _ in range(rng.randint(1, 6)):
            seat_name, play = "red", rng.randint(1, 3)  # red alone: the phase stays open
            for game_id in (one, general):
                _step(ctx, game_id, seat_name, play, one_read=game_id == one)
        assert _sheets(ctx, one) == _sheets(ctx, general)


def test_a_game_without_sheets_or_holders_reads_its_seats(ctx: Context) -> None:
    game_id = _duel(ctx, 99, 0)
    with ctx.session() as session:
        for h in session.exec(select(Holder).where(Holder.game_id == game_id)):
            session.delete(h)
        session.flush()
        game, seats, sheets = inbound.read_game(session, game_id, "nobody@example.org")
        assert game.id == game_id
        assert [s.name for s in seats] == [s.name for s in store.seats(session, game_id)] and sheets == []
        assert all(holders.everyone(session, s) == [] for s in seats)
        session.rollback()


def test_the_read_finds_the_sheets_by_game_and_phase(ctx: Context) -> None:
    """The sheets are read on the index of game, phase and seat, never on the phase's own
    index (every game's sheets of that phase number: the read grew with the games)."""
    from sqlalchemy import text

    with ctx.session() as session:
        bind = session.get_bind()
        sql = inbound._GAME_TABLE.params(game_id="k1", address="a@example.org").compile(bind, compile_kwargs={"literal_binds": True}).string
        if bind.dialect.name == "sqlite":
            plan = " ".join(str(row[-1]) for row in session.execute(text(f"EXPLAIN QUERY PLAN {sql}")))
            assert "SEARCH sheet USING INDEX ix_sheet_game_phase" in plan, plan
        else:
            session.execute(text("SET LOCAL enable_seqscan = off"))
            plan = " ".join(str(row[0]) for row in session.execute(text(f"EXPLAIN {sql}")))
            assert "Seq Scan on sheet" not in plan and "ix_sheet_phase_seq" not in plan, plan
