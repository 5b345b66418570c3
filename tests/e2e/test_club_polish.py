"""Small things a club meets, through real SMTP and IMAP (the embedded pymap + aiosmtpd on
loopback) on a real SQLite file: a player holding two seats of one game has one mail thread
per seat (issue 19.2: a stable root, the welcome, and References to it), and the welcome
says what its attachments are for, in English and in Italian (issue 19.9)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlmodel import select

from pbem.app import App
from pbem.db.models import Game
from pbem.mail.parse import IncomingMail
from pbem.service import games, threads
from pbem.service.texts import t
from tests.e2e.mailstack import open_app
from tests.mail.servers import MailHarness
from tests.support.players import secret_from_welcome

ANN, BEA = "ann@localhost", "bea@localhost"


@pytest.fixture
async def app(embedded_mail: MailHarness, tmp_path) -> AsyncIterator[App]:  # type: ignore[no-untyped-def]
    settings = {"render": {"width": 300}, "games": {"deadline": "48h", "reminders": ["24h"]}}
    async with open_app(embedded_mail, f"sqlite:///{tmp_path}/pbem.sqlite", settings) as opened:
        yield opened


def _root(app: App, game_id: str, seat: str, address: str) -> str:
    with app.ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None
        holder = threads.holder_for(s, game, address, seat)
        assert holder is not None and holder.id is not None
        return threads.root_id(game, seat, holder.id, app.ctx.config.server.domain)


def _files(mail: IncomingMail) -> list[str]:
    return [name for name, _type, _size in mail.attachments]


async def test_a_player_of_two_seats_has_one_thread_per_seat(app: App, embedded_mail: MailHarness) -> None:
    """Ann holds red and blue of an Arditi game: two welcomes, each the root of its seat's
    thread; the reminders and the reports that follow name their own seat's root first."""
    game_id = games.create(app.ctx, "arditi", "Two hats", [
        games.SeatSpec("red", ANN), games.SeatSpec("blue", ANN), games.SeatSpec("green", BEA)])
    await app.drain()
    welcomes = await embedded_mail.wait_for(ANN, count=2)
    roots = {seat: _root(app, game_id, seat, ANN) for seat in ("red", "blue")}
    assert roots["red"] != roots["blue"]
    by_root = {m.message_id: m for m in welcomes}
    assert set(by_root) == set(roots.values())
    for seat, root in roots.items():
        welcome = by_root[root]
        assert f"SEAT {seat} " in welcome.text and welcome.in_reply_to is None and not welcome.references
    assert secret_from_welcome(by_root[roots["red"]].text) != secret_from_welcome(by_root[roots["blue"]].text)

    # Nobody sends orders: a reminder, then the deadline plays the default orders and reports.
    app.ctx.clock.advance(hours=25)  # type: ignore[attr-defined]
    await app.cycle()
    await app.drain()
    app.ctx.clock.advance(hours=24)  # type: ignore[attr-defined]
    for _ in range(4):
        await app.cycle()  # the resolution, the report stage, then the outbox
    await app.drain()
    later = await embedded_mail.wait_for(ANN, count=1)
    for _ in range(10):  # the set-up's reports and turn 1's, two seats each, maybe in several fetches
        if sum(1 for m in later if "report" in m.subject) >= 4:
            break
        later += await embedded_mail.wait_for(ANN, count=1)
    reports = [m for m in later if "report" in m.subject]
    assert len(reports) == 4, [m.subject for m in later]
    for report in reports:  # the seat a report is for: its attachments are named <game>-turn-N-<seat>
        (seat,) = [s for s in roots if any(name.endswith(f"-{s}.json") for name in _files(report))]
        assert report.in_reply_to == roots[seat] and list(report.references) == [roots[seat]]
    assert {r.in_reply_to for r in reports} == set(roots.values())
    # Every other mail Ann got (reminders, notices) sits in one of her two threads, never loose.
    assert all(m.references and m.references[0] in roots.values() for m in later)


async def test_the_welcome_says_what_its_attachments_are_for(app: App, embedded_mail: MailHarness) -> None:
    """The start map, its ``.json`` view and the deadline's ``.ics`` are named and explained,
    in each player's language, as the reports explain theirs."""
    game_id = games.create(app.ctx, "arditi", "Files", [
        games.SeatSpec("red", ANN, "en"), games.SeatSpec("blue", BEA, "it")])
    await app.drain()
    for address, lang in ((ANN, "en"), (BEA, "it")):
        (welcome,) = await embedded_mail.wait_for(address)
        files = _files(welcome)
        png, data, ics = f"{game_id}-start.png", f"{game_id}-start.json", f"{game_id}-deadline.ics"
        assert {png, data, ics} <= set(files), files
        said = t("welcome.attached", lang, png=png, json=data)
        assert said in welcome.text and t("welcome.attached_calendar", lang, ics=ics) in welcome.text
        other = t("welcome.attached", "it" if lang == "en" else "en", png=png, json=data)
        assert other != said and other not in welcome.text  # each player reads it in their own language


