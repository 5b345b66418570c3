"""Players (architecture 2.8): an address with a name, a language and a time zone, known
from its first game or its first mail; its announced absences; what the game master sees
of it (``pbem player list|show``).

A player's own settings come by mail (ABSENCE, SET ZONE, SET LANGUAGE, SET NAME) and, like a seat,
are never changed on a From's word: the request mails a one-time code and the setting
changes on ``CONFIRM`` (`pbem.service.signup`). What an absence does to deadlines is each
game's policy, read from the `Absence` rows elsewhere.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.db.models import Absence, Game, Holder, Player, Seat, SeatEntry, SheetRow, SignupRequest
from pbem.errors import NotFoundError
from pbem.service import signup
from pbem.service.context import Context
from pbem.service.replies import SHORT, Handled, Reply, quote
from pbem.service.texts import t

ABSENCE, ABSENCE_CANCEL, ZONE, LANGUAGE, NAME = "absence", "absence-cancel", "zone", "language", "name"
#: The longest absence one request announces, and how far ahead it may start.
MAX_DAYS = 366


def zone_of(player: Player | None, ctx: Context) -> str:
    """The player's own zone, else the server's."""
    return player.timezone if player is not None and player.timezone else ctx.config.server.timezone


def known_zone(name: str) -> bool:
    """An IANA zone the machine knows (``Europe/London``); never a path, never raises."""
    if not name or len(name) > 64 or ".." in name or name.startswith("/"):
        return False
    try:
        ZoneInfo(name)
    except Exception:  # ZoneInfoNotFoundError, ValueError, a directory such as "Europe"
        return False
    return True


def today(ctx: Context, player: Player | None) -> date:
    """Today in the player's zone: an absence's days are the player's days."""
    return ctx.now().astimezone(ZoneInfo(zone_of(player, ctx))).date()


def _player(session: Session, address: str) -> Player | None:
    return session.exec(select(Player).where(Player.address == address.strip().lower())).first()


def known(session: Session, address: str) -> Player | None:
    """The player with this address, if the server knows them."""
    return _player(session, address)


def _sender(reply: Reply) -> str:
    return (reply.mail.sender or "").strip().lower()


# --- requests by mail (checked now, applied on CONFIRM) -------------------------------------------


def _absence_problem(ctx: Context, player: Player | None, start: date, end: date) -> tuple[str, dict[str, Any]] | None:
    now = today(ctx, player)
    if end < start:
        return "club.absence_reversed", {"start": start.isoformat(), "end": end.isoformat()}
    if start < now:
        return "club.absence_past", {"start": start.isoformat(), "today": now.isoformat()}
    if (end - start).days >= MAX_DAYS or (start - now).days >= MAX_DAYS:
        return "club.absence_long", {"days": MAX_DAYS}
    return None


def request_absence(reply: Reply, start: date, end: date) -> Handled:
    player = _player(reply.session, _sender(reply))
    problem = _absence_problem(reply.ctx, player, start, end)
    if problem is not None:
        reply.send(_sender(reply), t("subject.refused", reply.lang), t(problem[0], reply.lang, **problem[1]))
        return Handled("refused", f"absence {start} {end}: {problem[0]}")
    what = t("club.what_absence", reply.lang, start=start.isoformat(), end=end.isoformat())
    return signup.ask(reply, ABSENCE, None, "", f"{start.isoformat()} {end.isoformat()}", what)


def request_cancel(reply: Reply) -> Handled:
    player = _player(reply.session, _sender(reply))
    if player is None or not coming_absences(reply.session, reply.ctx, player):
        reply.send(_sender(reply), t("subject.refused", reply.lang), t("club.absence_none", reply.lang))
        return Handled("refused", "absence cancel: none to cancel")
    return signup.ask(reply, ABSENCE_CANCEL, None, "", "", t("club.what_absence_cancel", reply.lang))


