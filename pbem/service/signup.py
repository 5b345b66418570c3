"""Sign-up by mail (architecture 2.8): JOIN an open game, TAKEOVER an abandoned or freed
seat, CONFIRM with the one-time code; the start of an open game; a seat freed by the game
master.

Anybody can forge a From, so nothing here takes a seat on a mail's word: a request mails a
one-time code to the address it names, and only ``CONFIRM <code>`` coming back from that
address acts. The code is random (as a seat's secret), kept only as a salted hash, compared
in constant time, used once and expires (``club.confirm_within``). The request's answer *is*
the code mail, and an address gets at most one per hour (counted from `SignupRequest`), so a
forger can make the server mail a third party at most that. Players' own settings (ABSENCE,
SET ZONE, SET LANGUAGE; `pbem.service.players`) are confirmed the same way.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import Sequence

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.config import format_duration, parse_duration
from pbem.core.i18n import normalise_language
from pbem.db.models import Game, Holder, Player, SeatEntry, Seat, SignupRequest
from pbem.errors import GameStateError, NotFoundError, UserError
from pbem.service import games, holders, store, turns
from pbem.service.context import Context
from pbem.service.replies import SHORT, Handled, Reply, quote
from pbem.service.secrets import check_secret, hash_secret, new_secret
from pbem.service.texts import t
from pbem.service.timefmt import show

log = logging.getLogger(__name__)

#: The outbox kind of a mail carrying a one-time code (limited here, not by `limits`).
CODE_KIND = "signup"
#: One code mail per address in this time: all a forged From can make us send to a third party.
CODE_WINDOW = timedelta(hours=1)
#: How many of an address's recent requests a CONFIRM is checked against.
MAX_CHECKED = 20
PENDING, CONFIRMED, AWAITING, DONE, VOID = "pending", "confirmed", "awaiting", "done", "void"
JOIN, TAKEOVER = "join", "takeover"


# --- the one-time codes -------------------------------------------------------------------


def codes_mailed(session: Session, ctx: Context, address: str | None = None) -> int:
    """Code mails in the last `CODE_WINDOW`: to ``address``, or to anybody."""
    stmt = select(func.count()).select_from(SignupRequest).where(
        col(SignupRequest.mailed).is_(True), col(SignupRequest.created_at) > ctx.now() - CODE_WINDOW)
    if address is not None:
        stmt = stmt.where(SignupRequest.address == address.strip().lower())
    return int(session.exec(stmt).one())


def ask(reply: Reply, kind: str, game: Game | None, seat: str, payload: str, what: str) -> Handled:
    """Record a request of ``reply``'s sender and mail its code to that address — unless the
    address had a code mail within the hour (or everybody's budget for strangers is spent):
    then nothing is mailed at all, and the request is void. ``what``: the request in words."""
    session, ctx, lang = reply.session, reply.ctx, reply.lang
    address = (reply.mail.sender or "").strip().lower()
    now = ctx.now()
    req = SignupRequest(game_id=game.id if game is not None else None, seat=seat, address=address, kind=kind,
                        payload=payload, created_at=now, status=VOID,
                        expires_at=now + parse_duration(ctx.config.club.confirm_within))
    note = f"{kind} {game.id if game is not None else ''} {seat} {payload}".strip()
    if codes_mailed(session, ctx, address) >= 1:
        session.add(req)
        log.info("%s for %s: no code mailed, one went there within the hour", kind, address)
        reply.send(address, t("subject.refused", lang), t("club.code_held", lang, what=what))  # the strangers' budget
        return Handled("refused", f"{note}: a code was mailed to this address within the hour; none sent",
                       game.id if game is not None else None)
    if codes_mailed(session, ctx) >= ctx.config.limits.strangers_per_hour:
        session.add(req)
        log.warning("%s for %s: no code mailed, the hour's budget for codes is spent", kind, address)
        return Handled("refused", f"{note}: the hour's budget of code mails is spent; none sent",
                       game.id if game is not None else None)
    code = new_secret(ctx.entropy)
    req.code_hash, req.status, req.mailed = hash_secret(code, ctx.entropy(16)), PENDING, True
    session.add(req)
    text = t("club.code", lang, what=what, code=code, address=ctx.config.server.address,
             until=show(req.expires_at, ctx.config.server.timezone, lang),
             within=format_duration(parse_duration(ctx.config.club.confirm_within)))
    reply.game = game
    reply.send(address, t("subject.club_code", lang), text, kind=CODE_KIND, unlimited=True, thread=False)
    return Handled("command", f"{note}: code mailed", game.id if game is not None else None)


def _matching(session: Session, ctx: Context, address: str, code: str) -> SignupRequest | None:
    """The address's request whose code this is (pending or not; the caller tells which)."""
    stmt = (select(SignupRequest).where(SignupRequest.address == address, col(SignupRequest.mailed).is_(True))
            .order_by(col(SignupRequest.id).desc()).limit(MAX_CHECKED))
    found = None
    for req in session.exec(stmt):
        if check_secret(code, req.code_hash) and found is None:  # every row checked: time does not tell which
            found = req
    return found


def confirm(reply: Reply, code: str) -> Handled:
    """CONFIRM <code> from the address the code was mailed to: the request acts, once."""
    session, ctx, lang = reply.session, reply.ctx, reply.lang
    address = (reply.mail.sender or "").strip().lower()
    req = _matching(session, ctx, address, code)
    if req is None:
        reply.send(address, t("subject.refused", lang), t("club.code_wrong", lang))
        return Handled("refused", "confirm: no such code for this address")
    if req.status != PENDING:
        reply.send(address, t("subject.refused", lang), t("club.code_used", lang))
        return Handled("refused", "confirm: code already used", req.game_id)
    assert req.expires_at is not None
    if ctx.now() >= req.expires_at:
        req.status = VOID
        session.add(req)
        reply.send(address, t("subject.refused", lang), t("club.code_expired", lang))
        return Handled("refused", "confirm: code expired", req.game_id)
    # The code came back from its address: the sender is who the request named.
    req.status, req.used_at = CONFIRMED, ctx.now()
    session.add(req)
    reply.trusted = True
    if req.kind in (JOIN, TAKEOVER) and req.payload in ("en", "it") and \
            session.exec(select(Player).where(Player.address == address)).first() is None:
        reply.lang = req.payload  # a newcomer keeps the language they asked in (ENTRA: Italian)
    if req.kind == JOIN:
        return _confirm_join(reply, req)
    if req.kind == TAKEOVER:
        return _confirm_takeover(reply, req)
    if req.kind == "league":
        from pbem.service import leagues

        return leagues.confirm_join(reply, req)
    if req.kind in ("watch", "unwatch"):
        from pbem.service import observers

        return observers.apply(reply, req)
    from pbem.service import players

    return players.apply(reply, req)


def _refuse(reply: Reply, key: str, note: str, game: Game | None = None, **args: object) -> Handled:
    reply.game = game or reply.game
    reply.send(reply.mail.sender or "", t("subject.refused", reply.lang), t(key, reply.lang, **args))
    return Handled("refused", note, game.id if game is not None else None)


# --- JOIN -----------------------------------------------------------------------------------


def entries(session: Session, game_id: str) -> list[SeatEntry]:
    return list(session.exec(select(SeatEntry).where(SeatEntry.game_id == game_id).order_by(col(SeatEntry.id))))


def entry_addresses(entry: SeatEntry) -> list[str]:
    return [entry.address, *(a for a, _ in json.loads(entry.team_json or "[]"))] if entry.status == "taken" else []


def _holds(session: Session, game: Game, address: str) -> str | None:
    """The seat ``address`` holds (or has taken) in ``game``, if any."""
    if game.status == games.OPEN:
        return next((e.seat for e in entries(session, game.id) if address in entry_addresses(e)), None)
    rows = holders.in_game(session, game.id, address)
    if not rows:
        return None
    seat_row = session.get(Seat, rows[0].seat_id)
    return seat_row.name if seat_row is not None else None


def _free_list(rows: Sequence[SeatEntry]) -> str:
    return ", ".join(e.seat for e in rows if e.status == "open") or "—"


def _find_game(session: Session, game_id: str) -> Game | None:
    return session.get(Game, game_id.strip().lower())


def _pending(session: Session, ctx: Context, game: Game, address: str) -> SignupRequest | None:
    return session.exec(select(SignupRequest).where(
        SignupRequest.game_id == game.id, SignupRequest.address == address,
        col(SignupRequest.status).in_((PENDING, AWAITING)),
        col(SignupRequest.expires_at) > ctx.now())).first()


def request_join(reply: Reply, game_id: str, seat: str | None) -> Handled:
    """JOIN <game> [<seat>]: every check first (each a specific answer, nothing changed),
    then the code mail."""
    session, ctx = reply.session, reply.ctx
    address = (reply.mail.sender or "").strip().lower()
    if not ctx.config.club.may_sign_up(address):
        return _refuse(reply, "club.not_on_roster", f"join {quote(game_id, SHORT)}: not on the roster")
    game = _find_game(session, game_id)
    if game is None:
        return _refuse(reply, "club.no_game", f"join: no game {quote(game_id, SHORT)}", game=None,
                       game_id=quote(game_id, SHORT))
    if game.status != games.OPEN:
        key = "club.join_finished" if game.status == "finished" else "club.join_started"
        return _refuse(reply, key, f"join {game.id}: game {game.status}", game, game_id=game.id)
    held = _holds(session, game, address)
    if held is not None:
        return _refuse(reply, "club.already_in", f"join {game.id}: already holds {held}", game,
                       game_id=game.id, seat=held)
    rows = entries(session, game.id)
    if seat is not None:
        entry = next((e for e in rows if e.seat == seat), None)
        if entry is None:
            return _refuse(reply, "club.no_seat", f"join {game.id}: no seat {quote(seat, SHORT)}", game,
                           game_id=game.id, seat=quote(seat, SHORT), seats=", ".join(e.seat for e in rows))
        if entry.status != "open":
            return _refuse(reply, "club.seat_taken", f"join {game.id}: seat {seat} taken", game,
                           game_id=game.id, seat=seat, free=_free_list(rows))
    elif not any(e.status == "open" for e in rows):
        return _refuse(reply, "club.full", f"join {game.id}: full", game, game_id=game.id)
    if _pending(session, ctx, game, address) is not None:
        return _refuse(reply, "club.already_asked", f"join {game.id}: a request is pending", game, game_id=game.id)
    rules = store.rules_of(game)
    what = t("club.what_join", reply.lang, game=game.id, name=game.name, title=rules.info.title,
             seat=seat or t("club.any_seat", reply.lang))
    return ask(reply, JOIN, game, seat or "", reply.lang, what)


def _confirm_join(reply: Reply, req: SignupRequest) -> Handled:
    """The seat is taken now, if still free (the checks again: time passed since the JOIN)."""
    session, ctx = reply.session, reply.ctx
    assert req.game_id is not None
    game = store.get_game(session, req.game_id, lock=True)
    if game.status != games.OPEN:
        return _refuse(reply, "club.join_started", f"confirm join {game.id}: game {game.status}", game,
                       game_id=game.id)
    held = _holds(session, game, req.address)
    if held is not None:
        return _refuse(reply, "club.already_in", f"confirm join {game.id}: already holds {held}", game,
                       game_id=game.id, seat=held)
    rows = entries(session, game.id)
    free = [e for e in rows if e.status == "open" and (not req.seat or e.seat == req.seat)]
    if not free:
        key = "club.seat_taken" if req.seat else "club.full"
        return _refuse(reply, key, f"confirm join {game.id}: no free seat", game, game_id=game.id,
                       seat=req.seat, free=_free_list(rows))
    entry = free[0]
    player = store.player_for(session, req.address, reply.lang)
    entry.status, entry.player_id, entry.address, entry.language = "taken", player.id, req.address, player.language
    entry.taken_at = ctx.now()
    session.add(entry)
    req.status = DONE
    session.add(req)
    session.flush()
    left = [e for e in rows if e.status == "open"]
    reply.game = game
    if not left:
        start_game(session, ctx, game)
        reply.send(req.address, t("subject.club_joined", reply.lang),
                   t("club.joined_started", reply.lang, game=game.id, name=game.name, seat=entry.seat))
        return Handled("command", f"join {game.id}: {req.address} took {entry.seat}; the game started", game.id)
    reply.send(req.address, t("subject.club_joined", reply.lang),
               t("club.joined", reply.lang, game=game.id, name=game.name, seat=entry.seat, free=_free_list(rows),
                 count=len(left)))
    return Handled("command", f"join {game.id}: {req.address} took {entry.seat}", game.id)


# --- the start of an open game ------------------------------------------------------------------


def start_game(session: Session, ctx: Context, game: Game) -> list[str]:
    """Start an open game with its taken seats (the free ones are left out); the seat count
    must suit the rules. Returns the seats. The caller commits."""
    rows = [e for e in entries(session, game.id) if e.status == "taken"]
    rules = store.rules_of(game)
    games.check_seats(rules.info, [e.seat for e in rows])
    order = {s: i for i, s in enumerate(rules.info.seats)}
    specs = [games.SeatSpec(e.seat, e.address, e.language or None,
                            tuple(games.HolderSpec(a, lang or None) for a, lang in json.loads(e.team_json or "[]")))
             for e in sorted(rows, key=lambda e: order.get(e.seat, len(order)))]
    games.begin(session, ctx, game, specs)
    for req in session.exec(select(SignupRequest).where(SignupRequest.game_id == game.id,
                                                        SignupRequest.status == PENDING,
                                                        SignupRequest.kind == JOIN)):
        req.status = VOID  # the game began: a late CONFIRM is told so
        session.add(req)
    log.info("open game %s started with seats %s", game.id, ", ".join(s.seat for s in specs))
    return [s.seat for s in specs]


def start(ctx: Context, game_id: str) -> str:
    """``pbem game start ID``: the game master starts an open game with the seats taken so far."""
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        if game.status != games.OPEN:
            raise GameStateError(f"game {game.id} is {game.status}, not open for sign-up")
        seats = start_game(session, ctx, game)
        session.commit()
    ctx.after_commit()
    return f"game {game_id} started with the seats {', '.join(seats)}"


# --- TAKEOVER, freeing a seat, APPROVE ----------------------------------------------------------


def open_for_takeover(session: Session, game: Game) -> list[Seat]:
    """The seats of a running game that a player may take over: abandoned or freed ones."""
    if game.status not in ("active", "paused"):
        return []
    return [s for s in store.seats(session, game.id) if s.status == "abandoned"]


def request_takeover(reply: Reply, game_id: str, seat_name: str) -> Handled:
    session, ctx = reply.session, reply.ctx
    address = (reply.mail.sender or "").strip().lower()
    if not ctx.config.club.may_sign_up(address):
        return _refuse(reply, "club.not_on_roster", f"takeover {quote(game_id, SHORT)}: not on the roster")
    game = _find_game(session, game_id)
    if game is None:
        return _refuse(reply, "club.no_game", f"takeover: no game {quote(game_id, SHORT)}", None,
                       game_id=quote(game_id, SHORT))
    if game.status == games.OPEN:
        return _refuse(reply, "club.takeover_open", f"takeover {game.id}: not started", game, game_id=game.id)
    if game.status == "finished":
        return _refuse(reply, "club.join_finished", f"takeover {game.id}: finished", game, game_id=game.id)
    seat_row = store.seat(session, game.id, seat_name)
    if seat_row is None:
        return _refuse(reply, "club.no_seat", f"takeover {game.id}: no seat {quote(seat_name, SHORT)}", game,
                       game_id=game.id, seat=quote(seat_name, SHORT),
                       seats=", ".join(s.name for s in store.seats(session, game.id)))
    held = _holds(session, game, address)
    if held is not None:
        return _refuse(reply, "club.already_in", f"takeover {game.id}: already holds {held}", game,
                       game_id=game.id, seat=held)
    if seat_row.status != "abandoned":
        free = ", ".join(s.name for s in open_for_takeover(session, game)) or "—"
        return _refuse(reply, "club.seat_held", f"takeover {game.id}: seat {seat_row.name} is held", game,
                       game_id=game.id, seat=seat_row.name, free=free)
    if _pending(session, ctx, game, address) is not None:
        return _refuse(reply, "club.already_asked", f"takeover {game.id}: a request is pending", game,
                       game_id=game.id)
    rules = store.rules_of(game)
    what = t("club.what_takeover", reply.lang, game=game.id, name=game.name, title=rules.info.title,
             seat=seat_row.name)
    return ask(reply, TAKEOVER, game, seat_row.name, reply.lang, what)


def _confirm_takeover(reply: Reply, req: SignupRequest) -> Handled:
    session, ctx, lang = reply.session, reply.ctx, reply.lang
    assert req.game_id is not None
    game = store.get_game(session, req.game_id, lock=True)
    reply.game = game
    seat_row = store.seat(session, game.id, req.seat)
    if game.status not in ("active", "paused") or seat_row is None or seat_row.status != "abandoned":
        return _refuse(reply, "club.takeover_gone", f"confirm takeover {game.id}: seat no longer open", game,
                       game_id=game.id, seat=req.seat)
    if json.loads(game.policy_json).get("takeover", "auto") == "approve":
        req.status = AWAITING
        session.add(req)
        _tell_master(reply, game, req)
        reply.send(req.address, t("subject.club_takeover", lang),
                   t("club.takeover_awaiting", lang, game=game.id, seat=seat_row.name))
        return Handled("command", f"takeover {game.id} {seat_row.name}: awaits the game master", game.id)
    take_over(session, ctx, game, seat_row, req.address, lang)
    req.status = DONE
    session.add(req)
    reply.send(req.address, t("subject.club_takeover", lang), t("club.takeover_done", lang, game=game.id,
                                                                 seat=seat_row.name))
    return Handled("command", f"takeover {game.id} {seat_row.name}: given to {req.address}", game.id)


def _tell_master(reply: Reply, game: Game, req: SignupRequest) -> None:
    """The game master learns who waits for APPROVE: the game's own master (``pbem game
    master``), else ``server.game_master``; nobody: logged."""
    master = game.master_address or reply.ctx.config.server.game_master
    if not master:
        log.warning("game %s: takeover of %s by %s awaits approval, and no game master is configured",
                    game.id, req.seat, req.address)
        return
    from pbem.service import mailer

    lang = reply.ctx.config.server.language  # the game master's mail is in the server's language (pbem.service.master)
    mailer.queue(reply.session, reply.ctx, to=master, subject=mailer.subject(game, t("subject.club_approve", lang),
                                                                              None, lang),
                 text=t("club.approve_asked", lang, game=game.id, seat=req.seat, address=req.address),
                 kind="notice", game=game)


def take_over(session: Session, ctx: Context, game: Game, seat_row: Seat, address: str, lang: str) -> Holder:
    """Give the seat to ``address``: the former holders are removed, the new one welcomed with
    a new secret, the position and the seat's history (as the seat may see it), queued in
    this transaction; every other seat is told."""
    from pbem.service.history import history_text

    now = ctx.now()
    for old in holders.active(session, seat_row):
        old.status, old.left_at = holders.REMOVED, now
        session.add(old)
    holder, secret = holders.make(session, ctx, seat_row, address, lang)
    seat_row.status, seat_row.misses = "active", 0
    seat_row.player_id, seat_row.address, seat_row.language = holder.player_id, holder.address, holder.language
    session.add(seat_row)
    session.flush()
    state = store.state_of(game)
    phase = store.current_phase(session, game)
    history = history_text(session, game, seat_row, holder.language) or ""
    games.welcome(session, ctx, game, seat_row, holder, secret, phase, state,
                  extra=["", t("club.takeover_history", holder.language, seat=seat_row.name), "", history])
    for other in store.seats(session, game.id):
        if other.id != seat_row.id:
            holders.tell(session, ctx, game, other, lambda lg: t("subject.club_replaced", lg),
                         lambda lg: t("club.notice_replaced", lg, game=game.id, seat=seat_row.name))
    log.info("game %s: seat %s taken over by %s", game.id, seat_row.name, address)
    return holder


def approve(session: Session, ctx: Context, game: Game, address: str, lang: str | None = None) -> str:
    """The game master's ``APPROVE <address>``: the takeover that address confirmed (under
    the policy ``takeover=approve``) is carried out. Returns the answer in ``lang``, the game
    master's (by default the server's language, as every mail to the game master); the new
    player is welcomed in theirs: a known player's own, else the one they asked in. The
    caller commits. Nothing changes when nothing awaits approval."""
    lang = lang or ctx.config.server.language
    addr = address.strip().lower()
    req = session.exec(select(SignupRequest).where(
        SignupRequest.game_id == game.id, SignupRequest.address == addr, SignupRequest.kind == TAKEOVER,
        SignupRequest.status == AWAITING).order_by(col(SignupRequest.id).desc())).first()
    if req is None:
        return t("club.approve_none", lang, game=game.id, address=quote(addr, SHORT))
    seat_row = store.seat(session, game.id, req.seat)
    if game.status not in ("active", "paused") or seat_row is None or seat_row.status != "abandoned":
        req.status = VOID
        session.add(req)
        return t("club.approve_gone", lang, game=game.id, seat=req.seat, address=addr)
    asked_in = normalise_language(req.payload or ctx.config.server.language)  # TAKEOVER keeps the language asked in
    player = store.player_for(session, addr, asked_in)
    take_over(session, ctx, game, seat_row, addr, player.language)
    req.status, req.used_at = DONE, ctx.now()
    session.add(req)
    return t("club.approve_done", lang, game=game.id, seat=seat_row.name, address=addr)


def free(ctx: Context, game_id: str, seat_name: str) -> str:
    """``pbem game seat free ID SEAT``: `free_seat` in a transaction of its own."""
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        seat_row = store.seat(session, game.id, seat_name)
        if seat_row is None and game.status in ("active", "paused"):
            names = ", ".join(s.name for s in store.seats(session, game.id))
            raise NotFoundError(f"game {game.id} has no seat {seat_name!r} (seats: {names})")
        if seat_row is None:
            raise GameStateError(f"game {game.id} is {game.status}: only a running game's seats can be freed")
        gone = free_seat(session, ctx, game, seat_row)
        session.commit()
    ctx.after_commit()
    return f"seat {seat_name} of game {game_id} is free for takeover ({gone} player(s) removed and told)"


def free_seat(session: Session, ctx: Context, game: Game, seat_row: Seat) -> int:
    """The game master frees a seat (the command line, or FREE by mail): its players are
    removed and told, every other seat learns it is free, its default orders play, and it is
    open for takeover (GAMES lists it). Returns how many players were removed; the caller
    commits."""
    from pbem.service import mailer

    if game.status not in ("active", "paused"):
        raise GameStateError(f"game {game.id} is {game.status}: only a running game's seats can be freed")
    gone = holders.active(session, seat_row)
    if seat_row.status == "abandoned" and not gone:
        raise UserError(f"seat {seat_row.name} of game {game.id} is already open for takeover")
    for holder in gone:
        mailer.queue(session, ctx, to=holder.address,
                     subject=mailer.subject(game, t("subject.club_freed", holder.language)),
                     text=t("club.freed", holder.language, game=game.id, seat=seat_row.name), kind="notice", game=game,
                     seat=seat_row.name)
        holder.status, holder.left_at = holders.REMOVED, ctx.now()
        session.add(holder)
    seat_row.status = "abandoned"
    session.add(seat_row)
    for other in store.seats(session, game.id):
        if other.id != seat_row.id:
            holders.tell(session, ctx, game, other, lambda lang: t("subject.abandoned", lang),
                         lambda lang: t("gm.freed_notice", lang, game=game.id, seat=seat_row.name))
    session.flush()
    log.info("game %s: seat %s freed for takeover", game.id, seat_row.name)
    turns.resolve_if_ready(session, ctx, game)
    return len(gone)


def pending_of(session: Session, ctx: Context, address: str) -> list[SignupRequest]:
    """The address's requests still waiting for a code or the game master (for GAMES)."""
    return list(session.exec(select(SignupRequest).where(
        SignupRequest.address == address.strip().lower(), col(SignupRequest.status).in_((PENDING, AWAITING)),
        col(SignupRequest.expires_at) > ctx.now())))

