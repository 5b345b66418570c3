"""A smoke run of `benchmarks/mail_throughput.py` at a tiny size: players mail their orders
over SMTP, the daemon (SQLite) or two `pbem serve` worker processes (PostgreSQL, sharing
the mailbox lease and the stored-mail queue), each a process of its own, handle them; the
benchmark's own check says that every mail was handled exactly once (one inbound row, one
sheet and one reply sent each), and its figures are printed, the floor's with them."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import mail_throughput  # noqa: E402

ARGS = argparse.Namespace(games=3, width=400, kind="corteo", orders_only=True, players="own", roles=[], pairs=1)
FILED = "order mails that file orders:       3 in"
FLOOR = "the floor (no processing: the same 3 mails sent, IMAP FETCH + STORE, the daemon's reply ("


def shares(out: str) -> list[int]:
    """How many mails each daemon process handled in the timed burst (its line is the
    last: the warm-up's comes first)."""
    return [int(n) for n in out.rsplit("mails handled by each worker: ", 1)[1].split(";", 1)[0].split()]


def test_one_daemon_on_sqlite_handles_every_mail_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(mail_throughput.run(ARGS, f"sqlite:///{tmp_path}/pbem.sqlite", 1))
    out = capsys.readouterr().out
    assert FILED in out and FLOOR in out and "times the floor's" in out, out
    assert shares(out) == [3], out  # the daemon's own process handled them


def test_pairs_measure_the_floor_and_pbem_in_turn_on_games_of_their_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--pairs 2``: the floor and the burst twice, each burst on games of its own (its own
    exactly-once check: one sheet a mail, for seats that had none), then the medians."""
    asyncio.run(mail_throughput.run(argparse.Namespace(**{**vars(ARGS), "pairs": 2}),
                                    f"sqlite:///{tmp_path}/pbem.sqlite", 1))
    out = capsys.readouterr().out
    assert out.count(FILED) == 2 and out.count(FLOOR) == 2, out
    assert "6 games created" in out and "pair 2 of 2" in out, out
    summary = out.split("the median of 2 pairs: ", 1)[1].splitlines()[0]
    each = summary.split("(each pair: ", 1)[1].rstrip(")").split()
    assert len(each) == 2 and all(share.endswith("%") for share in each), summary


def test_the_median_of_pairs_is_each_columns_own() -> None:
    line = mail_throughput.median_of_pairs([(100.0, 0.40, 3.0), (150.0, 0.55, 2.5), (120.0, 0.50, 2.75)])
    assert line == ("order mails that file orders, the median of 3 pairs:  120.0 mails/s, 50% of the floor, "
                    "2.75 times the floor's CPU a mail (each pair: 40% 55% 50%)")
    assert "times the floor's CPU" not in mail_throughput.median_of_pairs([(100.0, 0.4, 0.0)])


def test_two_workers_on_postgresql_handle_every_mail_once(capsys: pytest.CaptureFixture[str]) -> None:
    url = os.environ.get("PBEM_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("PBEM_TEST_POSTGRES_URL is not set: the workers share a PostgreSQL database")
    base = make_url(url)
    url = base.set(database=f"{base.database}_mailbench").render_as_string(hide_password=False)
    asyncio.run(mail_throughput.run(ARGS, url, 2))
    out = capsys.readouterr().out
    assert FILED in out and FLOOR in out, out
    each = shares(out)
    assert len(each) == 2 and sum(each) == 3, out  # two workers, each mail handled by one


def test_a_worker_that_only_sends_sends_every_answer(capsys: pytest.CaptureFixture[str]) -> None:
    """``--roles inbox,deadlines maps,outbox``: the first worker handles every mail and sends
    nothing; the second, woken by each answer queued (`pbem.service.wakeup.WORK`), sends them
    all (the benchmark's check: one reply sent a mail)."""
    url = os.environ.get("PBEM_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("PBEM_TEST_POSTGRES_URL is not set: the workers share a PostgreSQL database")
    base = make_url(url)
    url = base.set(database=f"{base.database}_mailroles").render_as_string(hide_password=False)
    asyncio.run(mail_throughput.run(argparse.Namespace(**{**vars(ARGS), "roles": ["inbox,deadlines", "maps,outbox"]}),
                                    url, 2))
    out = capsys.readouterr().out
    assert FILED in out and FLOOR in out, out
    assert shares(out) == [3, 0], out  # the mail handled by the first alone


def test_a_floor_below_the_clocks_tick_has_no_multiple() -> None:
    """A floor of 3 mails may cost less CPU than the clocks' 10 ms tick (it read 0 once and the
    smoke run above divided by it); then no multiple is printed rather than a crash."""
    assert mail_throughput.times_the_floor(0.004, 0.0) == "no times the floor's: the floor's CPU below the clock's tick"
    assert mail_throughput.times_the_floor(0.006, 0.002) == "3.00 times the floor's"


def test_the_machines_speed_is_printed_as_a_yardstick() -> None:
    """The first line says how fast the machine is (the best of 50 timings of one PBKDF2), so
    that figures from different machines can be set side by side."""
    import re

    line = mail_throughput.machine_speed()
    assert re.fullmatch(r"this machine: 1,000 PBKDF2-SHA256 rounds in [1-9]\d* µs of CPU", line), line
