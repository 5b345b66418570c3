"""No lockout, ever (security review, finding 1; hostile mail, item 2), through real SMTP and
IMAP (the embedded server on loopback): a flood of forged mail "from" a player, and a
hundred and fifty from made-up addresses (past the strangers' hourly cap), spend only the strangers' budget. The player's
SECRET NEW still brings the new secret, her orders still get their confirmations, and a
forged order for another seat still reaches that seat as a security notice."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlmodel import select

from pbem.app import App
from pbem.db.models import Holder
from pbem.errors import NotFoundError
from pbem.service import games, limits, teams
from pbem.service.context import Context
from pbem.service.secrets import check_secret
from tests.mail.fixtures import embedded_mail  # noqa: F401  (fixture)
from tests.mail.servers import MailHarness
from tests.security.mailpath import settle
from tests.security.support import orders_mail
from tests.service.helpers import outbox
from tests.support.players import player_mail, secret_from_welcome

RED, BLUE = "red@localhost", "blue@localhost"
#: More than ``limits.strangers_per_hour`` (100): the strangers' cap is reached. (The soak
#: benchmark sends thousands; a thousand here would make this test minutes long.)
STRANGERS = 150
FORGED = 30


@pytest.fixture
async def server(ctx: Context, embedded_mail: MailHarness) -> AsyncIterator[App]:  # noqa: F811
    inbox = embedded_mail.inbox(ctx.config.server.address, max_batch=2000)
    await inbox.connect()
    try:
        yield App(ctx, inbox, embedded_mail.sender())
    finally:
        await inbox.close()


def forged(n: int) -> bytes:
    """Mail "from" red that nobody authenticated: HELP, chatter, an unknown game, a wrong secret."""
    bodies = ["HELP", "hello, is anybody there?", "GAME zz" + "9" * 500 + "\nSEAT red x\nEND\n", "HELP duel"]
    return player_mail(RED, bodies[n % len(bodies)], subject="click here: http://evil.example/")


async def test_a_flood_of_forged_mail_never_locks_a_player_out(server: App, embedded_mail: MailHarness,
                                                                ctx: Context) -> None:  # noqa: F811
    game_id = games.create(ctx, "duel", "Flood", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    await server.drain()
    secrets = {"red": secret_from_welcome((await embedded_mail.wait_for(RED))[0].text),
               "blue": secret_from_welcome((await embedded_mail.wait_for(BLUE))[0].text)}

    smtp = embedded_mail.sender()
    for n in range(FORGED):
        await smtp.send(RED, [ctx.config.server.address], forged(n))
    for n in range(STRANGERS):
        await smtp.send(f"x{n}@made-up.example", [ctx.config.server.address],
                        player_mail(f"x{n}@made-up.example", "HELP"))
    # a forged order for blue's seat, from a made-up address: blue must hear of it
    await smtp.send("eve@made-up.example", [ctx.config.server.address],
                    orders_mail("eve@made-up.example", game_id, "blue", "wrong-secret-1234", subject="URGENT"))
    # and red, after all that, asks for a new secret with her own
    await smtp.send(RED, [ctx.config.server.address],
                    player_mail(RED, f"GAME {game_id}\nSEAT red {secrets['red']}\nSECRET NEW\nEND\n"))
    handled = await settle(server, FORGED + STRANGERS + 2)
    assert handled.get("command", 0) >= 1 and handled.get("error", 0) == 0, handled

    # strangers got at most their own cap; red got one answer to the forged chatter (one a day)
    assert len(outbox(ctx, kind=limits.STRANGER)) == ctx.config.limits.strangers_per_hour
    assert len(outbox(ctx, to=RED, kind=limits.STRANGER)) == 1
    mails = await embedded_mail.wait_for(RED, 2)
    assert sum("secret" in m.subject for m in mails) == 1
    new = secret_from_welcome(next(m for m in mails if "secret" in m.subject).text)
    assert new != secrets["red"]
    assert not any("evil.example" in m.text or "9" * 30 in m.text for m in mails)  # nothing of the forger's echoed
    with ctx.session() as s:
        holder = s.exec(select(Holder).where(Holder.address == RED)).one()
        assert check_secret(new, holder.secret_hash)
    notice = (await embedded_mail.wait_for(BLUE))[-1]
    assert "not your registered address" in notice.text and "URGENT" not in notice.text

    # the old secret is refused, the new one works and its orders are confirmed
    await smtp.send(RED, [ctx.config.server.address], orders_mail(RED, game_id, "red", secrets["red"]))
    await smtp.send(RED, [ctx.config.server.address], orders_mail(RED, game_id, "red", new, ["PLAY 3"]))
    assert await settle(server, 2) == {"refused": 1, "orders": 1}
    confirmation = (await embedded_mail.wait_for(RED))[-1]
    assert "are on file" in confirmation.text and "PLAY 3" in confirmation.text


async def test_the_game_master_gives_a_seat_a_new_secret(server: App, embedded_mail: MailHarness,
                                                         ctx: Context) -> None:  # noqa: F811
    """`pbem game seat reset GAME SEAT [EMAIL]`: the repair when a secret is lost or leaked
    (before, `seat add` said "already holds the seat" and `seat remove` "is the only player")."""
    from pbem import cli

    args = cli.build_parser().parse_args(["game", "seat", "reset", "d1", "red", RED])
    assert (args.func, args.id, args.seat, args.email) == (cli.cmd_game_seat_reset, "d1", "red", RED)
    assert cli.build_parser().parse_args(["game", "seat", "reset", "d1", "red"]).email is None

    game_id = games.create(ctx, "duel", "Reset", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    await server.drain()
    old = secret_from_welcome((await embedded_mail.wait_for(RED))[0].text)
    blue_old = secret_from_welcome((await embedded_mail.wait_for(BLUE))[0].text)

    assert teams.reset(ctx, game_id, "red", RED.upper()) == [
        f"{RED}: a new secret for the seat red in {game_id}; a fresh welcome mail carrying it is queued. "
        "The old secret no longer works."]
    await server.drain()
    welcome = (await embedded_mail.wait_for(RED))[-1]
    new = secret_from_welcome(welcome.text)
    assert new != old and game_id in welcome.text
    assert await embedded_mail.fetch(BLUE) == []  # blue's seat and secret are untouched

    smtp = embedded_mail.sender()
    await smtp.send(RED, [ctx.config.server.address], orders_mail(RED, game_id, "red", old))
    await smtp.send(RED, [ctx.config.server.address], orders_mail(RED, game_id, "red", new, ["PLAY 3"]))
    await smtp.send(BLUE, [ctx.config.server.address], orders_mail(BLUE, game_id, "blue", blue_old, ["PLAY 2"]))
    assert await settle(server, 3) == {"refused": 1, "orders": 2}
    with pytest.raises(NotFoundError, match="does not hold the seat red"):
        teams.reset(ctx, game_id, "red", "eve@localhost")
    with pytest.raises(NotFoundError, match="no seat 'green'"):
        teams.reset(ctx, game_id, "green")
