"""The Block Mania of `pbem demo` (data/demo.toml) shows the game's life (issue 19.10): played through
the real mail path (embedded IMAP and SMTP on loopback, a SQLite file) on the script's seed and a fixed
clock, the logs of its phases hold a shot (8.v, or a defensive shot, 7), a close combat (8.vi), a fire
set or growing (8.viii, 10.i), a floor or a block collapsing (9.iii, 10.iii) and a card played in
another player's turn (11.iii, 11.iv), and the game ends on defeat points that are not 0-0-0 (12.iii).
Section numbers are the Italian rulebook's.

The game is the English run the label check and the language walk play (`tests.render.labels.played`,
one run per test process and the same xdist group): the script's seed makes the game, whatever language
the seats read, so the phases are those of `pbem demo`'s own run.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pbem.db.session import make_engine
from pbem.demo import SeededEntropy, demo_config, load_script
from pbem.games.blockmania.state import State
from pbem.service import store
from pbem.service.context import Context
from tests.render.labels import played

# the run of tests/render/test_demo_labels.py and tests/test_languages.py: one worker, one run
pytestmark = pytest.mark.xdist_group("demo-blockmania-en")


def _demo() -> tuple[dict, State, list[State]]:  # type: ignore[type-arg]
    """The summary, the final state and the position after every phase of the demo (a state keeps
    the log of its last turns only, so the whole game is read phase by phase)."""
    folder = played("blockmania", "en")
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    cfg = demo_config(folder)
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg)  # the key of the data at rest beside it
    try:
        with ctx.session() as session:
            game = store.get_game(session, summary["game"])
            state, rules = store.state_of(game), store.rules_of(game)
            phases = [rules.decode_state(json.loads(row.state_json))
                      for row in store.phases(session, summary["game"]) if row.state_json]
    finally:
        ctx.engine.dispose()
    assert isinstance(state, State) and all(isinstance(p, State) for p in phases)
    return summary, state, phases


def game_events(phases: list[State]) -> set[str]:
    """The kinds of event of the whole game: those of every phase's log."""
    return set().union(*(events(p) for p in phases))


def events(state: State) -> set[str]:
    """The kinds of event the log shows: shot, close combat, fire, collapse, card out of turn."""
    out: set[str] = set()
    for phase in state.log:  # each phase's notes, under the seat whose turn it is
        for note in phase.notes:
            args = dict(note.args)
            if note.key in ("note-combat-shoots", "note-defensive-fire"):
                out.add("shot")
            elif note.key == "note-combat-close":
                out.add("close combat")
            elif (note.key == "note-combat-arson" and args.get("result") == "done") or note.key in (
                    "note-combat-fire-set", "note-fire-grows"):
                out.add("fire")
            elif note.key in ("note-damage-collapse", "note-fire-block-falls"):
                out.add("collapse")
            elif note.key == "note-hazard-attack" or (note.key == "note-card-played"
                                                      and args.get("seat") != phase.seat):
                out.add("card out of turn")
    return out


def test_the_demo_shows_a_shot_a_close_combat_a_fire_a_collapse_and_a_card_out_of_turn() -> None:
    summary, _state, phases = _demo()
    assert summary["status"] == "finished"
    assert any(step["note"] == "stand-in orders" for step in summary["steps"])  # the stand-ins played
    assert game_events(phases) == {"shot", "close combat", "fire", "collapse", "card out of turn"}


def test_the_demo_plays_on_its_seed() -> None:
    """The script's seed, not the caller's entropy, makes the game, so `pbem demo` plays this one too:
    the same bytes on every run, other bytes for another seed."""
    seed = load_script("blockmania").seed
    assert seed
    assert [SeededEntropy(seed)(16) for _ in range(2)] == [SeededEntropy(seed)(16)] * 2
    assert SeededEntropy(seed)(16) != SeededEntropy(seed + "-other")(16)


def test_the_demo_does_not_end_in_a_nil_draw() -> None:
    _summary, state, _phases = _demo()
    assert state.result is not None
    points = dict(state.result.defeat)
    assert set(points) == {"red", "blue", "green"}
    assert any(points.values()), points  # 12.iii: not the 0-0-0 of a game where nobody fought


def test_the_events_are_read_from_the_log() -> None:
    """The reading itself sees each kind, and an unlit arson or a card in one's own turn is none."""
    from pbem.games.blockmania.state import Note, PhaseLog

    def log(*notes: Note) -> State:
        return replace(_blank(), log=(PhaseLog(3, "red", "combat", notes),))

    assert events(log(Note("note-combat-arson", (("result", "failed"),)),
                      Note("note-card-played", (("seat", "red"),)))) == set()
    assert events(log(Note("note-combat-shoots"), Note("note-combat-close"), Note("note-fire-grows"),
                      Note("note-damage-collapse"), Note("note-card-played", (("seat", "blue"),)))) == {
        "shot", "close combat", "fire", "collapse", "card out of turn"}


def _blank() -> State:
    from pbem.core import registry

    state = registry.get("blockmania").new_game(["red", "blue"], {})
    assert isinstance(state, State)
    return state
