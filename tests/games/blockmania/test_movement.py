"""The Command Phase (rulebook 5.i-5.v) and movement (6.i-6.xi, with 9.iv's collapsed squares).
Section numbers are the Italian rulebook's (shared/seeds/004_*.txt)."""

from __future__ import annotations

from pbem.games.blockmania import movement as mv
from pbem.games.blockmania.state import DEAD, PILE, SquareState, Standing
from tests.games.blockmania.helpers import board_of, dice, key, notes, position, sq, start
from pbem.games.blockmania.board import Board


# -- 5 Command Phase ---------------------------------------------------------------------------------------


def test_command_points_are_two_dice_added():
    """5.i: "lancia 2D6, somma i risultati ed ottiene ... i Punti Comando"."""
    board = board_of(cp=0)
    assert mv.roll_command_points(board, dice(3, 4)) == 7
    assert board.command_points == 7
    assert board.frozen().command_points == 7
    assert "note-command-points" in notes(board)


def test_new_blocker_from_the_top_of_the_pile_at_a_dice_address():
    """5.ii: 4 CP, the top of the pile, the address read from two dice as tens and units ("3 e poi 4
    ... il settore 34"); an A symbol draws an Armoury counter at once."""
    board = board_of({"red-1": ("citi-def", PILE), "red-2": ("spugs", PILE)}, cp=5,
                     piles={"red": ("red-1", "red-2")}, top={"armoury": ("spit-gun",)})
    target = sq(board, "curie:F5", "RS")
    assert board.square(target).address == 34
    assert mv.check_new_blocker(board, "red") is None
    bid = mv.new_blocker(board, "red", dice(3, 4), symbols=("A",))
    assert bid == "red-1" and board.piles["red"] == ("red-2",)
    assert mv.where(board, bid) == target
    assert board.command_points == 1
    assert [board.counters[c].type for c in board.blockers[bid].carried] == ["spit-gun"]
    assert key(mv.check_new_blocker(board, "red")) == "err-no-cp"
    state = board.frozen()
    assert state.seat("red").pile == ("red-2",) and state.command_points == 1
    # 5.iii: a new Blocker may be activated at once (here the Citi-Def's 3 CP are missing)
    assert key(mv.check_activate(board, bid)) == "err-no-cp"


def test_new_blocker_address_taken_or_collapsed_is_rolled_again():
    """5.ii (our reading, with 6.ii): an address already occupied or collapsed is rolled again."""
    board = board_of({"red-1": ("juves", "curie:F5"), "red-2": ("spugs", PILE)}, piles={"red": ("red-2",)},
                     squares=(SquareState("curie:C5", collapsed=True),))
    assert board.square(sq(board, "curie:C5", "RS")).address == 31
    assert board.square(sq(board, "curie:F1", "RS")).address == 12
    bid = mv.new_blocker(board, "red", dice(3, 4, 3, 1, 1, 2))
    assert mv.where(board, bid) == sq(board, "curie:F1")
    assert notes(board).count("note-address-again") == 2


def test_entrance_plaza_is_an_address_and_symbols_redraw_what_may_not_be_kept():
    """5.ii: an Entrance Plaza may receive the new Blocker; 6.ix, roster.may_keep: a Fatty never keeps
    flying gear, so a Bat Suit drawn for its H symbol goes back and the next counter is drawn."""
    board = board_of({"red-1": ("fatty", PILE)}, piles={"red": ("red-1",)},
                     top={"hardware": ("bat-suit", "sucker-gun")})
    plaza = sq(board, "curie:C1", "EP")
    assert board.square(plaza).address == 11
    bid = mv.new_blocker(board, "red", dice(1, 1), symbols=("H",))
    assert mv.where(board, bid) == plaza
    assert [board.counters[c].type for c in board.blockers[bid].carried] == ["sucker-gun"]
    assert board.counters["bat-suit-1"].loc == "pool:hardware"
    assert list(board.counters)[-1] == "bat-suit-1"  # back at the bottom of the pool
    assert "note-redraw" in notes(board)


def test_no_new_blocker_in_the_final_phase():
    """12: in the Final Phase no new Blockers come into play."""
    board = Board(position({"red-1": ("spugs", PILE)}, piles={"red": ("red-1",)}, final=True))
    assert key(mv.check_new_blocker(board, "red")) == "err-final-no-new"


