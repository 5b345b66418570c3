"""A league's round through real IMAP and SMTP on loopback (issue "Leagues, ratings and the
club's website"): a fourth player signs up by mail (JOIN LEAGUE, the code, CONFIRM), the
round is paired and every welcome arrives by SMTP/IMAP, the games are played by order mail,
and STANDINGS comes back by mail with the results."""

from __future__ import annotations

import re

from pbem.demo import ScriptedTable
from pbem.games.kriegspiel.play import opening_text
from pbem.mail.compose import compose
from pbem.service import leagues
from tests.mail.servers import MailHarness

PLAYERS = {"ann": "ann@localhost", "bea": "bea@localhost", "cid": "cid@localhost", "dan": "dan@localhost"}


async def _say(table: ScriptedTable, who: str, text: str) -> None:
    """A player's own mail, outside any game: one command on a line."""
    _mid, raw = compose(sender=PLAYERS[who], to=table.server_address, subject="club", text=f"Hello,\n\n{text}\n",
                        domain="players.invalid", auto_submitted="auto-generated", date=table.app.ctx.now())
    raw = re.sub(rb"(?im)^(Auto-Submitted|X-PBEM-Game|X-Auto-Response-Suppress):[^\r\n]*\r?\n", b"", raw)
    await table.send_out.send(PLAYERS[who], [table.server_address], raw)
    await table.settle()
    while await table.app.drain():
        pass


async def test_a_league_round_by_real_mail(table: ScriptedTable, mail_server: MailHarness) -> None:
    ctx = table.app.ctx
    table.addresses = dict(PLAYERS)
    table.inboxes = {who: mail_server.inbox(addr) for who, addr in PLAYERS.items()}
    table.mail = {who: [] for who in PLAYERS}
    league_id = leagues.create(ctx, "Loopback league", "kriegspiel", "swiss",
                               [PLAYERS[w] for w in ("ann", "bea", "cid")], rounds=2, open_signup=True)
    await _say(table, "dan", f"JOIN LEAGUE {league_id}")
    (code_mail,) = await table.collect("dan")
    code = re.search(r"CONFIRM (\S+)", code_mail.text)
    assert code is not None, code_mail.text
    await _say(table, "dan", f"CONFIRM {code.group(1)}")
    (joined,) = await table.collect("dan")
    assert f"You joined league {league_id} (Loopback league); it has 4 players now" in joined.text

    leagues.pair(ctx, league_id)
    while await table.app.drain():
        pass
    await table.collect_all()
    tables = leagues.show(ctx, league_id)["games"]["1"]
    assert len(tables) == 2
    handles = {}
    for entry in tables:
        game_id = entry["game"]
        seated = {seat: who for seat in ("north", "south") for who in PLAYERS
                  if (game_id, who) in table.secrets and seat in _seat_of(table, game_id, who)}
        assert set(seated) == {"north", "south"}, seated  # each seat's player got the welcome by IMAP
        for seat, who in seated.items():
            handles[entry["seats"][seat]] = who
            lines = opening_text(seat) if seat == "north" else "RESIGN"
            await table.send(game_id, seat, lines, secret=table.secrets[(game_id, who)], sender=PLAYERS[who])
            await table.settle()
        while await table.app.drain():
            pass
    assert all(g["status"] == "finished" for g in leagues.show(ctx, league_id)["games"]["1"])
    await table.collect_all()
    await _say(table, "ann", f"STANDINGS {league_id}")
    answer = (await table.collect("ann"))[-1]
    assert f"Standings of league {league_id} (Loopback league) after round 1 of 2" in answer.text
    rows = [ln.split() for ln in answer.text.splitlines() if re.match(r"\s+\d\. p\d", ln)]
    assert sorted(float(r[2]) for r in rows) == [0, 0, 1, 1]
    winners = {handles[r[1]] for r in rows if float(r[2]) == 1}
    assert all(_seat_of(table, e["game"], who) == ["north"] for e in tables for who in winners
               if (e["game"], who) in table.secrets)


def _seat_of(table: ScriptedTable, game_id: str, who: str) -> list[str]:
    """The seat named in the player's welcome for that game."""
    for got in table.mail[who]:
        if game_id in got.subject and ("welcome" in got.subject or "benvenuto" in got.subject):
            found = re.search(r"^SEAT (\w+)", got.text, re.MULTILINE)
            return [found.group(1)] if found else []
    return []
