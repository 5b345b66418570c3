"""Helpers for the security tests: sending a player's (or a forger's) mail, reading notes."""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlmodel import col, select

from pbem.db.models import InboundMail, SheetRow
from pbem.service import inbound
from pbem.service.context import Context
from pbem.service.replies import Handled
from tests.support.players import order_block, player_mail


def orders_mail(sender: str, game_id: str, seat: str, secret: str, lines: Iterable[str] = ("PLAY 2",), *,
                turn: int | None = None, to: str = "pbem@localhost", message_id: str | None = None,
                headers: Iterable[tuple[str, str]] = (), subject: str = "orders") -> bytes:
    return player_mail(sender, order_block(game_id, seat, secret, list(lines), turn), to=to, message_id=message_id,
                       headers=headers, subject=subject)


def send(ctx: Context, raw: bytes) -> Handled:
    return inbound.handle(ctx, raw)


def with_headers(raw: bytes, *lines: str) -> bytes:
    """Prepend header lines, as a receiving MTA does (or a forger above the body)."""
    return "".join(line + "\r\n" for line in lines).encode("utf-8") + raw


def note_of(ctx: Context, result: Handled) -> str:
    with ctx.session() as s:
        row = s.get(InboundMail, result.inbound_id)
        assert row is not None
        return row.note


def sheets(ctx: Context) -> list[SheetRow]:
    with ctx.session() as s:
        return list(s.exec(select(SheetRow).order_by(col(SheetRow.id))))


def recipients(row: object) -> list[str]:
    return list(json.loads(row.recipients_json))


def new_duel(ctx: Context, red: str = "red@example.org", blue: str = "blue@example.org") -> tuple[str, dict[str, str]]:
    """A Duel created under the current configuration, and the seats' secrets."""
    from pbem.service import games
    from tests.service.helpers import outbox, text_of
    from tests.support.players import secret_from_welcome

    game_id = games.create(ctx, "duel", "Security duel", [games.SeatSpec("red", red), games.SeatSpec("blue", blue, "it")])
    welcome = {seat: [r for r in outbox(ctx, to=addr, kind="welcome") if r.game_id == game_id][0]
               for seat, addr in (("red", red), ("blue", blue))}
    return game_id, {seat: secret_from_welcome(text_of(row)) for seat, row in welcome.items()}


def reply_to(row: object) -> str | None:
    from tests.support.players import parse

    return parse(row.raw)["Reply-To"]
