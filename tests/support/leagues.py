"""Playing a league's games to their end through the service, for the league, ratings and
site tests: each seat's orders by mail, as a player would send them."""

from __future__ import annotations

import json
from typing import Callable

from sqlmodel import select

from pbem.db.models import OutboxMail, Seat
from pbem.service import inbound, store
from pbem.service.context import Context
from tests.support.players import body_text, order_block, parse, player_mail, secret_from_welcome


def seat_secret(ctx: Context, game_id: str, seat: str) -> tuple[str, str]:
    """The seat's address and its secret from the welcome mailed for this game."""
    with ctx.session() as session:
        row = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.name == seat)).one()
        welcomes = session.exec(select(OutboxMail).where(OutboxMail.game_id == game_id,
                                                         OutboxMail.kind == "welcome")).all()
    for mail in welcomes:
        if row.address in json.loads(mail.recipients_json):
            return row.address, secret_from_welcome(body_text(parse(mail.raw)))
    raise AssertionError(f"no welcome for {seat} of {game_id}")


def send(ctx: Context, game_id: str, seat: str, lines: list[str]) -> str:
    address, secret = seat_secret(ctx, game_id, seat)
    return inbound.handle(ctx, player_mail(address, order_block(game_id, seat, secret, lines))).status


def kriegspiel(ctx: Context, game_id: str, winner: str | None) -> None:
    """A Kriegspiel decided at the deployment: the loser RESIGNs (rulebook: a side may resign
    at any time), the winner deploys as the default does; a draw: both resign (agreement)."""
    from pbem.games.kriegspiel.play import opening_text

    for seat in ("north", "south"):
        lines = opening_text(seat).splitlines() if seat == winner else ["RESIGN"]
        assert send(ctx, game_id, seat, lines) == "orders", (game_id, seat)
    with ctx.session() as session:
        assert store.get_game(session, game_id).status == "finished"


def arditi(ctx: Context, game_id: str, advance: Callable[[], None], limit: int = 400) -> None:
    """An Arditi game played to its end: every seat mails AUTO (the server picks a legal move
    with the roll and files it as a concrete PATH) when it is awaited."""
    for _ in range(limit):
        with ctx.session() as session:
            game = store.get_game(session, game_id)
            if game.status == "finished":
                return
            phase = store.current_phase(session, game)
            assert phase is not None
            waiting = store.awaiting(phase)
        for seat in waiting:
            assert send(ctx, game_id, seat, ["AUTO"]) == "orders", (game_id, seat)
        advance()
    raise AssertionError(f"{game_id} did not end in {limit} turns")
