"""Who sent this mail? From is trivially forged, so the checks are layered.

Architecture 2.3 and mail.md "Who sent this?". In this order, the first failing check
names the refusal (a key of the refusal texts):

1. always: the block names a known seat (``no-seat``, ``unknown-seat``); the mail has
   exactly one From (``several-from``), and it is the address of one of the seat's
   active holders (``wrong-sender``); the block carries that very holder's secret
   (``wrong-secret``: a team-mate's secret does not work for you);
2. ``security.reply_tokens``: any token address among the recipients is a valid token of
   this holder (``token-invalid``, ``token-other-seat``, ``token-other-holder``; see
   `pbem.service.tokens`);
3. ``security.require_dmarc``: the topmost Authentication-Results of our own MTA
   (``security.trusted_authserv_id``) shows dmarc=pass or an aligned dkim=pass
   (``auth-results-missing``, ``dmarc-failed``; see `pbem.mail.auth`);
4. ``security.verify_dkim``: our own DKIM check finds a valid signature aligned with the
   From domain (``dkim-missing``, ``dkim-invalid``, ``dkim-misaligned``).

The cheap checks come first, so a wrong secret never costs a DNS lookup. A refusal
notice goes only to registered addresses, never to a (possibly forged) sender: when the
From is one of the seat's holders, to that holder alone (never to team-mates); when it
is nobody's, to each holder of the seat. It says what was refused and why, never quotes
the mail's body or its Subject (the sender's address at most a short prefix: nothing
a forger writes reaches a player as a message), and is sent at most once per seat,
address and reason per ``security.refusal_interval`` — and by no other limit, so a flood
of forged mail cannot silence it; the inbound row's note records every refusal, and whether
its notice was held back.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import Session, col, func, select

from pbem.config import format_duration, parse_duration
from pbem.db.models import Game, Holder, InboundMail, RefusalNotice, Seat
from pbem.mail import auth
from pbem.mail.envelope import Envelope
from pbem.mail.parse import IncomingMail
from pbem.service import holders, store, tokens
from pbem.service.context import Context
from pbem.service.replies import SHORT, Handled, Reply, quote
from pbem.service.secrets import check_seat_secret
from pbem.service.texts import t

log = logging.getLogger(__name__)

#: Every reason `authenticate` may return, each with a notice text in every language.
REASONS = ("no-seat", "unknown-seat", "several-from", "wrong-sender", "wrong-secret", "token-invalid",
           "token-other-seat", "token-other-holder",
           "auth-results-missing", "dmarc-failed", "dkim-missing", "dkim-invalid",
           "dkim-misaligned")

#: How much of a refused mail's From address a notice repeats: the fact, never a message.
SENDER = 80

#: The DNS lookup for DKIM keys (dkimpy's ``dnsfunc``); tests replace it.
dns_txt: auth.DnsTxt = auth.dns_txt


def authenticate(ctx: Context, session: Session, mail: IncomingMail, env: Envelope, seat: Seat | None,
                 raw: bytes | None = None) -> str | None:
    """None when the mail may act for the seat, else the reason (see `identify`)."""
    return identify(ctx, session, mail, env, seat, raw)[1]


def identify(ctx: Context, session: Session, mail: IncomingMail, env: Envelope, seat: Seat | None,
             raw: bytes | None = None) -> tuple[Holder | None, str | None]:
    """The holder the mail acts for, or the reason it may not act. ``raw`` (the mail's
    bytes) is needed only for ``verify_dkim``; without it they are read from the inbound
    row that `inbound.handle` has already written in this transaction."""
    if not env.seat:
        return None, "no-seat"
    if seat is None:
        return None, "unknown-seat"
    if len(mail.headers.get("from", ())) != 1:
        return None, "several-from"
    holder = holders.find(session, seat, mail.sender)
    if holder is None:
        return None, "wrong-sender"
    if not check_seat_secret(env.secret, holder.secret_hash):
        return None, "wrong-secret"
    reason = _other_layers(ctx, session, mail, holder, raw)
    return (holder, None) if reason is None else (None, reason)


def identify_master(ctx: Context, session: Session, mail: IncomingMail, env: Envelope, game: Game,
                    raw: bytes | None = None) -> str | None:
    """None when a ``GM <secret>`` block may act as the game's master, else the reason: the
    same layers as a seat's (one From; a registered address, here the game's master or
    ``server.game_master``; the game's GM secret; DMARC and DKIM as configured), with the
    ``gm-`` reasons. The game master has no reply token: the token layer does not apply."""
    if len(mail.headers.get("from", ())) != 1:
        return "gm-several-from"
    sender = (mail.sender or "").strip().lower()
    allowed = {a.strip().lower() for a in (game.master_address, ctx.config.server.game_master) if a.strip()}
    if not sender or sender not in allowed:
        return "gm-wrong-sender"
    if not game.master_secret_hash or not check_seat_secret(env.gm_secret, game.master_secret_hash):
        return "gm-wrong-secret"
    return _other_layers(ctx, session, mail, None, raw)


def _other_layers(ctx: Context, session: Session, mail: IncomingMail, holder: Holder | None,
                  raw: bytes | None) -> str | None:
    security = ctx.config.security
    if security.reply_tokens and holder is not None:
        reason = tokens.check(session, ctx, mail, holder)
        if reason is not None:
            return reason
    from_domain = auth.domain_of(mail.sender)
    if security.require_dmarc:
        if not security.trusted_authserv_id:
            log.warning("security.require_dmarc is on but security.trusted_authserv_id is empty: "
                        "no Authentication-Results can be trusted, every mail is refused")
        reason = auth.check_authentication_results(mail.headers.get("authentication-results", ()),
                                                   security.trusted_authserv_id, from_domain)
        if reason is not None:
            return reason
    if security.verify_dkim:
        data = raw if raw is not None else _raw_of(session, mail)
        if data is None:
            return "dkim-missing"
        return auth.check_dkim(data, from_domain, dns_txt)
    return None


def _raw_of(session: Session, mail: IncomingMail) -> bytes | None:
    row = session.exec(select(InboundMail).where(InboundMail.dedupe_key == mail.dedupe_key)).first()
    return row.raw if row is not None else None


def _recent_notice(session: Session, game: Game, seat_name: str, address: str, why: str, since: datetime) -> bool:
    count = session.exec(select(func.count()).select_from(RefusalNotice).where(
        RefusalNotice.game_id == game.id, RefusalNotice.seat == seat_name, RefusalNotice.address == address,
        RefusalNotice.reason == why, col(RefusalNotice.sent_at) > since)).one()
    return bool(count)


def _games_of(session: Session, address: str) -> int:
    """In how many games ``address`` holds a seat now."""
    rows = session.exec(select(Holder.game_id).where(Holder.address == address, Holder.status == holders.ACTIVE))
    return len(set(rows))


def _notified(session: Session, seat: Seat, sender: str | None) -> list[Holder]:
    """Who is told of a refused mail for ``seat``: the sending holder alone, when the From
    is one of them; else (a stranger, or a forger) each holder of the seat."""
    own = holders.find(session, seat, sender)
    return [own] if own is not None else holders.recipients(session, seat)


def refuse(reply: Reply, game: Game, env: Envelope, seat: Seat | None, why: str) -> Handled:
    """Never answer a possibly forged sender with anything about the seat: the notice
    goes to registered addresses only (at most one per seat, address, reason and interval)."""
    session, mail = reply.session, reply.mail
    notices: list[tuple[str, str, str]] = []  # address, language, text
    if seat is not None:
        for holder in _notified(session, seat, mail.sender):
            text = t(f"notice.refused.{why}", holder.language, game=game.id, seat=seat.name,
                     sender=quote(mail.sender, SENDER) or "—")
            played = _games_of(session, holder.address) if why == "wrong-secret" else 0
            if played > 1:  # a secret from another game's welcome is the likely mistake
                text += "\n\n" + t("notice.secret_per_game", holder.language, count=played, game=game.id,
                                    seat=seat.name)
            notices.append((holder.address, holder.language, text))
    else:
        member = holders.in_game(session, game.id, mail.sender or "")
        if member:
            lang = member[0].language
            notices.append((member[0].address, lang, t(
                f"reply.{why}", lang, game=game.id, seat=quote(env.seat, SHORT) or "—",
                seats=", ".join(sorted(s.name for s in store.seats(session, game.id))))))
    held = [_notice(reply, game, seat, why, to, lang, text) for to, lang, text in notices]
    note = why + "".join(sorted({f"; {h}" for h in held if h}))
    log.info("game %s: refused mail from %s for seat %s: %s", game.id, mail.sender, env.seat, note)
    return Handled("refused", note, game.id)


def notice(reply: Reply, game: Game, seat: Seat | None, why: str, to: str, lang: str, text: str) -> str:
    """Queue one refusal notice under the rate limit (`_notice`): for the game master's
    refusals too (`pbem.service.master`, ``seat`` None)."""
    return _notice(reply, game, seat, why, to, lang, text)


def _notice(reply: Reply, game: Game, seat: Seat | None, why: str, to: str, lang: str, text: str) -> str:
    """Queue one refusal notice unless one went to ``to`` lately; returns why it was held back."""
    session, ctx = reply.session, reply.ctx
    interval = parse_duration(ctx.config.security.refusal_interval)
    now = ctx.now()
    seat_name = seat.name if seat is not None else ""
    if interval.total_seconds() > 0 and _recent_notice(session, game, seat_name, to, why, now - interval):
        return f"notice held back (one was sent within {format_duration(interval)})"
    reply.lang = lang
    # a thread of its own: the refused mail may be a stranger's, which the reader never saw
    if not reply.send(to, t("subject.refused", lang), text, kind="refusal", thread=False):
        return "notice held back by the reply limits"
    session.add(RefusalNotice(game_id=game.id, seat=seat_name, address=to, reason=why, sent_at=now))
    session.flush()  # the next notice of this mail counts it
    return ""
