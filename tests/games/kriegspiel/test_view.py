"""The per-seat view: the JSON shape the renderer and the mails rely on."""

import json

from pbem.games.kriegspiel import RULES

from .helpers import deploy, play, position
from .test_combat import EXAMPLE_NORTH, EXAMPLE_SOUTH

NEW = RULES.new_game(("north", "south"), {})
OPENING_N = RULES.default_orders(NEW, "north").canonical()
OPENING_S = RULES.default_orders(NEW, "south").canonical()

KEYS = {"game", "turn", "phase", "to_move", "viewer", "rows", "cols", "terrain", "arsenals",
        "units", "hidden_sides", "lines", "last_turn", "draw_offered_by", "outcome"}


def test_view_shape_during_deployment():
    for viewer, hidden in (("north", ["south"]), ("south", ["north"]), (None, ["north", "south"])):
        v = RULES.view(NEW, viewer)
        assert KEYS <= set(v)
        assert (v["game"], v["turn"], v["phase"], v["to_move"], v["viewer"]) == \
            ("kriegspiel", 0, "deploy", None, viewer)
        assert (v["rows"], v["cols"]) == (20, 25)
        assert v["hidden_sides"] == hidden and v["units"] == []
        assert all(line["side"] not in hidden for line in v["lines"])
        assert len(v["terrain"]) == 26 and len(v["arsenals"]) == 4
        json.dumps(v)


def test_view_after_deployment_shows_both_armies():
    state = deploy(OPENING_N, OPENING_S, roll=2)
    v = RULES.view(state, "north")
    assert v["hidden_sides"] == [] and v["phase"] == "move" and v["to_move"] == "south"
    assert len(v["units"]) == 34
    unit = next(u for u in v["units"] if u["square"] == "H6")
    assert unit == {"id": "N-HART-1", "side": "north", "kind": "horse_artillery", "square": "H6",
                    "connected": True, "retreat": False}
    assert {"square": "F10", "kind": "pass", "side": "north"} in v["terrain"]
    assert {"square": "B15", "side": "north", "destroyed": False} in v["arsenals"]
    json.dumps(v)


def test_lines_go_from_source_to_the_last_square_reached():
    v = RULES.view(position(north="RELAY H4", south="INFANTRY H8 T20\nRELAY T21"), None)
    north = {(line["from"], line["to"]) for line in v["lines"] if line["side"] == "north"}
    assert ("D8", "G8") in north  # stopped by the enemy on H8
    assert ("D8", "D9") in north  # stopped by the mountain D10
    assert ("D8", "I13") in north  # through the pass F10, up to the fort I13
    assert ("H4", "T4") in north  # the relay's southward line
    assert ("H4", "H7") in north  # the relay's eastward line, up to the enemy H8
    assert all(line["from"] != line["to"] for line in v["lines"])
    # one entry per direction per source, rays of length >= 1 only
    assert sum(1 for f, _ in north if f == "D8") == 8


def test_last_turn_attack_details():
    state = play(position(north=EXAMPLE_NORTH, south=EXAMPLE_SOUTH), "MOVE D7 D6\nATTACK L5")
    v = RULES.view(state, "south")
    last = v["last_turn"]
    assert last["side"] == "north" and last["turn"] == 5
    assert last["moves"] == [{"unit": "N-INF-1", "kind": "infantry", "side": "north",
                              "from": "D7", "to": "D6", "path": ["D7", "D6"], "forced": False}]
    attack = last["attack"]
    assert (attack["target"], attack["target_kind"], attack["attack"], attack["defence"],
            attack["result"]) == ("L5", "infantry", 34, 28, "captured")
    assert {"square": "L4", "kind": "cavalry", "value": 7, "charge": True} in attack["attackers"]
    assert {"square": "N5", "kind": "artillery", "value": 8, "terrain_bonus": 0} in attack["defenders"]
    assert last["captured"] == [{"square": "L5", "kind": "infantry", "side": "south",
                                 "unit": "S-INF-2"}]  # K5 is S-INF-1
    assert last["arsenal_destroyed"] is None
    assert v["turn"] == 6 and v["to_move"] == "south" and v["outcome"] is None
    json.dumps(v)


def test_outcome_in_view():
    over = play(position(north="INFANTRY J8", south="INFANTRY T20\nRELAY T21"), "RESIGN")
    v = RULES.view(over, "north")
    assert v["phase"] == "over" and v["to_move"] is None
    assert v["outcome"] == {"result": "win", "winners": ["south"], "reason": "resignation"}


def test_state_codec_round_trip():
    state = play(position(north=EXAMPLE_NORTH, south=EXAMPLE_SOUTH), "MOVE D7 D6\nATTACK L5\nDRAW")
    data = json.loads(json.dumps(RULES.encode_state(state)))
    assert RULES.decode_state(data) == state
