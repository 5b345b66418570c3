"""Several real `pbem serve` processes on one PostgreSQL database.

Each worker has a checkout of the configuration of its own (a folder with its pbem.toml
and its copy of the key for data at rest), all naming the same database and the same mail
server: an embedded one (pymap + aiosmtpd) in the test's process, reached over loopback
with the ``remote`` backend, as a real mail host would be. The players are Kriegspiel
players who read their secrets from the welcome mails and mail their deployments.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from sqlalchemy import text
from sqlmodel import col, select

from pbem.config import load
from pbem.db.models import InboundMail, OutboxMail, ReportJob
from pbem.db.session import make_engine
from pbem.mail.parse import normalise_message_id
from pbem.service.context import Context
from tests.faults.stack import DEPLOY, SEATS, SERVER, body, order_mail, parse
from tests.mail.servers import MailHarness

USER_ENV, PASSWORD_ENV = "PBEM_WORKERS_IMAP_USER", "PBEM_WORKERS_IMAP_PASSWORD"
ROOT = Path(__file__).resolve().parents[2]


def postgres_url() -> str:
    """The test's own PostgreSQL database, emptied (schema and all); skips without one."""
    url = os.environ.get("PBEM_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("PBEM_TEST_POSTGRES_URL is not set: the workers share a PostgreSQL database")
    try:
        engine = make_engine(url, "none")
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        engine.dispose()
    except Exception as exc:
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    return url


def checkout(folder: Path, url: str, mail: MailHarness, key: Path | None = None) -> Path:
    """A worker's configuration: its own folder, the shared database and mail server."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "var").mkdir(mode=0o700, exist_ok=True)
    if key is not None:
        shutil.copy(key, folder / "var" / "pbem.key")
        (folder / "var" / "pbem.key").chmod(0o600)
    path = folder / "pbem.toml"
    path.write_text(
        f'[database]\nurl = "{url}"\nworkers = "shared"\n'
        f'[security]\nkey_file = "{folder}/var/pbem.key"\n'
        f'[render]\nwidth = 400\nworkers = 0\n'
        f'[outbox]\ndrain_seconds = 0.5\n'
        f'[mail]\nbackend = "remote"\npoll_seconds = 1\n'
        f'[mail.imap]\nhost = "127.0.0.1"\nport = {mail.imap_port}\nsecurity = "none"\n'
        f'username_env = "{USER_ENV}"\npassword_env = "{PASSWORD_ENV}"\n'
        f'[mail.smtp]\nhost = "127.0.0.1"\nport = {mail.smtp_port}\nsecurity = "none"\n', encoding="utf-8")
    return path


def cli(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pbem", "--config", str(config), *args], cwd=str(config.parent),
                          capture_output=True, text=True, timeout=120, env=_env())


#: `cli_each`'s process: each command line run by `pbem.cli.main`, its exit code and output one JSON line.
_EACH = """
import contextlib, io, json, sys
from pbem.cli import main
for argv in json.loads(sys.argv[1]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    print(json.dumps([code, out.getvalue()]), flush=True)
"""


def cli_each(config: Path, *commands: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """`cli` of each command in turn, in one process (one start-up of Python and pbem for all of
    them, each still a command line of its own); each result's stderr is the process's, shared."""
    argvs = [["--config", str(config), *c] for c in commands]
    done = subprocess.run([sys.executable, "-c", _EACH, json.dumps(argvs)], cwd=str(config.parent),
                          capture_output=True, text=True, timeout=120 * len(commands), env=_env())
    out = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]
    assert done.returncode == 0 and len(out) == len(commands), done.stderr[-3000:]
    return [subprocess.CompletedProcess(argv, int(code), str(text_), done.stderr)
            for argv, (code, text_) in zip(argvs, out)]


def _env(crash_at: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PBEM_CRASH_AT"}
    env.update({USER_ENV: SERVER, PASSWORD_ENV: "pbem", "PYTHONPATH": str(ROOT)})
    if crash_at:
        env["PBEM_CRASH_AT"] = crash_at
    return env


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text("utf-8", "replace")

    def kill(self) -> None:
        """kill -9: no cleanup of any kind."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


async def stop_all(workers: list[Worker]) -> None:
    """The workers stopped as systemd stops them (SIGTERM; kill -9 after 30 s), waited for side by side
    off the event loop: the mail server the workers say goodbye to (QUIT, LOGOUT) runs in this
    process's loop, and a blocking wait here left each goodbye to its 5 s timeout."""
    for w in workers:
        if w.proc.poll() is None:
            w.proc.send_signal(signal.SIGTERM)
    for w in workers:
        try:
            await asyncio.to_thread(w.proc.wait, 30)
        except subprocess.TimeoutExpired:
            w.kill()


def start_worker(name: str, config: Path, *, role: str = "all", crash_at: str | None = None) -> Worker:
    log = config.parent / f"{name}.log"
    out = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "pbem", "--config", str(config), "serve", "--role", role],
                            cwd=str(config.parent), env=_env(crash_at), stdout=out, stderr=subprocess.STDOUT)
    out.close()
    return Worker(name, proc, log)


