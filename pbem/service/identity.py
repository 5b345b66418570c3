"""Who sent this mail? From is trivially forged, so the checks are layered.

Architecture 2.3 and mail.md "Who sent this?". In this order, the first failing check
names the refusal (a key of the refusal texts):

1. always: the block names a known seat (``no-seat``, ``unknown-seat``); the mail has
   exactly one From (``several-from``), and it is the seat's registered address
   (``wrong-sender``); the block carries the seat's secret (``wrong-secret``);
2. ``security.reply_tokens``: any token address among the recipients is a valid token of
   this seat (``token-invalid``, ``token-other-seat``; see `pbem.service.tokens`);
3. ``security.require_dmarc``: the topmost Authentication-Results of our own MTA
   (``security.trusted_authserv_id``) shows dmarc=pass or an aligned dkim=pass
   (``auth-results-missing``, ``dmarc-failed``; see `pbem.mail.auth`);
4. ``security.verify_dkim``: our own DKIM check finds a valid signature aligned with the
   From domain (``dkim-missing``, ``dkim-invalid``, ``dkim-misaligned``).

The cheap checks come first, so a wrong secret never costs a DNS lookup. A refusal
notice goes only to the seat's registered address, never to the (possibly forged)
sender, says what was refused and why, never quotes the mail's body, and is sent at most
once per seat and reason per ``security.refusal_interval``; the inbound row's note
records every refusal, and whether its notice was held back.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import Session, col, func, select

from pbem.config import format_duration, parse_duration
from pbem.db.models import Game, InboundMail, RefusalNotice, Seat
from pbem.mail import auth
from pbem.mail.envelope import Envelope
from pbem.mail.parse import IncomingMail
from pbem.service import store, tokens
from pbem.service.context import Context
from pbem.service.replies import Handled, Reply
from pbem.service.secrets import check_secret
from pbem.service.texts import t

log = logging.getLogger(__name__)

#: Every reason `authenticate` may return, each with a notice text in every language.
REASONS = ("no-seat", "unknown-seat", "several-from", "wrong-sender", "wrong-secret", "token-invalid",
           "token-other-seat", "auth-results-missing", "dmarc-failed", "dkim-missing", "dkim-invalid",
           "dkim-misaligned")

#: The DNS lookup for DKIM keys (dkimpy's ``dnsfunc``); tests replace it.
dns_txt: auth.DnsTxt = auth.dns_txt


def authenticate(ctx: Context, session: Session, mail: IncomingMail, env: Envelope, seat: Seat | None,
                 raw: bytes | None = None) -> str | None:
    """None when the mail may act for the seat, else the reason. ``raw`` (the mail's bytes)
    is needed only for ``verify_dkim``; without it they are read from the inbound row that
    `inbound.handle` has already written in this transaction."""
    if not env.seat:
        return "no-seat"
    if seat is None:
        return "unknown-seat"
    if len(mail.headers.get("from", ())) != 1:
        return "several-from"
    if (mail.sender or "").lower() != seat.address.lower():
        return "wrong-sender"
    if not check_secret(env.secret, seat.secret_hash):
        return "wrong-secret"
    security = ctx.config.security
    if security.reply_tokens:
        reason = tokens.check(session, ctx, mail, seat)
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
        reason = auth.check_dkim(data, from_domain, dns_txt)
        if reason is not None:
            return reason
    return None


def _raw_of(session: Session, mail: IncomingMail) -> bytes | None:
    row = session.exec(select(InboundMail).where(InboundMail.dedupe_key == mail.dedupe_key)).first()
    return row.raw if row is not None else None


def _recent_notice(session: Session, game: Game, seat_name: str, address: str, why: str, since: datetime) -> bool:
    count = session.exec(select(func.count()).select_from(RefusalNotice).where(
        RefusalNotice.game_id == game.id, RefusalNotice.seat == seat_name, RefusalNotice.address == address,
        RefusalNotice.reason == why, col(RefusalNotice.sent_at) > since)).one()
    return bool(count)


def refuse(reply: Reply, game: Game, env: Envelope, seat: Seat | None, why: str) -> Handled:
    """Never answer a possibly forged sender with anything about the seat: the notice
    goes to the seat's registered address (at most one per seat, reason and interval)."""
    session, mail, ctx = reply.session, reply.mail, reply.ctx
    to: str | None = None
    lang = "en"
    text = ""
    if seat is not None:
        to, lang = seat.address, seat.language
        text = t(f"notice.refused.{why}", lang, game=game.id, seat=seat.name, sender=mail.sender or "—",
                 subject=mail.subject or "—")
    else:
        known = {s.address.lower(): s for s in store.seats(session, game.id)}
        member = known.get((mail.sender or "").lower())
        if member is not None:
            to, lang = member.address, member.language
            text = t(f"reply.{why}", lang, game=game.id, seat=env.seat or "—",
                     seats=", ".join(sorted(s.name for s in known.values())))
    note = why
    if to is not None:
        interval = parse_duration(ctx.config.security.refusal_interval)
        now = ctx.now()
        seat_name = seat.name if seat is not None else ""
        if interval.total_seconds() > 0 and _recent_notice(session, game, seat_name, to, why, now - interval):
            note = f"{why}; notice held back (one was sent within {format_duration(interval)})"
        else:
            reply.lang = lang
            if reply.send(to, t("subject.refused", lang), text, kind="refusal"):
                session.add(RefusalNotice(game_id=game.id, seat=seat_name, address=to, reason=why, sent_at=now))
            else:
                note = f"{why}; notice held back by the reply limits"
    log.info("game %s: refused mail from %s for seat %s: %s", game.id, mail.sender, env.seat, note)
    return Handled("refused", note, game.id)
