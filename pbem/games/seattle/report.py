"""The turn report (``describe``): built from a view only, in English or Italian.

It tells what happened since the last phase the reader answered (the event, the draws, every
move, each combat term by term as in the 6.4 example, morale checks, visibility changes with
their reasons), then the position area by area, the boxes and the indexes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.core.rules import View
from pbem.games.seattle.map import MAP
from pbem.games.seattle.tables import TABLES


def translator(catalog: Catalog, lang: str) -> Callable[..., str]:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)
    return t


def turn_label(t: Callable[..., str], view: Mapping[str, Any], number: int | None = None) -> str:
    n = view["turn"] if number is None else number
    if not n:
        return t("turn-setup")
    turn = TABLES.turn(n)
    return t("turn-label", number=n, date=turn.date, period=t(f"period-{turn.period.key}"))


def _units(units: Sequence[str]) -> str:
    return " ".join(units) if units else "-"


def _loc(t: Callable[..., str], loc: str) -> str:
    if MAP.has_area(loc):
        return t(f"area-{loc}")
    if loc.startswith("track:"):
        return t("loc-track", turn=loc.split(":")[1])
    return t(f"loc-{loc}")


def _side_roll(t: Callable[..., str], r: Mapping[str, Any]) -> str:
    terms = []
    for unit, factor, doublings in r["factors"]:
        terms.append(f"{unit} {factor}" + (f"×{2 ** doublings}" if doublings else ""))
    text = " + ".join(terms) + f" = {sum(f * 2 ** d for _, f, d in r['factors'])}"
    for h in r["halvings"]:
        text += " " + t("report-halved", why=t(f"halving-{h}"))
    if r["halvings"]:
        text += f" = {r['total']}"
    column = TABLES.crt.columns[TABLES.crt.column(r["total"])]
    col = f"{column[0]}+" if column[1] is None else (f"{column[0]}" if column[0] == column[1]
                                                     else f"{column[0]}-{column[1]}")
    result = t(f"result-{r['result']}")
    if r["printed"] != r["result"]:
        result += " " + t("report-x-as-a")
    return t("report-side-roll", side=t(f"side-{r['side']}"), terms=text, roll=r["roll"], column=col,
             code=r["printed"], result=result)


def combat_lines(t: Callable[..., str], c: Mapping[str, Any]) -> list[str]:
    out = [t("report-combat", area=t(f"area-{c['area']}"), side=t(f"side-{c['attack']['side']}"),
             attackers=_units(c["attack"]["units"]), defenders=_units(c["defence"]["units"]))]
    for part in (c["attack"], c["defence"]):
        if part["munitions"]:
            out.append("    " + t("report-munitions", units=_units(part["munitions"])))
        out.append("    " + _side_roll(t, part))
    for what, unit in c["chosen"]:
        out.append("    " + t(f"report-chosen-{what}", unit=unit))
    for m in c["checks"]:
        out.append("    " + t("report-morale-pass" if m["passed"] else "report-morale-fail",
                              unit=m["unit"], roll=m["roll"], morale=m["morale"]))
    if c["removed"]:
        out.append("    " + t("report-removed", units=_units(c["removed"])))
    if c["withdrawn"]:
        out.append("    " + t("report-withdrawn", units=_units(c["withdrawn"])))
    if not c["removed"] and not c["withdrawn"]:
        out.append("    " + t("report-no-losses"))
    return out


def log_lines(t: Callable[..., str], view: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for entry in view["log"]:
        lines: list[str] = []
        if entry["phase"] == "random-event" and view["event"] and view["event"]["turn"] == entry["turn"]:
            ev = view["event"]
            roll = ev["roll"]
            lines.append("  " + t("report-event", tens=roll // 10, units=roll % 10, name=t(f"event-{ev['key']}"),
                           text=t(f"event-{ev['key']}-text")))
            if ev["amount"]:
                lines.append("  " + t("report-event-amount", count=ev["amount"]))
        for purpose, value in entry["rolls"]:
            lines.append("  " + t(f"report-{purpose}", count=value))
        for m in entry["moves"]:
            if m["kind"] in ("withdrawn", "removed") and entry["combats"]:
                continue  # told with the combat
            path = " → ".join(_loc(t, p) for p in m["path"])
            lines.append("  " + t(f"move-{m['kind']}", unit=m["unit"], path=path,
                                  to=_loc(t, m["path"][-1]), origin=_loc(t, m["path"][0])))
        for b in entry["barricades"]:
            lines.append("  " + t("report-barricade-built" if b["built"] else "report-barricade-failed",
                                  unit=b["unit"], area=t(f"area-{b['area']}"), roll=b["roll"]))
        for c in entry["combats"]:
            lines += ["  " + line for line in combat_lines(t, c)]
        for v in entry["visibility"]:
            lines.append("  " + t("report-visibility", side=t(f"side-{v['side']}"), delta=f"{v['delta']:+d}",
                                  why=t(f"vis-{v['reason']}", count=v["count"])))
        for key, arg in entry["notes"]:
            lines.append("  " + t(key, arg=arg, phase=t(f"phase-{arg}") if key == "note-passed" else arg,
                                  area=t(f"area-{arg}") if MAP.has_area(arg) else arg))
        if lines:
            out.append(t("report-phase", phase=t(f"phase-{entry['phase']}"), turn=turn_label(t, view, entry["turn"])))
            out += lines
    return out


def position_lines(t: Callable[..., str], view: Mapping[str, Any]) -> list[str]:
    units = {u["id"]: u for u in view["units"]}

    def show(ids: Sequence[str]) -> str:
        return " ".join(f"{u}({units[u]['combat']}-{units[u]['morale']}-{units[u]['move']})" for u in ids)

    out = [t("report-indexes", dem=view["visibility"]["demonstrators"], auth=view["visibility"]["authorities"],
             rdem=view["reaction"]["demonstrators"], rauth=view["reaction"]["authorities"]),
           t("report-escalation", phase=view["escalation"]) + (" " + t("report-escalation-possible")
                                                                if view["escalation_possible"] else "")]
    ev = view["event"]
    if ev and ev["in_force"]:
        out.append(t("report-event-in-force", name=t(f"event-{ev['key']}")))
    out.append("")
    for a in view["areas"]:
        if not a["units"] and not a["barricade"]:
            continue
        dem = [u for u in a["units"] if units[u]["side"] == "demonstrators"]
        auth = [u for u in a["units"] if units[u]["side"] == "authorities"]
        value = f" [{a['exposure']}]" if a["kind"] == "core" else ""
        barricade = " " + t("report-barricade-here") if a["barricade"] else ""
        out.append(f"  {t('area-' + a['id'])}{value}{barricade}: " + " / ".join(
            part for part in (show(dem), show(auth)) if part))
    boxes = view["boxes"]
    out.append("")
    out.append("  " + t("loc-reserve") + ": " + (show(boxes["reserve"]) or "-"))
    for entry in view["track"]:
        out.append("  " + t("loc-track", turn=entry["turn"]) + ": " + show(entry["units"]))
    counts = []
    for box in ("pile", "away", "festival", "out", "desk"):
        for side in ("demonstrators", "authorities"):
            n = sum(1 for u in boxes[box] if units[u]["side"] == side)
            if n:
                counts.append(t("report-box-count", box=t(f"loc-{box}"), side=t(f"side-{side}"), count=n))
    if counts:
        out.append("  " + "; ".join(counts))
    return out


def describe(catalog: Catalog, view: View, lang: str) -> str:
    t = translator(catalog, lang)
    out = [t("report-title", turn=turn_label(t, view), last=view["last_turn"]), ""]
    happened = log_lines(t, view)
    if happened:
        out += happened + [""]
    out.append(t("section-position"))
    if view.get("preview"):
        out.append(t("report-preview"))
    out += position_lines(t, view)
    if view["outcome"]:
        o = view["outcome"]
        out += ["", t("report-outcome", level=t(f"victory-{o['level']}"), dem=o["demonstrators"],
                      auth=o["authorities"])]
    return "\n".join(out).rstrip() + "\n"
