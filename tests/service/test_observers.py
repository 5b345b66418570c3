"""Observers (architecture 2.8, issue "Observers and press" 1): WATCH / UNWATCH by mail, confirmed
by a code mailed back; ``pbem game watch`` for the game master; the policies observers=open|approved|
none and observer_delay; players may not watch their own game; an observer's reports come from the
spectator view, ``observer_delay`` turns late (1 by default where the game declares hidden state), and
the final report carries the seed."""

from __future__ import annotations

import json
import re

import pytest
from sqlmodel import select

from pbem.db.models import Observer, SignupRequest
from pbem.errors import UserError
from pbem.games.blockmania import RULES as MANIA
from pbem.games.kriegspiel import RULES as KRIEGSPIEL
from pbem.service import games, inbound, observers, store, turns
from tests.service.helpers import BLUE, RED, files_of, outbox, text_of
from tests.support.chance import chooser
from tests.support.duel import RULES as DUEL
from tests.support.players import order_block, player_mail, secret_from_welcome

OLGA, OTTO = "olga@example.org", "otto@example.org"
CODE = re.compile(r"(?:CONFIRM|CONFERMA) (\S+)")
MANIA_SEATS = {"red": "rita@example.org", "blue": "bruno@example.org", "green": "gina@example.org"}


def _say(ctx, sender: str, text: str):  # type: ignore[no-untyped-def]
    return inbound.handle(ctx, player_mail(sender, text, subject="club"))


def _watch(ctx, clock, address: str, game_id: str, word: str = "WATCH"):  # type: ignore[no-untyped-def]
    """WATCH, then CONFIRM with the code mailed back; returns the answer to the CONFIRM."""
    clock.advance(hours=2)  # one code mail per address and hour
    asked = _say(ctx, address, f"{word} {game_id}")
    assert asked.status == "command", asked
    code = CODE.search(text_of(outbox(ctx, to=address)[-1]))
    assert code is not None
    return _say(ctx, address, f"CONFIRM {code.group(1)}")


def test_hidden_state_sets_the_default_delay() -> None:
    # Kriegspiel's sealed deployment hides units; Block Mania's shuffles would show hands (11.i).
    assert observers.hidden_state(KRIEGSPIEL) and observers.hidden_state(MANIA)
    assert not observers.hidden_state(DUEL)


def test_policies_are_checked_when_the_game_is_made(ctx) -> None:  # type: ignore[no-untyped-def]
    for bad in ({"observers": "everyone"}, {"press": "black"}, {"press_in": "never"}, {"observer_delay": "-1"}):
        with pytest.raises(UserError):
            games.create(ctx, "duel", "Bad", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)], policies=bad)
    game_id = games.create(ctx, "duel", "Good", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)],
                           policies={"observers": "Approved", "observer_delay": "2", "press": "grey", "press_in": "orders"})
    policy = games.show_game(ctx, game_id)["policy"]
    assert (policy["observers"], policy["observer_delay"], policy["press"], policy["press_in"]) == ("approved", 2, "grey", "orders")


def test_watch_by_mail_confirmed_by_a_code_and_unwatch(ctx, clock, duel) -> None:  # type: ignore[no-untyped-def]
    game_id, _ = duel
    asked = _say(ctx, OLGA, f"WATCH {game_id}")
    assert asked.status == "command"
    with ctx.session() as s:  # nothing is watched on a From's word
        assert not list(s.exec(select(Observer)))
        assert s.exec(select(SignupRequest)).one().kind == "watch"
    code = CODE.search(text_of(outbox(ctx, to=OLGA)[-1]))
    assert code is not None
    done = _say(ctx, OLGA, f"CONFIRM {code.group(1)}")
    assert (done.status, done.note) == ("command", f"watch {game_id}")
    welcome = text_of(outbox(ctx, to=OLGA)[-1])
    assert "You now watch" in welcome and "as each turn is resolved" in welcome and f"UNWATCH {game_id}" in welcome
    # GAMES lists it under the games one watches (a stranger's answer: one a day)
    clock.advance(days=1)
    assert _say(ctx, OLGA, "GAMES").status == "command"
    assert f"{game_id} — Test duel" in text_of(outbox(ctx, to=OLGA)[-1])
    # twice: nothing changes
    clock.advance(days=1)
    again = _say(ctx, OLGA, f"WATCH {game_id}")
    assert again.status == "refused" and "already watch" in text_of(outbox(ctx, to=OLGA)[-1])
    # UNWATCH, in Italian, confirmed the same way
    stopped = _watch(ctx, clock, OLGA, game_id, "SMETTI")
    assert stopped.note == f"unwatch {game_id}"
    with ctx.session() as s:
        assert [o.status for o in s.exec(select(Observer))] == ["left"]
    assert "no longer watch" in text_of(outbox(ctx, to=OLGA)[-1])  # in the language of CONFIRM
    assert "smettere di osservare" in text_of(outbox(ctx, to=OLGA, kind="signup")[-1])  # the code, in SMETTI's


