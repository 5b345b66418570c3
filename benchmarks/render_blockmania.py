"""How long a Block Mania turn map takes: render_svg, svg_to_png, and the total.

Run: ``.venv/bin/python benchmarks/render_blockmania.py [--runs N] [--save DIR]``

Prints median and minimum times (ms) over N runs at 1600 px (the service's ``render.width``) and 800 px
wide, for a mid-game view of four blocks (turn 3: Blockers of every seat, a locked close combat, fires,
damage, a collapse, a fallen block, moves and a shot in the log):

- cold: the first map of a process (and maps drawn right after ``pbem.render.cache.clear()``): the
  static sheet (the four cross-sections, the legend) is built and drawn;
- warm: every later turn, the static sheet's pixels reused from the layer cache;
- the whole document drawn every time (no layer cache), for comparison;

then where a warm render's time goes. The machine is noisy: compare figures of one run, not across runs.
A plain script: no assertions. ``--save DIR`` writes the sample maps there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _timing import render_report  # noqa: E402 (the module beside this script)

from pbem.games.blockmania.render import render_svg  # noqa: E402
from pbem.games.blockmania.view import build_view  # noqa: E402
from pbem.render import cache, raster  # noqa: E402
from tests.games.blockmania.test_view import mid_game  # noqa: E402 (the tests' mid-game position)


def mid_game_view(players: int = 4) -> dict[str, Any]:
    view = dict(build_view(mid_game(players), "red"))
    view["lang"] = "en"
    return view


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--save", type=Path, default=None, help="write the sample PNGs here")
    args = parser.parse_args(argv)
    render_report(render_svg, mid_game_view(), args.runs, args.save, "blockmania")
    return 0


if __name__ == "__main__":
    sys.exit(main())
