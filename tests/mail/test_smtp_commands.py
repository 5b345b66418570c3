"""The SMTP commands a sent mail costs (issue 17): on the kept connection, MAIL, RCPT and DATA
and nothing more — no NOOP before each mail of a drain —, the same command bytes as
aiosmtplib's own; a kept connection idle longer is checked first, and one the server dropped
before it answered MAIL FROM is replaced, the mail offered once on a new one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiosmtplib
import aiosmtplib.protocol
import pytest

from pbem.errors import MailTransientError
from pbem.mail import smtp
from pbem.mail.smtp import SmtpSender

RAW = b"From: pbem@localhost\r\nSubject: x\r\nMessage-ID: <m1@localhost>\r\n\r\nbody\r\n.\r\n..\r\n"


@dataclass
class Scripted:
    """A plain SMTP server on loopback that logs every command line by connection and hands
    back each message's data; ``drop_at_mail``: the MAIL commands (counted over all
    connections, from 1) answered by closing the connection instead."""

    port: int = 0
    commands: list[list[bytes]] = field(default_factory=list)
    delivered: list[bytes] = field(default_factory=list)
    wire: list[bytes] = field(default_factory=list)  # each DATA as it came, dot-stuffed, with its final dot
    drop_at_mail: set[int] = field(default_factory=set)
    mails: int = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        log: list[bytes] = []
        self.commands.append(log)
        writer.write(b"220 scripted ESMTP\r\n")
        try:
            while line := await reader.readline():
                log.append(line)
                verb = line[:4].upper()
                if verb == b"EHLO":
                    writer.write(b"250-scripted\r\n250 SIZE 1000000\r\n")
                elif verb == b"MAIL":
                    self.mails += 1
                    if self.mails in self.drop_at_mail:
                        writer.close()
                        return
                    writer.write(b"250 OK\r\n")
                elif verb == b"DATA":
                    writer.write(b"354 go on\r\n")
                    data = wire = b""
                    while (chunk := await reader.readline()) != b".\r\n":
                        wire += chunk
                        data += chunk[1:] if chunk.startswith(b".") else chunk  # dot-stuffed
                    self.wire.append(wire + chunk)
                    self.delivered.append(data)
                    writer.write(b"250 queued\r\n")
                elif verb == b"QUIT":
                    writer.write(b"221 bye\r\n")
                    await writer.drain()
                    writer.close()
                    return
                else:  # RCPT, NOOP, RSET
                    writer.write(b"250 OK\r\n")
                await writer.drain()
        except ConnectionError:
            pass


@pytest.fixture
async def scripted() -> AsyncIterator[Scripted]:
    server = Scripted()
    listening = await asyncio.start_server(server.serve, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listening.close()


def _verbs(log: list[bytes]) -> list[str]:
    return [line.split(b" ")[0].split(b":")[0].strip().decode() for line in log]


async def test_a_drain_costs_mail_rcpt_data_a_mail_on_one_connection(scripted: Scripted) -> None:
    sender = SmtpSender("127.0.0.1", scripted.port, timeout=5)
    for i in range(5):
        assert (await sender.send("pbem@localhost", [f"p{i}@players.example"], RAW)).all_sent
    await sender.close()
    (log,) = scripted.commands  # one connection for the five
    assert _verbs(log) == ["EHLO"] + ["MAIL", "RCPT", "DATA"] * 5 + ["QUIT"]  # no NOOP before each
    assert scripted.delivered == [RAW] * 5


async def test_the_commands_are_aiosmtplibs_own_bytes(scripted: Scripted) -> None:
    """The first mail of a connection goes through aiosmtplib's ``mail``/``rcpt`` (which say
    EHLO first), the next ones through the quoting kept (`smtp._quoted`): the same lines."""
    sender = SmtpSender("127.0.0.1", scripted.port, timeout=5)
    recipients = ["Odd.Name+tag@Players.Example", "plain@localhost"]
    for _ in range(2):
        assert (await sender.send("bounces+x@pbem.example", recipients, RAW)).all_sent
    await sender.close()
    (log,) = scripted.commands
    first, second = log[1:5], log[5:9]  # MAIL, RCPT, RCPT, DATA of each mail
    assert first[0] == b"MAIL FROM:<bounces+x@pbem.example>\r\n"  # before EHLO: no SIZE, as before
    assert second[0] == f"MAIL FROM:<bounces+x@pbem.example> SIZE={len(RAW)}\r\n".encode()
    assert first[1:] == second[1:] == [b"RCPT TO:<Odd.Name+tag@Players.Example>\r\n",
                                       b"RCPT TO:<plain@localhost>\r\n", b"DATA\r\n"]


async def test_a_connection_idle_a_while_is_checked_with_noop(scripted: Scripted,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(smtp, "CHECK_IDLE_AFTER", 0.0)
    sender = SmtpSender("127.0.0.1", scripted.port, timeout=5)
    for _ in range(2):
        assert (await sender.send("pbem@localhost", ["a@localhost"], RAW)).all_sent
    await sender.close()
    (log,) = scripted.commands
    assert _verbs(log) == ["EHLO", "MAIL", "RCPT", "DATA", "NOOP", "MAIL", "RCPT", "DATA", "QUIT"]


async def test_a_kept_connection_dropped_before_mail_from_is_replaced(scripted: Scripted) -> None:
    """The server closes the kept connection instead of answering MAIL FROM (an idle
    timeout met as the mail was offered): nothing was offered on it, so the mail goes out on a
    new connection, once, and the send does not fail."""
    scripted.drop_at_mail = {2}
    sender = SmtpSender("127.0.0.1", scripted.port, timeout=5)
    assert (await sender.send("pbem@localhost", ["a@localhost"], RAW)).all_sent
    assert (await sender.send("pbem@localhost", ["b@localhost"], RAW)).all_sent
    await sender.close()
    assert [_verbs(log) for log in scripted.commands] == [
        ["EHLO", "MAIL", "RCPT", "DATA", "MAIL"],
        ["EHLO", "MAIL", "RCPT", "DATA", "QUIT"]]
    assert len(scripted.delivered) == 2


async def test_a_new_connection_dropped_at_mail_from_is_a_transient_failure(scripted: Scripted) -> None:
    """Only a kept connection taken unchecked is replaced: a new one dropped at MAIL FROM is
    the mail's temporary failure, as before (retried later with backoff), not offered again now."""
    scripted.drop_at_mail = {1, 2}
    sender = SmtpSender("127.0.0.1", scripted.port, timeout=5)
    with pytest.raises(MailTransientError, match="MAIL FROM"):
        await sender.send("pbem@localhost", ["a@localhost"], RAW)
    assert len(scripted.commands) == 1 and not scripted.delivered
    await sender.close()


