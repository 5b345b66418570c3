"""Corteo through real IMAP and SMTP on loopback (the embedded server, and Dovecot where
installed): the demo script's set-up (sealed, both sides) and first hand, a move refused with the
hexes the unit can reach, reports in each player's language with the City map decoded (rulebook
C 3a, C 4b, C 10, C 1d)."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image

from pbem.demo import ScriptedTable, load_script, play_script
from pbem.service import games


async def test_corteo_set_up_and_first_hand_by_mail(table: ScriptedTable) -> None:
    ctx = table.app.ctx
    script = replace(load_script("corteo"), finish=False)
    table.inboxes = {"corteo": table.inboxes["red"], "potere": table.inboxes["blue"]}
    table.addresses = {"corteo": "red@localhost", "potere": "blue@localhost"}
    table.mail = {s: [] for s in table.addresses}

    summary = await play_script(table, ctx, script)

    assert [s["outcome"] for s in summary["steps"] if s["step"]] == [s.expect for s in script.steps]
    shown = games.show_game(ctx, summary["game"])
    assert shown["status"] == "active" and shown["turn"] >= 1
    corteo, potere = table.mail["corteo"], table.mail["potere"]
    assert "benvenuto" in corteo[0].subject and "welcome" in potere[0].subject
    refusal = [m for m in corteo if "NON accettati" in m.subject]
    assert len(refusal) == 1 and "MUOVI MOV1 A F12" in refusal[0].text and "D10" in refusal[0].text  # what it reaches
    moved = "\n".join(m.text for m in corteo if "rapporto" in m.subject)
    assert "MOV1: F6 → G6 → H6 → I7 → I8 → I9 → I10 → I11 → I12" in moved
    assert "Testa: MOV; in questa mano MOV1 MOV2." in moved
    for m in [m for m in corteo + potere if "report" in m.subject or "rapporto" in m.subject]:
        png = next(v for n, v in m.attachments.items() if n.endswith(".png"))
        img = Image.open(io.BytesIO(png))
        assert img.width == 800 and img.height > img.width  # the City above, the detail and panel below
