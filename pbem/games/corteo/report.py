"""The turn report (``describe``): built from a view only, in Italian or English."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.core.rules import View


def translator(catalog: Catalog, lang: str) -> Callable[..., str]:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)
    return t


def log_lines(t: Callable[..., str], view: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for entry in view["log"]:
        lines: list[str] = []
        for s in entry["steps"]:
            lines.append("  " + t(f"step-{s['kind']}", unit=s["unit"], path=" → ".join(s["path"]),
                                  to=s["path"][-1], origin=s["path"][0]))
        for th in entry["throws"]:
            lines.append("  " + t("report-throw", units=" ".join(th["units"]), origin=th["origin"], target=th["target"],
                                  strength=th["strength"], against=th["against"], odds=th["odds"], roll=th["roll"],
                                  result=t(f"result-{th['result']}"), code=th["result"]))
            if th["short"]:
                lines.append("    " + t("report-short", hit=th["hit"]))
        for f in entry["fights"]:
            lines.append("  " + t("report-fight", attackers=" ".join(f["attackers"]), defenders=" ".join(f["defenders"]),
                                  attack=f["attack"], defence=f["defence"], odds=f["odds"], roll=f["roll"],
                                  code=f["result"], result=t(f"result-{f['result']}")))
            if f["arrested"]:
                lines.append("    " + t("report-arrested", units=" ".join(f["arrested"])))
            if f["panicked"]:
                lines.append("    " + t("report-power-panic", units=" ".join(f["panicked"])))
            if f["advanced"]:
                lines.append("    " + t("report-advanced", units=" ".join(f["advanced"])))
        for n in entry["notes"]:
            args = dict(n["args"])
            if "phase" in args:
                args["phase"] = t(f"phase-{args['phase']}")
            if n["key"] == "note-tally-cross":
                args["what"] = t(f"line-{args.get('what', '')}")
            lines.append("  " + t(n["key"], **args))
        if lines:
            out.append(t("report-phase", phase=t(f"phase-{entry['phase']}"), hand=entry["hand"]))
            out += lines
    return out


def position_lines(t: Callable[..., str], view: Mapping[str, Any]) -> list[str]:
    units = view["units"]
    out = [t("report-score", corteo=view["score"]["corteo"], potere=view["score"]["potere"],
             runs=view["runs_left"], barricades=view["barricades_left"]),
           t("report-head", component=view["head_component"] or "-", heads=" ".join(view["heads"]) or "-")]
    for side in ("corteo", "potere"):
        by_hex: dict[str, list[str]] = {}
        for u in units:
            if u["side"] != side or not (u["loc"][:1].isalpha() and u["loc"][1:].isdigit()):
                continue
            mark = "*" if u["head"] else ""
            flag = " " + t("report-panicked") if u["panicked"] else ""
            by_hex.setdefault(u["loc"], []).append(f"{u['id']}{mark}({u['speed']}-{u['power']}){flag}")
        out.append("")
        out.append(t(f"report-side-{side}"))
        for h in sorted(by_hex, key=lambda x: (x[0], int(x[1:]))):
            out.append(f"  {h}: " + " ".join(by_hex[h]))
    if view["prison"]:
        out.append(t("report-prison", units=" ".join(view["prison"])))
    offmap = [u for u in units if u["off"]]
    if offmap:
        out.append(t("report-offmap", units=" ".join(f"{u['id']}→{u['off']['edge']}{u['off']['part']}@{u['off']['back']}"
                                                     for u in offmap)))
    pieces = []
    if view["barricades"]:
        pieces.append(t("report-barricades", hexes=" ".join(b["hex"] for b in view["barricades"])))
    if view["jams"]:
        pieces.append(t("report-jams", hexes=" ".join(view["jams"])))
    if view["smoke"]:
        pieces.append(t("report-smoke", hexes=" ".join(s["hex"] for s in view["smoke"])))
    if view["covered"]:
        pieces.append(t("report-covered", hexes=" ".join(view["covered"])))
    if view["held"]:
        pieces.append(t("report-held", hexes=" ".join(view["held"])))
    out += pieces
    out += scenario_lines(t, view)
    return out


def scenario_lines(t: Callable[..., str], view: Mapping[str, Any]) -> list[str]:
    """D: the scenario, its points so far hand by hand, its mobile objectives and dissidents."""
    sc = view.get("scenario")
    if not sc:
        return []
    out = ["", t("report-scenario", name=t(f"scenario-{sc['key']}"), categories=", ".join(sc["categories"])),
           t("report-tally", corteo=sc["points"]["corteo"], potere=sc["points"]["potere"])]
    for e in sc["tally"]:
        what = t(f"line-{e['what']}") if e["key"] == "cross" else e["what"]
        out.append(t("report-tally-line", hand=e["hand"], side=e["side"], points=e["points"],
                     why=t(f"tally-{e['key']}", what=what)))
    kinds: dict[str, list[str]] = {}
    for m in sc["mobiles"]:
        kinds.setdefault(m["kind"], []).append(t(f"report-mobile-{m['status']}", piece=m["id"], hex=m["loc"]))
    for kind, pieces in kinds.items():
        out.append(t("report-mobiles", name=t(f"mobile-{kind}"), pieces="; ".join(pieces)))
    facts = set(sc["facts"])
    if sc["stop_hexes"]:
        out.append(t("report-stop", hexes=" ".join(sc["stop_hexes"]),
                     state=t("report-stop-void" if "stop-void" in facts else "report-stop-open")))
        lines = [t(f"line-{x}") for x in ("mura", "fiume", "est") if f"crossed-{x}" in facts]
        out.append(t("report-lines", lines=", ".join(lines) or "-"))
    if sc.get("accused"):
        out.append(t("report-accused", units=" ".join(sc["accused"])))
    for side, row in (sc.get("factions") or {}).items():  # D Antirepressivo: "una tabella separata" (ours)
        out.append(t("report-faction", faction=t(f"faction-{side}"), objectives=row["objectives"], freed=row["freed"],
                     arrested=row["arrested"], total=row["objectives"] + row["freed"] - row["arrested"]))
    if sc["key"] == "sociale":
        out.append(t("report-formed", state=t("report-formed-yes" if sc.get("formed") else "report-formed-no")))
        if sc.get("secret"):  # D Sociale: only in the corteo's view until revealed (view.py)
            out.append(t("report-secret", hexes=" ".join(sc["secret"])))
    if sc["key"] == "antifascista":
        out.append(t("report-rally", square=sc["square"],
                     state=t("report-rally-over" if facts & {"rally-dissolved", "rally-over"} else "report-rally-on")))
        waiting = [u["id"] for u in view["units"] if u.get("dissident") and u["waiting"]]
        if waiting:
            out.append(t("report-dissidents", units=" ".join(waiting)))
    return out


def describe(catalog: Catalog, view: View, lang: str) -> str:
    t = translator(catalog, lang)
    mode = t(f"mode-{view['mode']}")
    if view.get("scenario"):
        mode += ", " + t(f"scenario-{view['scenario']['key']}")
    out = [t("report-title", hand=view["hand"], mode=mode), ""]
    happened = log_lines(t, view)
    if happened:
        out += happened + [""]
    out.append(t("section-position"))
    out += position_lines(t, view)
    if view["outcome"]:
        o = view["outcome"]
        out += ["", t("report-outcome", level=t(f"victory-{o['level']}"), final=o["final"], corteo=o["corteo"],
                      potere=o["potere"]), t(f"verdict-{o['verdict']}")]
    return "\n".join(out).rstrip() + "\n"