@pytest.mark.parametrize("raw", [RAW, b"Subject: y\r\n\r\nlone\nline\rends\r\n.lead\r\nno end",
                                 b"Subject: z\r\n\r\n" + b"QUJD" * 5000 + b"\r\n"],
                         ids=["dots", "bare LF and CR", "as is"])
async def test_data_is_the_same_bytes_as_aiosmtplibs(scripted: Scripted, raw: bytes) -> None:
    """Every message goes on the wire as aiosmtplib's own DATA sends it (line ends made CRLF,
    leading dots doubled, the final dot), whether it needed rewriting or not."""
    sender = SmtpSender("127.0.0.1", scripted.port, timeout=5)
    for _ in range(2):  # aiosmtplib's mail() on a new connection, then the kept one's
        assert (await sender.send("pbem@localhost", ["a@localhost"], raw)).all_sent
    await sender.close()
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=scripted.port, timeout=5)
    await client.connect()
    await client.mail("pbem@localhost")
    await client.rcpt("a@localhost")
    await client.data(raw)
    await client.quit()
    assert len(scripted.wire) == 3 and scripted.wire[0] == scripted.wire[1] == scripted.wire[2]


async def test_a_message_with_crlf_lines_is_not_rewritten(scripted: Scripted, monkeypatch: pytest.MonkeyPatch) -> None:
    """A message as `pbem.mail.compose` writes it (CRLF lines, none led by a dot) is written as
    it is: aiosmtplib's rewriting (two regular expressions over the whole message) is not run."""
    rewritten: list[bytes] = []
    plain = aiosmtplib.protocol.normalize_message_line_endings

    def counting(message: bytes) -> bytes:
        rewritten.append(message)
        return plain(message)

    monkeypatch.setattr(aiosmtplib.protocol, "normalize_message_line_endings", counting)
    sender = SmtpSender("127.0.0.1", scripted.port, timeout=5)
    as_is = b"Subject: z\r\n\r\n" + b"QUJD" * 5000 + b"\r\n"
    assert (await sender.send("pbem@localhost", ["a@localhost"], as_is)).all_sent
    assert (await sender.send("pbem@localhost", ["a@localhost"], RAW)).all_sent  # a dot line: rewritten
    await sender.close()
    assert rewritten == [RAW]
    assert scripted.delivered == [as_is, RAW]
