"""The map of Block Mania (rulebook 1.ii maps, 1.iii counters, 7.ii face down, 8.vi locked, 9.ii-9.iii damage
and collapse, 10.i fire, 10.iii fallen blocks, 12 defeat points): render views built from states, rasterise
them, decode the PNGs and check what a player sees."""

from __future__ import annotations

import functools
import io
import xml.etree.ElementTree as ET

from PIL import Image

from pbem.games.blockmania import render as br
from pbem.games.blockmania.view import build_view
from pbem.render import cache, png_size, svg_to_png, theme
from tests.games.blockmania.test_view import mid_game

WIDTH = 1600
SCALE = WIDTH / br.WIDTH
SVG_NS = "{http://www.w3.org/2000/svg}"


@functools.lru_cache(maxsize=None)
def document(players: int = 4, viewer: str | None = "red", lang: str = "en") -> str:
    return br.render_svg({**build_view(mid_game(players), viewer), "lang": lang})


@functools.lru_cache(maxsize=None)
def png(players: int = 4, viewer: str | None = "red", lang: str = "en") -> bytes:
    return svg_to_png(document(players, viewer, lang), width=WIDTH)


@functools.lru_cache(maxsize=None)
def picture(players: int = 4, viewer: str | None = "red", lang: str = "en") -> Image.Image:
    image = Image.open(io.BytesIO(png(players, viewer, lang)))
    image.load()
    assert image.format == "PNG"
    return image.convert("RGB")


def layout(players: int = 4) -> br.Layout:
    return br.Layout(tuple(("curie", "keaton", "earhart", "houdini")[:players]))


def cell_box(square: str, players: int = 4, which: int = 0) -> tuple[float, float, float, float]:
    lay = layout(players)
    loc = lay.parse(square)
    assert loc is not None
    x, y = lay.places(loc)[which]
    return x, y, x + br.CELL, y + br.CELL


def count_near(img: Image.Image, box: tuple[float, float, float, float], colour: str, tolerance: int = 30) -> int:
    """Pixels of ``colour`` in ``box`` (user units: x0, y0, x1, y1)."""
    x0, y0, x1, y1 = (round(v * SCALE) for v in box)
    target = theme.rgb(colour)
    return sum(n for n, c in img.crop((x0, y0, x1, y1)).getcolors(1 << 20) or []
               if all(abs(a - b) <= tolerance for a, b in zip(c, target)))


def texts(doc: str) -> str:
    """All text content of the document (the well-formedness check on the way)."""
    root = ET.fromstring(doc)
    assert root.tag == f"{SVG_NS}svg"
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG_NS}text"))


def test_the_png_has_the_service_width_and_the_documents_aspect():
    """1.ii: the maps side by side in ring order, two a row; the PNG keeps the document's proportions."""
    for players in (2, 4):
        doc = document(players)
        root = ET.fromstring(doc)
        height = float(root.get("height") or 0)
        assert png_size(png(players)) == (WIDTH, round(height * SCALE))
    assert float(ET.fromstring(document(4)).get("height") or 0) > float(ET.fromstring(document(2)).get("height") or 0)
    words = texts(document(4))
    for name in ("Marie Curie Block", "Buster Keaton Block", "Amelia Earhart Block", "Harry Houdini Block"):
        assert name in words


def test_squares_in_the_colours_of_1_ii():
    """1.ii: residential squares blue with their address, Civic green, special yellow with their name;
    Open Air sky; the transit levels named."""
    img = picture()
    words = texts(document())
    # curie: D5 is address 32 (Interior, residential), E6 Civic Interior, E4 the Armoury
    assert count_near(img, cell_box("curie:D5"), br.SQUARE_FILL["residential"][1], 8) > 500
    assert count_near(img, cell_box("curie:F6"), br.SQUARE_FILL["civic"][1], 8) > 500
    assert count_near(img, cell_box("curie:A8"), br.SKY, 6) > 1000
    for word in ("32", "66", "Armoury", "Bank", "Civic", "Mega Way", "Pedway", "Sky Rail", "Tween", "Block Plaza"):  # the plaza on two lines
        assert word in words


def test_a_blocker_shows_its_owners_colour_in_its_square():
    """1.iii: a Blocker is a counter in its owner's colour: red-1 in curie:D6, blue-2 in keaton:F8; a
    face-down one (7.ii) is pale; the locked fight in keaton:E5 (8.vi) has a red ring."""
    img = picture()
    red, blue = br.seat_colours("red"), br.seat_colours("blue")
    assert count_near(img, cell_box("curie:D6"), red.main, 12) > 300
    assert count_near(img, cell_box("keaton:F8"), blue.main, 12) > 300
    assert count_near(img, cell_box("curie:D6"), blue.main, 12) < 20
    assert count_near(img, cell_box("curie:E3"), red.light, 12) > 200  # red-2 face down
    assert count_near(img, cell_box("curie:E3"), red.main, 12) < 120
    assert count_near(img, cell_box("keaton:E5"), br.LOCKED, 20) > 30
    words = texts(document())
    assert "JUV" in words and "2-5" in words and "CDF" in words


def test_fire_markers_of_10_i():
    """10.i: a square with Fires shows a flame with their number."""
    img = picture()
    assert count_near(img, cell_box("curie:E4"), br.FIRE, 25) > 40
    assert count_near(img, cell_box("keaton:D4"), br.FIRE, 25) > 40
    assert count_near(img, cell_box("curie:D4"), br.FIRE, 25) == 0
    assert count_near(img, cell_box("curie:E4"), br.HAZARD, 25) > 20  # 9.ii: its Structural Damage


