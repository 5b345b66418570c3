"""The daemon's ``UID FETCH`` (pbem.mail.fetch): the same answers as aioimaplib's own
command, in time linear in the response. aioimaplib re-scans every line received so far
after each line (a batch of 2,000 mails cost it 1.3 s of CPU in one read); a mailbox full of
a stranger's mail must not cost the reader the square of its size."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from aioimaplib.aioimaplib import SELECTED, FetchCommand, IMAP4ClientProtocol
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.fetch import Fetch
from tests.mail import hostile

PARTS = "(UID RFC822.SIZE BODY.PEEK[])"


def _response(n: int) -> bytes:
    """A FETCH response for ``n`` mails whose bodies hold parentheses of their own."""
    out = []
    for i in range(1, n + 1):
        body = b"From: a@b\r\nSubject: (x\r\n\r\nGAME k1 ((\r\n"
        out.append(b"* %d FETCH (UID %d RFC822.SIZE %d BODY[] {%d}\r\n" % (i, i, len(body), len(body)) + body + b")\r\n")
    return b"".join(out) + b"A1 OK FETCH completed\r\n"


def _read(cls: type[FetchCommand], data: bytes, chunk: int = 4096) -> FetchCommand:
    """``data`` fed to a client protocol in chunks, as the socket delivers it, with ``cls``
    the pending FETCH."""

    async def run() -> FetchCommand:
        loop = asyncio.get_running_loop()
        protocol = IMAP4ClientProtocol(loop)
        protocol.state = SELECTED
        command = cls("A1", "1:*", PARTS, prefix="UID", loop=loop, timeout=30)
        protocol.pending_async_commands["FETCH"] = command
        for i in range(0, len(data), chunk):
            protocol.data_received(data[i:i + chunk])
        return command

    return asyncio.run(run())


def test_a_batch_reads_as_aioimaplib_reads_it() -> None:
    for chunk in (7, 100, 4096):
        ours, theirs = _read(Fetch, _response(30), chunk), _read(FetchCommand, _response(30), chunk)
        assert ours.response.result == theirs.response.result == "OK"
        assert ours.response.lines == theirs.response.lines
        assert sum(isinstance(line, bytearray) for line in ours.response.lines) == 30  # every body


_LINE = st.one_of(
    st.builds(lambda n, rest: b"%d FETCH (" % n + rest, st.integers(1, 99), st.binary(max_size=12)),
    st.lists(st.sampled_from([b"(", b")", b"x", b" ", b"UID 3"]), max_size=8).map(b"".join),
    st.binary(max_size=10).map(bytearray),  # a literal: never counted
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=25))
def test_whether_a_message_is_still_open_is_answered_as_aioimaplib_does(lines: list[bytes]) -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = Fetch("A1", "1", PARTS, loop=loop), FetchCommand("A1", "1", PARTS, loop=loop)
        assert ours.wait_data() == theirs.wait_data()
        for line in lines:
            ours.append_to_resp(line)
            theirs.append_to_resp(line)
            assert ours.wait_data() == theirs.wait_data(), lines

    asyncio.run(run())


def test_a_silent_server_still_times_the_command_out() -> None:
    """The timer counts from the last line received, as aioimaplib's does: lines that keep
    coming keep the command alive, silence ends it."""

    async def run() -> tuple[str, str]:
        loop = asyncio.get_running_loop()
        lively = Fetch("A1", "1", PARTS, loop=loop, timeout=0.2)
        for _ in range(6):  # 0.3 s in all, a line every 0.05 s
            await asyncio.sleep(0.05)
            lively.append_to_resp(b"* 1 FETCH (UID 1")
        alive = lively.response.result
        silent = Fetch("A2", "1", PARTS, loop=loop, timeout=0.1)
        await asyncio.wait_for(silent._event.wait(), 2)
        lively._timer.cancel()
        return alive, silent.response.result

    alive, silent = asyncio.run(run())
    assert alive == "Pending"
    assert silent == "KO"


def test_a_batch_ten_times_larger_costs_about_ten_times_more() -> None:
    small, large = _response(100), _response(1_000)
    read: Callable[[bytes], Callable[[], object]] = lambda data: lambda: _read(Fetch, data)
    ratio = hostile.growth(read(small), read(large))
    assert ratio < hostile.MAX_RATIO, f"1,000 mails cost {ratio:.1f} times 100"
