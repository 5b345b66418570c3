"""`pbem status`: is the service healthy? For an administrator, a monitoring probe and a
container's HEALTHCHECK (exit 0 healthy, 1 not).

Healthy means: the database answers at the newest schema, the mailbox accepts our login,
and the daemon ran a cycle recently (it records each one in the `setting` table). The rest
(the outbox backlog and its oldest mail, mails that failed, the next deadline) is shown
for the administrator and never makes the check fail: a backlog is what the outbox is for.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, func, select

from pbem.config import Config
from pbem.db.models import Game, InboundMail, OutboxMail, PhaseRow, Setting
from pbem.errors import PbemError
from pbem.service import atrest
from pbem.service.claims import Claims
from pbem.service.context import Context

log = logging.getLogger(__name__)

LAST_CYCLE = "daemon.last_cycle"


_SETTING = Setting.__table__  # type: ignore[attr-defined]
#: The heartbeat written again: one UPDATE, no read first (`record_cycle`).
_BEAT = (update(_SETTING).where(_SETTING.c.name == LAST_CYCLE).values(value=bindparam("value"))
         .returning(_SETTING.c.name))


def record_cycle(ctx: Context, claims: Claims | None = None) -> None:
    """Called by the daemon after each cycle: the heartbeat `pbem status` reads. With
    ``claims``, one statement on their connection (`Claims.execute`) once the row is there."""
    if claims is not None:
        atrest.attach(ctx.engine, ctx.config)  # the key that seals the value
        if claims.execute(ctx, _BEAT, {"value": ctx.now().isoformat()}):
            return
    with ctx.session() as s:
        row = s.get(Setting, LAST_CYCLE) or Setting(name=LAST_CYCLE)
        row.value = ctx.now().isoformat()
        s.add(row)
        try:
            s.commit()
        except IntegrityError:  # two workers' first cycles wrote the first heartbeat at once: the other's is there
            s.rollback()
            s.execute(_BEAT, {"value": ctx.now().isoformat()})
            s.commit()


def stale_after(cfg: Config) -> timedelta:
    """A daemon that has not finished a cycle for this long is not working."""
    return timedelta(seconds=max(300.0, 3 * cfg.mail.poll_seconds + 60))


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Status:
    checks: list[Check] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {"healthy": self.ok, "checks": {c.name: {"ok": c.ok, "detail": c.detail} for c in self.checks},
                **self.facts}

    def text(self) -> str:
        lines = [f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in self.checks]
        for key, value in self.facts.items():
            lines.append(f"     {key.replace('_', ' ')}: {'-' if value is None else value}")
        lines.append("healthy" if self.ok else "NOT healthy")
        return "\n".join(lines)


def _iso(when: datetime | None) -> str | None:
    return when.isoformat(timespec="seconds") if when else None


def _database(cfg: Config, status: Status, clock: Any) -> Context | None:
    from pbem.db import schema
    from pbem.db.session import make_engine

    try:
        engine = make_engine(cfg.database.resolved().url, "none")
        version = schema.version(engine)
    except PbemError as exc:
        status.checks.append(Check("database", False, str(exc)))
        return None
    except Exception as exc:  # an unreachable server: the check's answer, not a crash
        status.checks.append(Check("database", False, f"cannot be reached: {exc}"))
        return None
    status.checks.append(Check("database", version.state == "current", f"schema {version.text()}"))
    if version.state != "current":
        engine.dispose()
        return None
    return Context(engine=engine, config=cfg, clock=clock)


def _facts(ctx: Context, status: Status) -> None:
    now = ctx.now()
    with ctx.session() as s:
        beat = s.get(Setting, LAST_CYCLE)
        queued = s.exec(select(func.count(), func.min(OutboxMail.created_at))
                        .where(OutboxMail.status == "queued")).one()
        failed_out = s.exec(select(func.count()).select_from(OutboxMail).where(OutboxMail.status == "failed")).one()
        failed_in = s.exec(select(func.count()).select_from(InboundMail).where(InboundMail.status == "error")).one()
        deadline = s.exec(select(func.min(PhaseRow.deadline)).join(Game, col(Game.id) == PhaseRow.game_id)
                          .where(col(PhaseRow.resolved_at).is_(None), Game.status == "active")).one()
    last = datetime.fromisoformat(beat.value) if beat is not None and beat.value else None
    limit = stale_after(ctx.config)
    if last is None:
        status.checks.append(Check("daemon", False, "no cycle recorded yet (is `pbem serve` running?)"))
    else:
        age = now - last
        fresh = age <= limit
        status.checks.append(Check("daemon", fresh, f"last cycle {_iso(last)} ({int(age.total_seconds())} s ago"
                                   + ("" if fresh else f"; more than {int(limit.total_seconds())} s") + ")"))
    oldest = queued[1]
    if oldest is not None and oldest.tzinfo is None:  # an aggregate skips the column's type on some backends
        from datetime import timezone

        oldest = oldest.replace(tzinfo=timezone.utc)
    if deadline is not None and deadline.tzinfo is None:
        from datetime import timezone

        deadline = deadline.replace(tzinfo=timezone.utc)
    status.facts.update({"last_cycle": _iso(last), "outbox_queued": int(queued[0]), "outbox_oldest": _iso(oldest),
                         "outbox_failed": int(failed_out), "inbound_failed": int(failed_in),
                         "next_deadline": _iso(deadline)})


async def _mailbox(cfg: Config, ctx: Context | None, status: Status, timeout: float) -> None:
    from pbem.app import App

    try:
        app = App.from_config(cfg, ctx)
        await asyncio.wait_for(app.inbox.connect(), timeout)
        await asyncio.wait_for(app.inbox.close(), timeout)
    except asyncio.TimeoutError:
        status.checks.append(Check("mailbox", False, f"no answer within {timeout:.0f} s"))
        return
    except PbemError as exc:
        fix = getattr(exc, "fix", "")
        status.checks.append(Check("mailbox", False, f"{exc}" + (f" — to fix: {fix}" if fix else "")))
        return
    status.checks.append(Check("mailbox", True, "login accepted"))


def gather(cfg: Config, clock: Any, timeout: float = 10.0) -> Status:
    status = Status()
    ctx = _database(cfg, status, clock)
    try:
        if ctx is not None:
            _facts(ctx, status)
        if ctx is not None:
            asyncio.run(_mailbox(cfg, ctx, status, timeout))
        else:
            status.checks.append(Check("mailbox", False, "not checked: the database is not usable"))
    finally:
        if ctx is not None:
            ctx.engine.dispose()
    return status
