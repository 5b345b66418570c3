"""`pbem verify` on files that are not honest archives (issue 24.10): every one gets FAILED and a
reason, never an exception - a top level that is not an object, members of the wrong type, a die
above its sides, a shifted roll index - and every recorded die is checked against its sides and its
counter before an engine sees it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.cli import main
from pbem.core.dice import Roll
from pbem.errors import VerifyError
from pbem.service import archive, games, inbound
from pbem.service.games import SeatSpec
from pbem.service.replay import ReplayDice
from pbem.service.verify import verify_data, verify_path
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

RED, BLUE = "red@example.org", "blue@example.org"

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20)


def _running_duel(ctx, turns: int = 2) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The archive data of a duel some turns in, its seed still secret (the dice are replayed as recorded)."""
    game_id = games.create(ctx, "duel", "Hostile", [SeatSpec("red", RED), SeatSpec("blue", BLUE)])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in (("red", RED), ("blue", BLUE))}
    for turn in range(1, turns + 1):
        for seat, addr, play in (("red", RED, 2), ("blue", BLUE, 1)):
            assert inbound.handle(ctx, player_mail(addr, order_block(game_id, seat, secrets[seat], [f"PLAY {play}"], turn))).status == "orders"
    data = archive.archive_data(ctx, game_id)
    assert verify_data(data).ok and data["game"]["seed"] is None
    return data


@pytest.fixture
def honest(ctx) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return _running_duel(ctx)


def test_a_top_level_that_is_not_an_object_fails(tmp_path: Path) -> None:
    for text in ("[1, 2]", "3", '"text"', "null", "{", "\xff"):
        path = tmp_path / "game.json"
        path.write_bytes(text.encode("latin-1"))
        report = verify_path(path)
        assert not report.ok and report.problem, text
        assert report.text().startswith("FAILED")


@pytest.mark.parametrize("where, value", [
    (("game",), []), (("game", "kind"), 7), (("game", "seats"), "red,blue"), (("game", "seats"), [1, 2]),
    (("game", "options"), None), (("phases",), {}), (("phases", 0), "phase"), (("phases", 0, "orders"), ["PLAY 1"]),
    (("phases", 0, "seq"), "1"), (("phases", 0, "seq"), True), (("phases", 0, "rolls"), [[0, "x", 6]]),
    (("phases", 0, "rolls", 0), {"counter": 0}), (("phases", 0, "receipts"), 5), (("genesis",), None),
    (("game", "seed"), 12),
])
def test_members_of_the_wrong_type_fail_with_a_reason(honest, where, value) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(honest)
    target = data
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    report = verify_data(data)
    assert not report.ok and "malformed" in report.problem, report.problem


def test_a_die_above_its_sides_fails_before_the_engine_sees_it(honest) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(honest)
    roll = data["phases"][1]["rolls"][0]
    roll[3] = roll[2] + 1  # a d6 showing 7
    report = verify_data(data)
    assert not report.ok and f"recorded as {roll[2] + 1}" in report.problem and "IndexError" not in report.problem


def test_a_shifted_roll_index_fails_and_reads_no_other_roll(honest) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(honest)
    for roll in data["phases"][1]["rolls"]:
        roll[0] += 1  # every die of the phase one place on: the rules would read another roll
    report = verify_data(data)
    assert not report.ok and "die #" in report.problem and "phase 1" in report.problem, report.problem


def test_replay_dice_check_counter_sides_and_value() -> None:
    rolls = [Roll(4, 1, "a", 6, 3), Roll(5, 1, "b", 6, 9), Roll(7, 1, "c", 6, 2)]
    dice = ReplayDice(rolls, 1, 4)
    assert dice.roll(6, "a") == 3
    with pytest.raises(VerifyError, match="no d6 shows"):
        dice.roll(6, "b")
    with pytest.raises(VerifyError, match="the record has #7"):
        ReplayDice(rolls, 1, 6).roll(6, "c")
    with pytest.raises(VerifyError, match="never recorded"):
        ReplayDice(rolls, 1, 2).roll(6, "a")  # before the first recorded die: no negative index


def test_the_command_line_answers_failed_and_a_non_zero_exit(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "game.json"
    path.write_text('{"format": "pbem-archive-1", "game": [], "phases": 3}', encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAILED") and "game must be an object" in out


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_verify_on_arbitrary_json_never_raises(value: Any) -> None:
    report = verify_data(value)
    assert not report.ok and report.problem


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=4), value=JSON)
def test_an_archive_with_any_member_replaced_never_raises(honest, path: list[int], value: Any) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(honest)
    target: Any = data
    for step in path[:-1]:  # walk to an existing member, picked by position
        keys = list(target) if isinstance(target, dict) else list(range(len(target))) if isinstance(target, list) else []
        if not keys or not isinstance(target[keys[step % len(keys)]], (dict, list)):
            break
        target = target[keys[step % len(keys)]]
    keys = list(target) if isinstance(target, dict) else list(range(len(target)))
    if not keys:
        return
    key = keys[path[-1] % len(keys)]
    target[key] = value
    report = verify_data(data)  # never raises: a report either way
    assert report.ok != bool(report.problem)
