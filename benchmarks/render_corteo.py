"""How long a Corteo map takes: render_svg, svg_to_png, and the total.

Run: ``.venv/bin/python benchmarks/render_corteo.py [--runs N] [--save DIR]``

Prints median and minimum times (ms) over N runs at 1600 px (the service's
``render.width``) and 800 px wide, for a mid-game view (hand 4: the Corteo on
Piazza Fontana, 63 counters on the map, two fights, two throws, an arrest,
barricades, a jam, smoke, a covered objective) and for the same view with the
ZOCs hatched (``MAP ZOC``):

- cold: the first map of a process (and maps drawn right after
  ``pbem.render.cache.clear()``): the static City is built and drawn;
- warm: the City's and the detail ground's pixels reused from the layer cache
  (every further map of the same phase: the other seat's, the archive's);
- new window: the City cached, the detail's ground drawn (the first map of a
  phase whose action moved elsewhere);
- the whole document drawn every time (no layer cache), for comparison;

then the PNG encodings of ``pbem.render.raster.ENCODINGS`` on the same pixels.
The machine is noisy: compare figures of one run, not across runs. A plain
script: no assertions. ``--save DIR`` writes the sample maps there.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.games.corteo import render as cr
from pbem.games.corteo.city import load_city
from pbem.games.corteo.render import render_svg
from pbem.games.corteo.state import VERSION, Barricade, Fight, PhaseLog, Smoke, State, Step, Throw, Unit
from pbem.games.corteo.units import roster
from pbem.games.corteo.view import build_view
from pbem.render import cache, raster

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import first_map, line, time_it, whole_document  # noqa: E402 (the module beside this script)

PLACES = {"MOV1": "M18", "MOV2": "M18", "MOV3": "M19", "MOV4": "M19", "MOV5": "N18", "AUT1": "L18",
          "AUT2": "N19", "AUT3": "M17", "ML1": "N17", "ML2": "M16", "GRU1": "M15", "GRU2": "M14",
          "LC1": "prison", "FEM1": "prison", "RAD1": "off:S2:6", "CE1": "K20", "CE2": "L20", "CA1": "N20",
          "LA1": "M22", "BL1": "O20", "CE3": "K19", "PI1": "K18"}


def units() -> dict[str, Unit]:
    """The set-up of C 3a, then the hand-4 places of PLACES."""
    city = load_city()
    r = roster(False)
    mento = [h.label for h in city.square("Piazza Mento").hexes]
    where = {uid: mento[i % len(mento)] for i, uid in enumerate(u for u in r if r[u].side == "corteo")}
    where.update(zip([u for u in r if u.startswith("PI")], (o.hexes[0].label for o in city.objectives)))
    where.update(zip([u for u in r if u.startswith("VI")], ["D9", "G6", "D12", "M13", "V12"]))
    slots = [h.label for c in city.caserme for h in c.hexes for _ in range(2)]
    where.update(zip([u for u in r if u.startswith("CE")] + [f"CA{i}" for i in range(1, 6)], slots))
    where.update(PLACES)
    return {u: Unit(u, where.get(u, "reserve"), presidio=u.startswith("PI")) for u in r}


def mid_game_view(show_zoc: bool = False) -> dict[str, Any]:
    """Hand 4, the power's combat phase."""
    steps = (Step("MOV1", ("M13", "M14", "M15", "M16", "M17", "M18")), Step("AUT1", ("M16", "L17", "L18")),
             Step("CE2", ("L19", "L20"), "retreat"), Step("LC1", ("N19", "prison"), "arrest"),
             Step("RAD1", ("Z13", "off:S2:6"), "offmap"))
    throws = (Throw(("AUT2",), "N19", "N21", "N21", ("LA1",), "6", "6", "1-1", 4, "R1"),
              Throw(("LA1",), "M22", "M19", "M20", (), "6", "8", "1-1", 2, "NE", short=True))
    fights = (Fight(("MOV1", "MOV2"), ("CE2",), "12+22", "4", "5-1", 5, "DR", losers=("CE2",)),
              Fight(("CA1",), ("AUT2", "LC1"), "4", "6", "1-2", 6, "AP", losers=("CA1",), arrested=("LC1",)))
    log = (PhaseLog(4, "corteo-move", steps=steps[:2], throws=throws[:1]),
           PhaseLog(4, "corteo-combat", steps=steps[2:3], fights=fights[:1]),
           PhaseLog(4, "potere-combat", steps=steps[3:], throws=throws[1:], fights=fights[1:]))
    state = State(VERSION, "advanced", options=("smoke", "jams"), hand=4, stage="potere-combat",
                  units=tuple(units().values()), barricades=(Barricade("M21", 3), Barricade("L21", 4)),
                  barricades_left=8, jams=("P11",), smoke=(Smoke("M23", "hand"),), covered=("K17",),
                  held=("L16",), points=5, runs_left=3, running=True, head_component="MOV",
                  heads=("MOV1", "MOV2"), log=log)
    view = dict(build_view(state, "corteo"))
    view["lang"] = "en"
    view["show_zoc"] = show_zoc
    return view