def test_activation_costs_once_a_turn_and_one_blocker_moves_at_a_time():
    """5.iii: activating costs the first number; once a turn; once another is activated the first
    stays where it is; only one's own Blockers (but a Futsie); face-down Blockers cannot (7.ii)."""
    board = board_of({"red-1": ("juves", "curie:F5"), "red-2": ("spugs", "curie:D5"),
                      "blue-1": ("juves", "keaton:F5"), "blue-2": ("futsie", "keaton:D5"),
                      "red-3": ("spugs", "curie:D7")}, cp=6)
    board.set_blocker("red-3", face_down=True)
    assert key(mv.check_activate(board, "blue-1")) == "err-not-yours"
    assert key(mv.check_activate(board, "red-3")) == "err-face-down"
    start(board, "red-1")
    assert board.command_points == 4
    mv.walk(board, "red-1", sq(board, "curie:G5", "RS"))
    assert key(mv.check_activate(board, "red-1")) == "err-already-activated"
    start(board, "red-2")
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:H5"))) == "err-move-over"
    start(board, "blue-2")  # 5.iii: "ad eccezione del Futsie"
    assert board.command_points == 1
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:H5"))) == "err-move-over"


def test_extra_movement_costs_a_command_point_per_mp():
    """5.v: once its own MP are spent, 1 CP for each extra MP, as far as the CP go."""
    board = board_of({"red-1": ("spugs", "curie:C5")}, cp=3)  # Spugs 1-1-3
    start(board, "red-1")
    assert board.command_points == 2
    for label in ("D5", "E5", "F5"):
        mv.walk(board, "red-1", sq(board, f"curie:{label}", "RS"))
    assert board.moving.mp == 0 and board.command_points == 2
    mv.walk(board, "red-1", sq(board, "curie:G5"))
    assert board.command_points == 1 and "note-extra-mp" in notes(board)
    mv.walk(board, "red-1", sq(board, "curie:H5"))
    assert board.command_points == 0
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:H4"))) == "err-no-mp"


# -- 6 movement ------------------------------------------------------------------------------------------


def test_standard_movement_costs_and_no_diagonals():
    """6.i: sideways or down 1 MP, up 2 MP, never diagonally; Open Air only on the Tween Block Plaza
    (or a pedway, or flying)."""
    board = board_of({"red-1": ("juves", "curie:F5")})  # Juves 2-2-5
    start(board, "red-1")
    here = sq(board, "curie:F5", "RS")
    assert mv.walk_cost(board, "red-1", here, sq(board, "curie:G5", "RS")) == 1
    assert mv.walk_cost(board, "red-1", here, sq(board, "curie:F4", "CV")) == 0  # 6.v
    assert mv.walk_cost(board, "red-1", sq(board, "curie:G4", "RS"), sq(board, "curie:G5")) == 2
    assert mv.walk_cost(board, "red-1", sq(board, "curie:G5"), sq(board, "curie:G4")) == 1
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:G6", "RS"))) == "err-not-adjacent"
    mv.walk(board, "red-1", sq(board, "curie:G5"))
    mv.walk(board, "red-1", sq(board, "curie:H5", "RS"))
    assert board.moving.mp == 3
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:I5", "OA"))) == "err-open-air"
    board2 = board_of({"red-1": ("juves", "curie:H1")})
    start(board2, "red-1")
    assert sq(board2, "curie:H1", "EP")
    assert mv.check_walk(board2, "red-1", sq(board2, "curie:I1", "TP")) is None


def test_climbers_go_up_for_one_mp():
    """6.i with the roster's Sucker Gun (ours): an up move costs rules.climb_up_cost."""
    board = board_of({"red-1": ("juves", "curie:G4")}, carried={"red-1": ("sucker-gun",)})
    assert mv.walk_cost(board, "red-1", sq(board, "curie:G4", "RS"), sq(board, "curie:G5", "RS")) == 1


def test_occupied_squares():
    """6.ii: never into another Blocker's square on foot, friend or enemy; the Superhero may share a
    friend's square (roster); a Blocker with an enemy in its square may not leave it."""
    board = board_of({"red-1": ("juves", "curie:F5"), "red-2": ("spugs", "curie:G5"),
                      "blue-1": ("juves", "curie:E5"), "red-3": ("superhero", "curie:F7"),
                      "red-4": ("spugs", "curie:F8"), "red-5": ("spugs", "curie:C5"),
                      "blue-2": ("spugs", "curie:C5")})
    start(board, "red-1")
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:G5"))) == "err-occupied"
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:E5"))) == "err-occupied-enemy"
    start(board, "red-3")
    assert mv.check_walk(board, "red-3", sq(board, "curie:F8", "CV")) is None
    start(board, "red-5")
    assert key(mv.check_walk(board, "red-5", sq(board, "curie:C4", "RS"))) == "err-engaged"


