"""Migrations (pbem.db.schema, pbem/db/migrations): a database made by the release before
migrations upgrades with `pbem db upgrade` and plays on; the daemon and the other commands
refuse it until then, naming the command; a database built by running every revision has
exactly the models' schema."""

from __future__ import annotations

import importlib
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel, select

from pbem import config as config_mod
from pbem.cli import main
from pbem.core import registry
from pbem.db import schema
from pbem.db.models import Game, Holder
from pbem.db.session import make_engine
from pbem.service import inbound
from pbem.service.context import Context, ManualClock
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

registry.register("duel", "tests.support.duel:RULES")

DATA = Path(__file__).parent / "data"
#: made by release 0.1.0 (commit 7f186d8, before migrations): a duel "d1" whose first turn
#: was played, with the welcome mails in its outbox, encrypted with the key beside it
RELEASE = DATA / "release-0.1.0.sql"


def _release_database(folder: Path) -> Path:
    db = folder / "pbem.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript(RELEASE.read_text(encoding="utf-8"))
    conn.close()
    shutil.copy(DATA / "release-0.1.0.key", folder / "pbem.key")
    os.chmod(folder / "pbem.key", 0o600)
    config = folder / "pbem.toml"
    # a relative path: taken from the configuration file's folder, whatever the current directory
    config.write_text('[database]\nurl = "sqlite:///pbem.sqlite"\n[render]\nwidth = 400\n'
                      '[mail.embedded]\nimap_port = 0\nsmtp_port = 0\n', encoding="utf-8")
    return config


def test_a_release_database_upgrades_and_plays_on(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    config = _release_database(tmp_path)
    monkeypatch.chdir(tmp_path.parent)
    args = ["--config", str(config)]

    assert main([*args, "db", "current"]) == 1
    assert "from before migrations" in capsys.readouterr().out
    assert main([*args, "serve", "--once"]) == 78  # EX_CONFIG: no restart loop
    err = capsys.readouterr().err
    assert "pbem db upgrade" in err and str(tmp_path / "pbem.sqlite") in err
    assert main([*args, "game", "list"]) == 78
    assert "pbem db upgrade" in capsys.readouterr().err

    assert main([*args, "db", "upgrade"]) == 0
    assert f"upgraded from before migrations to {schema.head()}" in capsys.readouterr().out
    assert main([*args, "db", "current"]) == 0
    assert f"{schema.head()} (newest)" in capsys.readouterr().out
    assert main([*args, "db", "upgrade"]) == 0
    assert "already at" in capsys.readouterr().out
    assert main([*args, "game", "list"]) == 0
    assert "d1" in capsys.readouterr().out

    cfg = config_mod.load(config)
    clock = ManualClock(datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc))
    ctx = Context(engine=make_engine(cfg.database.url, "require"), config=cfg, clock=clock)
    try:
        with ctx.session() as s:
            game = s.get(Game, "d1")
            assert game is not None and game.phase_seq == 1
            assert {h.address for h in s.exec(select(Holder))} == {RED, BLUE}
        secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (RED, BLUE)}
        reports = len(outbox(ctx, kind="report"))
        assert inbound.handle(ctx, player_mail(RED, order_block("d1", "red", secrets[RED], ["PLAY 3"]))).status \
            == "orders"
        assert inbound.handle(ctx, player_mail(BLUE, order_block("d1", "blue", secrets[BLUE], ["GIOCA 2"]))).status \
            == "orders"
        with ctx.session() as s:
            game = s.get(Game, "d1")
            assert game is not None and game.phase_seq == 2  # the second turn resolved on the upgraded file
        assert len(outbox(ctx, kind="report")) > reports
    finally:
        ctx.engine.dispose()


URLS = ["sqlite"] + (["postgres"] if os.environ.get("PBEM_TEST_POSTGRES_URL") else [])


def _url(backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path}/old.sqlite"
    url = os.environ["PBEM_TEST_POSTGRES_URL"].replace("postgresql://", "postgresql+psycopg://")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    except Exception as exc:
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    finally:
        engine.dispose()
    return url


