"""The club's commands by mail (architecture 2.8), sent without a seat: the sender is
known only by a From anybody can forge, so answers spend the strangers' budget
(`pbem.service.limits`) until a one-time code proves the address (`pbem.service.signup`).
Every answer names what changed, or why nothing did."""

from __future__ import annotations

from typing import Callable

from sqlmodel import Session, col, select

from pbem.db.models import Game, Holder, Seat
from pbem.mail import club as grammar
from pbem.service import games, leagues, observers, players, reliability, signup, store
from pbem.service.replies import SHORT, Handled, Reply, quote
from pbem.service.texts import t

#: How many games each list of GAMES shows (a big club's answer stays one readable mail).
MAX_LISTED = 50

#: The games an address watches, for GAMES (``address -> games``).
watched: Callable[[Session, str], list[Game]] = observers.watched


def answer(reply: Reply, command: grammar.ClubCommand) -> Handled:
    """Answer one club command (never raises on the mail's content). A sender we do not
    know yet is answered in the language of the keyword they used (ENTRA: Italian)."""
    if command.lang and players.known(reply.session, reply.mail.sender or "") is None:
        reply.lang = command.lang
    if isinstance(command, grammar.Games):
        return _games(reply)
    if isinstance(command, grammar.Join):
        return signup.request_join(reply, command.game, command.seat)
    if isinstance(command, grammar.Takeover):
        return signup.request_takeover(reply, command.game, command.seat)
    if isinstance(command, grammar.Confirm):
        return signup.confirm(reply, command.code)
    if isinstance(command, grammar.SetAbsence):
        return players.request_absence(reply, command.start, command.end)
    if isinstance(command, grammar.CancelAbsence):
        return players.request_cancel(reply)
    if isinstance(command, grammar.SetZone):
        return players.request_zone(reply, command.zone)
    if isinstance(command, grammar.SetLanguage):
        return players.request_language(reply, command.language)
    if isinstance(command, grammar.SetName):
        return players.request_name(reply, command.name)
    if isinstance(command, (grammar.Watch, grammar.Unwatch)):
        return observers.request(reply, command.game, isinstance(command, grammar.Watch))
    if isinstance(command, grammar.JoinLeague):
        return leagues.request_join(reply, command.league)
    if isinstance(command, grammar.Standings):
        return leagues.request_standings(reply, command.league)
    return _malformed(reply, command)


def _malformed(reply: Reply, command: grammar.Malformed) -> Handled:
    lang = reply.lang
    text = t(f"club.bad.{command.reason}", lang, command=command.command, text=quote(command.text, SHORT))
    reply.send(reply.mail.sender or "", t("subject.refused", lang),
               text + "\n\n" + t("club.usage", lang, address=reply.ctx.config.server.address))
    return Handled("refused", f"{command.command.lower()}: {command.reason}")


def games_text(session: Session, reply: Reply, address: str) -> str:
    """GAMES: open games and their free seats, seats open for takeover, the sender's games
    (and requests waiting), the games the sender watches."""
    lang = reply.lang
    lines = [t("club.games_head", lang, address=reply.ctx.config.server.address), ""]
    open_games = list(session.exec(select(Game).where(Game.status == games.OPEN).order_by(col(Game.created_at))))
    lines.append(t("club.games_open", lang))
    shown = 0
    for game in open_games:
        rows = signup.entries(session, game.id)
        free = [e.seat for e in rows if e.status == "open"]
        if free:
            shown += 1
            if shown > MAX_LISTED:
                continue
            lines.append("  " + t("club.games_open_line", lang, game=game.id, name=game.name,
                                  title=store.rules_of(game).info.title, free=", ".join(free),
                                  taken=sum(e.status == "taken" for e in rows), total=len(rows)))
            if reply.ctx.config.club.games_reliability:  # who is seated already, as the game master allows
                lines += ["    " + line for line in reliability.lines(session, [e.player_id for e in rows], lang)]
    _tail(lines, shown, lang)
    lines += ["", t("club.games_takeover", lang)]
    shown = 0
    for game in session.exec(select(Game).where(col(Game.status).in_(("active", "paused"))).order_by(col(Game.created_at))):
        seats = signup.open_for_takeover(session, game)
        if seats:
            shown += 1
            if shown > MAX_LISTED:
                continue
            lines.append("  " + t("club.games_takeover_line", lang, game=game.id, name=game.name,
                                  title=store.rules_of(game).info.title, seats=", ".join(s.name for s in seats)))
    _tail(lines, shown, lang)
    lines += ["", t("club.games_mine", lang)]
    mine = _mine(session, address)
    lines += ["  " + t("club.games_mine_line", lang, game=g.id, name=g.name, seat=seat, status=t(f"status.{g.status}", lang)
                       if g.status != games.OPEN else t("club.status_open", lang)) for g, seat in mine]
    for req in signup.pending_of(session, reply.ctx, address):
        key = "club.games_awaiting" if req.status == signup.AWAITING else "club.games_pending"
        lines.append("  " + t(key, lang, kind=req.kind.upper(), game=req.game_id or "—", seat=req.seat or "—"))
    if not mine:
        lines.append("  " + t("club.games_none", lang))
    seen = watched(session, address)
    if seen:
        lines += ["", t("club.games_watched", lang)]
        lines += [f"  {g.id} — {g.name}" for g in seen]
    return "\n".join(lines)


def _tail(lines: list[str], shown: int, lang: str) -> None:
    if not shown:
        lines.append("  " + t("club.games_none", lang))
    elif shown > MAX_LISTED:
        lines.append("  " + t("club.games_more", lang, count=shown - MAX_LISTED))


def _mine(session: Session, address: str) -> list[tuple[Game, str]]:
    addr = address.strip().lower()
    out: list[tuple[Game, str]] = []
    stmt = (select(Game, Seat).where(Holder.address == addr, Holder.status == "active", Holder.seat_id == Seat.id,
                                     Seat.game_id == Game.id, Game.status != "finished").order_by(col(Game.created_at)))
    out += [(g, s.name) for g, s in session.exec(stmt)]
    for game in session.exec(select(Game).where(Game.status == games.OPEN).order_by(col(Game.created_at))):
        for entry in signup.entries(session, game.id):
            if entry.status == "taken" and addr in signup.entry_addresses(entry):
                out.append((game, entry.seat))
    return out


def _games(reply: Reply) -> Handled:
    address = (reply.mail.sender or "").strip().lower()
    reply.send(address, t("subject.club_games", reply.lang), games_text(reply.session, reply, address))
    return Handled("command", "games")
