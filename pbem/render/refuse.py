"""Where no map may be drawn: the daemon's event loop (``design/performance.md``: mail keeps
flowing while maps are drawn).

The daemon handles a mail on its event loop's own thread (`pbem.app.App`: no thread hop, no
handing the interpreter lock back and forth) and most mails draw nothing. A mail whose
handling would draw a map (a sealed phase's preview, the MAP command, the welcomes of a game
that starts) meets `DrawingRefused` before the first pixel: its transaction is rolled back
and the daemon handles it again in a thread, where drawing is allowed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pbem.errors import DrawingRefused

__all__ = ["check", "drawing_refused"]

_REFUSED: ContextVar[bool] = ContextVar("pbem_drawing_refused", default=False)


@contextmanager
def drawing_refused() -> Iterator[None]:
    """Within: every drawing raises `DrawingRefused` (this context only: a thread started
    from it, `asyncio.to_thread` included, copies the refusal; a process pool does not)."""
    token = _REFUSED.set(True)
    try:
        yield
    finally:
        _REFUSED.reset(token)


def check() -> None:
    """Raises `DrawingRefused` when drawing is refused here (`drawing_refused`)."""
    if _REFUSED.get():
        raise DrawingRefused("no map is drawn on the event loop: handle this mail in a thread")
