"""The turn report (``describe``): built from a view only, in English or Italian."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.core.rules import View

#: One letter per unit kind on the ASCII board (North upper case, South lower case).
LETTERS = {"infantry": "I", "cavalry": "C", "artillery": "A", "horse_artillery": "H",
           "relay": "R", "horse_relay": "S"}


def _translator(catalog: Catalog, lang: str) -> Callable[..., str]:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)
    return t


def attack_line(catalog: Catalog, attack: dict[str, Any], lang: str) -> str:
    """"Attack on K15 (infantry): 4 (H12 infantry) + ... = 34 against defence 6 (...) = 28 → captured"."""
    t = _translator(catalog, lang)

    def attacker(c: dict[str, Any]) -> str:
        note = t("term-charge") if c.get("charge") else ""
        return f"{c['value']} ({c['square']} {t('kind-' + c['kind'])}{note})"

    def defender(c: dict[str, Any]) -> str:
        note = ""
        if c.get("terrain_bonus"):
            note = t("term-bonus", bonus=c["terrain_bonus"])
        return f"{c['value']} ({c['square']} {t('kind-' + c['kind'])}{note})"

    att = " + ".join(attacker(c) for c in attack["attackers"]) or "0"
    dfn = " + ".join(defender(c) for c in attack["defenders"]) or "0"
    result = t("result-" + attack["result"])
    if attack.get("retreat_blocked"):
        result = t("result-retreat-blocked")
    return t("report-attack", target=attack["target"], kind=t("kind-" + attack["target_kind"]),
             attackers=att, attack=attack["attack"], defenders=dfn, defence=attack["defence"],
             result=result)


def ascii_board(catalog: Catalog, view: View, lang: str) -> list[str]:
    """A compact board: ``^`` mountain, ``[ ]`` fort, ``( )`` pass, ``{ }`` arsenal."""
    rows, cols = int(view["rows"]), int(view["cols"])
    letters = str(view.get("row_letters") or "ABCDEFGHIJKLMNOPQRST")
    cells: dict[str, list[str]] = {}
    for t in view["terrain"]:
        cells[t["square"]] = {"mountain": ["^", "^", "^"], "fort": ["[", " ", "]"],
                              "pass": ["(", " ", ")"]}[t["kind"]]
    for a in view["arsenals"]:
        cells[a["square"]] = [" ", "x", " "] if a["destroyed"] else ["{", " ", "}"]
    for u in view["units"]:
        cell = cells.setdefault(u["square"], [" ", ".", " "])
        letter = LETTERS.get(u["kind"], "?")
        cell[1] = letter if u["side"] == "north" else letter.lower()
    drawn = {square: "".join(cell) for square, cell in cells.items()}
    out = ["    " + "".join(f"{c:^3}" for c in range(1, cols + 1))]
    for r in range(rows):
        if r == rows // 2:
            out.append("    " + "-" * (3 * cols))
        row = "".join(drawn.get(f"{letters[r]}{c}", " . ") for c in range(1, cols + 1))
        out.append(f" {letters[r]}  {row}")
    out.append(catalog.text(msg("board-legend"), lang))
    return out


def describe(catalog: Catalog, view: View, lang: str) -> str:
    t = _translator(catalog, lang)

    def side(s: str | None) -> str:
        return t(f"side-{s}") if s else "-"

    def kind(k: str) -> str:
        return t(f"kind-{k}")

    out: list[str] = [t("report-title", turn=view["turn"])]
    phase = view["phase"]
    if phase == "deploy":
        out.append(t("report-deploy"))
        if view.get("viewer"):
            out.append(t("report-deploy-you", side=side(view["viewer"])))
        if view.get("preview"):
            out.append(t("report-deploy-filed"))
    elif phase == "move":
        out.append(t("report-to-move", turn=view["turn"], side=side(view["to_move"])))
    if view.get("first_player") and view["turn"] == 1 and view.get("last_turn") is None:
        out.append(t("report-first", roll=view.get("first_roll"), side=side(view["first_player"])))

    last = view.get("last_turn")
    if last:
        out.append("")
        out.append(t("report-last-turn", turn=last["turn"], side=side(last["side"])))
        if not last["moves"]:
            out.append("  " + t("report-no-moves"))
        for m in last["moves"]:
            text = f"  {kind(m['kind'])} {' → '.join(m['path'])}"
            if m.get("forced"):
                text += " " + t("report-forced")
            out.append(text)
        if last.get("arsenal_destroyed"):
            a = last["arsenal_destroyed"]
            out.append("  " + t("report-arsenal-destroyed", square=a["square"], side=side(a["side"])))
        if last.get("attack"):
            out.append("  " + attack_line(catalog, last["attack"], lang))
        for c in last.get("captured", []):
            out.append("  " + t("report-captured", side=side(c["side"]), kind=kind(c["kind"]),
                                square=c["square"]))
        if last.get("draw_offered"):
            out.append("  " + t("report-draw-offered", side=side(last["side"])))

    notes: list[str] = []
    for u in view["units"]:
        if u.get("retreat"):
            notes.append(t("report-retreat-pending", side=side(u["side"]), kind=kind(u["kind"]),
                           square=u["square"]))
    for s in ("north", "south"):
        cut = [f"{u['square']} {kind(u['kind'])}" for u in view["units"]
               if u["side"] == s and not u["connected"]]
        if cut:
            notes.append(t("report-cut-off", side=side(s), units=", ".join(cut)))
    destroyed = [f"{a['square']} ({side(a['side'])})" for a in view["arsenals"] if a["destroyed"]]
    if destroyed:
        notes.append(t("report-arsenals-lost", arsenals=", ".join(destroyed)))
    if view.get("draw_offered_by") and phase == "move":
        notes.append(t("report-draw-pending", side=side(view["draw_offered_by"])))
    if notes:
        out.append("")
        out.extend(notes)

    outcome = view.get("outcome")
    if outcome:
        out.append("")
        winners = outcome["winners"]
        key = (f"outcome-{outcome['reason']}-{winners[0]}" if winners
               else f"outcome-{outcome['reason']}-draw")
        out.append(t(key))
    out.append("")
    out.extend(ascii_board(catalog, view, lang))
    return "\n".join(out) + "\n"
