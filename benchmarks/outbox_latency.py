"""The outbox's sending rate over a network, by its number of SMTP connections
(``outbox.connections``).

A mail costs SMTP four round trips (MAIL, RCPT, DATA, the data), one after the other on its
connection: over a relay 20 ms away a connection carries some 12 mails a second whatever the
machine's speed, fewer than order mails can come in (`mail_throughput.py`). Here the daemon's
own drain (`pbem.service.outbox.drain`, a SQLite database, the rows queued as the daemon
queues them) sends through a relay on loopback that holds each of the server's answers back
by ``--delay`` ms (the embedded mail server behind it), with 1, 2, 4 and 8 connections; each
count on the same number of mails to the same players (``--players``: each player's mails
go in order on one connection, so a drain has at most that many lanes).

    .venv/bin/python benchmarks/outbox_latency.py [--mails 200] [--players 50] [--delay 0 20 50]
        [--connections 1 2 4 8]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.config import from_mapping  # noqa: E402
from pbem.db.session import make_engine  # noqa: E402
from pbem.mail.embedded import EmbeddedMailServer  # noqa: E402
from pbem.mail.smtp import SmtpSender  # noqa: E402
from pbem.service import outbox  # noqa: E402
from pbem.service.context import Context  # noqa: E402


class SlowLink:
    """A TCP relay that holds every chunk the server sends back by ``delay`` seconds (the
    client's bytes go on at once): one round trip of that length a command."""

    def __init__(self, port: int, delay: float) -> None:
        self.port, self.delay = port, delay
        self.server: asyncio.AbstractServer | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _relay(self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        server_in, server_out = await asyncio.open_connection("127.0.0.1", self.port)

        async def up() -> None:
            while data := await client_in.read(65536):
                server_out.write(data)
            server_out.close()

        async def down() -> None:
            while data := await server_in.read(65536):
                await asyncio.sleep(self.delay)
                client_out.write(data)
            client_out.close()

        await asyncio.gather(up(), down(), return_exceptions=True)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


def queue(ctx: Context, mails: int, players: int, tag: str) -> None:
    """``mails`` text mails of about a reply's size, to ``players`` players in turn."""
    body = "Orders received for turn 3.\r\n" * 40
    with ctx.session() as s:
        for n in range(mails):
            to = f"player{n % players}@localhost"
            raw = (f"From: pbem@localhost\r\nTo: {to}\r\nSubject: [pbem] {tag} {n}\r\n"
                   f"Message-ID: <{tag}.{n}@localhost>\r\n\r\n{body}").encode()
            outbox.enqueue(s, ctx, message_id=f"<{tag}.{n}@localhost>", raw=raw, recipients=[to],
                           subject=f"{tag} {n}", kind="report", game_id=None)
        s.commit()


async def run(args: argparse.Namespace) -> None:
    server = EmbeddedMailServer(password="pbem")
    await server.start()
    folder = Path(tempfile.mkdtemp(prefix="pbem-outbox-"))
    cfg = from_mapping({"database": {"url": f"sqlite:///{folder}/pbem.sqlite"}}, "bench")
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg)
    print(f"{args.mails} mails to {args.players} players a run, the daemon's drain on SQLite")
    try:
        for delay in args.delay:
            link = SlowLink(server.smtp_port, delay / 1000)
            port = await link.start()
            figures = []
            for connections in args.connections:
                queue(ctx, args.mails, args.players, f"d{delay}c{connections}")
                sender = SmtpSender("127.0.0.1", port, connections=connections)
                start = time.perf_counter()
                sent = await outbox.drain(ctx, sender, limit=1000)
                took = time.perf_counter() - start
                await sender.close()
                assert sent == args.mails, (sent, args.mails)
                figures.append(f"{connections} connection{'s' if connections > 1 else ''} {sent / took:6.1f}")
            link.close()
            print(f"server's answers {delay:3d} ms away: mails/s with " + ", ".join(figures))
    finally:
        ctx.engine.dispose()
        await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=200)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--delay", type=int, nargs="+", default=[0, 20, 50])
    parser.add_argument("--connections", type=int, nargs="+", default=[1, 2, 4, 8])
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
