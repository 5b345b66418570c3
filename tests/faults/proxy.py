"""A small asyncio TCP proxy that breaks connections on purpose, for fault tests.

It sits between a client under test (``ImapInbox``, ``SmtpSender``, a subprocess) and a
real server on loopback, relays bytes both ways, and on a rule:

* **cut** — abort both sides (the client sees a reset / lost connection);
* **freeze** — keep both sockets open but relay nothing any more in either direction
  (a server that stopped answering: the client can only time out).

A rule fires when a pattern is seen in the client's stream (``on_client``: e.g. ``b"IDLE"``,
``b"BODY.PEEK[]"``, the end of SMTP DATA ``b"\\r\\n.\\r\\n"``) or in the server's stream
(``on_server``), optionally only after ``after_bytes`` more bytes came from the server (a
cut in the middle of a FETCH literal) or ``delay`` seconds later (a cut during IDLE).
The matching chunk is relayed first (the server does see the command) unless ``relay=False``.

Whole-proxy modes: ``blackhole()`` (new connections are accepted and never answered,
open ones freeze), ``cut_all()``, ``await down()`` / ``await up()`` (the port refuses
connections, then listens again on the same port).

    proxy = FaultProxy("127.0.0.1", server.imap_port)
    await proxy.start()
    proxy.on_client(b"BODY.PEEK[]", "cut", after_bytes=60)      # cut inside the literal
    inbox = ImapInbox("127.0.0.1", proxy.port, ...)
    ...
    await proxy.stop()
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["FaultProxy", "Rule"]

log = logging.getLogger(__name__)

Action = Literal["cut", "freeze"]


@dataclass
class Rule:
    """Fire ``action`` when ``pattern`` (case-insensitive) passes in ``direction``.

    ``after_bytes``: let this many more server bytes through first (None: not by bytes).
    ``delay``: act this many seconds after the match instead. ``skip``: ignore the first
    ``skip`` matches. ``times``: how many matches fire it (then it is spent). ``relay``:
    False drops the matching chunk and acts at once (the other side never sees it).
    """

    direction: Literal["client", "server"]
    pattern: bytes
    action: Action = "cut"
    after_bytes: int | None = 0
    delay: float | None = None
    skip: int = 0
    times: int = 1
    relay: bool = True
    fired: int = 0  # matches that fired the rule
    acted: int = 0  # times the action was carried out (later than ``fired`` with a delay)

    @property
    def spent(self) -> bool:
        return self.fired >= self.times


@dataclass
class _Conn:
    cid: int
    client: asyncio.StreamWriter
    upstream: asyncio.StreamWriter | None = None
    frozen: bool = False
    closed: bool = False
    budget: int | None = None  # server bytes still relayed before ``budget_rule`` acts
    budget_rule: Rule | None = None
    tails: dict[str, bytes] = field(default_factory=lambda: {"client": b"", "server": b""})
    timers: list[asyncio.TimerHandle] = field(default_factory=list)

    def abort(self) -> None:
        if self.closed:
            return
        self.closed = True
        for timer in self.timers:
            timer.cancel()
        for writer in (self.client, self.upstream):
            if writer is not None:
                writer.transport.abort()

    def act(self, rule: Rule) -> None:
        if self.closed:
            return
        rule.acted += 1
        if rule.action == "cut":
            self.abort()
        else:
            self.frozen = True


class FaultProxy:
    """A TCP relay to ``upstream_host:upstream_port`` that can cut or freeze (see module)."""

    def __init__(self, upstream_host: str, upstream_port: int, *, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.upstream_host = upstream_host
        self.upstream_port = upstream_port
        self.host = host
        self.port = port
        self.rules: list[Rule] = []
        self.accepted = 0  # connections accepted in all
        self.blackholed = False
        self._server: asyncio.AbstractServer | None = None
        self._conns: dict[int, _Conn] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._on_connect, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        await self.down()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)

    async def down(self) -> None:
        """Close the listening socket (connections are refused) and cut every connection."""
        if self._server is not None:
            self._server.close()
            try:
                await asyncio.wait_for(self._server.wait_closed(), 1)
            except (TimeoutError, Exception):  # pragma: no cover - best effort
                pass
            self._server = None
        self.cut_all()

    async def up(self) -> None:
        """Listen again on the same port."""
        if self._server is None:
            self._server = await asyncio.start_server(self._on_connect, self.host, self.port)

    @property
    def listening(self) -> bool:
        return self._server is not None

    # --------------------------------------------------------------------- faults

    def on_client(self, pattern: bytes, action: Action = "cut", *, after_bytes: int | None = 0,
                  delay: float | None = None, skip: int = 0, times: int = 1, relay: bool = True) -> Rule:
        rule = Rule("client", pattern, action, None if delay is not None else after_bytes, delay, skip, times, relay)
        self.rules.append(rule)
        return rule

    def on_server(self, pattern: bytes, action: Action = "cut", *, after_bytes: int | None = 0,
                  delay: float | None = None, skip: int = 0, times: int = 1, relay: bool = True) -> Rule:
        rule = Rule("server", pattern, action, None if delay is not None else after_bytes, delay, skip, times, relay)
        self.rules.append(rule)
        return rule

    def clear(self) -> None:
        self.rules.clear()

    def blackhole(self, on: bool = True) -> None:
        """On: open connections freeze; new ones are accepted and never answered."""
        self.blackholed = on
        if on:
            for conn in self._conns.values():
                conn.frozen = True

    def cut_all(self) -> None:
        for conn in list(self._conns.values()):
            conn.abort()

    @property
    def open_connections(self) -> int:
        return sum(1 for c in self._conns.values() if not c.closed)

    @property
    def fired(self) -> int:
        return sum(r.fired for r in self.rules)

    # ------------------------------------------------------------------- relaying

    def _match(self, conn: _Conn, direction: str, data: bytes) -> Rule | None:
        live = [r for r in self.rules if r.direction == direction and not r.spent]
        longest = max((len(r.pattern) for r in live), default=1)
        window = (conn.tails[direction] + data).lower()
        conn.tails[direction] = window[-(longest - 1):] if longest > 1 else b""
        for rule in live:
            if rule.pattern.lower() in window:
                if rule.skip > 0:
                    rule.skip -= 1
                    continue
                rule.fired += 1
                log.info("proxy :%s conn %d: %s on %r", self.port, conn.cid, rule.action, rule.pattern)
                return rule
        return None

    def _trigger(self, conn: _Conn, rule: Rule) -> None:
        if rule.delay is not None:
            conn.timers.append(asyncio.get_running_loop().call_later(rule.delay, conn.act, rule))
        elif not rule.after_bytes:
            conn.act(rule)
        else:
            conn.budget, conn.budget_rule = rule.after_bytes, rule

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self.accepted += 1
        conn = _Conn(next(self._ids), writer)
        self._conns[conn.cid] = conn
        try:
            if self.blackholed:
                conn.frozen = True
                await self._drain_forever(reader)
                return
            try:
                up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
            except OSError:
                return
            conn.upstream = up_writer
            pumps = [asyncio.create_task(self._pump(conn, reader, up_writer, "client")),
                     asyncio.create_task(self._pump(conn, up_reader, writer, "server"))]
            try:
                await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for pump in pumps:
                    pump.cancel()
                await asyncio.gather(*pumps, return_exceptions=True)
        except asyncio.CancelledError:
            pass
        finally:
            conn.abort()
            self._conns.pop(conn.cid, None)
            if task is not None:
                self._tasks.discard(task)

    @staticmethod
    async def _drain_forever(reader: asyncio.StreamReader) -> None:
        while await reader.read(65536):
            pass

    async def _pump(self, conn: _Conn, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    direction: str) -> None:
        try:
            while not conn.closed:
                data = await reader.read(65536)
                if not data:
                    return
                if conn.frozen:
                    continue  # swallowed: nobody answers any more
                if direction == "server" and conn.budget is not None:
                    allowed = data[:conn.budget]
                    conn.budget -= len(allowed)
                    writer.write(allowed)
                    if conn.budget <= 0 and conn.budget_rule is not None:
                        conn.budget = None
                        await self._flush(writer)
                        conn.act(conn.budget_rule)
                    continue
                rule = self._match(conn, direction, data)
                if rule is not None and not rule.relay:
                    conn.act(rule)  # the other side never sees this chunk
                    continue
                writer.write(data)
                await self._flush(writer)
                if rule is not None:
                    self._trigger(conn, rule)
        except (ConnectionError, OSError):
            return

    @staticmethod
    async def _flush(writer: asyncio.StreamWriter) -> None:
        try:
            await writer.drain()
        except (ConnectionError, OSError):
            pass
