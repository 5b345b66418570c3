"""Two `pbem serve` workers, each from a checkout of the configuration of its own, serve
one PostgreSQL database through real IMAP and SMTP: exactly one reads the mailbox, both
share deadlines, maps and the outbox, and every order is applied once, every mail sent once."""

from __future__ import annotations

from pathlib import Path

from tests.faults.stack import SEATS, check_exactly_once
from tests.mail.servers import MailHarness
from tests.workers.harness import Club, checkout, make_club, postgres_url, start_worker, stop_all, wait_for

GAMES = 3


class _Game:
    """One game of the club, as the verdict of tests/faults sees a game."""

    def __init__(self, club: Club, game_id: str) -> None:
        self.ctx, self.game_id, self.sent, self._club = club.ctx, game_id, club.sent.get(game_id, {}), club

    async def mailbox(self, address: str) -> list[bytes]:
        return await self._club.mailbox(address)


async def verdict(club: Club, duplicates_allowed: int = 0) -> None:
    for game_id in club.games:
        await check_exactly_once(_Game(club, game_id), duplicates_allowed=duplicates_allowed)


async def test_two_workers_on_two_checkouts_serve_one_database(embedded_mail: MailHarness, tmp_path: Path) -> None:
    url = postgres_url()
    first = checkout(tmp_path / "a", url, embedded_mail)
    club = make_club(first, embedded_mail, GAMES)
    second = checkout(tmp_path / "b", url, embedded_mail, key=tmp_path / "a" / "var" / "pbem.key")
    workers = [start_worker("a", first), start_worker("b", second)]
    try:
        await wait_for(lambda: club.welcomes_sent() == 2 * GAMES, 90, club.counts)
        await club.read_secrets()
        assert len(club.secrets) == 2 * GAMES, club.secrets
        for game_id in club.games:
            for seat in SEATS:
                await club.deploy(game_id, seat)
        # every deployment filed, turn 0 resolved in every game, every report drawn and sent
        await wait_for(lambda: (c := club.counts())["inbound_done"] == 2 * GAMES and c["jobs"] == GAMES
                       and c["jobs_pending"] == 0 and c["queued"] == 0, 120, club.counts)
        await verdict(club)
        readers = [w.name for w in workers if "this worker reads the mailbox now" in w.output()]
        assert len(readers) == 1, readers  # exactly one of them read the mailbox
        assert all(w.proc.poll() is None for w in workers), [w.output()[-2000:] for w in workers]
    finally:
        await stop_all(workers)
        club.ctx.engine.dispose()
