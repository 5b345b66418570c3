"""aioimaplib's FETCH command, with its two per-line costs made constant.

aioimaplib asks a FETCH, after every line of its response, whether the last message's
parentheses are closed, by matching every line received so far and joining them again
(`FetchCommand.wait_data`): a batch of n mails costs n² line scans (63,000 regex matches for
a batch of 200, ~1 ms of the daemon's CPU a mail). It also re-arms the command's timer
on every line (a cancelled timer handle and a new one each). Here the balance is kept as
the lines arrive, and the timer is re-armed only when it fires early: the same answers, in
time linear in the response.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aioimaplib.aioimaplib import FetchCommand

__all__ = ["Fetch", "fetch"]


class Fetch(FetchCommand):
    """`FetchCommand` whose `wait_data` is O(1): the parentheses still open since the last
    line that starts a message's data (``N FETCH (``), counted once per line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._open = 0  # '(' minus ')' over the byte lines since the last "N FETCH (" line
        self._last_data = 0.0
        super().__init__(*args, **kwargs)

    def append_to_resp(self, line: bytes, result: str = "Pending") -> None:
        super().append_to_resp(line, result)
        if isinstance(line, bytes):  # literals arrive as bytearray and are not counted, as upstream
            balance = line.count(b"(") - line.count(b")")
            self._open = balance if self.FETCH_MESSAGE_DATA_RE.match(line) else self._open + balance

    def wait_data(self) -> bool:
        return self._open != 0

    def _set_timer(self) -> None:
        self._last_data = self._loop.time()
        if self._timeout is not None:
            self._timer = self._loop.call_at(self._last_data + self._timeout, self._timer_fired)

    def _reset_timer(self) -> None:
        self._last_data = self._loop.time()  # the timer, when it fires, counts from here

    def _timer_fired(self) -> None:
        assert self._timeout is not None
        due = self._last_data + self._timeout
        if self._loop.time() < due:
            self._timer = self._loop.call_at(due, self._timer_fired)
        else:
            self._timeout_callback()


async def fetch(protocol: Any, message_set: str, parts: str, timeout: float | None) -> Any:
    """``UID FETCH message_set parts`` on an aioimaplib protocol, as `IMAP4.uid("fetch", ...)`
    sends it, with `Fetch` for the command."""
    loop: asyncio.AbstractEventLoop = protocol.loop
    return await protocol.execute(Fetch(protocol.new_tag(), message_set, parts, prefix="UID", loop=loop,
                                        timeout=timeout))
