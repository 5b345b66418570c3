"""HTML to plain text in linear time, without ``html.parser``.

Python 3.11's ``HTMLParser`` is quadratic on runs of ``<a``, ``</``, ``<?`` and unclosed
comments (CVE-2025-6069): 100,000 ``<a`` stalled the daemon for 30 s. This scanner jumps
from ``<`` to ``>`` with ``str.find`` and remembers the next ``>`` it found, so each
character is looked at a bounded number of times whatever the input. It is lenient the way
a text extractor may be: a ``<`` with another ``<`` before the next ``>`` is text, and a
``>`` inside a quoted attribute ends the tag.
"""

from __future__ import annotations

import html
import re

__all__ = ["html_to_text"]

_VOID = {"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "param",
         "source", "track", "wbr"}
_RAW_TEXT = ("script", "style")
_ATTR = re.compile(r"""([^\s=/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+)))?""")
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


class _Text:
    """Collects the text, dropping head/style/script and quoted-reply containers."""

    _SKIP_TAGS = {"style", "script", "head", "title", "blockquote", "template", "noscript"}
    _SKIP_CLASSES = {"gmail_quote", "gmail_attr", "yahoo_quoted", "moz-cite-prefix",
                     "outlookmessageheader", "protonmail_quote", "zmail_extra"}
    _STOP_IDS = {"appendonsend", "divrplyfwdmsg", "x_divrplyfwdmsg", "x_appendonsend",
                 "mail-editor-reference-message-container"}
    _BLOCK = {"p", "div", "br", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5",
              "h6", "pre", "hr", "section", "article", "header", "footer", "dd", "dt", "dl",
              "address", "center", "form", "fieldset"}

    def __init__(self) -> None:
        self.parts: list[str] = []
        self._skip_tag: str | None = None
        self._skip_depth = 0
        self._pre = 0
        self.stopped = False

    def starttag(self, tag: str, attrs: dict[str, str]) -> None:
        if self.stopped:
            return
        if self._skip_tag is not None:
            if tag == self._skip_tag:
                self._skip_depth += 1
            return
        if attrs.get("id", "").lower() in self._STOP_IDS:
            self.stopped = True
            return
        classes = {c.lower() for c in attrs.get("class", "").split()}
        if tag in self._SKIP_TAGS or classes & self._SKIP_CLASSES:
            if tag not in _VOID:
                self._skip_tag = tag
                self._skip_depth = 1
            return
        if tag == "pre":
            self._pre += 1
        if tag in self._BLOCK:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append("\t")
        if tag == "li":
            self.parts.append("- ")

    def startendtag(self, tag: str) -> None:
        if self.stopped or self._skip_tag is not None:
            return
        if tag in ("br", "hr", "p", "div"):
            self.parts.append("\n")

    def endtag(self, tag: str) -> None:
        if self.stopped:
            return
        if self._skip_tag is not None:
            if tag == self._skip_tag:
                self._skip_depth -= 1
                if self._skip_depth <= 0:
                    self._skip_tag = None
            return
        if tag == "pre" and self._pre:
            self._pre -= 1
        if tag in self._BLOCK:
            self.parts.append("\n")

    def data(self, data: str) -> None:
        if self.stopped or self._skip_tag is not None or not data:
            return
        data = html.unescape(data)
        self.parts.append(data if self._pre else _SPACES.sub(" ", data))

    def text(self) -> str:
        joined = "".join(self.parts).replace("\xa0", " ")
        out: list[str] = []
        for line in joined.split("\n"):
            line = line.strip(" ")
            if not line and out and not out[-1]:
                continue
            out.append(line)
        return "\n".join(out).strip("\n")


def _tag_name(body: str) -> tuple[str, int]:
    end = 0
    while end < len(body) and not body[end].isspace() and body[end] not in "/>":
        end += 1
    return body[:end].lower(), end


def _attrs(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for m in _ATTR.finditer(text):
        name = m.group(1).lower()
        if name not in found:
            value = next((g for g in m.group(2, 3, 4) if g is not None), "")
            found[name] = html.unescape(value)
    return found


def _scan(doc: str, sink: _Text) -> None:
    n = len(doc)
    i = 0
    gt = -1  # the next ">" at or after the current tag's start (kept while it is ahead)
    lower: str | None = None
    while i < n and not sink.stopped:
        lt = doc.find("<", i)
        if lt < 0:
            sink.data(doc[i:])
            return
        if lt > i:
            sink.data(doc[i:lt])
        nxt = doc[lt + 1:lt + 2]
        if doc.startswith("<!--", lt):
            end = doc.find("-->", lt + 4)
            if end < 0:
                return  # an unclosed comment runs to the end
            i = end + 3
            continue
        if not (nxt.isalpha() or nxt in ("/", "!", "?")):
            sink.data("<")
            i = lt + 1
            continue
        if gt <= lt:
            gt = doc.find(">", lt + 1)
            if gt < 0:
                sink.data(doc[lt:])  # no ">" anywhere after: the rest is text
                return
        inner = doc.find("<", lt + 1, gt)
        if inner >= 0:
            sink.data(doc[lt:inner])
            i = inner
            continue
        body = doc[lt + 1:gt]
        i = gt + 1
        if nxt in ("!", "?"):
            continue  # declarations and processing instructions say nothing
        if nxt == "/":
            name, _ = _tag_name(body[1:])
            sink.endtag(name)
            continue
        name, end = _tag_name(body)
        rest = body[end:]
        if name in _VOID:
            sink.starttag(name, _attrs(rest.rstrip().rstrip("/")))
            continue
        if rest.rstrip().endswith("/"):
            sink.startendtag(name)
            continue
        sink.starttag(name, _attrs(rest))
        if name in _RAW_TEXT:
            lower = doc.lower() if lower is None else lower
            close = lower.find("</" + name, i)
            if close < 0:
                return
            end_gt = doc.find(">", close)
            if end_gt < 0:
                return
            i = end_gt + 1
            sink.endtag(name)


def html_to_text(doc: str) -> str:
    """Plain text of an HTML body; linear in its length, never raises."""
    sink = _Text()
    try:
        _scan(str(doc), sink)
    except Exception:  # pragma: no cover - a text extractor must not break the inbox
        pass
    return sink.text()
