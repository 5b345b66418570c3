"""The club's website in a real browser (issue "Leagues, ratings and the club's website"):
headless Chromium (Debian's, installed by .ci/run) opens the index, follows every link of
every page it reaches, and checks that each link leads to a file, each anchor to its
element, each image is decoded by the browser, the stylesheet applies, nothing needs a
network, no page scrolls sideways on a 390 px phone, and no address or secret shows. It keeps
screenshots of the index and a league page at 1280 and 390 px (docs/img, via
PBEM_SITE_SCREENSHOTS)."""

from __future__ import annotations

import io
import os
from collections import deque
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest
from PIL import Image

from tests.site.browser import Browser, chromium
from tests.site.conftest import Club

pytestmark = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (scripts/install-chromium.sh)")

PAGE_FACTS = """(() => ({
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  assets: [...document.querySelectorAll('link[href]')].map(l => l.href),
  images: [...document.images].map(i => [i.currentSrc || i.src, i.complete, i.naturalWidth, i.alt]),
  ids: [...document.querySelectorAll('[id]')].map(e => e.id),
  styled: document.styleSheets.length > 0 && [...document.styleSheets].every(s => s.cssRules.length > 0),
  viewport: !!document.querySelector('meta[name=viewport]'),
  text: document.body.innerText,
  scripts: document.scripts.length,
}))()"""


def _path(url: str) -> Path:
    return Path(unquote(urlparse(url).path))


def test_every_link_and_image_works_in_chromium(club: Club, tmp_path: Path) -> None:
    out = club.out.resolve()
    start = (out / "index.html").as_uri()
    seen: dict[str, dict] = {}  # type: ignore[type-arg]
    anchors: list[tuple[str, str, str]] = []  # page, target page, fragment
    queue = deque([start])
    with Browser(1280, 900) as browser:
        while queue:
            url = queue.popleft()
            if url in seen:
                continue
            browser.open(url)
            facts = browser.js(PAGE_FACTS)
            seen[url] = facts
            assert facts["scripts"] == 0, url  # the site needs no JavaScript
            assert facts["styled"], f"{url}: the stylesheet did not load"
            for src, complete, width, alt in facts["images"]:
                assert complete and width > 0, f"{url}: image {src} is missing or broken"
                assert alt, f"{url}: image {src} has no alt text"
            for link in facts["links"] + facts["assets"]:
                assert link.startswith("file://"), f"{url} links outside the site: {link}"
                target, fragment = urldefrag(link)
                path = _path(target)
                assert path.is_file(), f"{url}: broken link to {path}"
                assert out in path.parents, f"{url}: a link leaves the site: {path}"
                if fragment:
                    anchors.append((url, target, fragment))
                if path.suffix == ".html" and target not in seen:
                    queue.append(target)
        for page, target, fragment in anchors:
            assert fragment in seen[target]["ids"], f"{page}: no #{fragment} in {target}"
        site_pages = [u for u in seen if "/archives/" not in u]
        assert len(site_pages) == 5 + 7 + 1 + 4  # the five top pages, the games, the league, the players
        assert any("/archives/" in u and "phase-" in u for u in seen)  # the archives' turns were followed
        for url, facts in seen.items():
            assert "@example.org" not in facts["text"], url
            assert not any(secret in facts["text"] for secret in club.secrets), url
        # on a phone: nothing scrolls sideways (wide tables scroll inside their own box)
        browser.size(390, 844)
        for url in site_pages:
            browser.open(url)
            assert seen[url]["viewport"], url
            assert browser.js("document.documentElement.scrollWidth") <= 390, f"{url} is wider than a phone"
        keep = os.environ.get("PBEM_SITE_SCREENSHOTS")
        league = (out / "leagues" / f"{club.league}.html").as_uri()
        for name, url in (("index", start), ("league", league)):
            for width, height in ((1280, 900), (390, 844)):
                browser.size(width, height)
                browser.open(url)
                shot = browser.screenshot()
                image = Image.open(io.BytesIO(shot))
                assert image.size == (width, height)
                assert len(image.convert("RGB").getcolors(maxcolors=1 << 24) or []) > 8  # a page was drawn, not a blank
                target = Path(keep) if keep else tmp_path
                target.mkdir(parents=True, exist_ok=True)
                (target / f"site-{name}-{width}.png").write_bytes(shot)
