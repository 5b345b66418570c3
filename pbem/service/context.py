"""What every use-case needs: the database, the configuration, the clock and entropy.

The clock and the entropy source are injected so that tests can fix time and
seeds; nothing in the service calls `datetime.now` or `secrets` directly.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from sqlalchemy.engine import Engine
from sqlmodel import Session

from pbem.config import Config
from pbem.db.session import session as open_session


def system_clock() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Context:
    engine: Engine
    config: Config
    clock: Callable[[], datetime] = system_clock
    entropy: Callable[[int], bytes] = field(default=secrets.token_bytes)
    render_width: int | None = None  # overrides config.render.width (tests, demo)
    #: The daemon draws report maps in its own stage (a worker process); without it, each
    #: use-case that resolves a turn draws and queues the reports itself after its commit.
    defer_reports: bool = False

    def now(self) -> datetime:
        return self.clock()

    def session(self) -> Session:
        from pbem.service import atrest

        atrest.attach(self.engine, self.config)  # the key for data at rest, once per engine
        return open_session(self.engine)

    def after_commit(self) -> None:
        """Draw and queue the reports of what was just resolved, unless the daemon does."""
        if not self.defer_reports:
            from pbem.service import reports

            reports.run_pending(self)

    @property
    def width(self) -> int:
        return self.render_width or self.config.render.width


class ManualClock:
    """A clock that moves only when told: for tests and the demo."""

    def __init__(self, start: datetime) -> None:
        self.current = start

    def __call__(self) -> datetime:
        return self.current

    def advance(self, **delta: float) -> datetime:
        from datetime import timedelta

        self.current = self.current + timedelta(**delta)
        return self.current
