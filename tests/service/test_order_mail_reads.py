"""An order mail reads the game's seats and the phase's sheets once (issue 17): the sheet on
file, the ones a new sheet supersedes and whether every seat is in come from that one read
(`inbound._orders`), and the sheet is written with one core INSERT. Checked here against the
general code that reads them again (`store.sheet_on_file`, `turns.file_sheet` without
``earlier``, `turns.ready` without ``seats`` and ``filed``) on many sequences of sheets filed,
replaced and seats put out of play, with and without commits between them."""

from __future__ import annotations

import random
from typing import Any

from pbem.db.models import SheetRow
from pbem.service import games, inbound, store, turns
from pbem.service.context import Context
from sqlmodel import col, select

STATUSES = ("active", "active", "abandoned", "conceded")


def _duel(ctx: Context, n: int) -> str:
    return games.create(ctx, "duel", f"reads {n}", [games.SeatSpec("red", f"red{n}@example.org"),
                                                      games.SeatSpec("blue", f"blue{n}@example.org")])


def _step(ctx: Context, game_id: str, seat_name: str, play: int, status: str | None, general: bool) -> bool:
    """One sheet filed as an order mail files it (``general``: as the general code does);
    returns whether the phase is ready, after checking the one read against the general reads."""
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True, phase=True)
        rules, state = store.rules_of(game), store.state_of(game)
        phase_row = store.current_phase(session, game)
        assert phase_row is not None
        if status is not None:  # a seat out of play (or back), written in this transaction or the last
            other = store.seat(session, game.id, "blue" if seat_name == "red" else "red")
            assert other is not None
            other.status = status
            session.add(other)
            if play % 2:
                session.commit()
                game = store.get_game(session, game_id, lock=True, phase=True)
                phase_row = store.current_phase(session, game)
                assert phase_row is not None
        seats = store.seats(session, game.id)
        phase_sheets = store.sheets_of_phase(session, game.id, phase_row.seq)
        earlier = [r for r in phase_sheets if r.seat == seat_name]
        on_file = earlier[-1] if earlier else None
        general_on_file = store.sheet_on_file(session, game.id, phase_row.seq, seat_name)
        assert (on_file.id if on_file else None) == (general_on_file.id if general_on_file else None)
        sheet = rules.parse_orders(state, seat_name, f"PLAY {play}")
        filed = turns.file_sheet(session, ctx, game, rules, phase_row.seq, sheet, raw_text=f"PLAY {play}",
                                 source="mail", sender=f"{seat_name}@example.org", inbound_id=play,
                                 mail_date=ctx.now(), earlier=None if general else earlier)
        assert filed.canonical == f"PLAY {play}"
        given = turns.ready(session, game, phase_row, seats={s.name: s for s in seats},
                            filed={r.seat for r in phase_sheets} | {seat_name})
        read = turns.ready(session, game, phase_row)
        assert given == read, (seat_name, status, [(r.seat, r.superseded) for r in phase_sheets])
        session.commit()
        return read


def _sheets(ctx: Context, game_id: str) -> list[tuple[Any, ...]]:
    with ctx.session() as session:
        rows = session.exec(select(SheetRow).where(SheetRow.game_id == game_id).order_by(col(SheetRow.id)))
        return [(r.phase_seq, r.seat, r.raw_text, r.orders_json, r.canonical, r.superseded, r.source, r.sender,
                 r.mail_date, r.inbound_id, r.received_at, r.receipt == turns.receipt(game_id, r.phase_seq, r.seat,
                                                                                      r.canonical))
                for r in rows]


def test_one_read_of_seats_and_sheets_answers_as_the_general_reads(ctx: Context) -> None:
    rng = random.Random(17)
    for n in range(12):
        one, general = _duel(ctx, 2 * n), _duel(ctx, 2 * n + 1)
        readies = {one: [], general: []}  # type: dict[str, list[bool]]
        for _ in range(rng.randint(1, 6)):
            seat_name, play = rng.choice(("red", "blue")), rng.randint(1, 3)
            status = rng.choice(STATUSES) if rng.random() < 0.4 else None
            for game_id in (one, general):
                readies[game_id].append(_step(ctx, game_id, seat_name, play, status, general=game_id == general))
        assert readies[one] == readies[general]
        assert _sheets(ctx, one) == _sheets(ctx, general)
        assert len(_sheets(ctx, one)) >= 1


