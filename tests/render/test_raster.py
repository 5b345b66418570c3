"""The one rasteriser: real PNGs, decoded with Pillow and checked."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from pbem.errors import RenderError
from pbem.render import png_size, svg_to_png
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
