"""CONCEDE / CEDO in Kriegspiel: the words every other game of the club uses to give up
(`pbem.service.votes`) are, here, aliases of the game's own RESIGN (rulebook "VITTORIA": a
game ends by a side's victory, or drawn "se entrambi i giocatori decidono di abbandonare").
Before, Kriegspiel kept its own words and refused CONCEDE as an unknown order."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from sqlmodel import select

from pbem.config import from_mapping
from pbem.core.dice import ScriptedDice
from pbem.db.models import Game, Vote
from pbem.db.session import make_engine
from pbem.games.kriegspiel import RULES
from pbem.service import games, inbound, turns
from pbem.service.context import Context, ManualClock
from tests.service.helpers import outbox, text_of
from tests.support import players
from tests.support.players import order_block, player_mail, secret_from_welcome

from .helpers import keys, play, position, sheet

WORDS = ("CONCEDE", "CEDO", "concede", "Cedo")


@pytest.mark.parametrize("word", WORDS)
def test_concede_is_resign_in_a_move_turn(word: str) -> None:
    """A side that concedes in its turn loses at once, as with RESIGN; the rest of the sheet
    is ignored with the warning RESIGN gets."""
    state = position(north="INFANTRY J8", south="INFANTRY K15 T20\nRELAY T21")
    conceded = sheet(state, f"MOVE J8 J9\n{word}")
    assert conceded.ok and conceded.canonical() == "RESIGN"
    assert keys(conceded, "warning") == keys(sheet(state, "MOVE J8 J9\nRESIGN"), "warning") == ["warn-ignored-resign"]
    over = play(state, word)
    assert over.result == play(state, "RESIGN").result
    assert (over.result.result, over.result.winners, over.result.reason) == ("win", ("south",), "resignation")


def test_concede_at_deployment_and_both_sides_giving_up_is_a_draw() -> None:
    """"Se entrambi i giocatori decidono di abbandonare, il gioco finisce in parità": one side
    conceding the deployment loses, both conceding (in either word) draw."""
    state = RULES.new_game(("north", "south"), {})
    opening = RULES.default_orders(state, "south")
    north = RULES.parse_orders(state, "north", "CEDO")
    assert north.ok and north.canonical() == "RESIGN"
    over = RULES.resolve(state, {"north": north, "south": opening}, ScriptedDice([])).state
    assert (over.result.winners, over.result.reason) == (("south",), "resignation")
    both = {"north": north, "south": RULES.parse_orders(state, "south", "RESIGN")}
    over = RULES.resolve(state, both, ScriptedDice([])).state
    assert (over.result.result, over.result.reason) == ("draw", "agreement")


def test_the_help_names_the_aliases_in_both_languages() -> None:
    for lang in ("en", "it"):
        text = RULES.help(lang)
        line = next(row for row in text.splitlines() if "RESIGN" in row and "ABBANDONA" in row)
        assert "CONCEDE" in line and "CEDO" in line, line


def _ctx(tmp_path, clock: ManualClock) -> Context:  # type: ignore[no-untyped-def]
    cfg = from_mapping({"database": {"url": f"sqlite:///{tmp_path}/pbem.sqlite"},
                        "games": {"deadline": "48h", "reminders": []}, "render": {"width": 300}}, "concede")
    return Context(engine=make_engine(cfg.database.url), config=cfg, clock=clock)


@pytest.fixture
def clock():  # type: ignore[no-untyped-def]
    manual = ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    players.clock = manual
    yield manual
    players.clock = None


def _play_out(tmp_path, clock: ManualClock, word: str) -> tuple[dict, list[Vote], str]:  # type: ignore[no-untyped-def,type-arg]
    """A Kriegspiel game on a SQLite file where North mails ``word`` at the deployment and
    South lets the deadline play its opening: the game's recorded outcome, its votes, and
    North's answer."""
    (tmp_path / word).mkdir()
    ctx = _ctx(tmp_path / word, clock)
    north, south = f"north-{word.lower()}@example.org", "south@example.org"
    game_id = games.create(ctx, "kriegspiel", "Concede", [games.SeatSpec("north", north),
                                                          games.SeatSpec("south", south, "it")])
    secret = secret_from_welcome(text_of(outbox(ctx, to=north, kind="welcome")[0]))
    before = len(outbox(ctx, to=north))
    inbound.handle(ctx, player_mail(north, order_block(game_id, "north", secret, [word])))
    answer = text_of(outbox(ctx, to=north)[before])
    clock.advance(hours=49)
    assert turns.resolve_due(ctx) == 1
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "finished" and game.outcome_json
        votes = list(s.exec(select(Vote).where(Vote.game_id == game_id)))
        outcome = json.loads(game.outcome_json)
    ctx.engine.dispose()
    return outcome, votes, answer


def test_a_concession_by_mail_ends_the_game_as_a_resignation(tmp_path, clock) -> None:  # type: ignore[no-untyped-def]
    """Through the real path (a signed mail, a SQLite file, the deadline job): CONCEDE is
    accepted as the seat's orders, not taken as the club's vote, and the game's one outcome is
    the one RESIGN records: South wins by resignation."""
    conceded, votes, answer = _play_out(tmp_path, clock, "CONCEDE")
    assert not votes  # Kriegspiel keeps its own words: no vote of the club was recorded
    assert "are on file" in answer and "  RESIGN\r\n" in answer, answer  # filed as the seat's orders
    resigned, _, _ = _play_out(tmp_path, clock, "RESIGN")
    assert conceded == resigned
    assert conceded["winners"] == ["south"] and "resign" in json.dumps(conceded)
