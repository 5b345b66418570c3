"""The game master by mail (architecture 2.8): a block signed ``GM <secret>`` instead of
``SEAT``, from the game's master (``pbem game master ID EMAIL``, ``--master`` on ``game
new``) or from ``server.game_master``, carrying one command:

``EXTEND <duration>`` (PROROGA), ``PAUSE`` (PAUSA), ``RESUME`` (RIPRENDI), ``FREE <seat>``
(LIBERA), ``APPROVE <address>`` (APPROVA), ``REPLACE <seat> <address>`` (SOSTITUISCI),
``END DRAW|ABANDON`` (FINE PATTA|ABBANDONO), ``ANNOUNCE`` (ANNUNCIA: the lines up to END
are mailed to every seat).

The game's GM secret is checked exactly like a seat's (`identity.identify_master`); a
refused block changes nothing and its notice goes only to a registered address (the
game's master), rate-limited like a seat's (`identity`). The secret is mailed once, in the
transaction that stores its hash (`appoint`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable

from sqlmodel import Session

from pbem.config import parse_duration
from pbem.db.models import Game
from pbem.errors import ConfigError, GameStateError, UserError
from pbem.mail.envelope import Envelope
from pbem.service import games, holders, identity, mailer, store, turns, votes
from pbem.service.context import Context
from pbem.service.replies import SHORT, Handled, quote
from pbem.service.secrets import hash_secret, new_secret
from pbem.service.texts import t, text_of

if TYPE_CHECKING:
    from pbem.service.replies import Reply

log = logging.getLogger(__name__)

#: The most an announcement carries (lines); the envelope's order-line cap bounds it too.
ANNOUNCE_LINES = 200


def appoint(ctx: Context, game_id: str, address: str) -> str:
    """Make ``address`` the game's master and mail it a new GM secret (the old one stops
    working). The mail is queued in the transaction that stores the secret's hash."""
    address = address.strip().lower()
    if "@" not in address or " " in address:
        raise UserError(f"not a mail address: {address!r}")
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        issue(session, ctx, game, address)
        session.commit()
    return t("gm.appointed", "en", game=game_id, address=address)


def issue(session: Session, ctx: Context, game: Game, address: str) -> None:
    """Within the caller's transaction: the secret mail is queued, then the hash stored."""
    lang = ctx.config.server.language
    secret = new_secret(ctx.entropy)
    mailer.queue(session, ctx, to=address, subject=mailer.subject(game, t("subject.gm_secret", lang), None, lang),
                 text=t("gm.secret_mail", lang, game=game.id, name=game.name, secret=secret,
                        address=ctx.config.server.address),
                 kind="welcome", game=game)
    game.master_address = address
    game.master_secret_hash = hash_secret(secret, ctx.entropy(16))
    session.add(game)
    session.flush()
    log.info("game %s: game master by mail is %s", game.id, address)


def handle(reply: "Reply", game: Game, env: Envelope, raw: bytes | None) -> Handled:
    """One block signed GM: authenticate, then one command, answered to the game master."""
    session, ctx = reply.session, reply.ctx
    why = identity.identify_master(ctx, session, reply.mail, env, game, raw)
    if why is not None:
        return refuse(reply, game, why)
    to = (reply.mail.sender or "").lower()
    lang = reply.lang = ctx.config.server.language
    reply.trusted = True
    if env.errors:
        lines = [f"  {t('reply.line', lang, line=n)}: {text_of(m, lang)}" for n, m in env.errors[:20]]
        reply.send(to, t("subject.refused", lang), t("gm.problems", lang, game=game.id) + "\n" + "\n".join(lines))
        return Handled("refused", "GM block problems", game.id)
    if env.command is None or env.command.name not in _COMMANDS:
        reply.send(to, t("subject.gm", lang), t("gm.help", lang, game=game.id))
        return Handled("command", "gm help", game.id)
    name, arg = env.command.name, env.command.arg
    try:
        text = _COMMANDS[name](reply, game, arg or "", env)
    except (GameStateError, UserError) as exc:
        reply.send(to, t("subject.refused", lang), t("gm.not_done", lang, game=game.id, command=name, why=str(exc)))
        return Handled("refused", f"GM {name}: {exc}", game.id)
    reply.send(to, t("subject.gm", lang), text)
    log.info("game %s: the game master's %s by mail", game.id, name)
    return Handled("command", f"gm {name.lower()}", game.id)


def refuse(reply: "Reply", game: Game, why: str) -> Handled:
    """Nothing changes; one notice, at most per interval, to the game's registered master
    (never to a possibly forged sender)."""
    ctx, mail = reply.ctx, reply.mail
    registered = game.master_address or ctx.config.server.game_master
    note = why
    if registered:
        lang = ctx.config.server.language
        text = t(f"notice.refused.{why}", lang, game=game.id, sender=quote(mail.sender, identity.SENDER) or "—")
        held = identity.notice(reply, game, None, why, registered, lang, text)
        note += f"; {held}" if held else ""
    log.info("game %s: refused GM mail from %s: %s", game.id, mail.sender, note)
    return Handled("refused", note, game.id)


