"""While mail keeps coming, the serving daemon's watcher runs the deadline jobs (deadlines,
reminders, the purge) at most once in `JOBS_EVERY` seconds, not for every batch of mail
(issue 17: the reminders read every active game's open phase); each of its cycles still
handles the mail and draws the reports."""

from __future__ import annotations

import asyncio
from typing import Any

from pbem import app as app_module
from pbem.app import App
from pbem.mail.transport import MemoryInbox, MemoryOutgoing
from pbem.service.context import Context


async def _until(check: Any, tries: int = 500) -> None:
    for _ in range(tries):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the watcher did not get there in time")


async def test_mail_cycles_leave_the_deadline_jobs_to_their_interval(ctx: Context) -> None:
    inbox = MemoryInbox()
    app = App(ctx, inbox, MemoryOutgoing())
    cycles: list[bool] = []  # each watcher cycle: whether it ran the jobs
    jobs = 0
    plain_cycle, plain_jobs = app.cycle, app.run_jobs

    async def cycle(jobs: bool = True) -> Any:
        summary = await plain_cycle(jobs)
        cycles.append(jobs)
        return summary

    async def run_jobs(summary: Any = None) -> None:
        nonlocal jobs
        jobs += 1
        await plain_jobs(summary)

    app.cycle, app.run_jobs = cycle, run_jobs  # type: ignore[method-assign]
    serving = asyncio.create_task(app.serve())
    try:
        await _until(lambda: len(cycles) >= 1)
        assert cycles == [True] and jobs == 1  # the first cycle runs them
        for n in range(3):  # mail comes: a cycle for each, no jobs
            inbox.deliver(f"Subject: hello {n}\r\n\r\nnothing\r\n".encode())
            await _until(lambda: len(cycles) >= n + 2)
        assert cycles[1:] == [False, False, False] and jobs == 1
        assert not inbox.unseen_uids  # the mail was handled all the same
        app._jobs_at = (app._jobs_at or 0.0) - app_module.JOBS_EVERY  # as if they ran that long ago
        inbox.deliver(b"Subject: later\r\n\r\nnothing\r\n")
        await _until(lambda: len(cycles) >= 5)
        assert cycles[4] is True and jobs == 2  # due again: the next cycle runs them
    finally:
        app._stop.set()
        await asyncio.wait_for(serving, 10)
