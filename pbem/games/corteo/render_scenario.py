"""The map of Corteo, what a scenario adds (D): its square, the hexes in front of the embassy, the
clinics, the mobile objectives (the Corteo Presidenziale as black cars with a gold rim, the rally's
pieces as dark red discs), the POC dissidents waiting (their counters are dashed like every
waiting unit), and in the title bar the scenario with its points so far, hand by hand."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from pbem.core.i18n import Catalog
from pbem.games.corteo.city import Hex
from pbem.games.corteo.render_labels import Placer, text_box
from pbem.games.corteo.render_style import CLINIC_RED, Geo, _fit, _hex, _text
from pbem.render import svg, theme
from pbem.render.svg import Path
from pbem.render.viewdata import as_dicts as _dicts, as_int as _int, as_strs as _strs

PRESIDENTIAL: Final = ("#15151a", "#f2b700")  # body, rim
RALLY: Final = ("#7a0019", "#f4e3c1")  # disc, ring
SQUARE_EDGE: Final = "#7a0019"
STOP_EDGE: Final = "#0b5fa5"
SECRET_EDGE: Final = "#1b8a3a"  # D Sociale: the secret place, in the corteo's view only (view.py)


def draw(geo: Geo, view: Mapping[str, Any], only: frozenset[Hex] | None, detail: bool,
         placer: Placer | None = None) -> tuple[str, str]:
    """What goes under the counters (the places) and over them (the pieces, which share hexes with
    the power's escort); with ``placer`` (the detail) the pieces' boxes are taken, and an id half
    out of its bounds is left out."""
    sc = view.get("scenario")
    if not isinstance(sc, dict):
        return "", ""

    def shown(label: object) -> Hex | None:
        h = _hex(label)
        return h if h is not None and (only is None or h in only) else None

    out: list[str] = []
    r = geo.r
    outline, stops, clinics, secret = Path(), Path(), Path(), Path()
    for label in _strs(sc.get("secret")):
        h = shown(label)
        if h is not None:
            secret.polygon(geo.corners(h, 0.72))
    for label in _strs(sc.get("square_hexes")):
        h = shown(label)
        if h is not None:
            outline.polygon(geo.corners(h, 0.9))
    for label in _strs(sc.get("stop_hexes")):
        h = shown(label)
        if h is not None:
            stops.polygon(geo.corners(h, 0.78))
    for label in _strs(sc.get("clinics")):
        h = shown(label)
        if h is not None:
            cx, cy = geo.centre(h)
            a, b = 0.5 * r, 0.16 * r
            clinics.rect(cx - a, cy - b, 2 * a, 2 * b).rect(cx - b, cy - a, 2 * b, 2 * a)
    out.append(svg.path(outline, fill="none", stroke=SQUARE_EDGE, stroke_width=max(1.0, r * 0.08),
                        stroke_dasharray=f"{r * 0.3:.1f} {r * 0.2:.1f}"))
    out.append(svg.path(stops, fill=STOP_EDGE, fill_opacity=0.18, stroke=STOP_EDGE, stroke_width=max(1.0, r * 0.07)))
    out.append(svg.path(clinics, fill=CLINIC_RED, stroke="#ffffff", stroke_width=max(0.6, r * 0.03)))
    out.append(svg.path(secret, fill=SECRET_EDGE, fill_opacity=0.22, stroke=SECRET_EDGE,
                        stroke_width=max(1.0, r * 0.08), stroke_dasharray=f"{r * 0.2:.1f} {r * 0.15:.1f}"))
    under = "".join(out)
    out = []
    # The pieces: several in one clinic hex are fanned out around it.
    at: dict[str, int] = {}
    cars, rims, discs, rings = Path(), Path(), Path(), Path()
    labels: list[tuple[float, float, str]] = []
    for m in _dicts(sc.get("mobiles")):
        if m.get("status") not in ("map", "clinic"):
            continue
        h = shown(m.get("loc"))
        if h is None:
            continue
        n = at.get(h.label, 0)
        at[h.label] = n + 1
        cx, cy = geo.centre(h)
        if n:
            angle = n * 2 * math.pi / 6
            cx, cy = cx + 0.45 * r * math.cos(angle), cy + 0.45 * r * math.sin(angle)
        if m.get("kind") == "presidenziale":
            w, hh = 0.62 * r, 0.3 * r
            rims.rect(cx - w - 0.06 * r, cy - hh - 0.06 * r, 2 * w + 0.12 * r, 2 * hh + 0.12 * r)
            cars.rect(cx - w, cy - hh, 2 * w, 2 * hh)
        else:
            rings.circle(cx, cy, 0.42 * r)
            discs.circle(cx, cy, 0.34 * r)
        if placer is not None:
            placer.take((cx - 0.7 * r, cy - 0.42 * r, cx + 0.7 * r, cy + 0.42 * r))
        if detail:
            labels.append((cx, cy + 0.12 * r, str(m.get("id"))))
    out.append(svg.path(rims, fill=PRESIDENTIAL[1]))
    out.append(svg.path(cars, fill=PRESIDENTIAL[0]))
    out.append(svg.path(rings, fill=RALLY[1]))
    out.append(svg.path(discs, fill=RALLY[0]))
    size = max(7.0, r * 0.3)
    if placer is not None:
        labels = [lab for lab in labels if placer.shows(text_box(*lab, size, bold=True))]
    if labels:
        out.append(svg.text_run([(x, y, t) for x, y, t in labels], font_size=max(7.0, r * 0.3), bold=True,
                                fill="#ffffff"))
    return under, "".join(out)


def title(view: Mapping[str, Any], catalog: Catalog, lang: str, right: float) -> str:
    """The scenario and its running tally, right-aligned before ``right`` in the title bar."""
    sc = view.get("scenario")
    if not isinstance(sc, dict):
        return ""
    points = sc.get("points") if isinstance(sc.get("points"), dict) else {}
    assert isinstance(points, dict)
    steps = []
    for e in _dicts(sc.get("tally"))[-6:]:
        mark = "C" if e.get("side") == "corteo" else "P"
        steps.append(f"{_int(e.get('hand'))}:+{_int(e.get('points'))}{mark}")
    name = _text(catalog, lang, f"scenario-{sc.get('key')}")
    line = (f"{name} · {_text(catalog, lang, 'panel-scenario')}: {_int(points.get('corteo'))} / "
            f"{_int(points.get('potere'))}" + (f" ({' '.join(steps)})" if steps else
                                               f" ({_text(catalog, lang, 'panel-tally-none')})"))
    return svg.text(right, 38, _fit(line, 13, 760, bold=True), font_size=13, font_weight="bold", fill=theme.INK,
                    text_anchor="end")


__all__ = ["draw", "title"]