def test_a_replaced_sheet_is_superseded_and_the_new_one_on_file(ctx: Context) -> None:
    game_id = _duel(ctx, 99)
    for play in (1, 2, 3):
        assert not _step(ctx, game_id, "red", play, None, general=False)
    rows = _sheets(ctx, game_id)
    assert [(r[4], r[5]) for r in rows] == [("PLAY 1", True), ("PLAY 2", True), ("PLAY 3", False)]
    assert all(r[-1] for r in rows)  # each receipt the sheet's own
    with ctx.session() as session:
        game = store.get_game(session, game_id)
        on_file = store.sheet_on_file(session, game.id, game.phase_seq, "red")
        assert on_file is not None and on_file.canonical == "PLAY 3"
    assert _step(ctx, game_id, "blue", 2, None, general=False)  # both in: ready


#: The reads of a game for a mail, each with its phase and the player at an address in the same
#: statement: `store.get_game`, and a seat's mail's `inbound.read_game` with the seats.
_GAME_READS = (lambda s, g, a: store.get_game(s, g, lock=True, phase=True, player=a),
               lambda s, g, a: inbound.read_game(s, g, a)[0])


def test_the_game_read_with_the_senders_player_answers_as_player_at(ctx: Context) -> None:
    """`store.get_game` with ``player``: the same game and phase, and `player_at` the same
    player (or none) as its own read, without a statement of its own when there is one."""
    import pytest
    from sqlalchemy import event

    from pbem.errors import NotFoundError

    game_id = _duel(ctx, 77)
    for address in ("red77@example.org", " Blue77@Example.ORG ", "stranger@example.org", ""):
        with ctx.session() as session:
            plain = store.get_game(session, game_id, phase=True)
            phase_id = store.current_phase(session, plain).id  # type: ignore[union-attr]
            alone = store.player_at(session, address)
            expected = (alone.id, alone.address, alone.language) if alone is not None else None
        for read in _GAME_READS:  # get_game, and inbound.read_game (with the seats) the same
            with ctx.session() as session:
                game = read(session, game_id.upper(), address)
                seen: list[str] = []
                listen = lambda *args: seen.append(args[2])  # noqa: E731
                event.listen(ctx.engine, "before_cursor_execute", listen)
                try:
                    phase = store.current_phase(session, game)
                    player = store.player_at(session, address)
                finally:
                    event.remove(ctx.engine, "before_cursor_execute", listen)
                assert game.id == game_id and phase is not None and phase.id == phase_id
                assert (None if player is None else (player.id, player.address, player.language)) == expected
                assert len(seen) == (0 if expected is not None else 1), seen  # a stranger is looked for again
            with ctx.session() as session, pytest.raises(NotFoundError):
                read(session, "nosuchgame", address)


def test_the_game_read_for_a_mail_leaves_what_it_never_uses_unread(ctx: Context) -> None:
    """`store.get_game` with its phase (every mail about a game reads it so) sends neither the
    game's first state, its sealed seed, its outcome nor the phase's copy of the state: two
    thirds of the row's bytes and a decryption. Each is still there when asked for (a turn's
    resolution reads the seed), the same as a plain read gives."""
    from sqlalchemy import event

    game_id = _duel(ctx, 78)
    with ctx.session() as session:
        plain = store.get_game(session, game_id)
        expected = (plain.initial_state_json, plain.seed_hex, plain.outcome_json, plain.state_json)
        phase_state = store.current_phase(session, plain).state_json  # type: ignore[union-attr]
    for read in [lambda s, g, a: store.get_game(s, g, lock=True, phase=True), *_GAME_READS]:
        with ctx.session() as session:
            seen: list[str] = []
            listen = lambda *args: seen.append(args[2])  # noqa: E731
            event.listen(ctx.engine, "before_cursor_execute", listen)
            try:
                game = read(session, game_id, "red78@example.org")
            finally:
                event.remove(ctx.engine, "before_cursor_execute", listen)
            assert len(seen) == 2 and "state_json" not in seen[0], seen  # the lock alone, then the read
            assert ("FOR UPDATE" in seen[0]) == (ctx.engine.dialect.name == "postgresql"), seen[0]
            for column in ("initial_state_json", "seed_hex", "outcome_json", "phase.state_json"):
                assert column not in seen[1], (column, seen[1])
            assert "game.state_json" in seen[1] and "FOR UPDATE" not in seen[1]
            assert (game.initial_state_json, game.seed_hex, game.outcome_json, game.state_json) == expected
            assert store.current_phase(session, game).state_json == phase_state  # type: ignore[union-attr]
