"""A text-only mail written directly (`pbem.mail.compose._direct`, issue 17: composing a reply was
mostly the email package building and writing its message) is the very bytes the package writes,
with the stock SMTP policy, and parses to the same message."""

from __future__ import annotations

import email
import email.policy
import email.utils
from datetime import UTC, datetime
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail import compose as composing
from pbem.mail.compose import compose, reply_subject

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
ACCENTS = "àèéìòùÀÈÉÌÒÙçñüß€—–’“”«»"
ODD = "日本🎲\u00a0\u200b"
PUNCT = " .,:;!?'\"()[]<>@=_-/\\#%&*+"

#: Subjects as the server writes them (`mailer.subject`) and as players answer them.
SUBJECTS = ["[pbem] k42 turn 7 — orders accepted", "[pbem] c2 turno 3 — ordini ricevuti",
            "[pbem] a1 mano 2 — perché è così: già fatto", "Re: [pbem] k42 turn 7 — report",
            "[pbem] corteo-123 turno 12 — la città è già in marcia, ma le unità più lente restano",
            "[pbem] " + "parole lunghe " * 8 + "— fine", "[pbem] x — " + "é" * 90, "Re: orders", "", "—",
            "[pbem] k42 turn 7 — " + "x" * 80, "a " * 40 + "è"]
NAMES = ["Club PBEM", "pbem", "Círcolo PBEM", "Club (Roma)", 'Il "club"', "", "A very long club name indeed, "
         "longer than anyone would write", "Club-PBEM_2"]
ADDRESSES = ["pbem@localhost", "pbem@club.example.org", "red@example.org", "Red.Player+pbem@Example.ORG",
             "x" * 70 + "@example.org", "ünï@example.org"]


