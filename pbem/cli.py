"""The command line (architecture 2.2). Exit codes follow sysexits.h (`pbem.errors`):
0 ok, 1 a check said no (``orders check``, ``verify``, ``status``), 64 usage, 65 bad
input (a game, seat, duration or file that is wrong), 69 a mail server cannot be used
(``serve --once`` prints what to fix), 75 temporary (database busy or locked by another
daemon), 78 configuration (the file, or the database it names: missing or needing
``pbem db upgrade``). The codes changed on purpose from 0/1/2/3: a service manager must tell
a broken configuration (do not restart) from an outage (restart later)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence

from pbem import config as config_mod
from pbem.errors import EX_UNAVAILABLE, EX_USAGE, PbemError, UsageError, UserError

log = logging.getLogger("pbem")


def _context(args: argparse.Namespace, schema: str = "require") -> Any:
    """The service context on the configured database. Only ``serve``, ``db upgrade`` and
    ``game new`` may make the database (``schema``: `pbem.db.session.make_engine`)."""
    from pbem.db.session import make_engine
    from pbem.service.context import Context, system_clock

    cfg = config_mod.load(args.config)
    return Context(engine=make_engine(cfg.database.resolved().url, schema),  # type: ignore[arg-type]
                   config=cfg, clock=getattr(args, "clock", None) or system_clock)


def cmd_serve(args: argparse.Namespace) -> int:
    from pbem.app import App

    from pbem.service.workers import parse_roles

    cfg = config_mod.load(args.config)
    app = App.from_config(cfg, _context(args, "create"), parse_roles(args.role))
    if args.once:
        summary = asyncio.run(app.run_once())
        print(json.dumps(summary))
        return EX_UNAVAILABLE if summary["errors"] else 0
    else:
        try:
            asyncio.run(app.serve())
        except KeyboardInterrupt:  # Ctrl-C before the daemon's own handler was in place
            log.info("pbem stopped")
    return 0


def _engine(args: argparse.Namespace, schema: str) -> Any:
    from pbem.db.session import make_engine

    return make_engine(config_mod.load(args.config).database.resolved().url, schema)  # type: ignore[arg-type]


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from pbem.db import schema

    engine = _engine(args, "open")
    try:
        before, after = schema.upgrade(engine)
    finally:
        engine.dispose()
    if before.revision == after.revision and before.state == "current":
        print(f"database already at {after.revision} (newest)")
    elif before.state == "empty":
        print(f"database created at {after.revision}")
    else:
        print(f"database upgraded from {before.revision or 'before migrations'} to {after.revision}")
    return 0


def cmd_db_current(args: argparse.Namespace) -> int:
    from pbem.db import schema

    engine = _engine(args, "none")
    try:
        now = schema.version(engine)
    finally:
        engine.dispose()
    print(now.text())
    return 0 if now.state == "current" else 1


def cmd_outbox_list(args: argparse.Namespace) -> int:
    from pbem.service import outbox

    rows = outbox.listing(_context(args), status=args.status, game_id=args.game, limit=args.limit)
    if not rows:
        print("no mail")
    for r in rows:
        when = (r.sent_at or r.created_at)
        stamp = when.strftime("%Y-%m-%d %H:%M") if when else "-"
        to = ", ".join(json.loads(r.recipients_json))
        print(f"{r.id:6} {r.status:8} {r.kind:9} {stamp} {to} {r.message_id}")
        if r.status != "sent" and r.last_error:
            print(f"{'':6} {r.last_error}")
    return 0


def cmd_outbox_retry(args: argparse.Namespace) -> int:
    from pbem.service import outbox

    rows = outbox.requeue(_context(args), message_ids=args.message_id or (), game_id=args.game, kind=args.kind)
    for r in rows:
        print(f"requeued {r.message_id} ({r.kind} to {', '.join(json.loads(r.recipients_json))})")
    print(f"{len(rows)} mail(s) queued again; the daemon sends them on its next drain")
    return 0


def _pairs(items: list[str] | None, what: str) -> dict[str, str]:
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"{what} is KEY=VALUE, not {item!r}")
        out[key.strip()] = value.strip()
    return out


def cmd_game_new(args: argparse.Namespace) -> int:
    from pbem.service import games

    ctx = _context(args, "create")
    options = _pairs(args.option, "an option")
    policies = _pairs(args.policy, "a policy")
    specs = [games.SeatSpec.parse(s) for s in args.seat or []]
    game_id = games.create(ctx, args.kind, args.name, specs, deadline=args.deadline, options=options,
                           policies=policies, open_all=args.open)
    print(game_id)
    if args.master:
        from pbem.service import master

        print(master.appoint(ctx, game_id, args.master))
    return 0


def cmd_game_master(args: argparse.Namespace) -> int:
    from pbem.service import master

    print(master.appoint(_context(args), args.id, args.email))
    return 0


def cmd_game_watch(args: argparse.Namespace) -> int:
    from pbem.service import observers

    print(observers.add(_context(args), args.id, args.email, args.language))
    return 0


def cmd_game_list(args: argparse.Namespace) -> int:
    from pbem.service import games

    ctx = _context(args)
    rows = games.list_games(ctx)
    if not rows:
        print("no games")
    for g in rows:
        print(f"{g.id:8} {g.kind:12} {g.status:9} {g.name}")
    return 0


def cmd_game_show(args: argparse.Namespace) -> int:
    from pbem.service import games

    print(json.dumps(games.show_game(_context(args), args.id), indent=2, ensure_ascii=False))
    return 0


def cmd_game_extend(args: argparse.Namespace) -> int:
    from pbem.service import games

    print(games.extend(_context(args), args.id, args.duration))
    return 0


def cmd_game_pause(args: argparse.Namespace) -> int:
    from pbem.service import games

    print(games.pause(_context(args), args.id))
    return 0


def cmd_game_resume(args: argparse.Namespace) -> int:
    from pbem.service import games

    print(games.resume(_context(args), args.id))
    return 0


def cmd_game_seat_add(args: argparse.Namespace) -> int:
    from pbem.service import games, teams

    spec = games.HolderSpec.parse(args.player, args.seat)
    print(teams.add(_context(args), args.id, args.seat, spec))
    return 0


def cmd_game_seat_remove(args: argparse.Namespace) -> int:
    from pbem.service import teams

    print(teams.remove(_context(args), args.id, args.seat, args.email))
    return 0


def cmd_game_start(args: argparse.Namespace) -> int:
    from pbem.service import signup

    print(signup.start(_context(args), args.id))
    return 0


def cmd_game_seat_free(args: argparse.Namespace) -> int:
    from pbem.service import signup

    print(signup.free(_context(args), args.id, args.seat))
    return 0


def cmd_player_list(args: argparse.Namespace) -> int:
    from pbem.service import players

    rows = players.player_list(_context(args))
    if not rows:
        print("no players")
    for p in rows:
        print(f"{p['address']:32} {p['language']:3} {p['timezone'] or '-':20} {p['seats']:3} seat(s)  {p['name']}")
    return 0


def cmd_player_show(args: argparse.Namespace) -> int:
    from pbem.service import players

    from pbem.service import reliability

    ctx = _context(args)
    data = players.player_show(ctx, args.address)
    with ctx.session() as session:
        from pbem.db.models import Player
        from sqlmodel import select

        player = session.exec(select(Player).where(Player.address == data["address"])).one()
        assert player.id is not None
        data["reliability"] = reliability.of_player(session, player.id).as_dict()
    print(json.dumps(data, indent=2, ensure_ascii=False))
    return 0


def cmd_league_new(args: argparse.Namespace) -> int:
    from pbem.service import leagues

    ctx = _context(args, "create")
    print(leagues.create(ctx, args.name, args.kind, args.format, args.player or [], rounds=args.rounds,
                         seats=args.seats_per_game, open_signup=args.open, deadline=args.deadline,
                         options=_pairs(args.option, "an option"), policies=_pairs(args.policy, "a policy")))
    return 0


def cmd_league_list(args: argparse.Namespace) -> int:
    from pbem.service import leagues

    rows = leagues.list_leagues(_context(args))
    if not rows:
        print("no leagues")
    for lg in rows:
        rounds = f"round {lg['round']}/{lg['rounds'] or '?'}"
        print(f"{lg['id']:6} {lg['kind']:12} {lg['format']:12} {lg['status']:9} {rounds:12} "
              f"{lg['players']:3} players  {lg['name']}")
    return 0


def cmd_league_show(args: argparse.Namespace) -> int:
    from pbem.service import leagues

    print(json.dumps(leagues.show(_context(args), args.id), indent=2, ensure_ascii=False))
    return 0


def cmd_league_pair(args: argparse.Namespace) -> int:
    from pbem.service import leagues

    print(leagues.pair(_context(args), args.id, force=args.force))
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from pbem.service import ratings

    table = ratings.ordered(ratings.of_database(_context(args)), args.kind)
    if args.json:
        print(json.dumps([{"kind": r.kind, "player": r.player, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
                           "ordinal": round(r.ordinal, 3), "games": r.games} for r in table], indent=1))
        return 0
    if not table:
        print("no rated games" + (f" of {args.kind}" if args.kind else ""))
    for r in table:
        print(f"{r.kind:12} {r.player:8} {r.ordinal:7.2f}  mu {r.mu:6.2f} sigma {r.sigma:5.2f}  {r.games} game(s)")
    return 0


def cmd_site_build(args: argparse.Namespace) -> int:
    from pbem.site import build

    report = build(_context(args), Path(args.out))
    print(report.text())
    return 1 if report.problems else 0


def cmd_ratings_verify(args: argparse.Namespace) -> int:
    from pbem.errors import VerifyError
    from pbem.service import ratings

    try:
        print(ratings.verify(_context(args), Path(args.dir)))
    except VerifyError as exc:
        print(f"FAILED: {exc}")
        return 1
    return 0


def cmd_game_seat_reset(args: argparse.Namespace) -> int:
    from pbem.service import teams

    for line in teams.reset(_context(args), args.id, args.seat, args.email):
        print(line)
    return 0


def cmd_orders_check(args: argparse.Namespace) -> int:
    from pbem.service import checking

    path = Path(args.file)
    if not path.exists():
        raise UserError(f"no such file: {path}")
    ctx = _context(args) if args.game else None
    ok, text = checking.check_file(ctx, args.kind, path.read_text(encoding="utf-8", errors="replace"),
                                   game_id=args.game, seat=args.seat, lang=args.lang)
    print(text)
    return 0 if ok else 1


def cmd_archive_export(args: argparse.Namespace) -> int:
    from pbem.service import archive

    out = archive.export(_context(args), args.id, Path(args.out), redacted=args.redacted)
    print(out)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from pbem.service import status
    from pbem.service.context import system_clock

    report = status.gather(config_mod.load(args.config), getattr(args, "clock", None) or system_clock)
    print(json.dumps(report.as_dict(), indent=2) if args.json else report.text())
    return 0 if report.ok else 1


def cmd_backup(args: argparse.Namespace) -> int:
    from pbem.service import backup

    cfg = config_mod.load(args.config)
    print(backup.backup(cfg.database.resolved().url, Path(args.out)))
    return 0


def cmd_outbox_drop(args: argparse.Namespace) -> int:
    from pbem.service import failed

    for r in failed.outbox_drop(_context(args), args.message_id):
        print(f"dropped {r.message_id} ({r.kind} to {', '.join(json.loads(r.recipients_json))})")
    return 0


def cmd_mail_failed(args: argparse.Namespace) -> int:
    from pbem.service import failed

    rows = failed.inbound_failed(_context(args), limit=args.limit)
    if not rows:
        print("no failed mail")
    for r in rows:
        stamp = r.received_at.strftime("%Y-%m-%d %H:%M") if r.received_at else "-"
        print(f"{r.id:6} {stamp} {r.sender or '-'} {r.subject[:60]!r} {r.message_id}")
        print(f"{'':6} {r.note[:300]}")
    return 0


def cmd_mail_retry(args: argparse.Namespace) -> int:
    from pbem.service import failed

    print(failed.inbound_retry(_context(args), args.id))
    return 0


def cmd_player_forget(args: argparse.Namespace) -> int:
    from pbem.service import forget

    print(forget.forget(_context(args), args.address))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from pbem.service import verify

    report = verify.verify_path(Path(args.path))
    print(report.text())
    return 0 if report.ok else 1


def cmd_demo(args: argparse.Namespace) -> int:
    from pbem import demo

    out = asyncio.run(demo.run(Path(args.out), kinds=args.game or None))
    print(out)
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with the usage error of sysexits (64) instead of 2."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EX_USAGE, f"{self.prog}: error: {message}\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from pbem import __version__

    try:
        return version("pbem")
    except PackageNotFoundError:
        return __version__


def build_parser() -> argparse.ArgumentParser:
    def options(suppress: bool) -> argparse.ArgumentParser:
        # Sub-commands accept the options too; their defaults must not override a value
        # given before the sub-command, hence SUPPRESS there.
        p = _Parser(add_help=False)
        default: object = argparse.SUPPRESS if suppress else None
        p.add_argument("--config", metavar="PATH", default=default,
                       help="configuration file (default: $PBEM_CONFIG or config/pbem.toml)")
        p.add_argument("-v", "--verbose", action="store_true",
                       default=argparse.SUPPRESS if suppress else False, help="log more")
        p.add_argument("--log-json", action="store_true", default=argparse.SUPPRESS if suppress else False,
                       help="log one JSON object per line (game, seat and mail on lines about a mail)")
        return p

    common = options(suppress=True)
    parser: argparse.ArgumentParser = _Parser(prog="pbem", description="A play-by-email game server.",
                                              parents=[options(suppress=False)])
    parser.add_argument("--version", action="version", version=f"pbem {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", parents=[common], help="run the daemon (mail, deadlines, reminders)")
    p.add_argument("--once", action="store_true", help="one full cycle (fetch, process, resolve, send), then exit")
    p.add_argument("--role", default="all", metavar="ROLES",
                   help="what this worker does: all (default) or a comma list of inbox, deadlines, maps, outbox "
                        "(several workers share one PostgreSQL database; docs/operations.md)")
    p.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", parents=[common], help="the database's schema version")
    dsub = db.add_subparsers(dest="db_command", required=True)
    p = dsub.add_parser("upgrade", parents=[common],
                        help="bring the database to this release's schema (makes it when there is none)")
    p.set_defaults(func=cmd_db_upgrade)
    p = dsub.add_parser("current", parents=[common], help="the database's schema version (exit 1: not the newest)")
    p.set_defaults(func=cmd_db_current)

    box = sub.add_parser("outbox", parents=[common], help="the mail waiting to be sent, sent or failed")
    bsub = box.add_subparsers(dest="outbox_command", required=True)
    p = bsub.add_parser("list", parents=[common], help="the newest mails, with the last error of those not sent")
    p.add_argument("--status", choices=["queued", "sent", "failed", "dropped"], help="only mails in this state")
    p.add_argument("--game", help="only this game's mail")
    p.add_argument("--limit", type=int, default=50, help="how many (default 50)")
    p.set_defaults(func=cmd_outbox_list)
    p = bsub.add_parser("retry", parents=[common], help="queue failed mail again (all of it, or the ones named)")
    p.add_argument("message_id", nargs="*", help="Message-IDs to requeue (default: every failed mail)")
    p.add_argument("--game", help="only this game's mail")
    p.add_argument("--kind", help="only this kind: welcome, report, reply, reminder, notice, refusal")
    p.set_defaults(func=cmd_outbox_retry)
    p = bsub.add_parser("drop", parents=[common], help="give up on queued or failed mail (it stays listed as dropped)")
    p.add_argument("message_id", nargs="+", help="Message-IDs to drop")
    p.set_defaults(func=cmd_outbox_drop)

    p = sub.add_parser("status", parents=[common],
                       help="database, mailbox, last cycle, outbox, failed mail, next deadline (exit 1: not healthy)")
    p.add_argument("--json", action="store_true", help="as JSON, for monitoring")
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("backup", parents=[common], help="a consistent copy of the database (SQLite file or pg_dump)")
    p.add_argument("--out", required=True, metavar="FILE")
    p.set_defaults(func=cmd_backup)
    mail = sub.add_parser("mail", parents=[common], help="inbound mail that went wrong")
    msub = mail.add_subparsers(dest="mail_command", required=True)
    p = msub.add_parser("failed", parents=[common], help="inbound mail stored as errors, newest first")
    p.add_argument("--limit", type=int, default=50)
    p.set_defaults(func=cmd_mail_failed)
    p = msub.add_parser("retry", parents=[common], help="read an inbound mail stored as an error once more")
    p.add_argument("id", type=int, help="its number in `pbem mail failed`")
    p.set_defaults(func=cmd_mail_retry)

    game = sub.add_parser("game", parents=[common], help="create and manage games")
    gsub = game.add_subparsers(dest="game_command", required=True)
    p = gsub.add_parser("new", parents=[common], help="create a game and mail every seat its welcome")
    p.add_argument("kind", help="the game: kriegspiel, ...")
    p.add_argument("--name", required=True, help="the game's name")
    p.add_argument("--seat", action="append", metavar="SEAT=EMAIL[:LANG][,EMAIL[:LANG]...]",
                   help="a seat and its player (repeat for each seat); a team: several players, comma-separated; "
                        "SEAT=open: a seat for sign-up by mail (JOIN)")
    p.add_argument("--open", action="store_true",
                   help="every seat of the game not named by --seat is open for sign-up by mail; "
                        "the game starts when the last is taken (or with `pbem game start`)")
    p.add_argument("--deadline", metavar="DURATION", help="turn length, e.g. 72h (default from the config)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a game option (repeat)")
    p.add_argument("--policy", action="append", metavar="KEY=VALUE",
                   help="deadline policy for this game (repeat): reminders=24h,2h grace=1h early=no "
                        "warn_after=1 abandon_after=3 decision=12h takeover=auto|approve absence_days=14 "
                        "observers=open|approved|none observer_delay=N press=none|white|grey|broadcast-only "
                        "press_in=all|orders")
    p.add_argument("--master", metavar="EMAIL", help="the game's master by mail (mailed a GM secret)")
    p.set_defaults(func=cmd_game_new)
    p = gsub.add_parser("list", parents=[common], help="list games")
    p.set_defaults(func=cmd_game_list)
    p = gsub.add_parser("show", parents=[common], help="show a game")
    p.add_argument("id")
    p.set_defaults(func=cmd_game_show)
    p = gsub.add_parser("extend", parents=[common], help="extend the current deadline")
    p.add_argument("id")
    p.add_argument("duration", help="e.g. 24h, 2d, 90m")
    p.set_defaults(func=cmd_game_extend)
    p = gsub.add_parser("pause", parents=[common], help="pause a game (its deadline stops)")
    p.add_argument("id")
    p.set_defaults(func=cmd_game_pause)
    p = gsub.add_parser("resume", parents=[common], help="resume a paused game")
    p.add_argument("id")
    p.set_defaults(func=cmd_game_resume)
    p = gsub.add_parser("master", parents=[common],
                        help="name the game's master by mail and mail them a new GM secret")
    p.add_argument("id")
    p.add_argument("email")
    p.set_defaults(func=cmd_game_master)
    p = gsub.add_parser("watch", parents=[common],
                        help="let an address watch a game as an observer (approves a WATCH request; mails a welcome)")
    p.add_argument("id")
    p.add_argument("email")
    p.add_argument("--language", choices=("en", "it"), help="the observer's language (default: the server's)")
    p.set_defaults(func=cmd_game_watch)
    p = gsub.add_parser("start", parents=[common],
                        help="start an open game with the seats taken so far (where its rules allow that few)")
    p.add_argument("id")
    p.set_defaults(func=cmd_game_start)
    seat = gsub.add_parser("seat", parents=[common], help="the players holding a seat (teams)")
    ssub = seat.add_subparsers(dest="seat_command", required=True)
    p = ssub.add_parser("free", parents=[common],
                        help="remove a seat's players (they are told) and open it for takeover by mail")
    p.add_argument("id")
    p.add_argument("seat")
    p.set_defaults(func=cmd_game_seat_free)
    p = ssub.add_parser("add", parents=[common], help="add a player to a seat (a welcome with their own secret)")
    p.add_argument("id")
    p.add_argument("seat")
    p.add_argument("player", metavar="EMAIL[:LANG]")
    p.set_defaults(func=cmd_game_seat_add)
    p = ssub.add_parser("remove", parents=[common], help="take a player off a seat (a seat keeps at least one)")
    p.add_argument("id")
    p.add_argument("seat")
    p.add_argument("email")
    p.set_defaults(func=cmd_game_seat_remove)
    p = ssub.add_parser("reset", parents=[common],
                        help="a new secret and a fresh welcome for a seat's player (or every player of the seat)")
    p.add_argument("id")
    p.add_argument("seat")
    p.add_argument("email", nargs="?", help="only this player of the seat (default: all of them)")
    p.set_defaults(func=cmd_game_seat_reset)

    player = sub.add_parser("player", parents=[common], help="the club's players")
    psub = player.add_subparsers(dest="player_command", required=True)
    p = psub.add_parser("list", parents=[common], help="every player: language, time zone, seats held")
    p.set_defaults(func=cmd_player_list)
    p = psub.add_parser("show", parents=[common],
                        help="one player: seats, absences, deadlines met and missed")
    p.add_argument("address")
    p.set_defaults(func=cmd_player_show)
    p = psub.add_parser("forget", parents=[common],
                        help="erase a player whose games have all ended: a pseudonym instead of the address")
    p.add_argument("address")
    p.set_defaults(func=cmd_player_forget)

    league = sub.add_parser("league", parents=[common], help="leagues and tournaments (docs/club.md)")
    lsub = league.add_subparsers(dest="league_command", required=True)
    p = lsub.add_parser("new", parents=[common], help="a league of one game kind, its players named or signing up")
    p.add_argument("name")
    p.add_argument("--kind", required=True, help="the game: kriegspiel, arditi, ...")
    p.add_argument("--format", required=True, choices=("round-robin", "swiss"))
    p.add_argument("--rounds", type=int, help="how many rounds (default: round robin every pairing, Swiss log2 of "
                                              "the players)")
    p.add_argument("--seats-per-game", type=int, help="seats of each game (default 2 where the game allows it)")
    p.add_argument("--player", action="append", metavar="EMAIL", help="a player (repeat)")
    p.add_argument("--open", action="store_true", help="players may also sign up by mail: JOIN LEAGUE <id>")
    p.add_argument("--deadline", help="the games' turn length, e.g. 72h")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="an option of every game")
    p.add_argument("--policy", action="append", metavar="KEY=VALUE", help="a deadline policy of every game")
    p.set_defaults(func=cmd_league_new)
    p = lsub.add_parser("list", parents=[common], help="every league")
    p.set_defaults(func=cmd_league_list)
    p = lsub.add_parser("show", parents=[common], help="a league: standings and rounds")
    p.add_argument("id")
    p.set_defaults(func=cmd_league_show)
    p = lsub.add_parser("pair", parents=[common], help="make the next round's games and mail the welcomes")
    p.add_argument("id")
    p.add_argument("--force", action="store_true",
                   help="pair although games of the round still run (each counts as a draw for this pairing)")
    p.set_defaults(func=cmd_league_pair)

    rating = sub.add_parser("ratings", parents=[common], help="ratings per player and game kind (OpenSkill)")
    rating.add_argument("--kind", help="only this game kind")
    rating.add_argument("--json", action="store_true")
    rating.set_defaults(func=cmd_ratings)
    rsub = rating.add_subparsers(dest="ratings_command")
    p = rsub.add_parser("verify", parents=[common],
                        help="recompute every rating from exported archives alone and compare (exit 1: a difference)")
    p.add_argument("dir", help="a folder of archives (pbem archive export), at any depth")
    p.set_defaults(func=cmd_ratings_verify)

    site = sub.add_parser("site", parents=[common], help="the club's static website")
    ssite = site.add_subparsers(dest="site_command", required=True)
    p = ssite.add_parser("build", parents=[common], help="write the website: games, leagues, ratings, players, feeds")
    p.add_argument("--out", required=True, metavar="DIR")
    p.set_defaults(func=cmd_site_build)

    orders = sub.add_parser("orders", parents=[common], help="work with order texts")
    osub = orders.add_subparsers(dest="orders_command", required=True)
    p = osub.add_parser("check", parents=[common],
                        help="check an order text as the server would; says the game, seat and phase checked against")
    p.add_argument("kind")
    p.add_argument("file", help="an order text or a whole order mail")
    p.add_argument("--game", help="check against this game's current state")
    p.add_argument("--seat", help="the seat giving the orders")
    p.add_argument("--lang", default="en", choices=["en", "it"], help="language of the output, the game's diagnostics included")
    p.set_defaults(func=cmd_orders_check)

    archive = sub.add_parser("archive", parents=[common], help="archives of games")
    asub = archive.add_subparsers(dest="archive_command", required=True)
    p = asub.add_parser("export", parents=[common], help="write a static HTML archive of a game")
    p.add_argument("id")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--redacted", action="store_true",
                   help="only what an observer may see (no orders, hands or sealed dice): for a game not yet ended")
    p.set_defaults(func=cmd_archive_export)

    p = sub.add_parser("verify", parents=[common], help="re-check an exported archive: dice, replay, hash chain")
    p.add_argument("path", help="the archive folder (or its game.json)")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("demo", parents=[common], help="play a short scripted game of each kind through real mail")
    p.add_argument("--out", default="pbem-demo", metavar="DIR")
    p.add_argument("--game", action="append", help="only this kind (repeat)")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None, *, clock: Callable[[], datetime] | None = None) -> int:
    """Run one command. ``clock`` replaces the system clock for everything the command
    does: a test that fixes time gives the command line the same clock."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.clock = clock
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if getattr(args, "log_json", False):  # one JSON object per line, for a log collector
        from pbem.service.logjson import JsonFormatter

        for handler in logging.getLogger().handlers:
            handler.setFormatter(JsonFormatter())
    if not args.verbose:
        logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every command
        logging.getLogger("apscheduler").setLevel(logging.WARNING)  # and the scheduler every run
        logging.getLogger("alembic").setLevel(logging.WARNING)  # and the migrations their set-up
    try:
        return int(args.func(args))
    except PbemError as exc:
        print(f"pbem: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
