"""Who sent this mail? From is trivially forged, so the checks are layered.

Architecture 2.3: the sender must be the seat's registered address AND the block must
carry the seat's secret. Returns None when the mail may act for the seat, else the
reason (a key of the refusal texts).
"""

from __future__ import annotations

import logging

from sqlmodel import Session

from pbem.db.models import Game, Seat
from pbem.mail.envelope import Envelope
from pbem.mail.parse import IncomingMail
from pbem.service import store
from pbem.service.context import Context
from pbem.service.replies import Handled, Reply
from pbem.service.secrets import check_secret
from pbem.service.texts import t

log = logging.getLogger(__name__)


def authenticate(ctx: Context, session: Session, mail: IncomingMail, env: Envelope, seat: Seat | None) -> str | None:
    if not env.seat:
        return "no-seat"
    if seat is None:
        return "unknown-seat"
    if (mail.sender or "").lower() != seat.address.lower():
        return "wrong-sender"
    if not check_secret(env.secret, seat.secret_hash):
        return "wrong-secret"
    return None


def refuse(reply: Reply, game: Game, env: Envelope, seat: Seat | None, why: str) -> Handled:
    """Never answer a possibly forged sender with anything about the seat: the notice
    goes to the seat's registered address."""
    session, mail = reply.session, reply.mail
    if seat is not None:
        reply.lang = seat.language
        reply.send(seat.address, t("subject.refused", seat.language),
                   t(f"notice.refused.{why}", seat.language, game=game.id, seat=seat.name, sender=mail.sender,
                     subject=mail.subject or "—"), kind="refusal")
    else:
        known = {s.address.lower(): s for s in store.seats(session, game.id)}
        member = known.get((mail.sender or "").lower())
        if member is not None:
            reply.lang = member.language
            reply.send(member.address, t("subject.refused", member.language),
                       t(f"reply.{why}", member.language, game=game.id, seat=env.seat or "—",
                         seats=", ".join(sorted(s.name for s in known.values()))), kind="refusal")
    log.info("game %s: refused mail from %s for seat %s: %s", game.id, mail.sender, env.seat, why)
    return Handled("refused", why, game.id)
