"""The Corteo rules engine: the `pbem.core.rules.Rules` protocol.

Phases: ``setup`` (both sides place at once, sealed: 3a); then in each of the ten hands
``corteo-movement`` (runs, moves, metro, throws, barricades, the Head), ``corteo-combat``,
``potere-movement`` (reinforcements, moves, throws), ``potere-combat``; a combat phase with
nothing to fight is passed over; the hand closes after the power's turn; ``over`` after the
tenth.  Options: ``mode`` basic/advanced (B, C), the special rules 13a-13d and ``scenario``, one
of section D's scenarios played on the advanced game (`pbem.games.corteo.scenario`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
from pbem.games.corteo import flow, play, report, texts
from pbem.games.corteo.orders import MAX_ITEMS, ORDER_TYPES, Pass, parse_text
from pbem.games.corteo.plan import Planner, plan_items
from pbem.games.corteo.rules import NUMBERS
from pbem.games.corteo.scenario import scenario, scenarios
from pbem.games.corteo.state import CODEC_TYPES, MODES, OPTIONS, RESERVE, SEATS, VERSION, Mobile, State, Unit
from pbem.games.corteo.units import roster
from pbem.games.corteo.view import build_view

_YES = ("yes", "si", "sì", "on", "true", "1")
SCENARIO_KEYS = tuple(scenarios())
_NO = ("no", "off", "false", "0")


class CorteoRules(DataclassStorage):
    """Corteo (Edizioni del No 1979, Mondadori Giochi 1980), see docs/games/corteo.md."""

    #: A state is frozen dataclasses and tuples, never changed in place: `pbem.service.store`
    #: may keep a decoded one for the next mail that reads the same stored text.
    frozen_state = True

    info = GameInfo(
        slug="corteo",
        title="Corteo",
        version=VERSION,
        seats=SEATS,
        min_seats=2,
        max_seats=2,
        options={
            "mode": OptionSpec("advanced", "the advanced game (C) or the basic game (B)", MODES),
            "smoke": OptionSpec("no", "13a: tear-gas smoke", ("yes", "no")),
            "short": OptionSpec("no", "13b: short throws", ("yes", "no")),
            "jams": OptionSpec("no", "13c: traffic jams", ("yes", "no")),
            "national": OptionSpec("no", "13d: a national march (forestieri, Finanza)", ("yes", "no")),
            "scenario": OptionSpec("none", "D: a scenario on the advanced game", ("none",) + SCENARIO_KEYS),
        },
        id_prefix="c",
    )

    def __init__(self) -> None:
        super().__init__(State, CODEC_TYPES, ORDER_TYPES)
        data = "pbem.games.corteo.data"
        self.catalog = (Catalog.from_package(data, "texts.toml")
                        .merged(Catalog.from_package(data, "city_guide.toml"))
                        .merged(Catalog.from_package(data, "scenario_texts.toml")))

    # -- game flow ---------------------------------------------------------------------------------
    def new_game(self, seats: Sequence[str], options: Mapping[str, str]) -> State:
        names = sorted(s.strip().lower() for s in seats)
        if names != sorted(SEATS):
            raise UserError(f"Corteo has two seats: {', '.join(SEATS)} (each may be a team)")
        check_options(self.info, options)
        mode = str(options.get("mode", "advanced")).strip().lower()
        if mode not in MODES:
            raise UserError(f"mode must be advanced or basic, not {mode!r}")
        chosen = []
        for key in OPTIONS:
            value = str(options.get(key, "no")).strip().lower()
            if value not in _YES + _NO:
                raise UserError(f"option {key} is yes or no, not {value!r}")
            if value in _YES:
                chosen.append(key)
        key = str(options.get("scenario", "none")).strip().lower()
        if key in ("", "none", "no"):
            key = ""
        sc = scenario(key)
        if key and sc is None:
            raise UserError(f"scenario must be one of {', '.join(SCENARIO_KEYS)} (or none), not {key!r}")
        if sc is not None and mode != "advanced":
            raise UserError("a scenario is played on the advanced game (D): leave out mode=basic")
        sets = tuple(s for s in sc.sets if s != "base") if sc is not None else ()
        units = tuple(Unit(uid, RESERVE) for uid in roster("national" in chosen, sets))
        if sc is not None and sc.hexes("accused"):
            # D Antirepressivo: "pone 3 unità del Corteo negli esa-marroni del tribunale": on trial, out of play
            trial = dict(zip(sc.hexes("accused"), sc.hexes("trial_hexes")))
            units = tuple(Unit(u.id, trial[u.id], waiting=True) if u.id in trial else u for u in units)
        pieces = tuple(Mobile(pid, "", "reserve") for m in (sc.mobiles if sc is not None else ()) for pid in m.ids())
        return State(VERSION, mode, tuple(chosen), units=units, runs_left=NUMBERS.runs,
                     barricades_left=NUMBERS.barricades, scenario=key, mobiles=pieces)

    def phase(self, state: State) -> Phase:
        return Phase(turn=state.hand, name=state.stage, awaiting=flow.awaiting(state), sealed=state.stage == "setup",
                     label=msg(f"phase-{state.stage}"))

    def parse_orders(self, state: State, seat: str, text: str) -> Sheet:
        return checked_sheet(seat, text, seats=SEATS, awaiting=flow.awaiting(state), phase=msg(f"phase-{state.stage}"),
                             parse=parse_text, plan=lambda items: plan_items(state, seat, items),
                             max_items=MAX_ITEMS, empty=Pass())

    def default_orders(self, state: State, seat: str) -> Sheet:
        """Nobody moves, throws or builds; what the rules demand is done the documented way
        (placements, the Head, reinforcements, the combats every unit in contact must fight)."""
        return planned_default(seat, seat in flow.awaiting(state), lambda: Planner(state, seat).run([]), Pass())

    def resolve(self, state: State, sheets: Mapping[str, Sheet], dice: Dice) -> Resolution:
        if state.stage == "over":
            raise RulesError("the game is over")
        orders = filed_orders(sheets, flow.awaiting(state), lambda side: self.default_orders(state, side))
        new = flow.play(state, orders, dice)
        events = [Event(state.stage, {"hand": state.hand})]
        if new.result is not None:
            r = new.result
            events.append(Event("game-over", {"final": r.final, "level": r.level, "corteo": r.corteo,
                                              "potere": r.potere}))
        return Resolution(new, tuple(events))

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        winner = NUMBERS.winner(r.level)
        if winner is None:
            return Outcome("draw", (), r.level, msg("outcome", level=msg(f"victory-{r.level}"), final=r.final,
                                                      corteo=r.corteo, potere=r.potere))
        return Outcome("win", (winner,), r.level, msg("outcome", level=msg(f"victory-{r.level}"), final=r.final,
                                                        corteo=r.corteo, potere=r.potere))

    # -- what players see ----------------------------------------------------------------------
    def view(self, state: State, viewer: str | None) -> View:
        return build_view(state, viewer)

    def describe(self, view: View, lang: str) -> str:
        return report.describe(self.catalog, view, lang)

    def render(self, view: View) -> str:
        from pbem.games.corteo.render import render_svg

        return str(render_svg(view, self.catalog))

    def help(self, lang: str) -> str:
        return texts.help_text(self.catalog, lang)

    def help_topic(self, topic: str, lang: str) -> str | None:
        """HELP streets / HELP strade: the street guide (the "Pagine Gialle")."""
        return texts.topic(topic, lang)

    def template(self, state: State, seat: str, lang: str) -> str:
        return texts.template_text(self.catalog, state, seat, lang)

    def random_orders(self, state: State, seat: str, pick: Chooser) -> str:
        return play.random_text(state, seat, pick)


__all__ = ["CorteoRules"]
