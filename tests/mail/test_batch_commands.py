"""A batch of mails costs a fixed number of IMAP commands, not a few per mail (issue 17,
the floor): the bodies come in one ``UID FETCH`` of a UID set and the flags go in one
``UID STORE``. Counted on the wire (every command aioimaplib sends), against the embedded
server and Dovecot: 3 mails and 30 mails cost the same commands."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from aioimaplib.aioimaplib import IMAP4ClientProtocol

from pbem.mail.compose import compose
from pbem.mail.imap import _chunks

from .servers import MailHarness


@pytest.fixture
def commands(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every IMAP command sent by any client in the test, by name (``UID FETCH``, ``NOOP``)."""
    seen: Counter[str] = Counter()
    original = IMAP4ClientProtocol.execute

    async def counting(self: IMAP4ClientProtocol, command: Any, *args: Any, **kwargs: Any) -> Any:
        seen[f"{command.prefix or ''}{command.name}"] += 1
        return await original(self, command, *args, **kwargs)

    monkeypatch.setattr(IMAP4ClientProtocol, "execute", counting)
    return seen


async def _deliver(mail_server: MailHarness, n: int, start: int = 0) -> list[bytes]:
    raws = []
    for i in range(start, start + n):
        _, raw = compose(sender="anna@localhost", to="pbem@localhost", subject=f"orders {i}",
                         text=f"GAME k{i}\nSEAT north s3cret\nPASS\nEND\n", domain="localhost")
        await mail_server.send("anna@localhost", ["pbem@localhost"], raw)
        raws.append(raw)
    await mail_server.wait_for("pbem@localhost", n, consume=False)
    return raws


async def _one_batch(mail_server: MailHarness, commands: Counter[str], raws: list[bytes]) -> Counter[str]:
    """Fetch every unseen mail, check each came whole, flag them all; the commands it took."""
    inbox = mail_server.inbox("pbem@localhost")
    await inbox.connect()
    commands.clear()
    fetched = await inbox.fetch_new()
    assert len(fetched) == len(raws)
    assert [m.raw is not None and m.raw.endswith(raw) for m, raw in zip(fetched, raws)] == [True] * len(raws)
    await inbox.mark_seen_many([m.uid for m in fetched])
    used = commands.copy()
    assert await inbox.fetch_new() == []  # every one of them flagged
    await inbox.close()
    return used


async def test_a_batch_costs_the_same_commands_whatever_its_size(mail_server: MailHarness,
                                                                  commands: Counter[str]) -> None:
    few = await _one_batch(mail_server, commands, await _deliver(mail_server, 3))
    many = await _one_batch(mail_server, commands, await _deliver(mail_server, 30, start=3))
    assert few["UID FETCH"] == 2 and few["UID STORE"] == 1, few  # the sizes, the bodies; the flags
    assert many == few, (few, many)


async def test_a_mail_flagged_stays_flagged_and_the_rest_come_again(mail_server: MailHarness,
                                                                     commands: Counter[str]) -> None:
    """Marking part of a batch (the mails whose work committed) leaves the others unseen."""
    await _deliver(mail_server, 5)
    inbox = mail_server.inbox("pbem@localhost")
    await inbox.connect()
    fetched = await inbox.fetch_new()
    await inbox.mark_seen_many([m.uid for m in fetched[:2]])
    assert [m.uid for m in await inbox.fetch_new()] == [m.uid for m in fetched[2:]]
    await inbox.close()


def test_bodies_are_asked_for_in_chunks_of_bounded_bytes() -> None:
    sizes = {101: 400, 102: 400, 103: 400, 104: 2000, 105: 10}
    assert _chunks([101, 102, 103, 104, 105], sizes, 1000) == [[101, 102], [103], [104], [105]]
    assert _chunks([101, 102, 105], sizes, 10_000) == [[101, 102, 105]]
    assert _chunks([], sizes, 1000) == []