@pytest.mark.parametrize("backend", URLS)
def test_an_older_database_is_adopted_with_its_indexes(backend: str, tmp_path: Path) -> None:
    """A database from an early version (no holder table, no bounce columns, an index
    missing): the first revision brings it to the schema, rows kept."""
    url = _url(backend, tmp_path)


    baseline = importlib.import_module("pbem.db.migrations.versions.0001_baseline")
    md = baseline.metadata()
    md.remove(md.tables["holder"])
    player = md.tables["player"]
    for name in ("bouncing_since", "bounce_notified_at"):
        player._columns.remove(player.c[name])  # the table as it was before bounces
    md.tables["game"].indexes.discard(next(i for i in md.tables["game"].indexes if i.name == "ix_game_status"))
    engine = create_engine(url)
    md.create_all(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO player (id, address, name, language) VALUES (1, 'a@b.c', 'Anna', 'it')"))
        conn.execute(text("INSERT INTO game (id, kind, name, rules_version, options_json, status, timezone, "
                          "turn_seconds, policy_json, seed_hex, commitment, seed_revealed, initial_state_json, "
                          "state_json, phase_seq, roll_counter, head_hash, outcome_json) VALUES ('d1', 'duel', 'x', "
                          "'1', '{}', 'active', 'UTC', 60, '{}', '', '', FALSE, '', '', 0, 0, '', '')"))
        conn.execute(text("INSERT INTO seat (id, game_id, name, player_id, address, secret_hash, language, misses, "
                          "status) VALUES (7, 'd1', 'red', 1, 'A@b.c', 'h', 'it', 0, 'active')"))
    engine.dispose()

    engine = make_engine(url, "open")
    try:
        assert schema.version(engine).state == "legacy"
        with pytest.raises(Exception, match="pbem db upgrade"):
            schema.require_current(engine, "here")
        before, after = schema.upgrade(engine)
        assert (before.state, after.state) == ("legacy", "current")
        found = inspect(engine)
        assert {"bouncing_since", "bounce_notified_at"} <= {c["name"] for c in found.get_columns("player")}
        assert "ix_game_status" in {i["name"] for i in found.get_indexes("game")}
        with engine.connect() as conn:
            assert tuple(conn.execute(text("SELECT address, language, bouncing_since FROM player")).one()) == \
                ("a@b.c", "it", None)
            holder = conn.execute(text("SELECT seat_id, address, secret_hash, language FROM holder")).one()
        assert tuple(holder) == (7, "a@b.c", "h", "it")  # the seat's player became its first holder
    finally:
        engine.dispose()


def test_the_revisions_build_the_models_schema(tmp_path: Path) -> None:
    """Every revision run on an empty database gives exactly the tables, columns and
    indexes of `pbem.db.models`. When this fails, the models changed without a revision:
    write one (docs/operations.md, "A new revision")."""
    from alembic import command

    engine = create_engine(f"sqlite:///{tmp_path}/revisions.sqlite")
    with engine.begin() as conn:
        command.upgrade(schema.alembic_config(conn), "head")
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)
    engine.dispose()
    assert diff == [], "models changed without a migration: python -m pbem.db.revision \"what changed\"\n" + \
        "\n".join(map(str, diff))


def test_a_fresh_database_is_made_at_the_newest_revision(tmp_path: Path) -> None:
    path = tmp_path / "new" / "pbem.sqlite"
    engine = make_engine(f"sqlite:///{path}", "create")
    try:
        assert schema.version(engine).state == "current"
        assert set(SQLModel.metadata.tables) <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)


def test_the_newest_revision_is_alembics_head() -> None:
    """`schema.head` reads the versions folder's numbers: the same revision Alembic's graph ends in."""
    assert schema.head() == schema.scripts().get_current_head()
    assert [s.revision for s in schema.scripts().walk_revisions()][0] == schema.head()


def test_a_current_database_is_checked_without_alembic(tmp_path: Path) -> None:
    """Every command and worker checks its database at start; a current one needs no Alembic
    (its import and its reading of the revisions cost more than the check): a process of its own."""
    url = f"sqlite:///{tmp_path / 'pbem.sqlite'}"
    make_engine(url, "create").dispose()
    code = ("import sys\nfrom pbem.db.session import make_engine\nfrom pbem.db import schema\n"
            f"engine = make_engine({url!r}, 'require')\n"
            "print(schema.version(engine).state, 'alembic' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["current", "False"]
    behind = sqlite3.connect(tmp_path / "pbem.sqlite")
    with behind:
        behind.execute("UPDATE alembic_version SET version_num = '0010'")
    behind.close()
    engine = create_engine(url)
    try:  # a database not current is judged by Alembic's graph, as before
        assert schema.version(engine).state == "behind"
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = 'ffff'"))
        assert schema.version(engine).state == "ahead"
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", URLS)
def test_the_answers_queued_before_the_tally_are_tallied_by_the_upgrade(backend: str, tmp_path: Path) -> None:
    """Revision 0011: the answers already in the outbox are tallied by their minute, so the
    cap on everybody's answers (`pbem.service.limits`) counts the hour's answers the moment
    the database is upgraded, not only those queued after."""
    from alembic import command

    from pbem.config import from_mapping
    from pbem.service import limits

    url = _url(backend, tmp_path)
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        command.upgrade(schema.alembic_config(conn), "0010")
        for n, (kind, at) in enumerate([("reply", "12:00:10"), ("reply", "12:00:50"), ("reply", "12:01:05"),
                                        ("stranger", "12:01:30"), ("report", "12:01:40")]):
            conn.execute(text("INSERT INTO outbox (message_id, kind, mail_from, recipients_json, subject, raw, status,"
                              " attempts, last_error, created_at, bounce_status, bounce_diagnostic) VALUES (:m, :k, "
                              "'pbem@localhost', '[\"a@b.c\"]', 's', :raw, 'sent', 1, '', :at, '', '')"),
                         {"m": f"<{n}@x>", "k": kind, "raw": b"x", "at": datetime.fromisoformat(f"2026-11-27 {at}")})
        command.upgrade(schema.alembic_config(conn), "head")
    engine.dispose()
    engine = make_engine(url, "open")
    try:
        assert schema.version(engine).state == "current"
        with engine.connect() as conn:
            rows = sorted((k, str(m)[:16], n) for k, m, n in conn.execute(text("SELECT kind, minute, n FROM answer_tally")))
        assert rows == [("reply", "2026-11-27 12:00", 2), ("reply", "2026-11-27 12:01", 1),
                        ("stranger", "2026-11-27 12:01", 1)]
        ctx = Context(engine=engine, config=from_mapping({}, "test"),
                      clock=ManualClock(datetime(2026, 11, 27, 12, 30, tzinfo=timezone.utc)))
        with ctx.session() as s:
            assert limits.replies_in_window(s, ctx) == 3
            assert limits.answers_in_window(s, ctx, limits.STRANGER, limits.WINDOW) == 1
    finally:
        engine.dispose()
