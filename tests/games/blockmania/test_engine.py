"""The Block Mania engine through `RULES` (the service's only door): the set-up draw and the set-up (3),
the turn of 4 with its Command Phase in one or more sheets (5, 6), the Defensive Fire asked by mail (7),
the standing instructions (11.iii, 11.iv), the Final Phase (12.ii) and the ranking (12.iii).  Section
numbers are the Italian rulebook's (shared/seeds/004_*.txt); the readings of unclear text are listed in
docs/games/blockmania.md, "Play by mail".  Positions come from `helpers.position`: red holds the Marie
Curie Block, blue the Buster Keaton Block, green the Amelia Earhart Block."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import ScriptedDice, VerifiableDice
from pbem.core.rules import Sheet
from pbem.games.blockmania import RULES
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.orders import Justice, Pass, Place
from pbem.games.blockmania.state import DEAD, PILE, READY, Note, PhaseLog, Result, SquareState, Standing, State
from tests.games.blockmania.helpers import position, sq


class FirstDice:
    """The given values first, then 1s: a 1 keeps the number order of every shuffle (a roll over the
    items left), so a set-up draw needs only the dice a test is about."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.purposes: list[str] = []

    def roll(self, sides: int, purpose: str) -> int:
        self.purposes.append(purpose)
        value = self.values.pop(0) if self.values else 1
        assert 1 <= value <= sides, (value, sides, purpose)
        return value

    def rolls(self, sides: int, count: int, purpose: str) -> tuple[int, ...]:
        return tuple(self.roll(sides, purpose) for _ in range(count))


def server_dice(n: int = 0) -> VerifiableDice:
    return VerifiableDice(b"block mania engine test".ljust(32, b"."), "b1", n, "digest", 0)


def drawn(seats: tuple[str, ...] = ("red", "blue", "green"), dice: Any = None) -> State:
    """A new game after the set-up draw (the server's phase)."""
    state = RULES.new_game(list(seats), {})
    return RULES.resolve(state, {}, dice or server_dice()).state


def sheet(state: State, seat: str, text: str) -> Sheet:
    """A sheet as the service files it: parsed and planned, and accepted."""
    out = RULES.parse_orders(state, seat, text)
    assert out.ok, out.diagnostics
    return out


def play(state: State, seat: str, text: str, *dice: int) -> State:
    return RULES.resolve(state, {seat: sheet(state, seat, text)}, ScriptedDice(dice)).state


def errors(state: State, seat: str, text: str) -> list[tuple[int, str, str]]:
    """The refusals of a sheet: (line, the line's text, the message key)."""
    out = RULES.parse_orders(state, seat, text)
    assert not out.ok and out.orders == ()
    return [(d.line, d.text, d.message.key) for d in out.diagnostics if d.is_error]


def holding(state: State, seat: str, *cards: int) -> State:
    return replace(state, seats=tuple(replace(s, hand=cards) if s.name == seat else s for s in state.seats))


def standing(state: State, seat: str, **changes: Any) -> State:
    names = [s.name for s in state.seats]
    table = [Standing() for _ in names]
    table[names.index(seat)] = Standing(**changes)
    return replace(state, standing=tuple(table))


def card(face_key: str) -> int:
    return next(c.number for c in DECK.cards if face_key in (c.mania.key, c.justice.key))


def walker() -> State:
    """Red's Command Phase, 12 CP: a Juves (cost 2, Move 5) in the Window square curie:C5; blue's Citi-Def
    far away in the Buster Keaton Block."""
    state = position({"red-1": ("juves", "curie:C5"), "blue-1": ("citi-def", "keaton:D6")})
    board = Board(state)
    for name in ("curie:C5", "curie:D5", "curie:E5", "curie:F5"):
        sq(board, name, "RS")
    return state


def facing() -> State:
    """Red's Command Phase: red's Juves in curie:D5 with blue's Citi-Def, carrying a Spit Gun, in curie:D6
    right above it (one square away, 7)."""
    return position({"red-1": ("juves", "curie:D5"), "blue-1": ("citi-def", "curie:D6")},
                    carried={"blue-1": ("spit-gun",)})


# -- 3 the set-up draw and the set-up -----------------------------------------------------------------------


