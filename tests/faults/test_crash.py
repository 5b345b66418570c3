"""The daemon killed at each crash point of the pipeline and started again.

The daemon is a real process (``python -m pbem --config CONF serve --once``) with the
``remote`` mail backend pointed at a mail server that runs in this test process (the
embedded server, or Dovecot behind an SMTP front; credentials from environment variables,
no TLS on loopback). ``PBEM_CRASH_AT`` makes it die on the spot (``os._exit``) at one point
of ``pbem.faults.POINTS``; then it runs again without the variable.

The game is made once per module with the CLI (``game new kriegspiel``); the welcome mails
go out, the players read their secrets from them, and north's sealed deployment is filed.
Each test copies that database, and south's deployment (twice: the same message delivered
twice) is what the crashing run processes: it completes turn 0, so the die is rolled in
the transaction the crash interrupts.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.cli import main as cli
from pbem.config import load
from pbem.db.models import OutboxMail
from pbem.db.session import make_engine
from pbem.faults import EXIT_CODE, POINTS
from pbem.mail.embedded import EmbeddedMailServer
from pbem.mail.smtp import SmtpSender
from pbem.service.context import Context
from tests.faults.stack import DEPLOY, SEATS, SERVER, check_exactly_once, order_mail, parse, secret_of
from tests.mail.servers import MailHarness

GAME = "k1"
USER_ENV, PASSWORD_ENV = "PBEM_FAULTS_IMAP_USER", "PBEM_FAULTS_IMAP_PASSWORD"
ROOT = Path(__file__).resolve().parents[2]


def write_config(folder: Path, imap_port: int, smtp_port: int) -> Path:
    path = folder / "pbem.toml"
    path.write_text(
        f'[database]\nurl = "sqlite:///{folder}/pbem.sqlite"\n'
        f'[render]\nwidth = 400\nworkers = 0\n'
        f'[mail]\nbackend = "remote"\n'
        f'[mail.imap]\nhost = "127.0.0.1"\nport = {imap_port}\nsecurity = "none"\n'
        f'username_env = "{USER_ENV}"\npassword_env = "{PASSWORD_ENV}"\n'
        f'[mail.smtp]\nhost = "127.0.0.1"\nport = {smtp_port}\nsecurity = "none"\n', encoding="utf-8")
    return path


async def serve_once(config: Path, crash_at: str | None = None, timeout: float = 60) -> tuple[int, str]:
    """``python -m pbem --config CONF serve --once`` in a child process; the mail server keeps
    running in this event loop meanwhile."""
    env = {k: v for k, v in os.environ.items() if k != "PBEM_CRASH_AT"}
    env.update({USER_ENV: SERVER, PASSWORD_ENV: "pbem", "PYTHONPATH": str(ROOT)})
    if crash_at:
        env["PBEM_CRASH_AT"] = crash_at
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pbem", "--config", str(config), "serve", "--once", cwd=str(config.parent), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode("utf-8", "replace")


@dataclass
class Template:
    folder: Path
    secrets: dict[str, str]
    north_mid: str
    last_row: int  # outbox rows up to here went to the template's own mail server


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Template]:
    folder = tmp_path_factory.mktemp("crash-template")
    yield asyncio.run(_make_template(folder))


async def _make_template(folder: Path) -> Template:
    server = EmbeddedMailServer(password="pbem")
    await server.start()
    try:
        config = write_config(folder, server.imap_port, server.smtp_port)
        assert cli(["--config", str(config), "game", "new", "kriegspiel", "--name", "Crash",
                    "--seat", f"north={SEATS['north']}", "--seat", f"south={SEATS['south']}:it",
                    "--deadline", "48h"]) == 0
        await _serve_in_process(config)  # the welcome mails
        secrets = {}
        for seat, address in SEATS.items():
            secrets[seat] = secret_of([raw for _uid, raw, _seen in await server.messages(address)])
        mid, raw = order_mail(GAME, "north", secrets["north"], DEPLOY["north"], date=_now())
        await SmtpSender("127.0.0.1", server.smtp_port).send(SEATS["north"], [SERVER], raw)
        summary = await _serve_in_process(config)
        assert summary["handled"] == {"orders": 1}, summary
        engine = make_engine(f"sqlite:///{folder}/pbem.sqlite")
        try:
            ctx = Context(engine=engine, config=load(config))
            with ctx.session() as s:
                rows = list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
        finally:
            engine.dispose()
        assert rows and all(r.status == "sent" for r in rows)
        return Template(folder, secrets, mid, rows[-1].id or 0)
    finally:
        await server.stop()


async def _serve_in_process(config: Path) -> dict:  # type: ignore[type-arg]
    from pbem.app import App

    os.environ[USER_ENV], os.environ[PASSWORD_ENV] = SERVER, "pbem"
    try:
        app = App.from_config(load(config))
        try:
            return await app.run_once()
        finally:
            app.ctx.engine.dispose()
    finally:
        del os.environ[USER_ENV], os.environ[PASSWORD_ENV]


def _now():  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    return datetime.now(UTC).replace(microsecond=0)


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite database in WAL mode (the file alone may lack commits), with
    the key of its data at rest, kept beside it (pbem.service.atrest)."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    key = source.with_suffix(".key")
    if key.exists():
        target.with_suffix(".key").write_bytes(key.read_bytes())
        target.with_suffix(".key").chmod(0o600)


@dataclass
class Run:
    """The copied game, seen from the test process (for the verdict)."""

    ctx: Context
    mail: MailHarness
    game_id: str = GAME
    sent: dict[str, str] = field(default_factory=dict)

    async def mailbox(self, address: str) -> list[bytes]:
        return [m.raw or b"" for m in await self.mail.fetch(address)]


#: What the run after the crash still had to do: proof that the crash struck where it says.
AFTER_CRASH = {
    "inbound.before-commit": ({"orders": 1, "duplicate": 1}, 1, 3),  # handled, reports drawn, mails sent
    "inbound.after-commit": ({"duplicate": 2}, 1, 3),  # committed, never flagged \Seen
    "outbox.after-send": ({}, 0, 3),  # the receipt got its 250, not marked sent: sent again
    "reports.before-finish": ({}, 1, 3),  # maps drawn, reports never queued
}


def test_every_crash_point_is_covered() -> None:
    assert set(AFTER_CRASH) == set(POINTS)


@pytest.mark.parametrize("point", POINTS)
async def test_killed_at_each_crash_point_then_restarted(point: str, template: Template, mail_server: MailHarness,
                                                         tmp_path: Path) -> None:
    copy_database(template.folder / "pbem.sqlite", tmp_path / "pbem.sqlite")
    config = write_config(tmp_path, mail_server.imap_port, mail_server.smtp_port)
    mid, raw = order_mail(GAME, "south", template.secrets["south"], DEPLOY["south"], date=_now())
    await mail_server.send(SEATS["south"], [SERVER], raw)
    await mail_server.send(SEATS["south"], [SERVER], raw)  # the same message, delivered twice

    code, out = await serve_once(config, crash_at=point)
    assert code == EXIT_CODE, out
    assert f"crash point {point} reached" in out
    code, out = await serve_once(config)
    assert code == 0, out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["errors"] == [], summary
    assert (summary["handled"], summary["reports"], summary["sent"]) == AFTER_CRASH[point], summary

    engine = make_engine(f"sqlite:///{tmp_path}/pbem.sqlite")
    try:
        run = Run(Context(engine=engine, config=load(config)), mail_server)
        run.sent = {template.north_mid: "orders", mid: "orders"}
        verdict = await check_exactly_once(run, since=template.last_row,
                                           duplicates_allowed=1 if point == "outbox.after-send" else 0)
        assert verdict.rolls == 1 and verdict.phases == 2  # turn 0 resolved, turn 1 open
        with run.ctx.session() as s:
            rows = [r for r in s.exec(select(OutboxMail).order_by(col(OutboxMail.id))) if (r.id or 0) > template.last_row]
        kinds = sorted((r.kind, json.loads(r.recipients_json)[0]) for r in rows)
        assert kinds == [("reply", SEATS["south"]), ("report", SEATS["north"]), ("report", SEATS["south"])], kinds
        if point == "outbox.after-send":
            # the one documented duplicate: the mail accepted just before the crash, same Message-ID
            assert list(verdict.duplicates) == [rows[0].message_id]
        # the server's INBOX: both copies of south's mail flagged \Seen, nothing left to fetch
        assert await mail_server.fetch(SERVER) == []
        replies = [m for m in verdict.delivered[SEATS["south"]]]
        assert rows[0].message_id in replies
        assert parse(rows[0].raw)["In-Reply-To"] == mid
    finally:
        engine.dispose()


def _processes_with(marker: str) -> list[int]:
    """Live processes whose environment carries ``marker`` (the daemon and its children)."""
    needle = marker.encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
async def test_a_crash_leaves_no_map_worker_behind(template: Template, embedded_mail: MailHarness,
                                                   tmp_path: Path) -> None:
    """Killed at reports.before-finish while a map worker process draws (render.workers = 1):
    nothing of the dead daemon may live on (an orphan holds ~70 MiB and the daemon's
    stdout, so whoever reads that output waits forever)."""
    copy_database(template.folder / "pbem.sqlite", tmp_path / "pbem.sqlite")
    config = write_config(tmp_path, embedded_mail.imap_port, embedded_mail.smtp_port)
    config.write_text(config.read_text().replace("workers = 0", "workers = 1"))
    _mid, raw = order_mail(GAME, "south", template.secrets["south"], DEPLOY["south"], date=_now())
    await embedded_mail.send(SEATS["south"], [SERVER], raw)
    marker = f"PBEM_FAULTS_MARKER={uuid.uuid4().hex}"
    env = {k: v for k, v in os.environ.items() if k != "PBEM_CRASH_AT"}
    env.update({USER_ENV: SERVER, PASSWORD_ENV: "pbem", "PYTHONPATH": str(ROOT),
                "PBEM_CRASH_AT": "reports.before-finish", marker.split("=")[0]: marker.split("=")[1]})
    with open(tmp_path / "serve.log", "wb") as log:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "pbem", "--config", str(config), "serve", "--once", cwd=str(tmp_path), env=env,
            stdout=log, stderr=subprocess.STDOUT)
        code = await asyncio.wait_for(proc.wait(), 60)
    assert code == EXIT_CODE, (tmp_path / "serve.log").read_text()
    survivors = _processes_with(marker)
    for _ in range(30):  # a worker that notices its parent's death is gone within milliseconds
        if not survivors:
            break
        await asyncio.sleep(0.1)
        survivors = _processes_with(marker)
    try:
        assert survivors == [], f"left behind: {survivors}"
    finally:
        for pid in survivors:  # ours: started by this test
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
