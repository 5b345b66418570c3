"""Texts for players: the rules summary and syntax (HELP), the street guide (HELP streets) and
the order template (ORDERS)."""

from __future__ import annotations

from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.games.corteo import flow, guide
from pbem.games.corteo.board import city
from pbem.games.corteo.plan import Planner, reinforcement_due
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
    if stage == "setup":
        out.append("# " + t(f"tpl-setup-{seat}", place=city().start))
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
        for uid in b.map_units(seat):
            if not b.active(uid):
                continue
            reach = b.reachable(uid, p.budget(uid))
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
