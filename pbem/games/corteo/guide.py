"""The street guide of the City, the "Pagine Gialle" (rulebook A, 1d, 12a: "servitevi dell'apposito
Stradario contenuto nelle «Pagine Gialle» della Città"), generated from ``data/city.toml``.

``street_guide(lang)`` is the text mailed for "HELP corteo streets"; docs/games/corteo.md carries the
English one. Headings follow the reader's language; place names and game terms stay Italian.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from pbem.core.i18n import Catalog, msg
from pbem.games.corteo.city import City, Hex, city

CATALOG = Catalog.from_package("pbem.games.corteo.data", "city_guide.toml")

#: First words of a place name that a street guide puts after the proper name ("Billikid, Viale").
GENERIC = ("Via", "Viale", "Vicolo", "Corso", "Piazza", "Piazzale", "Largo", "Bulvar", "Lungozombi",
           "Ponte", "Porta", "Salita", "Discesa", "Scala", "Giardini", "Parco", "Case", "Centro", "Mercato",
           "Galleria", "Clinica", "Sanatorio", "Carcere", "Palazzo", "Recinto")
PARTICLES = ("del", "dei", "degli", "della", "delle", "di", "al", "alle", "il", "le", "Popolari")


def _t(lang: str, key: str, **args: Any) -> str:
    return CATALOG.text(msg(key, **args), lang)


def guide_name(name: str) -> str:
    """The name as a street guide lists it: "Viale Billikid" -> "Billikid, Viale"."""
    words = name.split()
    if len(words) < 2 or words[0] not in GENERIC:
        return name
    i = 1
    while i < len(words) - 1 and words[i] in PARTICLES:
        i += 1
    return f"{' '.join(words[i:])}, {' '.join(words[:i])}"


def sort_key(name: str) -> str:
    """Alphabetical order of the guide name, ignoring case and punctuation."""
    return re.sub(r"[^a-z0-9 ,]", "", guide_name(name).lower())


def runs(hexes: Iterable[Hex]) -> str:
    """Hexes in the given order, runs along a row or a column written ``A11-H11``."""
    seq = list(hexes)
    out: list[str] = []
    i = 0
    while i < len(seq):
        j = i
        step = None
        while j + 1 < len(seq):
            d = (seq[j + 1].row - seq[j].row, seq[j + 1].col - seq[j].col)
            if d not in ((0, 1), (0, -1), (1, 0), (-1, 0)) or (step is not None and d != step):
                break
            step = d
            j += 1
        out.append(seq[i].label if j == i else f"{seq[i].label}-{seq[j].label}")
        i = j + 1
    return " ".join(out)


def _parts(c: City, hexes: Iterable[Hex], lang: str) -> str:
    ps = sorted({c.part(h) for h in hexes}, key=lambda p: (p is None, p or 0))
    return ", ".join(_t(lang, "guide-part", part=p) if p else _t(lang, "guide-river") for p in ps)


def street_guide(lang: str = "en", c: City | None = None) -> str:
    """The whole guide as plain text, sections in a fixed order, entries sorted by name."""
    c = c or city()
    lines = [_t(lang, "guide-title"), "", _t(lang, "guide-intro"), "", _t(lang, "guide-start", square=c.start), ""]

    lines.append(f"== {_t(lang, 'guide-streets')}")
    places: list[tuple[str, str, tuple[Hex, ...]]] = [(s.name, s.kind, s.hexes) for s in c.streets]
    places += [(s.name, "piazza", tuple(sorted(s.hexes))) for s in c.squares]
    places += [(b.name, "ponte", b.hexes) for b in c.bridges]
    for name, kind, hexes in sorted(places, key=lambda p: sort_key(p[0])):
        lines.append(f"  {guide_name(name)} ({kind}; {_parts(c, hexes, lang)}): {runs(hexes)}")

    lines += ["", f"== {_t(lang, 'guide-objectives')}"]
    for cat in c.categories:
        lines.append(f"  {cat.code} — {cat.name} ({cat.tier}, {cat.value}):")
        for o in sorted((o for o in c.objectives if o.category == cat.code), key=lambda o: sort_key(o.address)):
            lines.append(f"    {guide_name(o.address)}: {runs(sorted(o.hexes))}")
    lines.append(f"  {_t(lang, 'guide-org-reaz')}: {runs(sorted(c.org_reaz_hexes))}")
    for s in c.objective_sets:
        lines.append("  " + _t(lang, "guide-total", scenario=s.scenario, total=s.total))

    lines += ["", f"== {_t(lang, 'guide-walls')}"]
    lines.append(f"  {c.mura.name} ({_t(lang, 'guide-sides')}): {len(c.mura.sides)}")
    for g in sorted(c.gates, key=lambda g: sort_key(g.name)):
        lines.append(f"  {guide_name(g.name)}: {g.side.label} ({' - '.join(h.label for h in g.side.hexes)})")
    for w in c.walls:
        lines.append(f"  {guide_name(w.name)} ({_t(lang, 'guide-fence')}): "
                     + " ".join(s.label for s in sorted(w.sides)))
    lines.append(f"  {c.river}: {runs(sorted(c.hexes_of('fiume')))}")
    for b in sorted(c.bridges, key=lambda b: sort_key(b.name)):
        lines.append(f"  {guide_name(b.name)}: {runs(b.hexes)}")

    lines += ["", f"== {_t(lang, 'guide-caserme')}"]
    for cs in c.caserme:
        lines.append(f"  {cs.number} — {cs.address} ({_parts(c, cs.hexes, lang)}): {runs(sorted(cs.hexes))}; "
                     f"{_t(lang, 'guide-exits')} {runs(cs.exits)}")

    lines += ["", f"== {_t(lang, 'guide-metro')}"]
    for st in sorted(c.stations, key=lambda s: sort_key(s.name)):
        lines.append(f"  {guide_name(st.name)} ({st.street}; {_parts(c, st.hexes, lang)}): {runs(st.hexes)}; "
                     f"{_t(lang, 'guide-lines')} {', '.join(st.lines)}")
    for ln in c.metro_lines:
        lines.append(f"  {ln.name}: {' - '.join(ln.stations)}")

    lines += ["", f"== {_t(lang, 'guide-buildings')}"]
    for bd in sorted(c.buildings, key=lambda b: (b.role, sort_key(b.name))):
        lines.append(f"  {bd.role}: {guide_name(bd.name)} ({bd.address}): {runs(sorted(bd.hexes))}")

    lines += ["", f"== {_t(lang, 'guide-areas')}"]
    for a in sorted(c.areas, key=lambda a: (a.kind, sort_key(a.name))):
        lines.append(f"  {a.kind}: {guide_name(a.name)} ({_parts(c, a.hexes, lang)}): {runs(sorted(a.hexes))}")

    lines += ["", f"== {_t(lang, 'guide-edges')}"]
    for edge in ("N", "S"):
        for p in (1, 2, 3):
            hexes = c.edge_hexes(edge, p)
            label = _t(lang, "guide-edge-ns", edge=_t(lang, f"edge-{edge}"), part=p)
            lines.append(f"  {label}: {runs(hexes)}")
    for edge in ("W", "E"):
        lines.append(f"  {_t(lang, 'guide-edge-we', edge=_t(lang, f'edge-{edge}'))}: {runs(c.edge_hexes(edge))}")
    return "\n".join(lines) + "\n"
