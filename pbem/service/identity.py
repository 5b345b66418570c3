"""Who sent this mail? From is trivially forged, so the checks are layered.

Architecture 2.3: the sender must be the seat's registered address AND the block must
carry the seat's secret. Returns None when the mail may act for the seat, else the
reason (a key of the refusal texts).
"""

from __future__ import annotations

from sqlmodel import Session

from pbem.db.models import Seat
from pbem.mail.envelope import Envelope
from pbem.mail.parse import IncomingMail
from pbem.service.context import Context
from pbem.service.secrets import check_secret


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
