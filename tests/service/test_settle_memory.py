"""A serving daemon sets what start-up made beside the cyclic collector (`pbem.app.settle_memory`,
issue 17): full collections no longer walk the modules, the configuration and the mail clients
again every few hundred mails; what is made afterwards (a mail's objects) stays collectable."""

from __future__ import annotations

import asyncio
import gc

from pbem.app import App
from pbem.mail.transport import MemoryInbox, MemoryOutgoing
from pbem.service.context import Context


async def test_serve_freezes_start_up_and_nothing_made_later(ctx: Context) -> None:
    gc.unfreeze()  # whatever an earlier test in this process froze
    assert gc.get_freeze_count() == 0
    app = App(ctx, MemoryInbox(), MemoryOutgoing())
    serving = asyncio.create_task(app.serve())
    try:
        for _ in range(500):
            if gc.get_freeze_count():
                break
            await asyncio.sleep(0.01)
        assert gc.get_freeze_count() > 1000  # the modules' functions and classes, the app, its clients
        later: list[list[int]] = [[] for _ in range(1000)]  # made while serving: left to the collector
        gc.collect()
        collectable = {id(o) for o in gc.get_objects()}  # the generations the collector walks
        assert id(app) not in collectable and id(app.inbox) not in collectable  # start-up: frozen
        assert id(later) in collectable and id(later[0]) in collectable  # made since: walked
    finally:
        app._stop.set()
        await asyncio.wait_for(serving, 10)
        gc.unfreeze()
