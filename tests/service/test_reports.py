"""The report stage: reports are drawn after the resolution commits, exactly once,
and from the position of their own phase even when the game has moved on."""

from __future__ import annotations

import json

from pbem.service import inbound, reports
from tests.service.helpers import BLUE, RED, files_of, outbox, text_of
from tests.support.players import order_block, player_mail


def play_turn(ctx, game_id, secrets, red: int, blue: int) -> None:  # type: ignore[no-untyped-def]
    for seat, addr, n in (("red", RED, red), ("blue", BLUE, blue)):
        assert inbound.handle(ctx, player_mail(addr, order_block(game_id, seat, secrets[seat], [f"PLAY {n}"]))).status == "orders"


def test_deferred_reports_are_built_once_from_their_own_phase(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    ctx.defer_reports = True
    play_turn(ctx, game_id, secrets, 3, 1)
    play_turn(ctx, game_id, secrets, 2, 2)
    assert outbox(ctx, kind="report") == []  # a crash here loses nothing: the jobs are stored
    assert len(reports.pending(ctx)) == 2
    assert reports.run_pending(ctx) == 2
    assert reports.run_pending(ctx) == 0  # nothing twice
    red = outbox(ctx, to=RED, kind="report")
    assert [r.subject for r in red] == [f"[pbem] {game_id} turn 1 — report: red and blue played; next: turn 2, play",
                                        f"[pbem] {game_id} turn 2 — report: red and blue played; next: turn 3, play"]
    first_view = json.loads(next(v for n, v in files_of(red[0]).items() if n.endswith(".json")))
    assert first_view["turn"] == 2 and [row[1] for row in first_view["last"]] == [3, 1]
    assert "PLAY 1 | PLAY 2 | PLAY 3" in text_of(red[0])  # what to order next, from that position


def test_a_job_finished_by_another_worker_is_not_queued_again(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    ctx.defer_reports = True
    play_turn(ctx, game_id, secrets, 1, 1)
    (job,) = reports.pending(ctx)
    a, b = reports.prepare(ctx, job), reports.prepare(ctx, job)
    assert a is not None and b is not None
    pngs = {k: b"\x89PNG fake" for k in a.svgs}
    assert reports.finish(ctx, a, pngs) is True
    assert reports.finish(ctx, b, pngs) is False
    assert len(outbox(ctx, kind="report")) == 2
