"""Sign-up by mail (architecture 2.8, issue 13 items 2 and 3): open games filled by JOIN
and CONFIRM, the start, the bad inputs (each a specific answer, nothing changed), the
one-time codes (hashed, once, from their address, expiring) and the limit of one code mail
per address and hour. Real SQLite file (and PostgreSQL when configured), mail in and out
through the inbound pipeline and the outbox."""

from __future__ import annotations

import json
import re
from typing import Iterator

import pytest
from sqlmodel import select

from pbem.config import from_mapping
from pbem.db.models import Game, Holder, Seat, SeatEntry, SignupRequest
from pbem.errors import GameStateError, UserError
from pbem.service import games, inbound, signup
from pbem.service.context import Context
from tests.service.helpers import last_id, outbox, text_of
from tests.support.players import player_mail

ANN, BEA, CID, DAN, EVE = (f"{n}@example.org" for n in ("ann", "bea", "cid", "dan", "eve"))
CODE = re.compile(r"CON(?:FIRM|FERMA) (\S+)")


def club_ctx(db_url: str, clock, **sections: dict) -> Context:  # type: ignore[no-untyped-def,type-arg]
    from pbem.db.session import make_engine
    from tests.service.conftest import CountingEntropy

    cfg = from_mapping({"games": {"deadline": "48h"}, "render": {"width": 400}, **sections}, "test")
    return Context(engine=make_engine(db_url), config=cfg, clock=clock, entropy=CountingEntropy())


@pytest.fixture
def ctx(db_url: str, clock) -> Iterator[Context]:  # type: ignore[no-untyped-def]
    """A club that answers a stranger's mail up to 50 times a day (the default is once: every
    refusal below would then be held back after the first)."""
    made = club_ctx(db_url, clock, limits={"stranger_per_day": 50})
    yield made
    made.engine.dispose()


def mail(ctx: Context, sender: str, body: str) -> inbound.Handled:
    return inbound.handle(ctx, player_mail(sender, body))


def code_in(ctx: Context, to: str, after: int = 0) -> str:
    rows = outbox(ctx, to=to, kind=signup.CODE_KIND, after=after)
    assert len(rows) == 1, [text_of(r) for r in rows]
    found = CODE.search(text_of(rows[0]))
    assert found is not None
    return found.group(1)


def answer(ctx: Context, to: str, after: int) -> str:
    rows = outbox(ctx, to=to, after=after)
    assert len(rows) == 1, [(r.kind, text_of(r)) for r in rows]
    return text_of(rows[0])


def join(ctx: Context, who: str, game_id: str, seat: str = "") -> str:
    """JOIN then CONFIRM; returns the answer to the CONFIRM."""
    before = last_id(ctx)
    assert mail(ctx, who, f"Hello\nJOIN {game_id} {seat}\n").status == "command"
    code = code_in(ctx, who, before)
    before = last_id(ctx)
    assert mail(ctx, who, f"CONFIRM {code}\n").status == "command"
    return text_of(outbox(ctx, to=who, kind="reply", after=before)[0])


def seats_of(ctx: Context, game_id: str) -> dict[str, str]:
    with ctx.session() as s:
        return {e.seat: e.address for e in s.exec(select(SeatEntry).where(SeatEntry.game_id == game_id))
                if e.status == "taken"}


@pytest.fixture
def arditi4(ctx: Context) -> str:
    """An open Arditi game for four (arditi allows 2 to 6 seats; rulebook §1: 2–6 players)."""
    return games.create(ctx, "arditi", "Club night",
                        [games.SeatSpec.parse(f"{c}=open") for c in ("red", "blue", "green", "yellow")])


