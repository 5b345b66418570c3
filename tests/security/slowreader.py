"""A mail reader for the budget tests: it reads like the real one, except for a mail with
the header ``X-Test-Stall``: ``yes`` never finishes (a stand-in for a mail whose reading
would take hours), ``until-released`` finishes once the file named in
``PBEM_TEST_STALL_RELEASE`` exists. Either says it has started by creating the file named
in ``PBEM_TEST_STALL_FLAG``."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pbem.service import budget


def inspect(raw: bytes) -> budget.Reading | None:
    head = raw[:4096]
    if b"X-Test-Stall: " in head:
        flag = os.environ.get("PBEM_TEST_STALL_FLAG")
        if flag:
            Path(flag).write_text("stalled", encoding="utf-8")
        release = os.environ.get("PBEM_TEST_STALL_RELEASE", "")
        for _ in range(36000):
            if b"X-Test-Stall: until-released" in head and release and Path(release).exists():
                break
            time.sleep(0.1)
    return budget.inspect(raw)


def unpicklable(raw: bytes) -> budget.Reading | None:
    """A reading that cannot be pickled (its envelope a function): the mail is read in its
    budget all the same, and the daemon reads it again."""
    read = budget.inspect(raw)
    return None if read is None else budget.Reading(read.mail, lambda: None)  # type: ignore[arg-type]
