"""The Kriegspiel rules engine: the `pbem.core.rules.Rules` protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.i18n import Catalog, msg
from pbem.core.rules import (
    Chooser,
    Diagnostic,
    Event,
    GameInfo,
    Outcome,
    Phase,
    Resolution,
    Sheet,
    View,
)
from pbem.core.storage import DataclassStorage
from pbem.errors import RulesError, UserError
from pbem.games.kriegspiel import guide, play, report
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.deploy import check_deployment, place
from pbem.games.kriegspiel.orders import ORDER_TYPES, Deploy, Item, Resign, parse_text
from pbem.games.kriegspiel.position import Position, unit_sort_key
from pbem.games.kriegspiel.state import (
    CODEC_TYPES,
    SIDES,
    VERSION,
    Arsenal,
    Result,
    State,
    other,
)
from pbem.games.kriegspiel.turn import check_victory, plan_turn, play_turn
from pbem.games.kriegspiel.view import build_view

#: More orders than this in one sheet is certainly a mistake (the army has 17 units).
MAX_ORDERS = 100


def initial_state() -> State:
    arsenals = tuple(Arsenal(BOARD.name(sq), side) for sq, side in BOARD.arsenals)
    return State(VERSION, 0, "deploy", None, (), arsenals)


def check_sheet(state: State, seat: str, items: Sequence[Item]) -> tuple[tuple[Any, ...], list[Diagnostic]]:
    """Accepted orders and diagnostics for ``seat`` on ``state`` (shared by parse and resolve)."""
    if state.phase == "over":
        return (), [Diagnostic(0, "", msg("err-game-over"))]
    if state.phase == "deploy":
        return check_deployment(seat, items)
    if seat != state.to_move:
        return (), [Diagnostic(0, "", msg("err-not-your-turn", side=msg(f"side-{state.to_move}")))]
    plan = plan_turn(state, seat, items)
    return plan.orders, plan.diagnostics


class KriegspielRules(DataclassStorage):
    """Guy Debord's Game of War, after the Italian rulebook (see docs/games/kriegspiel.md)."""

    info = GameInfo(
        slug="kriegspiel",
        title="Kriegspiel (Guy Debord's Game of War)",
        version=VERSION,
        seats=SIDES,
        min_seats=2,
        max_seats=2,
        id_prefix="k",
        sealed_hides_units=True,
    )

    def __init__(self) -> None:
        super().__init__(State, CODEC_TYPES, ORDER_TYPES)
        self.catalog = Catalog.from_package("pbem.games.kriegspiel.data").merged(
            Catalog.from_package("pbem.games.kriegspiel.data", "purposes.toml"))

    # -- game flow ------------------------------------------------------------------
    def new_game(self, seats: Sequence[str], options: Mapping[str, str]) -> State:
        if tuple(seats) != SIDES and set(seats) != set(SIDES):
            raise UserError(f"Kriegspiel seats are 'north' and 'south', not {', '.join(seats)}")
        if options:
            raise UserError(f"Kriegspiel has no options (got {', '.join(options)})")
        return initial_state()

    def phase(self, state: State) -> Phase:
        if state.phase == "deploy":
            return Phase(turn=0, name="deploy", awaiting=SIDES, sealed=True,
                         label=msg("phase-deploy"))
        if state.phase == "over":
            return Phase(turn=state.turn, name="over", awaiting=(), label=msg("phase-over"))
        assert state.to_move is not None
        return Phase(turn=state.turn, name="move", awaiting=(state.to_move,),
                     label=msg("phase-move", side=msg(f"side-{state.to_move}")))

    def parse_orders(self, state: State, seat: str, text: str) -> Sheet:
        try:
            items, diags = parse_text(text if isinstance(text, str) else "")
            if len(items) > MAX_ORDERS:
                return Sheet(seat, (), (Diagnostic(0, "", msg("err-too-long", max=MAX_ORDERS)),))
            if seat not in SIDES:
                return Sheet(seat, (), (Diagnostic(0, "", msg("err-unknown-seat", seat=seat)),))
            orders, more = check_sheet(state, seat, items)
            if diags:  # lines were written but none could be read: say why, not "empty"
                more = [d for d in more if d.message.key != "err-empty"]
            return Sheet(seat, tuple(orders), tuple(sorted(diags + more, key=lambda d: d.line)))
        except Exception as exc:  # noqa: BLE001 - a bug must not reach the player as a crash
            return Sheet(seat, (), (Diagnostic(0, "", msg("err-internal", error=type(exc).__name__)),))

    def default_orders(self, state: State, seat: str) -> Sheet:
        text = play.default_text(state, seat)
        return self.parse_orders(state, seat, text)

    def resolve(self, state: State, sheets: Mapping[str, Sheet], dice: Dice) -> Resolution:
        phase = self.phase(state)
        if not phase.awaiting:
            raise RulesError("the game is over")
        orders: dict[str, tuple[Any, ...]] = {}
        for seat in phase.awaiting:
            sheet = sheets.get(seat) or self.default_orders(state, seat)
            items = [Item(0, o.canonical(), o) for o in sheet.orders]
            accepted, diags = check_sheet(state, seat, items)
            if any(d.is_error for d in diags):
                raise RulesError(f"invalid sheet for {seat}: {[d.message.key for d in diags]}")
            orders[seat] = accepted
        if state.phase == "deploy":
            return self._resolve_deployment(state, orders, dice)
        side = phase.awaiting[0]
        plan = plan_turn(state, side, [Item(0, o.canonical(), o) for o in orders[side]])
        new = play_turn(state, plan)
        return Resolution(new, self._turn_events(new))

    def _resolve_deployment(self, state: State, orders: Mapping[str, tuple[Any, ...]],
                            dice: Dice) -> Resolution:
        resigned = [s for s in SIDES if any(isinstance(o, Resign) for o in orders[s])]
        if resigned:
            result = (Result("draw", (), "agreement") if len(resigned) == 2
                      else Result("win", (other(resigned[0]),), "resignation"))
            new = State(state.version, 0, "over", None, (), state.arsenals, result=result)
            return Resolution(new, (Event("game-over", {"result": result.result,
                                                        "winners": list(result.winners),
                                                        "reason": result.reason}),))
        units = []
        for side in SIDES:
            units.extend(place(side, [o for o in orders[side] if isinstance(o, Deploy)]))
        roll = dice.roll(2, "who moves first")
        first = "north" if roll == 1 else "south"
        units.sort(key=unit_sort_key)
        new = State(state.version, 1, "move", first, tuple(units), state.arsenals,
                    first_player=first, first_roll=roll)
        victory = check_victory(Position.of(new), first)
        if victory is not None:  # not reachable with a full army; kept for safety
            new = State(new.version, 1, "over", None, new.units, new.arsenals,
                        first_player=first, first_roll=roll, result=victory)
        events = [Event("deployed", {"first": first, "roll": roll})]
        return Resolution(new, tuple(events))

    def _turn_events(self, state: State) -> tuple[Event, ...]:
        events = []
        t = state.last_turn
        if t is not None:
            events.append(Event("turn", {"side": t.side, "turn": t.turn,
                                         "moves": len(t.moves),
                                         "attack": t.attack.result if t.attack else None,
                                         "captured": [c.square for c in t.captured],
                                         "arsenal": t.arsenal_destroyed.square
                                         if t.arsenal_destroyed else None}))
        if state.result is not None:
            events.append(Event("game-over", {"result": state.result.result,
                                              "winners": list(state.result.winners),
                                              "reason": state.result.reason}))
        return tuple(events)

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        key = f"outcome-{r.reason}-{r.winners[0]}" if r.winners else f"outcome-{r.reason}-draw"
        return Outcome(r.result, r.winners, r.reason, msg(key))

    # -- what players see -------------------------------------------------------------
    def view(self, state: State, viewer: str | None) -> View:
        return build_view(state, viewer)

    def preview(self, state: State, seat: str, orders: Sequence[Any]) -> View:
        """The seat's view during the sealed deployment with its own filed army placed on its
        half (the enemy's stays hidden); after the deployment, the plain view."""
        if state.phase != "deploy" or seat not in SIDES:
            return build_view(state, seat)
        units = sorted(place(seat, [o for o in orders if isinstance(o, Deploy)]), key=unit_sort_key)
        view = build_view(State(state.version, state.turn, state.phase, state.to_move, tuple(units),
                                state.arsenals), seat)
        return {**view, "preview": True}

    def describe(self, view: View, lang: str) -> str:
        return report.describe(self.catalog, view, lang)

    def render(self, view: View) -> str:
        from pbem.games.kriegspiel.render import render_svg  # written separately

        return str(render_svg(view))

    def help(self, lang: str) -> str:
        return guide.help_text(self.catalog, lang)

    def template(self, state: State, seat: str, lang: str) -> str:
        return guide.template_text(self.catalog, state, seat, lang)

    def random_orders(self, state: State, seat: str, pick: Chooser) -> str:
        return play.random_text(state, seat, pick)
