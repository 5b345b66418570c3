"""Data at rest (docs/operations.md, "What is stored"): outgoing mail keeps its secrets only
for ``retention.raw_mail`` once sent (then a redacted copy), and `pbem player forget`
replaces a player's address by a pseudonym once their games have ended. Real SMTP (the
embedded server), a real SQLite file, PostgreSQL when configured."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from sqlalchemy import text
from sqlmodel import select

from pbem.config import RetentionConfig
from pbem.db.models import Game, Holder, InboundMail, OutboxMail, Player, Seat, SheetRow
from pbem.errors import GameStateError
from pbem.mail.embedded import EmbeddedMailServer
from pbem.mail.smtp import SmtpSender
from pbem.service import forget, games, inbound, outbox, retention
from pbem.service.context import Context, ManualClock
from tests.service.conftest import *  # noqa: F401,F403  (the ctx, clock and db_url fixtures, the duel)
from tests.service.helpers import BLUE, RED, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome


def _send_all(ctx: Context) -> int:
    async def run() -> int:
        server = EmbeddedMailServer(host="127.0.0.1", imap_port=0, smtp_port=0, maildir=None,
                                    domains=("example.org", "localhost"), password="pbem")
        await server.start()
        try:
            sender = SmtpSender("127.0.0.1", server.smtp_port, local_hostname="localhost")
            try:
                return await outbox.drain(ctx, sender)
            finally:
                await sender.close()
        finally:
            await server.stop()

    return asyncio.run(run())


def _rows(ctx: Context) -> list[OutboxMail]:
    with ctx.session() as s:
        return list(s.exec(select(OutboxMail).order_by(OutboxMail.id)))  # type: ignore[arg-type]


def test_sent_mail_keeps_its_secrets_for_the_retention_only(ctx: Context, clock: ManualClock) -> None:
    ctx.config = dataclasses.replace(ctx.config, retention=RetentionConfig(raw_mail="30d"))
    games.create(ctx, "duel", "Kept", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    welcomes = {json.loads(r.recipients_json)[0]: r for r in _rows(ctx)}
    secrets = {a: secret_from_welcome(text_of(r)) for a, r in welcomes.items()}
    assert _send_all(ctx) == 2

    clock.advance(days=29)
    assert retention.purge(ctx) == 0  # sent, but within the retention: still whole
    assert all(secrets[json.loads(r.recipients_json)[0]] in text_of(r) for r in _rows(ctx))

    clock.advance(days=2)
    assert retention.purge(ctx) == 2
    for row in _rows(ctx):
        body = text_of(row)
        assert secrets[json.loads(row.recipients_json)[0]] not in body and "[secret]" in body
        assert row.subject and row.status == "sent"  # the rest of the mail is kept for the archive
    assert retention.purge(ctx) == 0  # each mail is read once


def test_the_purge_opens_only_the_mail_it_redacts(ctx: Context, clock: ManualClock,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The hourly purge reads the rows past its mark without their bytes: a mail still inside
    the retention (or still queued) is never decrypted, only the ones it redacts are."""
    from pbem.db import sealed

    ctx.config = dataclasses.replace(ctx.config, retention=RetentionConfig(raw_mail="30d"))
    games.create(ctx, "duel", "Old", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    assert _send_all(ctx) == 2
    clock.advance(days=20)
    games.create(ctx, "duel", "New", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    assert _send_all(ctx) == 2
    games.create(ctx, "duel", "Queued", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    opened: list[bytes] = []  # the mails opened (the purge's mark is sealed too: not counted)
    plain = sealed.Keyring.open

    def counting(self: sealed.Keyring, token: bytes) -> bytes:
        data = plain(self, token)
        if b"\nSubject:" in data:
            opened.append(data)
        return data

    monkeypatch.setattr(sealed.Keyring, "open", counting)
    clock.advance(days=5)
    assert retention.purge(ctx) == 0 and opened == []  # nothing is old enough: nothing was opened
    clock.advance(days=6)  # the first game's mails are 31 days old, the second's 11
    assert retention.purge(ctx) == 2
    assert len(opened) == 2  # the two it redacted, not the four newer ones behind them
    monkeypatch.undo()
    assert [("[secret]" in text_of(r)) for r in _rows(ctx)] == [True, True, False, False, False, False]


def test_queued_mail_is_never_redacted(ctx: Context, clock: ManualClock) -> None:
    games.create(ctx, "duel", "Waiting", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    clock.advance(days=40)
    assert retention.purge(ctx) == 0  # not sent yet: the player still needs the secret
    assert all(r.status == "queued" and "SEAT" in text_of(r) for r in _rows(ctx))


def _finished_game(ctx: Context) -> str:
    game_id = games.create(ctx, "duel", "Over", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    with ctx.session() as s:
        rows = list(s.exec(select(OutboxMail)))
    secrets = {json.loads(r.recipients_json)[0]: secret_from_welcome(text_of(r)) for r in rows}
    assert inbound.handle(ctx, player_mail(RED, order_block(game_id, "red", secrets[RED], ["PLAY 2"]))).status \
        == "orders"
    return game_id


def test_a_player_is_forgotten_only_when_their_games_have_ended(ctx: Context) -> None:
    game_id = _finished_game(ctx)
    with pytest.raises(GameStateError, match=f"still plays in {game_id}"):
        forget.forget(ctx, RED)
    with ctx.engine.begin() as conn:  # the game ends (as a concession or the last turn would end it)
        conn.execute(text("UPDATE game SET status = 'finished' WHERE id = :g"), {"g": game_id})

    said = forget.forget(ctx, RED.upper())
    with ctx.session() as s:
        player = s.exec(select(Player).where(Player.id == 1)).one()
        alias = forget.pseudonym(1)
        assert player.address == alias and f"is now {alias}" in said
        assert s.exec(select(Seat).where(Seat.name == "red")).one().address == alias
        assert {h.address for h in s.exec(select(Holder))} == {alias, BLUE}
        assert all(r.sender in (alias, "") for r in s.exec(select(SheetRow).where(SheetRow.seat == "red")))
        red_mail = [r for r in s.exec(select(InboundMail)) if r.sender == alias]
        assert red_mail and all(r.raw is None for r in red_mail)
        assert not [r for r in s.exec(select(InboundMail)) if r.sender == RED]
        to_red = [r for r in s.exec(select(OutboxMail)) if alias in r.recipients_json]
        assert to_red and all(r.raw == b"" for r in to_red)
        assert all(RED not in r.recipients_json for r in s.exec(select(OutboxMail)))
        assert s.get(Game, game_id) is not None  # the game itself stays whole
    with ctx.engine.connect() as conn:  # nowhere in the database any more
        for table in ("player", "seat", "holder", "sheet", "inbound", "refusal_notice"):
            columns = [c[1] for c in conn.execute(text(f'PRAGMA table_info("{table}")'))] \
                if ctx.engine.dialect.name == "sqlite" else None
            if columns is None:
                break
            for column in columns:
                found = conn.execute(text(f'SELECT count(*) FROM "{table}" WHERE CAST("{column}" AS TEXT) LIKE :a'),
                                     {"a": f"%{RED}%"}).scalar()
                assert found == 0, (table, column)


def test_a_sealed_text_is_opened_once_and_an_altered_one_still_refused() -> None:
    """`Keyring.open_text` keeps what it opened by token (every order mail reads its game's
    sealed seed): the same token is not decrypted again, and a token altered since is another
    one, checked afresh and refused; another key opens nothing it kept."""
    from cryptography.fernet import Fernet

    from pbem.db import sealed
    from pbem.errors import StorageError

    keyring = sealed.Keyring(Fernet.generate_key(), "test")
    value = sealed.TEXT_PREFIX + keyring.seal(b"00ff" * 16).decode("ascii")
    opened: list[bytes] = []
    plain = keyring.open
    keyring.open = lambda token: opened.append(token) or plain(token)  # type: ignore[method-assign]
    assert keyring.open_text(value) == keyring.open_text(value) == "00ff" * 16 and len(opened) == 1
    altered = value[:-6] + ("A" if value[-6] != "A" else "B") + value[-5:]
    with pytest.raises(StorageError):
        keyring.open_text(altered)
    with pytest.raises(StorageError):
        sealed.Keyring(Fernet.generate_key(), "other").open_text(value)