@dataclass
class Club:
    """The shared database seen from the test, and the players' side of the games."""

    ctx: Context
    mail: MailHarness
    games: list[str]
    secrets: dict[tuple[str, str], str] = field(default_factory=dict)
    sent: dict[str, dict[str, str]] = field(default_factory=dict)  # game -> Message-ID -> expected status

    async def mailbox(self, address: str) -> list[bytes]:
        return [m.raw or b"" for m in await self.mail.fetch(address)]

    async def read_secrets(self) -> None:
        for seat, address in SEATS.items():
            for raw in await self.mailbox(address):
                subject, text_ = str(parse(raw)["Subject"]), body(raw)
                m = re.search(r"\b([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})\b", text_)
                game = next((g for g in self.games if re.search(rf"\b{g}\b", subject)), None)
                if m and game and ("welcome" in subject or "benvenuto" in subject):
                    self.secrets[(game, seat)] = m.group(1)

    async def deploy(self, game: str, seat: str) -> None:
        from datetime import UTC, datetime

        mid, raw = order_mail(game, seat, self.secrets[(game, seat)], DEPLOY[seat],
                              date=datetime.now(UTC).replace(microsecond=0))
        await self.mail.send(SEATS[seat], [SERVER], raw)
        self.sent.setdefault(game, {})[normalise_message_id(mid) or mid] = "orders"

    def counts(self) -> dict[str, int]:
        with self.ctx.session() as s:
            inbound = list(s.exec(select(InboundMail.status)))
            outbox = list(s.exec(select(OutboxMail.status)))
            jobs = list(s.exec(select(ReportJob.status)))
        return {"inbound": len(inbound), "inbound_done": sum(st == "orders" for st in inbound),
                "queued": sum(st == "queued" for st in outbox), "sent": sum(st == "sent" for st in outbox),
                "jobs": len(jobs), "jobs_pending": sum(st == "pending" for st in jobs)}

    def welcomes_sent(self) -> int:
        with self.ctx.session() as s:
            return len(list(s.exec(select(OutboxMail.id).where(OutboxMail.kind == "welcome",
                                                              OutboxMail.status == "sent"))))

    def outbox_rows(self) -> list[OutboxMail]:
        with self.ctx.session() as s:
            return list(s.exec(select(OutboxMail).order_by(col(OutboxMail.id))))


def make_club(config: Path, mail: MailHarness, games: int) -> Club:
    """``games`` Kriegspiel games between the same two players, made with the CLI."""
    ids = []
    # one process for the three command lines: each start-up of Python and pbem took seconds
    made = cli_each(config, *(["game", "new", "kriegspiel", "--name", f"Workers {n}", "--seat",
                               f"north={SEATS['north']}", "--seat", f"south={SEATS['south']}:it", "--deadline", "48h"]
                              for n in range(games)))
    for n, one in enumerate(made):
        assert one.returncode == 0, one.stderr
        ids.append(one.stdout.strip().split()[0] if one.stdout.strip() else f"k{n + 1}")
    cfg = load(config)
    os.environ.setdefault(USER_ENV, SERVER)
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg)
    return Club(ctx, mail, _game_ids(ctx) or ids)


def _game_ids(ctx: Context) -> list[str]:
    from pbem.db.models import Game

    with ctx.session() as s:
        return sorted(g.id for g in s.exec(select(Game)))


async def wait_for(what: Callable[[], bool], timeout: float, about: Callable[[], object] = lambda: "") -> None:
    end = time.monotonic() + timeout
    while not what():
        if time.monotonic() > end:
            raise AssertionError(f"not done after {timeout:.0f} s: {about()}")
        await asyncio.sleep(0.3)
