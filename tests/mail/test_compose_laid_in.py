"""Attachments laid into the written mail (`pbem.mail.compose._attach`, issue 17: a report's map
was mostly the email package encoding and writing base64 line by line) give the very bytes the
package gives, the boundary drawn from the same random numbers."""

from __future__ import annotations

import email
import email.policy
import random
from datetime import UTC, datetime

import pytest

from pbem.mail import compose as composing
from pbem.mail.compose import Attachment, compose
from pbem.mail.parse import read_mail

SIZES = [0, 1, 2, 3, 56, 57, 58, 113, 114, 115, 1000, 150_001]


def _files(raw: bytes) -> dict[str, bytes]:
    mail = email.message_from_bytes(raw, policy=email.policy.default)
    return {str(p.get_filename()): p.get_content() for p in mail.walk() if p.get_filename()}


def _both(monkeypatch: pytest.MonkeyPatch, **kw: object) -> tuple[bytes, bytes]:
    kw = {"sender": '"Club PBEM" <pbem@club.example.org>', "to": "red@example.org",
          "subject": "[pbem] k42 turn 7 — report", "text": "Report è\nline\n", "domain": "club.example.org",
          "message_id": "<m1@club.example.org>", "date": datetime(2026, 11, 26, 5, 0, tzinfo=UTC),
          "in_reply_to": "<root@club.example.org>", "game_id": "k42", **kw}
    random.seed(7)
    _, fast = compose(**kw)  # type: ignore[arg-type]
    with monkeypatch.context() as m:
        m.setattr(composing, "_LAY_IN", False)  # every attachment through the package's encoder
        random.seed(7)
        _, slow = compose(**kw)  # type: ignore[arg-type]
    return fast, slow


@pytest.mark.parametrize("size", SIZES)
def test_a_report_with_its_map_is_the_packages_bytes(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    png = bytes(random.Random(size).getrandbits(8) for _ in range(size))
    atts = (Attachment("k42-turn-7-red.png", "image/png", png),
            Attachment("k42-turn-7-red.json", "application/json", b'{"turn": 7, "city": "citt\xc3\xa0"}'),
            Attachment("k42.ics", "text/calendar", b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"))
    fast, slow = _both(monkeypatch, attachments=atts)
    assert fast == slow
    assert _files(fast)["k42-turn-7-red.png"] == png


def test_inline_and_html_and_a_content_id_are_the_packages_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    atts = (Attachment("map.png", "image/png", b"\x89PNG" * 500, inline_cid="map-k42"),
            Attachment("view.json", "application/json", b'{"a": 1}', inline_cid="v"))
    fast, slow = _both(monkeypatch, attachments=atts, html='<p><img src="cid:map-k42"></p>')
    assert fast == slow
    fast, slow = _both(monkeypatch, attachments=atts)  # no HTML: both attached, with their ids
    assert fast == slow


def test_a_text_quoting_a_placeholder_is_still_written_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text holding the placeholder's line (it cannot guess it: here it is forced) falls back
    to the package's writing of the whole mail: the text and the attachment both come out whole."""
    monkeypatch.setattr(composing.os, "urandom", lambda n: b"\0" * n)
    mark = "pbem-laid-in-" + "00" * 12
    png = b"\x89PNG" * 100
    _, raw = compose(sender="pbem@club.example.org", to="red@example.org", subject="s", text=f"{mark}\n",
                     attachments=(Attachment("m.png", "image/png", png),), domain="club.example.org")
    assert read_mail(raw).text.strip() == mark
    assert _files(raw) == {"m.png": png}


@pytest.mark.parametrize("name", ["k42-turn-7-red.png", "a", "x" * 30 + ".png", "x" * 31 + ".png", "x" * 46 + ".png", "x" * 80,
                                  "k42 turn.png", "città.png", 'a"b.png', "a;b.png", "A_B-c.d.JSON"])
@pytest.mark.parametrize("kind", ["image/png", "application/json", "text/calendar", "application/vnd.x+json",
                                  "IMAGE/PNG", "application/octet-stream; x=1"])
def test_an_attachments_headers_are_the_packages_bytes(monkeypatch: pytest.MonkeyPatch, name: str, kind: str) -> None:
    fast, slow = _both(monkeypatch, attachments=(Attachment(name, kind, b"data" * 30),
                                                 Attachment("k42.ics", "text/calendar", b"x")))
    assert fast == slow
