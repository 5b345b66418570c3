"""What one `pbem serve` does among several on one database: its roles, and the report
stage that takes its share of the pending report jobs.

Roles (``pbem serve --role``): ``inbox`` reads the mailbox (when it holds the lease,
`pbem.service.lease`) and handles each mail; ``deadlines`` resolves the phases whose time
is up and sends the reminders; ``maps`` draws the report maps and queues the reports;
``outbox`` sends the outbox. ``all`` is every one of them (the default; SQLite's one
daemon). A worker started with ``--role maps,outbox`` scales the drawing with cores and
machines.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor

from pbem.errors import ConfigError
from pbem.service import reports
from pbem.service.claims import REPORT, Claims
from pbem.service.context import Context

log = logging.getLogger(__name__)

ROLES = ("inbox", "deadlines", "maps", "outbox")


def parse_roles(value: str) -> frozenset[str]:
    """``all`` or a comma-separated list of `ROLES`."""
    names = {v.strip().lower() for v in value.split(",") if v.strip()}
    if not names or names == {"all"}:
        return frozenset(ROLES)
    unknown = sorted(names - set(ROLES))
    if unknown:
        raise ConfigError(f"unknown role {', '.join(unknown)}: the roles are all, {', '.join(ROLES)}")
    return frozenset(names)


async def draw_reports(ctx: Context, executor: Executor | None, claims: Claims, window: int) -> int:
    """Draw and queue the pending reports this worker can claim, ``window`` jobs in flight
    at once: a job is claimed as another one finishes, so that several workers share a
    deadline storm job by job and the map workers are never idle while jobs wait."""
    done = 0
    flying: set[asyncio.Task[bool]] = set()
    try:
        while True:
            if len(flying) < window:
                for job_id in await asyncio.to_thread(claims.report_jobs, ctx, window - len(flying)):
                    flying.add(asyncio.create_task(_one(ctx, executor, claims, job_id)))
            if not flying:
                return done
            finished, flying = await asyncio.wait(flying, return_when=asyncio.FIRST_COMPLETED)
            done += sum(task.result() for task in finished)
    finally:
        for task in flying:
            task.cancel()
        claims.give_back_all(REPORT)


async def _one(ctx: Context, executor: Executor | None, claims: Claims, job_id: int) -> bool:
    from pbem.render.raster import svg_to_png

    try:
        prepared = await asyncio.to_thread(reports.prepare, ctx, job_id)
        if prepared is None:
            return False
        loop = asyncio.get_running_loop()
        keys = list(prepared.svgs)
        pictures = await asyncio.gather(*[loop.run_in_executor(executor, reports._draw, svg_to_png,
                                                               prepared.svgs[k], ctx.width) for k in keys])
        return await asyncio.to_thread(reports.finish, ctx, prepared, dict(zip(keys, pictures)))
    finally:
        claims.give_back(REPORT, job_id)