def test_bad_watch_requests_change_nothing(ctx, clock, duel) -> None:  # type: ignore[no-untyped-def]
    game_id, _ = duel
    closed = games.create(ctx, "duel", "Private", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)],
                          policies={"observers": "none"})
    cases = [(RED, f"WATCH {game_id}", "players may not watch their own game"),
             (OTTO, "WATCH z999", "There is no game z999"),
             (OTTO, f"WATCH {closed}", "closed to observers"),
             (OTTO, f"UNWATCH {game_id}", "You do not watch"),
             (OLGA, "WATCH", "which game?")]
    for sender, line, answer in cases:
        clock.advance(days=2)  # strangers get one answer a day
        result = _say(ctx, sender, line)
        assert result.status == "refused", (line, result)
        assert answer in text_of(outbox(ctx, to=sender)[-1]), line
    with ctx.session() as s:
        assert not list(s.exec(select(Observer))) and not list(s.exec(select(SignupRequest)))
    # the game master may not seat a player as an observer of his own game either
    with pytest.raises(UserError, match="players may not watch"):
        observers.add(ctx, game_id, BLUE)


def test_approved_games_wait_for_the_game_master(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "By invitation", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)],
                           policies={"observers": "approved"})
    done = _watch(ctx, clock, OLGA, game_id)
    assert done.note.endswith("awaiting the game master")
    assert "waits for the game master" in text_of(outbox(ctx, to=OLGA)[-1])
    with ctx.session() as s:
        assert s.exec(select(Observer)).one().status == "pending"
    assert "now watches" in observers.add(ctx, game_id, OLGA)
    with ctx.session() as s:
        assert s.exec(select(Observer)).one().status == "active"
    assert "You now watch" in text_of(outbox(ctx, to=OLGA, kind="observer")[-1])