def test_lifts_any_square_for_one_mp_and_enemies_may_stop_the_ride():
    """6.iii: any square of the lift for 1 MP; an enemy on the way may stop the ride (close combat);
    an enemy at the arrival means close combat; 9.iv: a collapse on the shaft blocks the lift."""
    where = {"red-1": ("juves", "curie:D3"), "blue-1": ("spugs", "curie:D7")}
    board = board_of(where)
    start(board, "red-1")
    d3, d7, d9 = sq(board, "curie:D3", lift=True), sq(board, "curie:D7", lift=True), sq(board, "curie:D9", lift=True)
    assert mv.check_lift(board, "red-1", d9) is None
    assert mv.ride_lift(board, "red-1", d9, intercept=lambda b, m, s, e: False) == d9
    assert board.moving.mp == 4
    board = board_of(where)  # the owner's standing instruction stops it
    start(board, "red-1")
    assert mv.ride_lift(board, "red-1", d9) == d7
    assert "note-intercepted" in notes(board) and "red-1" in board.moving.done
    board = Board(position(where, standing=(Standing(), Standing(intercept_lifts=False))))
    start(board, "red-1")
    assert mv.ride_lift(board, "red-1", d9) == d9
    board = board_of(where)  # stopping in the enemy's square by choice
    start(board, "red-1")
    assert mv.check_lift(board, "red-1", d7) is None
    mv.ride_lift(board, "red-1", d7)
    assert "note-close-combat-ahead" in notes(board)
    board = board_of(where, squares=(SquareState("curie:D5", collapsed=True),))
    start(board, "red-1")
    assert key(mv.check_lift(board, "red-1", d9)) == "err-lift-blocked"
    assert d3 != d9


def test_grav_chutes_drop_to_the_ground_and_a_collapse_below_kills():
    """6.iv: straight down to the ground square below for 1 MP, enemies cannot stop it, an enemy at
    the bottom means close combat; 6.iv, 9.iv: a collapsed square below destroys the Blocker."""
    board = board_of({"red-1": ("juves", "curie:F7"), "blue-1": ("spugs", "curie:F5")},
                     carried={"red-1": ("spit-gun",)})
    start(board, "red-1")
    top = sq(board, "curie:F7", "RS", chute=True)
    ground = sq(board, "curie:F1", "RS")
    assert board.ring.chute_target(top) == ground
    assert mv.check_chute(board, "red-1") is None
    assert mv.drop_chute(board, "red-1") == ground
    assert board.moving.mp == 4
    board = board_of({"red-1": ("juves", "curie:F7")}, carried={"red-1": ("spit-gun",)},
                     squares=(SquareState("curie:F3", collapsed=True),))
    start(board, "red-1")
    assert mv.check_chute(board, "red-1") is None
    assert mv.drop_chute(board, "red-1") is None
    assert board.blockers["red-1"].loc == DEAD and board.counters["spit-gun-1"].loc == "pool:armoury"
    assert "note-chute-death" in notes(board)


def test_civic_squares_cost_nothing_to_enter():
    """6.v: "il movimento attraverso uno Square Civic è gratuito"."""
    board = board_of({"red-1": ("spugs", "curie:E5")})
    start(board, "red-1")
    mv.walk(board, "red-1", sq(board, "curie:E6", "CV"))  # up, and still free
    mv.walk(board, "red-1", sq(board, "curie:F6", "CV"))
    assert board.moving.mp == 3


