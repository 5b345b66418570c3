"""The Battle of Seattle through real IMAP and SMTP on loopback (the embedded server, and Dovecot
where installed): the demo script's first turn — set-up, sealed reinforcements with emergency
calls, a march, a reaction from the Reserve Pool, combats in both player turns and a move
refused in a combat phase — each phase mailed to the side that must act, reports in each
player's language with decoded PNG maps (rulebook 3.0-3.4, 4.22, 5.0, 5.1, 6.1)."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image

from pbem.demo import ScriptedTable, load_script, play_script
from pbem.service import games


async def test_seattle_first_turn_by_mail(table: ScriptedTable) -> None:
    ctx = table.app.ctx
    script = replace(load_script("seattle"), finish=False)
    table.inboxes = {"demonstrators": table.inboxes["red"], "authorities": table.inboxes["blue"]}
    table.addresses = {"demonstrators": "red@localhost", "authorities": "blue@localhost"}
    table.mail = {s: [] for s in table.addresses}

    summary = await play_script(table, ctx, script)

    assert [s["outcome"] for s in summary["steps"] if s["step"]] == [s.expect for s in script.steps]
    game_id = summary["game"]
    shown = games.show_game(ctx, game_id)
    assert shown["status"] == "active" and shown["turn"] >= 1
    dem, auth = table.mail["demonstrators"], table.mail["authorities"]
    assert "benvenuto" in dem[0].subject and "welcome" in auth[0].subject
    # The refused move names the phase it cannot be ordered in.
    refusal = [m for m in auth if "NOT accepted" in m.subject]
    assert len(refusal) == 1 and "MOVE cannot be ordered in the phase" in refusal[0].text
    # The emergency calls cost 8 points; the Demonstrators' attack is reported term by term.
    auth_reports = "\n".join(m.text for m in auth if "report" in m.subject)
    assert "Visibility Authorities -8: 2 emergency reinforcements called." in auth_reports
    rapporti = "\n".join(m.text for m in dem if "rapporto" in m.subject)
    assert "Combattimento in Convention Center" in rapporti and "SPD1 4 = 4" in rapporti, rapporti[-6000:]
    # Only the side that must act is asked for orders: the set-up report to the Authorities asks
    # nothing, the one to the Demonstrators carries their template.
    first_dem = next(m for m in dem if "rapporto" in m.subject)
    first_auth = next(m for m in auth if "report" in m.subject)
    assert "I tuoi ordini adesso" in first_dem.text and "Your orders now" not in first_auth.text
    # Every report carries the map: a PNG that decodes, portrait, at the configured width.
    for m in [m for m in dem + auth if "report" in m.subject or "rapporto" in m.subject]:
        png = next(v for n, v in m.attachments.items() if n.endswith(".png"))
        img = Image.open(io.BytesIO(png))
        assert img.width == 800 and img.height > img.width
