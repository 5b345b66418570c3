"""A Corteo scenario to its end through real IMAP and SMTP on loopback (the embedded server, and
Dovecot where installed): the demo's Scenario Internazionalista (rulebook D), the corteo held by a
team of two players each with their own secret and language. The scenario's Head restriction is
refused by mail, the Corteo Presidenziale moves, the second player of the team files a sheet, the
reports show the scenario and its points in each player's language, the maps decode, and after the
tenth hand the final score reaches every player."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image

from pbem.demo import ScriptedTable, load_script, play_script
from pbem.service import games


async def test_scenario_internazionalista_to_the_end_by_mail_with_a_team(table: ScriptedTable) -> None:
    ctx = table.app.ctx
    script = replace(load_script("corteo:internazionalista"), finish=False)
    assert script.kind == "corteo" and script.options == {"scenario": "internazionalista"}
    anna, beppe, paul = "red@localhost", "nora@localhost", "blue@localhost"
    table.inboxes = {"corteo": table.inboxes["red"], "potere": table.inboxes["blue"],
                     "beppe": table.inboxes["north"]}
    table.addresses = {"corteo": anna, "potere": paul, "beppe": beppe}
    table.mail = {s: [] for s in table.addresses}
    team = games.SeatSpec.parse(f"corteo={anna}:it,{beppe}:en")
    game_id = games.create(ctx, "corteo", script.name, [team, games.SeatSpec("potere", paul, "en")],
                           options=script.options)

    summary = await play_script(table, ctx, script, game_id=game_id)
    assert [s["outcome"] for s in summary["steps"] if s["step"]] == [s.expect for s in script.steps]
    refusal = [m for m in table.mail["corteo"] if "NON accettati" in m.subject]
    assert len(refusal) == 1 and "la Testa può essere solo di MOV ML, non di LC" in refusal[0].text
    # The second player of the team files the corteo's sheet with her own secret.
    for _ in range(12):
        shown = games.show_game(ctx, game_id)
        if "corteo" in shown["awaiting"] and shown["phase"] == "corteo-movement":
            break
        for seat in shown["awaiting"]:
            await table.send(game_id, seat, "PASS")
            await table.settle()
        await table.collect_all()
    await table.send(game_id, "corteo", "PASS", secret=table.secrets[(game_id, "beppe")], sender=beppe)
    await table.settle()
    got = await table.collect_all()
    assert any("accepted" in m.subject for m in got["beppe"])
    # Everyone passes to the end of the tenth hand.
    for _ in range(80):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        for seat in shown["awaiting"]:
            await table.send(game_id, seat, "PASS")
            await table.settle()
        await table.collect_all()
    shown = games.show_game(ctx, game_id)
    assert shown["status"] == "finished"
    reports = {who: [m for m in table.mail[who] if "report" in m.subject or "rapporto" in m.subject]
               for who in ("corteo", "beppe", "potere")}
    assert "Scenario Internazionalista" in reports["corteo"][-1].text
    assert "Punti dello scenario" in reports["corteo"][-1].text and "Fine del gioco" in reports["corteo"][-1].text
    assert "Scenario points" in reports["beppe"][-1].text and "End of the game" in reports["potere"][-1].text
    moved = "\n".join(m.text for m in reports["potere"])
    assert "PRE2: M19 → M20 → M21" in moved and "Corteo Presidenziale: PRE1 in M20" in moved
    for m in reports["potere"][:3]:
        png = next(v for n, v in m.attachments.items() if n.endswith(".png"))
        img = Image.open(io.BytesIO(png))
        assert img.width == 800 and img.height > img.width
