"""The game master's APPROVE of a takeover, in the right languages (before, every answer and
the request to approve were in English whatever the club's language, and a stranger who had
asked in Italian was welcomed in the server's language): the game master reads the server's
language, as every mail to the game master; the new player is welcomed in the language they
asked in. On a real SQLite file (and PostgreSQL when configured), through signed mails."""

from __future__ import annotations

from sqlmodel import select

from pbem.db.models import Holder, SignupRequest
from pbem.service import games, inbound, signup, store, turns
from pbem.service.context import Context
from pbem.service.texts import t
from tests.service.helpers import last_id, outbox, text_of
from tests.service.test_club_signup import ANN, BEA, EVE, club_ctx, code_in, mail
from tests.support.players import order_block, player_mail, secret_from_welcome

GM = "gm@example.org"


def _freed_duel(ctx: Context, clock) -> str:  # type: ignore[no-untyped-def]
    """A Duel whose takeovers the game master approves, after one turn; blue freed."""
    game_id = games.create(ctx, "duel", "Approvals", [games.SeatSpec("red", ANN), games.SeatSpec("blue", BEA)],
                           policies={"takeover": "approve"})
    secret = secret_from_welcome(text_of(outbox(ctx, to=ANN, kind="welcome")[0]))
    assert inbound.handle(ctx, player_mail(ANN, order_block(game_id, "red", secret, ["PLAY 3"]))).status == "orders"
    clock.advance(hours=49)
    assert turns.resolve_due(ctx) == 1
    signup.free(ctx, game_id, "blue")
    return game_id


def _ask(ctx: Context, who: str, line: str, confirm: str = "CONFIRM") -> str:
    """The request and its confirmation; the language the request was recorded in."""
    before = last_id(ctx)
    assert mail(ctx, who, line).status == "command"
    assert mail(ctx, who, f"{confirm} {code_in(ctx, who, before)}").status == "command"
    with ctx.session() as s:
        return s.exec(select(SignupRequest).where(SignupRequest.kind == "takeover")).one().payload


def _holder_language(ctx: Context, game_id: str, address: str) -> str:
    with ctx.session() as s:
        row = s.exec(select(Holder).where(Holder.game_id == game_id, Holder.address == address,
                                          Holder.status == "active")).one()
        return row.language


def test_an_italian_club_approves_in_italian_and_welcomes_in_the_asked_language(db_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    ctx = club_ctx(db_url, clock, limits={"stranger_per_day": 50},
                   server={"language": "it", "game_master": GM})
    try:
        game_id = _freed_duel(ctx, clock)
        before = last_id(ctx)
        asked_in = _ask(ctx, EVE, f"TAKEOVER {game_id} blue")  # a stranger, to an Italian club
        (asked,) = outbox(ctx, to=GM, after=before)
        assert text_of(asked).startswith(t("club.approve_asked", "it", game=game_id, seat="blue", address=EVE)[:40])
        assert t("subject.club_approve", "it") in asked.subject
        with ctx.session() as s:
            game = store.get_game(s, game_id)
            none = signup.approve(s, ctx, game, ANN)
            done = signup.approve(s, ctx, game, EVE)
            s.commit()
        assert none == t("club.approve_none", "it", game=game_id, address=ANN)
        assert done == t("club.approve_done", "it", game=game_id, seat="blue", address=EVE)
        assert none != t("club.approve_none", "en", game=game_id, address=ANN)
        assert _holder_language(ctx, game_id, EVE) == asked_in  # the language Eve's request was answered in
    finally:
        ctx.engine.dispose()


def test_an_italian_request_is_welcomed_in_italian_by_an_english_club(db_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    ctx = club_ctx(db_url, clock, limits={"stranger_per_day": 50}, server={"game_master": GM})
    try:
        game_id = _freed_duel(ctx, clock)
        assert _ask(ctx, EVE, f"SUBENTRA {game_id} blue", "CONFERMA") == "it"
        with ctx.session() as s:
            answer = signup.approve(s, ctx, store.get_game(s, game_id), EVE, "en")
            s.commit()
        assert answer == t("club.approve_done", "en", game=game_id, seat="blue", address=EVE)
        assert _holder_language(ctx, game_id, EVE) == "it"
        (welcome,) = outbox(ctx, to=EVE, kind="welcome")
        assert "Benvenuto in Approvals" in text_of(welcome)
    finally:
        ctx.engine.dispose()
