"""A league's pairing cut short by a crash (the process dies between two games) is finished
by the next ``league pair``: the boards already made keep their games, the others get theirs,
every player sits at one board of the round and gets one welcome, and no round is paired over
the half-made one (docs/club.md, "Leagues"; the standard: a crash loses nothing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select

from pbem import cli
from pbem.config import load
from pbem.db.models import Game, LeagueGame, OutboxMail
from pbem.db.session import make_engine
from pbem.faults import EXIT_CODE
from pbem.service.context import Context, ManualClock
from tests.service.conftest import START

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = [f"{name}@example.org" for name in ("ann", "bea", "cid", "dan", "eve", "fay")]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n[render]\nwidth = 300\nworkers = 0\n',
                    encoding="utf-8")
    return path


def _run(config: Path, clock: ManualClock, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--config", str(config), *argv], clock=clock)
    out, err = capsys.readouterr()
    return code, out, err


def _pair_in_a_process_that_dies(config: Path, league_id: str) -> subprocess.CompletedProcess[str]:
    """``python -m pbem league pair`` with the crash point after the first game is made."""
    env = {**os.environ, "PBEM_CRASH_AT": "leagues.mid-pairing", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pbem", "--config", str(config), "league", "pair", league_id],
                          env=env, cwd=str(config.parent), capture_output=True, text=True, timeout=120)


def _boards(ctx: Context, league_id: str) -> list[LeagueGame]:
    with ctx.session() as s:
        return list(s.exec(select(LeagueGame).where(LeagueGame.league_id == league_id, LeagueGame.board > 0)
                           .order_by(LeagueGame.board)))


def test_a_pairing_cut_short_is_finished_by_the_next_pair(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = ManualClock(START)
    code, out, err = _run(config, clock, capsys, "league", "new", "Spring cup", "--kind", "kriegspiel", "--format",
                          "swiss", "--rounds", "2", *[f"--player={p}" for p in PLAYERS])
    assert code == 0, err
    league_id = out.strip()
    cfg = load(config)
    ctx = Context(engine=make_engine(cfg.database.resolved().url), config=cfg, clock=clock)

    died = _pair_in_a_process_that_dies(config, league_id)
    assert died.returncode == EXIT_CODE, died.stdout + died.stderr
    boards = _boards(ctx, league_id)
    assert [b.board for b in boards] == [1, 2, 3]  # the round's boards were written with the round
    assert [b.game_id is not None for b in boards] == [True, False, False]  # one game made before the crash
    code, out, _ = _run(config, clock, capsys, "league", "show", league_id)
    shown = json.loads(out)
    assert shown["round"] == 1 and shown["status"] == "running"
    assert [g.get("status") for g in shown["games"]["1"]][1:] == ["not made yet", "not made yet"]

    code, out, err = _run(config, clock, capsys, "league", "pair", league_id)
    assert code == 0, err
    first = boards[0].game_id
    assert out.startswith(f"league {league_id} round 1: games {first}, ") and "(made now: " in out
    boards = _boards(ctx, league_id)
    assert all(b.game_id for b in boards) and boards[0].game_id == first
    with ctx.session() as s:
        made = list(s.exec(select(Game)))
        seated = [json.loads(b.table_json) for b in boards]
        welcomes = [json.loads(m.recipients_json)[0]
                    for m in s.exec(select(OutboxMail).where(OutboxMail.kind == "welcome"))]
    assert len(made) == 3  # no game made twice, none lost
    assert sorted(p for table in seated for p in table) == sorted(set(p for table in seated for p in table))
    assert sorted(welcomes) == sorted(PLAYERS)  # each player welcomed once, at one board

    # the round is whole now: the next pair is a new round's, refused while these games run
    code, _, err = _run(config, clock, capsys, "league", "pair", league_id)
    assert code != 0 and "round 1 still has games running" in err
