"""Where a map's texts stand: one box per label read back from the SVG document, and the labels
that overlap one another (issue 19.7: labels are placed where they hide nothing).

A label is a ``<text>`` element, or a stretch of a ``text_run`` element whose glyphs follow one
another on one baseline; its box comes from `pbem.render.svg.text_width`, the metrics the maps are
laid out with. A halo is the same label drawn twice: it counts once. A rotated text (Seattle's
river name) is left out: it is placed by hand along the river.

`played` runs `pbem demo` once per game and language for the tests that walk its mail and maps.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import hashlib
import json
import multiprocessing
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime, timezone
from email import message_from_bytes, policy
from pathlib import Path

from pbem.core import registry
from pbem.demo import run
from pbem.render.svg import text_width

_NS = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Label:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    def overlap(self, other: "Label") -> float:
        """The area two labels share; a graze of a pixel or two (a descender's room) is none."""
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        return w * h if w > 1.5 and h > 1.5 else 0.0


def _numbers(value: str | None) -> list[float]:
    return [float(v) for v in re.split(r"[\s,]+", value.strip())] if value and value.strip() else []


def labels(document: str) -> list[Label]:
    out: set[Label] = set()
    for el in ET.fromstring(document).iter(f"{_NS}text"):
        if el.get("transform"):
            continue
        content = "".join(el.itertext())
        size = float(el.get("font-size") or 12)
        bold = el.get("font-weight") == "bold"
        xs, ys = _numbers(el.get("x")), _numbers(el.get("y"))
        if not content.strip() or not xs or not ys:
            continue
        top, bottom = 0.78 * size, 0.22 * size
        if len(xs) == 1:
            width = text_width(content, size, bold=bold)
            anchor = el.get("text-anchor") or "start"
            left = xs[0] - (width / 2 if anchor == "middle" else width if anchor == "end" else 0)
            out.add(Label(content, left, ys[0] - top, left + width, ys[0] + bottom))
            continue
        ys = ys + [ys[-1]] * (len(xs) - len(ys))
        start, text = 0, ""
        for i, ch in enumerate(content[:len(xs)]):
            advance = text_width(ch, size, bold=bold)
            text += ch
            last = i + 1 == min(len(content), len(xs))
            follows = not last and abs(xs[i + 1] - (xs[i] + advance)) < 0.6 and ys[i + 1] == ys[i]
            if not follows:
                if text.strip():
                    out.add(Label(text, xs[start], ys[start] - top, xs[i] + advance, ys[start] + bottom))
                start, text = i + 1, ""
    return sorted(out, key=lambda lab: (lab.y0, lab.x0))


def collisions(document: str, least: float = 6.0) -> list[tuple[Label, Label]]:
    """Pairs of labels that cover each other by more than ``least`` square units."""
    found = labels(document)
    out = []
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            if b.y0 >= a.y1:
                break
            if a.overlap(b) > least:
                out.append((a, b))
    return out


#: The PNG maps' width in the tests' runs: the tests read the mails' texts and draw the maps again from
#: the attached views (SVG user units, whatever the raster), so the PNGs need not be 1600 px wide.
WIDTH = 200


#: The language whose run also exports and verifies the demo's archive, as `pbem demo` does: the
#: scripts' games are the same in every language (the same entropy, orders and clock) and the archive
#: is written in English whatever the seats read, so the other languages' runs skip it.
ARCHIVE_LANG = "en"


@functools.lru_cache(maxsize=None)
def played(kind: str, lang: str) -> Path:
    """`pbem demo` of ``kind`` played once per test process with every seat reading ``lang``, on
    fixed entropy and a fixed clock (the scripts' orders are legal for these dice), its PNGs ``WIDTH``
    px wide; its folder. Tests that share a run share an xdist group ``demo-<kind>-<lang>``. The
    ``ARCHIVE_LANG`` run exports the archive and the archive must verify."""
    out = Path(tempfile.mkdtemp(prefix=f"pbem-demo-{kind}-{lang}-"))
    atexit.register(shutil.rmtree, out, True)  # the folder lives as long as the test process
    archived = lang == ARCHIVE_LANG
    before = set(multiprocessing.active_children())
    asyncio.run(run(out, [kind], language=lang, entropy=FixedEntropy(), start=START, width=WIDTH,
                    archive_out=archived))
    left = set(multiprocessing.active_children()) - before  # its map workers and mail reader stopped with it
    assert not left, f"the demo of {kind} left processes running: {left}"
    folder = out / registry.get(kind).info.slug
    if archived:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        assert summary["verify"].startswith("OK "), summary["verify"]
    return folder


@dataclass(frozen=True)
class DemoMail:
    """One mail of a demo run, read once for every test that walks it."""

    where: str  # seat folder / file name
    text: str  # the plain-text body
    maps: tuple[tuple[str, str], ...]  # (attachment name, SVG drawn again from the attached view in the run's language)


@functools.lru_cache(maxsize=None)
def demo_mail(kind: str, lang: str) -> tuple[DemoMail, ...]:
    """Every mail of ``played(kind, lang)``, parsed, its maps drawn from the views attached beside
    the PNGs (the label check and the language walk read the same ones: parsed and drawn once)."""
    rules = registry.get(kind)
    out = []
    for path in sorted((played(kind, lang) / "mail").glob("*/*.eml")):
        msg = message_from_bytes(path.read_bytes(), policy=policy.default)
        body = msg.get_body(("plain",))
        text = body.get_content() if body is not None else ""  # type: ignore[union-attr]
        maps = []
        for part in msg.iter_attachments():  # type: ignore[attr-defined]
            name = part.get_filename() or ""
            if name.endswith(".json"):
                view = json.loads(part.get_payload(decode=True))
                maps.append((name, rules.render({**view, "lang": lang})))
        out.append(DemoMail(f"{path.parent.name}/{path.name}", text, tuple(maps)))
    return tuple(out)


def demo_maps(kind: str, lang: str) -> list[tuple[str, str]]:
    """(mail file and attachment, SVG document) of every map the demo's mails carry, drawn from
    the view attached beside the PNG, in ``lang``."""
    return [(f"{mail.where}:{name}", svg) for mail in demo_mail(kind, lang) for name, svg in mail.maps]


START = datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc)


class FixedEntropy:
    """The same secrets and dice seeds on every run."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, size: int) -> bytes:
        self.n += 1
        out = b""
        while len(out) < size:
            out += hashlib.sha256(f"languages-{self.n}-{len(out)}".encode()).digest()
        return out[:size]
