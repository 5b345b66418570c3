"""The map: render views, rasterise them, decode the PNGs and check pixels."""

import io
import math
import re
import time

from PIL import Image

from pbem.games.arditi import RULES
from pbem.games.arditi import render as ar
from pbem.render import cache, svg_to_png, theme

from .helpers import corteo, play, position

WIDTH = 1600
SCALE = WIDTH / ar.WIDTH


def picture(view: dict) -> Image.Image:
    return Image.open(io.BytesIO(svg_to_png(RULES.render(view), width=WIDTH))).convert("RGB")


def at(img: Image.Image, point: tuple[float, float], dx: float = 0, dy: float = 0) -> tuple[int, int, int]:
    return img.getpixel((round((point[0] + dx) * SCALE), round((point[1] + dy) * SCALE)))


def near(a: tuple[int, int, int], colour: str, tolerance: int = 40) -> bool:
    b = theme.rgb(colour)
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def mostly(img: Image.Image, point: tuple[float, float], colour: str, radius: float = 8,
           tolerance: int = 40) -> bool:
    """Most of 8 pixels around ``point`` are ``colour`` (a path line may cross the middle)."""
    hits = 0
    for k in range(8):
        a = k * 0.785
        hits += near(at(img, point, dx=radius * math.cos(a), dy=radius * math.sin(a)), colour, tolerance)
    return hits >= 5


def scene():
    state = position({"red": corteo(22, 17, 12), "blue": corteo(33, 28, 23, 18, 13, committee=2),
                      "white": corteo(70, 75)}, numbers=[47, 80], roll=3, guards=[("pawn", 55)],
                      headless={"blue": [[66, 67]]}, waiting=[41])
    return play(state, "PATH 27 32 37")


def test_snakes_police_chips_and_the_path_are_drawn():
    state = scene()
    img = picture({**RULES.view(state, "red"), "lang": "en"})
    assert img.size == (WIDTH, round(ar.HEIGHT * SCALE))
    red = ar.colours("red").main
    for sq in (32, 27):  # militants: a disc of the party's colour
        assert mostly(img, ar.centre(sq), red), sq
    assert mostly(img, ar.centre(37), red, radius=13)  # the committee disc (the letter is in the middle)
    blue = ar.colours("blue")
    assert mostly(img, ar.centre(28), blue.main)
    assert near(at(img, ar.centre(66), dx=-8), blue.light, 30)  # a headless militant: pale
    assert near(at(img, ar.centre(55), dx=-11, dy=-6), ar.POLICE)  # the pawn's disc
    assert near(at(img, ar.centre(47), dx=-11), ar.CHIP_FILL, 20)  # an indifferent
    # The path of the last move starts on 22, where red's tail has left: the dashed ring and line.
    x0, y0 = ar.centre(22)
    x1, y1 = ar.centre(27)
    samples = [at(img, (x0 + (x1 - x0) * t / 20, y0 + (y1 - y0) * t / 20)) for t in range(3, 12)]
    assert any(near(p, theme.INK, 60) for p in samples)
    white = ar.colours("white").main
    assert near(at(img, ar.centre(75)), white, 12)  # white militants are white, with a dark outline


def test_labels_follow_the_view_language():
    state = scene()
    en = RULES.render({**RULES.view(state, None), "lang": "en"})
    it = RULES.render({**RULES.view(state, None), "lang": "it"})
    assert "round 3" in en and "Blue to move" in en and "waiting" in en
    assert "mano 3" in it and "muove Blu" in it and "in attesa" in it


def test_the_map_is_light_and_fast():
    state = scene()
    view = {**RULES.view(state, None), "lang": "en"}
    RULES.render(view)
    start = time.perf_counter()
    doc = RULES.render(view)
    elapsed = time.perf_counter() - start
    assert doc.count("<") < 220
    assert elapsed < 0.25
    stats = cache.stats()
    name = next(k for k in stats if k.endswith("arditi.render._static_board"))
    assert stats[name].hits >= 1


def test_a_view_with_missing_or_odd_data_still_renders():
    assert "<svg" in ar.render_svg({})
    odd = {"parties": [{"seat": "red", "squares": [0, 91, "x", 5], "committee": 7, "headless": [[200]]}],
           "guards": [{"piece": "pawn", "square": None}], "numbers": [1, 500], "last_move": {"path": [5, 10]},
           "lang": "xx"}
    assert "<svg" in ar.render_svg(odd)


def test_the_final_map_marks_the_winner():
    state = position({"red": corteo(22, 17), "blue": corteo(60)}, to_move="blue", roll=1, round=40)
    over = play(state, "STAY")
    doc = RULES.render({**RULES.view(over, None), "lang": "en"})
    assert "Game over" in doc and "winner" in doc


def test_a_move_across_the_edge_is_labelled_at_both_ends():
    # rules.toml [board]: ring 1 links to the opposite ray across the edge of the "sphere"; the
    # move's dashed path leaves by a stub at each end, each labelled with the square beyond.
    state = position({"red": corteo(46), "blue": corteo(33)}, roll=2)
    view = {**RULES.view(state, "red"), "lang": "en"}
    plain = RULES.render(view)
    assert "↔46" not in plain and "↔1" not in plain
    moved = RULES.render({**view, "last_move": {"seat": "red", "path": [6, 1, 46], "clashes": []}})
    runs = [t for t in re.findall(r">([^<]*)</text>", moved) if "↔" in t]
    assert runs and "↔46" in runs[0] and "↔1" in runs[0].replace("↔46", "")


def test_the_start_map_is_not_an_empty_board_with_an_empty_bag():
    # rulebook "Preparazione": before the set-up's draws all 90 numbers are in the bag
    state = RULES.new_game(["red", "blue", "green"], {})
    view = RULES.view(state, None)
    assert view["stage"] == "setup" and view["bag"] == 90
    text = " ".join(re.findall(r">([^<]*)</text>", RULES.render({**view, "lang": "en"})))
    assert "bag: 90" in text and "bag: 0" not in text
    assert "Next, drawn from the bag:" in text and "Red, Blue, Green" in text
    testo = " ".join(re.findall(r">([^<]*)</text>", RULES.render({**view, "lang": "it"})))
    assert "Ora si estraggono:" in testo and "Rosso, Blu, Verde" in testo
