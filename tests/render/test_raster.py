"""The one rasteriser: real PNGs, decoded with Pillow and checked."""

from __future__ import annotations

import importlib
import io
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pbem.errors import RenderError
from pbem.render import plainpath, png_size, raster, svg_to_png
from pbem.render.raster import ENCODINGS, document_colours, encode_png, rasterise

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">'
    '<rect x="0" y="0" width="100" height="100" fill="#d55e00"/>'
    '<rect x="100" y="0" width="100" height="100" fill="#0b6fb8"/>'
    '<text x="10" y="50" font-size="20" font-family="DejaVu Sans" fill="#fff">Nord &amp; Sud</text>'
    "</svg>"
)


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image.convert("RGB")


def close(a: object, b: object, tol: int = 6) -> bool:
    assert isinstance(a, tuple) and isinstance(b, tuple)
    return all(abs(x - y) <= tol for x, y in zip(a, b))


@pytest.mark.parametrize("width", [400, 801, 1600])
def test_png_has_the_requested_width_and_the_aspect_ratio(width: int) -> None:
    png = svg_to_png(SVG, width)
    image = decode(png)
    assert image.size == (width, round(width / 2))
    assert png_size(png) == image.size
    assert close(image.getpixel((width // 4, width // 8)), (0xD5, 0x5E, 0x00))
    assert close(image.getpixel((3 * width // 4, width // 8)), (0x0B, 0x6F, 0xB8))


def test_default_width_is_the_svg_size() -> None:
    assert decode(svg_to_png(SVG)).size == (200, 100)


def test_text_is_drawn() -> None:
    image = decode(svg_to_png(SVG, 800))
    box = image.crop((40, 120, 380, 220))
    white = sum(box.convert("L").histogram()[216:])
    assert white > 200


def test_transparent_areas_become_white() -> None:
    doc = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="10" fill="#000"/></svg>'
    image = decode(svg_to_png(doc, 100))
    assert close(image.getpixel((90, 50)), (255, 255, 255))
    assert close(image.getpixel((10, 50)), (0, 0, 0))


def test_rasterise_keeps_alpha_without_a_background() -> None:
    doc = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="10" fill="#f00" fill-opacity="0.5"/></svg>'
    image = rasterise(doc, 10, background=None)
    assert image.mode == "RGBA"
    transparent, half = image.getpixel((8, 5)), image.getpixel((2, 5))
    assert isinstance(transparent, tuple) and isinstance(half, tuple)
    assert transparent[3] == 0
    r, g, _b, a = half
    assert 120 <= a <= 135 and r > 240 and g < 10  # straight (not premultiplied) colour


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_every_encoding_gives_the_same_picture(encoding: str) -> None:
    reference = rasterise(SVG, 400)
    image = decode(encode_png(reference, encoding))
    assert image.size == reference.size
    for xy in [(50, 50), (350, 50), (199, 10), (300, 190)]:
        assert close(image.getpixel(xy), reference.getpixel(xy), 8)


@pytest.mark.parametrize("width", [150, 801])  # the whole image as the palette's sample, and a sample
@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_svg_to_png_is_the_encoding_of_the_rasterised_image(width: int, encoding: str) -> None:
    # svg_to_png reads the surface's pixels where they lie; the bytes are those of the public path.
    doc = SVG.replace("</svg>", '<circle cx="150" cy="60" r="30" fill="#f0b429" fill-opacity="0.6"/></svg>')
    expected = encode_png(rasterise(doc, width), encoding, colours=document_colours(doc))
    assert svg_to_png(doc, width, encoding=encoding) == expected


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "   ",
        "<svg",
        "not xml at all",
        "<svg xmlns='http://www.w3.org/2000/svg'><rect></svg>",
        "<html><body/></html>",
        '<svg xmlns="http://www.w3.org/2000/svg"/>',  # no size
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "boom">]><svg xmlns="http://www.w3.org/2000/svg" width="5" height="5">&x;</svg>',
    ],
)
def test_bad_svg_raises_render_error(bad: str) -> None:
    with pytest.raises(RenderError) as info:
        svg_to_png(bad, 100)
    assert str(info.value)


@pytest.mark.parametrize("width", [0, -5, 10**6, 12.5, True])
def test_bad_width_raises_render_error(width: object) -> None:
    with pytest.raises(RenderError):
        svg_to_png(SVG, width)  # type: ignore[arg-type]


def test_unknown_encoding() -> None:
    with pytest.raises(RenderError, match="unknown PNG encoding"):
        encode_png(rasterise(SVG, 10), "jpeg")


def test_png_size_refuses_non_png() -> None:
    with pytest.raises(RenderError):
        png_size(b"GIF89a" + b"\0" * 40)


def test_reentrant_across_threads() -> None:
    docs = [SVG.replace("#d55e00", colour) for colour in ("#d55e00", "#009e73", "#8a4f9e", "#c79a00")]
    expected = [svg_to_png(doc, 300) for doc in docs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda doc: svg_to_png(doc, 300), docs * 3))
    assert results == expected * 3


PATHS = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="10 5 300 200">'
    '<rect x="10" y="5" width="300" height="200" fill="#f7f4ec"/>'
    '<path d="M20,20h40v40h-40z M80,20H120V60H80Z" fill="#b9dcf4" stroke="#0b6fb8" stroke-width="2.4"/>'
    '<path d="M20,80L60,120 M60,80l-40,40" fill="none" stroke="#d55e00" stroke-opacity="0.38" stroke-width="6"'
    ' stroke-linecap="round"/>'
    '<path d="M80,80C80,100 100,120 120,120c10,0 20,-10 20,-20z" fill="#f0b429" fill-opacity="0.5"'
    ' stroke="#3a3833" stroke-dasharray="5 3" stroke-dashoffset="2"/>'
    '<path d="M150,20 Q170,60 150,100 q-10,20 0,40 L190,180 z" fill="#009e73" fill-rule="evenodd"'
    ' stroke="#1a1a1a" stroke-width="3.5" stroke-linejoin="round" stroke-miterlimit="2"/>'
    '<g stroke-linecap="square" stroke="#8a4f9e" stroke-width="4">'
    '<path d="M200,20 L260,20 M200,40 v30 h30"/><path d="M200,90 l40,10" stroke-linejoin="bevel" fill="none"/></g>'
    '<path d="M220,120h30v30h-30z" shape-rendering="crispEdges" fill="#0b6fb8"/>'
    '<path d="M150,110 q20,10 5,30 Q140,150 150,160 h10 V130 H175 v10 z" fill="none" stroke="#0b6fb8"'
    ' stroke-width="2"/>'
    '<path d="M265,120 L280,150 L295,120" fill="none" stroke="#1a1a1a" stroke-width="5" stroke-miterlimit="1.5"/>'
    # left to cairosvg: a transform, an opacity, an arc, an exponent, a unit, a gradient
    '<path d="M20,150h30v30h-30z" transform="rotate(10 35 165)" fill="#d55e00"/>'
    '<path d="M60,150h30v30h-30z" opacity="0.5" fill="#0b6fb8"/>'
    '<path d="M100,150 a15,15 0 1,0 30,0" fill="none" stroke="#1a1a1a"/>'
    '<path d="M140,150h3e1v30h-30z" fill="#009e73"/>'
    '<path d="M180,150h30v30h-30z" fill="none" stroke="#d55e00" stroke-width="2px"/>'
    '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#000"/>'
    '</linearGradient></defs><path d="M260,150h30v30h-30z" fill="url(#g)"/>'
    "</svg>"
)


@pytest.mark.parametrize("width", [None, 137, 900])
def test_plain_paths_drawn_directly_give_cairosvgs_pixels(width: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    direct = rasterise(PATHS, width, layers=False)
    monkeypatch.setattr(raster, "FAST_PATHS", False)
    by_cairosvg = rasterise(PATHS, width, layers=False)
    assert direct.tobytes() == by_cairosvg.tobytes()


def test_plain_path_commands() -> None:
    assert plainpath.commands("M1,2h3 v-4.5Z m1-2") == [
        ("M", [1.0, 2.0]), ("h", [3.0]), ("v", [-4.5]), ("Z", []), ("m", [1.0, -2.0])
    ]
    # anything else is left to cairosvg
    for d in ("", "L1 2", "M1 2 3 4", "M1 2 L3", "M1e5 2", "M1.5.5 2", "M1 2 A1 1 0 0 1 3 4", "M1\x0c2", "M1 2 #"):
        assert plainpath.commands(d) is None, d


def _compressors() -> list[object]:
    found: list[object] = [zlib.compress]
    if raster.HAVE_ISAL:
        found.append(raster._isal_compress(1))
    return found


@pytest.mark.parametrize("compress", _compressors())
def test_own_palette_png_writer_gives_the_pixels_and_palette_back(compress: object) -> None:
    image = raster._quantise(rasterise(SVG, 801), ENCODINGS["pal-z3"], document_colours(SVG))
    png = raster._write_palette_png(image, compress)  # type: ignore[arg-type]
    decoded = Image.open(io.BytesIO(png))
    decoded.load()
    assert decoded.format == "PNG" and decoded.mode == "P"
    assert png_size(png) == decoded.size == image.size
    assert decoded.tobytes() == image.tobytes()
    assert decoded.getpalette() == image.getpalette()


def test_the_default_encoding_is_a_palette_png_of_isal_if_installed() -> None:
    assert raster.DEFAULT_ENCODING == ("pal-isal1" if raster.HAVE_ISAL else "pal-z3")
    assert ENCODINGS[raster.DEFAULT_ENCODING].palette


TEXTS = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="160" viewBox="0 0 300 160"'
    ' font-family="DejaVu Sans, Verdana, sans-serif">'
    '<rect width="300" height="160" fill="#f7f4ec"/>'
    '<text x="10" y="20" font-size="16" fill="#2b2a27">turn 8 · South to move</text>'
    '<text x="290" y="40" font-size="13" fill="#6b675e" text-anchor="end">map of South</text>'
    '<text x="150" y="60" font-size="14" font-weight="bold" fill="#2b2a27" text-anchor="middle">'
    "34 : 28  captured</text>"
    '<text x="20 45 70 95" y="80 82 84 86" font-size="11.5" font-weight="bold" fill="#083a63"'
    ' fill-opacity="0.7">4 5 6</text>'
    '<text x="20 45 70" y="100 100 100" font-size="11.5" font-weight="bold" fill="#ffffff" stroke="#ffffff"'
    ' stroke-width="3.5" stroke-linejoin="round">688</text>'
    '<text x="20 45 70" y="100 100 100" font-size="11.5" font-weight="bold" fill="#6e2a00">688</text>'
    '<text x="150" y="120" font-size="12pt" font-style="italic" fill="#0b6fb8" text-rendering="geometricPrecision">'
    'Nord &amp; Sud</text>'
    '<g font-size="10" fill="#d55e00"><text x="200" y="140" stroke="none">inherited</text></g>'
    # left to cairosvg: a transform, letter spacing, a visible stroke (above), a tspan
    '<text x="250" y="150" font-size="10" transform="rotate(-20 250 150)">rotated</text>'
    '<text x="10" y="150" font-size="10" letter-spacing="2">spaced</text>'
    '<text x="100" y="150" font-size="10">a <tspan fill="#0b6fb8">span</tspan></text>'
    "</svg>"
)


@pytest.mark.parametrize("width", [None, 217, 900])
def test_unstroked_texts_drawn_directly_give_cairosvgs_pixels(
    width: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[bool] = []
    draw_text = plainpath.draw_text

    def counted(*args: object) -> bool:
        drawn.append(draw_text(*args))
        return drawn[-1]

    monkeypatch.setattr(plainpath, "draw_text", counted)
    direct = rasterise(TEXTS, width, layers=False)
    assert drawn.count(True) == 8 and drawn.count(False) == 3  # the halo too, since texts are laid out here
    monkeypatch.setattr(raster, "FAST_PATHS", False)
    by_cairosvg = rasterise(TEXTS, width, layers=False)
    assert direct.tobytes() == by_cairosvg.tobytes()


_FAMILIES = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono", "Liberation Sans", "serif", "sans-serif",
             "'Nosuch Font', DejaVu Sans")
_STYLES = ("", ' font-weight="bold"', ' font-style="italic"', ' font-weight="700" font-style="oblique"',
           ' font-weight="500"')
_WORDS = ("Città è più già perché né così", "AV To Wa rn ff fi Tè ŷ", "turn 8 · South to move",
          "Ωμέγα — ½ “quote” 12:34", "Nord &amp; Sud", "e\u0301 a\u0300 ☂ 東京 \U0001d400")
_SIZES = ("7", "9.5", "11", "13.3", "16", "12pt", "1.1em", "21px")


def _many_texts() -> str:
    """Texts of every family, anchor, style and size above, unstroked and as halos
    (a wide round-joined stroke under the same text), plus per-letter x/y lists."""
    items, y = [], 14.0
    for fi, family in enumerate(_FAMILIES):
        for ai, anchor in enumerate(("start", "middle", "end")):
            for si, style in enumerate(_STYLES):
                size = _SIZES[(fi + ai + si) % len(_SIZES)]
                word = _WORDS[(fi * 3 + ai + si) % len(_WORDS)]
                x = {"start": 5, "middle": 200.3, "end": 395.7}[anchor]
                common = f'x="{x}" y="{y:.2f}" font-family="{family}" font-size="{size}" text-anchor="{anchor}"{style}'
                if (fi + si) % 3 == 0:  # a halo
                    items.append(f'<text {common} fill="#fff" stroke="#fff" stroke-width="{2 + si}"'
                                 f' stroke-linejoin="round">{word}</text>')
                items.append(f'<text {common} fill="#2b2a27">{word}</text>')
                y += 9.37
    items.append(f'<text x="20 45.5 70 95" y="{y} {y + 2} {y + 4}" font-size="11.5" text-anchor="middle"'
                 ' fill="#083a63" stroke="#ffffff" stroke-opacity="0.6" stroke-width="3px">4 5 6 78</text>')
    items.append(f'<text x="1.5em" y="{y + 12}" font-size="10" fill="#6e2a00">em x</text>')
    # the outlines of a stroked text are made with its parent's font options, its fill with its own
    items.append(f'<g text-rendering="optimizeSpeed"><text x="100" y="{y + 20}" font-size="13" stroke="#d55e00"'
                 f' text-rendering="geometricPrecision" fill="#0b6fb8">Rendering è</text></g>')
    height = int(y) + 30
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="{height}" viewBox="0 0 400 {height}">'
            f'<rect width="400" height="{height}" fill="#f7f4ec"/>{"".join(items)}</svg>')


