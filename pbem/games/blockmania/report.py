"""The turn report of Block Mania (``describe``): the mail a seat reads, built from its view only.

The view is the one redaction point (view.py): the report shows what the view holds and nothing else,
so a seat reads its own hand (3, 11.i) and, of the others, only the counts.  What happened is the log of
the last round of the ring (``recent``): the phases resolved since the game last stood at the phase now
played by the seat now active, in an earlier turn (4: the turns follow the ring's order); in the first
round, the whole log.  A note is a
catalog key with string arguments; arguments naming a kind of thing (a result, a cause of death, a card
kind, an attack, a pool, a phase) are translated through ``value-<arg>-<value>`` keys when the catalog
has them, anything else is printed as it is, and an unknown key prints as ``key(args)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.core.i18n import Catalog, msg
from pbem.core.rules import View

Text = Callable[..., str]
#: the stages a seat plays (the log's anchor for one round of the ring)
PLAYED = ("setup", "command", "defensive-fire", "combat", "end")
#: phases the server plays for the whole table (their log names a seat only as the one active)
SERVER = ("setup-draw",)
#: note arguments whose values are words of the rules, translated by ``value-<name>-<value>``
WORD_ARGS = ("result", "cause", "kind", "attack", "pool", "transit", "reason")
COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def translator(catalog: Catalog, lang: str) -> Text:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)
    return t


def word(catalog: Catalog, lang: str, key: str, fallback: str) -> str:
    """The catalog's text for ``key`` or ``fallback``: data words (a phase, a result) never print as keys."""
    if catalog.has(key, lang) or catalog.has(key):
        return catalog.text(msg(key), lang)
    return fallback


def phase_name(catalog: Catalog, lang: str, phase: str) -> str:
    return word(catalog, lang, f"phase-{phase}", phase)


def seat_name(catalog: Catalog, lang: str, seat: str) -> str:
    """A seat as the reader names it ("Rosso", "Red"); its Blockers keep the id (``red-3``) orders use."""
    return word(catalog, lang, f"seat-{seat}", seat)


def note_text(catalog: Catalog, lang: str, key: str, args: Mapping[str, Any]) -> str:
    """One note of the log in ``lang`` (its arguments are strings, 4: the rule modules' notes)."""
    values: dict[str, Any] = {}
    for name, value in args.items():
        text = str(value)
        if name in WORD_ARGS:
            text = word(catalog, lang, f"value-{name}-{text}", text)
        elif name == "attacker":  # a Hazard card's attacker, its English text as in cards.toml
            text = word(catalog, lang, "value-attacker-" + "-".join(re.findall(r"[a-z0-9]+", text.lower())), text)
        elif name == "phase":
            text = phase_name(catalog, lang, text)
        elif name == "seat":
            text = seat_name(catalog, lang, text)
        values[name] = text
    return catalog.text(msg(key, **values), lang)


# -- what happened -----------------------------------------------------------------------------------


def recent(log: Sequence[Mapping[str, Any]], seat: str | None, phase: str, turn: int) -> list[Mapping[str, Any]]:
    """The log of one round of the ring: the entries after the last one of ``seat``'s ``phase`` in an
    earlier turn than ``turn``; with none (the first round, set-up), the whole log (the engine keeps only
    the last rounds)."""
    for i in range(len(log) - 1, -1, -1):
        e = log[i]
        if e["seat"] == seat and e["phase"] == phase and e["turn"] < turn:
            return list(log[i + 1:])
    return list(log)


def _anchor(view: Mapping[str, Any]) -> tuple[str | None, str, int]:
    """(seat, phase, turn) the round is counted back from: the phase being played, or the last logged."""
    log = view["log"]
    if view["stage"] in PLAYED or not log:
        return view.get("active"), view["stage"], view["turn"]
    last = log[-1]
    return last["seat"], last["phase"], last["turn"]


def happened_lines(catalog: Catalog, lang: str, view: Mapping[str, Any]) -> list[str]:
    """Each phase of the last round with its notes (phases whose notes this seat may not read are left out)."""
    t = translator(catalog, lang)
    out: list[str] = []
    for entry in recent(view["log"], *_anchor(view)):
        notes = entry["notes"]
        if not notes:
            continue
        phase = phase_name(catalog, lang, entry["phase"])
        if entry["seat"] and entry["phase"] not in SERVER:
            out.append(t("report-entry", phase=phase, seat=seat_name(catalog, lang, entry["seat"]), turn=entry["turn"]))
        else:
            out.append(t("report-entry-server", phase=phase, turn=entry["turn"]))
        out += ["  " + note_text(catalog, lang, n["key"], n["args"]) for n in notes]
    return out


# -- the position --------------------------------------------------------------------------------------


def square_key(loc: str, ring: Sequence[str]) -> tuple[int, str, int, str]:
    """Ring order, then column, then level: ``curie:D6`` before ``curie:D10`` before ``keaton:A1``."""
    block, _, label = loc.partition(":")
    index = ring.index(block) if block in ring else len(ring)
    level = int(label[1:]) if label[1:].isdigit() else 0
    return index, label[:1], level, loc


