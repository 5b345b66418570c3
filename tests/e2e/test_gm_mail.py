"""The life of a club's game through real SMTP and IMAP (the embedded pymap + aiosmtpd on
loopback), on a real SQLite file and on PostgreSQL when PBEM_TEST_POSTGRES_URL is set
(issue 13, items 4-7): the game master extends a deadline and sends an announcement by
mail, while mail signed GM without the secret or from another address is refused and
changes nothing; the deadline's .ics keeps its UID across the extension; a player's own
zone shows in their mail; an absence moves one game's deadline and runs out into the
defaults in another (on SQLite only: tests/e2e/mailstack.py, sqlite_only); a Corteo game ends
in a draw voted by mail."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import pytest
from icalendar import Calendar

from pbem.app import App
from pbem.db.models import Game
from pbem.mail.parse import IncomingMail
from pbem.service import games, master, store
from tests.e2e.mailstack import settle, sqlite_only
from tests.mail.servers import MailHarness
from tests.support import players
from tests.support.players import secret_from_welcome

PBEM = "pbem@localhost"
RED, BLUE, GM, MALLORY = "red@localhost", "blue@localhost", "gm@localhost", "mallory@localhost"
CODE = re.compile(r"CONFIRM (\S+)")


async def say(app: App, mail: MailHarness, sender: str, text: str, expect: str = "command") -> None:
    await mail.send_text(sender, PBEM, "club", text + "\n\n-- \nsent by mail\n")
    assert await settle(app, 1) == {expect: 1}


async def one(mail: MailHarness, address: str) -> IncomingMail:
    (got,) = await mail.wait_for(address)
    return got


def event(m: IncomingMail):  # type: ignore[no-untyped-def]
    """The mail's calendar event, parsed by icalendar."""
    files = players.attachments(m.parsed)  # type: ignore[arg-type]
    (ics,) = [data for name, data in files.items() if name.endswith(".ics")]
    cal = Calendar.from_ical(ics)
    assert str(cal["method"]) == "PUBLISH"
    (vevent,) = cal.walk("VEVENT")
    return vevent


def deadline_of(app: App, game_id: str) -> datetime:
    with app.ctx.session() as s:
        phase = store.current_phase(s, store.get_game(s, game_id))
        assert phase is not None and phase.deadline is not None
        return phase.deadline


async def set_up(app: App, mail: MailHarness, **policies: str) -> tuple[str, dict[str, str]]:
    game_id = games.create(app.ctx, "duel", "Club duel", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")],
                           policies=policies)
    await app.drain()
    welcome = {a: await one(mail, a) for a in (RED, BLUE)}
    return game_id, {a: secret_from_welcome(m.text) for a, m in welcome.items()} | {
        f"uid:{a}": str(event(m)["uid"]) for a, m in welcome.items()}


def gm_block(game_id: str, secret: str, *lines: str) -> str:
    return "\n".join([f"GAME {game_id}", f"GM {secret}", *lines, "END"])


async def test_the_game_master_by_mail(app: App, embedded_mail: MailHarness) -> None:
    ctx, mail = app.ctx, embedded_mail
    game_id, seats = await set_up(app, mail)
    first = deadline_of(app, game_id)
    assert seats[f"uid:{RED}"] == seats[f"uid:{BLUE}"]  # one event per game and phase

    # Red reads times in New York: SET ZONE, confirmed by the code mailed back.
    await say(app, mail, RED, "SET ZONE America/New_York")
    code = CODE.search((await one(mail, RED)).text)
    assert code is not None
    await say(app, mail, RED, f"CONFIRM {code.group(1)}")
    await one(mail, RED)

    assert "gm@localhost" in master.appoint(ctx, game_id, GM)
    await app.drain()
    gm_secret = secret_from_welcome((await one(mail, GM)).text)
    assert gm_secret not in seats.values()

    # Without the secret, or from another address: refused, nothing changed, only the GM told.
    await say(app, mail, GM, gm_block(game_id, "aaaa-bbbb-cccc", "EXTEND 24h"), expect="refused")
    assert "wrong or missing GM secret" in (await one(mail, GM)).text
    await say(app, mail, MALLORY, gm_block(game_id, gm_secret, "END DRAW"), expect="refused")
    assert "not the game master's address" in (await one(mail, GM)).text
    await say(app, mail, RED, gm_block(game_id, seats[RED], "PAUSE"), expect="refused")  # a seat's secret
    assert deadline_of(app, game_id) == first
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "active"
    for nobody in (RED, MALLORY, GM):  # the forger hears nothing; the GM's notice was sent once
        with pytest.raises(TimeoutError):
            await mail.wait_for(nobody, timeout=0.3)

    # EXTEND by mail: every player is told, in their zone, with the same event moved.
    await say(app, mail, GM, gm_block(game_id, gm_secret, "PROROGA 24h"))
    assert "extended" in (await one(mail, GM)).text
    assert deadline_of(app, game_id) == first + timedelta(hours=24)
    red, blue = await one(mail, RED), await one(mail, BLUE)
    assert "EST" in red.text and "UTC" in red.text and "CET" not in red.text  # red's own zone, and UTC
    assert "prorogata" in blue.text and "CET" in blue.text
    for m, who in ((red, RED), (blue, BLUE)):
        moved = event(m)
        assert str(moved["uid"]) == seats[f"uid:{who}"] and int(moved["sequence"]) == 1
        assert moved.decoded("dtstart") == first + timedelta(hours=24)

    # ANNOUNCE: the lines up to END go to every seat.
    await say(app, mail, GM, gm_block(game_id, gm_secret, "ANNOUNCE", "The club meets on Friday.", "Bring dice."))
    assert "2" in (await one(mail, GM)).text
    for who in (RED, BLUE):
        assert "The club meets on Friday.\nBring dice." in (await one(mail, who)).text.replace("\r\n", "\n")

    # Red's report shows the next deadline in red's zone, with a new event.
    await say(app, mail, RED, f"GAME {game_id}\nSEAT red {seats[RED]}\nPLAY 1\nEND", expect="orders")
    await say(app, mail, BLUE, f"GAME {game_id}\nSEAT blue {seats[BLUE]}\nGIOCA 2\nEND", expect="orders")
    for _ in range(3):
        await app.cycle()
    report = next(m for m in await mail.wait_for(RED, count=2) if "report" in m.subject)
    assert "EST" in report.text and "UTC" in report.text
    assert str(event(report)["uid"]) != seats[f"uid:{RED}"]


