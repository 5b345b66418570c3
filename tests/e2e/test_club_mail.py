"""A club by mail through real SMTP and IMAP (the embedded pymap + aiosmtpd on loopback), on
a real SQLite file and on PostgreSQL when PBEM_TEST_POSTGRES_URL is set (issue 13, items 2
and 3): an open Arditi game for four filled by JOIN / CONFIRM from four addresses and
started; a seat freed and taken over by a fifth player, whose welcome carries a new
secret, the position (a PNG, decoded) and the seat's history; the bad inputs, each with its
own answer; a forged From that signs nobody up and gets its target one code an hour."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from PIL import Image
from sqlmodel import select

from pbem.app import App
from pbem.db.models import Game, Seat, SeatEntry
from pbem.mail.parse import IncomingMail
from pbem.service import games, signup, turns
from tests.e2e.mailstack import settle
from tests.mail.servers import MailHarness
from tests.service.helpers import files_of, outbox
from tests.support.players import secret_from_welcome

PBEM = "pbem@localhost"
FOUR = {"red": "ann@localhost", "blue": "bea@localhost", "green": "cid@localhost", "yellow": "dan@localhost"}
EVE, ZED = "eve@localhost", "zed@localhost"
CODE = re.compile(r"CON(?:FIRM|FERMA) (\S+)")


@pytest.fixture
def app_settings() -> dict[str, Any]:
    """Strangers (Eve, Zed) get answers to more than one mail a day (the default is 1): the
    tests read every refusal."""
    return {"limits": {"stranger_per_day": 20}}


async def say(app: App, mail: MailHarness, sender: str, text: str, expect: str = "command") -> IncomingMail:
    """``sender`` mails ``text`` to the server; its one answer, read over IMAP."""
    await mail.send_text(sender, PBEM, "club", text + "\n\n-- \nsent from my club mail\n")
    assert await settle(app, 1) == {expect: 1}
    got = await mail.wait_for(sender)
    assert len(got) == 1, [(m.subject, m.text[:200]) for m in got]
    return got[0]


async def sign_up(app: App, mail: MailHarness, sender: str, line: str) -> IncomingMail:
    asked = await say(app, mail, sender, line)
    code = CODE.search(asked.text)
    assert code is not None, asked.text
    assert "Nothing has changed yet" in asked.text
    return await say(app, mail, sender, f"CONFIRM {code.group(1)}")


def taken(app: App, game_id: str) -> dict[str, str]:
    with app.ctx.session() as s:
        return {e.seat: e.address for e in s.exec(select(SeatEntry).where(SeatEntry.game_id == game_id))
                if e.status == "taken"}


async def test_an_open_game_filled_by_mail_and_a_seat_taken_over(app: App, embedded_mail: MailHarness) -> None:
    ctx, mail = app.ctx, embedded_mail
    game_id = games.create(ctx, "arditi", "Club night", [games.SeatSpec.parse(f"{s}=open") for s in FOUR])
    listing = await say(app, mail, EVE, "GAMES")
    assert f"{game_id} — Club night" in listing.text and "free red, blue, green, yellow" in listing.text

    # Four players sign up; the seats are taken only on CONFIRM, the game starts with the last.
    for seat, address in list(FOUR.items())[:3]:
        done = await sign_up(app, mail, address, f"Hi!\nJOIN {game_id} {seat}")
        assert f"you hold the seat {seat}" in done.text
    assert taken(app, game_id) == {s: a for s, a in list(FOUR.items())[:3]}
    assert not outbox(ctx, kind="welcome")
    last = FOUR["yellow"]
    asked = await say(app, mail, last, f"GAME {game_id}\nENTRA\nEND")  # in a block without SEAT, in Italian
    code = CODE.search(asked.text)
    assert code is not None
    await mail.send_text(last, PBEM, "re: code", f"CONFERMA {code.group(1)}")
    assert await settle(app, 1) == {"command": 1}
    got = {m.subject: m for m in await mail.wait_for(last, count=2)}
    assert any("la partita è cominciata" in m.text for m in got.values())  # asked with ENTRA: in Italian
    secrets = {}
    for seat, address in FOUR.items():
        welcome = [m for m in ([*got.values()] if address == last else await mail.wait_for(address))
                   if m.subject.endswith(("welcome", "benvenuto"))]
        head = "il tuo posto è" if address == last else "you hold the seat"
        assert len(welcome) == 1 and head in welcome[0].text.lower() and f"({game_id})" in welcome[0].text
        secrets[seat] = secret_from_welcome(welcome[0].text)
    assert len(set(secrets.values())) == 4
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "active"

    # Bad inputs, each with its own answer, nothing changed.
    assert "has started" in (await say(app, mail, EVE, f"JOIN {game_id}", "refused")).text
    assert "There is no game zz9" in (await say(app, mail, EVE, "JOIN zz9", "refused")).text
    assert "No request from this address" in (await say(app, mail, EVE, "CONFIRM 2345-6789-abcd", "refused")).text
    assert "has a player" in (await say(app, mail, EVE, f"TAKEOVER {game_id} red", "refused")).text

    # A turn passes (everybody's default orders), then the game master frees green.
    ctx.clock.advance(hours=73)  # type: ignore[attr-defined]
    assert turns.resolve_due(ctx) == 1
    await app.drain()
    assert "free for takeover" in signup.free(ctx, game_id, "green")
    await app.drain()
    listing = await say(app, mail, EVE, "PARTITE")  # a stranger's Italian keyword: an Italian answer
    to_take = listing.text.split("(SUBENTRA <partita> <posto>):")[1].split("Le tue partite")[0]
    assert f"{game_id} — Club night (Arditi" in to_take and to_take.rstrip().endswith(": green")
    with ctx.session() as s:
        assert s.exec(select(Seat).where(Seat.game_id == game_id, Seat.name == "green")).one().status == "abandoned"
    assert any("freed the seat green" in m.text for m in await mail.wait_for(FOUR["green"], timeout=5))

    # A fifth player takes it over and is welcomed with a new secret, the map and the history.
    ctx.clock.advance(hours=1, seconds=1)  # type: ignore[attr-defined]  # Eve's hour of codes is over
    asked = await say(app, mail, EVE, f"SUBENTRA {game_id} green")
    code = CODE.search(asked.text)
    assert code is not None
    await mail.send_text(EVE, PBEM, "code", f"CONFIRM {code.group(1)}")
    assert await settle(app, 1) == {"command": 1}
    eve = await mail.wait_for(EVE, count=2)
    assert any("è tuo" in m.text for m in eve)  # Eve asked with SUBENTRA: answered in Italian
    (greeting,) = [m for m in eve if m.subject.endswith("benvenuto")]
    assert "il tuo posto è" in greeting.text.lower() and "Ciò che il posto green ha giocato finora" in greeting.text
    assert "Storia di Club night" in greeting.text and "Turno 1" in greeting.text
    new_secret = secret_from_welcome(greeting.text)
    assert new_secret not in secrets.values()
    (row,) = outbox(ctx, to=EVE, kind="welcome")
    pngs = {name: data for name, data in files_of(row).items() if name.endswith(".png")}
    assert pngs, files_of(row).keys()
    image = Image.open(io.BytesIO(next(iter(pngs.values()))))
    image.load()
    assert image.width == 400 and image.height > 100


async def test_a_forged_from_signs_nobody_up(app: App, embedded_mail: MailHarness) -> None:
    """Mallory writes as Zed: Zed gets one code mail an hour, Mallory never sees a code,
    and no guess takes a seat."""
    ctx, mail = app.ctx, embedded_mail
    game_id = games.create(ctx, "duel", "Target", [games.SeatSpec.parse("red=open"), games.SeatSpec.parse("blue=open")])
    for n in range(6):
        await mail.send_text(ZED, PBEM, f"join {n}", f"JOIN {game_id}")
        await mail.send_text(ZED, PBEM, f"guess {n}", f"CONFIRM {n}{n}{n}{n}-abcd-efgh")
    handled = await settle(app, 12)
    assert handled.get("command", 0) == 1 and handled.get("refused", 0) == 11
    codes = [m for m in await mail.wait_for(ZED, count=1, timeout=5) if CODE.search(m.text)]
    assert len(outbox(ctx, to=ZED, kind=signup.CODE_KIND)) == 1 and len(codes) <= 1
    assert taken(app, game_id) == {}
