"""The Battle of Seattle rules engine: the `pbem.core.rules.Rules` protocol.

Phases: ``setup-draw`` (server: five Crowds drawn) and ``setup`` (the Demonstrators place
them); then every turn ``random-event`` (server: the event and the draws of 4.21),
``reinforcements`` (both sides, sealed: placements, removals, emergency calls),
``demonstrator-movement``, ``authority-reaction``, ``demonstrator-combat``,
``authority-movement``, ``demonstrator-reaction``, ``authority-combat`` and ``end``
(server: visibility, nightfall, victory).  Player phases with nothing to do are passed over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pbem.core.dice import Dice
from pbem.core.i18n import Catalog, msg
from pbem.core.rules import (
    Chooser,
    Event,
    GameInfo,
    OptionSpec,
    Outcome,
    Phase,
    Resolution,
    Sheet,
    View,
)
from pbem.core.orders import checked_sheet
from pbem.core.storage import DataclassStorage
from pbem.errors import RulesError, UserError
from pbem.games.common.engine import check_options, filed_orders, planned_default
from pbem.games.seattle import flow, guide, play, report
from pbem.games.seattle.board import all_counters
from pbem.games.seattle.orders import MAX_ITEMS, ORDER_TYPES, Pass, parse_text
from pbem.games.seattle.plan import Planner, plan_items, plan_orders
from pbem.games.seattle.state import AUTH, CODEC_TYPES, DEM, SEATS, VERSION, State, Unit
from pbem.games.seattle.tables import TABLES
from pbem.games.seattle.view import build_view

LAST_TURN = {"2": max(t.number for t in TABLES.scheduled_turns), "3": max(t.number for t in TABLES.turns)}


class SeattleRules(DataclassStorage):
    """The Battle of Seattle (Brian Train), see docs/games/seattle.md."""

    info = GameInfo(
        slug="seattle",
        title="The Battle of Seattle",
        version=VERSION,
        seats=SEATS,
        min_seats=2,
        max_seats=2,
        options={"days": OptionSpec("2", "play to the afternoon of 2 December (2) or, by agreement, 3 December (3)",
                                    ("2", "3"))},
        id_prefix="s",
    )

    def __init__(self) -> None:
        super().__init__(State, CODEC_TYPES, ORDER_TYPES)
        data = "pbem.games.seattle.data"
        self.catalog = (Catalog.from_package(data).merged(Catalog.from_package(data, "texts.toml"))
                        .merged(Catalog.from_package(data, "purposes.toml")))

    # -- game flow ------------------------------------------------------------------------
    def new_game(self, seats: Sequence[str], options: Mapping[str, str]) -> State:
        names = sorted(s.strip().lower() for s in seats)
        if names != sorted(SEATS):
            raise UserError(f"The Battle of Seattle has two seats: {', '.join(SEATS)}")
        check_options(self.info, options)
        days = str(options.get("days", "2")).strip()
        if days not in LAST_TURN:
            raise UserError(f"days must be 2 or 3, not {days!r}")
        return State(VERSION, LAST_TURN[days], units=all_counters())

    def phase(self, state: State) -> Phase:
        stage = state.stage
        return Phase(turn=state.turn, name=stage, awaiting=flow.awaiting(state), sealed=stage == "reinforcements",
                     label=msg(f"phase-{stage}"))

    def parse_orders(self, state: State, seat: str, text: str) -> Sheet:
        return checked_sheet(seat, text, seats=SEATS, awaiting=flow.awaiting(state), phase=msg(f"phase-{state.stage}"),
                             parse=parse_text, plan=lambda items: plan_items(state, seat, items),
                             max_items=MAX_ITEMS, empty=Pass())

    def default_orders(self, state: State, seat: str) -> Sheet:
        """Nobody moves or attacks; what the rules demand (placements, removals) is done the
        documented default way (docs/games/seattle.md)."""
        return planned_default(seat, seat in flow.awaiting(state), lambda: Planner(state, seat).run([]), Pass())

    def resolve(self, state: State, sheets: Mapping[str, Sheet], dice: Dice) -> Resolution:
        stage = state.stage
        if stage == "setup-draw":
            new = flow.setup_draw(state, dice)
        elif stage == "random-event":
            new = flow.begin_turn(state, dice)
        elif stage == "end":
            new = flow.end_phase(state)
        elif stage == "over":
            raise RulesError("the game is over")
        else:
            orders = filed_orders(sheets, flow.awaiting(state), lambda side: self.default_orders(state, side))
            new = flow.play(state, orders, dice)
        events = [Event(stage, {"turn": state.turn})]
        if new.result is not None:
            r = new.result
            events.append(Event("game-over", {"winner": r.winner, "level": r.level,
                                              "demonstrators": r.demonstrators, "authorities": r.authorities}))
        return Resolution(new, tuple(events))

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        return Outcome("win", (r.winner,), r.level, msg("outcome", level=msg(f"victory-{r.level}"),
                                                         dem=r.demonstrators, auth=r.authorities))

    # -- what players see -------------------------------------------------------------------
    def view(self, state: State, viewer: str | None) -> View:
        return build_view(state, viewer)

    def preview(self, state: State, seat: str, orders: Sequence[Any]) -> View:
        """The seat's view during the sealed reinforcements with its own filed placements and
        removals applied (3.2: the other side's stay hidden until the phase resolves)."""
        if state.stage != "reinforcements" or seat not in flow.awaiting(state):
            return build_view(state, seat)
        planner = plan_orders(state, seat, tuple(orders))
        if not planner.ok:
            return build_view(state, seat)
        board = planner.board
        units = tuple(Unit(u, board.types[u], board.loc[u]) for u in board.loc)
        return {**build_view(replace(state, units=units), seat), "preview": True}

    def describe(self, view: View, lang: str) -> str:
        return report.describe(self.catalog, view, lang)

    def render(self, view: View) -> str:
        from pbem.games.seattle.render import render_svg

        return str(render_svg(view, self.catalog))

    def help(self, lang: str) -> str:
        return guide.help_text(self.catalog, lang)

    def template(self, state: State, seat: str, lang: str) -> str:
        return guide.template_text(self.catalog, state, seat, lang)

    def random_orders(self, state: State, seat: str, pick: Chooser) -> str:
        return play.random_text(state, seat, pick)


__all__ = ["SeattleRules", "AUTH", "DEM"]
