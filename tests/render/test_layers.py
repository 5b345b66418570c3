"""Static layers: documents split at their markers, drawn once, reused, composited in order."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageChops

from pbem.errors import RenderError
from pbem.render import cache, raster, svg
from pbem.render.raster import STATIC_LAYERS, rasterise, split_static, svg_to_png

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">'
BOARD = (
    '<rect width="200" height="100" fill="#f7f4ec"/>'
    '<path d="M0,50h200M100,0v100" stroke="#bdb6a4" stroke-width="2"/>'
    '<text x="5" y="15" font-size="12" font-family="DejaVu Sans" fill="#2b2a27">A B C</text>'
)


def doc(dynamic: str = "", *, board: str = BOARD, title: str = "turn 1") -> str:
    return f"{HEAD}<title>{title}</title>{svg.static_block(board)}{dynamic}</svg>"


def unit(x: float, colour: str = "#0b6fb8") -> str:
    return (
        f'<path d="{svg.Path().round_rect(x, 40, 30, 20, 6).d()}" fill="#b9dcf4" stroke="{colour}" stroke-width="2"/>'
        f'<text x="{x}" y="80" font-size="11" font-family="DejaVu Sans" fill="{colour}">{x}</text>'
    )


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel, in levels (0..255)."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    total = sum(i * n for band in diff.split() for i, n in enumerate(band.histogram()))
    return total / (3 * a.width * a.height)


@pytest.fixture(autouse=True)
def fresh_layers() -> Iterator[None]:
    STATIC_LAYERS.cache_clear()
    before = (STATIC_LAYERS.max_entries, STATIC_LAYERS.max_bytes)
    yield
    STATIC_LAYERS.resize(max_entries=before[0], max_bytes=before[1])
    STATIC_LAYERS.cache_clear()


# -- splitting -------------------------------------------------------------------


def test_split_keeps_order_shares_defs_and_drops_titles() -> None:
    defs = '<defs><marker id="m"><path d="M0,0L1,1"/></marker></defs>'
    first, second = svg.static_block('<g><rect width="5" height="5"/></g>'), svg.static_block('<line x2="3"/>')
    document = (
        f'<?xml version="1.0"?>\n{HEAD}<title>turn 7</title>{defs}<rect width="1" height="1"/>'
        f'{first}<circle r="2"/>{second}</svg>\n'
    )
    split = split_static(document)
    assert split is not None
    assert split.head == HEAD
    assert split.shared == defs
    assert split.parts == (
        (False, '<rect width="1" height="1"/>'),
        (True, '<g><rect width="5" height="5"/></g>'),
        (False, '<circle r="2"/>'),
        (True, '<line x2="3"/>'),
    )
    assert split.document("<x/>") == f"{HEAD}{defs}<x/></svg>"


@pytest.mark.parametrize(
    "document",
    [
        f"{HEAD}<rect width='1' height='1'/></svg>",  # no markers
        f"{HEAD}<g>{svg.static_block('<rect/>')}</g></svg>",  # not at the top level
        f"{HEAD}{svg.STATIC_BEGIN}<rect/></svg>",  # never closed
        f"{HEAD}<rect/>{svg.STATIC_END}</svg>",  # closed, never opened
        f"{HEAD}{svg.STATIC_BEGIN}{svg.static_block('<rect/>')}{svg.STATIC_END}</svg>",  # nested
        f"{HEAD}{svg.static_block('<g>')}</g></svg>",  # unbalanced inside
        f'<svg xmlns="{svg.SVG_NS}"/>{svg.static_block("<rect/>")}',  # no body
    ],
)
def test_unusable_markers_mean_the_document_is_drawn_whole(document: str) -> None:
    assert split_static(document) is None


def test_game_data_cannot_forge_a_marker() -> None:
    label = svg.text(5, 20, f"{svg.STATIC_END}{svg.STATIC_BEGIN}", font_size=10)  # escaped like any text
    document = doc(label)
    split = split_static(document)
    assert split is not None and [s for s, _ in split.parts] == [True, False]
    assert rasterise(document, 100).tobytes() == rasterise(document, 100, layers=False).tobytes()


def test_a_marker_inside_character_data_is_not_a_marker() -> None:
    document = f'{HEAD}<![CDATA[{svg.STATIC_BEGIN}]]><text x="1" y="9">a &lt;!-- b</text></svg>'
    assert split_static(document) is None
    assert rasterise(document, 50).size == (50, 25)


# -- pixels ------------------------------------------------------------------------


@pytest.mark.parametrize("width", [None, 137, 400])
def test_layered_drawing_equals_drawing_the_whole_document(width: int | None) -> None:
    document = doc(unit(20) + unit(120, "#d55e00"))
    whole = rasterise(document, width, layers=False)
    layered = rasterise(document, width)
    again = rasterise(document, width)  # from the cache this time
    assert layered.tobytes() == whole.tobytes() == again.tobytes()


def test_layered_drawing_keeps_alpha_without_a_background() -> None:
    document = doc(unit(20), board='<rect width="100" height="100" fill="#f00" fill-opacity="0.5"/>')
    whole = rasterise(document, 200, background=None, layers=False)
    layered = rasterise(document, 200, background=None)
    assert layered.mode == whole.mode == "RGBA"
    assert layered.tobytes() == whole.tobytes()


def test_static_block_above_dynamic_content_is_composited_in_order() -> None:
    # dynamic, static, dynamic, static: z-order must hold.
    orange = svg.static_block('<rect x="40" width="60" height="100" fill="#d55e00" fill-opacity="0.6"/>')
    rule = svg.static_block('<path d="M0,10h200" stroke="#2b2a27" stroke-width="3"/>')
    document = (
        f'{HEAD}<rect width="200" height="100" fill="#ffffff"/><rect width="120" height="100" fill="#0b6fb8"/>'
        f'{orange}<circle cx="80" cy="50" r="30" fill="#009e73"/>{rule}</svg>'
    )
    whole = rasterise(document, 400, layers=False)
    layered = rasterise(document, 400)
    assert mean_difference(whole, layered) < 0.05
    assert layered.getpixel((160, 100)) == whole.getpixel((160, 100))  # the circle, over the static orange
    assert layered.getpixel((160, 20)) == whole.getpixel((160, 20))  # the static line, over the circle


def test_svg_to_png_of_a_layered_document_matches_the_whole_document() -> None:
    document = doc(unit(20) + unit(120, "#d55e00"))
    png = Image.open(io.BytesIO(svg_to_png(document, 400)))
    assert mean_difference(png, rasterise(document, 400, layers=False)) < 1.0


def test_errors_in_a_part_are_render_errors() -> None:
    with pytest.raises(RenderError, match="malformed"):
        svg_to_png(doc("<rect width='1'>"), 100)  # unclosed element in the dynamic part
    with pytest.raises(RenderError):
        svg_to_png(doc("", board="<rect/><nope"), 100)


# -- the cache ----------------------------------------------------------------------


def test_static_layer_is_drawn_once_per_board_and_width() -> None:
    rasterise(doc(unit(20), title="turn 1"), 400)
    assert STATIC_LAYERS.cache_info()[:2] == (0, 1)
    # Another turn: the title and the dynamic part change, the static layer is reused.
    rasterise(doc(unit(60), title="turn 2"), 400)
    assert STATIC_LAYERS.cache_info()[:2] == (1, 1)
    rasterise(doc(unit(60)), 200)  # another width
    rasterise(doc(unit(60), board=BOARD.replace("A B C", "D E F")), 400)  # another board
    assert STATIC_LAYERS.cache_info()[:2] == (1, 3)
    assert len(STATIC_LAYERS) == 3
    assert STATIC_LAYERS.nbytes == 400 * 200 * 4 * 2 + 200 * 100 * 4
    assert "pbem.render.raster.STATIC_LAYERS" in cache.stats()
    cache.clear()
    assert len(STATIC_LAYERS) == 0


def test_static_layers_are_bounded_by_entries_and_bytes() -> None:
    boards = [BOARD.replace("A B C", f"board {i}") for i in range(5)]
    STATIC_LAYERS.resize(max_entries=2)
    for board in boards:
        rasterise(doc(unit(20), board=board), 100)
    assert len(STATIC_LAYERS) == 2
    # The least recently used went first: the last two boards are still there.
    rasterise(doc(unit(20), board=boards[-1]), 100)
    rasterise(doc(unit(20), board=boards[-2]), 100)
    assert STATIC_LAYERS.cache_info()[:2] == (2, 5)
    one = 100 * 50 * 4
    STATIC_LAYERS.resize(max_entries=10, max_bytes=one * 3)
    for board in boards:
        rasterise(doc(unit(20), board=board), 100)
    assert len(STATIC_LAYERS) == 3 and STATIC_LAYERS.nbytes == one * 3
    STATIC_LAYERS.resize(max_bytes=one - 1)  # too small for any layer: nothing kept, still correct
    assert len(STATIC_LAYERS) == 0
    document = doc(unit(20))
    assert rasterise(document, 100).tobytes() == rasterise(document, 100, layers=False).tobytes()
    assert len(STATIC_LAYERS) == 0


def test_threads_share_the_cache_and_get_the_right_pictures() -> None:
    boards = [BOARD.replace("A B C", f"board {i}") for i in range(3)]
    jobs = [(doc(unit(10 + 20 * (i % 5)), board=boards[i % 3]), 200 + 100 * (i % 2)) for i in range(24)]
    expected = [svg_to_png(d, w) for d, w in jobs]
    # ... which are the PNGs of the whole documents drawn without the cache.
    for (d, w), png in list(zip(jobs, expected))[:6]:
        assert png == raster.encode_png(rasterise(d, w, layers=False), colours=raster.document_colours(d))
    STATIC_LAYERS.cache_clear()
    barrier = threading.Barrier(6)

    def draw(job: tuple[str, int]) -> bytes:
        try:
            barrier.wait(timeout=5)
        except threading.BrokenBarrierError:
            pass
        return svg_to_png(*job)

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(draw, jobs))
    assert results == expected
    info = STATIC_LAYERS.cache_info()
    assert info.misses == 6  # (3 boards x 2 widths): each drawn once, even when asked at the same time
    assert info.hits == 18


# -- BoundedCache --------------------------------------------------------------------


def test_bounded_cache_basics() -> None:
    c: cache.BoundedCache[str, bytes] = cache.BoundedCache("test.basics", max_entries=3, max_bytes=10, weigh=len)
    assert c.get("a") is None
    c.put("a", b"1234")
    c.put("b", b"1234")
    assert c.get("a") == b"1234"  # a is now the most recent
    c.put("c", b"12345")  # 13 bytes > 10: the least recent (b) goes
    assert "b" not in c and "a" in c and "c" in c and c.nbytes == 9
    c.put("huge", b"x" * 11)  # larger than the bound on its own: not kept
    assert "huge" not in c and len(c) == 2
    assert c.get_or_build("d", lambda: b"1") == b"1" and "d" in c
    assert c.cache_info() == cache.CacheInfo(hits=1, misses=2, maxsize=3, currsize=3)
    with pytest.raises(ValueError):
        c.resize(max_entries=-1)


def test_bounded_cache_failed_build_keeps_nothing_and_lets_the_next_caller_try() -> None:
    c: cache.BoundedCache[str, bytes] = cache.BoundedCache("test.fail", max_entries=3, max_bytes=100, weigh=len)

    def boom() -> bytes:
        raise RenderError("no")

    with pytest.raises(RenderError):
        c.get_or_build("k", boom)
    assert "k" not in c
    assert c.get_or_build("k", lambda: b"ok") == b"ok"


def test_bounded_cache_builds_once_under_contention() -> None:
    c: cache.BoundedCache[int, bytes] = cache.BoundedCache("test.flight", max_entries=3, max_bytes=100, weigh=len)
    calls: list[int] = []
    started = threading.Event()
    release = threading.Event()

    def build() -> bytes:
        calls.append(1)
        started.set()
        release.wait(5)
        return b"v"

    with ThreadPoolExecutor(max_workers=8) as pool:
        first = pool.submit(c.get_or_build, 1, build)
        assert started.wait(5)
        others = [pool.submit(c.get_or_build, 1, build) for _ in range(7)]
        release.set()
        assert first.result() == b"v" and all(f.result() == b"v" for f in others)
    assert len(calls) == 1


# -- the SVG side ----------------------------------------------------------------------


def test_canvas_writes_static_layers_as_one_block_under_the_rest() -> None:
    c = svg.Canvas(100, 50, layers=("paper", "grid", "units", "labels"), static=("paper", "grid"),
                   background="#fff", title="turn 3")
    c.add(svg.rect(0, 0, 100, 50, fill="#eee"), layer="paper")
    c.add(svg.line(0, 25, 100, 25, stroke="#999"), layer="grid")
    c.add(svg.circle(10, 10, 5, fill="red"), layer="units")
    text = c.to_svg()
    assert text.count(svg.STATIC_BEGIN) == 1 == text.count(svg.STATIC_END)
    split = split_static(text)
    assert split is not None
    (s, static_part), (d, dynamic_part) = split.parts
    assert s and not d
    assert 'fill="#fff"' in static_part and "<line" in static_part and "turn 3" not in static_part
    assert "<circle" in dynamic_part
    # Without static layers the document has no markers (and the background is not static).
    plain = svg.Canvas(100, 50, background="#fff")
    plain.add(svg.circle(1, 1, 1))
    assert svg.STATIC_BEGIN not in plain.to_svg()
    with pytest.raises(ValueError):
        svg.Canvas(10, 10, layers=("a",), static=("b",))
    assert svg.static_block() == ""


def test_document_colours_are_kept_exactly_in_the_palette() -> None:
    rare = "#f0b429"
    document = doc(f'<circle cx="150" cy="20" r="2" fill="{rare}"/>' + unit(20))
    assert (0xF0, 0xB4, 0x29) in raster.document_colours(document)
    assert raster.document_colours("#abc #AABBCC #abcd fill='#123456'") == [(0xAA, 0xBB, 0xCC), (0x12, 0x34, 0x56)]
    assert len(raster.document_colours("".join(f"#{i:06x} " for i in range(100)))) == raster.MAX_DOCUMENT_COLOURS
    image = Image.open(io.BytesIO(svg_to_png(document, 400))).convert("RGB")
    assert image.getpixel((300, 40)) == (0xF0, 0xB4, 0x29)


def test_pillow_keeps_freed_image_memory_for_the_next_map() -> None:
    svg_to_png(doc(unit(20)), 100)
    assert Image.core.get_blocks_max() >= raster.PILLOW_BLOCKS_MAX
