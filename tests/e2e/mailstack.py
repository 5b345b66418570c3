"""The service behind a real mail server, as the club's end-to-end tests drive it: one App on a
database (SQLite file or PostgreSQL) reading its mailbox over IMAP and sending over SMTP, on a
fixed clock that also dates the players' mails. The ``app`` fixture (tests/e2e/conftest.py)
opens one on the embedded server; a test module adds config sections with ``app_settings``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from typing import Any

import pytest

from pbem.app import App
from pbem.config import from_mapping
from pbem.db.session import make_engine
from pbem.service.context import Context, ManualClock
from tests.mail.servers import MailHarness
from tests.support import players

START = datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc)

#: A test played on the SQLite file only: a long game whose PostgreSQL paths (row locks on the
#: game, the report jobs, the mailbox lease, the daemon's lock) the same module's other tests
#: and tests/service's PostgreSQL runs already take; its mail is the same on both databases.
sqlite_only = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


def config(url: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The tests' configuration: the database at ``url``, maps 400 px wide drawn in a thread of
    the test's process (``render.workers = 0``: the static layers drawn once stay in the
    process for the next test, and no map worker is started per test; the map worker
    processes draw the demo's reports, tests/test_languages.py, and a killed one's,
    tests/faults/test_crash.py), each section of ``settings`` merged over these."""
    out: dict[str, Any] = {"database": {"url": url}, "render": {"width": 400, "workers": 0}}
    for section, values in (settings or {}).items():
        out[section] = {**out.get(section, {}), **values}
    return out


@asynccontextmanager
async def open_app(mail: MailHarness, url: str, settings: Mapping[str, Any] | None = None) -> AsyncIterator[App]:
    """An App on ``url`` behind ``mail``, with ``settings`` over the tests' defaults; stopped
    afterwards (on PostgreSQL its mailbox lease goes back, for the next test's server)."""
    cfg = from_mapping(config(url, settings), "e2e")
    clock = ManualClock(START)
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock)
    players.clock = clock  # the players' mails are dated by the server's clock
    inbox = mail.inbox(cfg.server.address)
    await inbox.connect()
    app = App(ctx, inbox, mail.sender())
    try:
        yield app
    finally:
        players.clock = None
        await app.stop()
        ctx.engine.dispose()


async def settle(app: App, count: int, tries: int = 60) -> dict[str, int]:
    """Cycles until ``count`` inbound mails are handled, then sends what they caused; by kind."""
    handled: dict[str, int] = {}
    for _ in range(tries):
        summary = await app.cycle()
        for k, v in summary.handled.items():
            handled[k] = handled.get(k, 0) + v
        if sum(handled.values()) >= count:
            await app.drain()
            return handled
        await app.inbox.wait(0.1)
    raise AssertionError(f"only {handled} handled")
