"""The Arditi del Popolo rules engine: the `pbem.core.rules.Rules` protocol.

Phases: turn 0 ``setup`` (a server step that awaits nobody: party seats and the 12
indifferent are drawn, the first die is rolled); then in every round one ``move`` phase per
seat, in seat order (the die was rolled when the previous phase resolved); then, when there
are guards to place or move, a ``police`` phase that awaits nobody; ``over`` at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.dice import Dice
from pbem.core.i18n import Catalog, Message, msg
from pbem.core.rules import (
    Chooser,
    Diagnostic,
    Event,
    GameInfo,
    OptionSpec,
    Outcome,
    Phase,
    Resolution,
    Sheet,
    View,
)
from pbem.core.storage import DataclassStorage
from pbem.errors import RulesError, UserError
from pbem.games.arditi import draws, flow, guide, play, report
from pbem.games.arditi.orders import MAX_ITEMS, ORDER_TYPES, Stay, parse_text
from pbem.games.arditi.state import CODEC_TYPES, SEATS, VERSION, State
from pbem.games.arditi.tables import NUMBERS
from pbem.games.arditi.turn import plan_orders, plan_turn
from pbem.games.arditi.view import build_view
from pbem.games.common.engine import check_options

MAX_ROUNDS = 999


class ArditiRules(DataclassStorage):
    """Arditi del Popolo, snake variant (see docs/games/arditi.md)."""

    info = GameInfo(
        slug="arditi",
        title="Arditi del Popolo (snake variant)",
        version=VERSION,
        seats=SEATS,
        min_seats=2,
        max_seats=6,
        options={"rounds": OptionSpec(str(NUMBERS.default_rounds),
                                      "the game ends after this many rounds at the latest (1-999)")},
        id_prefix="a",
    )

    def __init__(self) -> None:
        super().__init__(State, CODEC_TYPES, ORDER_TYPES)
        self.catalog = Catalog.from_package("pbem.games.arditi.data").merged(
            Catalog.from_package("pbem.games.arditi.data", "purposes.toml"))

    # -- game flow ------------------------------------------------------------------
    def new_game(self, seats: Sequence[str], options: Mapping[str, str]) -> State:
        names = [s.strip().lower() for s in seats]
        unknown = [s for s in names if s not in SEATS]
        if unknown:
            raise UserError(f"Arditi seats are colours ({', '.join(SEATS)}), not {', '.join(unknown)}")
        if len(set(names)) != len(names):
            raise UserError("each colour may be used once")
        if not 2 <= len(names) <= 6:
            raise UserError(f"Arditi del Popolo is for 2 to 6 players, not {len(names)}")
        check_options(self.info, options)
        text = str(options.get("rounds", NUMBERS.default_rounds)).strip()
        if not text.isdigit() or not 1 <= int(text) <= MAX_ROUNDS:
            raise UserError(f"rounds must be a number from 1 to {MAX_ROUNDS}, not {text!r}")
        ordered = tuple(s for s in SEATS if s in names)
        return State(VERSION, ordered, int(text))

    def phase(self, state: State) -> Phase:
        if state.stage == "setup":
            return Phase(turn=0, name="setup", awaiting=(), label=msg("phase-setup"))
        if state.stage == "police":
            return Phase(turn=state.round, name="police", awaiting=(), label=msg("phase-police"))
        if state.stage == "over":
            return Phase(turn=state.round, name="over", awaiting=(), label=msg("phase-over"))
        assert state.to_move is not None
        return Phase(turn=state.round, name="move", awaiting=(state.to_move,),
                     label=msg("phase-move", seat=msg(f"seat-{state.to_move}"), roll=state.roll))

    def parse_orders(self, state: State, seat: str, text: str) -> Sheet:
        try:
            if seat not in SEATS:
                return Sheet(seat, (), (Diagnostic(0, "", msg("err-unknown-seat", seat=str(seat)[:20])),))
            items, diags = parse_text(text if isinstance(text, str) else "")
            if len(items) > MAX_ITEMS:
                return Sheet(seat, (), (Diagnostic(0, "", msg("err-too-long", max=MAX_ITEMS)),))
            if diags:
                # A line that could not be read: say so, and check nothing else.
                return Sheet(seat, (), tuple(sorted(diags, key=lambda d: d.line)))
            plan = plan_turn(state, seat, items)
            return Sheet(seat, plan.orders if plan.ok else (), tuple(plan.diagnostics))
        except Exception as exc:  # noqa: BLE001 - a bug must not reach the player as a crash
            return Sheet(seat, (), (Diagnostic(0, "", msg("err-internal", error=type(exc).__name__)),))

    def default_orders(self, state: State, seat: str) -> Sheet:
        """The corteo stays put."""
        return Sheet(seat, (Stay(),))

    def resolve(self, state: State, sheets: Mapping[str, Sheet], dice: Dice) -> Resolution:
        if state.stage == "setup":
            new = flow.setup(state, dice)
            assert new.setup is not None
            return Resolution(new, (Event("setup", {"homes": [list(h) for h in new.setup.homes],
                                                    "indifferent": list(new.setup.indifferent)}),
                                    *self._next_events(new)))
        if state.stage == "police":
            new = flow.police_step(state, dice)
            assert new.police is not None
            ev = Event("police", {"round": new.police.round,
                                  "arrests": [a.seat for a in new.police.acts if a.result == "arrest"]})
            return Resolution(new, (ev, *self._next_events(new)))
        if state.stage != "move" or state.to_move is None:
            raise RulesError("the game is over")
        seat = state.to_move
        sheet = sheets.get(seat) or self.default_orders(state, seat)
        plan = plan_orders(state, seat, sheet.orders)
        if not plan.ok or plan.work is None:
            raise RulesError(f"invalid sheet for {seat}: {[d.message.key for d in plan.diagnostics]}")
        mode = "stayed" if plan.stay else "moved"
        new = flow.finish_move(state, plan.work, mode, dice)
        rec = new.last_move
        assert rec is not None
        ev = Event("move", {"seat": seat, "roll": rec.roll, "path": list(rec.front_path),
                            "captured": list(rec.captured), "clashes": [c.attacked for c in rec.clashes]})
        return Resolution(new, (ev, *self._next_events(new)))

    def _next_events(self, state: State) -> tuple[Event, ...]:
        r = state.result
        if r is None:
            return ()
        return (Event("game-over", {"result": r.result, "winners": list(r.winners), "reason": r.reason,
                                    "scores": {s.seat: s.points for s in r.scores}}),)

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        points = {s.seat: s.points for s in r.scores}
        if r.result == "draw":
            summary = msg(f"outcome-{r.reason}-draw", points=points[state.seats[0]])
        else:
            summary = msg(f"outcome-{r.reason}", winners=report.seat_names(r.winners), points=points[r.winners[0]],
                          count=len(r.winners))
        return Outcome(r.result, r.winners, r.reason, summary)

    # -- what players see -------------------------------------------------------------
    def view(self, state: State, viewer: str | None) -> View:
        return build_view(state, viewer)

    def roll_notes(self, view: View, rolls: Sequence[Any]) -> dict[int, Message]:
        """The number each draw from the bag took, beside its die (see `draws`)."""
        return draws.roll_notes(view, rolls)

    def describe(self, view: View, lang: str) -> str:
        return report.describe(self.catalog, view, lang)

    def render(self, view: View) -> str:
        from pbem.games.arditi.render import render_svg

        return str(render_svg(view, self.catalog))

    def help(self, lang: str) -> str:
        return guide.help_text(self.catalog, lang)

    def template(self, state: State, seat: str, lang: str) -> str:
        return guide.template_text(self.catalog, state, seat, lang)

    def random_orders(self, state: State, seat: str, pick: Chooser) -> str:
        return play.random_text(state, seat, pick)
