"""Archive export and `pbem verify`: the dice against the revealed seed, replay of
every turn, the hash chain; and the first mismatch named when anything is altered."""

from __future__ import annotations

import json

from PIL import Image
from sqlmodel import select

from pbem.db.models import SheetRow
from pbem.service import archive, games, inbound
from pbem.service.games import SeatSpec
from pbem.service.verify import verify_path
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

RED, BLUE = "red@example.org", "blue@example.org"


def play_to_the_end(ctx) -> str:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Archived duel", [SeatSpec("red", RED), SeatSpec("blue", BLUE)])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in (("red", RED), ("blue", BLUE))}
    for turn in range(1, 40):
        if games.show_game(ctx, game_id)["status"] == "finished":
            break
        for seat, addr, play in (("red", RED, 3), ("blue", BLUE, 1 + turn % 3)):
            raw = player_mail(addr, order_block(game_id, seat, secrets[seat], [f"PLAY {play}"], turn))
            assert inbound.handle(ctx, raw).status == "orders"
    assert games.show_game(ctx, game_id)["status"] == "finished"
    return game_id


def test_finished_game_exports_and_verifies(ctx, tmp_path):  # type: ignore[no-untyped-def]
    game_id = play_to_the_end(ctx)
    final = outbox(ctx, to=RED, kind="report")[-1]
    shown = games.show_game(ctx, game_id)
    assert shown["seed"] and shown["seed"] in text_of(final)  # seed revealed at the end
    index = archive.export(ctx, game_id, tmp_path / "arch")
    html = index.read_text()
    assert "phase-0.html" in html and shown["seed"] in html
    assert Image.open(tmp_path / "arch" / "maps" / "phase-0.png").size[0] == 400
    report = verify_path(tmp_path / "arch")
    assert report.ok, report.problem
    assert report.dice_checked and report.rolls == 2 * report.phases


def test_verify_names_an_altered_stored_order(ctx, tmp_path):  # type: ignore[no-untyped-def]
    game_id = play_to_the_end(ctx)
    with ctx.session() as s:
        row = s.exec(select(SheetRow).where(SheetRow.game_id == game_id, SheetRow.phase_seq == 1,
                                            SheetRow.seat == "blue")).one()
        row.canonical = "PLAY 3" if row.canonical != "PLAY 3" else "PLAY 1"
        s.add(row)
        s.commit()
    archive.export(ctx, game_id, tmp_path / "arch")
    report = verify_path(tmp_path / "arch")
    assert not report.ok
    assert "phase 1 (turn 2" in report.problem and "digest" in report.problem


def test_verify_names_an_altered_roll_and_a_broken_chain(ctx, tmp_path):  # type: ignore[no-untyped-def]
    game_id = play_to_the_end(ctx)
    archive.export(ctx, game_id, tmp_path / "arch")
    path = tmp_path / "arch" / "game.json"
    data = json.loads(path.read_text())
    data["phases"][2]["rolls"][0][3] = 7 - data["phases"][2]["rolls"][0][3] if data["phases"][2]["rolls"][0][3] != 3.5 else 1
    path.write_text(json.dumps(data))
    report = verify_path(tmp_path / "arch")
    assert not report.ok and "phase 2" in report.problem and "die" in report.problem
    data = json.loads(path.read_text())
    data["phases"][2]["rolls"][0][3] = 7 - data["phases"][2]["rolls"][0][3]  # restore
    data["phases"].pop(1)
    path.write_text(json.dumps(data))
    assert not verify_path(tmp_path / "arch").ok


def test_verify_refuses_a_wrong_seed(ctx, tmp_path):  # type: ignore[no-untyped-def]
    game_id = play_to_the_end(ctx)
    archive.export(ctx, game_id, tmp_path / "arch")
    path = tmp_path / "arch" / "game.json"
    data = json.loads(path.read_text())
    data["game"]["seed"] = "00" * 32
    path.write_text(json.dumps(data))
    report = verify_path(tmp_path / "arch")
    assert not report.ok and "commitment" in report.problem