def test_setup_draw_deals_blocks_orders_the_maps_and_deals_the_cards() -> None:
    """3: "ogni giocatore prende uno dei Block, scelto a caso"; "un dado per determinare l'ordine" of the maps
    (highest first, a tie rolled again); the Blockers shuffled face down in a pile per player, the first 4
    drawn for placing; 12 cards set aside with three players, then 3 cards each."""
    dice = FirstDice(2, 3, 1,  # red: keaton (2nd of 4), blue: houdini (3rd of 3 left), green: curie (1st of 2)
                     2, 5, 5,  # map order: red 2, blue and green tie on 5 ...
                     1, 4)  # ... and roll again: green first
    state = drawn(dice=dice)
    assert dice.purposes[:8] == ["block for red", "block for blue", "block for green", "map order: red",
                                 "map order: blue", "map order: green", "map order: blue", "map order: green"]
    assert [(s.name, s.block) for s in state.seats] == [("green", "curie"), ("blue", "houdini"), ("red", "keaton")]
    for s in state.seats:
        ready = sorted(b.id for b in state.blockers if b.owner == s.name and b.loc == READY)
        assert ready == [f"{s.name}-{i}" for i in range(1, 5)]
        assert len(s.pile) == 16 and all(b.loc == PILE for b in state.blockers if b.id in s.pile)
        assert len(s.hand) == 3
    assert len(state.set_aside) == 12 and len(state.deck) == 55 - 12 - 3 * 3
    assert (state.stage, state.turn, state.active) == ("setup", 0, 0)
    notes = state.log[0].notes
    assert notes[0] == Note("note-blocks", (("ring", "green:curie, blue:houdini, red:keaton"),))
    assert {n.to for n in notes if n.key in ("note-card-hand", "note-ready")} == {("green",), ("blue",), ("red",)}
    view = RULES.view(state, "blue")  # 11.i: the hands are secret, their sizes public
    assert [("hand" in s, s["hand_size"], s["pile_size"]) for s in view["seats"]] == \
        [(False, 3, 16), (True, 3, 16), (False, 3, 16)]
    assert [c["number"] for c in view["seats"][1]["hand"]] == list(state.seat("blue").hand)
    assert {n["args"].get("seat") for p in view["log"] for n in p["notes"] if n["key"] == "note-card-hand"} == {"blue"}


def test_two_players_take_the_block_mania_blocks() -> None:
    """3 with the boxes (ours): two players use the Block Mania box's blocks, Marie Curie and Buster Keaton,
    and set aside 16 cards; three or four players draw among all four blocks."""
    for n in range(4):
        state = RULES.resolve(RULES.new_game(["red", "blue"], {}), {}, server_dice(n)).state
        assert {s.block for s in state.seats} == {"curie", "keaton"}
        assert len(state.set_aside) == 16
    four = drawn(("red", "blue", "green", "yellow"))
    assert {s.block for s in four.seats} == {"curie", "keaton", "earhart", "houdini"}
    assert len(four.set_aside) == 6


def test_setup_awaits_one_seat_at_a_time_in_the_order_of_play() -> None:
    """3: the players place their first four Blockers "nello stesso ordine in cui hanno piazzato i
    palazzi": one seat is awaited at a time, in the ring's order, and only its Blockers are placed."""
    state = drawn()
    order = [s.name for s in state.seats]
    seen = []
    for seat in order:
        phase = RULES.phase(state)
        assert (phase.name, phase.turn, phase.awaiting, phase.decision) == ("setup", 0, (seat,), False)
        seen.append(seat)
        state = RULES.resolve(state, {}, ScriptedDice([3, 4])).state  # the default placement
        placed = {b.owner for b in state.blockers if b.loc not in (READY, PILE)}
        assert placed == set(seen)
    assert not any(b.loc == READY for b in state.blockers)
    assert RULES.phase(state).awaiting == (order[0],)


