"""Texts for players: the rules summary (HELP) and the order template (ORDERS)."""

from __future__ import annotations

from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.games.arditi.position import Work
from pbem.games.arditi.state import State
from pbem.games.arditi.tables import NUMBERS, PIECES
from pbem.games.arditi.turn import apply, best_points, options, sequences, to_orders


def _t(catalog: Catalog, lang: str, key: str, **args: Any) -> str:
    return catalog.text(msg(key, **args), lang)


def help_text(catalog: Catalog, lang: str) -> str:
    pieces = ", ".join(_t(catalog, lang, f"piece-{p.name}") for p in PIECES)
    parts = [
        _t(catalog, lang, "help-intro"),
        "",
        _t(catalog, lang, "help-rules", indifferent=NUMBERS.indifferent, threshold=NUMBERS.police_threshold,
           twelve=NUMBERS.winning_length, pieces=pieces, active=NUMBERS.score_active,
           isolated=-NUMBERS.score_isolated, arrested=-NUMBERS.score_arrested, bonus=NUMBERS.score_twelfth,
           jump=NUMBERS.jump_cost),
        "",
        _t(catalog, lang, "help-syntax"),
    ]
    return "\n".join(parts).rstrip() + "\n"


def _examples(state: State, seat: str, limit: int = 5) -> list[str]:
    """A few complete legal moves with the whole roll, recruiting ones first."""
    work = Work(state, seat)
    target = best_points(work)
    if target == 0:
        return []

    from pbem.games.arditi.play import promising_order

    found = sequences(work, target, promising_order(work), limit=40)
    scored = []
    for seq in found:
        trial = work.clone()
        for a in seq:
            apply(trial, a)
        along = sum(1 for a in seq if a[0] == "along")
        scored.append((-len(trial.captured), -len(trial.clashes), along, seq))
    scored.sort(key=lambda s: s[:3])
    out: list[str] = []
    seen_first: set[tuple] = set()
    for *_key, seq in scored:
        if seq[0] in seen_first and len(out) < limit - 1 and len(scored) > limit:
            continue  # variety: different first moves before near-duplicates
        seen_first.add(seq[0])
        text = " / ".join(o.canonical() for o in to_orders(seq))
        if text not in out:
            out.append(text)
        if len(out) >= limit:
            break
    return out


def template_text(catalog: Catalog, state: State, seat: str, lang: str) -> str:
    def t(key: str, **args: Any) -> str:
        return _t(catalog, lang, key, **args)

    out: list[str] = []
    if state.stage == "over":
        return "# " + t("tpl-over") + "\n"
    if state.stage == "setup":
        return "# " + t("tpl-setup") + "\n"
    if state.stage == "police":
        return "# " + t("tpl-police") + "\n"
    if seat != state.to_move:
        return "# " + t("tpl-not-your-turn", seat=t(f"seat-{state.to_move}"), roll=state.roll) + "\n"
    work = Work(state, seat)
    line = work.line
    out.append("# " + t("tpl-turn", round=state.round, seat=t(f"seat-{seat}"), roll=state.roll))
    ahead = work.ahead()
    facing = t("tpl-facing", square=ahead) if ahead is not None else t("tpl-no-facing")
    where = (t("tpl-committee-front") if line.committee == 0
             else t("tpl-committee-at", square=line.committee_square, index=line.committee))
    out.append("# " + t("tpl-corteo", front=line.front, facing=facing, militants=len(line.squares) - 1,
                        squares=" ".join(str(s) for s in line.squares), committee=where))
    if work.rejoins:
        out.append("# " + t("tpl-rejoined", count=len(work.rejoins)))
    firsts = options(work)
    steps = [str(o[1]) for o in firsts if o[0] == "step"]
    jumps = [f"JUMP {o[1]}" for o in firsts if o[0] == "jump"]
    out.append("# " + t("tpl-first", front=line.front, squares=", ".join(steps + jumps) or t("tpl-nowhere")))
    forward, back = work.along_room(True), work.along_room(False)
    if forward or back:
        out.append("# " + t("tpl-along", forward=forward, back=back))
    sides = work.sides[seat]
    if sides.headless:
        parts = "; ".join(f"{h[0]}…{h[-1]}" if len(h) > 1 else str(h[0]) for h in sides.headless)
        out.append("# " + t("tpl-headless", parts=parts))
    best = best_points(work)
    if best == 0:
        out.append("# " + t("tpl-blocked"))
        out.append("STAY")
        return "\n".join(out) + "\n"
    if best < (state.roll or 0):
        out.append("# " + t("tpl-short", best=best, roll=state.roll))
    examples = _examples(state, seat)
    if examples:
        out.append("# " + t("tpl-examples"))
        for text in examples:
            out.append("#   " + text)
    out.append("# " + t("tpl-other"))
    return "\n".join(out) + "\n"
