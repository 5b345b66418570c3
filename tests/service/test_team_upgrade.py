"""A database from before teams (seats with their own address, secret hash and language,
no ``holder`` table) upgrades at start-up: each seat's player becomes its first holder,
the secrets and the reply addresses already mailed keep working, and a team can then
be formed in the running game."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac

import pytest
from sqlalchemy import text
from sqlmodel import select

from pbem.config import SecurityConfig
from pbem.db.models import Holder, Seat, Setting
from pbem.db.session import make_engine
from pbem.service import games, inbound, teams
from pbem.service.context import Context
from pbem.service.tokens import KEY_SETTING
from tests.db.legacy import as_release_0_1
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome


def _make_old(ctx: Context) -> None:
    """Turn the database back into one from before teams."""
    with ctx.engine.begin() as conn:
        for seat_id, secret_hash in conn.execute(text("SELECT seat_id, secret_hash FROM holder")).all():
            conn.execute(text("UPDATE seat SET secret_hash = :h WHERE id = :i"), {"h": secret_hash, "i": seat_id})
    as_release_0_1(ctx.engine, drop=("holder",))  # and no migrations, nor anything newer, either


def _old_token(ctx: Context, seat: Seat) -> str:
    """A reply address as the version before teams made it: one per seat."""
    with ctx.session() as s:
        row = s.get(Setting, KEY_SETTING)
        assert row is not None
    message = f"pbem-reply-v1|{seat.game_id}|{seat.name}|{seat.id}".encode()
    mac = base64.b32encode(hmac.new(bytes.fromhex(row.value), message, hashlib.sha256).digest()).decode().lower()[:16]
    digits, n, out = "0123456789abcdefghijklmnopqrstuvwxyz", seat.id or 0, ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            break
    return f"pbem+{out}.{mac}@localhost"


def test_a_single_holder_database_upgrades_and_plays_on(ctx: Context, db_url: str,
                                                         request: pytest.FixtureRequest) -> None:
    ctx.config = dataclasses.replace(ctx.config, security=SecurityConfig(reply_tokens=True))
    game_id = games.create(ctx, "duel", "Old duel", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (RED, BLUE)}
    _make_old(ctx)

    ctx.engine = make_engine(db_url)  # the new version starts on the old database
    request.addfinalizer(ctx.engine.dispose)
    with ctx.session() as s:
        seats = {x.name: x for x in s.exec(select(Seat))}
        rows = {h.address: h for h in s.exec(select(Holder))}
    assert set(rows) == {RED, BLUE}
    assert rows[BLUE].language == "it" and rows[RED].seat_id == seats["red"].id
    assert rows[RED].secret_hash == seats["red"].secret_hash  # the secret moved with its player
    make_engine(db_url).dispose()  # a second start changes nothing
    with ctx.session() as s:
        assert len(s.exec(select(Holder)).all()) == 2

    # The seat's old reply address belongs to its first holder.
    old_red = _old_token(ctx, seats["red"])
    raw = player_mail(RED, order_block(game_id, "red", secrets[RED], ["PLAY 2"]), to=old_red)
    assert inbound.handle(ctx, raw).status == "orders"
    raw = player_mail(BLUE, order_block(game_id, "blue", secrets[BLUE], ["GIOCA 1"]), to=old_red)
    assert inbound.handle(ctx, raw).note == "token-other-seat"

    # A team forms in the upgraded game: the newcomer cannot use the first holder's old address.
    teams.add(ctx, game_id, "red", games.HolderSpec("rosa@example.org", "it"))
    rosa = secret_from_welcome(text_of(outbox(ctx, to="rosa@example.org", kind="welcome")[0]))
    raw = player_mail("rosa@example.org", order_block(game_id, "red", rosa, ["GIOCA 3"]), to=old_red)
    assert inbound.handle(ctx, raw).note == "token-other-holder"
    assert inbound.handle(ctx, player_mail("rosa@example.org", order_block(game_id, "red", rosa, ["GIOCA 3"]))
                          ).status == "orders"
    assert inbound.handle(ctx, player_mail(BLUE, order_block(game_id, "blue", secrets[BLUE], ["GIOCA 1"]))
                          ).status == "orders"
    reports = outbox(ctx, kind="report")
    assert sorted(r.recipients_json for r in reports) == sorted(['["red@example.org"]', '["rosa@example.org"]',
                                                                 '["blue@example.org"]'])
