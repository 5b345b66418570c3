"""Workers killed mid-work on one PostgreSQL database, the others carrying on.

Three kinds of death, each where it hurts: a worker dies the instant the SMTP server took
a welcome mail (``outbox.after-send``, before the row is marked sent: the one documented
duplicate), the only map worker dies with the maps drawn and the reports not yet queued
(``reports.before-finish``), and the mailbox reader is killed with SIGKILL while order
mails arrive. After each, another worker takes the work over; at the end every order is
applied once, every report queued once and sent, the hash chains verify (tests/faults'
verdict, game by game)."""

from __future__ import annotations

import time
from pathlib import Path

from pbem.faults import EXIT_CODE
from tests.faults.stack import SEATS
from tests.mail.servers import MailHarness
from tests.workers.harness import checkout, make_club, postgres_url, start_worker, stop_all, wait_for
from tests.workers.test_two_workers import verdict

GAMES = 3
READER = "this worker reads the mailbox now"


async def test_workers_killed_mid_work_the_others_carry_on(embedded_mail: MailHarness, tmp_path: Path) -> None:
    url = postgres_url()
    config = checkout(tmp_path / "a", url, embedded_mail)
    club = make_club(config, embedded_mail, GAMES)
    started = []
    try:
        # 1. alone, it dies right after the server's 250 for the first welcome
        first = start_worker("w1", config, crash_at="outbox.after-send")
        started.append(first)
        await wait_for(lambda: first.proc.poll() is not None, 120, lambda: first.output()[-2000:])
        assert first.proc.returncode == EXIT_CODE, first.output()[-3000:]
        assert "crash point outbox.after-send reached" in first.output()
        # 2. the only map worker (it will die at its first report), and the mailbox reader
        drawer = start_worker("w2", config, role="maps", crash_at="reports.before-finish")
        reader = start_worker("w3", config, role="inbox,deadlines,outbox")
        started += [drawer, reader]
        await wait_for(lambda: club.welcomes_sent() == 2 * GAMES, 90, club.counts)
        await club.read_secrets()
        assert len(club.secrets) == 2 * GAMES, club.secrets
        # 3. a third worker waits for the mailbox; the reader is killed while mail arrives
        standby = start_worker("w4", config, role="inbox,deadlines,outbox")
        started.append(standby)
        for game_id in club.games:
            await club.deploy(game_id, "north")
        await wait_for(lambda: club.counts()["inbound"] >= 1, 60, club.counts)
        reader.kill()
        killed_at = time.monotonic()
        await wait_for(lambda: READER in standby.output(), 60, lambda: standby.output()[-2000:])
        takeover = time.monotonic() - killed_at
        for game_id in club.games:
            await club.deploy(game_id, "south")  # completes turn 0 of every game: reports with maps
        # 4. the map worker dies with its first job's maps drawn; another one takes over
        await wait_for(lambda: drawer.proc.poll() is not None, 120, lambda: drawer.output()[-2000:])
        assert drawer.proc.returncode == EXIT_CODE, drawer.output()[-3000:]
        assert "crash point reports.before-finish reached" in drawer.output()
        assert club.counts()["jobs_pending"] >= 1  # its job was left to the next map worker
        started.append(start_worker("w5", config, role="maps,outbox"))
        await wait_for(lambda: (c := club.counts())["inbound_done"] == 2 * GAMES and c["jobs"] == GAMES
                       and c["jobs_pending"] == 0 and c["queued"] == 0, 180, club.counts)
        # 5. the verdict: at most the welcome sent again after the first death, and one mail
        # the reader may have been killed between the server's 250 and its commit
        await verdict(club, duplicates_allowed=2)
        assert set(club.sent) == set(club.games) and all(len(m) == len(SEATS) for m in club.sent.values())
        assert takeover < 60, takeover  # a bound for liveness, not a speed figure (it is ~TRY_SECONDS)
        assert all(w.proc.poll() is None for w in started[-2:]), [w.output()[-2000:] for w in started[-2:]]
    finally:
        await stop_all(started)
        club.ctx.engine.dispose()