def _play_duel(ctx, game_id: str, secrets: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    addresses = {"red": RED, "blue": BLUE}
    for _ in range(30):
        with ctx.session() as s:
            game = store.get_game(s, game_id)
            if game.status == "finished":
                return
            phase = store.rules_of(game).phase(store.state_of(game))
        for seat in phase.awaiting:
            line = "ROLL" if phase.decision else ("PLAY 3" if seat == "red" else "PLAY 1")
            result = inbound.handle(ctx, player_mail(addresses[seat], order_block(game_id, seat, secrets[seat], [line])))
            assert result.status == "orders", result
    raise AssertionError("the duel did not end")


def test_an_observer_follows_a_game_to_its_final_report_with_the_seed(ctx, clock, duel) -> None:  # type: ignore[no-untyped-def]
    from pbem.service import reports

    game_id, secrets = duel
    assert "now watches" in observers.add(ctx, game_id, OTTO, "it")
    _play_duel(ctx, game_id, secrets)
    reports.run_pending(ctx)
    mails = outbox(ctx, to=OTTO, kind="observer")
    assert len(mails) >= 4  # the welcome and one report per resolved turn (no delay: no hidden state)
    with ctx.session() as s:
        game = store.get_game(s, game_id)
        seed = game.seed_hex
        resolved = [r for r in store.phases(s, game_id) if r.resolved_at is not None]
    final = text_of(mails[-1])
    assert seed in final and "spettatori" in final  # the final report, in the observer's language, with the seed
    assert not any(seed in text_of(m) for m in mails[:-1])
    for mail in mails[1:]:
        files = files_of(mail)
        assert any(n.endswith("spectator.png") and d.startswith(b"\x89PNG") for n, d in files.items())
        (view,) = [json.loads(d) for n, d in files.items() if n.endswith(".json")]
        assert view["viewer"] is None  # the spectator's view, never a seat's
        assert "PLAY" not in text_of(mail)  # no orders, no template
    with ctx.session() as s:
        assert s.exec(select(Observer)).one().seen_seq == resolved[-1].seq  # every phase shown once
    # the players' reports are theirs: none went to the observer, none of the observer's to a player
    assert not outbox(ctx, to=OTTO, kind="report") and not outbox(ctx, to=RED, kind="observer")


def test_block_mania_observer_sees_the_public_position_one_turn_late(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    """Block Mania declares hidden state (hands, 11.i): the observer sees turn T when turn T+1
    resolves, from the spectator view: no hand in the JSON, no text addressed to a seat."""
    from pbem.core.i18n import msg
    from pbem.service import reports

    game_id = games.create(ctx, "blockmania", "Watched", [games.SeatSpec(s, a) for s, a in MANIA_SEATS.items()])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in MANIA_SEATS.items()}
    assert "now watches" in observers.add(ctx, game_id, OLGA)
    assert "1 turn late" in text_of(outbox(ctx, to=OLGA)[-1])
    pick = chooser("observer")
    private: set[str] = set()
    seen_turns: list[tuple[int, int]] = []  # (turn shown to the observer, last turn resolved)
    for _ in range(14):
        with ctx.session() as s:
            state = store.state_of(store.get_game(s, game_id))
        for log in state.log:
            for note in log.notes:
                if note.to is not None:
                    private.add(MANIA.catalog.text(msg(note.key, **dict(note.args)), "en"))
        mark = outbox(ctx)[-1].id or 0
        for seat in MANIA.phase(state).awaiting:
            raw = player_mail(MANIA_SEATS[seat], order_block(game_id, seat, secrets[seat],
                                                              MANIA.random_orders(state, seat, pick).splitlines()))
            assert inbound.handle(ctx, raw).status == "orders"
        reports.run_pending(ctx)
        with ctx.session() as s:
            last = max(r.turn for r in store.phases(s, game_id) if r.resolved_at is not None)
        for mail in outbox(ctx, to=OLGA, kind="observer", after=mark):
            shown = int(re.search(r"turn (\d+)", mail.subject).group(1))  # type: ignore[union-attr]
            seen_turns.append((shown, last))
    assert seen_turns and all(shown <= last - 1 for shown, last in seen_turns), seen_turns
    assert len({shown for shown, _ in seen_turns}) >= 2
    for mail in outbox(ctx, to=OLGA):
        text = text_of(mail)
        assert not [line for line in private if line in text], mail.subject
        assert not re.search(r"(?:shuffle|mescolare) [^\n]*: d\d+ = \d", text)
        for name, data in files_of(mail).items():
            if name.endswith(".json"):
                for entry in json.loads(data).get("seats", []):
                    assert not {"hand", "ready", "standing"} & set(entry)
        assert not [s for s in secrets.values() if s in text]


def test_pbem_game_watch_on_the_command_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from pbem import cli
    from pbem.config import load
    from pbem.db.session import make_engine
    from pbem.service.context import Context, ManualClock
    from tests.service.conftest import START

    config = tmp_path / "pbem.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n[render]\nwidth = 400\n', encoding="utf-8")
    clock = ManualClock(START)

    def run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(["--config", str(config), *argv], clock=clock)
        out, err = capsys.readouterr()
        return code, out, err

    code, out, err = run("game", "new", "kriegspiel", "--name", "Watched war", "--seat", f"north={RED}",
                         "--seat", f"south={BLUE}", "--policy", "observers=approved", "--policy", "press=grey")
    assert code == 0, err
    game_id = out.strip()
    code, out, err = run("game", "watch", game_id, OTTO, "--language", "it")
    assert code == 0 and f"{OTTO} now watches {game_id}" in out, err
    code, out, err = run("game", "watch", game_id, RED)
    assert code == 65 and "players may not watch" in err
    code, out, _ = run("game", "show", game_id)
    shown = json.loads(out)
    assert shown["observers"] == [{"address": OTTO, "status": "active"}] and shown["policy"]["press"] == "grey"
    cfg = load(str(config))
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock)
    try:
        (welcome,) = outbox(ctx, to=OTTO)
        assert "Ora osservi" in text_of(welcome) and "1 turno di ritardo" in text_of(welcome)  # hidden deployment
    finally:
        ctx.engine.dispose()


def test_the_game_master_approves_a_request_to_watch_by_mail(ctx, clock) -> None:  # type: ignore[no-untyped-def]
    """Under ``observers=approved`` the game master is asked by mail and answers by mail: the GM
    block's APPROVE <address> lets a pending observer in, as ``pbem game watch`` does."""
    from pbem.service import master
    from tests.security.support import send
    from tests.service.test_master import GM, gm_mail

    game_id = games.create(ctx, "duel", "By invitation", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)],
                           policies={"observers": "approved"})
    master.appoint(ctx, game_id, GM)
    secret = secret_from_welcome(text_of(outbox(ctx, to=GM)[0]))
    _watch(ctx, clock, OLGA, game_id)
    asked = text_of(outbox(ctx, to=GM)[-1])
    assert f"APPROVE {OLGA}" in asked  # the request says how to answer it by mail
    result = send(ctx, gm_mail(GM, game_id, secret, [f"APPROVE {OLGA}"]))
    assert result.status == "command", result
    with ctx.session() as s:
        assert s.exec(select(Observer)).one().status == "active"
    assert "You now watch" in text_of(outbox(ctx, to=OLGA, kind="observer")[-1])
    assert f"{OLGA} now watches {game_id}" in text_of(outbox(ctx, to=GM)[-1])
    # nothing awaits now: a second APPROVE changes nothing and says so
    send(ctx, gm_mail(GM, game_id, secret, [f"APPROVE {OLGA}"]))
    assert "nor a request of theirs to watch" in text_of(outbox(ctx, to=GM)[-1])
    assert len(outbox(ctx, to=OLGA, kind="observer")) == 1
