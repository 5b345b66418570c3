"""Per-seat reply addresses (``security.reply_tokens``): every mail to a seat carries
``Reply-To: pbem+<token>@localhost``; a mail sent to a token address must be for the seat
the token belongs to; forged and garbled tokens are refused; a token never replaces the
secret."""

from __future__ import annotations

import re

from sqlmodel import select

from pbem.db.models import Setting
from pbem.service import tokens
from tests.security.support import (
    new_duel,
    note_of,
    orders_mail,
    recipients,
    reply_to,
    send,
    sheets,
)
from tests.service.helpers import BLUE, RED, outbox, text_of

TOKEN_ADDRESS = re.compile(r"^pbem\+[0-9a-z]+\.[a-z2-7]{16}@localhost$")


def _addresses(ctx, game_id):  # type: ignore[no-untyped-def]
    welcome = {r.subject: r for r in outbox(ctx, kind="welcome") if r.game_id == game_id}
    out = {}
    for row in welcome.values():
        out[recipients(row)[0]] = reply_to(row)
    return out[RED], out[BLUE]


def test_every_mail_to_a_seat_carries_its_own_reply_address(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True)
    game_id, secrets = new_duel(ctx)
    red_reply, blue_reply = _addresses(ctx, game_id)
    assert TOKEN_ADDRESS.match(red_reply) and TOKEN_ADDRESS.match(blue_reply) and red_reply != blue_reply
    # Replies to the player, and the turn reports, carry the same address.
    assert send(ctx, orders_mail(RED, game_id, "red", secrets["red"], to=red_reply)).status == "orders"
    assert send(ctx, orders_mail(BLUE, game_id, "blue", secrets["blue"], to=blue_reply)).status == "orders"
    for row in outbox(ctx):
        assert reply_to(row) == {RED: red_reply, BLUE: blue_reply}[recipients(row)[0]], row.kind
    assert {r.kind for r in outbox(ctx)} >= {"welcome", "reply", "report"}


def test_without_tokens_no_reply_to_is_set_and_plus_addresses_are_not_judged(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    assert all(reply_to(r) is None for r in outbox(ctx))
    assert send(ctx, orders_mail(RED, game_id, "red", secrets["red"], to="pbem+nonsense@localhost")).status == "orders"


def test_a_token_of_another_seat_is_refused(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True)
    game_id, secrets = new_duel(ctx)
    _, blue_reply = _addresses(ctx, game_id)
    result = send(ctx, orders_mail(RED, game_id, "red", secrets["red"], to=blue_reply))
    assert (result.status, result.note) == ("refused", "token-other-seat")
    notice = outbox(ctx, kind="refusal")[-1]
    assert recipients(notice) == [RED] and "reply address of another seat" in text_of(notice)
    assert sheets(ctx) == []


def test_a_token_from_another_game_is_another_seats_token(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True)
    first, _ = new_duel(ctx)
    second, secrets = new_duel(ctx)
    red_of_first, _ = _addresses(ctx, first)
    result = send(ctx, orders_mail(RED, second, "red", secrets["red"], to=red_of_first))
    assert (result.status, result.note) == ("refused", "token-other-seat")


def test_forged_and_garbled_tokens_are_refused_in_any_recipient_header(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True, refusal_interval="0s")
    game_id, secrets = new_duel(ctx)
    red_reply, _ = _addresses(ctx, game_id)
    token = red_reply.split("+")[1].split("@")[0]
    seat_id, mac = token.split(".")
    forged = [f"pbem+{seat_id}.{'a' * 16}@localhost",                # a made-up HMAC
              f"pbem+{seat_id}.{mac[:-1]}@localhost",                # one character short
              f"pbem+zz{seat_id}.{mac}@localhost",                   # another (unknown) seat id
              "pbem+hello@localhost", "pbem+@localhost"]             # not a token at all
    for address in forged:
        result = send(ctx, orders_mail(RED, game_id, "red", secrets["red"], to=address))
        assert (result.status, result.note) == ("refused", "token-invalid"), address
    for header in ("Cc", "Delivered-To", "X-Original-To"):
        result = send(ctx, orders_mail(RED, game_id, "red", secrets["red"], headers=[(header, forged[0])]))
        assert (result.status, result.note) == ("refused", "token-invalid"), header
    assert sheets(ctx) == []
    # The genuine token passes, in any letter case, next to our plain address.
    raw = orders_mail(RED, game_id, "red", secrets["red"], to=f"PBEM@localhost, {red_reply.upper()}")
    assert send(ctx, raw).status == "orders"


def test_a_valid_token_does_not_replace_the_secret(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True)
    game_id, secrets = new_duel(ctx)
    red_reply, _ = _addresses(ctx, game_id)
    result = send(ctx, orders_mail(RED, game_id, "red", "", to=red_reply))
    assert (result.status, result.note) == ("refused", "wrong-secret")
    result = send(ctx, orders_mail("mallory@evil.example", game_id, "red", secrets["red"], to=red_reply))
    assert (result.status, result.note) == ("refused", "wrong-sender")
    assert sheets(ctx) == []


def test_the_key_is_made_once_and_kept_or_read_from_the_environment(secure, monkeypatch):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True, token_key_env="PBEM_TEST_TOKEN_KEY")
    monkeypatch.delenv("PBEM_TEST_TOKEN_KEY", raising=False)
    game_id, secrets = new_duel(ctx)
    red_reply, _ = _addresses(ctx, game_id)
    with ctx.session() as s:
        stored = s.exec(select(Setting)).all()
        assert [r.name for r in stored] == [tokens.KEY_SETTING] and len(bytes.fromhex(stored[0].value)) == 32
    assert send(ctx, orders_mail(RED, game_id, "red", secrets["red"], to=red_reply, lines=["PLAY 1"])).status == "orders"
    with ctx.session() as s:
        assert s.exec(select(Setting)).all() == stored  # the same key, not a new one
    # A key from the environment wins; the tokens made with the stored key stop working.
    monkeypatch.setenv("PBEM_TEST_TOKEN_KEY", "a club's own long random key")
    result = send(ctx, orders_mail(RED, game_id, "red", secrets["red"], to=red_reply))
    assert (result.status, result.note) == ("refused", "token-invalid")
    with ctx.session() as s:
        from pbem.db.models import Holder

        holder = s.exec(select(Holder).where(Holder.game_id == game_id, Holder.address == RED)).one()
        fresh = tokens.reply_address(s, ctx, holder)
    assert fresh != red_reply and send(ctx, orders_mail(RED, game_id, "red", secrets["red"], to=fresh)).status == "orders"
    assert note_of(ctx, result) == "token-invalid"
