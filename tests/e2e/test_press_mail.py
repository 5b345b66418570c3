"""Observers and press through real SMTP and IMAP (the embedded pymap + aiosmtpd on loopback), on a
real SQLite file and on PostgreSQL when PBEM_TEST_POSTGRES_URL is set (issue "Observers and press",
"Done means"): a Block Mania game of three with an observer who asked by mail (WATCH, CONFIRM; delay 1,
the game hides hands) and white press; a Kriegspiel game whose grey press is refused during the
sealed deployment (press_in=orders) and relayed as "anonymous" after it; an observer who receives the
final report of a Duel with the revealed seed. Every mail an observer receives is read over IMAP and
checked: the spectator's view, no hand, no press, no seat's secret or reply address. The Block Mania
and Kriegspiel games run on SQLite only (tests/e2e/mailstack.py: sqlite_only); the Duel to its end
runs on both databases."""

from __future__ import annotations

import json
import re

from pbem.app import App
from pbem.games.blockmania import RULES as MANIA
from pbem.games.kriegspiel.play import opening_text
from pbem.mail.parse import IncomingMail
from pbem.service import games, observers, store
from tests.e2e.mailstack import settle, sqlite_only
from tests.mail.servers import MailHarness
from tests.service.helpers import outbox
from tests.support import players
from tests.support.chance import chooser
from tests.support.players import attachments, secret_from_welcome

PBEM = "pbem@localhost"
OLGA, OTTO = "olga@localhost", "otto@localhost"
MANIA_SEATS = {"red": "rita@localhost", "blue": "bruno@localhost", "green": "gina@localhost"}
CODE = re.compile(r"CON(?:FIRM|FERMA) (\S+)")


async def mail_in(app: App, mail: MailHarness, sender: str, text: str, expect: str) -> None:
    await mail.send_text(sender, PBEM, "to the club", text + "\n\n-- \nsent by mail\n")
    assert await settle(app, 1) == {expect: 1}


def block(game_id: str, seat: str, secret: str, *lines: str) -> str:
    return "\n".join([f"GAME {game_id}", f"SEAT {seat} {secret}", *lines, "END"])


async def welcomes(app: App, mail: MailHarness, seats: dict[str, str]) -> dict[str, str]:
    out = {}
    for seat, address in seats.items():  # the welcome, and the set-up's report where the game has one
        (welcome,) = [m for m in await all_of(app, mail, address) if m.subject.endswith(("welcome", "benvenuto"))]
        out[seat] = secret_from_welcome(welcome.text)
    return out


async def all_of(app: App, mail: MailHarness, address: str, read: int = 0) -> list[IncomingMail]:
    """Every mail the server sent ``address`` (counted in the outbox) but the ``read`` ones, over IMAP."""
    await app.drain()
    return await mail.wait_for(address, count=len(outbox(app.ctx, to=address)) - read)


async def one_with(mail: MailHarness, address: str, needle: str) -> IncomingMail:
    """The one new mail of ``address`` that says ``needle`` (reports may have come meanwhile)."""
    found = [m for m in await mail.wait_for(address) if needle in m.text]
    assert len(found) == 1, needle
    return found[0]


def views_of(m: IncomingMail) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(d) for n, d in players.attachments(m.parsed).items() if n.endswith(".json")]  # type: ignore[arg-type]


