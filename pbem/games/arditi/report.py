"""The turn report (``describe``): built from a view only, in English or Italian."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.core.i18n import Catalog, Message, msg
from pbem.core.rules import View

#: One letter per seat on the text board (upper case: the committee; lower case: militants).
LETTERS = {"red": "R", "blue": "B", "green": "G", "yellow": "Y", "white": "W", "black": "K"}
PIECE_LETTERS = {"pawn": "P", "bishop": "B", "knight": "N", "rook": "R", "queen": "Q", "king": "K"}


def translator(catalog: Catalog, lang: str) -> Callable[..., str]:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)
    return t


def seat_names(names: Sequence[str]) -> Message | str:
    parts: list[Message] = [msg(f"seat-{s}") for s in names]
    if not parts:
        return "-"
    out: Message = parts[-1]
    if len(parts) > 1:
        out = msg("list-and", a=parts[-2], b=parts[-1])
        for p in reversed(parts[:-2]):
            out = msg("list-comma", a=p, b=out)
    return out


def _squares(values: Sequence[Any]) -> str:
    return ", ".join(str(v) for v in values) if values else "-"


def move_lines(catalog: Catalog, move: Mapping[str, Any], lang: str) -> list[str]:
    """The last move in words: the roll, the path, recruits, clashes, rejoins, new numbers."""
    t = translator(catalog, lang)
    seat = t(f"seat-{move['seat']}")
    out: list[str] = []
    if move["mode"] == "stayed" or not move["actions"]:
        out.append(t("report-stayed", seat=seat, roll=move["roll"], square=move["start"]))
    else:
        out.append(t("report-moved", seat=seat, roll=move["roll"], count=move["points"]))
        path: list[str] = []
        front = current = move["start"]
        for a in move["actions"]:
            if a["kind"] == "along":
                if path:
                    out.append("  " + t("report-march", path=" → ".join([str(front)] + path)))
                    front, path = current, []
                frm, to = a["squares"]
                out.append("  " + t("report-along", count=a["points"], origin=frm, dest=to,
                                    way=t("way-forward" if a.get("forward", True) else "way-back")))
                continue
            if a["kind"] == "step":
                path.append(str(a["squares"][0]))
            else:
                path.append(t("report-jump", over=a["squares"][0], land=a["squares"][1]))
            current = a["squares"][-1]
        if path:
            out.append("  " + t("report-march", path=" → ".join([str(front)] + path)))
    if move["captured"]:
        out.append("  " + t("report-recruited", count=len(move["captured"]), numbers=_squares(move["captured"])))
    if move.get("returned"):
        out.append("  " + t("report-returned", count=move["returned"]))
    for c in move["clashes"]:
        attacked = t(f"seat-{c['attacked']}")
        if c["committee_to"] is None:
            out.append("  " + t("report-clash-held", seat=seat, at=c["attacker_at"], other=attacked, square=c["at"]))
        else:
            out.append("  " + t("report-clash", seat=seat, at=c["attacker_at"], other=attacked, square=c["at"],
                                dest=c["committee_to"], kept=len(c["kept"]) - 1,
                                headless=len(c["headless"]), squares=_squares(c["headless"])))
        for piece in c.get("dismissed", ()):
            out.append("  " + t("report-guard-dismissed", piece=t(f"the-{piece}")))
    for r in move["rejoins"]:
        out.append("  " + t("report-rejoin", seat=t(f"seat-{r['seat']}"), count=len(r["part"]),
                            squares=_squares(r["part"])))
    for d in move["refills"]:
        key = "report-refill-placed" if d["placed"] else "report-refill-waiting"
        out.append("  " + t(key, number=d["number"]))
    return out


def police_lines(catalog: Catalog, police: Mapping[str, Any], lang: str) -> list[str]:
    t = translator(catalog, lang)
    out = [t("report-police", round=police["round"])]
    for piece in police["entered"]:
        out.append("  " + t("report-police-enters", piece=t(f"the-{piece}")))
    for piece in police["left"]:
        out.append("  " + t("report-police-leaves", piece=t(f"the-{piece}")))
    for a in police["acts"]:
        piece = t(f"the-{a['piece']}")
        if a["result"] == "arrest":
            out.append("  " + t("report-police-arrest", piece=piece, number=a["number"],
                                seat=t(f"seat-{a['seat']}")))
            for part in a.get("rejoined", ()):
                out.append("  " + t("report-rejoin", seat=t(f"seat-{a['seat']}"), count=len(part),
                                    squares=_squares(part)))
            for gone in a.get("dismissed", ()):
                out.append("  " + t("report-guard-dismissed", piece=t(f"the-{gone}")))
        elif a["result"] == "block":
            out.append("  " + t("report-police-block", piece=piece, number=a["number"]))
        elif a["result"] == "committee":
            out.append("  " + t("report-police-committee", piece=piece, number=a["number"],
                                seat=t(f"seat-{a['seat']}")))
        elif a["result"] == "held":
            out.append("  " + t("report-police-held", piece=piece, number=a["number"]))
        else:
            out.append("  " + t("report-police-empty", piece=piece))
    return out


def score_table(catalog: Catalog, view: View, lang: str) -> list[str]:
    t = translator(catalog, lang)
    titles = t("score-header").split("|")
    titles += [""] * (7 - len(titles))
    row = "  {0:<10} {1:>9} {2:>9} {3:>9} {4:>9} {5:>7}  {6}"
    out = [row.format(*titles[:7])]
    for p in view["parties"]:
        corteo = " ".join(str(s) for s in p["squares"])
        out.append(row.format(t(f"seat-{p['seat']}"), p["militants"], p["isolated"], p["arrested"],
                              len(p["captured"]), p["score"], corteo))
    return out


def text_board(catalog: Catalog, view: View, lang: str) -> list[str]:
    """The board as 5 rows (rings, outer first) of 18 columns (rays)."""
    rays, rings = int(view.get("rays", 18)), int(view.get("rings", 5))
    cells: dict[int, str] = {n: "  · " for n in range(1, rays * rings + 1)}  # 4 wide, the mark 3rd
    for n in view["numbers"]:
        cells[n] = f"[{n:>2}]"
    for g in view["guards"]:
        if g.get("square"):
            cells[g["square"]] = f" !{PIECE_LETTERS.get(g['piece'], '?')} "
    for p in view["parties"]:
        letter = LETTERS.get(p["seat"], "?")
        for h in p["headless"]:
            for sq in h:
                cells[sq] = f"  {letter.lower()}'"
        for i, sq in enumerate(p["squares"]):
            cells[sq] = f"  {letter if i == p['committee'] else letter.lower()} "
    t = translator(catalog, lang)
    label = t("board-ring")
    width = len(label) + 4
    out = [" " * width + "".join(f"{(r - 1) * rings + 1:>3} " for r in range(1, rays + 1))]
    for ring in range(1, rings + 1):
        row = "".join(cells[(r - 1) * rings + ring] for r in range(1, rays + 1))
        out.append(f"{label} {ring}".ljust(width) + row)
    out.append(t("board-legend"))
    return out


def describe(catalog: Catalog, view: View, lang: str) -> str:
    t = translator(catalog, lang)
    out: list[str] = [t("report-title", round=view["round"], max=view["max_rounds"])]
    last = view.get("last_move")
    setup = view.get("setup")
    if setup and not last:
        homes = ", ".join(f"{t('seat-' + s)} {n}" for s, n in setup["homes"])
        out.append(t("report-setup", homes=homes, numbers=_squares(sorted(setup["indifferent"]))))
    elif view["stage"] == "setup":
        out.append(t("report-before-setup"))
    if last:
        out.append("")
        out.extend(move_lines(catalog, last, lang))
    if view.get("police"):
        out.append("")
        out.extend(police_lines(catalog, view["police"], lang))
    notes: list[str] = []
    if view.get("placed"):
        notes.append(t("report-placed", numbers=_squares(view["placed"])))
    if view.get("waiting"):
        notes.append(t("report-waiting", numbers=_squares(view["waiting"])))
    notes.append(t("report-bag", count=view["bag"]))
    if view.get("guards"):
        where = ", ".join(f"{t('piece-' + g['piece'])} {g['square'] if g.get('square') else '-'}"
                          for g in view["guards"])
        notes.append(t("report-guards", guards=where))
    if view["stage"] == "move" and view.get("to_move"):
        notes.append(t("report-to-move", seat=t(f"seat-{view['to_move']}"), roll=view["roll"]))
    out.append("")
    out.extend(notes)
    outcome = view.get("outcome")
    if outcome:
        out.append("")
        if outcome["result"] == "draw":
            out.append(t(f"outcome-{outcome['reason']}-draw", points=outcome["scores"][0]["points"]))
        else:
            best = max(s["points"] for s in outcome["scores"])
            out.append(catalog.text(msg(f"outcome-{outcome['reason']}", winners=seat_names(outcome["winners"]),
                                        points=best, count=len(outcome["winners"])), lang))
    out.append("")
    out.append(t("report-scores"))
    out.extend(score_table(catalog, view, lang))
    out.append("")
    out.extend(text_board(catalog, view, lang))
    return "\n".join(out) + "\n"
