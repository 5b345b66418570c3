from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime

from pbem.mail.compose import Attachment, compose, reply_subject
from pbem.mail.parse import read_mail

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def _parse(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


def test_text_only_reply_headers() -> None:
    mid, raw = compose(sender="pbem@localhost", to="anna@example.com", subject="Re: orders",
                       text="Ciao città — ok", domain="localhost", in_reply_to="<a@b>",
                       references=("<w@localhost>",), auto_submitted="auto-replied",
                       game_id="k42", date=datetime(2025, 2, 3, tzinfo=UTC))
    assert mid.startswith("<") and mid.endswith("@localhost>")
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    msg = _parse(raw)
    assert msg["Message-ID"] == mid
    assert msg["In-Reply-To"] == "<a@b>"
    assert msg["References"] == "<w@localhost> <a@b>"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["X-PBEM-Game"] == "k42"
    assert msg["Date"] == "Mon, 03 Feb 2025 00:00:00 +0000"
    assert msg["Content-Transfer-Encoding"] == "quoted-printable"
    assert msg.get_content_charset() == "utf-8"
    assert read_mail(raw).text.strip() == "Ciao città — ok"
    assert read_mail(raw).message_id == mid


def test_inline_png_with_html_and_json_attachment() -> None:
    mid, raw = compose(sender="pbem@localhost", to=["a@x.it", "b@x.it"], subject="[pbem] k42",
                       text="report", html='<p>map: <img src="cid:map-k42"></p>',
                       attachments=(Attachment("map.png", "image/png", PNG, inline_cid="map-k42"),
                                    Attachment("view.json", "application/json", b'{"a": 1}')),
                       message_id="<fixed@localhost>", domain="localhost")
    assert mid == "<fixed@localhost>"
    msg = _parse(raw)
    assert msg["To"] == "a@x.it, b@x.it"
    assert msg.get_content_type() == "multipart/mixed"
    related = [p for p in msg.walk() if p.get_content_type() == "multipart/related"]
    assert len(related) == 1
    png = next(p for p in msg.walk() if p.get_content_type() == "image/png")
    assert png["Content-ID"] == "<map-k42>" and png.get_content_disposition() == "inline"
    assert png.get_content() == PNG
    js = next(p for p in msg.walk() if p.get_content_type() == "application/json")
    assert js.get_filename() == "view.json" and js.get_content() == b'{"a": 1}'
    assert read_mail(raw).text.strip() == "report"


def test_png_without_html_is_attached() -> None:
    _, raw = compose(sender="pbem@localhost", to="a@x.it", subject="s", text="t",
                     attachments=(Attachment("map.png", "image/png", PNG, inline_cid="m"),),
                     domain="localhost")
    msg = _parse(raw)
    png = next(p for p in msg.walk() if p.get_content_type() == "image/png")
    assert png.get_content_disposition() == "attachment" and png.get_content() == PNG


def test_reply_subject_never_stacks() -> None:
    assert reply_subject("orders") == "Re: orders"
    assert reply_subject("Re: orders") == "Re: orders"
    assert reply_subject("RE: Re: R: Rif: AW: orders") == "Re: orders"
    assert reply_subject("Re[2]: orders") == "Re: orders"
    assert reply_subject("Report of the re-match") == "Re: Report of the re-match"
    assert reply_subject("") == "Re:"