def test_sky_rail_station_to_station_with_a_train():
    """6.vi: a train marker (from a card) at a station; station to station for 1 MP; a collapsed
    Tubeway or station on the way stops it; a Fatty never rides it (roster)."""
    board = board_of({"red-1": ("juves", "curie:E10"), "red-2": ("fatty", "curie:E9")})
    here, there = sq(board, "curie:E10", "SS"), sq(board, "keaton:E10", "SS")
    start(board, "red-1")
    assert key(mv.check_ride(board, "red-1", "skyrail", there)) == "err-no-train"
    mv.place_train(board, here)
    assert mv.check_ride(board, "red-1", "skyrail", there) is None
    mv.ride(board, "red-1", "skyrail", there)
    assert mv.where(board, "red-1") == there and board.moving.mp == 4
    assert mv.has_train(board, there) and not mv.has_train(board, here)
    board = board_of({"red-1": ("juves", "curie:E10")},
                     squares=(SquareState("curie:E10", transit="train"), SquareState("keaton:D10", collapsed=True),
                              SquareState("keaton:G10", collapsed=True)))
    start(board, "red-1")
    assert sq(board, "keaton:D10", "TW") and sq(board, "keaton:G10", "TW")
    assert key(mv.check_ride(board, "red-1", "skyrail", there)) == "err-skyrail-blocked"


def test_pedway_terminus_to_terminus_and_a_stopped_one_is_walked():
    """6.vii: terminus to terminus for 1 MP, no stopping halfway; a pedway that no longer works
    (9.vi) is walked square by square; a severed square is never entered."""
    board = board_of({"red-1": ("juves", "curie:H6")})
    here, there = sq(board, "curie:H6", "PT"), sq(board, "keaton:C6", "PT")
    start(board, "red-1")
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:I6", "PW"))) == "err-pedway-runs"
    assert mv.check_ride(board, "red-1", "pedway", there) is None
    mv.ride(board, "red-1", "pedway", there)
    assert mv.where(board, "red-1") == there and board.moving.mp == 4
    board = board_of({"red-1": ("juves", "curie:H6")}, squares=(SquareState("keaton:B6", damage=1, transit="stopped"),))
    start(board, "red-1")
    assert key(mv.check_ride(board, "red-1", "pedway", there)) == "err-pedway-stopped"
    assert mv.check_walk(board, "red-1", sq(board, "curie:I6", "PW")) is None
    board.set_square(sq(board, "curie:I6"), transit="severed")
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:I6"))) == "err-severed"


def test_mega_way_vehicle_park_to_vehicle_park():
    """6.viii: Vehicle Park to Vehicle Park for 1 MP, unless a collapsed Mega Way, Tunnel or Vehicle
    Park is on the way; through occupied squares; an enemy at the arrival means close combat; a Mob
    never uses it (roster)."""
    board = board_of({"red-1": ("juves", "curie:E2"), "red-2": ("mob", "curie:E2"), "blue-1": ("spugs", "keaton:E2")})
    here, there = sq(board, "curie:E2", "VP"), sq(board, "keaton:E2", "VP")
    start(board, "red-2")
    assert key(mv.check_ride(board, "red-2", "megaway", there)) == "err-no-mega-way-type"
    start(board, "red-1")
    assert mv.check_ride(board, "red-1", "megaway", there) is None
    mv.ride(board, "red-1", "megaway", there)
    assert "note-close-combat-ahead" in notes(board) and "red-1" in board.moving.done
    board = board_of({"red-1": ("juves", "curie:E2")},
                     squares=(SquareState("curie:I2", transit="collapsed"), SquareState("curie:B2", transit="collapsed")))
    start(board, "red-1")
    assert sq(board, "curie:I2", "MW") and sq(board, "curie:B2", "MW") and here
    assert key(mv.check_ride(board, "red-1", "megaway", there)) == "err-megaway-blocked"


def test_flying_from_a_balcony_uses_all_the_mp():
    """6.ix: the Superhero (or flying gear) takes off from a Balcony or Entrance Plaza to any Open Air,
    Balcony or Tween Block Plaza of this or an adjacent map, using all its MP; never a Fatty nor Mob,
    even with gear; no heavy weapon."""
    board = board_of({"red-1": ("superhero", "curie:D9"), "red-2": ("fatty", "curie:H9"),
                      "red-3": ("juves", "curie:C9")},
                     carried={"red-2": ("bat-suit",), "red-3": ("power-board", "heavy-laser")})
    start(board, "red-1")
    assert key(mv.check_fly(board, "red-1", sq(board, "keaton:B9", "OA"))) == "err-no-takeoff"
    mv.walk(board, "red-1", sq(board, "curie:C9", "BA"))
    target = sq(board, "keaton:D9", "BA")
    assert mv.check_fly(board, "red-1", target) is None
    mv.fly(board, "red-1", target)
    assert board.moving.mp == 0 and "red-1" in board.moving.done
    assert key(mv.check_walk(board, "red-1", sq(board, "keaton:D8"))) == "err-move-over"
    start(board, "red-2")
    assert key(mv.check_fly(board, "red-2", sq(board, "curie:I9", "OA"))) == "err-cannot-fly"
    board = board_of({"red-3": ("juves", "curie:C9")}, carried={"red-3": ("power-board", "heavy-laser")})
    start(board, "red-3")
    assert key(mv.check_fly(board, "red-3", sq(board, "curie:B9", "OA"))) == "err-cannot-fly"


