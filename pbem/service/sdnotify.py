"""systemd's notify protocol (sd_notify(3)), spoken on the socket directly: one datagram
per message to ``$NOTIFY_SOCKET``. ``Type=notify`` waits for READY=1 before the unit counts
as started; with ``WatchdogSec=`` the daemon sends WATCHDOG=1 at half the interval from
its event loop, so a hung loop is restarted. Outside systemd (no socket) nothing is sent."""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger(__name__)


def notify(message: str) -> bool:
    """Send ``message`` (e.g. ``"READY=1"``); returns whether a socket was there to take it."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.setblocking(False)  # called from the event loop: a reader that lags must not stall it
            sock.sendto(message.encode(), address)
    except BlockingIOError:
        log.debug("systemd's notify socket is full: %s not sent", message.split("\n")[0])
        return False
    except OSError as exc:
        log.warning("cannot notify systemd (%s): %s", os.environ.get("NOTIFY_SOCKET"), exc)
        return False
    return True


def watchdog_interval() -> float | None:
    """Seconds between WATCHDOG=1 pings (half systemd's WatchdogSec), or None."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2_000_000
