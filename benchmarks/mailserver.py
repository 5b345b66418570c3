"""The embedded mail server in a process of its own, for the benchmarks: the daemon's
CPU and memory are then its own, as with a real mail server."""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import resource
import threading
from multiprocessing.connection import Connection
from typing import Any

from pbem.mail.embedded import EmbeddedMailServer


def _mail_server_main(conn: Connection, collector: bool = True) -> None:
    """The child: an embedded mail server (in memory) on free ports, driven over a pipe.
    ``collector``: False, Python's cyclic collector off (`MailServerProcess`)."""
    if not collector:
        gc.disable()
    asyncio.run(_mail_server(conn))


async def _mail_server(conn: Connection) -> None:
    server = EmbeddedMailServer(password="pbem")
    await server.start()
    conn.send((server.imap_port, server.smtp_port))
    loop = asyncio.get_running_loop()
    while True:
        cmd, args = await loop.run_in_executor(None, conn.recv)
        if cmd == "stop":
            break
        if cmd == "fail_next":
            server.fail_next(*args)
            conn.send(None)
        elif cmd == "faults_pending":
            conn.send(len(server.smtp._faults))
        elif cmd == "clear_faults":
            server.clear_faults()
            conn.send(None)
        elif cmd == "drop":
            server.drop_connections()
            conn.send(None)
        elif cmd == "messages":
            conn.send([raw for _uid, raw, _seen in await server.messages(args[0])])
        elif cmd == "rss":
            conn.send(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    await server.stop()
    conn.send(None)


class MailServerProcess:
    """The embedded mail server in a child process, so that the daemon's memory is its own.
    Its fault injection (``fail_next``, ``drop_connections``) and ``messages`` over a pipe.

    ``collector=False`` turns Python's cyclic collector off in it, for a benchmark that
    measures the mail path's speed: the server keeps every mail in memory, and each full
    collection walked all of them (thousands of mails: half its CPU a mail, and pauses of
    0.5-1.7 s that stalled every client at once, `mail_throughput.py`), which a real mail
    server does not do. Its memory then grows by its cyclic garbage: for a run of minutes."""

    def __init__(self, collector: bool = True) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_mail_server_main, args=(child, collector), daemon=True)
        self._lock = threading.Lock()
        self.imap_port = self.smtp_port = 0

    @property
    def pid(self) -> int | None:
        """The server's process (its CPU time is read from /proc by the benchmarks)."""
        return self._proc.pid

    async def start(self) -> None:
        self._proc.start()
        self.imap_port, self.smtp_port = await asyncio.to_thread(self._conn.recv)

    def _call(self, cmd: str, *args: object) -> Any:
        with self._lock:
            self._conn.send((cmd, args))
            return self._conn.recv()

    async def call(self, cmd: str, *args: object) -> Any:
        return await asyncio.to_thread(self._call, cmd, *args)

    async def messages(self, address: str) -> list[bytes]:
        return list(await self.call("messages", address))

    async def stop(self) -> None:
        if self._proc.is_alive():
            await self.call("stop")
            await asyncio.to_thread(self._proc.join, 10)