def test_collapsed_squares_cost_one_more_to_enter_and_to_leave():
    """9.iv (6.vii "più malus per eventuali crolli"): +1 MP to enter, +1 MP to leave a collapsed square."""
    board = board_of({"red-1": ("juves", "curie:F5")}, squares=(SquareState("curie:G5", collapsed=True),))
    start(board, "red-1")
    mv.walk(board, "red-1", sq(board, "curie:G5", "RS"))
    assert board.moving.mp == 3
    mv.walk(board, "red-1", sq(board, "curie:H5", "RS"))
    assert board.moving.mp == 1


def test_drawing_in_an_armoury_ends_the_move():
    """6.x: a Blocker entering an Armoury draws a counter at random and stops; no activation needed
    to draw; not with enemies there; beyond its Strength one counter goes back at once."""
    board = board_of({"red-1": ("juves", "curie:D4")}, top={"armoury": ("flamer",)})
    start(board, "red-1")
    mv.walk(board, "red-1", sq(board, "curie:E4", "AR"))
    assert mv.check_pick_up(board, "red-1") is None
    assert board.counters[mv.pick_up(board, "red-1") or ""].type == "flamer"
    assert key(mv.check_walk(board, "red-1", sq(board, "curie:E5"))) == "err-move-over"
    assert key(mv.check_pick_up(board, "red-1")) == "err-already-drew"
    board = board_of({"red-1": ("spugs", "curie:E4"), "red-2": ("spugs", "curie:D1"), "blue-1": ("juves", "curie:D1")},
                     carried={"red-1": ("spit-gun",)})
    assert mv.check_pick_up(board, "red-1") is None  # not activated
    assert mv.pick_up(board, "red-1") is None  # Strength 1: the drawn counter goes back
    assert [board.counters[c].type for c in board.blockers["red-1"].carried] == ["spit-gun"]
    assert key(mv.check_pick_up(board, "red-2")) == "err-enemy-here"
    assert sq(board, "curie:D1", "SM")


def test_hand_over_costs_the_receiver_one_mp():
    """6.x: a counter passes to a Blocker beside it (never diagonally) for 1 MP of the receiver, which
    must be activated; it carries at most its Strength."""
    board = board_of({"red-1": ("juves", "curie:F5"), "red-2": ("juves", "curie:G5"), "red-3": ("spugs", "curie:F6")},
                     carried={"red-1": ("spit-gun",)})
    assert key(mv.check_hand_over(board, "red-1", "spit-gun-1", "red-2")) == "err-not-activated"
    start(board, "red-2")
    assert mv.check_hand_over(board, "red-1", "spit-gun-1", "red-2") is None
    mv.hand_over(board, "red-1", "spit-gun-1", "red-2")
    assert board.blockers["red-2"].carried == ("spit-gun-1",) and board.moving.mp == 4
    assert board.counters["spit-gun-1"].loc == "red-2"
    start(board, "red-3")
    assert key(mv.check_hand_over(board, "red-2", "spit-gun-1", "red-3")) == "err-not-adjacent"  # diagonal


def test_heavy_weapons_cost_two_mp_to_set_up():
    """6.xi: setting up a heavy weapon costs 2 MP; moving on turns it face down again."""
    board = board_of({"red-1": ("citi-def", "curie:F5"), "red-2": ("citi-def", "curie:C5")},
                     carried={"red-1": ("heavy-laser",)})
    start(board, "red-1")
    assert mv.check_set_up(board, "red-1") is None
    mv.set_up(board, "red-1")
    assert board.blockers["red-1"].set_up and board.moving.mp == 2
    assert key(mv.check_set_up(board, "red-1")) == "err-already-set-up"
    mv.walk(board, "red-1", sq(board, "curie:G5"))
    assert not board.blockers["red-1"].set_up
    start(board, "red-2")
    assert key(mv.check_set_up(board, "red-2")) == "err-no-heavy"