def _counter_name(c: Any) -> str:
    """A carried counter: its id when the view gives one, else its type."""
    if isinstance(c, Mapping):
        return str(c.get("id") or c.get("type") or "?")
    return str(c)


def blocker_text(t: Text, b: Mapping[str, Any]) -> str:
    """``red-1 Juves 2-5 [spit-gun, bat-suit] (face down)``: id, type, Strength-Move (1.iii), counters, state."""
    text = f"{b['id']} {b['name']} {b.get('strength') or '?'}-{b.get('move') or '?'}"
    carried = [str(c) for c in b.get("carried_ids") or ()] or [_counter_name(c) for c in b.get("carried", ())]
    if carried:
        text += " [" + ", ".join(carried) + "]"
    marks = [t(f"report-mark-{flag.replace('_', '-')}") for flag in ("face_down", "locked", "activated", "set_up")
             if b.get(flag)]
    if marks:
        text += " (" + ", ".join(marks) + ")"
    return text


def seat_lines(t: Text, view: Mapping[str, Any]) -> list[str]:
    """Every seat's public counts (3, 7.iii, 11.i, 12.iii), marking the active seat and the viewer."""
    out = [t("section-seats")]
    for s in view["seats"]:
        label = t(f"seat-{s['name']}")  # "Rosso (red)": the id its Blockers carry (red-3) beside the name
        label = label if label.casefold() == s["name"].casefold() else f"{label} ({s['name']})"
        line = t("report-seat", seat=label, block=s["block_name"], hand=s["hand_size"], pile=s["pile_size"],
                 on_map=s["on_map"], dead=s["dead"], justice=s["justice"], defeat=s["defeat"])
        marks = [t(key) for key, on in (("report-seat-active", s["name"] == view.get("active")),
                                         ("report-seat-you", s["name"] == view.get("viewer")),
                                         ("report-seat-fallen", s["fallen"])) if on]
        out.append("  " + line + ("" if not marks else " " + " ".join(marks)))
    return out


def table_lines(t: Text, view: Mapping[str, Any]) -> list[str]:
    """The Command Points of the active seat (5.i), the Blocker moving, the cards' counts (3, 10.ii)."""
    out = []
    if view["stage"] in ("command", "defensive-fire", "combat") and view.get("active"):
        out.append(t("report-command-points", seat=t(f"seat-{view['active']}"), points=view["command_points"]))
    moving = view.get("moving")
    if moving:
        out.append(t("report-moving", blocker=moving["blocker"], mp=moving["mp"]))
    out.append(t("report-cards", deck=view["deck"], set_aside=view["set_aside"], discards=view["discards"]))
    return out


def blocker_lines(t: Text, view: Mapping[str, Any]) -> list[str]:
    """Every Blocker on the map, by block in ring order and by square (1.ii, 1.iii)."""
    names = {s["block"]: s["block_name"] for s in view["seats"]}
    ring = list(view["ring"])
    by_block: dict[str, dict[str, list[str]]] = {}
    for b in view["blockers"]:
        block = b["loc"].partition(":")[0]
        by_block.setdefault(block, {}).setdefault(b["loc"], []).append(blocker_text(t, b))
    out = [t("section-blockers")]
    if not by_block:
        out.append("  " + t("report-none"))
    for block in sorted(by_block, key=lambda k: square_key(k + ":", ring)):
        out.append("  " + t("report-block", block=names.get(block, block)))
        for loc in sorted(by_block[block], key=lambda k: square_key(k, ring)):
            out.append(f"    {loc.partition(':')[2]}: " + "; ".join(by_block[block][loc]))
    return out


def square_text(t: Text, catalog: Catalog, lang: str, q: Mapping[str, Any]) -> str:
    """What a square has suffered (8.vii, 8.ix, 9, 10.i)."""
    parts = []
    if q["collapsed"]:
        parts.append(t("report-collapsed"))
    if q["damage"]:
        parts.append(t("report-damage", markers=q["damage"]))
    if q["fires"]:
        parts.append(t("report-fires", fires=q["fires"]))
    if q["looted"]:
        parts.append(t("report-looted"))
    if q["scrawled"]:
        parts.append(t("report-scrawled"))
    if q["transit"]:
        parts.append(word(catalog, lang, f"value-transit-{q['transit']}", q["transit"]))
    return f"{q['loc']}: " + ", ".join(parts)


def map_lines(catalog: Catalog, lang: str, view: Mapping[str, Any]) -> list[str]:
    """Counters lying in squares, damaged squares and fallen blocks (8.vii, 9, 10)."""
    t = translator(catalog, lang)
    ring = list(view["ring"])
    out: list[str] = []
    if view["counters"]:
        out.append(t("section-counters"))
        for c in sorted(view["counters"], key=lambda c: square_key(c["loc"], ring)):
            out.append(f"  {c['loc']}: {c['id']} ({c['type']})")
    squares = [q for q in view["squares"] if any(q[k] for k in ("collapsed", "damage", "fires", "looted",
                                                                  "scrawled", "transit"))]
    if squares:
        out.append(t("section-squares"))
        squares.sort(key=lambda q: square_key(q["loc"], ring))
        out += ["  " + square_text(t, catalog, lang, q) for q in squares]
    if view["fallen"]:
        names = {s["block"]: s["block_name"] for s in view["seats"]}
        out.append(t("report-fallen-blocks", blocks=", ".join(names.get(b, b) for b in view["fallen"])))
    return out