def test_four_joins_fill_and_start_an_open_arditi_game(ctx: Context, arditi4: str) -> None:
    with ctx.session() as s:
        assert s.get(Game, arditi4).status == "open"  # type: ignore[union-attr]
    assert not outbox(ctx, kind="welcome")
    assert "Free seats still: blue, green, yellow" in join(ctx, ANN, arditi4, "red")
    join(ctx, BEA, arditi4)  # any free seat: the first, blue
    join(ctx, CID, arditi4, "yellow")
    assert not outbox(ctx, kind="welcome")  # not before the last seat is taken
    text = join(ctx, DAN, arditi4)
    assert "the game has started" in text
    assert seats_of(ctx, arditi4) == {"red": ANN, "blue": BEA, "yellow": CID, "green": DAN}
    welcomes = outbox(ctx, kind="welcome")
    assert sorted(json.loads(w.recipients_json)[0] for w in welcomes) == sorted([ANN, BEA, CID, DAN])
    with ctx.session() as s:
        game = s.get(Game, arditi4)
        assert game is not None and game.status == "active" and game.phase_seq >= 1
        assert {x.name: x.address for x in s.exec(select(Seat).where(Seat.game_id == arditi4))} == \
            {"red": ANN, "blue": BEA, "yellow": CID, "green": DAN}
        assert all(h.secret_hash for h in s.exec(select(Holder).where(Holder.game_id == arditi4)))


def test_codes_are_hashed_single_use_and_bound_to_their_address(ctx: Context, arditi4: str) -> None:
    before = last_id(ctx)
    mail(ctx, ANN, "JOIN " + arditi4)
    code = code_in(ctx, ANN, before)
    with ctx.session() as s:
        req = s.exec(select(SignupRequest)).one()
        assert code not in req.code_hash and req.code_hash.startswith("pbkdf2-sha256$")
    # the right code from another address is nobody's code there
    before = last_id(ctx)
    assert mail(ctx, EVE, f"CONFIRM {code}").status == "refused"
    assert "No request from this address has that code" in answer(ctx, EVE, before)
    assert seats_of(ctx, arditi4) == {}
    before = last_id(ctx)
    assert mail(ctx, ANN, "CONFIRM aaaa-bbbb-cccc").status == "refused"
    assert "No request from this address" in answer(ctx, ANN, before)
    assert mail(ctx, ANN, f"conferma {code.upper()}").status == "command"
    assert seats_of(ctx, arditi4) == {"red": ANN}
    before = last_id(ctx)
    assert mail(ctx, ANN, f"CONFIRM {code}").status == "refused"
    assert "used already" in answer(ctx, ANN, before)  # she asked with JOIN: English, whatever word confirmed it
    assert seats_of(ctx, arditi4) == {"red": ANN}


def test_an_expired_code_takes_nothing(ctx: Context, clock, arditi4: str) -> None:  # type: ignore[no-untyped-def]
    before = last_id(ctx)
    mail(ctx, ANN, f"JOIN {arditi4} red")
    code = code_in(ctx, ANN, before)
    clock.advance(hours=48, seconds=1)
    before = last_id(ctx)
    assert mail(ctx, ANN, f"CONFIRM {code}").status == "refused"
    assert "expired" in answer(ctx, ANN, before)
    assert seats_of(ctx, arditi4) == {}


