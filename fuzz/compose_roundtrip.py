"""Fuzz the compose round trip: a text and reply ids composed then read back give the same
text and the parent id, and the headers never carry an encoded id."""

from __future__ import annotations

from _harness import instrumented, run

with instrumented():
    from pbem.mail.compose import compose
    from pbem.mail.parse import read_mail


def test_one_input(data: bytes) -> None:
    text, _, rest = data.decode("utf-8", "replace").partition("\x00")
    ids = [f"<{word}@example.org>" for word in rest.split() if word.isascii() and word.isprintable()
           and "<" not in word and ">" not in word and "@" not in word and len(word) < 200]
    _, raw = compose(sender="pbem@localhost", to="anna@example.org", subject="s", text=text or "x",
                     domain="localhost", in_reply_to=ids[-1] if ids else None, references=ids)
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert all(len(line) <= 998 for line in head.split(b"\r\n"))
    for line in head.replace(b"\r\n ", b" ").split(b"\r\n"):
        if line.startswith((b"In-Reply-To:", b"References:")):
            assert b"=?" not in line
    back = read_mail(raw)
    if ids:
        assert back.in_reply_to == ids[-1]


if __name__ == "__main__":
    run(test_one_input)
