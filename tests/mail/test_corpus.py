"""The corpus (tests/mail/corpus/*.eml, listed in its README): real-looking mails as
clients, autoresponders and mail servers write them. Each file has an expectation here:
the classifier's reason for a machine (never answered), or, for a person, the text that
``read_mail`` must extract and the block that ``parse_envelope`` must find. Bounces are
also read with ``pbem.mail.bounce``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem.mail.bounce import is_bounce, parse_bounce
from pbem.mail.classify import machine_reason
from pbem.mail.envelope import parse_envelope
from pbem.mail.parse import read_mail
from tests.mail import hostile

CORPUS = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class Human:
    sender: str
    game: str
    seat: str
    secret: str
    turn: int | None
    orders: tuple[str, ...]
    text: tuple[str, ...] = ()  # must appear in mail.text
    not_text: tuple[str, ...] = ()  # must not


#: file -> the classifier's reason (with the raw bytes), or what a person's mail must give.
EXPECT: dict[str, str | Human] = {
    "vacation-gmail.eml": "auto-submitted: auto-replied",
    "vacation-outlook-exchange.eml": "auto-header: x-auto-response-suppress",
    "vacation-italian-risposta-automatica.eml": "auto-reply-subject: Risposta automatica",
    "bounce-gmail-dsn.eml": "auto-submitted: auto-replied",
    "bounce-outlook-ndr.eml": "auto-submitted: auto-replied",
    "bounce-mailer-daemon-text.eml": "null-return-path: <>",
    "bounce-exim-text.eml": "auto-submitted: auto-replied",
    "delay-postfix-dsn.eml": "auto-submitted: auto-replied",
    "mailing-list-copy.eml": "mailing-list: list-id",
    "read-receipt.eml": "report: disposition-notification",
    "own-marker-loop.eml": "own-marker: X-PBEM-Game",
    "forwarded-welcome-inline.eml": "forwarded-own-mail: subject Fwd: [pbem] k42 — benvenuto",
    "forwarded-report-attached.eml": "forwarded-own-mail: X-PBEM-Game in an attached message",
    "reply-outlook-it.eml": Human(
        "giulia.verdi@contoso.it", "k42", "sud", "4hk29pqzm3xw", 3, ("C3-D4", "E5-F6"),
        text=("E5-F6   # attacco sulla città", "Inviato: lunedì 23 novembre 2026 10:00")),
    "reply-gmail-it.eml": Human(
        "mario.rossi@gmail.com", "k42", "nord", "7fq2mh3kp9z1", 3, ("A1-B2", "B3 tiene"),
        text=("> TURNO 2", "ha\nscritto:")),
    "html-only.eml": Human(
        "chiara.galli@example-mail.it", "k43", "est", "q8rt2mzkw5hd", 5, ("G7-H8", "H9 attacca I9"),
        text=("turno 5 — stavolta attacco.", "\nFINE\n"),
        not_text=("TURNO 4", "G1-G2", "tracking", "font-family", "ha scritto")),
    "latin1-qp.eml": Human(
        "nicolo.bianchi@example.it", "k42", "nord", "7fq2mh3kp9z1", 3, ("A1-B2", "C3-D4"),
        text=("ecco gli ordini per la città. Perché no?", "A1-B2   # verso la città", "Nicolò",
              "Circolo Scacchistico di Forlì")),
    "windows-1252.eml": Human(
        "jean.dupont@example.fr", "k42", "ouest", "z4cm7tqpk2rn", 3, ("F1-F2", "G2 défend"),
        text=("Voilà mes ordres “du tour 3” – merci… (coût : 5 €)",)),
    "unknown-charset.eml": Human(
        "piero@example.org", "k42", "est", "q8rt2mzkw5hd", 3, ("G7-H8",),
        text=("Ordini per la città di Forlì:", "# perché sì")),
    "garbage-500-lines.eml": Human(
        "ugo.fabbri@example.net", "k42", "ovest", "m2xp7kq4z9ta", 3, ("D4-E5", "E6 holds"),
        text=("DEBUG worker",)),
    "forwarded-report-with-orders.eml": Human(
        "anna.neri@example.com", "k44", "north", "3wqa8xkdp2mv", 3, ("A4-A5", "B2 holds"),
        text=("-------- Forwarded Message --------", "TURN 2")),
}

#: file -> (original Message-ID, failed recipient, status, permanent, words of the diagnostic, game)
BOUNCES: dict[str, tuple[str, str, str, bool, str, str | None]] = {
    "bounce-gmail-dsn.eml": ("<176388480112.40213.7711502293810246001@club.example>", "paolo.neri.1987@gmail.com",
                             "5.1.1", True, "does not exist", "k42"),
    "bounce-outlook-ndr.eml": ("<176388480112.40213.4402210987654321001@club.example>", "anna.neri@contoso.it",
                               "5.1.10", True, "RecipientNotFound", "k42"),
    "bounce-mailer-daemon-text.eml": ("<176388480112.40213.1234509876123450001@club.example>",
                                      "paolo.gialli@example-isp.it", "5.1.1", True, "User unknown", "k42"),
    "bounce-exim-text.eml": ("<176353920011.40213.5550001112223334445@club.example>", "sara.conti@example-hosting.it",
                             "", True, "mailbox is full", "k42"),
    "delay-postfix-dsn.eml": ("<176388480112.40213.9990001112223334449@club.example>",
                              "marco.ferri@slow-provider.example", "4.4.1", False, "Connection timed out", "k42"),
}


def _raw(name: str) -> bytes:
    return (CORPUS / name).read_bytes()


def _crlf(raw: bytes) -> bytes:
    return re.sub(rb"\r?\n", b"\r\n", raw)


def test_every_file_has_an_expectation_and_a_line_in_the_readme() -> None:
    files = sorted(p.name for p in CORPUS.glob("*.eml"))
    assert files == sorted(EXPECT)
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    for name in files:
        assert f"`{name}`" in readme, f"{name} is not listed in corpus/README.md"
    assert set(BOUNCES) <= set(files)


MACHINES = sorted(k for k, v in EXPECT.items() if isinstance(v, str))
HUMANS = sorted(k for k, v in EXPECT.items() if isinstance(v, Human))


@pytest.mark.parametrize("name", MACHINES)
def test_machine_mail_is_never_answered(name: str) -> None:
    raw = _raw(name)
    expected = EXPECT[name]
    for data in (raw, _crlf(raw)):
        mail = read_mail(data)
        assert machine_reason(mail, raw=data) == expected
        if name != "forwarded-report-attached.eml":  # that one needs the raw bytes: see below
            assert machine_reason(mail) == expected


@pytest.mark.parametrize("name", HUMANS)
def test_human_mail_text_and_block(name: str) -> None:
    want = EXPECT[name]
    assert isinstance(want, Human)
    for data in (_raw(name), _crlf(_raw(name))):
        mail = read_mail(data)
        assert machine_reason(mail, raw=data) is None
        assert machine_reason(mail) is None
        assert mail.sender == want.sender
        assert "\ufffd" not in mail.text
        for piece in want.text:
            assert piece in mail.text, piece
        for piece in want.not_text:
            assert piece not in mail.text, piece
        env = parse_envelope(mail.text)
        assert env.found and not env.errors, env.problems
        assert (env.game, env.seat, env.secret, env.turn) == (want.game, want.seat, want.secret, want.turn)
        assert tuple(line for _, line in env.order_lines) == want.orders
        assert not is_bounce(mail)


def test_headers_of_the_human_samples() -> None:
    latin = read_mail(_raw("latin1-qp.eml"))
    assert latin.sender_name == "Nicolò Bianchi"
    assert latin.subject.startswith("Ordini per la città")
    assert latin.message_id == "<5c1a9e2f-0d7b-4f3e-8a61-2b9c0e7d4f18@example.it>"
    assert read_mail(_raw("windows-1252.eml")).subject == "Ordres “tour 3” – k42"
    outlook = read_mail(_raw("reply-outlook-it.eml"))
    assert outlook.subject == "R: [pbem] k42 turno 3 — rapporto"
    assert outlook.in_reply_to == "<176388480112.40213.4402210987654321777@club.example>"


@pytest.mark.parametrize("name", sorted(BOUNCES))
def test_bounces_are_read(name: str) -> None:
    message_id, recipient, status, permanent, words, game = BOUNCES[name]
    raw = _raw(name)
    mail = read_mail(raw)
    assert is_bounce(mail)
    bounce = parse_bounce(mail, raw)
    assert bounce is not None
    assert bounce.message_id == message_id
    assert [r.address for r in bounce.failures] == [recipient]
    assert bounce.status == status
    assert bounce.permanent is permanent
    assert words in bounce.diagnostic
    assert bounce.game == game
    assert bounce.standard is (mail.content_type == "multipart/report")
    # without the raw bytes only the text is read: text bounces carry the copy of our mail
    # in it; the reports' human part at least names the recipient
    text_only = parse_bounce(mail)
    assert text_only is not None and recipient in [r.address for r in text_only.recipients]
    assert all(r.permanent is permanent for r in text_only.recipients)


def test_the_outlook_report_keeps_the_original_recipient() -> None:
    raw = _raw("bounce-outlook-ndr.eml")
    bounce = parse_bounce(read_mail(raw), raw)
    assert bounce is not None and bounce.recipients[0].original == "anna.neri@contoso.it"
    assert bounce.reporting_mta == "DB9PR02MB7210.eurprd02.prod.outlook.com"


@pytest.mark.parametrize("name", ["vacation-gmail.eml", "vacation-outlook-exchange.eml", "read-receipt.eml",
                                  "mailing-list-copy.eml", "own-marker-loop.eml",
                                  "vacation-italian-risposta-automatica.eml"])
def test_machines_that_are_not_bounces(name: str) -> None:
    assert not is_bounce(read_mail(_raw(name)))


def test_forwarded_welcome_is_caught_by_its_pasted_headers_too() -> None:
    """Subject edited by the player: the pasted "Subject: [pbem] …" of the forwarded part
    still shows that the block below is ours (it holds the seat's real secret)."""
    raw = _raw("forwarded-welcome-inline.eml").replace(b"Subject: Fwd: [pbem] k42 =?UTF-8?Q?=E2=80=94_benvenuto?=",
                                                       b"Subject: me lo rimandi?")
    mail = read_mail(raw)
    assert mail.subject == "me lo rimandi?"
    assert machine_reason(mail) == "forwarded-own-mail: forwarded subject"


def test_forwarded_welcome_with_a_block_above_is_a_person() -> None:
    raw = _raw("forwarded-welcome-inline.eml").replace(
        b"me lo rimandi? non trovo pi=C3=B9 il messaggio originale",
        b"PARTITA k42\nPOSTO sud 4hk2-9pqz-m3xw\nSTATO\nFINE")
    mail = read_mail(raw)
    assert machine_reason(mail) is None
    env = parse_envelope(mail.text)
    assert env.command is not None and env.command.name == "STATUS" and env.turn is None


def test_forwarded_report_attached_is_never_read_as_orders() -> None:
    """Our report attached whole (message/rfc822) below an HTML-only note: the marker
    inside the attached message is the evidence, so the classifier needs the raw bytes
    (``read_mail`` keeps only the text and, with no plain text of the mail's own, may even
    take the attached message's — the welcome block with the seat's secret)."""
    raw = _raw("forwarded-report-attached.eml")
    mail = read_mail(raw)
    assert machine_reason(mail, raw=raw) == "forwarded-own-mail: X-PBEM-Game in an attached message"
    # the same note with a block of its own is a person's orders
    with_orders = raw.replace(b"<p>Chiara</p>", b"<p>PARTITA k43<br>POSTO est q8rt-2mzk-w5hd<br>STATO<br>FINE</p>")
    assert machine_reason(read_mail(with_orders), raw=with_orders) is None


def test_a_reply_to_our_report_is_not_a_forward() -> None:
    """Replies quote our mail with the same Outlook header as a forward; only the subject
    prefix (R:/Re: vs I:/Fwd:) tells them apart, and a reply is always read."""
    raw = _raw("reply-outlook-it.eml")
    without_block = re.sub(rb"PARTITA k42\r?\nPOSTO sud 4hk2-9pqz-m3xw\r?\nTURNO 3\r?\nC3-D4\r?\n.*?\r?\nFINE\r?\n", b"grazie!\n",
                           raw, count=1)
    assert b"grazie!" in without_block
    assert machine_reason(read_mail(without_block)) is None
    forwarded = without_block.replace(b"Subject: R: [pbem]", b"Subject: I: [pbem]")
    assert machine_reason(read_mail(forwarded)) is not None


def _big_mail(size: int) -> bytes:
    head = (b"From: Ugo Fabbri <ugo.fabbri@example.net>\r\nTo: pbem@club.example\r\nSubject: ordini e foto\r\n"
            b"Date: Mon, 23 Nov 2026 20:11:03 +0100\r\nMessage-ID: <big-30mb@example.net>\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: multipart/mixed; boundary=\"BIG\"\r\n\r\n--BIG\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
            b"GAME k42\r\nSEAT ovest m2xp-7kq4-z9ta\r\nTURN 3\r\nD4-E5\r\nEND\r\n\r\n--BIG\r\n"
            b"Content-Type: image/jpeg\r\nContent-Transfer-Encoding: base64\r\n"
            b"Content-Disposition: attachment; filename=\"IMG_0001.jpg\"\r\n\r\n")
    line = b"/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsK\r\n"
    body = line * ((size - len(head)) // len(line) + 1)
    return head + body + b"--BIG--\r\n"


def test_a_30_mb_mail_is_read_without_blowing_up() -> None:
    """The inbox refuses mail over ``mail.max_size`` from RFC822.SIZE without fetching it
    (``inbound.record_oversized``); ``read_mail`` must still cope with a big one that gets
    through (a raised limit, a server that lied about the size). Its cost is linear: 30 MB
    costs under 20 times 3 MB (CPU time, `hostile.growth`), never a wall-clock limit."""
    raw = _big_mail(30 * 1024 * 1024)
    assert len(raw) >= 30 * 1024 * 1024
    mail = read_mail(raw)
    reason = machine_reason(mail, raw=raw)
    assert reason is None and mail.size == len(raw)
    assert mail.attachments[0][0] == "IMG_0001.jpg" and mail.attachments[0][2] > 20_000_000
    env = parse_envelope(mail.text)
    assert (env.game, env.seat, env.turn) == ("k42", "ovest", 3)
    assert [line for _, line in env.order_lines] == ["D4-E5"]
    small = _big_mail(3 * 1024 * 1024)
    ratio = hostile.growth(lambda: machine_reason(read_mail(small), raw=small),
                           lambda: machine_reason(read_mail(raw), raw=raw), best_of=2)
    assert ratio < hostile.MAX_RATIO, f"30 MB costs {ratio:.1f} times 3 MB"