# -- the viewer's own -----------------------------------------------------------------------------------


def card_text(catalog: Catalog, lang: str, card: Mapping[str, Any] | None) -> str:
    """``#12 Sniper (Attack); Justice: Iso-Cubes`` (1.iv: both faces; the number is what orders name)."""
    if not card:
        return "-"
    kind = word(catalog, lang, f"value-kind-{card.get('kind')}", str(card.get("kind") or "?"))
    return catalog.text(msg("report-card", number=card["number"], mania=card.get("mania") or "?", kind=kind,
                            justice=card.get("justice") or "?"), lang)


def own_lines(catalog: Catalog, lang: str, view: Mapping[str, Any]) -> list[str]:
    """The viewer's secret: its hand (11.i), its READY Blockers (3), its standing instructions."""
    t = translator(catalog, lang)
    me = next((s for s in view["seats"] if s["name"] == view.get("viewer")), None)
    if me is None:
        return []
    out: list[str] = []
    if "hand" in me:
        out.append(t("section-hand"))
        out += ["  " + card_text(catalog, lang, c) for c in me["hand"]] or ["  " + t("report-none")]
    if me.get("ready"):
        out.append(t("section-ready"))
        out += ["  " + blocker_text(t, b) for b in me["ready"]]
    standing = me.get("standing")
    if standing:
        out.append(t("section-standing"))
        policy = str(standing.get("defensive_fire", "nearest"))
        out.append("  " + t("report-standing-fire", policy=word(catalog, lang, f"value-fire-{policy}", policy)))
        onoff = "on" if standing.get("intercept_lifts", True) else "off"
        out.append("  " + t("report-standing-intercept", value=t(f"value-{onoff}")))
        kept = [card_text(catalog, lang, c) for c in standing.get("keep") or ()]
        out.append("  " + t("report-standing-keep", cards="; ".join(kept) or t("report-none")))
        discard = standing.get("discard")
        out.append("  " + t("report-standing-discard",
                            card=card_text(catalog, lang, discard) if discard else t("report-discard-drawn")))
    return out


def result_lines(t: Text, view: Mapping[str, Any]) -> list[str]:
    """12.iii-12.iv: the defeat points, the fewest first; equal points share a rank."""
    result = view["result"]
    defeat: Mapping[str, int] = result["defeat"]
    names = {s["name"]: s["block_name"] for s in view["seats"]}
    out = [t("section-result")]
    for seat in result["ranking"]:
        points = defeat.get(seat, 0)
        rank = 1 + sum(1 for other in result["ranking"] if defeat.get(other, 0) < points)
        out.append("  " + t("report-rank", rank=rank, seat=t(f"seat-{seat}"), block=names.get(seat, seat), points=points))
    best = min((defeat.get(s, 0) for s in result["ranking"]), default=None)
    winners = [s for s in result["ranking"] if defeat.get(s, 0) == best]
    if winners:
        out.append(t("report-winner", seats=", ".join(t(f"seat-{s}") for s in winners)))
    return out


# -- the report -------------------------------------------------------------------------------------


def title_lines(catalog: Catalog, lang: str, view: Mapping[str, Any]) -> list[str]:
    """Turn, phase, active seat and its block (4), the Final Phase (12) and who is awaited."""
    t = translator(catalog, lang)
    phase = phase_name(catalog, lang, view["stage"])
    active = view.get("active")
    names = {s["name"]: s["block_name"] for s in view["seats"]}
    if view["stage"] == "over":
        out = [t("report-title-over", turn=view["turn"])]
    elif active:
        out = [t("report-title", turn=view["turn"], phase=phase, seat=t(f"seat-{active}"), block=names.get(active, "?"))]
    else:
        out = [t("report-title-server", turn=view["turn"], phase=phase)]
    if view["final"]:
        out.append(t("report-final"))
    awaiting = view.get("awaiting")
    if awaiting:
        out.append(t("report-awaiting", seats=", ".join(seat_name(catalog, lang, seat) for seat in awaiting)))
    return out


def describe(catalog: Catalog, view: View, lang: str) -> str:
    """The whole report: title, the last round's log, the public position, the viewer's own, the result."""
    t = translator(catalog, lang)
    out = title_lines(catalog, lang, view) + [""]
    happened = happened_lines(catalog, lang, view)
    out += [t("section-happened")] + (happened or ["  " + t("report-nothing")]) + [""]
    out += [t("section-position")] + seat_lines(t, view) + table_lines(t, view) + blocker_lines(t, view)
    out += map_lines(catalog, lang, view)
    own = own_lines(catalog, lang, view)
    if own:
        out += [""] + own
    if view["result"]:
        out += [""] + result_lines(t, view)
    return "\n".join(out).rstrip() + "\n"


__all__ = ["describe", "happened_lines", "note_text", "recent", "translator"]
