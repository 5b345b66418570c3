"""Generate ``pbem/games/blockmania/data/blocks.toml``: the four Blocks as cross-section maps
(docs/games/blockmania.md, "The blocks: a reconstruction").

The data file is what the game reads; this script is how the blocks were drawn, and it reproduces the
file exactly. Edit the drawings here (or the file by hand, then stop using the script):

    python scripts/blockmania_blocks.py           # rewrite the data file
    python scripts/blockmania_blocks.py --check   # exit 1 if the file differs from what the script makes
    python scripts/blockmania_blocks.py --show    # print the maps as text

A drawing gives the columns B..I of each level, top first; columns A and J are the half squares
that join the neighbouring maps (the [join] profile). What the script works out itself:
- Open Air squares take the symbol of their level: Tween Block Plaza on the ground, Mega Way,
  Pedway (level 6) and Sky Rail on theirs, plain Open Air elsewhere;
- a Window/Interior square is a Window when it touches Open Air (a side, or the top), else Interior;
- addresses 11..66 go to the residential squares and Entrance Plazas in reading order from the
  ground up, left to right (so the first die says roughly how high, the second how far along).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pbem.games.blockmania.blocks import COLUMN_LETTERS, DICE_ADDRESSES, load_blocks

OUT = Path(__file__).resolve().parent.parent / "pbem" / "games" / "blockmania" / "data" / "blocks.toml"
LEVELS = 12
TRANSIT = {"ground": 1, "megaway": 2, "pedway": 6, "skyrail": 10}
OPEN_ON = {1: "TP", 2: "MW", 6: "PW", 10: "SR"}  # the symbol Open Air squares carry on each transit level

#: Drawing characters: ' ' Open Air, 'r' residential, 'c' Civic, then the special squares.
CHARS = {"r": "RS", "c": "CV", "B": "BK", "A": "AR", "M": "SM", "V": "VP", "b": "BA", "E": "EP",
         "S": "SS", "U": "TW", "P": "PT", "T": "TN"}

# (id, name, shape note, drawing of columns B..I top first, lifts, grav-chutes, fire-control points)
BLOCKS = [
    ("curie", "Marie Curie Block", "a slab: six squares wide from the ground to the Sky Rail at level 10", [
        "        ",  # 12
        "        ",  # 11
        " UrSccU ",  # 10
        " brrrrb ",  # 9
        " rrrcrr ",  # 8
        " rrrrrr ",  # 7
        " PrccrP ",  # 6
        " rrrrrr ",  # 5
        " rrAcrr ",  # 4
        " rcrrBr ",  # 3
        " TcVcrT ",  # 2
        " EMcrcE ",  # 1
    ], [("D", 1, 10), ("G", 1, 9)], [("F", [10, 7, 4])], ["D3", "E6", "F10"]),
    ("keaton", "Buster Keaton Block",
     "a ziggurat: six wide up to the pedways, four wide above, balconies on both steps", [
        "        ",  # 12
        "  rrrr  ",  # 11
        "  USrU  ",  # 10
        "  brrb  ",  # 9
        "  rrrr  ",  # 8
        "  rcrr  ",  # 7
        " PrrcrP ",  # 6
        " rrrrrr ",  # 5
        " brAcrb ",  # 4
        " rrrMrr ",  # 3
        " TrVBrT ",  # 2
        " EcMrrE ",  # 1
    ], [("E", 1, 11), ("H", 1, 6)], [("F", [11, 8, 5]), ("C", [6, 3])], ["F6", "F4", "E7"]),
    ("earhart", "Amelia Earhart Block",
     "twin towers on a seven-level base; the Sky Rail crosses the open air between them", [
        " rr  rr ",  # 12
        " rb  br ",  # 11
        " US  rU ",  # 10
        " rc  cr ",  # 9
        " rr  rr ",  # 8
        " rrccrr ",  # 7
        " PrrcrP ",  # 6
        " rcrrcr ",  # 5
        " rrAMrr ",  # 4
        " rrccrr ",  # 3
        " TcVBcT ",  # 2
        " EcrrcE ",  # 1
    ], [("C", 1, 12), ("H", 1, 12)], [("D", [12, 9]), ("G", [9, 5])], ["D9", "G9", "E3", "D5"]),
    ("houdini", "Harry Houdini Block", "a tower on a three-level podium whose ground floor juts into the plazas; "
     "the pedways cross the podium roof", [
        "  rrrr  ",  # 12
        "  brrb  ",  # 11
        "  USrU  ",  # 10
        "  rrrr  ",  # 9
        "  rrrr  ",  # 8
        "  rrrr  ",  # 7
        "  PrrP  ",  # 6
        "  rrrr  ",  # 5
        "  rArr  ",  # 4
        " bMMrrb ",  # 3
        " TcVBcT ",  # 2
        "EcrrrrcE",  # 1
    ], [("E", 1, 12), ("C", 1, 3)], [("G", [12, 8, 5])], ["D2", "G2", "F10"]),
]

#: The kinds of square: (code, name, types, colour, level, flags, strength, damage, per_block, source, note)
KINDS: list[dict[str, object]] = [
    dict(code="OA", name="Open Air", types=["open"], colour="open", land=True,
         source="1.ii, 6.i, 6.ix", note="outside the block: only fliers enter it (6.i)"),
    dict(code="TP", name="Tween Block Plaza", types=["open"], colour="open", level="ground", walk=True, land=True,
         source="1.ii, 6.i, 6.ix", note="every Open Air square of the ground level (ours); cannot be attacked (ours)"),
    dict(code="MW", name="Mega Way", types=["open"], colour="open", level="megaway", land=True, strength=6,
         damage="megaway", source="1.ii, 6.viii, 9.vii", note="vehicle movement only; Open Air of the Mega Way level"),
    dict(code="PW", name="Pedway", types=["open"], colour="open", level="pedway", walk=True, land=True, strength=6,
         damage="pedway", source="1.ii, 6.i, 6.vii, 9.vi", note="Open Air of level 6, from terminus to terminus"),
    dict(code="SR", name="Sky Rail", types=["open"], colour="open", level="skyrail", land=True, strength=4,
         damage="skyrail", only="Missile Defence Laser", source="1.ii, 6.vi, 9.v",
         note="the armoured track in the open; only a Missile Defence Laser hurts it, one hit collapses it"),
    dict(code="RS", name="Residential", types=["window", "interior"], colour="residential", addressed=True,
         strength=6, damage="block", source="1.ii, 5.ii, 9.i", note="blue, with its address"),
    dict(code="CV", name="Civic", types=["window", "interior"], colour="civic", free=True, strength=6,
         damage="block", per_block=[1], source="1.ii, 6.v, 7.ii, 8.v, 9.i",
         note="green: entering costs no MP; +1 to shoot at a Blocker there"),
    dict(code="BK", name="Bank", types=["window", "interior"], colour="special", loot=True, strength=6,
         damage="block", per_block=[1], source="1.ii, 8.vii, 9.i, 12.iii"),
    dict(code="AR", name="Armoury", types=["window", "interior"], colour="special", loot=True, draw="armoury",
         strength=8, damage="block", per_block=[1], source="1.ii, 6.x, 8.vii, 9.i", note="Strength 8 (9.i)"),
    dict(code="SM", name="Shopping Mall", types=["window", "interior"], colour="special", loot=True,
         draw="hardware", strength=6, damage="block", per_block=[1], source="1.ii, 6.x, 8.vii, 9.i"),
    dict(code="VP", name="Vehicle Park", types=["window", "interior"], colour="special", level="megaway",
         strength=6, damage="block", per_block=[1, 1], source="6.viii, 6.ix, 9.iii",
         note="the only way on and off the Mega Way; one per block (6.ix: 'its Vehicle Park')"),
    dict(code="TN", name="Tunnel", types=["window", "interior"], colour="special", level="megaway",
         strength=6, damage="block", per_block=[2], source="6.viii, 6.ix",
         note="the service road's mouths: the outermost squares of the Mega Way level"),
    dict(code="BA", name="Balcony", types=["window"], colour="special", land=True, takeoff=True,
         strength=6, damage="block", per_block=[1], source="6.ix", note="fliers take off and land here"),
    dict(code="EP", name="Entrance Plaza", types=["window"], colour="special", level="ground", addressed=True,
         takeoff=True, strength=6, damage="block", per_block=[1], source="2, 5.ii, 6.ix",
         note="on the ground, opening on the Tween Block Plaza; carries an address (5.ii)"),
    dict(code="SS", name="Sky Rail station", types=["window", "interior"], colour="special", level="skyrail",
         strength=6, damage="block", per_block=[1, 1], source="6.vi, 6.ix, 9.iii",
         note="one per block (6.ix: 'la stazione'); a square of the block, struck like any other (ours)"),
    dict(code="TW", name="Tubeway", types=["window", "interior"], colour="special", level="skyrail",
         strength=6, damage="block", per_block=[2], source="6.vi, 6.ix",
         note="the Sky Rail's tube into the block: the outermost squares of the Sky Rail level"),
    dict(code="PT", name="Pedway Terminus", types=["window"], colour="special", level="pedway",
         strength=6, damage="block", per_block=[2, 2], source="6.vii",
         note="at level 6, one on each side of the block, facing the next block's across the pedway"),
]

FIRE_SPREAD = {2: "down", 3: "down-left", 4: "left", 5: "up-left", 6: "up", 7: "up", 8: "up",
               9: "up-right", 10: "right", 11: "down-right", 12: "up"}

HEADER = """\
# The Blocks of Block Mania / Mega Mania as cross-section maps (rulebook 1.ii, 5.ii, 6, 8.iv, 9, 10.i).
# The seed (the Italian rulebook) has no maps: see docs/games/blockmania.md, "The blocks: a
# reconstruction", for what is the rulebook's and what is ours. Written by scripts/blockmania_blocks.py
# (which reproduces it exactly); a club owning the original maps can correct this file by hand. The
# loader (pbem/games/blockmania/blocks.py) rejects inconsistent data, naming the block and the square.
#
# A map is a grid of levels (rows; level 1 = the ground level, the lowest of the block, 6.iv) by
# squares (columns A, B, C, ... from the left). A square is named by column and level: "D6". Each
# block's `grid` lists its levels top first, one token per square:
#   o           Open Air (1.ii)                     oTP  Tween Block Plaza   oMW  Mega Way
#   oPW         Pedway (level 6, 6.vii)             oSR  Sky Rail (the armoured track in the open)
#   w34, i34    Window / Interior, residential, address 34 (two dice, tens then units, 5.ii)
#   wEP11       Window, Entrance Plaza, address 11 (5.ii: new Blockers arrive at residential squares
#               and Entrance Plazas)
#   wCV, iCV    Window / Interior, Civic;  wXX, iXX a special square of kind XX (see [[kind]])
# Every block has each address 11..66 exactly once, so a roll of two dice finds one square of the
# player's own block. Columns A and the last one are half squares: with the next map's edge they
# make one square (1.ii), so every map's edges equal the [join] profile, and the maps, set in any
# order, join and wrap around (the last map's right edge meets the first map's left edge).
# Lifts (6.iii): a shaft in `column` serving every level from `levels[0]` to `levels[1]`.
# Grav-chutes (6.iv): the squares of `column` carrying the symbol at `levels`; all drop to the
# ground square of that column. Fire-control points (8.x): the squares with the symbol.
"""


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _open_token(level: int) -> str:
    code = OPEN_ON.get(level)
    return f"o{code}" if code else "o"


def tokens(drawing: list[str]) -> list[list[str]]:
    """The tokens of one block, top level first, columns A..J."""
    assert len(drawing) == LEVELS, drawing
    width = len(drawing[0]) + 2
    chars = {}
    for i, line in enumerate(drawing):
        assert len(line) == width - 2, line
        level = LEVELS - i
        for c, ch in enumerate(" " + line + " "):
            chars[c, level] = ch

    def is_open(c: int, level: int) -> bool:
        if level > LEVELS:
            return True
        if level < 1:
            return False
        return chars[c, level] == " "

    addresses = iter(DICE_ADDRESSES)
    addr: dict[tuple[int, int], int] = {}
    for level in range(1, LEVELS + 1):
        for c in range(width):
            if chars[c, level] in "rE":
                addr[c, level] = next(addresses)
    rest = list(addresses)
    assert not rest, f"{len(rest)} addresses left over"
    out = []
    for i in range(LEVELS):
        level = LEVELS - i
        row = []
        for c in range(width):
            ch = chars[c, level]
            if ch == " ":
                row.append(_open_token(level))
                continue
            window = any(is_open(c + dc, level + dl) for dc, dl in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            t = "w" if window else "i"
            code = CHARS[ch]
            if code == "RS":
                row.append(f"{t}{addr[c, level]:02d}")
            elif code == "EP":
                row.append(f"{t}EP{addr[c, level]:02d}")
            else:
                row.append(f"{t}{code}")
        out.append(row)
    return out


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return _q(str(v))


def render() -> str:
    """The TOML text of the blocks."""
    out = [HEADER, "[map]  # 6.iv ground = the lowest level; 6.vii pedways at the sixth level; the rest ours",
           f"levels = {LEVELS}"]
    out += [f"{k} = {v}" for k, v in TRANSIT.items()]
    join = [_open_token(LEVELS - i) for i in range(LEVELS)]
    out += ["", "[join]  # 1.ii: the half square at each edge of every map, top level first",
            "levels = [" + ", ".join(_q(t) for t in join) + "]", ""]
    out += ["[fire_spread]  # 10.i: where a fourth Fire goes on 2d6 (the seed's diagram read as below)",
            "#   5 | 6 7 8 12 | 9", "#   4 |   Fire   | 10", "#   3 |    2     | 11"]
    out += [f"{k} = {_q(v)}" for k, v in FIRE_SPREAD.items()]
    out.append("")
    order = ["code", "name", "types", "colour", "level", "addressed", "walk", "land", "takeoff", "free", "loot",
             "draw", "strength", "damage", "only", "per_block", "source", "note"]
    for kind in KINDS:
        out.append("[[kind]]")
        out += [f"{k} = {_value(kind[k])}" for k in order if k in kind]
        out.append("")
    for bid, name, note, drawing, lifts, chutes, fire in BLOCKS:
        grid = tokens(drawing)
        width = len(grid[0])
        out += ["[[block]]", f"id = {_q(bid)}", f"name = {_q(name)}", f"note = {_q(note)}", "grid = [",
                "    #" + "".join(f"{COLUMN_LETTERS[c]:<6}" for c in range(width)).rstrip()]
        for i, row in enumerate(grid):
            cells = "".join(f"{t:<6}" for t in row).rstrip()
            out.append(f'    "{cells}",  # {LEVELS - i}')
        out += ["]", "fire_control = [" + ", ".join(_q(f) for f in fire) + "]", ""]
        for col, bottom, top in lifts:
            out += ["[[block.lift]]", f"column = {_q(col)}", f"levels = [{bottom}, {top}]", ""]
        for col, levels in chutes:
            out += ["[[block.chute]]", f"column = {_q(col)}", f"levels = {_value(levels)}", ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)
    text = render()
    data = load_blocks(text)  # the loader's checks
    if args.show:
        for b in data.blocks:
            print(f"{b.name} ({b.id}): {b.note}")
            print("\n".join(b.picture()))
            print()
        return 0
    if args.check:
        same = OUT.exists() and OUT.read_text("utf-8") == text
        print("blocks.toml is up to date" if same else "blocks.toml differs from scripts/blockmania_blocks.py")
        return 0 if same else 1
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
