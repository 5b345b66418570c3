"""Texts for players: the rules summary and syntax (HELP) and the order template (ORDERS)."""

from __future__ import annotations

from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.games.seattle import flow
from pbem.games.seattle.board import Board
from pbem.games.seattle.plan import Planner
from pbem.games.seattle.state import AUTH, DEM, RESERVE, State
from pbem.games.seattle.tables import TABLES


def help_text(catalog: Catalog, lang: str) -> str:
    t = lambda key, **a: catalog.text(msg(key, **a), lang)  # noqa: E731
    return "\n".join([t("help-intro"), "", t("help-sequence"), "", t("help-syntax")]).rstrip() + "\n"


def template_text(catalog: Catalog, state: State, seat: str, lang: str) -> str:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)

    stage = state.stage
    if stage == "over":
        return "# " + t("tpl-over") + "\n"
    if seat not in flow.awaiting(state):
        return "# " + t("tpl-not-yours", phase=t(f"phase-{stage}")) + "\n"
    board = Board(state)
    planner = Planner(state, seat)
    out = ["# " + t("tpl-phase", phase=t(f"phase-{stage}"), turn=state.turn)]
    p = state.pending
    if stage in ("setup", "reinforcements") and seat == DEM and p is not None:
        if p.arrivals:
            out.append("# " + t("tpl-arrivals", units=" ".join(p.arrivals)))
        if p.held:
            out.append("# " + t("tpl-held", units=" ".join(p.held)))
        if p.choose:
            codes = sorted({board.type(u).code for u in planner.choose_candidates()})
            out.append("# " + t("tpl-choose", count=p.choose, codes=" ".join(codes)))
        if p.group_removals:
            out.append("# " + t("tpl-remove-groups", count=p.group_removals))
        if p.attrition:
            out.append("# " + t("tpl-attrition"))
        default = Planner(state, seat).run([])
        out.append("# " + t("tpl-default"))
        out += ["#   " + o.canonical() for o in default.orders]
    elif stage == "reinforcements":
        if p is not None and p.spd_arrivals:
            out.append("# " + t("tpl-spd-arrivals", units=" ".join(p.spd_arrivals)))
        if p is not None and p.spd_removals:
            out.append("# " + t("tpl-spd-removals", count=p.spd_removals))
        if p is not None and p.bureaucracy:
            out.append("# " + t("tpl-bureaucracy"))
        calls = planner.call_candidates()
        out.append("# " + t("tpl-calls", units=" ".join(calls) or "-", cost=-TABLES.rules.emergency_visibility))
    elif stage.endswith("-movement") or stage.endswith("-reaction"):
        limit = TABLES.rules.reaction_move if stage.endswith("-reaction") else None
        if limit:
            out.append("# " + t("tpl-reaction", limit=board.reaction_limit(seat)))
        for u in planner.movable():
            reach = sorted(board.reachable(u, limit))
            out.append("# " + t("tpl-unit-moves", unit=u, area=t(f"area-{board.loc[u]}"), areas=", ".join(reach)))
        if seat == AUTH and board.units(AUTH, RESERVE):
            out.append("# " + t("tpl-pool", units=" ".join(board.units(AUTH, RESERVE))))
        if stage == "demonstrator-movement" and TABLES.escalation_phase(board.escalation).barricades:
            out.append("# " + t("tpl-barricades"))
    elif stage.endswith("-combat"):
        for area in board.contact_areas():
            mine = [u for u in planner.attackers() if board.loc[u] == area]
            if mine:
                out.append("# " + t("tpl-contact", area=t(f"area-{area}"), mine=" ".join(mine),
                                    theirs=" ".join(board.enemies_at(area, seat))))
        if seat == AUTH and TABLES.escalation_phase(board.escalation).special_munitions:
            out.append("# " + t("tpl-munitions"))
    if seat == AUTH and (board.escalation == 1 and state.morale_loss or board.escalation == 2
                         and state.phase2_full_from is not None and state.turn > state.phase2_full_from):
        out.append("# " + t("tpl-escalate", phase=board.escalation + 1))
    out.append("# " + t("tpl-standing"))
    out.append("PASS")
    return "\n".join(out) + "\n"
