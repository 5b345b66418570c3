"""Decisions inside a turn (architecture 2.6): a phase owned by one seat, with the short
decision deadline, a documented default when the answer does not come, and nothing
waiting on a seat that is not asked."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, select

from pbem.db.models import PhaseRow, RollRow
from pbem.service import games, inbound, turns
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import order_block, player_mail


def reach_a_tie(ctx, game_id, secrets) -> PhaseRow:  # type: ignore[no-untyped-def]
    for _ in range(40):
        if games.show_game(ctx, game_id)["phase"] == "tiebreak":
            break
        for seat, addr in (("red", RED), ("blue", BLUE)):
            inbound.handle(ctx, player_mail(addr, order_block(game_id, seat, secrets[seat], ["PLAY 1"])))
    with ctx.session() as s:
        row = s.exec(select(PhaseRow).where(PhaseRow.game_id == game_id).order_by(col(PhaseRow.seq).desc())).first()
    assert row is not None and row.name == "tiebreak", "no tie in 40 rounds"
    return row


def test_decision_has_its_short_deadline_and_only_its_owner(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    row = reach_a_tie(ctx, game_id, secrets)
    assert row.decision and row.deadline - row.opened_at == timedelta(hours=12)  # [games] decision_deadline
    assert games.show_game(ctx, game_id)["awaiting"] == ["red"]
    refused = inbound.handle(ctx, player_mail(BLUE, order_block(game_id, "blue", secrets["blue"], ["ROLL"])))
    assert refused.status == "refused" and "non da blue" in text_of(outbox(ctx, to=BLUE)[-1])
    assert inbound.handle(ctx, player_mail(RED, order_block(game_id, "red", secrets["red"], ["ROLL"]))).status == "orders"
    with ctx.session() as s:
        purposes = [r.purpose for r in s.exec(select(RollRow).where(RollRow.phase_seq == row.seq))]
    assert purposes == ["red tiebreak", "blue tiebreak"]
    assert games.show_game(ctx, game_id)["phase"] in ("play", "over")


def test_an_unanswered_decision_takes_its_default_at_its_deadline(ctx, clock, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    row = reach_a_tie(ctx, game_id, secrets)
    clock.advance(hours=11)
    assert turns.resolve_due(ctx) == 0
    clock.advance(hours=2)
    assert turns.resolve_due(ctx) == 1
    report = text_of(outbox(ctx, to=BLUE, kind="report")[-1])
    assert "SPLIT" in report  # the default, said in the report
    with ctx.session() as s:
        assert list(s.exec(select(RollRow).where(RollRow.phase_seq == row.seq))) == []