def request_zone(reply: Reply, zone: str) -> Handled:
    if not known_zone(zone):
        reply.send(_sender(reply), t("subject.refused", reply.lang), t("club.zone_unknown", reply.lang,
                                                                        zone=quote(zone, SHORT)))
        return Handled("refused", f"set zone {quote(zone, SHORT)}: unknown zone")
    return signup.ask(reply, ZONE, None, "", zone, t("club.what_zone", reply.lang, zone=zone))


def request_language(reply: Reply, language: str) -> Handled:
    return signup.ask(reply, LANGUAGE, None, "", language, t("club.what_language", reply.lang, language=language))


def request_name(reply: Reply, name: str) -> Handled:
    """SET NAME: the name is checked by the grammar (`pbem.mail.club`); set on CONFIRM."""
    return signup.ask(reply, NAME, None, "", name, t("club.what_name", reply.lang, name=name))


def apply(reply: Reply, req: SignupRequest) -> Handled:
    """A confirmed setting takes effect; the answer says what changed (in the new language)."""
    session, ctx = reply.session, reply.ctx
    player = _player(session, req.address) or _new_player(session, req.address, reply.lang)
    if req.kind == ABSENCE:
        first, _, last = req.payload.partition(" ")
        start, end = date.fromisoformat(first), date.fromisoformat(last)
        problem = _absence_problem(ctx, player, start, end)  # a day may have passed since the request
        if problem is not None:
            req.status = signup.VOID
            session.add(req)
            reply.send(req.address, t("subject.refused", reply.lang), t(problem[0], reply.lang, **problem[1]))
            return Handled("refused", f"absence {req.payload}: {problem[0]}")
        add_absence(session, ctx, player, start, end)
        text = t("club.absence_set", reply.lang, start=first, end=last)
    elif req.kind == ABSENCE_CANCEL:
        count = cancel_absences(session, ctx, player)
        text = t("club.absence_cancelled", reply.lang, count=count)
    elif req.kind == ZONE:
        set_zone(session, player, req.payload)
        text = t("club.zone_set", reply.lang, zone=req.payload)
    elif req.kind == NAME:
        set_name(session, player, req.payload)
        text = t("club.name_set", reply.lang, name=req.payload)
    else:
        set_language(session, player, req.payload)
        reply.lang = req.payload
        text = t("club.language_set", reply.lang, language=req.payload)
    req.status = signup.DONE
    session.add(req)
    reply.send(req.address, t("subject.club_settings", reply.lang), text)
    return Handled("command", f"{req.kind} {req.payload}: applied for {req.address}".replace("  ", " "))


def _new_player(session: Session, address: str, lang: str) -> Player:
    player = Player(address=address.strip().lower(), language=lang)
    session.add(player)
    session.flush()
    return player


# --- storage ----------------------------------------------------------------------------------------


def add_absence(session: Session, ctx: Context, player: Player, start: date, end: date) -> Absence:
    assert player.id is not None
    row = Absence(player_id=player.id, start_date=start, end_date=end, created_at=ctx.now())
    session.add(row)
    session.flush()
    return row


def coming_absences(session: Session, ctx: Context, player: Player) -> list[Absence]:
    """The player's absences not cancelled that have not ended yet (in the player's days)."""
    now = today(ctx, player)
    return list(session.exec(select(Absence).where(Absence.player_id == player.id, col(Absence.cancelled).is_(False),
                                                   col(Absence.end_date) >= now).order_by(col(Absence.start_date))))


def cancel_absences(session: Session, ctx: Context, player: Player) -> int:
    """ABSENCE CANCEL: every absence to come is withdrawn (kept, marked cancelled)."""
    rows = coming_absences(session, ctx, player)
    for row in rows:
        row.cancelled, row.cancelled_at = True, ctx.now()
        session.add(row)
    return len(rows)


def set_zone(session: Session, player: Player, zone: str) -> None:
    player.timezone = zone
    session.add(player)


