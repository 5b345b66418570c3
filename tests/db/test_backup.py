"""`pbem backup` and the restore of docs/operations.md, on SQLite and on PostgreSQL (pg_dump
and pg_restore, when PBEM_TEST_POSTGRES_URL is set): the data lost, the backup put back, the
game there again at the newest schema."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlmodel import select

from pbem.db import schema
from pbem.db.models import Game
from pbem.db.session import make_engine
from pbem.service import backup, games
from pbem.service.context import Context
from tests.service.conftest import *  # noqa: F401,F403  (the ctx, clock and db_url fixtures, the duel)
from tests.service.helpers import BLUE, RED


def test_backup_destroy_restore(ctx: Context, db_url: str, tmp_path: Path) -> None:
    game_id = games.create(ctx, "duel", "Kept safe", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    out = tmp_path / "backups" / "pbem.backup"
    said = backup.backup(db_url, out)
    assert out.stat().st_mode & 0o777 == 0o600 and str(out) in said
    ctx.engine.dispose()

    if db_url.startswith("sqlite"):
        database = Path(make_url(db_url).database or "")
        for path in database.parent.glob(database.name + "*"):
            path.unlink()  # the file, its -wal and -shm: lost
        shutil.copy(out, database)
    else:
        engine = make_engine(db_url, "none")
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        engine.dispose()
        plain = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
        done = subprocess.run(["pg_restore", "--no-owner", f"--dbname={plain}", str(out)], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr

    ctx.engine = make_engine(db_url, "require")  # current schema, or this raises
    assert schema.version(ctx.engine).state == "current"
    with ctx.session() as s:
        assert s.exec(select(Game.name).where(Game.id == game_id)).one() == "Kept safe"


def test_no_backup_of_a_database_that_is_not_there(tmp_path: Path) -> None:
    import pytest

    from pbem.errors import NoDatabaseError, UserError

    with pytest.raises(NoDatabaseError, match="no database at"):
        backup.backup(f"sqlite:///{tmp_path}/none.sqlite", tmp_path / "b")
    (tmp_path / "folder").mkdir()
    with pytest.raises(UserError, match="is a folder"):
        backup.backup(f"sqlite:///{tmp_path}/none.sqlite", tmp_path / "folder")
    assert os.listdir(tmp_path) == ["folder"]