def test_place_on_another_block_or_a_taken_square_is_refused_naming_the_line() -> None:
    """3: the first Blockers go "nel proprio Block, ove desidera": a Window or Interior square of the
    player's own block (ours: one Blocker a square); the sheet is refused with the line."""
    state = position({"red-1": ("juves", READY), "red-2": ("mob", READY), "blue-1": ("spugs", READY)},
                     stage="setup", turn=0)
    assert errors(state, "red", "PLACE red-1 keaton:D5") == [(1, "PLACE red-1 keaton:D5", "err-place-block")]
    assert errors(state, "red", "PLACE red-1 B5") == [(1, "PLACE red-1 B5", "err-place-block")]  # Open Air
    assert errors(state, "red", "PLACE red-1 D5\nPLACE red-2 D5") == [(2, "PLACE red-2 D5", "err-place-taken")]
    assert errors(state, "red", "PLACE blue-1 D5") == [(1, "PLACE blue-1 D5", "err-not-yours")]
    assert errors(state, "blue", "PLACE blue-1 D5") == [(0, "", "err-not-your-phase")]
    ok = sheet(state, "red", "PIAZZA red-1 IN D5")  # Italian; the Blocker left out is placed by default
    assert ok.canonical() == "PLACE red-1 curie:D5\nPLACE red-2 curie:C1"


def test_setup_default_takes_the_lowest_free_addresses() -> None:
    """3, a missed deadline (ours): the READY Blockers go to the free squares from the lowest address
    (5.ii: 11 is the left Entrance Plaza, then 12 ...)."""
    state = position({"red-1": ("juves", READY), "red-2": ("mob", READY), "red-3": ("spugs", "curie:C1")},
                     stage="setup", turn=0)
    default = RULES.default_orders(state, "red")
    assert default.orders == (Place("red-1", "curie:F1"), Place("red-2", "curie:H1"))  # addresses 12, 13
    assert RULES.default_orders(state, "blue").orders == (Pass(),)


# -- 4, 5, 6 the Command Phase ------------------------------------------------------------------------------


def test_the_command_phase_opens_with_2d6_command_points_in_the_log() -> None:
    """5.i: "all'inizio della fase, il giocatore lancia 2D6, somma i risultati": after the last set-up the
    first player's Command Phase is turn 1, and the roll is in the log for every seat to read."""
    state = drawn()
    for _ in state.seats[1:]:
        state = RULES.resolve(state, {}, ScriptedDice([])).state
    state = RULES.resolve(state, {}, ScriptedDice([4, 5])).state
    first = state.seats[0].name
    assert (state.stage, state.turn, state.active_seat.name, state.command_points) == ("command", 1, first, 9)
    assert state.log[-1] == PhaseLog(1, first, "command-start",
                                     (Note("note-command-points", (("seat", first), ("points", "9"),
                                                                   ("dice", "4+5"))),))
    view = RULES.view(state, state.seats[1].name)
    assert view["command_points"] == 9 and view["log"][-1]["notes"][0]["key"] == "note-command-points"


def test_a_move_to_a_far_square_is_filled_in_with_the_path() -> None:
    """6: a Blocker moves square by square; a MOVE naming only where to go gets the cheapest path filled in,
    and the echo (the canonical sheet) shows every square; a square out of reach is refused naming the
    line."""
    state = walker()
    assert sheet(state, "red", "MOVE red-1 F5").canonical() == "MOVE red-1 curie:D5 curie:E5 curie:F5"
    assert sheet(state, "red", "muovi red-1 verso f5").canonical() == "MOVE red-1 curie:D5 curie:E5 curie:F5"
    poor = replace(state, command_points=2)  # 5.v: no Command Points left for extra Movement Points
    assert errors(poor, "red", "PASS\nMOVE red-1 keaton:G11") == [(2, "MOVE red-1 keaton:G11", "err-unreachable")]
    after = play(state, "red", "MOVE red-1 F5")
    assert next(b.loc for b in after.blockers if b.id == "red-1") == "curie:F5"
    assert after.command_points == 10  # 5.iii: the Juves' cost; three steps within its Move


def test_continue_keeps_the_command_phase_and_the_moving_blocker() -> None:
    """5, 6 by mail (ours): a sheet ending with CONTINUE leaves the Command Phase open for another sheet; the
    Blocker moving keeps its Movement Points, and is not paid for again (5.iii); CONTINUE must be last."""
    state = walker()
    assert errors(state, "red", "CONTINUE\nMOVE red-1 D5") == [(1, "CONTINUE", "err-continue-last")]
    first = play(state, "red", "MOVE red-1 D5\nCONTINUE")
    phase = RULES.phase(first)
    assert (phase.name, phase.turn, phase.awaiting) == ("command", 1, ("red",))
    assert (first.moving, first.mp, first.command_points) == ("red-1", 4, 10)
    second = sheet(first, "red", "MOVE red-1 F5")
    assert second.canonical() == "MOVE red-1 curie:E5 curie:F5"
    done = RULES.resolve(first, {"red": second}, ScriptedDice([])).state
    assert done.command_points == 10 and done.stage == "combat"  # nobody beside red-1: no defensive fire


