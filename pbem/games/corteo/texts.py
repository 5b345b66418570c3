"""Texts for players: the rules summary and syntax (HELP), the street guide (HELP streets) and
the order template (ORDERS)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from pbem.core.i18n import Catalog, msg
from pbem.games.corteo import flow, guide, mobiles, plan_scenario
from pbem.games.corteo.board import city
from pbem.games.corteo.city import Hex
from pbem.games.corteo.plan import Planner, reinforcement_due
from pbem.games.corteo.scenario import Scenario, scenario
from pbem.games.corteo.state import CORTEO, POTERE, RESERVE, State

TOPICS = {"streets": "streets", "strade": "streets", "stradario": "streets", "pagine": "streets",
          "guide": "streets", "guida": "streets"}


def help_text(catalog: Catalog, lang: str) -> str:
    def t(key: str) -> str:
        return catalog.text(msg(key), lang)

    return "\n".join([t("help-intro"), "", t("help-sequence"), "", t("help-syntax")]).rstrip() + "\n"


def topic(name: str, lang: str) -> str | None:
    if TOPICS.get(name.strip().lower()) == "streets":
        return guide.street_guide(lang)
    return None


def template_text(catalog: Catalog, state: State, seat: str, lang: str) -> str:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)

    stage = state.stage
    if stage == "over":
        return "# " + t("tpl-over") + "\n"
    if seat not in flow.awaiting(state):
        return "# " + t("tpl-not-yours", phase=t(f"phase-{stage}")) + "\n"
    p = Planner(state, seat)
    b = p.board
    out = ["# " + t("tpl-phase", phase=t(f"phase-{stage}"), hand=state.hand)]
    sc = scenario(state.scenario)
    if stage == "setup":
        if sc is None or not sc.numbers.get("deploy"):  # D Sociale: its own set-up lines instead
            out.append("# " + t(f"tpl-setup-{seat}", place=city().start))
        if sc is not None:
            out += ["# " + line for line in _scenario_setup(t, sc, p, seat)]
    elif stage.endswith("-movement"):
        if seat == CORTEO:
            out.append("# " + t("tpl-runs", left=state.runs_left) if state.hand > 1 else "# " + t("tpl-no-run"))
            if state.held:
                out.append("# " + t("tpl-held", hexes=" ".join(state.held)))
            out.append("# " + t("tpl-head", component=state.head_component or "-", heads=" ".join(state.heads) or "-"))
        else:
            due = reinforcement_due(state)
            if due is not None:
                reserve = " ".join(u for u in b.ids(POTERE) if b.loc(u) == RESERVE)
                what = str(due) if isinstance(due, int) else ", ".join(f"{n} {k}" for k, n in due.items())
                out.append("# " + t("tpl-reinforcements", due=what, units=reserve))
        if sc is not None:
            out += ["# " + line for line in _scenario_movement(t, sc, p, seat)]
        enterable: dict[str, dict[Hex, int]] = {}  # by unit kind: may_enter depends on the side and kind
        for uid in b.map_units(seat):
            if not b.active(uid):
                continue
            reach = b.reachable(uid, p.budget(uid), enterable.setdefault(b.type(uid).kind, {}))
            where = b.hex(uid)
            far = sorted(reach, key=lambda h: (-len(reach[h]), h.row, h.col))  # the farthest first
            sample = " ".join(h.label for h in far[:16])
            out.append("# " + t("tpl-unit", unit=b.label(uid), hex=where.label if where else "-", count=len(reach),
                                hexes=sample + (" ..." if len(reach) > 16 else "")))
    elif stage.endswith("-combat"):
        default = Planner(state, seat).run([])
        out.append("# " + t("tpl-combats"))
        out += ["#   " + o.canonical() for o in default.orders]
    out.append("# " + t("tpl-standing"))
    out.append("PASS")
    return "\n".join(out) + "\n"


def _scenario_setup(t: Callable[..., str], sc: Scenario, p: Planner, seat: str) -> list[str]:
    """D: the scenario, its Head, the dissidents to place (corteo) or the mobile objectives (power)."""
    b = p.board
    out = [t("tpl-setup-scenario", name=t(f"scenario-{sc.key}"), heads=" / ".join(sc.heads))]
    if seat == CORTEO:
        poc = [u for u in b.ids(CORTEO) if b.counter(u).set == "poc"]
        if poc:
            out.append(t("tpl-setup-dissidents", units=" ".join(poc)))
        if sc.numbers.get("deploy"):  # D Sociale: the split deployment and the secret place
            out += [t("tpl-deploy"), t("tpl-secret")]
    else:
        service = ", ".join(f"{r.count} {r.kind} ({t(f'where-setup-{r.where}', square=sc.square)})" for r in sc.setup)
        out.append(t("tpl-setup-all" if sc.flag("all_at_start") else "tpl-setup-service", service=service))
        pieces = list(b.mobiles)
        if pieces:
            out.append(t("tpl-setup-mobiles", square=sc.square, first=pieces[0], pieces=" ".join(pieces)))
    return out


def _scenario_movement(t: Callable[..., str], sc: Scenario, p: Planner, seat: str) -> list[str]:
    """D: the scenario's own orders of this phase: moving the mobile objectives (power), activating
    the dissidents (corteo)."""
    b = p.board
    out: list[str] = []
    accused = [u for u in sc.hexes("accused") if b.units[u].waiting and b.loc(u) in sc.hexes("trial_hexes")]
    if accused:
        out.append(t("tpl-accused-potere", units=" ".join(accused)) if seat == POTERE else
                   t("tpl-accused-corteo", units=" ".join(accused), hexes=" ".join(sc.hexes("court_hexes")),
                     square=sc.square))
    if seat == CORTEO:
        homeward = [u for u in b.map_units(CORTEO) if plan_scenario.weak(p, u)]
        if homeward:  # D Sociale: the weak units going home
            out.append(t("tpl-going-home", units=" ".join(homeward)))
        waiting = [u for u in b.ids(CORTEO) if b.counter(u).set == "poc" and b.units[u].waiting]
        if waiting:
            out.append(t("tpl-dissidents", component=p.state.head_component or "-",
                         units=" ".join(f"{u}@{b.loc(u)}" for u in waiting)))
        return out
    on_map = [pid for pid in b.mobiles if b.mobile_hex(pid) is not None]
    if not on_map:
        return out
    out.append(t("tpl-mobiles", first=on_map[0], pieces=" ".join(on_map)))
    if "escort" in sc.numbers:
        out.append(t("tpl-escort", need=sc.number("escort"), reach=sc.number("escort_reach"),
                     hexes=" ".join(sc.hexes("stop_hexes"))))
    if "rally_until" in sc.numbers:
        out.append(t("tpl-rally", square=sc.square, hand=sc.number("rally_until")))
        if p.state.hand < sc.number("rally_until"):
            return out  # the rally's pieces may not move yet
    for pid in on_map:
        mk = sc.mobile(pid)
        h = b.mobile_hex(pid)
        assert mk is not None and h is not None
        reach = mobiles.reach(b, sc, pid, Fraction(mk.speed))
        far = sorted(reach, key=lambda x: (-len(reach[x]), x.row, x.col))
        out.append(t("tpl-mobile", piece=pid, hex=h.label, speed=mk.speed, count=len(reach),
                     hexes=" ".join(x.label for x in far[:10]) + (" ..." if len(reach) > 10 else "")))
    return out