@sqlite_only
async def test_absences_move_a_deadline_and_run_out(app: App, embedded_mail: MailHarness) -> None:
    ctx, mail = app.ctx, embedded_mail
    roomy, seats = await set_up(app, mail)  # 14 days allowed (the configuration's default)
    tight, tight_seats = await set_up(app, mail, absence_days="1")
    first = {g: deadline_of(app, g) for g in (roomy, tight)}  # Thu 26 Nov 09:00 UTC (72h)
    await say(app, mail, RED, "ASSENZA 2026-11-25 2026-11-28")
    code = CODE.search((await one(mail, RED)).text)
    assert code is not None
    await say(app, mail, RED, f"CONFERMA {code.group(1)}")  # the daemon's cycle runs the deadline job too
    await app.cycle()
    await app.drain()
    assert deadline_of(app, roomy) == first[roomy] + timedelta(days=3)  # Sun 29 Nov, after the absence
    assert deadline_of(app, tight) == first[tight] + timedelta(days=1)  # the allowance: one day
    told = await mail.wait_for(BLUE, count=2)
    assert all("spostata" in m.text for m in told)
    moved = {str(event(m)["uid"]): event(m) for m in told}
    assert {int(e["sequence"]) for e in moved.values()} == {1}
    assert seats[f"uid:{BLUE}"] in moved and tight_seats[f"uid:{BLUE}"] in moved
    mine = await mail.wait_for(RED, count=4)  # the confirmation, two moves, the allowance spent
    assert sum("moves the deadline" in m.text for m in mine) == 2
    assert any("beyond this game's 1 day" in m.text for m in mine)

    # The tight game's deadline passes while red is away: red's defaults play.
    await say(app, mail, BLUE, f"GAME {tight}\nSEAT blue {tight_seats[BLUE]}\nGIOCA 2\nEND", expect="orders")
    await one(mail, BLUE)
    ctx.clock.advance(days=4, hours=1)  # type: ignore[attr-defined]  # Fri 27 Nov 10:00 UTC
    for _ in range(3):
        await app.cycle()
    with ctx.session() as s:
        sources = {r.seat: r.source for r in store.sheets_of_phase(s, tight, 0)}
    assert sources == {"red": "default", "blue": "mail"}
    assert deadline_of(app, roomy) == first[roomy] + timedelta(days=3)  # the roomy game still waits


async def test_a_draw_voted_in_corteo(app: App, embedded_mail: MailHarness) -> None:
    ctx, mail = app.ctx, embedded_mail
    game_id = games.create(ctx, "corteo", "Corteo for two", [games.SeatSpec("corteo", RED, "it"),
                                                             games.SeatSpec("potere", BLUE)])
    await app.drain()
    secret = {a: secret_from_welcome((await one(mail, a)).text) for a in (RED, BLUE)}
    await say(app, mail, RED, f"PARTITA {game_id}\nPOSTO corteo {secret[RED]}\nPATTA\nLa piazza è vuota.\nFINE")
    assert "registrato" in (await one(mail, RED)).text
    offer = await one(mail, BLUE)
    assert "corteo votes for a draw" in offer.text and "La piazza è vuota." in offer.text
    await say(app, mail, BLUE, f"GAME {game_id}\nSEAT potere {secret[BLUE]}\nDRAW\nEND")
    final = {a: [m for m in await mail.wait_for(a, count=2) if "final" in m.subject or "finale" in m.subject]
             for a in (RED, BLUE)}
    assert "patta" in final[RED][0].text and "a draw" in final[BLUE][0].text
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "finished"
        outcome = json.loads(game.outcome_json)
        assert game.seed_hex in final[BLUE][0].text
    assert outcome["result"] == "draw" and [v["seat"] for v in outcome["votes"]] == ["corteo", "potere"]