def test_a_sheet_of_another_seat_in_the_command_phase_is_refused() -> None:
    """4: the Command Phase is the active player's; another seat's mail is refused, whatever it holds (its
    standing instructions wait for a phase that awaits it)."""
    state = walker()
    assert RULES.phase(state).awaiting == ("red",)
    assert errors(state, "blue", "DEFENSIVE FIRE NEVER") == [(0, "", "err-not-your-phase")]
    assert errors(state, "blue", "MOVE blue-1 D5") == [(0, "", "err-not-your-phase")]
    assert RULES.default_orders(state, "blue").orders == (Pass(),)


def test_turns_count_every_players_turn() -> None:
    """4: the turns follow the ring's order; TURN counts each player's turn (ours): red's is turn 1, after
    its Combat and End Phases blue's Command Phase is turn 2, with its own 2d6."""
    state = play(walker(), "red", "MOVE red-1 D5")
    assert (state.stage, state.turn) == ("combat", 1)
    state = play(state, "red", "PASS", 2, 1)
    assert [p.phase for p in state.log][-3:] == ["combat", "end", "command-start"]
    assert (state.stage, state.turn, state.active_seat.name, state.command_points) == ("command", 2, "blue", 3)


# -- 7 Defensive Fire ---------------------------------------------------------------------------------------


def test_defensive_fire_ask_makes_a_decision_phase_for_that_seat() -> None:
    """7: the other players' Blockers "possono attaccare i Blocker del giocatore di turno che si trovino in
    uno Square adiacente"; a player whose standing instruction is DEFENSIVE FIRE ASK and who has such a
    Blocker is asked, in a decision phase of its own, and his FIRE is carried out."""
    state = standing(facing(), "blue", defensive_fire="ask")
    asked = play(state, "red", "PASS")
    phase = RULES.phase(asked)
    assert (phase.name, phase.turn, phase.awaiting, phase.decision) == ("defensive-fire", 1, ("blue",), True)
    assert "FIRE blue-1 AT red-1 WITH spit-gun-1" in RULES.template(asked, "blue", "en")
    assert errors(asked, "red", "PASS") == [(0, "", "err-not-your-phase")]
    fire = sheet(asked, "blue", "FUOCO blue-1 SU red-1")
    assert fire.canonical() == "FIRE blue-1 AT red-1 WITH spit-gun-1"  # the weapon filled in
    after = RULES.resolve(asked, {"blue": fire}, ScriptedDice([6, 1, 1])).state
    keys = [n.key for p in after.log if p.phase == "defensive-fire" for n in p.notes]
    assert keys[0] == "note-defensive-fire" and "note-combat-killed" in keys
    assert next(b for b in after.blockers if b.id == "red-1").loc == DEAD


def test_defensive_fire_is_asked_only_with_a_blocker_able_to_fire() -> None:
    """7: only a Blocker one square away may fire; a player who asked but has none is not awaited, and a
    player with the default instruction (NEAREST) fires at once, without a phase of his own."""
    far = standing(walker(), "blue", defensive_fire="ask")
    assert play(far, "red", "PASS").stage == "combat"
    state = facing()  # blue's standing instruction: the default, NEAREST
    after = play(state, "red", "PASS", 1)  # the shot misses
    assert after.stage == "combat" and RULES.phase(after).awaiting == ("red",)
    assert [n.key for n in after.log[-1].notes][0] == "note-defensive-fire"
    assert next(b for b in after.blockers if b.id == "blue-1").face_down  # 7.ii


def test_defensive_fire_missed_deadline_fires_at_the_nearest() -> None:
    """7, a missed deadline (ours): the asked seat's Blockers fire at the nearest enemy."""
    asked = play(standing(facing(), "blue", defensive_fire="ask"), "red", "PASS")
    after = RULES.resolve(asked, {}, ScriptedDice([1])).state
    notes = [n for p in after.log if p.phase == "defensive-fire" for n in p.notes]
    assert dict(notes[0].args)["blocker"] == "blue-1" and dict(notes[0].args)["target"] == "red-1"