def test_a_forged_from_gets_the_target_one_code_mail_per_hour_and_no_seat(db_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    """The forger never sees the code (it goes to the target), so no seat is taken; a flood
    of JOINs in the target's name mails the target one code an hour (default limits)."""
    ctx = club_ctx(db_url, clock)
    arditi4 = games.create(ctx, "arditi", "Club night",
                           [games.SeatSpec.parse(f"{c}=open") for c in ("red", "blue", "green", "yellow")])
    for _ in range(10):
        mail(ctx, ANN, f"JOIN {arditi4}")
        mail(ctx, ANN, "ABSENCE 2027-01-02 2027-01-03")
    codes = outbox(ctx, to=ANN, kind=signup.CODE_KIND)
    assert len(codes) == 1
    assert len(outbox(ctx, to=ANN)) <= 1 + ctx.config.limits.stranger_per_day  # plus one refusal a day
    for guess in ("aaaa-bbbb-cccc", "2345-6789-abcd"):
        mail(ctx, ANN, f"CONFIRM {guess}")
    assert seats_of(ctx, arditi4) == {}
    clock.advance(hours=1, seconds=1)
    mail(ctx, ANN, "SET ZONE Europe/London")
    assert len(outbox(ctx, to=ANN, kind=signup.CODE_KIND)) == 2
    ctx.engine.dispose()


@pytest.mark.parametrize("line, key", [
    ("JOIN x99", "There is no game x99"),
    ("JOIN {game} purple", "has no seat purple"),
    ("ENTRA {game} purple", "non ha il posto purple"),  # a stranger is answered in the keyword's language
    ("PARTITA {game}\nENTRA viola\nFINE", "non ha il posto viola"),
])
def test_unknown_game_or_seat(ctx: Context, arditi4: str, line: str, key: str) -> None:
    before = last_id(ctx)
    assert mail(ctx, ANN, line.format(game=arditi4)).status == "refused"
    assert key in answer(ctx, ANN, before)
    assert not outbox(ctx, kind=signup.CODE_KIND)


def test_a_known_player_keeps_their_language_whatever_the_keyword(ctx: Context, arditi4: str) -> None:
    with ctx.session() as s:
        signup.store.player_for(s, ANN, "en")
        s.commit()
    before = last_id(ctx)
    mail(ctx, ANN, f"ENTRA {arditi4} purple")
    assert "has no seat purple" in answer(ctx, ANN, before)


def test_second_join_taken_seat_full_and_started_games(ctx: Context) -> None:
    duel = games.create(ctx, "duel", "Two", [games.SeatSpec.parse("red=open"), games.SeatSpec.parse("blue=open")])
    join(ctx, ANN, duel, "red")
    before = last_id(ctx)
    assert mail(ctx, ANN, f"JOIN {duel}").status == "refused"
    assert "You already hold the seat red" in answer(ctx, ANN, before)
    before = last_id(ctx)
    assert mail(ctx, BEA, f"JOIN {duel} red").status == "refused"
    assert "The seat red of game" in answer(ctx, BEA, before) and "free: blue" in answer(ctx, BEA, before)
    join(ctx, BEA, duel)
    before = last_id(ctx)
    assert mail(ctx, CID, f"JOIN {duel}").status == "refused"
    assert "has started" in answer(ctx, CID, before)
    assert len(outbox(ctx, kind="welcome")) == 2


def test_a_pending_join_is_not_asked_twice_and_a_join_for_a_full_game(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    duel = games.create(ctx, "duel", "Two", [games.SeatSpec.parse("red=open"), games.SeatSpec("blue", DAN)])
    mail(ctx, ANN, f"JOIN {duel}")
    clock.advance(hours=2)
    before = last_id(ctx)
    assert mail(ctx, ANN, f"JOIN {duel}").status == "refused"
    assert "already asked" in answer(ctx, ANN, before)
    join(ctx, BEA, duel)  # started: red for Bea, blue named by the game master
    with ctx.session() as s:
        assert s.get(Game, duel).status == "active"  # type: ignore[union-attr]
    with ctx.session() as s:  # Ann's code is void: the game began without her
        assert s.exec(select(SignupRequest).where(SignupRequest.address == ANN)).one().status == signup.VOID
    before = last_id(ctx)
    assert mail(ctx, ANN, f"JOIN {duel}").status == "refused"
    assert "has started" in answer(ctx, ANN, before)


def test_the_roster_restricts_sign_up(db_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    ctx = club_ctx(db_url, clock, club={"signup": ["*@example.org", "zed@other.net"]})
    try:
        duel = games.create(ctx, "duel", "Two", [games.SeatSpec.parse("red=open"), games.SeatSpec.parse("blue=open")])
        before = last_id(ctx)
        assert mail(ctx, "mallory@evil.net", f"JOIN {duel}").status == "refused"
        assert "not on the roster" in answer(ctx, "mallory@evil.net", before)
        assert not outbox(ctx, kind=signup.CODE_KIND)
        assert mail(ctx, "zed@other.net", f"JOIN {duel}").status == "command"
        assert mail(ctx, ANN, f"JOIN {duel}").status == "command"
        assert len(outbox(ctx, kind=signup.CODE_KIND)) == 2
    finally:
        ctx.engine.dispose()
    with pytest.raises(Exception, match="club.signup"):
        from_mapping({"club": {"signup": ["ann@*@x"]}})


def test_game_master_starts_with_fewer_seats_where_the_rules_allow(ctx: Context, arditi4: str) -> None:
    join(ctx, ANN, arditi4, "red")
    with pytest.raises(UserError, match="2–6 seats"):
        signup.start(ctx, arditi4)
    join(ctx, BEA, arditi4, "green")
    assert "red, green" in signup.start(ctx, arditi4)
    with ctx.session() as s:
        assert sorted(x.name for x in s.exec(select(Seat).where(Seat.game_id == arditi4))) == ["green", "red"]
    with pytest.raises(GameStateError):
        signup.start(ctx, arditi4)
    before = last_id(ctx)
    mail(ctx, CID, f"JOIN {arditi4} blue")
    assert "has started" in answer(ctx, CID, before)


def test_open_all_and_a_seat_named_by_the_game_master(ctx: Context) -> None:
    game_id = games.create(ctx, "arditi", "All open", [games.SeatSpec("red", ANN)], open_all=True)
    with ctx.session() as s:
        rows = {e.seat: e.status for e in s.exec(select(SeatEntry).where(SeatEntry.game_id == game_id))}
    assert rows == {"red": "taken", "blue": "open", "green": "open", "yellow": "open", "white": "open", "black": "open"}
    before = last_id(ctx)
    mail(ctx, ANN, f"JOIN {game_id}")
    assert "already hold the seat red" in answer(ctx, ANN, before)


def test_games_lists_open_games_takeovers_and_mine(ctx: Context, arditi4: str) -> None:
    join(ctx, ANN, arditi4, "red")
    before = last_id(ctx)
    assert mail(ctx, ANN, "PARTITE").status == "command"
    text = answer(ctx, ANN, before)
    line = next(x for x in text.splitlines() if x.strip().startswith(f"{arditi4} — Club night (Arditi"))
    assert line.endswith("free blue, green, yellow (1 of 4 taken)")
    assert f"{arditi4} — Club night: seat red, waiting for players" in text


def test_help_lists_the_club_commands_in_both_languages(ctx: Context) -> None:
    before = last_id(ctx)
    assert mail(ctx, ANN, "HELP").status == "command"
    text = answer(ctx, ANN, before)
    for word in ("GAMES (PARTITE)", "JOIN <game>", "(ENTRA)", "(SUBENTRA)", "CONFIRM <code> (CONFERMA)",
                 "(ASSENZA", "(IMPOSTA FUSO", "(IMPOSTA LINGUA)"):
        assert word in text
    from pbem.service.texts import t

    italian = t("help.general", "it", address="x", kinds="y")
    for word in ("PARTITE (GAMES)", "ENTRA <partita>", "SUBENTRA <partita> <posto>", "CONFERMA <codice>",
                 "ASSENZA <dal> <al>", "IMPOSTA FUSO <fuso>", "IMPOSTA LINGUA <en|it>"):
        assert word in italian


def test_games_shows_at_most_fifty_of_a_list(ctx: Context) -> None:
    from pbem.service import club

    for n in range(club.MAX_LISTED + 2):
        games.create(ctx, "duel", f"Open {n}", [games.SeatSpec.parse("red=open"), games.SeatSpec.parse("blue=open")])
    before = last_id(ctx)
    mail(ctx, ANN, "GAMES")
    text = answer(ctx, ANN, before)
    assert text.count("free red, blue") == club.MAX_LISTED and "… and 2 more" in text
