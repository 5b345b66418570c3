"""Per-seat reply addresses: ``<local>+<token>@<domain>`` (``security.reply_tokens``).

The token is ``<seat id in base 36>.<HMAC>``: the seat's row id, and 80 bits of
HMAC-SHA256 over the game, the seat's name and its id, so a token can be neither guessed
nor made up for another seat. The key is read from the environment variable named by
``security.token_key_env``; without it, a random key is drawn once and kept in the
``setting`` table. Changing the key invalidates every token already sent.

Every mail to a seat carries ``Reply-To: <its token address>`` (see `mailer.queue`). An
inbound mail whose To, Cc, Delivered-To or X-Original-To holds an address of ours with a
``+`` must carry a valid token of the very seat the block names: a garbled or made-up
token is ``token-invalid``, another seat's token is ``token-other-seat``.

A valid token is an extra proof, never a replacement for the secret: tokens travel in
headers (forwards, mailing-list archives, a shared mailbox), so they are not kept secret
the way the seat's secret is. A mail without any token is judged on the other checks.
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
from sqlmodel import Session, select

from pbem.db.models import Game, Seat, Setting
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


def _mac(key: bytes, seat: Seat) -> str:
    message = f"pbem-reply-v1|{seat.game_id}|{seat.name}|{seat.id}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:_MAC_CHARS]


def token_for(session: Session, ctx: Context, seat: Seat) -> str:
    if seat.id is None:
        session.flush()
    assert seat.id is not None
    return f"{_base36(seat.id)}.{_mac(token_key(session, ctx), seat)}"


def _base(ctx: Context) -> tuple[str, str]:
    local, _, domain = ctx.config.server.address.rpartition("@")
    return local, domain


def reply_address(session: Session, ctx: Context, seat: Seat) -> str:
    """``pbem+3.k2j4...@domain``: the address a seat's replies go to."""
    local, domain = _base(ctx)
    return f"{local}+{token_for(session, ctx, seat)}@{domain}"


def reply_to_for(session: Session, ctx: Context, game: Game | None, to: str) -> str | None:
    """The Reply-To of a mail to ``to`` about ``game``: the token address of the seat with
    that address, when tokens are on and exactly one seat of the game has it."""
    if not ctx.config.security.reply_tokens or game is None:
        return None
    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id, Seat.address == to.lower())))
    if len(seats) != 1:
        return None
    return reply_address(session, ctx, seats[0])


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


def check(session: Session, ctx: Context, mail: IncomingMail, seat: Seat) -> str | None:
    """None when every token in the mail's recipients is a valid token of ``seat``."""
    found = tokens_in(ctx, mail)
    if not found:
        return None
    key = token_key(session, ctx)
    for token in found:
        match = _TOKEN.match(token)
        if match is None:
            return "token-invalid"
        owner = session.get(Seat, int(match.group(1), 36))
        if owner is None or not hmac.compare_digest(_mac(key, owner), match.group(2)):
            return "token-invalid"
        if owner.id != seat.id:
            return "token-other-seat"
    return None
