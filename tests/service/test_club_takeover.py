"""Replacements (issue 13 item 3): an abandoned seat, or one the game master frees, is open
for takeover; TAKEOVER confirmed by code gives it to the new player with a welcome carrying
a new secret, the position and the seat's history as the seat may see it; under the policy
takeover=approve the game master's APPROVE does it. The Duel test game (a sealed phase
every turn) on a real database."""

from __future__ import annotations

import json
from typing import Iterator

import pytest
from sqlmodel import select

from pbem.db.models import Holder, Seat, SignupRequest
from pbem.errors import GameStateError, NotFoundError, UserError
from pbem.service import games, inbound, signup, store, turns
from pbem.service.context import Context
from tests.service.helpers import last_id, outbox, text_of
from tests.service.test_club_signup import ANN, BEA, EVE, answer, club_ctx, code_in, mail
from tests.support.players import order_block, player_mail, secret_from_welcome


@pytest.fixture
def ctx(db_url: str, clock) -> Iterator[Context]:  # type: ignore[no-untyped-def]
    made = club_ctx(db_url, clock, limits={"stranger_per_day": 50})
    yield made
    made.engine.dispose()


def duel(ctx: Context, clock, policies: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    """A Duel of Ann (red) and Bea (blue) after one turn: Ann played 3, Bea missed (PLAY 1)."""
    game_id = games.create(ctx, "duel", "Replacements", [games.SeatSpec("red", ANN), games.SeatSpec("blue", BEA)],
                           policies=policies)
    secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (ANN, BEA)}
    assert inbound.handle(ctx, player_mail(ANN, order_block(game_id, "red", secrets[ANN], ["PLAY 3"]))).status == "orders"
    clock.advance(hours=49)
    assert turns.resolve_due(ctx) == 1
    return game_id, secrets


def confirm_takeover(ctx: Context, who: str, game_id: str, seat: str) -> inbound.Handled:
    before = last_id(ctx)
    assert mail(ctx, who, f"TAKEOVER {game_id} {seat}").status == "command"
    return mail(ctx, who, f"CONFIRM {code_in(ctx, who, before)}")


def test_a_seat_freed_by_the_game_master_is_taken_over_with_its_history(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = duel(ctx, clock)
    before = last_id(ctx)
    assert "free for takeover" in signup.free(ctx, game_id, "blue")
    assert "freed the seat blue" in text_of(outbox(ctx, to=BEA, kind="notice", after=before)[0])
    before = last_id(ctx)
    mail(ctx, EVE, "GAMES")
    assert f"{game_id} — Replacements (Duel): blue" in answer(ctx, EVE, before)
    # Bea's secret no longer acts for the seat
    refused = inbound.handle(ctx, player_mail(BEA, order_block(game_id, "blue", secrets[BEA], ["PLAY 2"])))
    assert refused.status == "refused"
    before = last_id(ctx)
    assert confirm_takeover(ctx, EVE, game_id, "blue").status == "command"
    welcome = outbox(ctx, to=EVE, kind="welcome", after=before)
    assert len(welcome) == 1
    text = text_of(welcome[0])
    new_secret = secret_from_welcome(text)
    assert new_secret not in secrets.values()
    assert "What the seat blue has played so far" in text
    assert "History of Replacements" in text and "Turn 1 (" in text  # HISTORY's text, as the seat sees it
    assert "blue: PLAY 1" in text  # the seat's own default orders of turn 1
    assert "is yours" in text_of(outbox(ctx, to=EVE, kind="reply", after=before)[0])
    assert any("new player has taken over the seat blue" in text_of(m) for m in outbox(ctx, to=ANN, after=before))
    with ctx.session() as s:
        seat = store.seat(s, game_id, "blue")
        assert seat is not None and seat.status == "active" and seat.misses == 0
        rows = {h.address: h.status for h in s.exec(select(Holder).where(Holder.seat_id == seat.id))}
    assert rows == {BEA: "removed", EVE: "active"}
    accepted = inbound.handle(ctx, player_mail(EVE, order_block(game_id, "blue", new_secret, ["PLAY 2"])))
    assert accepted.status == "orders"


def test_an_abandoned_seat_is_open_and_a_held_one_is_not(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    game_id, _ = duel(ctx, clock, {"abandon_after": "1"})
    with ctx.session() as s:
        assert {x.name: x.status for x in s.exec(select(Seat).where(Seat.game_id == game_id))} == \
            {"red": "active", "blue": "abandoned"}
    before = last_id(ctx)
    assert mail(ctx, EVE, f"TAKEOVER {game_id} red").status == "refused"
    assert "has a player" in answer(ctx, EVE, before) and "blue" in answer(ctx, EVE, before)
    before = last_id(ctx)
    assert mail(ctx, ANN, f"TAKEOVER {game_id} blue").status == "refused"
    assert "already hold the seat red" in answer(ctx, ANN, before)
    before = last_id(ctx)
    assert mail(ctx, EVE, f"SUBENTRA {game_id} green").status == "refused"
    assert "non ha il posto green" in answer(ctx, EVE, before)  # SUBENTRA from a stranger: answered in Italian
    assert not outbox(ctx, kind=signup.CODE_KIND)
    assert confirm_takeover(ctx, EVE, game_id, "blue").status == "command"
    assert len(outbox(ctx, to=EVE, kind="welcome")) == 1


def test_takeover_approved_by_the_game_master(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    game_id, _ = duel(ctx, clock, {"takeover": "approve"})
    signup.free(ctx, game_id, "blue")
    assert confirm_takeover(ctx, EVE, game_id, "blue").status == "command"
    assert not outbox(ctx, to=EVE, kind="welcome")
    with ctx.session() as s:
        game = store.get_game(s, game_id)
        assert "no takeover by ann@example.org" in signup.approve(s, ctx, game, ANN)
        assert "Approved: the seat blue" in signup.approve(s, ctx, game, EVE.upper())
        s.commit()
    assert len(outbox(ctx, to=EVE, kind="welcome")) == 1
    with ctx.session() as s:
        req = s.exec(select(SignupRequest).where(SignupRequest.kind == "takeover")).one()
        assert req.status == signup.DONE
        assert "no takeover" in signup.approve(s, ctx, store.get_game(s, game_id), EVE)


def test_free_refuses_what_it_cannot_do(ctx: Context, clock) -> None:  # type: ignore[no-untyped-def]
    game_id, _ = duel(ctx, clock)
    with pytest.raises(NotFoundError, match="no seat 'green'"):
        signup.free(ctx, game_id, "green")
    signup.free(ctx, game_id, "blue")
    with pytest.raises(UserError, match="already open"):
        signup.free(ctx, game_id, "blue")
    open_game = games.create(ctx, "duel", "x", [games.SeatSpec.parse("red=open"), games.SeatSpec.parse("blue=open")])
    with pytest.raises(GameStateError):
        signup.free(ctx, open_game, "red")
    with pytest.raises(UserError, match="takeover takes"):
        games.create(ctx, "duel", "x", [games.SeatSpec("red", ANN), games.SeatSpec("blue", BEA)],
                     policies={"takeover": "sometimes"})
    assert json.loads(outbox(ctx)[0].recipients_json)