def test_a_collapsed_square_of_9_iii():
    """9.iii: a Collapse is rubble filling the square."""
    img = picture()
    assert count_near(img, cell_box("curie:F5"), br.RUBBLE, 12) > 800
    assert count_near(img, cell_box("curie:D5"), br.RUBBLE, 12) == 0


def test_a_fallen_block_is_greyed():
    """10.iii: a block fallen to catastrophic damage is greyed and marked."""
    img = picture()
    assert count_near(img, cell_box("houdini:E5"), br.FALLEN_GREY, 40) > 1000
    assert count_near(img, cell_box("earhart:E5"), br.FALLEN_GREY, 40) < 200
    assert "FALLEN" in texts(document())


def test_the_panel_shows_defeat_points_cards_and_the_turn():
    """12: each player's defeat points so far, cards in hand, pile; the active player's Command Points; the
    notes of the turn with the moves and shots drawn on the map."""
    view = build_view(mid_game(), "red")
    words = texts(document())
    for seat in view["seats"]:
        assert str(seat["defeat"]) in words
    assert "7 CP" in words and "Command Phase" in words and "Turn 3" in words
    assert "red-1 moves from curie:D5 to curie:D6" in words
    assert "blue-2 shoots at red-1 with the Heavy Laser." in words
    img = picture()
    (ax, ay, _, _), (bx, by, _, _) = cell_box("keaton:F8"), cell_box("curie:D6")
    mx, my = (ax + bx) / 2 + br.CELL / 2, (ay + by) / 2 + br.CELL / 2
    assert count_near(img, (mx - 30, my - 30, mx + 30, my + 30), br.SHOT, 30) > 10  # the shot, half way


def test_hands_and_secret_notes_stay_with_their_owner():
    """3, 11.i: the map of red shows red's hand and the counter it drew; blue's and a spectator's do not."""
    red = texts(document(4, "red"))
    assert "Your hand" in red and "draws a Bat Suit" in red and "1. Block Pride" in red
    for viewer in ("blue", None):
        other = texts(document(4, viewer))
        assert "Bat Suit" not in other and "Block Pride" not in other
    assert "Your hand" in texts(document(4, "blue")) and "Your hand" not in texts(document(4, None))


def test_italian_texts():
    words = texts(document(4, "red", "it"))
    for text in ("Giocatori", "In questo turno", "Legenda", "Fase di Comando", "Turno 3", "tocca a Rosso", "7 PC",
                 "Armeria", "Banca", "Civico", "CROLLATO", "red-1 muove da curie:D5 a curie:D6"):
        assert text in words, text
    assert "Players" not in words


def test_well_formed_and_cached():
    """Every document is well-formed XML; the static sheet is built once per ring and language."""
    for players in (2, 4):
        for lang in ("en", "it"):
            texts(document(players, None, lang))
    view = build_view(mid_game(), "blue")
    br.render_svg(view)
    br.render_svg(view)
    name = next(k for k in cache.stats() if k.endswith("blockmania.render._static_sheet"))
    assert cache.stats()[name].hits >= 1


def test_odd_or_missing_data_still_renders():
    texts(br.render_svg({}))
    odd = {"ring": ["nowhere", 3], "blockers": [{"id": 5, "loc": "curie:Z99"}, {"loc": "curie:D6", "owner": "mauve",
                                                                                "carried": [1, "x"]}],
           "squares": [{"loc": "curie:D99"}, {"loc": "curie:D5", "fires": "a", "damage": 3}], "lang": "xx",
           "log": [{"turn": 0, "notes": [{"key": "note-walk", "args": {"start": "curie:D5", "square": 3}}, "x"]}],
           "seats": [{"name": "red", "hand": [{"number": "x"}]}], "viewer": "red", "result": {"ranking": ["red", 5]}}
    texts(br.render_svg(odd))


def test_every_note_of_the_turn_is_in_words_on_the_map():
    """12.ii: the note that a Justice card is due comes from the engine's texts, not the map's;
    the panel must show it in words (it showed its key, "note-justice-due(seat=red)")."""
    view = build_view(mid_game(), "red")
    view["log"] = [*view["log"], {"turn": view["turn"], "seat": "red", "phase": "command",
                                  "notes": [{"key": "note-justice-due", "args": {"seat": "red"}}]}]
    words = texts(br.render_svg({**view, "lang": "en"}))
    assert "note-justice-due" not in words
    assert "must play a Justice card" in words


def test_marks_and_counters_cover_no_text_in_either_language():
    """Issue 19.7: a square's counts (9.ii damage, 10.i fires, 8.vii loot) go where they cover neither its
    address nor its Blockers' texts, beside a lone counter and among a locked fight's three (8.vi); the
    address under the first of several counters is left out, a lone counter leaves it in sight."""
    from dataclasses import replace

    from pbem.games.blockmania.state import SquareState
    from tests.render.labels import collisions, labels

    state = mid_game()
    crowded = (SquareState("keaton:E5", damage=3, fires=2, looted=True), SquareState("curie:E3", damage=1, fires=1),
               SquareState("curie:D6", damage=2, fires=4, looted=True))
    state = replace(state, squares=state.squares + crowded)
    for lang in ("en", "it"):
        doc = br.render_svg({**build_view(state, "red"), "lang": lang})
        assert collisions(doc) == [], lang
        near = {lab.text for lab in labels(doc) for sq in ("keaton:E5", "curie:E3")
                if cell_box(sq)[0] <= lab.x0 < cell_box(sq)[2] and cell_box(sq)[1] <= lab.y0 < cell_box(sq)[3]}
        assert {"3", "2", "1", "$", "MOB", "16"} <= near  # every count, the lone counter's type and address
        assert "34" not in near  # keaton:E5's address, under its first counter
