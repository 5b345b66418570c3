"""deploy/Containerfile's contract, read from the file (the image itself is built, started
and health-checked by .ci/run through scripts/install-podman.sh, on a local Debian base where
no registry answers): a non-root user, a default configuration baked in at PBEM_CONFIG (no empty volume over it),
data in the one volume, no port published, a HEALTHCHECK on `pbem status`. The defaults
themselves are started here as the image would start them, paths rewritten into a folder."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from pbem import config as config_mod
from pbem.cli import main
from tests.mail.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "deploy" / "Containerfile"


def _instructions() -> list[tuple[str, str]]:
    out, pending = [], ""
    for line in FILE.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue
        pending += line.rstrip("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            word, _, rest = pending.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            pending = ""
    return out


def test_the_image_runs_as_a_user_on_a_config_it_carries() -> None:
    steps = _instructions()
    words = [w for w, _ in steps]
    users = [rest for w, rest in steps if w == "USER"]
    assert users and users[-1] not in ("root", "0") and words.index("USER") > words.index("RUN")
    env = dict(rest.split("=", 1) for w, rest in steps if w == "ENV")
    copies = [shlex.split(rest) for w, rest in steps if w == "COPY"]
    assert [env["PBEM_CONFIG"]] in [c[1:] for c in copies]  # the defaults are in the image
    source = next(c[0] for c in copies if c[1:] == [env["PBEM_CONFIG"]])
    assert (ROOT / source).is_file()
    for c in copies:
        assert all((ROOT / s).exists() for s in c[:-1]), c
    volumes = [v for w, rest in steps if w == "VOLUME" for v in json.loads(rest)]
    assert volumes == ["/var/lib/pbem"]  # never a volume over the configuration
    assert not any(w == "EXPOSE" for w in words)  # the embedded server binds loopback only
    health = next(rest for w, rest in steps if w == "HEALTHCHECK")
    assert health.split("CMD", 1)[1].strip() == '["pbem", "status"]'
    assert next(rest for w, rest in steps if w == "CMD") == '["pbem", "serve"]'
    assert "--format docker" in FILE.read_text(encoding="utf-8").splitlines()[0]  # else podman drops HEALTHCHECK

    cfg = config_mod.load(ROOT / source)  # the image's defaults: every path inside the volume
    assert cfg.database.url == "sqlite:////var/lib/pbem/pbem.sqlite"
    assert cfg.mail.embedded.maildir.startswith("/var/lib/pbem/") and cfg.mail.backend == "embedded"


def test_the_defaults_start_and_the_health_check_says_why_not_yet(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The image's configuration with /var/lib/pbem moved to a folder: `serve --once` makes
    the database; `status` answers (not healthy: no daemon serving the mailbox)."""
    text = (ROOT / "deploy" / "container.toml").read_text(encoding="utf-8").replace("/var/lib/pbem", str(tmp_path))
    config = tmp_path / "pbem.toml"
    config.write_text(text + f"imap_port = {free_port()}\nsmtp_port = {free_port()}\n", encoding="utf-8")
    assert main(["--config", str(config), "serve", "--once"]) == 0
    assert (tmp_path / "pbem.sqlite").stat().st_mode & 0o777 == 0o600
    capsys.readouterr()
    assert main(["--config", str(config), "status", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["checks"]["database"]["ok"] is True and report["healthy"] is False
    assert report["last_cycle"] is not None  # the cycle of serve --once was recorded
    assert report["checks"]["mailbox"]["ok"] is False  # nobody serves the embedded mailbox now


def test_the_embedded_maildir_works_on_another_filesystem_than_tmp(tmp_path: Path,
                                                                   monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """In the container the maildir is on the volume and /tmp is not (under systemd PrivateTmp
    too): pymap renamed its temporary files across the two and every login failed."""
    import asyncio
    import imaplib
    import os
    import tempfile

    shm = Path("/dev/shm")
    assert shm.is_dir() and os.stat(shm).st_dev != os.stat(tmp_path).st_dev  # two filesystems here
    elsewhere = Path(tempfile.mkdtemp(dir=shm))
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    from pbem.mail.embedded import EmbeddedMailServer

    async def run() -> tuple[str, list[bytes]]:
        server = EmbeddedMailServer(host="127.0.0.1", imap_port=0, smtp_port=0, maildir=tmp_path / "mail",
                                    domains=("localhost",), password="pbem")
        await server.start()
        try:
            def login() -> tuple[str, list[bytes]]:
                with imaplib.IMAP4("127.0.0.1", server.imap_port) as imap:
                    return imap.login("pbem@localhost", "pbem")  # type: ignore[no-any-return]
            return await asyncio.to_thread(login)
        finally:
            await server.stop()

    try:
        assert asyncio.run(run())[0] == "OK"
    finally:
        for leftover in elsewhere.iterdir():
            leftover.unlink()
        elsewhere.rmdir()
