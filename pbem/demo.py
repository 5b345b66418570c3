"""`pbem demo`: scripted games played through the real mail path.

For each game kind with a script (`pbem/games/<kind>/data/demo.toml`), the demo starts
an embedded mail server on free loopback ports and a SQLite file, creates the game,
and lets scripted players send their order mails over SMTP and read the server's
replies over IMAP, exactly as a person's mail client would.  It leaves, in one folder
per game, every mail each player received (text and PNG maps), the archive, and the
result of `pbem verify`.

The same driver (`ScriptedTable`) plays the end-to-end tests against Dovecot.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import tomllib
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from email import message_from_bytes, policy
from email.message import EmailMessage
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Sequence

from pbem.app import App
from pbem.config import Config, from_mapping
from pbem.core import registry
from pbem.db.session import make_engine
from pbem.errors import PbemError
from pbem.mail.compose import compose
from pbem.mail.transport import Inbox, Outgoing
from pbem.service import archive, games, store
from pbem.service.context import Context, ManualClock
from pbem.service.verify import verify_path

log = logging.getLogger(__name__)

_SECRET = re.compile(r"\b([2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4})\b")
_GAME = re.compile(r"^(?:GAME|PARTITA) (\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class ScriptStep:
    seat: str
    text: str  # the lines inside the block: orders, or one command
    expect: str = "orders"  # orders | refused | command
    note: str = ""
    turn: int | None = None


@dataclass(frozen=True)
class Script:
    kind: str
    name: str
    seats: tuple[tuple[str, str, str], ...]  # seat, local part, language
    steps: tuple[ScriptStep, ...]
    options: dict[str, str] = field(default_factory=dict)
    finish: bool = False  # after the steps, every awaited seat passes until the game ends
    #: ``[stand_in]``: after the steps the awaited seats play the rules' random legal orders instead of
    #: passing, the best of ``tries`` sheets by the words of ``prefer`` (a game whose defaults never fight)
    stand_in: dict[str, Any] = field(default_factory=dict)
    #: ``seed``: the game's entropy (its dice and the stand-ins' choices, its secrets too) drawn from this
    #: text, so the demo plays the same game on every run (a script whose story needs certain dice)
    seed: str | None = None


def load_script(kind: str) -> Script:
    """The script of a game kind (``demo.toml``), or of one of its variants, ``kind:variant``
    (``demo_<variant>.toml``: a Corteo scenario, say)."""
    kind, _, variant = kind.partition(":")
    package = registry.get(kind).__class__.__module__.rsplit(".", 1)[0] + ".data"
    try:
        text = resources.files(package).joinpath(f"demo_{variant}.toml" if variant else "demo.toml").read_text(
            encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise PbemError(f"no demo script for {kind}") from exc
    data = tomllib.loads(text)
    seats = tuple((s["seat"], s["player"], s.get("language", "en")) for s in data["seats"])
    steps = tuple(ScriptStep(s["seat"], s["orders"].strip(), s.get("expect", "orders"), s.get("note", ""),
                             s.get("turn")) for s in data["step"])
    return Script(kind, data.get("name", f"{kind} demo"), seats, steps, dict(data.get("options", {})),
                  bool(data.get("finish", False)), dict(data.get("stand_in", {})), data.get("seed"))


def scripted_kinds() -> list[str]:
    out = []
    for kind in registry.kinds():
        try:
            load_script(kind)
        except PbemError:
            continue
        out.append(kind)
    return out


def scripted_variants() -> list[str]:
    """``kind:variant`` for every ``demo_<variant>.toml`` beside a kind's script."""
    out = []
    for kind in scripted_kinds():
        package = registry.get(kind).__class__.__module__.rsplit(".", 1)[0] + ".data"
        for entry in sorted(resources.files(package).iterdir(), key=lambda e: e.name):
            if entry.name.startswith("demo_") and entry.name.endswith(".toml"):
                out.append(f"{kind}:{entry.name[5:-5]}")
    return out


@dataclass
class Received:
    seat: str
    subject: str
    text: str
    attachments: dict[str, bytes]
    raw: bytes


def received(seat: str, raw: bytes) -> Received:
    """A mail as its player reads it: the subject, the plain text and the attachments."""
    msg: EmailMessage = message_from_bytes(raw, policy=policy.default)  # type: ignore[assignment]
    body = msg.get_body(("plain",))
    text = body.get_content() if body is not None else ""
    files: dict[str, bytes] = {}
    for part in msg.iter_attachments():
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            files[part.get_filename() or ""] = payload
    return Received(seat, str(msg["Subject"]), text.replace("\r\n", "\n"), files, raw)


