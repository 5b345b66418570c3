"""Done-means of the service issue: a whole Kriegspiel game through real IMAP and SMTP
on loopback (the embedded server, and Dovecot where installed). The CLI creates the
game; both players get welcome mails, deploy by mail (sealed), play turns by mail with a
forced retreat, a capture and an illegal order refused with a useful reply, receive PNG
maps (decoded and checked) and reports, until a victory; then the archive exports and
`pbem verify` passes, and fails after one stored order is altered."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image
from sqlmodel import select

from pbem.cli import main as cli
from pbem.db.models import SheetRow
from pbem.demo import ScriptedTable, load_script, play_script
from pbem.games.kriegspiel.render import square_centre
from pbem.service import games


def _config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[database]\nurl = "{url}"\n[render]\nwidth = 800\n', encoding="utf-8")
    return path


def _colour_near(png: bytes, square: str, width: int) -> set[tuple[int, int, int]]:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    x, y = square_centre(square, width)
    return {img.getpixel((int(x) + dx, int(y) + dy)) for dx in range(-6, 7, 3) for dy in range(-6, 7, 3)}


async def test_kriegspiel_by_mail_from_welcome_to_victory(table: ScriptedTable, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    ctx = table.app.ctx
    config = _config(tmp_path, ctx.config.database.url)
    script = load_script("kriegspiel")
    assert cli(["--config", str(config), "game", "new", "kriegspiel", "--name", script.name,
                "--seat", "north=nora@localhost", "--seat", "south=sandro@localhost:it", "--deadline", "48h"],
               clock=ctx.clock) == 0
    game_id = capsys.readouterr().out.strip()
    assert game_id == "k1"
    table.addresses = {"north": "nora@localhost", "south": "sandro@localhost"}
    table.inboxes = {s: table.inboxes[s] for s in table.addresses}
    table.mail = {s: [] for s in table.addresses}
    await table.app.drain()

    summary = await play_script(table, ctx, script, game_id=game_id)

    assert summary["status"] == "finished"
    assert summary["outcome"] == {"result": "win", "winners": ["north"], "reason": "arsenals"}
    north, south = table.mail["north"], table.mail["south"]
    # Welcome mails carry the secret, the dice commitment and a starting map.
    assert "welcome" in north[0].subject and "benvenuto" in south[0].subject
    commitment = games.show_game(ctx, game_id)["commitment"]
    assert commitment in north[0].text and commitment in south[0].text
    # During the sealed deployment North's map shows no South unit.
    deploy_report = [m for m in north if "turn 0" in m.subject and "report" in m.subject][0]
    assert north[0].attachments["k1-start.png"][:8] == b"\x89PNG\r\n\x1a\n"
    accepted = [m for m in north if "turn 0" in m.subject and "accepted" in m.subject][0]
    assert "INFANTRY A1" in accepted.text and "FANTERIA" not in accepted.text
    sealed = json.loads(north[0].attachments["k1-start.json"])
    assert sealed["hidden_sides"] == ["south"] and not [u for u in sealed["units"] if u["side"] == "south"]
    revealed = json.loads(next(v for n, v in deploy_report.attachments.items() if n.endswith(".json")))
    assert len([u for u in revealed["units"] if u["side"] == "south"]) == 17
    # The illegal order came back refused, naming the line and why.
    refusal = [m for m in north if "NOT accepted" in m.subject]
    assert len(refusal) == 1
    assert "line 4" in refusal[0].text and "R8" in refusal[0].text and "MOVE Q9 S7" in refusal[0].text
    # Reports: the forced retreat and the capture, term by term, in each player's language.
    texts = "\n".join(m.text for m in north if "report" in m.subject)
    assert "7 (Q22 cavalry, charge) = 7 against defence 6 (R21 infantry) = 6" in texts
    assert "forced retreat" in texts and "captured" in texts
    testi = "\n".join(m.text for m in south if "rapporto" in m.subject)
    assert "ritirata" in testi and "catturat" in testi
    # Every report carries a PNG map (decoded) and the seat's view as JSON.
    reports = [m for m in north if "report" in m.subject]
    assert len(reports) >= 15
    final = reports[-1]
    png_name = next(n for n in final.attachments if n.endswith(".png"))
    png = final.attachments[png_name]
    assert Image.open(io.BytesIO(png)).size[0] == 800
    view = json.loads(final.attachments[png_name.replace(".png", ".json")])
    assert view["outcome"]["winners"] == ["north"] and view["viewer"] == "north"
    north_units = {u["square"] for u in view["units"] if u["side"] == "north"}
    assert "T3" in north_units  # the raiding cavalry stands on the ruined arsenal
    assert len(_colour_near(png, "T3", 800)) > 1  # something is drawn there
    # The final report reveals the dice seed, which matches the commitment.
    seed = games.show_game(ctx, game_id)["seed"]
    assert seed and seed in final.text

    # The archive exports and verifies; after one stored order is altered it does not.
    out = tmp_path / "archive"
    assert cli(["--config", str(config), "archive", "export", game_id, "--out", str(out)], clock=ctx.clock) == 0
    assert (out / "index.html").exists() and (out / "maps" / "phase-0.png").exists()
    assert cli(["verify", str(out)]) == 0
    assert "OK k1" in capsys.readouterr().out
    with ctx.session() as s:
        row = s.exec(select(SheetRow).where(SheetRow.game_id == game_id, SheetRow.canonical == "MOVE P21 Q22\nATTACK R21")).one()
        row.canonical = "MOVE P21 Q21\nATTACK R21"
        s.add(row)
        s.commit()
    altered = tmp_path / "altered"
    assert cli(["--config", str(config), "archive", "export", game_id, "--out", str(altered)], clock=ctx.clock) == 0
    assert cli(["verify", str(altered)]) == 1
    err = capsys.readouterr().out
    assert "FAILED k1" in err and "turn" in err
