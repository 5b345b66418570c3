"""The lively Block Mania of `pbem demo` (`blockmania:lively`, data/demo_lively.toml) shows the game's
life (issue 19.10): played through the real mail path (embedded IMAP and SMTP on loopback, a SQLite
file) on fixed entropy and a fixed clock, its log holds a fire set or growing (8.viii, 10.i), a floor
or square collapsing (9, 10.iii) and a card played in another player's turn (11.iii, 11.iv), and the
game ends on defeat points that are not 0-0-0 (12.iii); a shot (8.v, or a defensive shot, 7) and a
close combat (8.vi) are still missing (xfail). Section numbers are the Italian rulebook's."""

from __future__ import annotations

import asyncio
import atexit
import functools
import json
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from pbem.db.session import make_engine
from pbem.demo import demo_config, run
from pbem.games.blockmania.state import State
from pbem.service import store
from pbem.service.context import Context
from tests.render.labels import START, FixedEntropy


@functools.lru_cache(maxsize=None)
def _played() -> Path:
    """`pbem demo --game blockmania:lively` played once per test process, on fixed entropy and clock."""
    out = Path(tempfile.mkdtemp(prefix="pbem-demo-blockmania-lively-"))
    atexit.register(shutil.rmtree, out, True)
    asyncio.run(run(out, ["blockmania:lively"], entropy=FixedEntropy(), start=START))
    return out / "blockmania-lively"


def _demo() -> tuple[dict, State]:  # type: ignore[type-arg]
    """The summary and the final state of the lively demo."""
    folder = _played()
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    cfg = demo_config(folder)
    ctx = Context(engine=make_engine(cfg.database.url), config=cfg)  # the key of the data at rest beside it
    try:
        with ctx.session() as session:
            state = store.state_of(store.get_game(session, summary["game"]))
    finally:
        ctx.engine.dispose()
    assert isinstance(state, State)
    return summary, state


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


def test_the_demo_shows_fire_collapse_and_a_card_out_of_turn() -> None:
    summary, state = _demo()
    assert summary["status"] == "finished"
    assert any(step["note"] == "stand-in orders" for step in summary["steps"])  # the stand-ins played
    assert {"fire", "collapse", "card out of turn"} <= events(state)


@pytest.mark.xfail(strict=True, reason="issue 19.10 open: the stand-ins play random legal sheets, and their "
                   "Blockers seldom meet an enemy; a stand-in that seeks the enemy needs the rules' own player "
                   "(play.py)")
def test_the_demo_shows_a_shot_and_a_close_combat() -> None:
    _summary, state = _demo()
    assert {"shot", "close combat"} <= events(state)


def test_the_demo_does_not_end_in_a_nil_draw() -> None:
    _summary, state = _demo()
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
