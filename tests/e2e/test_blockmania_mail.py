"""Block Mania through real IMAP and SMTP on loopback (the embedded server, and Dovecot where
installed): the demo script's set-up and first sheets for three players — each player places his
Blockers in turn (3), a square outside his block is refused naming the line, standing instructions
set in a sheet, a Command Phase kept open with CONTINUE — reports in each player's language with the
blocks drawn in a decoded PNG, and no mail carries another player's hand (11.i)."""

from __future__ import annotations

import io
import json
from dataclasses import replace

from PIL import Image

from pbem.demo import ScriptedTable, load_script, play_script
from pbem.service import games


async def test_blockmania_set_up_and_first_turns_by_mail(table: ScriptedTable) -> None:
    ctx = table.app.ctx
    script = replace(load_script("blockmania"), finish=False)
    table.inboxes = {"red": table.inboxes["red"], "blue": table.inboxes["blue"], "green": table.inboxes["north"]}
    table.addresses = {"red": "red@localhost", "blue": "blue@localhost", "green": "nora@localhost"}
    table.mail = {s: [] for s in table.addresses}

    summary = await play_script(table, ctx, script)

    assert [s["outcome"] for s in summary["steps"] if s["step"]] == [s.expect for s in script.steps]
    shown = games.show_game(ctx, summary["game"])
    assert shown["status"] == "active" and shown["turn"] >= 1
    red, blue, green = table.mail["red"], table.mail["blue"], table.mail["green"]
    assert "benvenuto" in red[0].subject and "welcome" in blue[0].subject and "welcome" in green[0].subject
    # 3: a Blocker goes on a Window or Interior square of the player's own block; the refusal names the line.
    refusal = [m for m in red if "NON accettati" in m.subject]
    assert refusal and any("riga" in m.text and "red-2" in m.text for m in refusal)
    rapporti = "\n".join(m.text for m in red if "rapporto" in m.subject)
    assert "red-1" in rapporti and "Punti Comando" in rapporti
    reports = {seat: [m for m in mails if "report" in m.subject or "rapporto" in m.subject]
               for seat, mails in table.mail.items()}
    for seat, mails in reports.items():
        assert mails, seat
        views = 0
        for m in mails:
            png = next(v for n, v in m.attachments.items() if n.endswith(".png"))
            img = Image.open(io.BytesIO(png))
            assert img.width == 800 and img.height > 400  # the blocks side by side and the panel
            for name, data in m.attachments.items():
                if name.endswith(".json"):
                    views += 1
                    view = json.loads(data)
                    for entry in view["seats"]:
                        if entry["name"] != seat:
                            assert not {"hand", "ready", "standing"} & set(entry), (seat, entry["name"])
                        else:
                            assert "hand" in entry
        assert views == len(mails), seat  # every report carries the seat's JSON view
