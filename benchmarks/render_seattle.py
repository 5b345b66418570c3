"""How long a Battle of Seattle turn map takes: render_svg, svg_to_png, and the total.

Run: ``.venv/bin/python benchmarks/render_seattle.py [--runs N] [--save DIR]``

Prints median and minimum times (ms) over N runs at 1600 px (the service's
``render.width``) and 800 px wide, for a mid-game view (turn 5, 30 counters on
the map, a combat, moves and barricade attempts in the log):

- cold: the first map of a process (and maps drawn right after
  ``pbem.render.cache.clear()``): the static sheet is built and drawn;
- warm: every later turn, the static sheet's pixels reused from the layer cache;
- the whole document drawn every time (no layer cache), for comparison;

then where a warm render's time goes, and the PNG encodings of
``pbem.render.raster.ENCODINGS`` on the same pixels. The machine is noisy:
compare figures of one run, not across runs. A plain script: no assertions.
``--save DIR`` writes the sample maps there.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pbem.games.seattle.board import all_counters
from pbem.games.seattle.render import render_svg
from pbem.games.seattle.state import (
    VERSION,
    BarricadeTry,
    Combat,
    EventInForce,
    MoraleCheck,
    Move,
    PhaseLog,
    SideRoll,
    State,
    track,
)
from pbem.games.seattle.view import build_view
from pbem.render import cache, raster

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import line, render_report, time_it  # noqa: E402 (the module beside this script)

PLACES = {
    "sheraton": ["AN1", "AN2", "AT1", "AT2", "OL3", "PR3", "SPD1", "SPD2", "SPD3"],
    "convention-center": ["AT3", "OL1", "SPD5", "SPD6"],
    "westlake": ["EN1", "EN2"],
    "roosevelt": ["AN3", "OP1"],
    "westin": ["PR1", "OP2"],
    "pike-place-market": ["OL2", "AT6"],
    "union-square": ["EN3", "SPD4"],
    "capitol-hill": ["AT5", "OP3"],
    "first-hill": ["SPD11"],
    "pioneer-square": ["AN4"],
    "kingdome": ["AN5"],
    "federal-building": ["SPD12"],
    "reserve": ["SPD7", "SPD8", "SPD9"],
    "out": ["AT4"],
    track(7): ["WSP1", "WSP2"],
}


def mid_game_view() -> dict[str, Any]:
    """Turn 5, the Authorities' combat phase of 1 December, escalation phase 2."""
    where = {uid: loc for loc, uids in PLACES.items() for uid in uids}
    units = tuple(replace(u, loc=where[u.id]) if u.id in where else u for u in all_counters())
    moves = (
        Move("AT3", ("union-square", "convention-center")),
        Move("OL1", ("union-square", "convention-center")),
        Move("AN3", ("belltown", "westin", "roosevelt")),
        Move("SPD5", ("reserve", "convention-center"), "deploy"),
        Move("SPD6", ("paramount", "convention-center"), "react"),
        Move("AT5", ("pile", "capitol-hill"), "place"),
        Move("AT4", ("convention-center", "out"), "removed"),
    )
    combat = Combat(
        "convention-center",
        SideRoll("authorities", ("SPD5", "SPD6"), (("SPD5", 4, 0), ("SPD6", 4, 0)), (), 8, 6, "X", "X"),
        SideRoll("demonstrators", ("AT3", "OL1"), (("AT3", 2, 0), ("OL1", 1, 0)), (), 3, 5, "MC", "MC"),
        checks=(MoraleCheck("SPD5", 3, 4, True),),
        removed=("AT4",),
    )
    log = (
        PhaseLog(5, "authority-movement", moves=moves),
        PhaseLog(5, "authority-combat", combats=(combat,),
                 barricades=(BarricadeTry("AN4", "pioneer-square", 1, True),)),
    )
    state = State(VERSION, 11, turn=5, stage="demonstrator-movement", units=units, barricades=("pioneer-square",),
                  vis_dem=38, vis_auth=44, escalation=2, event=EventInForce(5, 35, "solidarity-forever"), log=log)
    view = dict(build_view(state, "demonstrators"))
    view["lang"] = "en"
    return view


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--save", type=Path, default=None, help="write the sample PNGs here")
    args = parser.parse_args(argv)
    view = mid_game_view()
    runs = max(1, args.runs)
    svg_text = render_report(render_svg, view, runs, args.save, "seattle")
    image = raster.rasterise(svg_text, 1600)
    hints = raster.document_colours(svg_text)

    print("\nPNG encodings on the same pixels (1600 px), quantising included:")
    for name in raster.ENCODINGS:
        med, best, png = time_it(functools.partial(raster.encode_png, image, name, colours=hints), runs)
        marker = "  <- default" if name == raster.DEFAULT_ENCODING else ""
        line(name, med, best, f"{len(png) / 1024:6.0f} KiB{marker}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