def _extend(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    try:
        delta = parse_duration(arg)
    except ConfigError as exc:
        raise UserError(t("gm.bad_duration", reply.lang, text=quote(arg, SHORT), why=str(exc))) from None
    if delta.total_seconds() <= 0:
        raise UserError(t("gm.bad_duration", reply.lang, text=quote(arg, SHORT), why="0"))
    return games.extend_game(reply.session, reply.ctx, game, delta, reply.lang)


def _pause(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    return games.pause_game(reply.session, reply.ctx, game, reply.lang)


def _resume(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    return games.resume_game(reply.session, reply.ctx, game, reply.lang)


def _seat_named(reply: "Reply", game: Game, name: str):  # type: ignore[no-untyped-def]
    seat = store.seat(reply.session, game.id, name)
    if seat is None:
        names = ", ".join(s.name for s in store.seats(reply.session, game.id))
        raise UserError(t("gm.no_seat", reply.lang, game=game.id, seat=quote(name, SHORT), seats=names))
    return seat


def _free(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    from pbem.service import signup

    seat = _seat_named(reply, game, arg)
    signup.free_seat(reply.session, reply.ctx, game, seat)
    return t("gm.freed", reply.lang, game=game.id, seat=seat.name)


def _replace(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    """REPLACE <seat> <address>: the seat's players give way to a new one, welcomed with a
    secret of their own; the seat is back in play."""
    session, ctx = reply.session, reply.ctx
    name, _, address = arg.partition(" ")
    seat = _seat_named(reply, game, name)
    address = address.strip().lower()
    if "@" not in address or len(address) > 254:
        raise UserError(t("gm.bad_address", reply.lang, text=quote(address, SHORT)))
    if game.status == "finished":
        raise GameStateError(t("reply.finished", reply.lang, game=game.id))
    for holder in holders.active(session, seat):
        if holder.address != address:
            holder.status, holder.left_at = holders.REMOVED, ctx.now()
            session.add(holder)
    new, secret = holders.make(session, ctx, seat, address, ctx.config.server.language)
    seat.status, seat.misses = "active", 0
    session.add(seat)
    session.flush()
    games.welcome(session, ctx, game, seat, new, secret, store.current_phase(session, game), store.state_of(game))
    for other in store.seats(session, game.id):
        if other.id != seat.id:
            holders.tell(session, ctx, game, other, lambda lang: t("subject.gm", lang),
                         lambda lang: t("gm.replaced_notice", lang, game=game.id, seat=seat.name, address=address))
    return t("gm.replaced", reply.lang, game=game.id, seat=seat.name, address=address)


def _approve(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    """A takeover confirmed under ``takeover=approve``, or a request to watch under
    ``observers=approved``: whichever that address has waiting."""
    from pbem.service import observers

    watching = observers.approve(reply.session, reply.ctx, game, arg.strip().lower(), reply.lang)
    if watching is not None:
        return watching
    try:
        from pbem.service import signup  # the sign-up by mail (JOIN, TAKEOVER)
    except ImportError:
        signup = None  # type: ignore[assignment]
    approve: Callable[..., str] | None = getattr(signup, "approve", None)
    if approve is None:
        raise UserError(t("gm.approve_unavailable", reply.lang))
    return approve(reply.session, reply.ctx, game, arg.strip().lower())


def _end(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    if game.status == "finished":
        raise GameStateError(t("reply.finished", reply.lang, game=game.id))
    if arg == "DRAW":
        votes.end_game(reply.session, reply.ctx, game, "draw", [], "game_master")
    else:
        votes.end_game(reply.session, reply.ctx, game, "abandoned", [], "game_master")
    return t("gm.ended", reply.lang, game=game.id, result=arg)


def _announce(reply: "Reply", game: Game, arg: str, env: Envelope) -> str:
    words = "\n".join(text for _, text in env.order_lines[:ANNOUNCE_LINES]).strip("\n")
    if not words.strip():
        raise UserError(t("gm.announce_empty", reply.lang))
    count = 0
    for seat in store.seats(reply.session, game.id):
        count += holders.tell(reply.session, reply.ctx, game, seat, lambda lang: t("subject.announcement", lang),
                              lambda lang: t("gm.announcement", lang, game=game.id, name=game.name) + "\n\n" + words)
    return t("gm.announced", reply.lang, game=game.id, count=count)


_COMMANDS: dict[str, Callable[["Reply", Game, str, Envelope], str]] = {
    "EXTEND": _extend, "PAUSE": _pause, "RESUME": _resume, "FREE": _free, "APPROVE": _approve,
    "REPLACE": _replace, "END": _end, "ANNOUNCE": _announce,
}
