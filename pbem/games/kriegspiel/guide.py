"""Texts for players: the rules summary (HELP) and the order template (ORDERS)."""

from __future__ import annotations

from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.play import opening_text
from pbem.games.kriegspiel.position import Position
from pbem.games.kriegspiel.state import State, other
from pbem.games.kriegspiel.turn import attack_options, legal_destinations
from pbem.games.kriegspiel.units import ARMY, KINDS, NUMBERS, UNITS


def _t(catalog: Catalog, lang: str, key: str, **args: Any) -> str:
    return catalog.text(msg(key, **args), lang)


def unit_table(catalog: Catalog, lang: str) -> list[str]:
    titles = _t(catalog, lang, "help-table-header").split("|")
    titles += [""] * (7 - len(titles))
    row = "  {0:<24} {1:>8} {2:>8} {3:>8} {4:>6} {5:>10}   {6}"
    rows = [row.format(*titles[:7])]
    for kind in KINDS:
        s = UNITS[kind]
        attack = f"{s.attack}/{s.charge}" if s.charge else str(s.attack)
        name = _t(catalog, lang, f"kind-{kind}")
        keyword = s.keyword_it if lang.lower().startswith("it") else s.keyword
        rows.append(row.format(name, ARMY[kind], attack, s.defence, s.range, s.move, keyword))
    return rows


def help_text(catalog: Catalog, lang: str) -> str:
    parts = [
        _t(catalog, lang, "help-intro"),
        "",
        *unit_table(catalog, lang),
        "",
        _t(catalog, lang, "help-rules", moves=NUMBERS.max_moves, fort=NUMBERS.fort_bonus,
           pass_bonus=NUMBERS.pass_bonus),
        "",
        _t(catalog, lang, "help-syntax"),
        "",
        _t(catalog, lang, "help-decisions"),
    ]
    return "\n".join(parts).rstrip() + "\n"


def template_text(catalog: Catalog, state: State, seat: str, lang: str) -> str:
    def t(key: str, **args: Any) -> str:
        return _t(catalog, lang, key, **args)

    def kind(k: str) -> str:
        return t(f"kind-{k}")

    out: list[str] = []
    if state.phase == "over":
        out.append("# " + t("tpl-over"))
        return "\n".join(out) + "\n"
    if state.phase == "deploy":
        first, last = BOARD.territory_rows.get(seat, (0, 0))
        italian = lang.lower().startswith("it")
        army = ", ".join(f"{ARMY[k]} {UNITS[k].keyword_it if italian else UNITS[k].keyword}"
                         for k in KINDS)
        out.append("# " + t("tpl-deploy", first=BOARD.row_letters[first],
                            last=BOARD.row_letters[last], army=army))
        out.append("# " + t("tpl-deploy-example"))
        if seat in BOARD.territory_rows:
            out.extend("# " + line for line in opening_text(seat).splitlines())
        return "\n".join(out) + "\n"
    if seat != state.to_move:
        out.append("# " + t("tpl-not-your-turn", side=t(f"side-{state.to_move}")))
        return "\n".join(out) + "\n"
    pos = Position.of(state)
    enemy = other(seat)
    out.append("# " + t("tpl-turn", turn=state.turn, side=t(f"side-{seat}"),
                        moves=NUMBERS.max_moves))
    if state.draw_offered_by == enemy:
        out.append("# " + t("tpl-draw-offered", side=t(f"side-{enemy}")))
    retreat_sq = pos.find(state.retreat) if state.retreat else None
    if retreat_sq is not None:
        dests = " ".join(BOARD.name(d) for d in sorted(legal_destinations(pos, retreat_sq)))
        out.append("# " + t("tpl-retreat", kind=kind(pos.at[retreat_sq].kind),
                            square=BOARD.name(retreat_sq), squares=dests))
    out.append("# " + t("tpl-units"))
    cut: list[str] = []
    for sq, u in sorted(pos.at.items()):
        if u.side != seat:
            continue
        dests_map = legal_destinations(pos, sq)
        if not UNITS[u.kind].relay and not pos.connected(sq):
            cut.append(f"{BOARD.name(sq)} {kind(u.kind)}")
            continue
        names = []
        for d in sorted(dests_map):
            a = pos.intact_arsenal(d)
            names.append(BOARD.name(d) + ("*" if a is not None and a.side == enemy else ""))
        where = " ".join(names) if names else t("tpl-nowhere")
        out.append(f"#   {BOARD.name(sq):<4} {kind(u.kind)}: {where}")
    if cut:
        out.append("# " + t("tpl-cut-off", units=", ".join(cut)))
    out.append("# " + t("tpl-arsenal-mark"))
    excluded = frozenset({state.retreat}) if state.retreat else frozenset()
    options = attack_options(pos, seat, excluded)
    if options:
        out.append("# " + t("tpl-attacks"))
        for option in options:
            out.append("#   " + t("tpl-attack-line", target=BOARD.name(option.target),
                                  kind=kind(pos.at[option.target].kind), attack=option.attack,
                                  defence=option.defence, result=t("result-" + option.result)))
    else:
        out.append("# " + t("tpl-no-attacks"))
    out.append("# " + t("tpl-syntax"))
    return "\n".join(out) + "\n"
