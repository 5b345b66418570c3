"""The conformance suite every rules engine must pass (architecture, section 3).

For each registered kind: random legal playouts to the end (seeded choosers, verifiable dice
with the gap-free counter running through the game, default orders now and then), the state
codec round-trip at every step, the order text round-trip, replay equality from the initial
state with the recorded sheets and dice, and parser fuzzing with hypothesis.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core import registry
from pbem.core.dice import (
    Roll,
    ScriptedDice,
    VerifiableDice,
    check_rolls,
    orders_digest,
)
from pbem.core.rules import Rules, Sheet

KINDS = registry.kinds()
SEED = b"pbem conformance seed"
GAME_ID = "conformance"
GAMES = 10  # random games per kind
CAP = 300  # phases per game at most
MIN_FINISHED = 0.5  # fraction of random games that must reach an outcome


def chooser(seed: int):
    """A deterministic ``pick(n)`` (no ``random``): SHA-256 in counter mode."""
    counter = [0]

    def pick(n: int) -> int:
        assert n >= 1
        counter[0] += 1
        digest = hashlib.sha256(f"{seed}:{counter[0]}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % n

    return pick


@dataclass
class Step:
    phase: int  # sequence number of the phase in the game (the dice's "phase")
    texts: dict[str, str]  # seat -> canonical order text
    rolls: list[Roll]
    state: Any  # the state after resolving


@dataclass
class Game:
    initial: Any
    steps: list[Step] = field(default_factory=list)
    sealed_states: list[Any] = field(default_factory=list)

    @property
    def final(self) -> Any:
        return self.steps[-1].state if self.steps else self.initial


def _walk_units(view: Any):
    if isinstance(view, dict):
        units = view.get("units")
        if isinstance(units, list):
            yield from (u for u in units if isinstance(u, dict))


def _check_views(rules: Rules, state: Any) -> None:
    phase = rules.phase(state)
    for viewer in (*rules.info.seats, None):
        view = rules.view(state, viewer)
        json.dumps(view)  # JSON data only
        if phase.sealed and rules.info.sealed_hides_units:
            for unit in _walk_units(view):
                owner = unit.get("side", unit.get("seat"))
                assert owner == viewer, f"{viewer!r} sees {unit} during a sealed phase"
    if phase.sealed and not rules.info.sealed_hides_units:
        # Only the orders are sealed: no seat sees more of the position than another.
        views = [{k: v for k, v in rules.view(state, s).items() if k != "viewer"} for s in rules.info.seats]
        assert all(v == views[0] for v in views)


def _check_state_codec(rules: Rules, state: Any) -> None:
    data = json.loads(json.dumps(rules.encode_state(state)))
    assert rules.decode_state(data) == state


def _check_sheet(rules: Rules, state: Any, seat: str, sheet: Sheet) -> None:
    assert sheet.ok, [(d.line, d.text, d.message) for d in sheet.diagnostics]
    again = rules.parse_orders(state, seat, sheet.canonical())
    assert again.ok, [(d.line, d.text, d.message) for d in again.diagnostics]
    assert again.orders == sheet.orders
    data = json.loads(json.dumps(rules.encode_orders(sheet.orders)))
    assert rules.decode_orders(data) == tuple(sheet.orders)


@cache
def playout(kind: str, seed: int, options: tuple[tuple[str, str], ...] = ()) -> Game:
    rules = registry.get(kind)
    pick = chooser(seed)
    state = rules.new_game(rules.info.seats, dict(options))
    game = Game(initial=state)
    counter = 0
    for number in range(CAP):
        phase = rules.phase(state)
        if not phase.awaiting and rules.outcome(state) is not None:
            break  # the end; a phase that awaits nobody before it is a server step, resolved at once
        if phase.sealed:
            game.sealed_states.append(state)
        before = rules.encode_state(state)
        sheets: dict[str, Sheet] = {}
        for seat in phase.awaiting:
            if pick(8) == 0:
                sheet = rules.default_orders(state, seat)
            else:
                sheet = rules.parse_orders(state, seat, rules.random_orders(state, seat, pick))
            _check_sheet(rules, state, seat, sheet)
            sheets[seat] = sheet
        assert rules.encode_state(state) == before, "parsing orders changed the state"
        texts = {seat: sheet.canonical() for seat, sheet in sheets.items()}
        dice = VerifiableDice(SEED, GAME_ID, number, orders_digest(texts), counter)
        state = rules.resolve(state, sheets, dice).state
        counter = dice.next_counter
        game.steps.append(Step(number, texts, list(dice.record), state))
        _check_state_codec(rules, state)
        _check_views(rules, state)
    return game


CASES = [(kind, seed) for kind in KINDS for seed in range(GAMES)]


@pytest.mark.parametrize("kind,seed", CASES)
def test_random_playout_is_legal_and_round_trips(kind, seed):
    rules = registry.get(kind)
    game = playout(kind, seed)
    _check_views(rules, game.initial)
    _check_state_codec(rules, game.initial)
    final = game.final
    outcome = rules.outcome(final)
    if outcome is not None:
        assert not rules.phase(final).awaiting
        assert outcome.result in ("win", "draw")
        assert set(outcome.winners) <= set(rules.info.seats)
        for lang in ("en", "it"):
            assert rules.catalog.text(outcome.summary, lang)


#: Games whose options change what is played (a Corteo scenario): one random playout each, to the end.
OPTION_CASES = [("corteo", (("scenario", "internazionalista"),)), ("corteo", (("scenario", "antifascista"),)),
                ("corteo", (("scenario", "antirepressivo"),)), ("corteo", (("scenario", "sociale"),))]


@pytest.mark.parametrize("kind,options", [c for c in OPTION_CASES if c[0] in KINDS])
def test_random_playouts_under_options_finish(kind, options):
    rules = registry.get(kind)
    game = playout(kind, 0, options)
    _check_views(rules, game.initial)
    _check_state_codec(rules, game.initial)
    assert rules.outcome(game.final) is not None and not rules.phase(game.final).awaiting


@pytest.mark.parametrize("kind", KINDS)
def test_random_games_finish(kind):
    rules = registry.get(kind)
    finished = sum(1 for seed in range(GAMES)
                   if rules.outcome(playout(kind, seed).final) is not None)
    assert finished >= MIN_FINISHED * GAMES, f"only {finished} of {GAMES} games finished"


@pytest.mark.parametrize("kind,seed", CASES[:2 * len(KINDS)] if len(KINDS) else [])
def test_replay_gives_equal_states_and_verifiable_dice(kind, seed):
    rules = registry.get(kind)
    game = playout(kind, seed)
    state = rules.new_game(rules.info.seats, {})
    assert state == game.initial
    digests: dict[int, str] = {}
    rolls: list[Roll] = []
    for step in game.steps:
        sheets = {seat: rules.parse_orders(state, seat, text) for seat, text in step.texts.items()}
        assert all(s.ok for s in sheets.values())
        dice = ScriptedDice([r.value for r in step.rolls], phase=step.phase,
                            start=step.rolls[0].counter if step.rolls else 0)
        state = rules.resolve(state, sheets, dice).state
        assert [(r.sides, r.purpose, r.value) for r in dice.record] == \
            [(r.sides, r.purpose, r.value) for r in step.rolls]
        assert state == step.state
        digests[step.phase] = orders_digest(step.texts)
        rolls.extend(step.rolls)
    assert check_rolls(SEED, GAME_ID, digests, rolls) is None


@pytest.mark.parametrize("kind", KINDS)
def test_sealed_views_hide_the_other_seats(kind):
    rules = registry.get(kind)
    for seed in range(GAMES):
        for state in playout(kind, seed).sealed_states:
            _check_views(rules, state)


@pytest.mark.parametrize("kind", KINDS)
def test_help_and_template_in_every_language(kind):
    rules = registry.get(kind)
    game = playout(kind, 0)
    for lang in ("en", "it"):
        assert rules.help(lang).strip()
        for state in (game.initial, game.steps[len(game.steps) // 2].state, game.final):
            for seat in rules.info.seats:
                assert isinstance(rules.template(state, seat, lang), str)
            assert rules.describe(rules.view(state, None), lang).strip()


def _states(kind: str) -> list[Any]:
    game = playout(kind, 0)
    picks = [game.initial] + [game.steps[i].state for i in (0, len(game.steps) // 3,
                                                           len(game.steps) // 2, -1)]
    return picks


ANY_TEXT = st.text(max_size=300)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=ANY_TEXT, which=st.integers(min_value=0, max_value=4))
def test_parse_orders_never_raises_on_any_text(kind, text, which):
    rules = registry.get(kind)
    states = _states(kind)
    state = states[which % len(states)]
    for seat in rules.info.seats:
        sheet = rules.parse_orders(state, seat, text)
        assert isinstance(sheet, Sheet)
        for d in sheet.diagnostics:
            assert d.line >= 0 and rules.catalog.text(d.message, "it")


EDITS = st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace", "swap", "case"]),
                           st.integers(min_value=0, max_value=10_000),
                           st.characters(blacklist_categories=("Cs",))), max_size=6)


def _mutate(text: str, edits: list[tuple[str, int, str]]) -> str:
    for op, pos, ch in edits:
        i = pos % (len(text) + 1)
        if op == "insert":
            text = text[:i] + ch + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "replace":
            text = text[:i] + ch + text[i + 1:]
        elif op == "swap":
            lines = text.splitlines()
            if len(lines) > 1:
                j = pos % (len(lines) - 1)
                lines[j], lines[j + 1] = lines[j + 1], lines[j]
                text = "\n".join(lines)
        else:
            text = text.swapcase()
    return text


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=80, deadline=None)
@given(which=st.integers(min_value=0, max_value=10_000), edits=EDITS)
def test_parse_orders_never_raises_on_mutated_valid_texts(kind, which, edits):
    rules = registry.get(kind)
    game = playout(kind, 1)
    step = which % len(game.steps)
    state = game.initial if step == 0 else game.steps[step - 1].state
    for seat, text in game.steps[step].texts.items():
        sheet = rules.parse_orders(state, seat, _mutate(text, edits))
        assert isinstance(sheet, Sheet)
        for d in sheet.diagnostics:
            assert rules.catalog.text(d.message, "en")
            if d.suggestion is not None:
                assert rules.catalog.text(d.suggestion, "it")
