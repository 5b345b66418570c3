"""The parts the games share (pbem/games/common, pbem/core/orders.py's keyword loading), on their own:
each game's tests exercise them through its tables, roster and parser."""

from dataclasses import dataclass
from typing import Any

import pytest

from pbem.core.orders import load_keywords, read_lines, unknown_word
from pbem.core.rules import GameInfo, OptionSpec, Sheet
from pbem.errors import UserError
from pbem.games.common.data import find, load_toml
from pbem.games.common.engine import check_options, filed_orders, planned_default


class DataError(ValueError):
    pass


def _parse(data: dict[str, Any]) -> int:
    if data["die"] < 1:
        raise DataError("die: below 1")
    return int(data["die"])


def test_a_data_file_is_parsed_and_its_faults_name_the_file():
    assert load_toml("pbem.games.corteo.data", "t.toml", "die = 6", _parse, DataError) == 6
    with pytest.raises(DataError, match=r"^t\.toml: ") as syntax:
        load_toml("pbem.games.corteo.data", "t.toml", "die = ", _parse, DataError)
    assert syntax.value.__cause__ is not None
    with pytest.raises(DataError, match=r"^t\.toml: missing or malformed entry: KeyError\('die'\)$"):
        load_toml("pbem.games.corteo.data", "t.toml", "side = 1", _parse, DataError)
    with pytest.raises(DataError, match=r"^die: below 1$"):  # the parser's own error passes unchanged
        load_toml("pbem.games.corteo.data", "t.toml", "die = 0", _parse, DataError)
    with pytest.raises(AttributeError):  # not among the malformed exceptions asked for
        load_toml("pbem.games.corteo.data", "t.toml", "die = 6", lambda d: d.nothing, DataError)
    with pytest.raises(DataError, match="AttributeError"):
        load_toml("pbem.games.corteo.data", "t.toml", "die = 6", lambda d: d.nothing, DataError,
                  (AttributeError,))


def test_the_packaged_file_is_read_when_no_text_is_given():
    assert "MOVE" in load_toml("pbem.games.corteo.data", "keywords.toml", None, dict, DataError)


@dataclass(frozen=True)
class Entry:
    key: str


def test_an_entry_is_found_by_key_or_the_kind_is_named():
    entries = (Entry("a"), Entry("b"))
    assert find(entries, "terrain", "b") is entries[1]
    with pytest.raises(KeyError, match="unknown terrain 'c'"):
        find(entries, "terrain", "c")


def test_keywords_are_folded_and_an_unknown_word_gets_the_nearest_as_hint():
    words = load_keywords("pbem.games.corteo.data")
    assert all(w == w.upper() for spellings in words.values() for w in spellings)
    error, hint = unknown_word("MOUVE", ["MOVE", "MUOVI", "PASS"])
    assert error.key == "err-unknown-word" and hint.key == "hint-did-you-mean" and hint.args["word"] == "MOVE"
    assert unknown_word("ZZZZ", ["MOVE"])[1].key == "hint-order-forms"


def test_lines_are_read_into_items_or_diagnostics_with_their_numbers():
    def line(text: str) -> tuple[str | None, Any]:
        return (text, None) if text.startswith("OK") else (None, unknown_word(text.split()[0], ["OK"]))

    items, diags = read_lines("OK 1\n\n# only a comment\nBAD 2\nOK 3 # note", line, lambda n, t, r: (n, t, r))
    assert items == [(1, "OK 1", "OK 1"), (5, "OK 3", "OK 3")]
    assert [(d.line, d.text, d.message.key) for d in diags] == [(4, "BAD 2", "err-unknown-word")]


INFO = GameInfo("g", "G", "1", ("a", "b"), 2, 2, {"days": OptionSpec("2", "days"), "mode": OptionSpec("x", "m")})


def test_only_declared_options_are_taken():
    check_options(INFO, {"days": "3"})
    with pytest.raises(UserError, match=r"unknown option 'night' \(options: days, mode\)"):
        check_options(INFO, {"night": "1", "zzz": "2"})


@dataclass(frozen=True)
class Planner:
    orders: tuple[str, ...]
    ok: bool = True


def test_a_seat_without_a_sheet_resolves_with_its_default_orders():
    sheets = {"a": Sheet("a", ("MOVE",))}
    assert filed_orders(sheets, ("a", "b"), lambda s: Sheet(s, ("PASS",))) == {"a": ("MOVE",), "b": ("PASS",)}


def test_the_planners_default_orders_or_the_empty_order():
    assert planned_default("a", True, lambda: Planner(("PLACE X",)), "PASS").orders == ("PLACE X",)
    assert planned_default("a", True, lambda: Planner(()), "PASS").orders == ("PASS",)
    assert planned_default("a", True, lambda: Planner(("PLACE X",), ok=False), "PASS").orders == ("PASS",)
    assert planned_default("a", False, lambda: pytest.fail("not awaited: no plan"), "PASS").orders == ("PASS",)