def welcome_secret(got: Received) -> tuple[str, str] | None:
    """``(game, secret)`` when ``got`` is a welcome (or a new secret) that gives a seat's secret."""
    m = _SECRET.search(got.text)
    g = _GAME.search(got.text) or re.search(r"\[pbem\] (\S+)", got.subject)
    if m and g and any(w in got.subject for w in ("welcome", "benvenuto", "secret", "segreto")):
        return g.group(1), m.group(1)
    return None


class ScriptedTable:
    """Players at a table: they send order mails by SMTP and read replies by IMAP."""

    def __init__(self, app: App, send: Outgoing, inbox_for: Callable[[str], Inbox], addresses: dict[str, str],
                 server_address: str) -> None:
        self.app = app
        self.send_out = send
        self.addresses = addresses
        self.server_address = server_address
        self.inboxes = {seat: inbox_for(addr) for seat, addr in addresses.items()}
        self.secrets: dict[tuple[str, str], str] = {}  # (game, seat) -> secret
        self.mail: dict[str, list[Received]] = {seat: [] for seat in addresses}
        self._n = 0

    async def close(self) -> None:
        for inbox in self.inboxes.values():
            await inbox.close()

    async def settle(self, expect_inbound: int = 1, tries: int = 40) -> None:
        """Run server cycles until the expected inbound mails were processed."""
        seen = 0
        for _ in range(tries):
            summary = await self.app.cycle()
            seen += summary.fetched
            if seen >= expect_inbound:
                return
            await self.app.inbox.wait(0.25)
        raise PbemError(f"the server did not receive {expect_inbound} mail(s) in time")

    async def collect(self, seat: str) -> list[Received]:
        inbox = self.inboxes[seat]
        new = []
        for fetched in await inbox.fetch_new():
            if fetched.raw is None:
                continue
            new.append(received(seat, fetched.raw))
            await inbox.mark_seen(fetched.uid)
        self.mail[seat].extend(new)
        for got in new:
            found = welcome_secret(got)
            if found is not None:
                self.secrets[(found[0], seat)] = found[1]
        return new

    async def collect_all(self) -> dict[str, list[Received]]:
        return {seat: await self.collect(seat) for seat in self.addresses}

    async def send(self, game_id: str, seat: str, lines: str, turn: int | None = None,
                   secret: str | None = None, sender: str | None = None) -> None:
        address, raw = self.order_mail(game_id, seat, lines, turn, secret, sender)
        await self.send_out.send(address, [self.server_address], raw)

    def order_mail(self, game_id: str, seat: str, lines: str, turn: int | None = None,
                   secret: str | None = None, sender: str | None = None) -> tuple[str, bytes]:
        """A player's order mail, as their mail program writes it: ``(sender, raw)``."""
        self._n += 1
        block = [f"GAME {game_id}", f"SEAT {seat} {secret or self.secrets[(game_id, seat)]}"]
        if turn is not None:
            block.append(f"TURN {turn}")
        body = "\n".join(["Hello,", "", *block, lines, "END", "", "-- ", f"{seat}"])
        address = sender or self.addresses[seat]
        _mid, raw = compose(sender=address, to=self.server_address, subject=f"orders {self._n}", text=body,
                            domain="players.invalid", auto_submitted="auto-generated", date=self.app.ctx.now())
        # A person's mail: no Auto-Submitted, no marker of ours.
        return address, re.sub(rb"(?im)^(Auto-Submitted|X-PBEM-Game|X-Auto-Response-Suppress):[^\r\n]*\r?\n", b"", raw)


def demo_config(root: Path) -> Config:
    return from_mapping({"database": {"url": f"sqlite:///{root}/pbem.sqlite"},
                         "games": {"deadline": "72h"}, "render": {"width": 1600}}, "demo")


