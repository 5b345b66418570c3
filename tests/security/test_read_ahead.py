"""The mail reader reads a batch ahead (`pbem.service.budget.Inspector.ahead`) and every
mail still keeps its own budget: a mail that never finishes is over budget, the mails
handed behind it are read by a new reader, a mail the caller skips costs no one else's
answer. Real worker processes; the stalling reader is tests/security/slowreader.py.
No timing is asserted beyond "over budget" (a budget of 2 s for mails read in a few ms)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.mail.envelope import parse_envelope
from pbem.mail.parse import read_mail
from pbem.service import budget

SLOW = "tests.security.slowreader:inspect"


def mail(n: int, stall: bool = False) -> bytes:
    head = b"X-Test-Stall: yes\r\n" if stall else b""
    return (b"From: anna@localhost\r\nTo: pbem@localhost\r\nSubject: orders %d\r\n" % n + head +
            b"Message-ID: <m%d@localhost>\r\n\r\nGAME k%d\r\nSEAT north s3cret\r\nPASS\r\nEND\r\n" % (n, n))


@pytest.fixture
def reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[budget.Inspector]:
    monkeypatch.setenv("PBEM_TEST_STALL_FLAG", str(tmp_path / "stalled"))
    inspector = budget.Inspector(2.0, target=SLOW)
    yield inspector
    inspector.close()


def test_a_batch_read_ahead_is_read_whole(reader: budget.Inspector) -> None:
    batch = [mail(i) for i in range(40)]
    reader.ahead(batch)
    assert reader.check(batch[0]) is None
    assert len(reader._sent) == 39  # the rest handed to the worker while the first is handled
    assert [reader.check(raw) for raw in batch[1:]] == [None] * 39
    assert not reader._sent and reader._sent_bytes == 0  # every answer was read


def test_a_mail_over_budget_in_a_batch_leaves_the_others_read(reader: budget.Inspector) -> None:
    batch = [mail(0), mail(1, stall=True), mail(2), mail(3)]
    reader.ahead(batch)
    verdicts = [reader.check(raw) for raw in batch]
    assert verdicts[0] is None and verdicts[2:] == [None, None]
    assert verdicts[1] is not None and "more than 2 s" in verdicts[1]


def test_skipped_mails_do_not_answer_for_the_next(reader: budget.Inspector) -> None:
    """The daemon skips a mail found already on record: its answer is dropped, and a stalled
    mail skipped costs the next one nothing but a new reader."""
    batch = [mail(0), mail(1), mail(2, stall=True), mail(3), mail(4)]
    reader.ahead(batch)
    assert reader.check(batch[0]) is None
    assert reader.check(batch[3]) is None  # 1 and 2 skipped; 2 never finishes
    assert reader.check(batch[4]) is None


def test_a_mail_not_handed_ahead_is_read_as_before(reader: budget.Inspector) -> None:
    reader.ahead([mail(0), mail(1)])
    assert reader.check(mail(7)) is None
    assert reader.check(mail(8, stall=True)) is not None
    assert reader.check(mail(9)) is None


def test_the_reader_hands_back_what_it_read_of_a_persons_mail_once(reader: budget.Inspector) -> None:
    """The daemon does not read a mail a second time: the reader's `budget.Reading` is the
    mail as `read_mail` gives it (but its parse tree) and its envelope, taken once."""
    batch = [mail(0), mail(1)]
    reader.ahead(batch)
    assert reader.check(batch[0]) is None
    got = reader.reading(batch[0])
    assert got is not None and got.mail == read_mail(batch[0]) and got.mail.parsed is None
    assert got.envelope == parse_envelope(got.mail.text) and got.envelope.game == "k0"
    assert dict(got.mail.headers) == dict(read_mail(batch[0]).headers)
    assert reader.reading(batch[0]) is None  # taken: never handed out twice
    assert reader.check(batch[1]) is None
    assert reader.reading(batch[0]) is None  # another mail was read since


def test_a_machines_mail_and_a_mail_over_budget_come_back_unread(reader: budget.Inspector) -> None:
    auto = mail(0).replace(b"Subject:", b"Auto-Submitted: auto-replied\r\nSubject:")
    stalled = mail(1, stall=True)
    reader.ahead([auto, stalled])
    assert reader.check(auto) is None and reader.reading(auto) is None  # the daemon records it itself
    assert reader.check(stalled) is not None and reader.reading(stalled) is None


def test_without_a_budget_nothing_is_read_ahead() -> None:
    assert budget.Inspector(0).reading(mail(0)) is None


def test_a_reading_that_cannot_be_sent_leaves_the_mail_read_in_its_budget() -> None:
    inspector = budget.Inspector(2.0, target="tests.security.slowreader:unpicklable")
    try:
        batch = [mail(0), mail(1)]
        inspector.ahead(batch)
        assert inspector.check(batch[0]) is None and inspector.reading(batch[0]) is None
        assert inspector.check(batch[1]) is None  # the same reader goes on
        assert inspector._proc is not None and inspector._proc.is_alive()
    finally:
        inspector.close()
