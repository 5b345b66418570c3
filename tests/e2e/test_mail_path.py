"""The platform's mail path end to end with the Duel test game: welcome mails,
orders, refusals, reports with PNG maps, all through real IMAP and SMTP."""

from __future__ import annotations

import io

from PIL import Image

from pbem.demo import ScriptedTable
from pbem.service import games


async def test_duel_by_mail(table: ScriptedTable) -> None:
    ctx = table.app.ctx
    table.addresses = {"red": "red@localhost", "blue": "blue@localhost"}
    table.inboxes = {s: table.inboxes[s] for s in ("red", "blue")}
    table.mail = {"red": [], "blue": []}
    game_id = games.create(ctx, "duel", "Mail duel", [games.SeatSpec("red", "red@localhost"),
                                                     games.SeatSpec("blue", "blue@localhost", "it")])
    await table.app.drain()
    await table.collect_all()
    assert set(table.secrets) == {(game_id, "red"), (game_id, "blue")}

    await table.send(game_id, "red", "PLAY 9")  # illegal: refused with the line and what is expected
    await table.settle()
    refusal = (await table.collect("red"))[-1]
    assert "NOT accepted" in refusal.subject and "line 3" in refusal.text and "PLAY 9" in refusal.text

    await table.send(game_id, "red", "PLAY 3")
    await table.settle()
    accepted = (await table.collect("red"))[-1]
    assert "accepted" in accepted.subject and "PLAY 3" in accepted.text
    assert accepted.raw.count(b"In-Reply-To:") == 1

    await table.send(game_id, "blue", "GIOCA 2", turn=1)
    await table.settle()
    got = await table.collect_all()
    report = [m for m in got["red"] if "report" in m.subject][0]
    rapporto = [m for m in got["blue"] if "rapporto" in m.subject][0]
    png = report.attachments[f"{game_id}-turn-1-red.png"]
    assert Image.open(io.BytesIO(png)).size[0] == 800
    assert f"{game_id}-turn-1-blue.json" in rapporto.attachments
    shown = games.show_game(ctx, game_id)
    assert "red die" in report.text and (shown["turn"] == 2 or shown["phase"] == "tiebreak")


async def test_forged_sender_gets_nothing_and_the_seat_is_told(table: ScriptedTable) -> None:
    ctx = table.app.ctx
    game_id = games.create(ctx, "duel", "Forgery", [games.SeatSpec("red", "red@localhost"),
                                                   games.SeatSpec("blue", "blue@localhost")])
    await table.app.drain()
    await table.collect_all()
    await table.send(game_id, "red", "PLAY 3", sender="blue@localhost")  # blue pretends to be red
    await table.settle()
    got = await table.collect_all()
    assert [m.subject for m in got["blue"]] == []
    assert len(got["red"]) == 1 and "blue@localhost" in got["red"][0].text
