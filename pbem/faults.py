"""Named crash points, for the tests that kill the server at each step of the pipeline.

`checkpoint(name)` does nothing unless the environment variable ``PBEM_CRASH_AT``
names that point: then the process dies on the spot (``os._exit``, no cleanup, like a
power cut). The points: ``inbound.before-commit``, ``inbound.after-commit`` (committed,
not yet marked \\Seen), ``outbox.after-send`` (the server said 250, the row is not yet
marked sent), ``reports.before-finish`` (maps drawn, reports not yet queued). Outside
the daemon's pipeline: ``leagues.mid-pairing`` (`pbem league pair`, after each game made).
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

POINTS = ("inbound.before-commit", "inbound.after-commit", "outbox.after-send", "reports.before-finish")
EXIT_CODE = 86


def checkpoint(name: str) -> None:
    if os.environ.get("PBEM_CRASH_AT") == name:
        log.critical("crash point %s reached: exiting now", name)
        logging.shutdown()
        os._exit(EXIT_CODE)