async def play_script(table: ScriptedTable, ctx: Context, script: Script, out: Path | None = None,
                      clock: ManualClock | None = None, game_id: str | None = None,
                      archive_out: bool = True) -> dict[str, Any]:
    """Create the game (unless ``game_id`` names one already created), then play every
    step; returns a summary. Raises on a surprise. With ``out``, the mail is saved there and,
    unless ``archive_out`` is false, the archive exported and verified beside it."""
    if game_id is None:
        specs = [games.SeatSpec(seat, table.addresses[seat], lang) for seat, _local, lang in script.seats]
        game_id = games.create(ctx, script.kind, script.name, specs, options=script.options)
    while await table.app.drain():  # the outbox sends at most 100 a drain
        pass
    await table.collect_all()
    missing = [s for s in table.addresses if (game_id, s) not in table.secrets]
    if missing:
        raise PbemError(f"no welcome mail with a secret reached {', '.join(missing)}")
    results = []
    # the stand-ins' choices: drawn from the context's entropy, so a fixed entropy replays them
    pick = (random.Random(int.from_bytes(ctx.entropy(16), "big")).randrange if script.finish and script.stand_in
            else None)
    for i, step in enumerate(script.steps):
        if clock is not None:
            clock.advance(hours=1)
        # Phases the script does not play (the dice decide which come): the awaited seats pass.
        for _ in range(MAX_PASSES):
            awaited = games.show_game(ctx, game_id)["awaiting"]
            if step.seat in awaited or not awaited:
                break
            for seat in awaited:
                await _pass(table, game_id, seat, script.kind)
                results.append({"step": 0, "seat": seat, "outcome": "orders", "note": "passes"})
        await table.send(game_id, step.seat, step.text, step.turn)
        await table.settle()
        got = await table.collect_all()
        replies = [r for r in got[step.seat] if "report" not in r.subject and "rapporto" not in r.subject]
        accepted = any("accepted" in r.subject or "accettati" in r.subject for r in replies)
        refused = any("NOT accepted" in r.subject or "NON accettati" in r.subject or "refused" in r.subject
                      or "rifiutato" in r.subject for r in replies)
        outcome = "orders" if accepted and not refused else ("refused" if refused else "command")
        if outcome != step.expect:
            texts = "\n---\n".join(r.text for r in replies)
            raise PbemError(f"step {i + 1} ({step.seat}: {step.note or step.text[:40]}): expected {step.expect}, "
                            f"got {outcome}:\n{texts}")
        results.append({"step": i + 1, "seat": step.seat, "outcome": outcome, "note": step.note})
    for _ in range(MAX_PASSES * 20 if script.finish else 0):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished" or not shown["awaiting"]:
            break
        if clock is not None:
            clock.advance(hours=1)
        for seat in shown["awaiting"]:
            text = _stand_in(ctx, game_id, seat, script, pick) if pick is not None else None
            await _pass(table, game_id, seat, script.kind, text)
        results.append({"step": 0, "seat": ",".join(shown["awaiting"]), "outcome": "orders",
                        "note": "stand-in orders" if pick is not None else "passes"})
    shown = games.show_game(ctx, game_id)
    summary: dict[str, Any] = {"game": game_id, "status": shown["status"], "outcome": shown["outcome"],
                               "steps": results, "mails": {s: len(m) for s, m in table.mail.items()}}
    if out is not None:
        _save(table, out)
        if archive_out:
            # a game the demo leaves running gets what an observer may see (its full archive waits for the end)
            index = archive.export(ctx, game_id, out / "archive", redacted=shown["status"] != "finished")
            report = verify_path(out / "archive")
            summary["archive"] = str(index)
            summary["verify"] = report.text()
        (out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    return summary


MAX_PASSES = 30


async def _pass(table: ScriptedTable, game_id: str, seat: str, kind: str, text: str | None = None) -> None:
    await table.send(game_id, seat, text or _pass_word(kind))
    await table.settle()
    await table.collect_all()


def _stand_in(ctx: Context, game_id: str, seat: str, script: Script, pick: Callable[[int], int]) -> str:
    """A stand-in player's sheet: of ``tries`` random legal sheets, the one whose lines begin most
    with the ``prefer`` words (earlier words weigh more)."""
    with ctx.session() as session:
        state = store.state_of(store.get_game(session, game_id))
    rules = registry.get(script.kind)
    prefer = [str(w).upper() for w in script.stand_in.get("prefer", [])]
    best, score = "", -1
    for _ in range(int(script.stand_in.get("tries", 1))):
        text = rules.random_orders(state, seat, pick)
        words = [line.split(" ", 1)[0].upper() for line in text.splitlines()]
        points = sum(len(prefer) - prefer.index(w) for w in words if w in prefer)
        if points > score:
            best, score = text, points
    return best


def _pass_word(kind: str) -> str:
    rules = registry.get(kind)
    return "PASS" if "PASS" in rules.help("en") else rules.default_orders(rules.new_game(list(rules.info.seats), {}),
                                                                          rules.info.seats[0]).canonical()


class SeededEntropy:
    """Entropy from a script's ``seed``: the same bytes on every run (a demo's, never a real game's)."""

    def __init__(self, seed: str) -> None:
        self.seed, self.n = seed, 0

    def __call__(self, size: int) -> bytes:
        self.n += 1
        out = b""
        while len(out) < size:
            out += hashlib.sha256(f"{self.seed}-{self.n}-{len(out)}".encode()).digest()
        return out[:size]


def _save(table: ScriptedTable, out: Path) -> None:
    for seat, mails in table.mail.items():
        folder = out / "mail" / seat
        folder.mkdir(parents=True, exist_ok=True)
        for i, got in enumerate(mails, 1):
            stem = f"{i:03d}-" + re.sub(r"[^a-z0-9]+", "-", got.subject.lower()).strip("-")[:60]
            (folder / f"{stem}.txt").write_text(f"Subject: {got.subject}\n\n{got.text}", encoding="utf-8")
            (folder / f"{stem}.eml").write_bytes(got.raw)
            for name, data in got.attachments.items():
                if name.endswith(".png"):
                    (folder / f"{stem}.png").write_bytes(data)
                    (out / "maps").mkdir(exist_ok=True)
                    (out / "maps" / f"{seat}-{i:03d}.png").write_bytes(data)


async def run(out: Path, kinds: Sequence[str] | None = None, language: str | None = None,
              entropy: Callable[[int], bytes] | None = None, start: datetime | None = None,
              width: int | None = None, archive_out: bool = True) -> Path:
    """Play each scripted game; returns the output folder. ``language``: every seat reads its
    mail in that language (the both-language test), else each seat's own from the script;
    ``entropy``: where secrets and dice seeds come from, ``start``: the clock's first reading (a
    test fixes both; default: the system's entropy and the time now); a script with a ``seed`` plays
    on its own entropy whatever ``entropy`` says; ``width``: the PNG maps' width in pixels instead of
    the config's 1600 (a test that reads only the mails' texts and the views need not draw them
    large; the SVG, the view and the texts are the same at any width); ``archive_out`` false: no
    archive exported nor verified (a test's second run of a game whose archive another run makes)."""
    from pbem.mail.embedded import EmbeddedMailServer
    from pbem.mail.imap import ImapInbox
    from pbem.mail.smtp import SmtpSender

    out.mkdir(parents=True, exist_ok=True)
    for kind in kinds or scripted_kinds() + scripted_variants():
        script = load_script(kind)
        if language is not None:
            script = replace(script, seats=tuple((seat, local, language) for seat, local, _ in script.seats))
        variant = kind.partition(":")[2]
        folder = out / (registry.get(script.kind).info.slug + (f"-{variant}" if variant else ""))
        if folder.exists():
            import shutil

            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        cfg = demo_config(folder)
        clock = ManualClock(start or datetime.now(timezone.utc).replace(microsecond=0))
        source = SeededEntropy(script.seed) if script.seed else entropy
        ctx = (Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock, render_width=width)
               if source is None else
               Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock, entropy=source,
                       render_width=width))
        server = EmbeddedMailServer(host="127.0.0.1", imap_port=0, smtp_port=0, maildir=None,
                                    domains=("localhost",), password="pbem")
        await server.start()
        try:
            inbox = ImapInbox("127.0.0.1", server.imap_port, cfg.server.address, "pbem", "none", timeout=10)
            sender = SmtpSender("127.0.0.1", server.smtp_port)
            app = App(ctx, inbox, sender)
            await inbox.connect()
            addresses = {seat: f"{local}@localhost" for seat, local, _ in script.seats}
            table = ScriptedTable(app, sender, lambda a: ImapInbox("127.0.0.1", server.imap_port, a, "pbem", "none",
                                                                   timeout=10), addresses, cfg.server.address)
            try:
                summary = await play_script(table, ctx, script, folder, clock, archive_out=archive_out)
            finally:
                await table.close()
                await app.stop()  # its inbox and SMTP connection, and its map and mail-reader processes
            log.info("demo %s: %s, %s", kind, summary["status"], summary.get("verify"))
        finally:
            await server.stop()
            ctx.engine.dispose()
    return out