async def test_a_failed_mail_retried_by_the_administrator_is_applied_once(
        app: App, embedded_mail: MailHarness, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A mail whose handling fails (a fault, simulated once) is kept as an error and the
    player told; ``pbem mail failed`` lists it and ``pbem mail retry ID`` (the command line, on
    the same SQLite file and the same IMAP mailbox) marks it unread again; the daemon's next
    cycle reads it from the inbox and applies it, once."""
    from pbem.cli import main
    from pbem.db.models import InboundMail, SheetRow
    from pbem.service import inbound
    from tests.security.support import orders_mail

    game_id = games.create(app.ctx, "duel", "Retry", [games.SeatSpec("red", ANN), games.SeatSpec("blue", BEA)])
    await app.drain()
    (welcome,) = await embedded_mail.wait_for(ANN)
    secret = secret_from_welcome(welcome.text)

    real, faults = inbound._process, []

    def failing_once(*args, **kwargs):  # type: ignore[no-untyped-def]
        if not faults:
            faults.append(1)
            raise RuntimeError("simulated fault while reading the mail")
        return real(*args, **kwargs)

    monkeypatch.setattr(inbound, "_process", failing_once)
    await embedded_mail.send(ANN, [app.ctx.config.server.address],
                             orders_mail(ANN, game_id, "red", secret, ["PLAY 3"], message_id="<retry-1@player.example>"))
    assert await _handled(app, 1) == {"error": 1}
    (told,) = await embedded_mail.wait_for(ANN)
    assert "error" in told.subject.lower()

    def sheets() -> list[SheetRow]:
        with app.ctx.session() as s:
            return [r for r in s.exec(select(SheetRow).where(SheetRow.game_id == game_id, SheetRow.seat == "red"))]

    assert not sheets()
    with app.ctx.session() as s:
        (failed,) = s.exec(select(InboundMail).where(InboundMail.status == "error")).all()
        row_id = failed.id

    config = tmp_path / "admin.toml"
    config.write_text(
        f'[database]\nurl = "{app.ctx.config.database.url}"\n'
        f'[mail]\nbackend = "remote"\n'
        f'[mail.imap]\nhost = "127.0.0.1"\nport = {embedded_mail.imap_port}\nsecurity = "none"\n'
        f'username_env = "PBEM_POLISH_IMAP_USER"\npassword_env = "PBEM_POLISH_IMAP_PASSWORD"\n'
        f'[mail.smtp]\nhost = "127.0.0.1"\nport = {embedded_mail.smtp_port}\nsecurity = "none"\n', encoding="utf-8")
    monkeypatch.setenv("PBEM_POLISH_IMAP_USER", app.ctx.config.server.address)
    monkeypatch.setenv("PBEM_POLISH_IMAP_PASSWORD", embedded_mail.password)
    # The command line runs its own event loop: in a thread, while the mail server serves in this one.
    assert await asyncio.to_thread(main, ["--config", str(config), "mail", "failed"]) == 0
    assert await asyncio.to_thread(main, ["--config", str(config), "mail", "retry", str(row_id)]) == 0

    assert await _handled(app, 1) == {"orders": 1}
    (accepted,) = await embedded_mail.wait_for(ANN)
    assert "PLAY 3" in accepted.text and "accepted" in accepted.subject.lower()
    assert [(r.canonical.strip(), r.source) for r in sheets()] == [("PLAY 3", "mail")]
    with app.ctx.session() as s:
        rows = list(s.exec(select(InboundMail).where(InboundMail.message_id == "<retry-1@player.example>")
                           .order_by(InboundMail.id)))  # type: ignore[arg-type]
    assert [(r.id == row_id, r.status) for r in rows] == [(True, "retried"), (False, "orders")]
    # Nothing more to read, and the mail is no error any more: a second retry is refused.
    assert await _handled(app, 0) == {}
    assert await asyncio.to_thread(main, ["--config", str(config), "mail", "retry", str(row_id)]) != 0
    assert [(r.canonical.strip(), r.superseded) for r in sheets()] == [("PLAY 3", False)]


async def _handled(app: App, count: int) -> dict[str, int]:
    """Daemon cycles until ``count`` mails are handled (a few more when none is expected)."""
    handled: dict[str, int] = {}
    for _ in range(40 if count else 3):
        for k, v in (await app.cycle()).handled.items():
            handled[k] = handled.get(k, 0) + v
        if count and sum(handled.values()) >= count:
            break
        await app.inbox.wait(0.1)
    await app.drain()
    return handled
