"""End-to-end tests: the service behind real IMAP and SMTP servers on loopback
(the embedded pymap + aiosmtpd, and Dovecot where installed), on a real SQLite file, and on
PostgreSQL too where a test asks for ``db_url`` and PBEM_TEST_POSTGRES_URL is set."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, AsyncIterator

import pytest

from pbem.app import App
from pbem.config import from_mapping
from pbem.core import registry
from pbem.db.session import make_engine
from pbem.demo import ScriptedTable
from pbem.service.context import Context, ManualClock
from tests.e2e.mailstack import config, open_app
from tests.mail.fixtures import dovecot_mail, embedded_mail, mail_server  # noqa: F401
from tests.mail.servers import MailHarness
from tests.service.conftest import db_url  # noqa: F401  (SQLite, and PostgreSQL when set)

registry.register("duel", "tests.support.duel:RULES")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))


@pytest.fixture
async def table(mail_server: MailHarness, tmp_path, clock) -> AsyncIterator[ScriptedTable]:  # type: ignore[no-untyped-def]
    cfg = from_mapping(config(f"sqlite:///{tmp_path}/pbem.sqlite", {"render": {"width": 800}}), "e2e")
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock)
    inbox = mail_server.inbox(cfg.server.address)
    app = App(ctx, inbox, mail_server.sender())
    await inbox.connect()
    seats = {"red": "red@localhost", "blue": "blue@localhost", "north": "nora@localhost",
             "south": "sandro@localhost"}
    t = ScriptedTable(app, mail_server.sender(), mail_server.inbox, seats, cfg.server.address)
    try:
        yield t
    finally:
        await t.close()
        await inbox.close()
        ctx.engine.dispose()


@pytest.fixture
def app_settings() -> dict[str, Any]:
    """Config sections a test module adds to its ``app`` (override the fixture in the module)."""
    return {}


@pytest.fixture
async def app(embedded_mail: MailHarness, db_url: str, app_settings: dict[str, Any]) -> AsyncIterator[App]:  # noqa: F811
    """The service on ``db_url`` behind the embedded mail server (tests/e2e/mailstack.py)."""
    async with open_app(embedded_mail, db_url, app_settings) as opened:
        yield opened
