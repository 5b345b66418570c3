"""No secret at rest (issue 24.4): after a whole game by mail - welcomes, orders, a new secret, a
reply quoting the welcome, an HTML mail, a wrong secret - neither the database file (with its WAL)
nor any row of any table holds a seat's secret, the unrevealed dice seed or the reply-token key in
clear. Kept inbound mail reads ``SEAT red [secret]``; the seed, the token key and the outgoing mail
are encrypted with a key from the environment or a 0600 file outside the database."""

from __future__ import annotations

import os
import stat
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import SQLModel, select

from pbem.db.models import Game, InboundMail, OutboxMail, Setting
from pbem.db.sealed import BYTES_PREFIX, TEXT_PREFIX
from pbem.errors import ConfigError, StorageError
from pbem.service import atrest, games, inbound, tokens
from pbem.service.context import Context
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome


def _everything(ctx: Context) -> bytes:
    """Every row of every table as the database gives it, plus the SQLite files themselves."""
    chunks: list[bytes] = []
    with ctx.engine.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            for row in conn.execute(text(f'SELECT * FROM "{table.name}"')):
                for value in row:
                    chunks.append(bytes(value) if isinstance(value, (bytes, memoryview)) else str(value).encode())
    database = ctx.engine.url.database
    if ctx.engine.url.get_backend_name() == "sqlite" and database:
        for suffix in ("", "-wal", "-journal"):
            path = Path(database + suffix)
            if path.exists():
                chunks.append(path.read_bytes())
    return b"\n".join(chunks)


def _forms(secret: str) -> list[bytes]:
    """A secret as written in a welcome, without its dashes, and in capitals."""
    return [secret.encode(), secret.replace("-", "").encode(), secret.upper().encode()]


def _html_orders(sender: str, game_id: str, seat: str, secret: str, turn: int) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "pbem@localhost", "orders"
    msg["Message-ID"] = f"<html-{turn}-{seat}@example.org>"
    body = order_block(game_id, seat, secret, ["PLAY 2"], turn)
    msg.set_content(body, cte="quoted-printable")
    msg.add_alternative("<html><body>" + "".join(f"<div>{line}</div>" for line in body.splitlines())
                        + "</body></html>", subtype="html", cte="base64")
    return msg.as_bytes()


