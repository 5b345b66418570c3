"""Security tests drive real mails through `inbound.handle` on a real database: the
service fixtures (SQLite file, PostgreSQL too when PBEM_TEST_POSTGRES_URL is set; the Duel
game "red"/"blue") plus a switch for the `[security]` layers and an injected DNS."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from pbem.config import SecurityConfig
from pbem.service import identity
from pbem.service.context import Context
from tests.security.dkimkeys import FakeDns, Key, make_key
from tests.service.conftest import clock, ctx, db_url, duel  # noqa: F401  (fixtures)

Secure = Callable[..., Context]


@pytest.fixture
def secure(ctx: Context) -> Secure:  # noqa: F811
    """``secure(reply_tokens=True, ...)``: turn layers of ``[security]`` on for this test."""

    def configure(**options: Any) -> Context:
        ctx.config = dataclasses.replace(ctx.config, security=SecurityConfig(**options))
        return ctx

    return configure


@pytest.fixture(scope="session")
def keys() -> dict[str, Key]:
    """Two 1024-bit RSA keys (the least dkimpy accepts), made once per run."""
    return {"good": make_key(101), "other": make_key(202)}


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> FakeDns:
    """The DNS the DKIM check asks: empty until a test publishes keys."""
    fake = FakeDns()
    monkeypatch.setattr(identity, "dns_txt", fake)
    return fake
