"""Conformance through the real storage: every game, played with random legal order
mails (and some missed deadlines), replays from its log to the stored state, and its
archive verifies (dice, hash chain, replay).
Every kind on SQLite; Kriegspiel alone on PostgreSQL too (ON_POSTGRES), the storage code being one for all."""

from __future__ import annotations

import random

import pytest

from pbem.core import registry
from pbem.core.codec import canonical_json
from pbem.service import archive, games, inbound, store, turns
from pbem.service.games import SeatSpec
from pbem.service.replay import replay
from pbem.service.verify import verify_data
from tests.service.conftest import _backends
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome


#: The one kind also played on PostgreSQL (when PBEM_TEST_POSTGRES_URL is set): rows, locks
#: and the JSON state go through the same store for every kind.
ON_POSTGRES = "kriegspiel"
CASES = [(kind, backend) for kind in registry.kinds() for backend in _backends()
         if backend == "sqlite" or kind == ON_POSTGRES]


@pytest.mark.parametrize(("kind", "db_url"), CASES, indirect=["db_url"])
def test_random_game_through_the_service_replays_and_verifies(ctx, clock, kind):  # type: ignore[no-untyped-def]
    rules = registry.get(kind)
    seats = list(rules.info.seats)[: rules.info.min_seats]
    addresses = {s: f"{s}@example.org" for s in seats}
    game_id = games.create(ctx, kind, f"random {kind}", [SeatSpec(s, a) for s, a in addresses.items()])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in addresses.items()}
    rng = random.Random(f"conformance-{kind}")
    for _ in range(40):
        with ctx.session() as s:
            game = store.get_game(s, game_id)
            state = store.state_of(game)
        if game.status == "finished":
            break
        awaited = rules.phase(state).awaiting
        for seat in awaited:
            if rng.random() < 0.1:
                continue  # this seat misses the deadline: default orders
            text = rules.random_orders(state, seat, lambda n: rng.randrange(n))
            mail = player_mail(addresses[seat], order_block(game_id, seat, secrets[seat], text.splitlines()))
            assert inbound.handle(ctx, mail).status == "orders", text
        clock.advance(hours=73)
        turns.resolve_due(ctx)
    data = archive.archive_data(ctx, game_id)
    report = verify_data(data)
    assert report.ok, report.problem
    assert report.phases >= 3
    steps = list(replay(rules, data))
    with ctx.session() as s:
        stored = store.get_game(s, game_id).state_json
    assert canonical_json(rules.encode_state(steps[-1].after)) == stored  # the log is the truth
