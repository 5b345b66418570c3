"""`pbem orders check` is the game master's tool (issue 19.8): it says which game, seat,
turn and phase it checked against, honours the file's TURN line as the server would, lists
errors and warnings apart, and never reads like a player's reply ("Your orders for …")."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from pbem.cli import main
from pbem.service.context import ManualClock

NORTH = ("INFANTRY A1 A2 A3 A4 A5 A6 A7 A8 A9\nARTILLERY A13\nHORSE-ARTILLERY A14\nCAVALRY I8 J16 A10 A11\n"
         "HORSE-RELAY J8\nRELAY J15\n")
CLOCK = ManualClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp_path}/pbem.sqlite"\n[render]\nwidth = 300\n', encoding="utf-8")
    return path


def _check(capsys: pytest.CaptureFixture[str], config: Path, path: Path, *more: str) -> tuple[int, str]:
    code = main(["--config", str(config), "orders", "check", "kriegspiel", str(path), *more], clock=CLOCK)
    return code, capsys.readouterr().out


def _game(capsys: pytest.CaptureFixture[str], config: Path) -> str:
    assert main(["--config", str(config), "game", "new", "kriegspiel", "--name", "Check", "--seat",
                 "north=nora@example.org", "--seat", "south=sandro@example.org:it"], clock=CLOCK) == 0
    return capsys.readouterr().out.strip()


def test_a_mail_checked_against_a_running_game(tmp_path: Path, config: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    game_id = _game(capsys, config)
    mail = tmp_path / "mail.txt"
    mail.write_text(f"Hi, my deployment:\n\nGAME {game_id}\nSEAT north x\nTURN 0\n{NORTH}END\n", encoding="utf-8")
    code, out = _check(capsys, config, mail, "--game", game_id)
    assert code == 0, out
    assert f"Checked against: game {game_id} (kriegspiel), seat north, turn 0 (sealed deployment)" in out
    assert f"The file's block: GAME {game_id}, SEAT north, TURN 0" in out
    assert "Result: OK — 17 orders, 0 errors, 0 warnings" in out and "INFANTRY A1" in out
    assert "Your orders" not in out and "turn -" not in out

    # The file's TURN line is honoured: a mail for another turn would be refused.
    mail.write_text(f"GAME {game_id}\nSEAT north x\nTURN 3\n{NORTH}END\n", encoding="utf-8")
    code, out = _check(capsys, config, mail, "--game", game_id)
    assert code == 1
    assert "the file says TURN 3, but the phase checked is turn 0: the server would refuse the mail" in out
    assert "Result: NOT accepted — 17 orders, 0 errors, 0 warnings, 1 problem with the block" in out

    # The wrong game's rules are a usage mistake, said plainly.
    code = main(["--config", str(config), "orders", "check", "arditi", str(mail), "--game", game_id], clock=CLOCK)
    assert code == 65 and f"{game_id} is a kriegspiel game, not arditi" in capsys.readouterr().err


def test_bare_orders_offline_with_errors_and_line_numbers_of_the_file(tmp_path: Path, config: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    orders = tmp_path / "orders.txt"
    orders.write_text("INFANTRY F10 G6 G7 G9 H5 H7 H8 H9 K6\nCAVALRY G3 G4 H3 H4\n", encoding="utf-8")
    code, out = _check(capsys, config, orders, "--seat", "north", "--lang", "it")
    assert code == 1
    # the whole output in the language asked for, the tool's own lines as the game's diagnostics
    assert ("Controllato rispetto a: una nuova partita di kriegspiel (senza --game), posto north, turno 0 "
            "(schieramento segreto)") in out
    assert "Numeri di riga: riga N del file." in out
    assert "Esito: NON accettati — 12 ordini, 2 errori, 0 avvertenze" in out
    assert "\nErrori:\n" in out and "  riga 1: INFANTRY F10 G6 G7 G9 H5 H7 H8 H9 K6" in out
    assert "K6" in out and "territorio" in out
    assert "Avvertenze" not in out and "Checked" not in out and "line 1" not in out  # no empty heading, no English

    # A seat that does not owe orders now is named as the server would refuse it.
    game_id = _game(capsys, config)
    block = tmp_path / "block.txt"
    block.write_text(f"GAME {game_id}\nSEAT east x\n{NORTH}END\n", encoding="utf-8")
    code, out = _check(capsys, config, block, "--game", game_id)
    assert code == 1 and "awaits orders from north, south, not from east: the server would refuse the mail" in out


def test_bare_orders_with_a_turn_line(tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bare order lines (no GAME line) that start with the TURN guard: the line is honoured as
    the server honours it in a block, not read as an order, and the lines keep their numbers."""
    game_id = _game(capsys, config)
    orders = tmp_path / "orders.txt"
    orders.write_text(f"# my deployment\nTURN 3\n{NORTH}", encoding="utf-8")
    code, out = _check(capsys, config, orders, "--game", game_id, "--seat", "north")
    assert code == 1
    assert "The file's TURN line: TURN 3" in out
    assert "1 problem with the file" in out
    assert "the file says TURN 3, but the phase checked is turn 0: the server would refuse the mail" in out
    assert "Unknown order" not in out and "Errors:" not in out and "17 orders, 0 errors" in out

    orders.write_text(f"turno 0\n{NORTH}", encoding="utf-8")  # the right turn, in Italian: accepted
    code, out = _check(capsys, config, orders, "--game", game_id, "--seat", "north")
    assert code == 0 and "Result: OK" in out and "problem" not in out

    orders.write_text("TURN 0\nINFANTRY A1 A2 A3 A4 A5 A6 A7 A8 Z9\n", encoding="utf-8")
    code, out = _check(capsys, config, orders, "--game", game_id, "--seat", "north")
    assert code == 1 and "  line 2: INFANTRY A1 A2 A3 A4 A5 A6 A7 A8 Z9" in out  # counted from the file's line 1