# -- 11 standing instructions -----------------------------------------------------------------------------


def test_keep_is_only_for_cards_that_play_themselves() -> None:
    """11.iii, 11.iv: KEEP names a Hazard card (played on the moving Blocker), or an Attack card that answers
    the others' attack (Duck!, Weapon Jams) or helps in a close combat (Dirty Fighting); a Command card or
    Steady Aim (the player's own shot) is refused, naming the card; so is a card not in hand."""
    state = holding(walker(), "red", card("block-pride"), card("steady-aim"), card("duck"))
    [(line, text, key)] = errors(state, "red", f"KEEP {card('block-pride')}")
    assert (line, key) == (1, "err-keep-card")
    assert errors(state, "red", f"KEEP {card('steady-aim')}")[0][2] == "err-keep-card"
    assert errors(state, "red", f"KEEP {card('sniper')}")[0][2] == "err-card-not-in-hand"
    assert sheet(state, "red", f"TIENI {card('duck')}").canonical() == f"KEEP {card('duck')}"
    after = play(state, "red", f"KEEP {card('duck')}\nDISCARD {card('block-pride')}\nINTERCEPT OFF")
    mine = RULES.view(after, "red")["seats"][0]["standing"]
    assert [c["number"] for c in mine["keep"]] == [card("duck")] and not mine["intercept_lifts"]
    assert mine["discard"]["number"] == card("block-pride")
    assert "standing" not in RULES.view(after, "blue")["seats"][0]  # its own eyes only


# -- 12 the Final Phase and the end ---------------------------------------------------------------------------


def test_the_final_phase_sheet_gets_the_justice_card_first() -> None:
    """12.ii: in the Final Phase each player "deve obbligatoriamente giocare una ed una sola carta Giustizia
    all'inizio della Fase Comando": a sheet without JUSTICE gets the first card of the hand filled in
    before its orders, with its targets (Iso-Cubes: two Blockers, the strongest enemies first)."""
    state = position({"red-1": ("juves", "curie:C5"), "blue-1": ("citi-def", "keaton:D6"),
                      "blue-2": ("spugs", "keaton:D7")}, final=True)
    state = holding(state, "red", card("iso-cubes"))
    n = card("iso-cubes")
    assert sheet(state, "red", "MOVE red-1 F5").orders[0] == Justice(n, ("blue-1", "blue-2"))
    assert sheet(state, "red", "MOVE red-1 F5").canonical() == \
        f"JUSTICE {n} ON blue-1 blue-2\nMOVE red-1 curie:D5 curie:E5 curie:F5"
    assert RULES.default_orders(state, "red").canonical() == f"JUSTICE {n} ON blue-1 blue-2"
    assert errors(state, "red", "NEW") == [(1, "NEW", "err-final-no-new")]  # 12.i: no new Blockers


def test_the_outcome_ranks_the_fewest_defeat_points_first() -> None:
    """12.iii: the game ends when the last Blocker is removed; 1 defeat point per Blocker lost (not to
    Justice), 1 per Structural Damage on one's block; "il minor numero totale di Punti Sconfitta sarà
    dichiarato vincitore" (ours: equal lowest totals share the win; all equal is a draw)."""
    state = position({"blue-1": ("citi-def", "keaton:D6"), "blue-9": ("spugs", DEAD),
                      "green-9": ("spugs", DEAD)}, players=3, final=True,
                     squares=(SquareState("curie:E4", damage=2),))
    state = holding(state, "red", card("iso-cubes"))
    assert RULES.outcome(state) is None
    over = RULES.resolve(state, {}, server_dice()).state  # the deadline: the Justice card by default
    assert RULES.phase(over).name == "over" and RULES.phase(over).awaiting == ()
    assert over.result == Result((("red", 2), ("blue", 1), ("green", 1)), ("blue", "green", "red"))
    outcome = RULES.outcome(over)
    assert outcome is not None
    assert (outcome.result, outcome.winners, outcome.reason) == ("win", ("blue", "green"), "defeat-points")
    assert outcome.summary.args["ranking"] == "blue 1, green 1, red 2"
    draw = RULES.outcome(replace(over, result=Result((("red", 0), ("blue", 0), ("green", 0)),
                                                     ("red", "blue", "green"))))
    assert draw is not None and (draw.result, draw.winners) == ("draw", ())