def set_name(session: Session, player: Player, name: str) -> None:
    """How the other players read this one (`pbem.service.holders.label`)."""
    player.name = name
    session.add(player)


def set_language(session: Session, player: Player, language: str) -> None:
    """The player's language, and the language of each seat they hold (every mail of a seat
    is written in its holder's language)."""
    player.language = language
    session.add(player)
    for holder in session.exec(select(Holder).where(Holder.player_id == player.id, Holder.status == "active")):
        holder.language = language
        session.add(holder)


# --- the game master's view ------------------------------------------------------------------------


def player_list(ctx: Context) -> list[dict[str, Any]]:
    """Every player, with how many seats they hold in games not finished."""
    with ctx.session() as session:
        counts = dict(session.exec(select(Holder.player_id, func.count()).join(Game, col(Game.id) == Holder.game_id)
                                   .where(Holder.status == "active", Game.status != "finished")
                                   .group_by(col(Holder.player_id))).all())
        return [{"address": p.address, "name": p.name, "language": p.language, "timezone": p.timezone or "",
                 "seats": int(counts.get(p.id or 0, 0))}
                for p in session.exec(select(Player).order_by(col(Player.address)))]


def player_show(ctx: Context, address: str) -> dict[str, Any]:
    """One player: settings, seats (games running, open and over), absences, and reliability
    — deadlines met (orders by mail from this address while holding the seat) and missed
    (default orders played for a seat while they held it)."""
    with ctx.session() as session:
        player = _player(session, address)
        if player is None:
            raise NotFoundError(f"no player with the address {address!r}")
        seats: list[dict[str, Any]] = []
        met = missed = 0
        rows = session.exec(select(Holder, Seat, Game).where(Holder.player_id == player.id, Holder.seat_id == Seat.id,
                                                              Seat.game_id == Game.id).order_by(col(Holder.id)))
        for holder, seat_row, game in rows:
            sheets = list(session.exec(select(SheetRow).where(SheetRow.game_id == game.id, SheetRow.seat == seat_row.name)))
            mine = [s for s in sheets if _within(s.received_at, holder.joined_at, holder.left_at)]
            seat_met = len({s.phase_seq for s in mine if s.source == "mail" and s.sender.lower() == player.address})
            seat_missed = len({s.phase_seq for s in mine if s.source == "default"})
            met, missed = met + seat_met, missed + seat_missed
            seats.append({"game": game.id, "name": game.name, "kind": game.kind, "game_status": game.status,
                          "seat": seat_row.name, "holder": holder.status, "seat_status": seat_row.status,
                          "met": seat_met, "missed": seat_missed})
        for entry, game in session.exec(select(SeatEntry, Game).where(SeatEntry.player_id == player.id,
                                                                       SeatEntry.game_id == Game.id,
                                                                       Game.status == "open")):
            seats.append({"game": game.id, "name": game.name, "kind": game.kind, "game_status": game.status,
                          "seat": entry.seat, "holder": "signed up", "seat_status": "waiting for the start",
                          "met": 0, "missed": 0})
        absences = [{"from": a.start_date.isoformat(), "to": a.end_date.isoformat(), "cancelled": a.cancelled}
                    for a in session.exec(select(Absence).where(Absence.player_id == player.id)
                                          .order_by(col(Absence.start_date)))]
        total = met + missed
        return {"address": player.address, "name": player.name, "language": player.language,
                "timezone": player.timezone or f"(the game's: {ctx.config.server.timezone})",
                "seats": seats, "absences": absences,
                "reliability": {"deadlines_met": met, "deadlines_missed": missed,
                                "share_met": round(met / total, 3) if total else None}}


def _within(moment: datetime | None, since: datetime | None, until: datetime | None) -> bool:
    if moment is None:
        return False
    low = since or datetime.min.replace(tzinfo=timezone.utc)
    return low <= moment and (until is None or moment <= until)
