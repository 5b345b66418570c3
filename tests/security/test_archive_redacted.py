"""Archives that wait for the end (issue 24.3): `pbem archive export` of a game still running is
refused - the full archive would publish every hand and the sealed shuffle dice that rebuild the
deck and the piles (Block Mania 11.i, "Le carte in mano ... sono segrete") - and `--redacted`
exports what an observer may see: the spectator's view, the public hash chain, the dice with every
sealed value left out, no orders, no seed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbem.core.i18n import msg
from pbem.errors import GameStateError
from pbem.games.blockmania import RULES
from pbem.games.blockmania.state import State
from pbem.service import archive, games, inbound, store
from pbem.service.verify import verify_path
from tests.service.helpers import outbox, text_of
from tests.support.chance import chooser
from tests.support.players import order_block, player_mail, secret_from_welcome

ADDRESSES = {"red": "rosa@example.org", "blue": "bill@example.org", "green": "gwen@example.org"}


def _state(ctx, game_id) -> State:  # type: ignore[no-untyped-def]
    with ctx.session() as session:
        state = store.state_of(store.get_game(session, game_id))
    assert isinstance(state, State)
    return state


def _running_game(ctx, clock, phases: int = 8) -> str:  # type: ignore[no-untyped-def]
    """A Block Mania game of three, some phases in by mail (random legal orders), not ended."""
    game_id = games.create(ctx, "blockmania", "Observed", [games.SeatSpec(s, a) for s, a in ADDRESSES.items()])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in ADDRESSES.items()}
    pick = chooser("archive-redacted")
    for _ in range(phases):
        state = _state(ctx, game_id)
        for seat in RULES.phase(state).awaiting:
            text = RULES.random_orders(state, seat, pick)
            mail = player_mail(ADDRESSES[seat], order_block(game_id, seat, secrets[seat], text.splitlines()))
            assert inbound.handle(ctx, mail).status == "orders"
        clock.advance(minutes=20)
    assert games.show_game(ctx, game_id)["status"] == "active"
    return game_id


def _hidden(ctx, game_id) -> tuple[set[str], list[tuple[int, str, int, int]], str]:  # type: ignore[no-untyped-def]
    """What no observer may read: the texts naming cards in a hand (dealt, drawn, kept back: 11.i), in
    English and Italian; the sealed rolls; the seed."""
    data = archive.archive_data(ctx, game_id)
    texts: set[str] = set()
    for log in _state(ctx, game_id).log:
        for note in log.notes:
            if note.to is not None:
                texts |= {RULES.catalog.text(msg(note.key, **dict(note.args)), lang) for lang in ("en", "it")}
    sealed = [(c, p, s, v) for ph in data["phases"] for c, p, s, v in ph["rolls"]
              if p.startswith(tuple(RULES.info.secret_rolls))]
    with ctx.session() as session:
        seed = store.get_game(session, game_id).seed_hex
    return texts, sealed, seed


def test_the_full_archive_of_a_running_game_is_refused(ctx, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game_id = _running_game(ctx, clock, phases=2)
    with pytest.raises(GameStateError, match=f"game {game_id} has not ended.*--redacted"):
        archive.export(ctx, game_id, tmp_path / "full")
    assert not (tmp_path / "full" / "game.json").exists()


def test_a_redacted_export_of_a_running_game_shows_no_hidden_information(ctx, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game_id = _running_game(ctx, clock)
    texts, sealed, seed = _hidden(ctx, game_id)
    assert texts and sealed and seed  # there is something to hide: hands dealt and drawn, shuffles
    out = tmp_path / "observed"
    archive.export(ctx, game_id, out, redacted=True)
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert "index.html" in files and "maps/start.png" in files and any(f.startswith("phase-") for f in files)
    every = b"\n".join(files.values()).decode("utf-8", "replace")
    for text in texts:  # no card of any hand, by name, in any file
        assert text not in every, text
    assert seed not in every
    data = json.loads(files["game.json"])
    assert data["game"]["seed"] is None and "initial_state" not in data
    for phase in data["phases"]:
        assert set(phase) == {"seq", "turn", "name", "resolved_at", "seats", "hash", "prev_hash", "rolls", "view"}
        assert all("hand" not in seat and "standing" not in seat for seat in phase["view"]["seats"])
    recorded = {c: v for ph in data["phases"] for c, p, s, v in ph["rolls"]}
    for counter, purpose, sides, value in sealed:
        assert recorded[counter] is None  # listed, its value left out
        assert not re.search(rf"#{counter} {re.escape(purpose)}: d{sides} = <b>", every)
    pages = "".join(v.decode() for k, v in files.items() if k.endswith(".html"))
    assert "sealed until the dice seed is revealed" in pages
    # The export names its nature; verify says it has nothing to replay, and fails.
    report = verify_path(out)
    assert not report.ok and "redacted archive" in report.problem


def test_the_command_line_refuses_and_redacts(ctx, clock, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from pbem.cli import main

    game_id = _running_game(ctx, clock, phases=1)
    config = tmp_path / "pbem.toml"
    config.write_text(f'[database]\nurl = "{ctx.engine.url.render_as_string(hide_password=False)}"\n'
                      '[render]\nwidth = 400\n', encoding="utf-8")
    assert main(["--config", str(config), "archive", "export", game_id, "--out", str(tmp_path / "a")]) == 65
    assert "has not ended" in capsys.readouterr().err
    assert main(["--config", str(config), "archive", "export", game_id, "--out", str(tmp_path / "a"), "--redacted"]) == 0
    assert json.loads((tmp_path / "a" / "game.json").read_text())["format"] == "pbem-archive-redacted-1"
