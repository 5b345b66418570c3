"""One mail thread per seat and player: the welcome is its root, and every later mail to
that player about the seat (reports, reminders, notices, answers) names the root in
In-Reply-To/References, so that mail clients keep a game's mail for a seat together.

The root's Message-ID is derived, not stored: the game, the seat, the holder row and the
start of the game's dice commitment (random per game, so a game id used again on a fresh
database never repeats an id a player already has; some providers drop a mail whose
Message-ID they have seen). The first mail queued for a holder carries it (the welcome); a
later welcome (a new secret, a player added back) gets an id of its own inside the thread.
"""

from __future__ import annotations

import re

from sqlmodel import Session, select

from pbem.db.models import Game, Holder, OutboxMail, Seat

_UNSAFE = re.compile(r"[^A-Za-z0-9-]+")


def root_id(game: Game, seat_name: str, holder_id: int, domain: str) -> str:
    """``<pbem.k1.north.3.5f0c9a1e2b7d@club.example.org>``: stable for this game, seat and player."""
    parts = (game.id, seat_name, str(holder_id), (game.commitment or "0")[:12])
    local = ".".join(_UNSAFE.sub("-", p)[:40] or "-" for p in parts)
    return f"<pbem.{local}@{domain}>"


def holder_for(session: Session, game: Game, address: str, seat_name: str | None = None) -> Holder | None:
    """The holder a mail to ``address`` in ``game`` is for; None when that is not one seat's
    holder (the game master, or a player of two seats and no seat named)."""
    stmt = select(Holder, Seat).where(Holder.game_id == game.id, Holder.address == address.strip().lower(),
                                      Holder.seat_id == Seat.id)
    rows = list(session.exec(stmt))
    if seat_name is not None:
        rows = [r for r in rows if r[1].name == seat_name]
    return rows[0][0] if len(rows) == 1 else None


def root_for(session: Session, game: Game, address: str, domain: str, seat_name: str | None = None) -> str | None:
    """The thread root of the seat ``address`` plays in ``game`` (see `holder_for`)."""
    holder = holder_for(session, game, address, seat_name)
    if holder is None or holder.id is None:
        return None
    seat = session.get(Seat, holder.seat_id)
    return root_id(game, seat.name if seat is not None else "-", holder.id, domain)


def taken(session: Session, message_id: str) -> bool:
    """Whether a mail with this Message-ID is already queued (the root is used once)."""
    return session.exec(select(OutboxMail.id).where(OutboxMail.message_id == message_id)).first() is not None