def _stock(**kw: object) -> tuple[str, bytes]:
    """``compose`` the package's way: no direct writing, the stock SMTP policy."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(composing, "_DIRECT", False)
        m.setattr(composing, "_POLICY", email.policy.SMTP)
        return compose(**kw)  # type: ignore[arg-type]


def _parsed(raw: bytes) -> tuple[list[tuple[str, str]], str]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return [(k, str(v)) for k, v in msg.items()], str(msg.get_content())


def _same(**kw: object) -> bytes:
    kw = {"domain": "club.example.org", "message_id": "<m1@club.example.org>",
          "date": datetime(2026, 11, 26, 5, 0, tzinfo=UTC), **kw}
    _, direct = compose(**kw)  # type: ignore[arg-type]
    _, stock = _stock(**kw)
    assert direct == stock
    assert _parsed(direct) == _parsed(stock)
    return direct


_texts = st.text(alphabet=LETTERS + ACCENTS + ODD + PUNCT + "\t\n\r\x0c\x85=", max_size=400)
_lines = st.lists(st.one_of(st.text(alphabet=LETTERS + ACCENTS + " =.\t", min_size=60, max_size=200),
                            st.sampled_from(["", ".", "From here", "  PLACE MOV1 F6", "a=", "line ", "riga\t",
                                             "Città: già più è", "=" * 80, "x" * 76 + "é", "x" * 75 + " "])),
                  max_size=12).map("\n".join)
_subjects = st.one_of(st.sampled_from(SUBJECTS), st.text(alphabet=LETTERS + ACCENTS + ODD + PUNCT + "\t",
                                                         max_size=120),
                      st.lists(st.text(alphabet=LETTERS + ACCENTS, min_size=1, max_size=30), max_size=14).map(" ".join))
_senders = st.builds(lambda name, addr: email.utils.formataddr((name, addr)) if name else addr,
                     st.one_of(st.sampled_from(NAMES), st.text(alphabet=LETTERS + ACCENTS + " .,-_()\"", max_size=40)),
                     st.sampled_from(ADDRESSES[:-1]))
_ids = st.sampled_from(["<179569088721.19558.18367466722748335582@localhost>", "<a@b>", "p-1@example.org",
                        "<" + "o" * 88 + "@outlook.com>", "<bad id@x>", "<ünï@x>"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sender=_senders, to=st.one_of(st.sampled_from(ADDRESSES), st.lists(st.sampled_from(ADDRESSES), min_size=1,
                                                                        max_size=3)),
       subject=_subjects, text=st.one_of(_texts, _lines), game_id=st.one_of(st.none(), st.sampled_from(
           ["k42", "c2", "corteo-123", "x" * 90, "a b"])),
       in_reply_to=st.one_of(st.none(), _ids), references=st.lists(_ids, max_size=25),
       auto_submitted=st.sampled_from(["auto-generated", "auto-replied"]),
       reply_to=st.one_of(st.none(), st.sampled_from(["pbem+k42.red.xyz@club.example.org", '"Tok" <t@x.it>',
                                                      "Tök <t@x.it>"])))
def test_direct_bytes_are_the_packages(sender: str, to: object, subject: str,
                                       text: str, game_id: str | None, in_reply_to: str | None,
                                       references: list[str], auto_submitted: str, reply_to: str | None) -> None:
    _same(sender=sender, to=to, subject=subject, text=text, game_id=game_id, in_reply_to=in_reply_to,
          references=tuple(references), auto_submitted=auto_submitted,
          extra_headers=(("Reply-To", reply_to),) if reply_to else ())


@pytest.mark.parametrize("subject", SUBJECTS + [reply_subject(s) for s in SUBJECTS])
@pytest.mark.parametrize("lang_text", ["Ordini di corteo per c2 turno 0 registrati. Ricevuta: e74f\n\n"
                                       "  PLACE MOV1 F6\n"
                                       "\nIn attesa degli altri posti. Scadenza: dom 29 nov 2026 12:01 CET (11:01 UTC). "
                                       "Puoi mandare nuovi ordini fino ad allora: contano gli ultimi.\n",
                                       "Orders of corteo for c2 turn 0 are on file.\n" + "  HEAD MOV\n" * 40])
def test_replies_in_both_languages(subject: str, lang_text: str) -> None:
    _same(sender='"Club PBEM" <pbem@club.example.org>', to="corteo1@example.org", subject=subject,
          text=lang_text, in_reply_to="<p@x>", references=("<pbem.c2.corteo.3.8690234f4a5c@club.example.org>",),
          game_id="c2", extra_headers=(("Reply-To", "pbem+c2.corteo1.abcdef@club.example.org"),))


def test_an_order_reply_is_written_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The common answer never builds the package's message (else the cost is back)."""
    def refused(*args: object, **kw: object) -> None:
        raise AssertionError("built with the email package")

    monkeypatch.setattr(composing, "EmailMessage", refused)
    for sender in ('"Club PBEM" <pbem@club.example.org>', "pbem <pbem@localhost>", "Club PBEM <pbem@x.it>"):
        _, raw = compose(sender=sender, to="red@example.org", subject="[pbem] c2 turno 3 — ordini ricevuti",
                         text="Città già\n", domain="x.it", in_reply_to="<a@b>", references=("<r@x.it>",),
                         game_id="c2", extra_headers=(("Reply-To", "pbem+c2.red.x@x.it"),))
        assert b"Subject: [pbem] c2 turno 3 =?utf-8?b?4oCU?= ordini ricevuti\r\n" in raw


@pytest.mark.parametrize("extra", [("Subject", "again"), ("To", "b@x.it"), ("Reply-To", "a\nb@x.it"),
                                   ("MIME-Version", "1.0"), ("Content-Type", "text/html")])
def test_unusual_headers_go_the_packages_way(extra: tuple[str, str]) -> None:
    """A header the package refuses or treats apart: the same error, or the same bytes."""
    kw: dict[str, object] = {"sender": "pbem@x.it", "to": "a@x.it", "subject": "s", "text": "t", "domain": "x.it",
                             "message_id": "<m@x.it>", "date": datetime(2026, 1, 1, tzinfo=UTC),
                             "extra_headers": (extra,)}
    try:
        _, stock = _stock(**kw)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)[:20]):
            compose(**kw)  # type: ignore[arg-type]
    else:
        assert compose(**kw)[1] == stock  # type: ignore[arg-type]
