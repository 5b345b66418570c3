"""The service behind the embedded mail server on loopback, for the hostile-mail tests:
an App over the test's database and clock, and a way to run cycles until mail is handled."""

from __future__ import annotations

from pbem.app import App
from pbem.service import games
from pbem.service.context import Context
from tests.mail.servers import MailHarness
from tests.support.players import secret_from_welcome

RED, BLUE = "red@localhost", "blue@localhost"


async def settle(app: App, count: int) -> dict[str, int]:
    """Cycles until ``count`` mails were handled (the outbox drained after each)."""
    handled: dict[str, int] = {}
    for _ in range(60):
        summary = await app.cycle()
        for k, v in summary.handled.items():
            handled[k] = handled.get(k, 0) + v
        if sum(handled.values()) >= count:
            return handled
        await app.inbox.wait(0.1)
    raise AssertionError(f"only {handled} handled")


async def new_duel(app: App, mail: MailHarness, ctx: Context, name: str = "Hostile") -> tuple[str, dict[str, str]]:
    """A Duel between red and blue at the embedded server, and the secrets from their welcomes."""
    game_id = games.create(ctx, "duel", name, [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    await app.drain()
    return game_id, {"red": secret_from_welcome((await mail.wait_for(RED))[0].text),
                     "blue": secret_from_welcome((await mail.wait_for(BLUE))[0].text)}
