"""Per-holder reply addresses: ``<local>+<token>@<domain>`` (``security.reply_tokens``).

The token is ``<holder id in base 36>.<HMAC>``: the holder's row id, and 80 bits of
HMAC-SHA256 over the game, the seat's name, the seat's id and the holder's id, so a token
can be neither guessed nor made up for another seat or another holder of the same seat
(a team: each player has a token of their own, as they have a secret of their own). The
key is read from the environment variable named by ``security.token_key_env``; without
it, a random key is drawn once and kept in the ``setting`` table. Changing the key
invalidates every token already sent.

Tokens made before teams (``<seat id>.<HMAC over game, seat name, seat id>``, with
another prefix inside the HMAC, so neither kind can pass for the other) stay valid: they
belong to the seat's first holder, the only address they were ever sent to.

Every mail to a holder carries ``Reply-To: <its token address>`` (see `mailer.queue`). An
inbound mail whose To, Cc, Delivered-To or X-Original-To holds an address of ours with a
``+`` must carry a valid token of the very holder who sends it: a garbled or made-up
token is ``token-invalid``, another seat's token is ``token-other-seat``, the token of a
team-mate is ``token-other-holder``.

A valid token is an extra proof, never a replacement for the secret: tokens travel in
headers (forwards, mailing-list archives, a shared mailbox), so they are not kept secret
the way the holder's secret is. A mail without any token is judged on the other checks.
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import hmac
import logging
import os
import re

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.db.models import Game, Holder, Seat, Setting
from pbem.mail.parse import IncomingMail
from pbem.service.context import Context

log = logging.getLogger(__name__)

KEY_SETTING = "reply_token_key"
_MAC_CHARS = 16  # base32 characters: 80 bits
_TOKEN = re.compile(r"^([0-9a-z]{1,12})\.([a-z2-7]{16})$")
#: Headers naming where the mail was sent; Delivered-To and X-Original-To are the MTA's.
RECIPIENT_HEADERS = ("to", "cc", "delivered-to", "x-original-to")


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def token_key(session: Session, ctx: Context) -> bytes:
    """The HMAC key: from the environment variable, else kept in the database (made once)."""
    name = ctx.config.security.token_key_env
    from_env = os.environ.get(name) if name else None
    if from_env:
        return from_env.encode("utf-8")
    row = session.get(Setting, KEY_SETTING)
    if row is None:
        try:
            with session.begin_nested():  # another worker may create it at the same moment
                session.add(Setting(name=KEY_SETTING, value=ctx.entropy(32).hex()))
        except IntegrityError:
            pass
        row = session.get(Setting, KEY_SETTING)
        assert row is not None
        log.info("made a new key for the per-seat reply addresses (kept in the database)")
    return bytes.fromhex(row.value)


def _digest(key: bytes, message: str) -> str:
    digest = hmac.new(key, message.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:_MAC_CHARS]


def _mac(key: bytes, holder: Holder, seat: Seat) -> str:
    return _digest(key, f"pbem-reply-v2|{seat.game_id}|{seat.name}|{seat.id}|{holder.id}")


def _seat_mac(key: bytes, seat: Seat) -> str:
    """The tokens made before teams: one per seat."""
    return _digest(key, f"pbem-reply-v1|{seat.game_id}|{seat.name}|{seat.id}")


def token_for(session: Session, ctx: Context, holder: Holder) -> str:
    if holder.id is None:
        session.flush()
    assert holder.id is not None
    seat = session.get(Seat, holder.seat_id)
    assert seat is not None
    return f"{_base36(holder.id)}.{_mac(token_key(session, ctx), holder, seat)}"


def _base(ctx: Context) -> tuple[str, str]:
    local, _, domain = ctx.config.server.address.rpartition("@")
    return local, domain


def reply_address(session: Session, ctx: Context, holder: Holder) -> str:
    """``pbem+3.k2j4...@domain``: the address a holder's replies go to."""
    local, domain = _base(ctx)
    return f"{local}+{token_for(session, ctx, holder)}@{domain}"


def reply_to_for(session: Session, ctx: Context, game: Game | None, to: str) -> str | None:
    """The Reply-To of a mail to ``to`` about ``game``: the token address of the holder with
    that address, when tokens are on and exactly one holder in the game has it (a player
    who left an abandoned seat still gets its reports, with that seat's token)."""
    if not ctx.config.security.reply_tokens or game is None:
        return None
    rows = list(session.exec(select(Holder).where(Holder.game_id == game.id, Holder.address == to.lower(),
                                                  Holder.status != "removed")))
    if len(rows) != 1:
        return None
    return reply_address(session, ctx, rows[0])


def tokens_in(ctx: Context, mail: IncomingMail) -> list[str]:
    """The tokens of our plus-addresses among the mail's recipients (lower-cased)."""
    local, domain = _base(ctx)
    prefix = (local + "+").lower()
    values = [v for name in RECIPIENT_HEADERS for v in mail.headers.get(name, ())]
    found: list[str] = []
    for _, addr in email.utils.getaddresses(values):
        at_local, at, at_domain = addr.strip().rpartition("@")
        if not at or at_domain.lower() != domain.lower() or not at_local.lower().startswith(prefix):
            continue
        token = at_local[len(prefix):].lower()
        if token not in found:
            found.append(token)
    return found


def _owner(session: Session, key: bytes, token: str) -> Holder | None:
    """The holder a token belongs to; None for a token we never made."""
    match = _TOKEN.match(token)
    if match is None:
        return None
    number, mac = int(match.group(1), 36), match.group(2)
    holder = session.get(Holder, number)
    if holder is not None:
        seat = session.get(Seat, holder.seat_id)
        if seat is not None and hmac.compare_digest(_mac(key, holder, seat), mac):
            return holder
    seat = session.get(Seat, number)  # a token from before teams names the seat
    if seat is not None and seat.id is not None and hmac.compare_digest(_seat_mac(key, seat), mac):
        return session.exec(select(Holder).where(Holder.seat_id == seat.id).order_by(col(Holder.id))).first()
    return None


def check(session: Session, ctx: Context, mail: IncomingMail, holder: Holder) -> str | None:
    """None when every token in the mail's recipients is a valid token of ``holder``."""
    found = tokens_in(ctx, mail)
    if not found:
        return None
    key = token_key(session, ctx)
    for token in found:
        owner = _owner(session, key, token)
        if owner is None:
            return "token-invalid"
        if owner.seat_id != holder.seat_id:
            return "token-other-seat"
        if owner.id != holder.id:
            return "token-other-holder"
    return None