def test_reachable_gives_cheapest_paths():
    """5.v, 6: the squares a Blocker may end in with its points, each with a cheapest path (lift
    and walk mixed), none through an enemy's square."""
    board = board_of({"red-1": ("juves", "curie:D3"), "blue-1": ("spugs", "curie:E9")}, cp=2)
    start(board, "red-1")
    found = mv.reachable(board, "red-1", 2)
    d9 = sq(board, "curie:D9", "RS", lift=True)
    assert [s.kind for s in found[d9]] == ["lift"]
    assert sq(board, "curie:E9", "RS") not in found  # occupied by an enemy, on foot
    assert sum(s.cost for s in found[sq(board, "curie:C9", "BA")]) == 2
    assert all(sum(s.cost for s in p) <= 2 for p in found.values())
    assert len(mv.reachable(board, "red-1")) > len(found)  # own MP plus the CP


def test_every_message_key_has_english_and_italian_texts():
    """Every err-/note- key of movement.py is in data/texts.toml under [en] and [it]."""
    import re
    import tomllib
    from importlib import resources
    from pathlib import Path

    texts = tomllib.loads(resources.files("pbem.games.blockmania.data").joinpath("texts.toml").read_text("utf-8"))
    source = Path(mv.__file__).read_text("utf-8")
    keys = set(re.findall(r'"((?:err|note)-[a-z-]+)"', source))
    keys |= {f"note-{k}" for k in mv.KINDS}
    for lang in ("en", "it"):
        assert keys <= set(texts[lang]), sorted(keys - set(texts[lang]))


def test_nobody_joins_a_close_combat_that_has_begun_not_even_a_superhero():
    """6.ii: "Una volta iniziato in questo modo un Combattimento Ravvicinato, … nessun altro Blocker potrà
    entrare in alcun modo nello stesso Square": red-1 and blue-1 share curie:D5, so red's Superhero, who
    may otherwise share a square with a friend, does not ride the lift into it."""
    board = board_of({"red-1": ("juves", "curie:D5"), "blue-1": ("juves", "curie:D5"),
                      "red-3": ("superhero", "curie:D3"), "red-4": ("superhero", "curie:D4")})
    assert board.ring.lift(sq(board, "curie:D5", "RS", lift=True)) is not None
    start(board, "red-3")
    assert key(mv.check_move(board, "red-3", "lift", sq(board, "curie:D5"))) == "err-locked-square"
    assert sq(board, "curie:D5") not in mv.reachable(board, "red-3")
    # a friend alone: the Superhero may join it (QR: "may always stack with a friendly Blocker")
    assert mv.check_move(board, "red-3", "lift", sq(board, "curie:D4")) is None


def test_no_hand_over_leaves_a_blocker_in_the_air_unable_to_fly():
    """6.i: "I Blocker possono muovere in Square di tipo Open Air solo se possono volare"; 6.ix: "Blocker
    volanti … non possono trasportare armi pesanti". True for every Blocker at every moment, not only
    for the one moving: a Blocker hovering in Open Air takes no heavy weapon, and gives away no flying
    gear, by a hand-over (6.x); on its Balcony it may."""
    carried = {"red-1": ("heavy-laser",), "red-2": ("bat-suit",)}
    board = board_of({"red-1": ("citi-def", "curie:C5"), "red-2": ("citi-def", "curie:B5")}, carried=carried)
    assert board.square(sq(board, "curie:B5")).is_open and board.square(sq(board, "curie:C5")).is_window
    start(board, "red-2")
    assert key(mv.check_hand_over(board, "red-1", "heavy-laser-1", "red-2")) == "err-hand-over-grounds"
    board = board_of({"red-1": ("citi-def", "curie:C5"), "red-2": ("citi-def", "curie:B5")}, carried=carried)
    start(board, "red-1")
    assert key(mv.check_hand_over(board, "red-2", "bat-suit-1", "red-1")) == "err-hand-over-grounds"
    board = board_of({"red-1": ("citi-def", "curie:D9"), "red-2": ("citi-def", "curie:C9")}, carried=carried)
    sq(board, "curie:C9", "BA")
    start(board, "red-2")
    assert mv.check_hand_over(board, "red-1", "heavy-laser-1", "red-2") is None  # on its Balcony it walks
