"""`pbem player forget ADDRESS`: erase a player's address once every game they played has
ended (docs/operations.md, "Erasing a player").

The games stay whole (orders, results, dice: the archive and `pbem verify` need them),
but every row that named the address names a pseudonym instead (``player<id>@forgotten.
invalid``), and the mail bytes that carried it (the player's inbound mail, the mail sent to
them) are dropped. A player still holding a seat in a running game cannot be forgotten:
the game needs their address to go on.
"""

from __future__ import annotations

import json
import logging

from sqlalchemy import inspect, text
from sqlmodel import col, select

from pbem.db.models import Game, Holder, InboundMail, OutboxMail, Player, Seat
from pbem.errors import GameStateError, NotFoundError
from pbem.service.context import Context

log = logging.getLogger(__name__)

#: Columns holding an address, besides those handled one by one below. Tables that a
#: database may not have yet are skipped.
ADDRESS_COLUMNS = [("seat", "address"), ("holder", "address"), ("sheet", "sender"), ("refusal_notice", "address"),
                   ("game", "master_address"), ("seat_entry", "address"), ("signup_request", "address"),
                   ("vote", "address")]


def pseudonym(player_id: int) -> str:
    return f"player{player_id}@forgotten.invalid"


def forget(ctx: Context, address: str) -> str:
    address = address.strip().lower()
    with ctx.session() as s:
        player = s.exec(select(Player).where(Player.address == address)).first()
        if player is None:
            raise NotFoundError(f"no player {address}")
        games = {h.game_id for h in s.exec(select(Holder).where(Holder.address == address))}
        games |= {seat.game_id for seat in s.exec(select(Seat).where(Seat.address == address))}
        running = sorted(g.id for g in s.exec(select(Game).where(col(Game.id).in_(games or {""})))
                         if g.status != "finished")
        if running:
            raise GameStateError(f"{address} still plays in {', '.join(running)}: a player is forgotten once "
                                 "every game they played has ended")
        assert player.id is not None
        alias = pseudonym(player.id)
        player.address, player.name = alias, ""
        s.add(player)
        bind = s.connection()
        tables = set(inspect(bind).get_table_names())
        for table, column in ADDRESS_COLUMNS:
            if table in tables and column in {c["name"] for c in inspect(bind).get_columns(table)}:
                s.execute(text(f'UPDATE "{table}" SET "{column}" = :alias WHERE lower("{column}") = :address'),
                          {"alias": alias, "address": address})
        mails_in = 0
        for row in s.exec(select(InboundMail).where(col(InboundMail.sender).in_([address, player.address]))):
            row.sender, row.raw = alias, None
            s.add(row)
            mails_in += 1
        mails_out = 0
        for out in s.exec(select(OutboxMail).where(col(OutboxMail.recipients_json).contains(address))):
            recipients = [alias if r.lower() == address else r for r in json.loads(out.recipients_json)]
            if recipients == json.loads(out.recipients_json):
                continue  # the address was only part of another one
            out.recipients_json, out.raw = json.dumps(recipients), b""
            s.add(out)
            mails_out += 1
        s.commit()
    log.info("player %d forgotten: %d inbound and %d outgoing mail(s) dropped", player.id, mails_in, mails_out)
    return f"{address} is now {alias} in {len(games)} game(s); {mails_in} inbound and {mails_out} outgoing mail(s) dropped"
