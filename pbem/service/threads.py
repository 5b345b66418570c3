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

from sqlalchemy import ColumnElement, String, cast, inspect, literal
from sqlmodel import Session, col, select

from pbem.db.models import Game, Holder, OutboxMail, Seat

_UNSAFE = re.compile(r"[^A-Za-z0-9-]+")


def _safe(part: str) -> str:
    return _UNSAFE.sub("-", part)[:40] or "-"


def root_id(game: Game, seat_name: str, holder_id: int, domain: str) -> str:
    """``<pbem.k1.north.3.5f0c9a1e2b7d@club.example.org>``: stable for this game, seat and player."""
    parts = (game.id, seat_name, str(holder_id), (game.commitment or "0")[:12])
    local = ".".join(_safe(p) for p in parts)
    return f"<pbem.{local}@{domain}>"


def _spelled(game: Game, domain: str) -> ColumnElement[str]:
    """`root_id` of a row of `Holder` and `Seat` spelled in SQL: the same id wherever the seat's
    name needs no replacing (`at` compares the two and trusts only an equal one)."""
    head, tail = f"<pbem.{_safe(game.id)}.", f".{_safe((game.commitment or '0')[:12])}@{domain}>"
    return literal(head) + col(Seat.name) + literal(".") + cast(col(Holder.id), String) + literal(tail)


def at(session: Session, game: Game, addresses: set[str], domain: str,
       queued: bool = True) -> list[tuple[Holder, Seat, str, bool | None]]:
    """The holders in ``game`` with one of ``addresses``, each with its seat, its thread's root
    (`root_id`) and, with ``queued``, whether the root is queued already (`taken`), in one
    statement: a mail to a player needs them all (issue 17). None where it was not asked or
    the statement could not tell (a seat name `root_id` spells otherwise: ask `taken`)."""
    spelled = _spelled(game, domain)
    used = select(OutboxMail.id).where(col(OutboxMail.message_id) == spelled).exists()
    where = (Holder.game_id == game.id, col(Holder.address).in_(sorted(addresses)), Holder.seat_id == Seat.id)
    out: list[tuple[Holder, Seat, str, bool | None]] = []
    if not queued:
        for holder, seat in session.exec(select(Holder, Seat).where(*where)):
            assert holder.id is not None
            out.append((holder, seat, root_id(game, seat.name, holder.id, domain), None))
        return out
    for holder, seat, sql_root, is_used in session.exec(select(Holder, Seat, spelled, used).where(*where)):
        assert holder.id is not None
        root = root_id(game, seat.name, holder.id, domain)
        out.append((holder, seat, root, bool(is_used) if sql_root == root else None))
    return out


def seat_read(session: Session, game: Game, name: str) -> Seat | None:
    """The game's seat ``name`` when the session holds it already (its identity map, no SQL),
    else None. Only its id, game and name are read, which never change once written."""
    for obj in session.identity_map.values():
        if isinstance(obj, Seat):
            loaded = inspect(obj).dict  # what is loaded: an expired attribute would be read again
            if loaded.get("name") == name and loaded.get("game_id") == game.id and loaded.get("id") is not None:
                return obj
    return None


def pick(rows: list[tuple[Holder, Seat, str, bool | None]], address: str,
         seat_name: str | None = None) -> tuple[Holder, Seat, str, bool | None] | None:
    """`holder_for` among the rows of `at`."""
    want = address.strip().lower()
    mine = [r for r in rows if r[0].address == want and (seat_name is None or r[1].name == seat_name)]
    return mine[0] if len(mine) == 1 else None


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
