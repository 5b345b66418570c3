"""`store.state_of` keeps decoded states of games whose rules never change a state in place
(``frozen_state``: Corteo), by the stored text itself: a state written since is read afresh,
never served stale; the cache is bounded; other games' states are decoded every time."""

from __future__ import annotations

import json

from pbem.core import registry
from pbem.core.codec import canonical_json
from pbem.db.models import Game
from pbem.service import store


def _game(kind: str, state: object) -> Game:
    rules = registry.get(kind)
    return Game(id="g1", kind=kind, name="g", state_json=canonical_json(rules.encode_state(state)))


def test_a_frozen_state_is_decoded_once_per_stored_text_and_never_served_stale() -> None:
    rules = registry.get("corteo")
    state = rules.new_game(list(rules.info.seats), {})
    game = _game("corteo", state)
    first = store.state_of(game)
    assert first == state and store.state_of(game) is first
    other = type(state)(**{**state.__dict__, "hand": state.hand + 1})
    game.state_json = canonical_json(rules.encode_state(other))
    second = store.state_of(game)
    assert second == other and second != first
    assert second == rules.decode_state(json.loads(game.state_json))


def test_the_cache_is_bounded() -> None:
    rules = registry.get("corteo")
    state = rules.new_game(list(rules.info.seats), {})
    for n in range(store._STATES_MAX + 10):
        game = _game("corteo", type(state)(**{**state.__dict__, "points": n}))
        assert store.state_of(game).points == n
    assert len(store._STATES) <= store._STATES_MAX


def test_a_state_that_may_change_in_place_is_decoded_every_time() -> None:
    rules = registry.get("duel")
    assert not getattr(rules, "frozen_state", False)
    game = _game("duel", rules.new_game(list(rules.info.seats), {}))
    assert store.state_of(game) is not store.state_of(game)