MANY_TEXTS = _many_texts()


def _count_draw_text(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    drawn: list[bool] = []
    draw_text = plainpath.draw_text

    def counted(*args: Any) -> bool:
        drawn.append(draw_text(*args))
        return drawn[-1]

    monkeypatch.setattr(plainpath, "draw_text", counted)
    return drawn


@pytest.mark.parametrize("width", [None, 217, 900, 1600])
def test_texts_laid_out_directly_give_cairosvgs_pixels(width: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = _count_draw_text(monkeypatch)
    direct = rasterise(MANY_TEXTS, width, layers=False)
    assert drawn and all(drawn) and len(drawn) == MANY_TEXTS.count("<text ")
    monkeypatch.setattr(raster, "FAST_PATHS", False)
    by_cairosvg = rasterise(MANY_TEXTS, width, layers=False)
    assert direct.tobytes() == by_cairosvg.tobytes()


@pytest.mark.parametrize("wrong", ["anchor", "size", "one call"])
def test_the_comparison_sees_a_wrong_anchor_size_or_compositing(wrong: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails for a layout that is only slightly off."""
    lay_out = plainpath.lay_out

    def off(surface: Any, node: Any, cairo: Any, xs: list[float], ys: list[float], put: Any) -> None:
        if wrong == "anchor" and node.get("text-anchor") == "middle":
            node["text-anchor"] = "end"
            lay_out(surface, node, cairo, xs, ys, put)
            node["text-anchor"] = "middle"
        elif wrong == "size":
            surface.font_size += 0.25
            lay_out(surface, node, cairo, xs, ys, put)
            surface.font_size -= 0.25
        elif wrong == "one call" and put == surface.context.show_glyphs:  # all the glyphs at once
            shown: list[Any] = []
            lay_out(surface, node, cairo, xs, ys, shown.extend)
            put(shown)
        else:
            lay_out(surface, node, cairo, xs, ys, put)

    monkeypatch.setattr(plainpath, "lay_out", off)
    direct = rasterise(MANY_TEXTS, 900, layers=False)
    monkeypatch.setattr(raster, "FAST_PATHS", False)
    assert direct.tobytes() != rasterise(MANY_TEXTS, 900, layers=False).tobytes()


def _benchmark(name: str) -> Any:
    """A render benchmark's module (its mid-game view and the game's ``render_svg``)."""
    folder = str(Path(__file__).resolve().parents[2] / "benchmarks")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


@pytest.mark.parametrize("game", ["kriegspiel", "blockmania", "corteo", "seattle"])
def test_mid_game_maps_drawn_directly_give_cairosvgs_pixels(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _benchmark(f"render_{game}")
    svg = bench.render_svg(bench.mid_game_view())
    drawn = _count_draw_text(monkeypatch)
    direct = rasterise(svg, 1600, layers=False)
    assert drawn.count(True) > 0
    monkeypatch.setattr(raster, "FAST_PATHS", False)
    assert direct.tobytes() == rasterise(svg, 1600, layers=False).tobytes()
