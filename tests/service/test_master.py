"""The game master by mail (architecture 2.8, issue "A club by mail" 6): a block signed
``GM <secret>`` from the game's master; the secret mailed once by ``pbem game master``,
checked like a seat's; anything else refused with a specific notice and nothing changed."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from pbem.db.models import Game, Holder, PhaseRow
from pbem.service import games, master, signup, store
from tests.security.support import note_of, orders_mail, send
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import player_mail, secret_from_welcome

GM = "gm@example.org"


def gm_mail(sender: str, game_id: str, secret: str, lines: list[str]) -> bytes:
    return player_mail(sender, "\n".join([f"GAME {game_id}", f"GM {secret}", *lines, "END"]), subject="gm")


def _game(ctx) -> tuple[str, str, dict[str, str]]:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Club night", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    assert "now the game master" in master.appoint(ctx, game_id, GM)
    (mail,) = outbox(ctx, to=GM)
    secret = secret_from_welcome(text_of(mail))
    seats = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (RED, BLUE)}
    return game_id, secret, seats


def _deadline(ctx, game_id: str):  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        game = store.get_game(s, game_id)
        phase = store.current_phase(s, game)
        assert phase is not None
        return phase.deadline, game.status


def test_the_secret_is_mailed_once_and_only_its_hash_kept(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secret, _ = _game(ctx)
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.master_address == GM
        assert secret not in game.master_secret_hash and game.master_secret_hash
    assert "EXTEND" in text_of(outbox(ctx, to=GM)[0]) and "PROROGA" in text_of(outbox(ctx, to=GM)[0])


def test_extend_pause_resume_by_mail(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    game_id, secret, _ = _game(ctx)
    before, _ = _deadline(ctx, game_id)
    mark = outbox(ctx)[-1].id
    result = send(ctx, gm_mail(GM, game_id, secret, ["EXTEND 24h"]))
    assert (result.status, result.note) == ("command", "gm extend")
    after, _ = _deadline(ctx, game_id)
    assert after == before + timedelta(hours=24)
    told = outbox(ctx, after=mark or 0)
    assert {r.kind for r in told} >= {"notice"} and any(GM in r.recipients_json for r in told)
    assert any(RED in r.recipients_json and "extended" in text_of(r) for r in told)
    assert any(BLUE in r.recipients_json and "prorogata" in text_of(r) for r in told)
    assert send(ctx, gm_mail(GM, game_id, secret, ["PAUSA"])).note == "gm pause"
    assert _deadline(ctx, game_id)[1] == "paused"
    clock.advance(hours=5)
    assert send(ctx, gm_mail(GM, game_id, secret, ["RESUME"])).note == "gm resume"
    moved, status = _deadline(ctx, game_id)
    assert status == "active" and moved == after + timedelta(hours=5)
    # a second RESUME: refused with the reason, nothing changes
    assert send(ctx, gm_mail(GM, game_id, secret, ["RESUME"])).status == "refused"
    assert "not done" in text_of(outbox(ctx, to=GM)[-1]) and _deadline(ctx, game_id)[0] == moved


def test_refused_without_the_secret_or_from_another_address(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secret, seats = _game(ctx)
    before = _deadline(ctx, game_id)
    mark = outbox(ctx)[-1].id or 0
    wrong = send(ctx, gm_mail(GM, game_id, "aaaa-bbbb-cccc", ["EXTEND 24h"]))
    assert wrong.status == "refused" and note_of(ctx, wrong).startswith("gm-wrong-secret")
    forged = send(ctx, gm_mail("mallory@evil.example", game_id, secret, ["END DRAW"]))
    assert forged.status == "refused" and note_of(ctx, forged).startswith("gm-wrong-sender")
    seat_secret = send(ctx, gm_mail(RED, game_id, seats[RED], ["PAUSE"]))  # a player's own secret is no GM's
    assert seat_secret.status == "refused"
    missing = send(ctx, player_mail(GM, f"GAME {game_id}\nGM\nEXTEND 24h\nEND"))
    assert missing.status == "refused"
    assert _deadline(ctx, game_id) == before  # nothing changed
    sent = outbox(ctx, after=mark)
    # notices go to the registered game master only, never to the forger or the players
    assert sent and all(r.recipients_json == f'["{GM}"]' for r in sent)
    assert all("mallory" not in r.recipients_json for r in sent)
    again = send(ctx, gm_mail("mallory@evil.example", game_id, secret, ["END DRAW"]))
    assert "held back" in note_of(ctx, again)  # rate-limited like a seat's notices


def test_announce_free_replace_and_end(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secret, seats = _game(ctx)
    mark = outbox(ctx)[-1].id or 0
    send(ctx, gm_mail(GM, game_id, secret, ["ANNOUNCE", "Next game on Friday.", "", "Bring snacks # really"]))
    announced = [r for r in outbox(ctx, after=mark) if r.kind == "notice"]
    assert sorted(r.recipients_json for r in announced) == sorted([f'["{RED}"]', f'["{BLUE}"]'])
    assert all("Next game on Friday.\n\nBring snacks # really" in text_of(r).replace("\r\n", "\n") for r in announced)

    assert send(ctx, gm_mail(GM, game_id, secret, ["FREE green"])).status == "refused"  # no such seat
    assert send(ctx, gm_mail(GM, game_id, secret, ["LIBERA blue"])).note == "gm free"
    with ctx.session() as s:
        seat = store.seat(s, game_id, "blue")
        assert seat is not None and seat.status == "abandoned"
        game = store.get_game(s, game_id)
        assert [x.name for x in signup.open_for_takeover(s, game)] == ["blue"]  # GAMES lists it for TAKEOVER
    send(ctx, gm_mail(GM, game_id, secret, ["REPLACE blue bruno@example.org"]))
    welcome = outbox(ctx, to="bruno@example.org", kind="welcome")
    assert len(welcome) == 1
    with ctx.session() as s:
        seat = store.seat(s, game_id, "blue")
        assert seat is not None and seat.status == "active"
        active = [h.address for h in s.exec(select(Holder).where(Holder.seat_id == seat.id, Holder.status == "active"))]
    assert active == ["bruno@example.org"]
    # the old player's secret no longer acts for the seat
    assert send(ctx, orders_mail(BLUE, game_id, "blue", seats[BLUE], ["GIOCA 1"])).status == "refused"

    assert send(ctx, gm_mail(GM, game_id, secret, ["END DRAW"])).note == "gm end"
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "finished" and game.seed_revealed
        assert '"result":"draw"' in game.outcome_json
        assert s.exec(select(PhaseRow).where(PhaseRow.game_id == game_id)).first() is not None
    assert send(ctx, gm_mail(GM, game_id, secret, ["EXTEND 1h"])).status == "refused"  # finished


def test_approve_is_handed_to_the_sign_up(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secret, _ = _game(ctx)
    result = send(ctx, gm_mail(GM, game_id, secret, ["APPROVA new@example.org"]))
    assert result.note == "gm approve"
    assert "no takeover by new@example.org awaits approval" in text_of(outbox(ctx, to=GM)[-1])


def test_the_game_masters_block_is_read_in_both_languages() -> None:
    from pbem.mail.envelope import parse_envelope

    env = parse_envelope("PARTITA k1\nARBITRO abcd-efgh\nPROROGA 24h\nFINE\n")
    assert env.master and env.gm_secret == "abcdefgh" and env.command == ("EXTEND", "24h") and not env.errors
    assert parse_envelope("GAME k1\nGM abcd\nFINE PATTA\nEND\n").command == ("END", "DRAW")
    assert parse_envelope("GAME k1\nGM abcd\nEND ABANDON\nEND\n").command == ("END", "ABANDON")
    env = parse_envelope("GAME k1\nGM abcd\nEND LATER\nEND\n")
    assert [m.key for _, m in env.errors] == ["envelope-gm-end"]
    env = parse_envelope("GAME k1\nGM abcd\nREPLACE red\nEND\n")
    assert [m.key for _, m in env.errors] == ["envelope-gm-arguments"]
    env = parse_envelope("GAME k1\nGM\nPAUSE\nEND\n")
    assert env.master and env.gm_secret is None and [m.key for _, m in env.errors] == ["envelope-gm-secret-missing"]
    # without GM the words are a seat's orders, as before
    env = parse_envelope("GAME k1\nSEAT red abcd\nPAUSE\nEND DRAW\nEND\n")
    assert not env.master and env.command is None and [x for _, x in env.order_lines] == ["PAUSE", "END DRAW"]


def test_the_command_line_names_the_master(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``pbem game new … --master EMAIL`` and ``pbem game master ID EMAIL``, as a user runs them."""
    import json as _json

    from sqlmodel import Session

    from pbem.db.models import OutboxMail
    from pbem.db.session import make_engine
    from tests.cli.test_cli import run

    config = tmp_path / "pbem.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n[render]\nwidth = 400\n', encoding="utf-8")
    new = run("game", "new", "kriegspiel", "--name", "Mastered", "--seat", "north=anna@example.org",
              "--seat", "south=bruno@example.org", "--master", GM, config=config)
    assert new.returncode == 0, new.stderr
    game_id, said = new.stdout.split("\n")[:2]
    assert GM in said and "game master" in said
    other = run("game", "master", game_id, "Other@Example.org", config=config)
    assert other.returncode == 0 and "other@example.org" in other.stdout
    bad = run("game", "master", game_id, "not-an-address", config=config)
    assert bad.returncode == 65 and "not a mail address" in bad.stderr and "Traceback" not in bad.stderr
    engine = make_engine(f"sqlite:///{tmp_path}/pbem.sqlite")
    with Session(engine) as s:  # columns only: the sealed ones need the key (a Context)
        assert s.exec(select(Game.master_address).where(Game.id == game_id)).one() == "other@example.org"
        mailed = [_json.loads(to) for to, kind in s.exec(select(OutboxMail.recipients_json, OutboxMail.kind))
                  if kind == "welcome"]
    engine.dispose()
    assert mailed.count([GM]) == 1 and mailed.count(["other@example.org"]) == 1