def test_a_whole_game_leaves_no_secret_in_the_database(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    import dataclasses

    from pbem.config import SecurityConfig

    ctx.config = dataclasses.replace(ctx.config, security=SecurityConfig(reply_tokens=True))
    game_id = games.create(ctx, "duel", "At rest", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    secrets = {seat: secret_from_welcome(text_of(outbox(ctx, to=addr, kind="welcome")[0]))
               for seat, addr in (("red", RED), ("blue", BLUE))}
    every_secret = set(secrets.values())
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None
        seed = game.seed_hex
        token_key = tokens.token_key(s, ctx).hex()
    assert len(seed) == 64 and len(token_key) == 64

    # SECRET NEW: the old secret retires, the new one comes by mail (and is kept nowhere in clear).
    mail = player_mail(RED, order_block(game_id, "red", secrets["red"], ["SECRET NEW"]))
    assert inbound.handle(ctx, mail).status == "command"
    secrets["red"] = secret_from_welcome(text_of(outbox(ctx, to=RED, kind="reply")[-1]))
    every_secret.add(secrets["red"])
    # A wrong secret, refused: it is redacted too (it may be a real one mistyped).
    assert inbound.handle(ctx, player_mail(BLUE, order_block(game_id, "blue", "2345-6789-abcd", ["PLAY 1"]))).status == "refused"
    every_secret.add("2345-6789-abcd")
    turn = 1
    while games.show_game(ctx, game_id)["status"] != "finished" and turn < 40:
        shown = games.show_game(ctx, game_id)
        for seat, addr in (("red", RED), ("blue", BLUE)):
            if seat not in shown["awaiting"]:
                continue
            lines = ["SPLIT"] if shown["phase"] != "play" else ["PLAY 3" if seat == "red" else "PLAY 1"]
            if seat == "blue" and turn == 2:
                raw = _html_orders(addr, game_id, seat, secrets[seat], shown["turn"])
            else:  # a reply quoting the welcome above the orders, secret and all
                quoted = f"> Your secret for this seat: {secrets[seat]}\n> SEAT {seat} {secrets[seat]}\n\n"
                raw = player_mail(addr, quoted + order_block(game_id, seat, secrets[seat], lines, shown["turn"]))
            assert inbound.handle(ctx, raw).status in ("orders", "refused")
        turn += 1
        if turn == 3:  # before the end: the seed is still secret, and nowhere in clear
            assert seed.encode() not in _everything(ctx)
    assert games.show_game(ctx, game_id)["status"] == "finished"

    stored = _everything(ctx)
    for secret in every_secret:
        for form in _forms(secret):
            assert form not in stored, secret
    assert seed.encode() not in stored and token_key.encode() not in stored
    # What is kept instead: the marked order text, and sealed values.
    with ctx.session() as s:
        kept = [r.raw or b"" for r in s.exec(select(InboundMail))]
        assert any(b"SEAT red [secret]" in r for r in kept) and any(b"SEAT blue [secret]" in r for r in kept)
    with ctx.engine.connect() as conn:
        assert str(conn.execute(text("SELECT seed_hex FROM game")).scalar()).startswith(TEXT_PREFIX)
        assert str(conn.execute(text("SELECT value FROM setting")).scalar()).startswith(TEXT_PREFIX)
        raws = [bytes(r[0]) for r in conn.execute(text("SELECT raw FROM outbox"))]
        assert raws and all(r.startswith(BYTES_PREFIX) for r in raws)
    # ...and the service reads them back: the welcome (in the outbox) still gives the secret.
    assert secret_from_welcome(text_of(outbox(ctx, to=BLUE, kind="welcome")[0])) == secrets["blue"]


def test_the_key_file_is_private_and_outside_the_database(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    games.create(ctx, "duel", "Key", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    path = atrest.key_path(ctx.config, ctx.engine.url)
    if ctx.engine.url.get_backend_name() == "sqlite":  # beside the database file
        assert path == Path(str(ctx.engine.url.database)).with_suffix(".key")
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().strip() not in _everything(ctx)


def test_a_key_file_others_may_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.config import from_mapping

    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp_path}/x.sqlite"}})
    atrest.keyring(cfg)  # made on first use
    path = tmp_path / "x.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o644)
    with pytest.raises(ConfigError, match="readable by others.*chmod 600"):
        atrest.keyring(cfg)


def test_the_key_from_the_environment_and_a_wrong_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.config import from_mapping
    from pbem.db.session import make_engine

    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp_path}/env.sqlite"}})
    monkeypatch.setenv("PBEM_SECRET_KEY", "a long random text given by the operator, not a key")
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg)
    game_id = games.create(ctx, "duel", "Env", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    assert not (tmp_path / "env.key").exists()  # the environment's key: no file made
    with ctx.session() as s:
        seed = s.get(Game, game_id).seed_hex  # type: ignore[union-attr]
    monkeypatch.setenv("PBEM_SECRET_KEY", "another long random text, the wrong one this time")
    other = Context(engine=make_engine(cfg.database.url), config=cfg)
    with pytest.raises(StorageError, match="does not open with the key"):
        with other.session() as s:
            s.get(Game, game_id)
    monkeypatch.setenv("PBEM_SECRET_KEY", "short")
    with pytest.raises(ConfigError, match="at least 32 characters"):
        atrest.keyring(cfg)
    assert len(seed) == 64


def test_plain_values_of_an_older_database_are_read_then_sealed(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database written before encryption: its seeds, token key and queued mail are read as they are,
    and sealed when the server next opens it."""
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    game_id = games.create(ctx, "duel", "Old", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    with ctx.session() as s:
        seed = s.get(Game, game_id).seed_hex  # type: ignore[union-attr]
        tokens.token_key(s, ctx)
        s.commit()
    with ctx.engine.begin() as conn:  # what an older version wrote
        conn.execute(text("UPDATE game SET seed_hex = :s"), {"s": seed})
        conn.execute(text("UPDATE setting SET value = :v"), {"v": "ab" * 32})
        conn.execute(text("UPDATE outbox SET raw = :r"), {"r": b"Subject: old\r\n\r\nSEAT red 7fq2-mh3k-p9z1\r\n"})
    from pbem.db.session import make_engine

    fresh = Context(engine=make_engine(str(ctx.engine.url.render_as_string(hide_password=False))), config=ctx.config)
    with fresh.session() as s:  # opening seals them
        assert s.get(Game, game_id).seed_hex == seed  # type: ignore[union-attr]
        assert s.get(Setting, tokens.KEY_SETTING).value == "ab" * 32  # type: ignore[union-attr]
        assert all(r.raw.startswith(b"Subject: old") for r in s.exec(select(OutboxMail)))
    with fresh.engine.connect() as conn:
        assert str(conn.execute(text("SELECT seed_hex FROM game")).scalar()).startswith(TEXT_PREFIX)
        assert all(bytes(r[0]).startswith(BYTES_PREFIX) for r in conn.execute(text("SELECT raw FROM outbox")))
    fresh.engine.dispose()


def _opened_again(ctx: Context) -> tuple[Context, list[list[str]]]:
    """A new engine on ``ctx``'s database, attached (as a worker's start or a command attaches
    it), and the columns of every row it read meanwhile."""
    from sqlalchemy import event

    from pbem.db.session import make_engine

    fresh = Context(engine=make_engine(str(ctx.engine.url.render_as_string(hide_password=False))), config=ctx.config)
    columns: list[list[str]] = []

    def _read(conn, cursor, statement, params, context, executemany) -> None:  # type: ignore[no-untyped-def]
        columns.append([d[0] for d in cursor.description or ()])

    event.listen(fresh.engine, "after_cursor_execute", _read)
    with fresh.session():
        pass
    event.remove(fresh.engine, "after_cursor_execute", _read)
    return fresh, columns


def test_opening_the_database_reads_no_mail(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every start looks for values an older version kept in clear without reading any mail (a
    welcome with its map is ~300 KB: every start read them all), and only at the outbox rows
    written since the last look; a plain row written after it is still found and sealed."""
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    games.create(ctx, "duel", "Old", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    first, columns = _opened_again(ctx)
    assert columns and not any("raw" in c for c in columns), columns
    first.engine.dispose()
    with ctx.session() as s:
        through = int(s.get(Setting, atrest.SEALED_THROUGH).value)  # type: ignore[union-attr]
        assert through == max(r.id for r in s.exec(select(OutboxMail)))
    with ctx.engine.begin() as conn:  # an older version writes a welcome again
        conn.execute(text("INSERT INTO outbox (message_id, kind, mail_from, recipients_json, subject, raw, status, "
                          "attempts, last_error, created_at, bounce_status, bounce_diagnostic) VALUES ('<old@x>', "
                          "'welcome', 'pbem@x', '[]', 'old', :r, 'sent', 1, '', '2026-01-01', '', '')"),
                     {"r": b"Subject: old\r\n\r\nSEAT red 7fq2-mh3k-p9z1\r\n"})
        newer = conn.execute(text("SELECT max(id) FROM outbox")).scalar()
    second, columns = _opened_again(ctx)
    assert sum("raw" in c for c in columns) == 1, columns  # that mail alone, to be sealed
    with second.engine.connect() as conn:
        assert bytes(conn.execute(text("SELECT raw FROM outbox WHERE id = :i"), {"i": newer}).scalar()).startswith(BYTES_PREFIX)
    with second.session() as s:
        assert s.get(Setting, atrest.SEALED_THROUGH).value == str(newer)  # type: ignore[union-attr]
        assert s.get(OutboxMail, newer).raw.startswith(b"Subject: old")  # type: ignore[union-attr]
    second.engine.dispose()


@pytest.mark.parametrize("line, kept", [
    ("SEAT north 7fq2-mh3k-p9z1", "SEAT north [secret]"),
    ("posto: sud 7FQ2 MH3K P9Z1   # il mio", "posto: sud [secret]"),
    ("> > SEAT red 7fq2-mh3k-p9z1", "> > SEAT red [secret]"),
    ("SEAT 7fq2-mh3k-p9z1", "SEAT [secret]"),
    ("SEAT north", "SEAT north"),
    ("seats are taken", "seats are taken"),
])
def test_secret_lines_are_redacted_as_the_envelope_reads_them(line: str, kept: str) -> None:
    assert atrest.redact_text(line + "\n", atrest.secrets_in(line)) == kept + "\n"


def test_redaction_is_linear_in_the_mail() -> None:
    """A stranger's mail reaches the redaction before any check: long runs of blanks, quote markers and
    SEAT words cost one pass (issue 24.2's growth rule: 10x the input, well under 20x the work),
    measured in this process's CPU time and again at more length when a first look says no
    (tests/mail/hostile.growth), so that a busy machine does not count. Both mails are larger
    than a core's cache (a 150 KB mail of 10,000 cost a 1.5 MB one's 14 times on a quiet
    machine, 26 times once under the whole suite: the cache, not the code; 30,000 against
    300,000 cost 11-12 times)."""
    from tests.mail import hostile

    def mail(n: int) -> tuple[bytes, str]:
        body = ("SEAT " * n + "\n" + " " * n + "\n" + ">" * n + " SEAT x y\n") * 3
        return player_mail(RED, body), body

    small, large = mail(30_000), mail(300_000)
    ratio = hostile.growth(lambda: atrest.redact_mail(*small), lambda: atrest.redact_mail(*large))
    assert ratio < hostile.MAX_RATIO, f"300,000 costs {ratio:.1f} times 30,000"


def test_the_kept_mail_has_its_headers_as_the_email_package_writes_them() -> None:
    """The redacted copy writes short one-line headers without the package's folding: the
    same bytes as compat32's for every kind of value, short, long, folded, odd."""
    import email.policy
    import random

    rnd = random.Random(17)
    alphabet = [chr(c) for c in range(32, 127)] + [" "] * 8 + ["\t", "=?utf-8?q?a?=", "\r\n ", "\udce9"]
    for _ in range(3000):
        name = rnd.choice(["Subject", "From", "Message-ID", "Content-Type", "X-Mailer", "Received"])
        value = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 100)))
        for linesep in ("\r\n", "\n"):
            stock = email.policy.compat32.clone(linesep=linesep).fold_binary(name, value)
            assert atrest._KEPT.clone(linesep=linesep).fold_binary(name, value) == stock, (name, value)
