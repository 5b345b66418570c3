"""The command line as a user runs it (architecture 2.2): a real process, a real
SQLite file, exit codes after sysexits (pbem.errors): 0 ok, 65 bad input (no traceback),
64 usage, 78 configuration; 1 only for a check that says no."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, config: Path | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "pbem", *args]
    if config is not None:
        cmd[3:3] = ["--config", str(config)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n[render]\nwidth = 400\n', encoding="utf-8")
    return path


def test_game_master_commands(config: Path) -> None:
    new = run("game", "new", "kriegspiel", "--name", "Club game", "--seat", "north=anna@example.org",
              "--seat", "south=bruno@example.org:it", "--deadline", "48h", "--policy", "abandon_after=5",
              "--policy", "reminders=12h", config=config)
    assert new.returncode == 0, new.stderr
    game_id = new.stdout.strip()
    assert game_id == "k1"
    listing = run("game", "list", config=config)
    assert "k1" in listing.stdout and "kriegspiel" in listing.stdout and "active" in listing.stdout
    shown = json.loads(run("game", "show", "k1", config=config).stdout)
    assert shown["awaiting"] == ["north", "south"] and shown["seed"] is None and len(shown["commitment"]) == 64
    assert {s["seat"]: s["language"] for s in shown["seats"]} == {"north": "en", "south": "it"}
    assert shown["policy"]["abandon_after"] == 5 and shown["policy"]["reminders"] == ["12h"]
    extended = run("game", "extend", "k1", "24h", config=config)
    assert extended.returncode == 0 and "extended" in extended.stdout
    assert run("game", "pause", "k1", config=config).returncode == 0
    assert json.loads(run("game", "show", "k1", config=config).stdout)["status"] == "paused"
    again = run("game", "pause", "k1", config=config)
    assert again.returncode == 65 and "not active" in again.stderr and "Traceback" not in again.stderr
    assert run("game", "resume", "k1", config=config).returncode == 0
    missing = run("game", "show", "k99", config=config)
    assert missing.returncode == 65 and "no game" in missing.stderr


def test_bad_requests_are_clear(config: Path, tmp_path: Path) -> None:
    wrong = run("game", "new", "chess", "--name", "x", "--seat", "a=b@c", config=config)
    assert wrong.returncode == 65 and "unknown game kind 'chess'" in wrong.stderr and "kriegspiel" in wrong.stderr
    seats = run("game", "new", "kriegspiel", "--name", "x", "--seat", "east=a@b.c", "--seat", "west=d@e.f",
                config=config)
    assert seats.returncode == 65 and "north, south" in seats.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('[mail]\nbakend = "embedded"\n', encoding="utf-8")
    result = run("game", "list", config=bad)
    assert result.returncode == 78 and "unknown key mail.bakend" in result.stderr and "Traceback" not in result.stderr
    assert run("game", config=config).returncode == 64  # usage
    policy = run("game", "new", "kriegspiel", "--name", "x", "--seat", "north=a@b.c", "--seat", "south=d@e.f",
                 "--policy", "abandon_after=zero", config=config)
    assert policy.returncode == 65 and "abandon_after" in policy.stderr


def test_orders_check_offline(tmp_path: Path, config: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("Hi!\n\nGAME k1\nSEAT north x\nINFANTRY F10 G6 G7 G9 H5 H7 H8 H9 I6\nCAVALRY G3 G4 H3 H4\n"
                    "ARTILLERY G8\nHORSE-ARTILLERY H6\nRELAY D3\nHORSE-RELAY F5\nEND\n", encoding="utf-8")
    ok = run("orders", "check", "kriegspiel", str(good), config=config)
    assert ok.returncode == 0 and "Result: OK — 17 orders" in ok.stdout and "seat north" in ok.stdout
    bad = tmp_path / "bad.txt"
    bad.write_text("INFANTRY F10 G6 G7 G9 H5 H7 H8 H9 K6\nCAVALRY G3 G4 H3 H4\nARTILLERY G8\n"
                   "HORSE-ARTILLERY H6\nRELAY D3\nHORSE-RELAY F5\n", encoding="utf-8")
    result = run("orders", "check", "kriegspiel", str(bad), "--seat", "north", config=config)
    assert result.returncode == 1 and "line 1" in result.stdout and "K6" in result.stdout


def test_teams_from_the_command_line(config: Path, tmp_path: Path) -> None:
    new = run("game", "new", "kriegspiel", "--name", "Team game",
              "--seat", "north=anna@example.org,carla@example.org:it", "--seat", "south=bruno@example.org:it",
              config=config)
    assert new.returncode == 0, new.stderr
    game_id = new.stdout.strip()

    def holders(seat: str) -> list[tuple[str, str, str]]:
        shown = json.loads(run("game", "show", game_id, config=config).stdout)
        rows = next(s for s in shown["seats"] if s["seat"] == seat)["holders"]
        return [(h["address"], h["language"], h["status"]) for h in rows]

    assert holders("north") == [("anna@example.org", "en", "active"), ("carla@example.org", "it", "active")]
    added = run("game", "seat", "add", game_id, "south", "dario@example.org:it", config=config)
    assert added.returncode == 0 and "dario@example.org" in added.stdout, added.stderr
    assert holders("south")[-1] == ("dario@example.org", "it", "active")
    removed = run("game", "seat", "remove", game_id, "north", "anna@example.org", config=config)
    assert removed.returncode == 0, removed.stderr
    assert [h[2] for h in holders("north")] == ["removed", "active"]
    last = run("game", "seat", "remove", game_id, "north", "carla@example.org", config=config)
    assert last.returncode == 65 and "only player" in last.stderr and "Traceback" not in last.stderr
    unknown = run("game", "seat", "add", game_id, "east", "x@example.org", config=config)
    assert unknown.returncode == 65 and "north, south" in unknown.stderr
    bad = run("game", "new", "kriegspiel", "--name", "x", "--seat", "north=anna@example.org,carla",
              "--seat", "south=b@example.org", config=config)
    assert bad.returncode == 65 and "not a mail address" in bad.stderr
    import sqlite3

    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        welcomed = [r[0] for r in db.execute("SELECT recipients_json FROM outbox WHERE kind = 'welcome'")]
    assert sorted(welcomed) == sorted(json.dumps([a]) for a in ("anna@example.org", "carla@example.org",
                                                               "bruno@example.org", "dario@example.org"))