@sqlite_only
async def test_block_mania_with_an_observer_and_white_press(app: App, embedded_mail: MailHarness) -> None:
    ctx, mail = app.ctx, embedded_mail
    game_id = games.create(ctx, "blockmania", "Mega-City by mail", [games.SeatSpec(s, a) for s, a in MANIA_SEATS.items()])
    secrets = await welcomes(app, mail, MANIA_SEATS)

    # Olga asks to watch by mail; a player may not.
    await mail_in(app, mail, MANIA_SEATS["red"], f"WATCH {game_id}", "refused")
    await one_with(mail, MANIA_SEATS["red"], "players may not watch their own game")
    await mail_in(app, mail, OLGA, f"WATCH {game_id}", "command")
    (asked,) = await mail.wait_for(OLGA)
    code = CODE.search(asked.text)
    assert code is not None
    await mail_in(app, mail, OLGA, f"CONFIRM {code.group(1)}", "command")
    (welcome,) = await mail.wait_for(OLGA)
    assert "You now watch" in welcome.text and "1 turn late" in welcome.text

    # White press from red to blue and green: a mail of its own each, signed Red, no address.
    await mail_in(app, mail, MANIA_SEATS["red"],
                  block(game_id, "red", secrets["red"], "PRESS blue, green", "The ring is mine. Stay away."), "command")
    await one_with(mail, MANIA_SEATS["red"], "your message went to Blue, Green")
    for seat in ("blue", "green"):
        got = await one_with(mail, MANIA_SEATS[seat], "The ring is mine. Stay away.")
        assert "from Red to Blue, Green" in got.text
        assert MANIA_SEATS["red"] not in got.text and MANIA_SEATS["red"] not in str(got.headers)

    # Turns by mail until the observer has seen two of them, each one turn late.
    pick = chooser("press-e2e")
    for _ in range(12):
        with ctx.session() as s:
            state = store.state_of(store.get_game(s, game_id))
        for seat in MANIA.phase(state).awaiting:
            orders = MANIA.random_orders(state, seat, pick).splitlines()
            await mail_in(app, mail, MANIA_SEATS[seat], block(game_id, seat, secrets[seat], *orders), "orders")
        if len(outbox(ctx, to=OLGA, kind="observer")) >= 3:
            break
    with ctx.session() as s:
        last = max(r.turn for r in store.phases(s, game_id) if r.resolved_at is not None)
    reports = [m for m in await all_of(app, mail, OLGA, read=2) if "spectator's report" in m.text]
    assert len(reports) >= 2
    for m in reports:
        shown = int(re.search(r"turn (\d+)", m.subject).group(1))  # type: ignore[union-attr]
        assert shown <= last - 1, (m.subject, last)
        (view,) = views_of(m)
        assert view["viewer"] is None
        assert not [e for e in view.get("seats", []) if {"hand", "ready", "standing"} & set(e)]
        png = [d for n, d in players.attachments(m.parsed).items() if n.endswith(".png")]  # type: ignore[arg-type]
        assert png and png[0].startswith(b"\x89PNG")
        assert "The ring is mine" not in m.text  # no press for observers
        assert not [x for x in secrets.values() if x in m.text]


@sqlite_only
async def test_kriegspiel_grey_press_waits_for_the_sealed_deployment(app: App, embedded_mail: MailHarness) -> None:
    ctx, mail = app.ctx, embedded_mail
    seats = {"north": "nora@localhost", "south": "sandro@localhost"}
    game_id = games.create(ctx, "kriegspiel", "Grey war", [games.SeatSpec("north", seats["north"]),
                                                            games.SeatSpec("south", seats["south"], "it")],
                           policies={"press": "grey", "press_in": "orders"})
    secrets = await welcomes(app, mail, seats)
    assert "now watches" in observers.add(ctx, game_id, OTTO)
    await mail_in(app, mail, seats["north"], block(game_id, "north", secrets["north"], "PRESS south", "I deploy east."),
                  "refused")
    refused = await one_with(mail, seats["north"], "nothing was sent")
    assert "press is not allowed while" in refused.text and "(press_in=orders)" in refused.text
    assert not outbox(ctx, kind="press")
    for side in ("north", "south"):
        await mail_in(app, mail, seats[side], block(game_id, side, secrets[side], *opening_text(side).splitlines()),
                      "orders")
    await mail_in(app, mail, seats["north"], block(game_id, "north", secrets["north"], "PRESS south", "Peace?"),
                  "command")
    got = await one_with(mail, seats["south"], "Peace?")
    assert ", da anonimo a " in got.text  # grey press, in the addressee's language
    assert seats["north"] not in got.text and "north" not in got.text.split("\n", 1)[0].lower()
    for m in await all_of(app, mail, OTTO):
        assert "Peace?" not in m.text and "I deploy east" not in m.text
        assert not [x for x in secrets.values() if x in m.text]


async def test_an_observer_receives_the_final_report_with_the_seed(app: App, embedded_mail: MailHarness) -> None:
    ctx, mail = app.ctx, embedded_mail
    seats = {"red": "red@localhost", "blue": "blue@localhost"}
    game_id = games.create(ctx, "duel", "Watched duel", [games.SeatSpec(s, a) for s, a in seats.items()])
    secrets = await welcomes(app, mail, seats)
    assert "now watches" in observers.add(ctx, game_id, OTTO, "it")
    for _ in range(20):
        with ctx.session() as s:
            game = store.get_game(s, game_id)
            if game.status == "finished":
                break
            phase = store.rules_of(game).phase(store.state_of(game))
        for seat in phase.awaiting:
            line = "ROLL" if phase.decision else ("PLAY 3" if seat == "red" else "PLAY 1")
            await mail_in(app, mail, seats[seat], block(game_id, seat, secrets[seat], line), "orders")
    with ctx.session() as s:
        game = store.get_game(s, game_id)
        assert game.status == "finished"
        seed = game.seed_hex
    got = await all_of(app, mail, OTTO)
    assert len(got) >= 3 and "Ora osservi" in got[0].text
    assert seed in got[-1].text and "spettatori" in got[-1].text  # the final report, with the seed
    assert not [m for m in got[:-1] if seed in m.text]
    assert [n for n in attachments(got[-1].parsed) if n.endswith("spectator.png")]  # type: ignore[arg-type]