def total(view: dict[str, Any], width: int) -> bytes:
    """What a turn mail costs: the SVG and its PNG."""
    return raster.svg_to_png(render_svg(view), width)


def whole(view: dict[str, Any], width: int) -> bytes:
    """The same map with the whole document drawn every time (no layer cache)."""
    return whole_document(render_svg(view), width)


def forget_detail_ground() -> None:
    """Drop the cached pixels of the detail's ground, keep the City's (a phase whose action moved)."""
    city = cr._static_city("en")
    for key in list(raster.STATIC_LAYERS._data):  # the benchmark may peek
        if city not in key[0]:
            del raster.STATIC_LAYERS._data[key]
    raster.STATIC_LAYERS._bytes = sum(size for _v, size in raster.STATIC_LAYERS._data.values())



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--save", type=Path, default=None, help="write the sample PNGs here")
    args = parser.parse_args(argv)
    runs = max(1, args.runs)
    cold_runs = max(3, runs // 2)
    view = mid_game_view()

    svg_text = first_map(render_svg, view)

    for width in (1600, 800):
        print(f"\n{width} px:")
        med, best, _ = time_it(functools.partial(total, view, width), cold_runs, before=cache.clear)
        line("cold total (after cache.clear())", med, best)
        total(view, width)
        med, best, _ = time_it(functools.partial(total, view, width), cold_runs, before=forget_detail_ground)
        line("new window (City cached, detail ground drawn)", med, best)
        new_t: list[float] = []
        old_t: list[float] = []
        for _ in range(runs):
            a = time.perf_counter()
            png = total(view, width)
            b = time.perf_counter()
            whole(view, width)
            c = time.perf_counter()
            new_t.append((b - a) * 1000)
            old_t.append((c - b) * 1000)
        w, h = raster.png_size(png)
        line("warm total (render_svg + svg_to_png)", statistics.median(new_t), min(new_t),
             f"PNG {len(png) / 1024:.0f} KiB, {w} x {h}")
        line("whole document every time", statistics.median(old_t), min(old_t))
        med, best, svg_text = time_it(lambda: render_svg(view), runs)
        line("  of which render_svg (cached static parts)", med, best)
        med, best, _ = time_it(functools.partial(raster.svg_to_png, svg_text, width), runs)
        line("  of which svg_to_png", med, best)
        zoc = mid_game_view(show_zoc=True)
        total(zoc, width)
        med, best, zpng = time_it(functools.partial(total, zoc, width), runs)
        line("warm total with the ZOCs hatched (MAP ZOC)", med, best)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"corteo-{width}.png").write_bytes(png)
            (args.save / f"corteo-zoc-{width}.png").write_bytes(zpng)

    print("\nwhere a warm 1600 px render goes:")
    med, best, image = time_it(lambda: raster.rasterise(svg_text, 1600), runs)
    line("draw: cached layers + dynamic part", med, best, f"({image.width} x {image.height})")
    med, best, _ = time_it(lambda: raster.rasterise(svg_text, 1600, layers=False), runs)
    line("draw: the whole document (no layer cache)", med, best)
    hints = raster.document_colours(svg_text)
    info = raster.STATIC_LAYERS.cache_info()
    print(f"  layer cache: {info.currsize} layers, {raster.STATIC_LAYERS.nbytes / 2**20:.1f} MiB,"
          f" {info.hits} hits, {info.misses} misses")

    print("\nPNG encodings on the same pixels (1600 px), quantising included:")
    for name in raster.ENCODINGS:
        med, best, png = time_it(functools.partial(raster.encode_png, image, name, colours=hints), runs)
        marker = "  <- default" if name == raster.DEFAULT_ENCODING else ""
        line(name, med, best, f"{len(png) / 1024:6.0f} KiB{marker}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
