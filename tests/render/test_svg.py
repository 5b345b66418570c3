"""The SVG helpers: escaping, attributes, paths, the canvas."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from pbem.render import svg, theme


def parse(fragment: str) -> ET.Element:
    return ET.fromstring(f'<svg xmlns="{svg.SVG_NS}">{fragment}</svg>')


def test_escape_text_and_attr() -> None:
    assert svg.escape_text("a < b & c > d") == "a &lt; b &amp; c &gt; d"
    assert svg.escape_attr('say "hi" & <go>') == "say &quot;hi&quot; &amp; &lt;go&gt;"
    assert svg.escape_attr("two\nlines\tand tab") == "two&#10;lines&#9;and tab"


def test_characters_xml_forbids_are_dropped() -> None:
    nasty = "ok\x00\x07\x1b\ufffe!"
    assert svg.escape_text(nasty) == "ok!"
    doc = parse(svg.text(1, 2, nasty + "<b>&"))
    assert doc[0].text == "ok!<b>&"


def test_text_content_round_trips_through_xml() -> None:
    name = "Nord <&> \"quoted\" 'single' ünïcode ✓"
    el = parse(svg.text(0, 0, name, fill="#000"))[0]
    assert el.text == name
    el = parse(svg.rect(0, 0, 1, 1, id=name))[0]
    assert el.get("id") == name


def test_attrs_names_values_and_skips() -> None:
    out = svg.attrs(stroke_width=1.5, fill=None, class_="x", visible=False, stroke_opacity=0.25)
    assert out == ' stroke-width="1.5" class="x" stroke-opacity="0.25"'
    assert svg.attrs({"viewBox": "0 0 1 1"}) == ' viewBox="0 0 1 1"'
    assert svg.attrs(xlink_href="#a") == ' xlink:href="#a"'
    with pytest.raises(ValueError):
        svg.attrs({"bad name": 1})
    with pytest.raises(ValueError):
        svg.element("not a tag")


@pytest.mark.parametrize(
    ("value", "text"),
    [(1, "1"), (1.0, "1"), (1.5, "1.5"), (1.256, "1.26"), (-0.001, "0"), (1e-9, "0"), (100.10, "100.1")],
)
def test_num_is_compact(value: float, text: str) -> None:
    assert svg.num(value) == text


def test_num_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        svg.num(math.nan)
    with pytest.raises(TypeError):
        svg.num(True)


def test_path_builder_batches_shapes_into_one_d() -> None:
    p = svg.Path().rect(0, 0, 10, 5).segment((0, 0), (3, 4)).circle(5, 5, 2).polygon([(0, 0), (1, 0), (1, 1)])
    d = p.d()
    assert d.startswith("M0,0h10v5h-10z M0,0L3,4 M3,5C3,6.1 3.9,7 5,7C")  # a circle as four Beziers
    assert d.count("M") == 4
    assert svg.path(p, fill="red").startswith('<path d="M0,0')
    assert svg.path(svg.Path()) == ""  # an empty path draws nothing
    rr = svg.Path().round_rect(0, 0, 30, 20, 50).d()  # radius clamped to half the short side
    assert rr.startswith("M10,0h10c5.52,0 10,4.48 10,10v0")
    assert "a" not in rr  # no SVG arcs: cairosvg draws them slowly


def test_outline_helpers_default_to_no_fill() -> None:
    # cairosvg would fill an open polyline black otherwise.
    assert 'fill="none"' in svg.polyline([(0, 0), (1, 1)])
    assert 'fill="none"' in svg.line(0, 0, 1, 1)


def test_halo_text_draws_the_halo_first() -> None:
    doc = parse(svg.halo_text(10, 20, "34 : 28", fill="#123456", font_size=12))
    under, over = list(doc)
    assert under.get("stroke") == theme.HALO and under.get("fill") == theme.HALO
    assert over.get("fill") == "#123456" and over.get("stroke") is None
    assert under.text == over.text == "34 : 28"


def test_group_and_empty_group() -> None:
    assert svg.group([]) == ""
    g = parse(svg.group([svg.circle(1, 1, 1)], fill="red"))[0]
    assert g.tag.endswith("g") and g.get("fill") == "red" and len(g) == 1


def test_arrowhead_points_away_from_tail() -> None:
    tip, left, right = svg.arrowhead((10, 0), (0, 0), length=4, width=2)
    assert tip == (10, 0)
    assert left[0] == pytest.approx(6) and right[0] == pytest.approx(6)
    assert {round(left[1], 6), round(right[1], 6)} == {1.0, -1.0}


def test_shorten() -> None:
    a, b = svg.shorten((0, 0), (10, 0), 2, 3)
    assert a == pytest.approx((2, 0)) and b == pytest.approx((7, 0))
    a, b = svg.shorten((0, 0), (1, 0), 2, 3)  # too short: collapses to the middle
    assert a == b == (0.5, 0)


def test_arrow_marker_is_a_marker() -> None:
    m = parse(svg.arrow_marker("head", "#f00"))[0]
    assert m.tag.endswith("marker") and m.get("id") == "head" and m.get("orient") == "auto"


def test_text_width_measures_real_glyphs() -> None:
    narrow, wide = svg.text_width("iiii", 12), svg.text_width("WWWW", 12)
    assert 0 < narrow < wide
    assert svg.text_width("Kriegspiel", 24) == pytest.approx(2 * svg.text_width("Kriegspiel", 12))
    assert svg.text_width("A", 12, bold=True) >= svg.text_width("A", 12)


def test_canvas_orders_layers_and_writes_a_document() -> None:
    c = svg.Canvas(200, 100, layers=("board", "units", "labels"), background="#fff", title="Map <1>")
    c.layer("labels").add(svg.text(5, 5, "L"))
    c.layer("board").add(svg.rect(0, 0, 200, 100, fill="#eee"))
    c.layer("units", fill="blue").add(svg.circle(5, 5, 2))
    c.defs(svg.arrow_marker("a", "#000"))
    doc = ET.fromstring(c.to_svg())
    assert doc.get("viewBox") == "0 0 200 100" and doc.get("width") == "200"
    tags = [el.tag.split("}")[1] for el in doc]
    assert tags == ["title", "defs", "rect", "rect", "g", "text"]
    assert doc[0].text == "Map <1>"
    assert doc[4].get("fill") == "blue"
    with pytest.raises(ValueError):
        svg.Canvas(0, 10)


def test_theme_colours() -> None:
    assert theme.rgb("#0b6fb8") == (11, 111, 184)
    assert theme.rgb("#fff") == (255, 255, 255)
    assert theme.side_colours("nobody") is theme.NEUTRAL
    blue, red = theme.side_colours("blue"), theme.side_colours("vermillion")
    assert blue.main != red.main


def test_text_run_places_every_character_in_one_element() -> None:
    run = svg.text_run([(100, 10, "12"), (200, 10, "A"), (0, 0, "")], font_size=12, bold=True, fill="#333")
    el = parse(run)[0]
    assert el.text == "12A"
    xs = [float(v) for v in (el.get("x") or "").split()]
    ys = [float(v) for v in (el.get("y") or "").split()]
    assert len(xs) == len(ys) == 3
    w1 = svg.text_width("1", 12, bold=True)
    # "12" is centred on x=100: its first digit starts half the label's width to the left.
    assert xs[0] == pytest.approx(100 - w1, abs=0.01) and xs[1] == pytest.approx(100, abs=0.01)
    assert xs[2] == pytest.approx(200 - svg.text_width("A", 12, bold=True) / 2, abs=0.01)
    assert el.get("text-anchor") == "start" and el.get("fill") == "#333"
    start = parse(svg.text_run([(5, 5, "ab")], font_size=10, anchor="start"))[0]
    assert float((start.get("x") or "").split()[0]) == 5
    assert svg.text_run([], font_size=10) == ""
    halo, text = list(parse(svg.text_run([(5, 5, "<&>")], font_size=10, halo="#fff")))
    assert halo.get("stroke") == "#fff" and text.get("stroke") is None and text.text == "<&>"
