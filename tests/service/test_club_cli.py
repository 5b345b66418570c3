"""The club's command line (architecture 2.2, 2.8): ``game new --open`` / ``--seat S=open``,
``game start``, ``game seat free``, ``player list|show``, run through `pbem.cli.main` on a
real SQLite file with a fixed clock; sign-up itself comes by mail (the inbound pipeline)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbem import cli
from pbem.config import load
from pbem.db.session import make_engine
from pbem.service import inbound
from pbem.service.context import Context, ManualClock
from tests.service.conftest import START
from tests.service.helpers import outbox, text_of
from tests.support.players import player_mail

ANN, BEA, CID = "ann@example.org", "bea@example.org", "cid@example.org"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n[render]\nwidth = 400\n'
                    '[limits]\nstranger_per_day = 20\n[club]\nsignup = ["*@example.org"]\n', encoding="utf-8")
    return path


def run(config: Path, clock: ManualClock, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--config", str(config), *argv], clock=clock)
    out, err = capsys.readouterr()
    return code, out, err


def sign_up(ctx: Context, who: str, game_id: str) -> None:
    inbound.handle(ctx, player_mail(who, f"JOIN {game_id}"))
    code = re.search(r"CONFIRM (\S+)", text_of(outbox(ctx, to=who, kind="signup")[-1]))
    assert code is not None
    assert inbound.handle(ctx, player_mail(who, f"CONFIRM {code.group(1)}")).status == "command"


def test_open_game_start_free_and_players(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = ManualClock(START)
    code, out, err = run(config, clock, capsys, "game", "new", "arditi", "--name", "Open night", "--open",
                         "--seat", "red=ann@example.org", "--policy", "takeover=approve")
    assert code == 0, err
    game_id = out.strip()
    cfg = load(str(config))
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock)
    try:
        assert not outbox(ctx, kind="welcome")
        _, listing, _ = run(config, clock, capsys, "game", "list")
        assert game_id in listing and "open" in listing
        sign_up(ctx, BEA, game_id)
        _, shown, _ = run(config, clock, capsys, "game", "show", game_id)
        entries = {e["seat"]: (e["status"], e["address"]) for e in json.loads(shown)["signup"]}
        assert entries["red"] == ("taken", ANN) and entries["blue"] == ("taken", BEA)
        assert entries["green"] == ("open", "")
        code, out, err = run(config, clock, capsys, "game", "start", game_id)
        assert code == 0 and "red, blue" in out, err
        assert len(outbox(ctx, kind="welcome")) == 2
        code, out, err = run(config, clock, capsys, "game", "start", game_id)
        assert code == 65 and "not open" in err
        code, out, err = run(config, clock, capsys, "game", "seat", "free", game_id, "blue")
        assert code == 0 and "free for takeover" in out, err
        code, out, err = run(config, clock, capsys, "game", "seat", "free", game_id, "purple")
        assert code == 65 and "no seat 'purple'" in err
        code, out, _ = run(config, clock, capsys, "player", "list")
        assert code == 0 and ANN in out and BEA in out
        code, out, _ = run(config, clock, capsys, "player", "show", ANN)
        shown = json.loads(out)
        assert shown["seats"][0]["game"] == game_id and shown["seats"][0]["seat"] == "red"
        assert shown["reliability"]["deadlines_met"] == 0
        code, out, err = run(config, clock, capsys, "player", "show", "nobody@example.org")
        assert code == 65 and "no player" in err
    finally:
        ctx.engine.dispose()
    code, out, err = run(config, clock, capsys, "game", "new", "duel", "--name", "x", "--seat", "red=open",
                         "--seat", "blue=open", "--policy", "takeover=never")
    assert code == 65 and "takeover takes auto or approve" in err
