"""Order syntax: English and Italian keywords, the canonical form, per-line diagnostics with
suggestions; the parser never raises."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.arditi import RULES
from pbem.games.arditi.orders import Along, Move, Path, Stay, parse_text

from .helpers import corteo, keys, position, sheet

STATE = position({"red": corteo(22, 17, 12), "blue": corteo(60)}, numbers=[37], roll=4)


def test_the_same_path_in_many_spellings():
    for text in ("PATH 27 32 JUMP 42", "percorso 27 32 salta 42", "27 32 42", "27-32-42", "27, 32 > 42",
                 "MOVE 22 27 32 42", "  p 27 32 x 42  # my march"):
        s = sheet(STATE, text)
        assert s.ok, (text, keys(s))
        assert s.orders == (Path((Move(27), Move(32), Move(42, True))),)
        assert s.canonical() == "PATH 27 32 JUMP 42"


def test_lines_are_played_in_order_and_paths_merge():
    s = sheet(STATE, "PATH 27\nPATH 32\nALONG 1 BACK\nPATH 33")
    assert s.ok, keys(s)
    assert s.canonical() == "PATH 27 32\nALONG 1 BACK\nPATH 33"
    again = sheet(STATE, s.canonical())
    assert again.orders == s.orders


def test_orders_round_trip_through_the_codec():
    s = sheet(STATE, "PATH 27 32\nALONG 1 BACK\nPATH 33")
    data = json.loads(json.dumps(RULES.encode_orders(s.orders)))
    assert RULES.decode_orders(data) == s.orders
    assert RULES.decode_orders(RULES.encode_orders((Stay(),))) == (Stay(),)
    assert Along(2, False).canonical() == "ALONG 2 BACK"


def test_auto_expands_to_a_concrete_move():
    s = sheet(STATE, "AUTO")
    assert s.ok and s.canonical().startswith("PATH")
    assert "JUMP 42" in s.canonical()  # the server's choice recruits the indifferent on 37
    assert sheet(STATE, s.canonical()).orders == s.orders


def test_diagnostics_name_the_line_and_suggest():
    s = sheet(STATE, "PATH 27\nPAHT 32")
    assert [(d.line, d.message.key) for d in s.diagnostics] == [(2, "err-unknown-word")]
    assert s.diagnostics[0].suggestion is not None
    assert s.diagnostics[0].suggestion.key == "hint-did-you-mean"
    assert RULES.catalog.text(s.diagnostics[0].suggestion, "en") == "Did you mean PATH?"
    bad = sheet(STATE, "PATH 27 33")
    assert keys(bad) == ["err-not-adjacent"]
    hint = RULES.catalog.text(bad.diagnostics[0].suggestion, "en")
    assert hint == "From 27 the front can go to: 26, 28, 32."
    wide = sheet(STATE, "PATH 27 99")
    assert keys(wide) == ["err-not-a-square"]
    number = sheet(position({"red": corteo(22, 17), "blue": corteo(60)}, numbers=[27], roll=2), "PATH 27")
    assert keys(number) == ["err-step-number"]
    assert RULES.catalog.text(number.diagnostics[0].suggestion, "it") == \
        "Per reclutare l'indifferente su 27, saltalo: SALTA 32."


def test_messages_in_italian():
    s = sheet(STATE, "LUNGO 9 AVANTI")
    assert keys(s) == ["err-along-end-front"]
    assert RULES.catalog.text(s.diagnostics[0].message, "it") == "Il comitato è già in testa al corteo."
    assert keys(sheet(STATE, "")) == ["err-empty"]
    assert keys(sheet(STATE, "STAY please")) == ["err-no-arguments"]
    assert keys(sheet(STATE, "ALONG 2")) == ["err-along-form"]


def test_orders_for_the_wrong_moment():
    police = position({"red": corteo(22, 17), "blue": corteo(60)}, stage="police")
    assert keys(sheet(police, "STAY", seat="red")) == ["err-no-orders-now"]
    assert keys(RULES.parse_orders(STATE, "purple", "STAY")) == ["err-unknown-seat"]


def test_parse_text_reads_lines_without_the_position():
    items, diags = parse_text("23 24\n# a comment\nALONG TO 41\nFFL\nSTAY")
    assert not diags
    assert [it.line for it in items] == [1, 3, 4, 5]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 PATHJUMPALONGBACKFORWARDSTAYFLRSDX\n-#>,")), max_size=80))
def test_the_parser_never_raises(text):
    s = sheet(STATE, text)
    for d in s.diagnostics:
        assert RULES.catalog.text(d.message, "it")
        if d.suggestion is not None:
            assert RULES.catalog.text(d.suggestion, "en")
