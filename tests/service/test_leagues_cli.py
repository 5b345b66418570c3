"""The leagues' command line (architecture 2.8): ``league new|list|show|pair``, ``ratings``,
``ratings verify`` and the reliability in ``player show``, through `pbem.cli.main` on a real
SQLite file with a fixed clock; the games are played by order mail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem import cli
from pbem.config import load
from pbem.db.session import make_engine
from pbem.service.context import Context, ManualClock
from tests.service.conftest import START
from tests.support.leagues import kriegspiel

PLAYERS = ["ann@example.org", "bea@example.org", "cid@example.org", "dan@example.org"]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n[render]\nwidth = 400\n', encoding="utf-8")
    return path


def run(config: Path, clock: ManualClock, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--config", str(config), *argv], clock=clock)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_league_from_the_command_line(config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = ManualClock(START)
    code, out, err = run(config, clock, capsys, "league", "new", "Winter cup", "--kind", "kriegspiel", "--format",
                         "swiss", "--rounds", "2", *[f"--player={p}" for p in PLAYERS])
    assert code == 0, err
    league_id = out.strip()
    code, out, err = run(config, clock, capsys, "league", "new", "Too small", "--kind", "kriegspiel", "--format",
                         "swiss", "--player", PLAYERS[0], "--player", PLAYERS[1])
    assert code == 65 and "needs at least 4 players" in err
    code, out, _ = run(config, clock, capsys, "league", "pair", league_id)
    assert code == 0 and f"league {league_id} round 1: games k1, k2" in out
    code, out, err = run(config, clock, capsys, "league", "pair", league_id)
    assert code != 0 and "still has games running (k1, k2)" in err and "--force" in err
    cfg = load(config)
    ctx = Context(engine=make_engine(cfg.database.resolved().url), config=cfg, clock=clock)
    for game_id in ("k1", "k2"):
        clock.advance(hours=3)
        kriegspiel(ctx, game_id, "north")
    code, out, _ = run(config, clock, capsys, "league", "list")
    assert code == 0 and league_id in out and "round 1/2" in out and "running" in out
    code, out, _ = run(config, clock, capsys, "league", "show", league_id)
    shown = json.loads(out)
    assert [s["points"] for s in shown["standings"]] == [1, 1, 0, 0]
    assert "@" not in out  # public handles only
    code, out, _ = run(config, clock, capsys, "ratings", "--kind", "kriegspiel")
    assert code == 0 and len(out.splitlines()) == 4 and "1 game(s)" in out
    code, out, err = run(config, clock, capsys, "ratings", "--kind", "chess")
    assert code == 65 and "unknown game kind 'chess'" in err
    code, out, _ = run(config, clock, capsys, "player", "show", PLAYERS[0])
    figures = json.loads(out)["reliability"]
    assert figures["games_started"] == 1 and figures["games_finished"] == 1 and figures["deadlines_met"] == 1
    assert figures["median_hours_to_orders"] is not None
    for game_id in ("k1", "k2"):
        code, _, err = run(config, clock, capsys, "archive", "export", game_id, "--out", str(tmp_path / "arch" / game_id))
        assert code == 0, err
    code, out, _ = run(config, clock, capsys, "ratings", "verify", str(tmp_path / "arch"))
    assert code == 0 and out.startswith("OK: 2 games in 2 archives give the same 4 ratings")
    (tmp_path / "arch" / "k2" / "game.json").unlink()
    code, out, _ = run(config, clock, capsys, "ratings", "verify", str(tmp_path / "arch"))
    assert code == 1 and "FAILED: game k2 counts in the database's ratings and has no archive" in out
