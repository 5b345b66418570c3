"""What every harness shares: atheris when installed (``pip install -e '.[fuzz]'``), and a
plain run over given files without it (the tests do that, so the harnesses keep working)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

try:
    import atheris
except ImportError:  # the test suite runs the harnesses without it
    atheris = None

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def instrumented() -> contextlib.AbstractContextManager[Any]:
    """Imports inside are instrumented for coverage when atheris is there."""
    return atheris.instrument_imports() if atheris is not None else contextlib.nullcontext()


def inputs(paths: list[str]) -> Iterator[bytes]:
    for name in paths:
        path = Path(name)
        for item in sorted(path.iterdir()) if path.is_dir() else [path]:
            if item.is_file():
                yield item.read_bytes()


def run(test_one_input: Callable[[bytes], None]) -> None:
    """``python fuzz/<harness>.py [libFuzzer options] [corpus dirs]``."""
    if atheris is None:
        for data in inputs([a for a in sys.argv[1:] if not a.startswith("-")]):
            test_one_input(data)
        print("atheris is not installed: ran the given inputs once (pip install -e '.[fuzz]')")
        return
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
